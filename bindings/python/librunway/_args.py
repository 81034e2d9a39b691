"""The command line's argument parser: usage errors are one line on stderr (exit status 2)."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors are one line, ``PROG: MESSAGE (--help: usage)``,
    instead of the usage block and the message."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (--help: usage)", file=sys.stderr)
        sys.exit(2)
