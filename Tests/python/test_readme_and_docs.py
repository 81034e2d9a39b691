"""README.md and docs/: the README's Python example prints what the README shows, the README
stays a front door, and every relative link of the README and docs/ resolves."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from examples_testkit import LIBRARY, REPO, needs_library


# ---- README and docs -------------------------------------------------------------

README = REPO / "README.md"

#: Pages the README links to that other branches add (docs/install.md: door-native;
#: docs/formats.md: files). Delete this set once they are merged: then a missing one fails.


def readme_block(heading: str, tag: str) -> str:
    """The first ```tag block after the line `heading` in README.md, with a final newline."""
    lines = README.read_text().splitlines()
    assert heading in lines, f"README.md has no {heading!r}"
    rest = lines[lines.index(heading):]
    assert f"```{tag}" in rest, f"README.md: no ```{tag} block after {heading!r}"
    rest = rest[rest.index(f"```{tag}") + 1:]
    assert "```" in rest, f"README.md: the ```{tag} block after {heading!r} is not closed"
    return "".join(line + "\n" for line in rest[:rest.index("```")])


def test_the_readme_is_a_front_door_of_at_most_200_lines():
    lines = README.read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move reference to docs/"


@needs_library
def test_the_readme_python_example_prints_what_the_readme_shows(tmp_path):
    example = tmp_path / "readme_example.py"
    example.write_text(readme_block("## A run from Python", "python"))
    env = dict(os.environ, RUNWAY_LIBRARY=str(LIBRARY),
               PYTHONPATH=str(REPO / "bindings" / "python"))
    result = subprocess.run([sys.executable, str(example)], env=env, timeout=60,
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == readme_block("## A run from Python", "text")


MARKDOWN_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def heading_anchors(page: Path) -> set[str]:
    """GitHub's anchors of a Markdown page's headings (lower case, punctuation dropped)."""
    anchors = set()
    for line in page.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def relative_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)      # not inside code
    return [link for link in MARKDOWN_LINK.findall(text)
            if not re.match(r"[a-z][a-z0-9+.-]*:", link)]                  # http:, mailto:


def test_every_relative_link_in_the_readme_and_docs_resolves_to_a_file_in_the_repo():
    pages = [README, *sorted((REPO / "docs").glob("*.md"))]
    assert len(pages) > 1, "docs/ holds no page"
    broken = []
    for page in pages:
        for link in relative_links(page):
            path, _, anchor = link.partition("#")
            target = (page.parent / path).resolve() if path else page
            name = target.relative_to(REPO).as_posix() if target.is_relative_to(REPO) else None
            if name is None:
                broken.append(f"{page.name}: {link} (outside the repository)")
            elif not target.exists():
                broken.append(f"{page.name}: {link} (no such file)")
            elif anchor and target.suffix == ".md" and anchor not in heading_anchors(target):
                broken.append(f"{page.name}: {link} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_link_check_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("[a](missing.md) [b](https://example.org) `[c](code.md)`\n"
                    "```\n[d](in-a-block.md)\n```\n[e](page.md#nowhere)\n")
    assert relative_links(page) == ["missing.md", "code.md", "page.md#nowhere"]
    assert "nowhere" not in heading_anchors(page)
