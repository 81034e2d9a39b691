"""``python -m librunway``: the ``librunway`` command (see :mod:`librunway.cli`).

Importing this module (as ``pkgutil.walk_packages`` and the tools built on it do) runs nothing."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
