#!/usr/bin/env python3
"""The README's C example and the output it shows (section '## A run from C').

    readme_example.py source README.md          prints the example (the first ```c block)
    readme_example.py check README.md OUT       compares OUT, what the example printed, with
                                                the first ```text block after it

The comparison is line by line and exact, except that a `…` in the README's line stands for any
text (members left out there); the number of lines must match. Exit status 1 with the first
difference on stderr when they differ. Used by Tests/c/run.sh and Tests/install/run.sh.
"""

import re
import sys


def blocks(readme):
    """The C example and the shown output of the section."""
    with open(readme, encoding="utf-8") as f:
        lines = f.read().splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith("## A run from C"))
    except StopIteration:
        sys.exit(f"{readme}: no '## A run from C' section")
    code, shown, cur, kind = None, None, None, None
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if cur is None:
            if line == "```c" and code is None:
                cur, kind = [], "code"
            elif line == "```text" and code is not None:
                cur, kind = [], "shown"
            continue
        if line == "```":
            if kind == "code":
                code = cur
            else:
                shown = cur
                break
            cur = None
            continue
        cur.append(line)
    if not code:
        sys.exit(f"{readme}: no ```c block in '## A run from C'")
    if shown is None:
        sys.exit(f"{readme}: no ```text block (the output) after the C example")
    return code, shown


def matches(shown, printed):
    pattern = ".*?".join(re.escape(part) for part in shown.split("…"))
    return re.fullmatch(pattern, printed) is not None


def main(argv):
    if len(argv) == 3 and argv[1] == "source":
        print("\n".join(blocks(argv[2])[0]))
        return 0
    if len(argv) == 4 and argv[1] == "check":
        _, shown = blocks(argv[2])
        with open(argv[3], encoding="utf-8") as f:
            printed = f.read().splitlines()
        for i, (want, got) in enumerate(zip(shown, printed), 1):
            if not matches(want, got):
                print(f"README example, line {i}: printed\n  {got}\nREADME shows\n  {want}", file=sys.stderr)
                return 1
        if len(shown) != len(printed):
            print(f"README example printed {len(printed)} lines, README shows {len(shown)}", file=sys.stderr)
            return 1
        print(f"   the README example printed what README.md shows ({len(shown)} lines)")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
