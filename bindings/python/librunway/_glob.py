"""Glob expansion that says which folders it could not list.

``glob.glob`` skips a folder it cannot list (no permission, a path too long, an I/O error)
without a word: whatever lies below it is simply not matched. A batch over an archive would
then give a table that looks complete and is not. :func:`expand` matches as
``glob.glob(pattern, recursive=True)`` does and returns those folders beside the matches.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from collections.abc import Iterator
from typing import Any

__all__ = ["expand"]


def expand(pattern: str) -> tuple[list[str], list[str]]:
    """The paths ``glob.glob(pattern, recursive=True)`` matches, found by its rules, and the
    folders the search could not list (each as it would be joined into a match).

    The rules: a part without ``*``, ``?`` or ``[`` names a path that must exist (a folder
    when more parts follow or the pattern ends in a separator); a name starting with ``.``
    matches only a part that starts with ``.``; ``**`` matches the folder itself and
    everything below it (only folders when more parts follow), through symbolic links to
    folders, skipping names that start with ``.``. Only what the search takes for a folder
    (``os.DirEntry.is_dir``, or ``os.path.isdir`` for a part it names) is listed, so an
    unlisted entry is a folder whose listing failed, never a file or a broken link. A folder
    met again below itself (a link to an ancestor) is not searched again.
    """
    unlisted: dict[str, None] = {}   # (in order, each once)

    def entries(folder: str, folders_only: bool) -> list[tuple[str, bool]]:
        """(name, is a folder) of what `folder` holds; only called for a folder."""
        try:
            with os.scandir(folder or os.curdir) as it:
                found = [(e.name, _is_dir(e)) for e in it]
        except OSError:
            unlisted[folder or os.curdir] = None
            return []
        return [(n, d) for n, d in found if d or not folders_only]

    def in_folder(folder: str, part: str, folders_only: bool) -> list[str]:
        """The names in `folder` that one part (not ``**``) matches."""
        if not glob.has_magic(part):
            path = os.path.join(folder, part)
            there = os.path.isdir(path) if folders_only or not part else os.path.lexists(path)
            return [part] if there else []
        names = [n for n, _ in entries(folder, folders_only)]
        if not part.startswith("."):
            names = [n for n in names if not n.startswith(".")]
        return fnmatch.filter(names, part)

    def below(folder: str, folders_only: bool, ancestors: frozenset[Any]) -> Iterator[str]:
        """What ``**`` matches in `folder`: "" (the folder itself), then every path below it."""
        yield ""
        for name, is_dir in entries(folder, folders_only):
            if name.startswith("."):
                continue
            yield name
            if not is_dir:
                continue
            path = os.path.join(folder, name)
            key = _identity(path)   # (None: its listing fails, and says so)
            if key in ancestors:
                continue
            for sub in below(path, folders_only, ancestors | {key}):
                if sub:
                    yield os.path.join(name, sub)

    def search(path: str, folders_only: bool) -> Iterator[str]:
        """The matches of `path` (as glob's own ``_iglob``: its folder part's matches first)."""
        folder, part = os.path.split(path)
        if not glob.has_magic(path):   # (never a folder part: those have magic, see below)
            if os.path.lexists(path) if part else os.path.isdir(folder):
                yield path
            return
        if folder and folder != path and glob.has_magic(folder):
            folders: Iterator[str] | list[str] = search(folder, True)
        else:
            folders = [folder]
        for f in folders:
            if f and not os.path.isdir(f):   # not a folder (or one too deep to reach): nothing in it
                continue
            if part == "**":
                start = _identity(f or os.curdir)
                names: Iterator[str] | list[str] = below(f, folders_only,
                                                         frozenset() if start is None else frozenset({start}))
            else:
                names = in_folder(f, part, folders_only)
            for name in names:
                yield os.path.join(f, name)

    matches = list(search(pattern, False))
    if pattern.startswith("**") and matches and matches[0] == "":
        matches = matches[1:]   # "**" matches the working folder as "", which glob leaves out
    return matches, list(unlisted)


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _identity(path: str) -> tuple[int, int] | None:
    """A folder's (device, inode), None when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino
