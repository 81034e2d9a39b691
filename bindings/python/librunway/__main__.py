"""``python -m librunway``: the ``librunway`` command (see :mod:`librunway.cli`)."""

import sys

from .cli import main

sys.exit(main())
