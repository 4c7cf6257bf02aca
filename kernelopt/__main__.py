"""``python -m kernelopt``: the ``kernelopt`` command line (``kernelopt/cli.py``)."""

import sys

from .cli import main

sys.exit(main())
