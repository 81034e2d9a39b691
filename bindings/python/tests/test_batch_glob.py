"""librunway.batch: a folder that a glob's search cannot list is a row, never a silent gap.

``glob.glob`` skips such a folder without a word, so a batch over ``runs/**/*.gpx`` gave rows
for every other recording and none for the ones below it: a table that looked complete. The
search is ``librunway._glob.expand`` now, which matches as glob does and says which folders it
could not list; each is a row whose ``error`` says why, in the place of what it hides.

A folder the search cannot list, as root too: one whose path is longer than PATH_MAX (made
through directory descriptors, listed by its path it fails with ENAMETOOLONG). Not as root, a
folder of mode 000 as well (root reads it anyway).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

import librunway
from librunway import batch
from librunway._glob import expand


def _import_available() -> bool:
    try:
        return librunway.import_available()
    except librunway.LibraryError:
        return False


pytestmark = pytest.mark.skipif(not _import_available(),
                                reason="the loaded librunway has no runway_import")

T0 = 1_700_000_000


def _gpx() -> bytes:
    points = "".join(
        f'<trkpt lat="{52 + k * 0.00003:.6f}" lon="4.0"><time>'
        f'{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(T0 + k))}</time></trkpt>'
        for k in range(60))
    return (f'<?xml version="1.0"?><gpx version="1.1" creator="test" '
            f'xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>{points}</trkseg></trk></gpx>').encode()


def _too_deep(root: Path) -> tuple[str, str]:
    """A chain of folders under `root` whose path passes PATH_MAX (4096 bytes), a recording at
    its end. Returns the first folder of the chain whose path is too long to list and the
    recording's path."""
    name = "d" * 200
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    path, first = str(root), None
    try:
        while len(path) < 4400:
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
            path = os.path.join(path, name)
            if first is None and len(path.encode()) >= 4096:
                first = path
        out = os.open("run.gpx", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, _gpx())
        os.close(out)
    finally:
        os.close(fd)
    assert first is not None
    return first, os.path.join(path, "run.gpx")


def _no_permission(root: Path) -> tuple[str, str]:
    folder = root / "locked"
    folder.mkdir()
    (folder / "run.gpx").write_bytes(_gpx())
    folder.chmod(0)
    return str(folder), str(folder / "run.gpx")


CONSTRUCTIONS = {
    "too deep": (_too_deep, "OSError: [Errno 36] File name too long: "),
    "no permission": (_no_permission, "PermissionError: [Errno 13] Permission denied: "),
}


@pytest.fixture(params=sorted(CONSTRUCTIONS))
def hidden(request, tmp_path):
    """An archive `runs/` with a recording in `a/` and in `z/`, and between them a folder the
    search cannot list: (archive, that folder, the recording it hides, the row's error start)."""
    make, error = CONSTRUCTIONS[request.param]
    if request.param == "no permission" and os.geteuid() == 0:
        pytest.skip("root lists a folder of mode 000")
    root = tmp_path / "runs"
    for sub in ("a", "z"):
        (root / sub).mkdir(parents=True)
        (root / sub / "run.gpx").write_bytes(_gpx())
    (root / "m").mkdir()
    folder, recording = make(root / "m")
    with pytest.raises(OSError):   # (what the construction is for)
        os.scandir(folder).close()
    yield root, folder, recording, error
    if request.param == "no permission":
        os.chmod(folder, 0o755)
    shutil.rmtree(root)   # (deep chains too: rmtree works through descriptors)


@pytest.mark.parametrize("pattern", ["**/*.gpx", "**", "m/**/run.gpx", "*/**/*.gpx"])
def test_a_folder_a_glob_cannot_list_is_a_row_saying_why(hidden, pattern):
    root, folder, recording, error = hidden
    glob_pattern = f"{root}/{pattern}"
    found = batch.find_recordings(glob_pattern)
    expected = [str(root / "a" / "run.gpx"), folder, str(root / "z" / "run.gpx")]
    if pattern.startswith("m/"):
        expected = [folder]
    assert found == expected and recording not in found
    rows = batch.analyse(glob_pattern)
    assert [r["file"] for r in rows] == expected
    row = rows[expected.index(folder)]
    assert row["error"] == f"{error}'{folder}'", row["error"]
    assert row["format"] is None and row["distance_m"] is None
    assert all(r["error"] is None and r["distance_m"] > 0 for r in rows if r is not row)


def test_the_search_matches_as_glob_does(tmp_path, monkeypatch):
    """Over a tree of folders, recordings, other files, hidden names, a link to a folder and a
    broken link, every pattern matches what glob.glob(recursive=True) matches, and nothing is
    reported unlisted (every folder can be listed)."""
    import glob

    monkeypatch.chdir(tmp_path)
    for folder in ("a/b/c", "a/.hidden", "d", ".dot/e"):
        os.makedirs(folder)
    for f in ("a/x.gpx", "a/b/y.fit", "a/b/c/z.TCX", "a/.hidden/h.gpx", "a/.h.gpx", "d/notes.txt",
              ".dot/e/w.gpx", "top.gpx", "d/[x].gpx"):
        Path(f).write_bytes(b"")
    os.symlink("a/b", "link")
    os.symlink("nowhere", "broken.gpx")
    patterns = ["**", "**/", "**/*.gpx", "*/**/*.fit", "a/**", "a/**/*", "a/*/", "*", ".*", "**/.*",
                "a/b/*", "a/*/c/*", "link/**/*", "broken*", "nothing/*", "d/[[]x].gpx", "*.gpx",
                str(tmp_path) + "/**/*.gpx", "a/**/c", "**/b/**/*.TCX"]
    for pattern in patterns:
        matches, unlisted = expand(pattern)
        assert sorted(matches) == sorted(glob.glob(pattern, recursive=True)), pattern
        assert unlisted == [], pattern


def test_a_link_to_a_folder_above_is_not_searched_again(tmp_path):
    """glob.glob follows it down to the kernel's limit of links (and, with two of them, for
    ever): a recording is found once through each way to it that does not loop."""
    root = tmp_path / "runs"
    (root / "a").mkdir(parents=True)
    (root / "a" / "run.gpx").write_bytes(b"")
    os.symlink("..", root / "a" / "up")
    matches, unlisted = expand(f"{root}/**/*.gpx")
    assert matches == [str(root / "a" / "run.gpx")] and unlisted == []


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
