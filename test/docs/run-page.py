#!/usr/bin/env python3
"""run-page.py PAGE.md WORKDIR - run a documentation page's commands, top to bottom.

Every fenced block opened by exactly ```sh is a command block; the blocks are joined in order
into one bash script, run under `set -euo pipefail` (and `set -x`, so a failure shows the
command) from the root of the repository, as the pages tell the reader to. Other blocks (```c,
```text, ```console, ...) are not run: a page that wants a file written says so with a heredoc
in a ```sh block, so that what the test runs is exactly what the reader copies.

WORKDIR becomes TMPDIR (the pages make their scratch directories with `mktemp -d`). Fails when
the page has no command block, or when any command fails.
"""
import os
import subprocess
import sys

page, workdir = sys.argv[1], sys.argv[2]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
blocks, current = [], None
with open(page) as f:
    for n, line in enumerate(f, 1):
        stripped = line.rstrip("\n")
        if current is None:
            if stripped == "```sh":
                current = [f"# {os.path.relpath(page, root)}:{n}"]
        elif stripped.startswith("```"):
            blocks.append("\n".join(current))
            current = None
        else:
            current.append(stripped)
if current is not None:
    sys.exit(f"{page}: a ```sh block is never closed")
if not blocks:
    sys.exit(f"{page}: no ```sh command block to run")

os.makedirs(workdir, exist_ok=True)
script = os.path.join(workdir, "page.sh")
with open(script, "w") as f:
    f.write("set -euo pipefail\nset -x\n" + "\n\n".join(blocks) + "\n")
env = dict(os.environ, TMPDIR=os.path.abspath(workdir))
result = subprocess.run(["bash", script], cwd=root, env=env)
if result.returncode != 0:
    sys.exit(f"{page}: its commands failed (exit {result.returncode}); script: {script}")
print(f"{page}: {len(blocks)} command blocks ran")
