"""``python -m dsampler``: the same as the ``dsampler`` command."""

import sys

from dsampler.cli.main import main

sys.exit(main())
