#!/usr/bin/env python3
"""The terminal replay now lives in the package: ``librunway replay FILE`` (or
``python -m librunway replay FILE``); this script runs the same thing, for a checkout
without the package installed:

    python3 examples/python/replay.py examples/data/city_run.gpx --speed 120

(``librunway replay --help`` lists the options.)
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bindings", "python"))

from librunway.replay import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(prog="replay"))
