#!/usr/bin/env python3
"""check-links.py FILE.md... - every relative link in the given markdown files resolves.

A link [text](target) whose target is not a URL must name an existing file or directory
(relative to the page), and its #anchor, if any, a heading of that page (GitHub's slugs: lower
case, punctuation dropped, spaces to hyphens) or an explicit <a id="...">. Prints each broken
link and fails when there is one.

One exception, by name: docs/internals/ARCHITECTURE.md is written by another change; the link
to it is accepted while the file does not exist yet.
"""
import os
import re
import sys

PENDING = {"docs/internals/ARCHITECTURE.md"}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    found, fence = set(), False
    for line in open(path):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        m = re.match(r"#+\s+(.*)", line)
        if m:
            found.add(slug(m.group(1)))
        found.update(re.findall(r'<a id="([^"]+)"', line))
    return found


bad = 0
for page in sys.argv[1:]:
    fence = False
    for n, line in enumerate(open(page), 1):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            rel = os.path.relpath(os.path.abspath(dest), ROOT)
            if rel in PENDING:
                continue
            if not os.path.exists(dest):
                print(f"{page}:{n}: broken link {target}: no such file {rel}")
                bad += 1
            elif anchor and (os.path.isdir(dest) or anchor not in anchors(dest)):
                print(f"{page}:{n}: broken link {target}: no heading #{anchor} in {rel}")
                bad += 1
sys.exit(1 if bad else 0)
