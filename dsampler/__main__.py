"""``python -m dsampler``: the same as the ``dsampler`` command."""

import sys

from dsampler.cli import main

sys.exit(main())
