"""``python -m dsampler``: the same as the ``dsampler`` command."""

import sys

from dsampler.cli._main import main

sys.exit(main())
