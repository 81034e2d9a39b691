"""Which files a batch reads: the recordings named by paths, globs and folders.

Part of :mod:`librunway.batch`, which re-exports :func:`find_recordings`, :data:`EXTENSIONS`
and ``PathLike``.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from typing import Union

from . import _glob
from .errors import RecordingNotFoundError

#: File name endings read as recordings when a directory or a glob is scanned.
EXTENSIONS = {".gpx": "gpx", ".tcx": "tcx", ".fit": "fit"}

PathLike = Union[str, "os.PathLike[str]"]


def _is_recording_name(name: str) -> bool:
    return os.path.splitext(name)[1].lower() in EXTENSIONS


def _scan(folder: str) -> list[str]:
    """Recordings under `folder`, recursively, sorted; hidden files and folders skipped; a
    folder that cannot be listed in their place (its row says why)."""
    found = []

    def unlisted(error: OSError) -> None:   # os.walk would skip it without a word
        found.append(error.filename)

    for root, dirs, files in os.walk(folder, onerror=unlisted):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [os.path.join(root, f) for f in sorted(files)
                  if not f.startswith(".") and _is_recording_name(f)]
    return found


def find_recordings(paths_or_glob: PathLike | Iterable[PathLike]) -> list[str]:
    """The recordings named by a path, a glob, or a list of them, in order.

    A directory is searched recursively for ``.gpx``, ``.tcx`` and ``.fit``
    files (any case; names starting with ``.`` skipped; a folder that cannot be
    listed is listed itself, for its row to say why); a glob (``*``,
    ``?``, ``[``; ``**`` recurses) contributes the recordings it matches (and
    those under directories it matches), and in the same way each folder it
    could not list while matching; a file is taken whatever its name
    (one that is not a recording gives an error row). Each argument's files
    are sorted; a file named twice is listed once.

    Raises:
        librunway.RecordingNotFoundError: a path that is not a glob does not exist (a
            ``FileNotFoundError`` and an ``InputError``, as :func:`librunway.analyse` raises).
    """
    if isinstance(paths_or_glob, (str, os.PathLike)):
        args = [paths_or_glob]
    else:
        args = list(paths_or_glob)
    out: list[str] = []
    seen: set[str] = set()
    for arg in args:
        s = os.fspath(arg)
        if os.path.isdir(s):
            names = _scan(s)
        elif os.path.isfile(s):
            names = [s]
        elif glob.has_magic(s):
            names = []
            matches, folders = _glob.expand(s)   # glob.glob would skip those without a word
            unlisted = set(folders)
            for match in sorted(set(matches) | unlisted):
                if match in unlisted:
                    names.append(match)   # in the place of what it hides; its row says why
                elif os.path.isdir(match):
                    names += _scan(match)
                elif _is_recording_name(match):
                    names.append(match)
        else:
            raise RecordingNotFoundError(s)
        for name in names:
            key = os.path.abspath(name)
            if key not in seen:
                seen.add(key)
                out.append(name)
    return out
