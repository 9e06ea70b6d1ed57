#!/usr/bin/env python3
"""Enzyme's integration tests, run unchanged through Umbra: `make enzyme-compat`.

Walks ../shared/enzyme-integration (a copy of Enzyme's enzyme/test/Integration, which must not
be copied into this repository; its README says how the tests are to be run) and, for every
test, reads its `// RUN:` lines as that README describes:

  * the front-end flags of each RUN line's first `%clang`/`%clang++` step are kept (opt level,
    `-ffast-math`, `-std=...`, `-D...`, `-fopenmp`, `-mllvm` options of LLVM's own, ...);
  * Enzyme-only options are dropped (`%loadEnzyme`, `-mllvm -enzyme-*`, the `%opt ... %enzyme`
    stage), except those in UMBRA_EQUIVALENTS, which become the Umbra option of the same
    meaning (`-mllvm --enzyme-truncate-all=SPEC` is `--truncate-all=SPEC` for the driver,
    `truncate-all=SPEC` in UMBRA_OPTIONS for the plugin); `%O0TBAA` is `-O1 -Xclang
    -disable-llvm-passes`;
  * `%loadClangEnzyme` / `%newLoadClangEnzyme` (Enzyme's clang plugin) become Umbra's clang
    plugin, `-fplugin=build/plugin/libUmbraClang.so`;
  * Enzyme's options on its `%opt` stage with an Umbra equivalent are kept too
    (`--enzyme-load-inactive-file=F` is `--inactive-file=F`), and RUN lines that only write
    files (`echo "f" > %t.list`) run before each build, `%t` a path in its directory;
  * C tests get `-Wno-error=` for the two diagnostics clang 22 made errors
    (C_WARNINGS_NOT_ERRORS);
  * the test is built and run by test/integration/enzyme-test.sh (clang -> umbra -> link, or
    clang with the pass plugin), and its output goes to FileCheck where the RUN line pipes the
    program's output there.

Not compatibility tests, and reported as skipped with the reason: RUN lines that check
Enzyme's own IR or diagnostics (FileCheck on the compiler's output, `-Xclang -verify`, a `not`
compile), Enzyme's LTO pipeline, Enzyme's separate compilation, MPFR truncation; whole tests
that need MPI or CUDA or are XFAIL upstream.

A test's result at one optimisation level is `pass` when every distinct flag set of its RUN
lines at that level builds, runs and passes FileCheck; `fail` otherwise, with the first line
of the first failure (Umbra's one-line error, or the failing step and its first line).

Usage: scripts/enzyme-compat.py [--mode driver|plugin] [--jobs N<=2] [--timeout S]
                                [--filter REGEX] [--write-docs] [--report-only]
Results are kept in build/enzyme-compat/results-MODE.json; a run with --filter replaces those
tests' rows there (and says so in the table's heading); --report-only prints (and with
--write-docs writes) the table from there without running anything.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITE = os.path.join(os.path.dirname(ROOT), "shared", "enzyme-integration")
FOLDERS = ["ReverseMode", "ForwardMode", "ForwardModeVector", "BatchMode", "Sparse", "Truncate"]
LEVELS = ["O0", "O1", "O2", "O3", "O0TBAA"]
ENZYME_TEST = os.path.join(ROOT, "test", "integration", "enzyme-test.sh")
# UMBRA_BIN, UMBRA_PLUGIN (read by enzyme-test.sh) and UMBRA_CLANG_PLUGIN may point elsewhere,
# e.g. at copies, so that a rebuild during a long run does not change what is measured.
CLANG_PLUGIN = os.environ.get("UMBRA_CLANG_PLUGIN") or os.path.join(
    ROOT, "build", "plugin", "libUmbraClang.so")
WORK = os.path.join(ROOT, "build", "enzyme-compat")
DOC = os.path.join(ROOT, "docs", "reference", "enzyme-compat.md")
LLVM_VERSION = 22
# Enzyme's lit configuration puts the suite's directory, Eigen and Enzyme's own headers
# (<enzyme/fixed_point.h>, ...) on the include path; Umbra's versions of those headers are in
# runtime/include.
EXTRA_INCLUDES = ["-I" + SUITE, "-I/usr/include/eigen3",
                  "-I" + os.path.join(ROOT, "runtime", "include")]
# Enzyme's C tests were written for clangs that only warned of these; clang 22 makes them errors
# (blas_lacpy.c calls `fabs` without <math.h> and passes `double (*)[N]` for `double *`). Kept
# warnings, as there: they say nothing of differentiation.
C_WARNINGS_NOT_ERRORS = ["-Wno-error=implicit-function-declaration",
                         "-Wno-error=incompatible-pointer-types"]
# System headers some tests need (the suite's README): without them the test is skipped.
NEEDS = [(r"#\s*include\s*[<\"]boost/", "/usr/include/boost", "libboost-dev")]


# Enzyme's `-mllvm` options that Umbra implements: Enzyme's name -> Umbra's option name (the
# driver's `--NAME=VALUE`, the plugin's `NAME=VALUE` in UMBRA_OPTIONS). Every other
# `-mllvm -enzyme-*` option is dropped.
UMBRA_EQUIVALENTS = {
    "enzyme-truncate-all": "truncate-all",
    "enzyme-load-inactive-file": "inactive-file",
}

# A RUN line that only writes files the others read (`echo "f" > %t.list; ...`): run before
# each build of the test, with `%t` standing for a path in that build's directory.
SETUP_STEP = re.compile(r'\s*echo\s+(?:"[^"$`]*"|[\w.-]+)\s*>\s*%t[\w.-]*\s*')


def setup_steps(line):
    """The `echo ... > %t...` commands of a setup RUN line, or None for any other line."""
    steps = [c for c in line.split(";") if c.strip()]
    if steps and "%clang" not in line and all(SETUP_STEP.fullmatch(c) for c in steps):
        return [c.strip() for c in steps]
    return None


def enzyme_option(token, umbra_options):
    """Keeps Umbra's equivalent of an Enzyme option (`-enzyme-NAME=VALUE`, given to clang's
    `-mllvm` or to Enzyme's opt stage) in `umbra_options`; other Enzyme options are dropped."""
    name, _, value = token.lstrip("-").partition("=")
    if name in UMBRA_EQUIVALENTS:
        umbra_options.append((UMBRA_EQUIVALENTS[name], value))


class Variant:
    """One distinct way a RUN line builds and runs the test."""

    def __init__(self, level, cflags, cxx, filecheck, umbra_options=()):
        self.level = level
        self.cflags = cflags
        self.cxx = cxx
        self.filecheck = filecheck  # FileCheck's arguments, or None
        self.umbra_options = list(umbra_options)  # (name, value) of UMBRA_EQUIVALENTS

    def key(self):
        return (self.level, tuple(self.cflags), self.cxx, tuple(self.filecheck or ()),
                tuple(self.umbra_options))


class Test:
    def __init__(self, folder, name, path):
        self.folder = folder
        self.name = name
        self.path = path
        self.skip = None  # why the whole test is not a compatibility test
        self.variants = []
        self.skipped_lines = []  # reasons for RUN lines left out
        self.setup = []  # setup commands (`echo ... > %t.list`) run before each build


def llvmver_holds(cond):
    """Evaluates `[ %llvmver -ge 12 ] && [ %llvmver -ne 14 ]`-style guards for LLVM 22."""
    ops = {
        "-ge": lambda a, b: a >= b, "-gt": lambda a, b: a > b, "-le": lambda a, b: a <= b,
        "-lt": lambda a, b: a < b, "-eq": lambda a, b: a == b, "-ne": lambda a, b: a != b,
    }
    for op, num in re.findall(r"%llvmver\s+(-\w\w)\s+(\d+)", cond):
        if op in ops and not ops[op](LLVM_VERSION, int(num)):
            return False
    return True


def run_lines(text):
    """RUN lines with lit's `\\` continuations joined."""
    lines, cur = [], None
    for raw in text.splitlines():
        m = re.search(r"RUN:(.*)$", raw)
        if not m:
            continue
        part = m.group(1).rstrip()
        cur = part if cur is None else cur + " " + part.strip()
        if cur.endswith("\\"):
            cur = cur[:-1]
            continue
        lines.append(cur.strip())
        cur = None
    return lines


def classify(line, src):
    """A RUN line -> (Variant, None) or (None, reason to leave it out) or (None, None)."""
    body = line
    m = re.match(r"if (.*?); then (.*?);?\s*fi\s*$", body)
    if m:
        if not llvmver_holds(m.group(1)):
            return None, "not run with LLVM 22 upstream either (%llvmver guard)"
        if "%hasMPFR" in m.group(1):
            return None, "MPFR truncation (Enzyme's -enzyme-truncate-all to MPFR)"
        body = m.group(2)
    if "%clang" not in body:
        return None, None  # a setup step (echo > %t...)
    if re.search(r"-flto|%loadLLDEnzyme|%linkLLDEnzyme", body):
        return None, "Enzyme's LTO pipeline"
    if "-verify" in body:
        return None, "Enzyme's diagnostics (-Xclang -verify)"
    if re.match(r"\s*not\s", body):
        return None, "Enzyme's diagnostics (expects the compile to fail)"
    if "-enzyme-separate-compilation" in body:
        return None, "Enzyme's separate compilation (derivatives exported across modules)"
    # The first %clang step: up to the first pipe, `;` or `&&`.
    start = body.index("%clang")
    first = re.split(r"\||;|&&", body[start:])[0]
    rest = body[start + len(first):]
    stages = [s.strip() for s in rest.split("|")]
    filecheck = None
    for i, stage in enumerate(stages):
        fm = re.match(r"(?:%?FileCheck)\s+(.*)$", stage)
        if fm:
            before = " | ".join(stages[:i])
            if not re.search(r"%lli|%s\.out|%s\.a\.out", before):
                if "2>&1" in before or "2>&1" in first:
                    return None, "Enzyme's diagnostics (FileCheck on the compiler's messages)"
                return None, "Enzyme's IR (FileCheck on the generated IR)"
            args = shlex.split(re.sub(r";?\s*fi\s*$", "", fm.group(1)))
            filecheck = [src if a == "%s" else a for a in args]
            break
    # Every other RUN line is built and run, whether it ran the program upstream or not.
    tokens = shlex.split(first)
    cxx = tokens[0] == "%clang++"
    flags, level, umbra_options = [], None, []
    i = 1
    while i < len(tokens):
        t = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if t in ("%s", "-S", "-emit-llvm", "-c", "%loadEnzyme"):
            pass
        elif t == "-o":
            i += 1
        elif t in ("%loadClangEnzyme", "%newLoadClangEnzyme"):
            flags.append("-fplugin=" + CLANG_PLUGIN)
        elif t == "-mllvm" and re.match(r"--?enzyme", nxt):
            enzyme_option(nxt, umbra_options)
            i += 1
        elif t.startswith("-Rpass=enzyme"):
            pass
        elif t == "%O0TBAA":
            flags += ["-O1", "-Xclang", "-disable-llvm-passes"]
            level = "O0TBAA"
        elif t.startswith("%"):
            return None, f"unknown lit substitution {t}"
        else:
            if re.fullmatch(r"-O[0-3]", t) and level != "O0TBAA":
                level = t[1:]
            flags.append(t)
        i += 1
    if level is None:
        level = "O0"
    # Enzyme's options on its opt stage (`%opt - %OPloadEnzyme %enzyme -enzyme-NAME=VALUE`).
    for stage in stages:
        words = shlex.split(stage)
        if words and words[0] == "%opt":
            for w in words[1:]:
                if re.match(r"--?enzyme-", w):
                    enzyme_option(w, umbra_options)
    if not cxx:
        flags += C_WARNINGS_NOT_ERRORS
    return Variant(level, flags + EXTRA_INCLUDES, cxx, filecheck, umbra_options), None


def parse(folder, name):
    path = os.path.join(SUITE, folder, name)
    test = Test(folder, name, path)
    with open(path, errors="replace") as f:
        text = f.read()
    if re.search(r"^\s*//\s*XFAIL:", text, re.M):
        test.skip = "XFAIL upstream"
        return test
    if re.search(r"#\s*include\s*[<\"]mpi\.h", text) or "/mpi/" in path:
        test.skip = "needs MPI"
        return test
    if re.search(r"#\s*include\s*[<\"]cuda", text) or name.endswith(".cu"):
        test.skip = "needs CUDA"
        return test
    for pattern, path_needed, package in NEEDS:
        if re.search(pattern, text) and not os.path.exists(path_needed):
            test.skip = f"needs {package}, not installed here"
            return test
    seen = set()
    for line in run_lines(text):
        steps = setup_steps(line)
        if steps is not None:
            test.setup += steps
            continue
        variant, reason = classify(line, path)
        if variant is not None:
            if variant.key() not in seen:
                seen.add(variant.key())
                test.variants.append(variant)
        elif reason and reason not in test.skipped_lines:
            test.skipped_lines.append(reason)
    if not test.variants:
        test.skip = "; ".join(test.skipped_lines) or "no RUN line"
    elif test.skipped_lines:
        # Lines for other LLVM versions are no news beside lines that ran.
        guard = "not run with LLVM 22 upstream either (%llvmver guard)"
        test.skipped_lines = [r for r in test.skipped_lines if r != guard]
    return test


def collect(filter_re):
    tests = []
    for folder in FOLDERS:
        d = os.path.join(SUITE, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not re.search(r"\.(c|cpp)$", name):
                continue
            if filter_re and not re.search(filter_re, f"{folder}/{name}"):
                continue
            tests.append(parse(folder, name))
    return tests


def first_error(out):
    """The line that says what went wrong, with the step it came from."""
    lines = [l.rstrip() for l in out.splitlines() if l.strip()]
    step = ""
    for l in lines:
        m = re.match(r"enzyme-test: FAILED at step '([^']*)'", l)
        if m:
            step = m.group(1)
    for l in lines:
        if l.startswith("umbra: error:") or l.startswith("umbra: internal error"):
            return l
        # The plugin's error under clang ("fatal error: error in backend: umbra: error: ...")
        # or opt ("LLVM ERROR: umbra: error: ..."): Umbra's line, without the host's prefix.
        m = re.search(r"umbra: (error|internal error):.*$", l)
        if m:
            return m.group(0)
    if step.startswith("run") or step.startswith("FileCheck"):
        found = first_run_error(lines, step)
        # A warning Umbra gave while building often says why the program then went wrong.
        warned = [l for l in lines if l.startswith("umbra: warning:")]
        return f"{found} [{warned[0]}]" if warned else found
    for l in lines:
        if re.search(r"\berror:", l) and not l.startswith("enzyme-test:"):
            return f"{step}: {l.strip()}" if step else l.strip()
    if step:
        return f"{step} failed"
    return lines[0] if lines else "failed without a message"


def first_run_error(lines, step):
    """FileCheck's complaint; else the test's own (test_utils.h's "Assertion Failed: ...", a
    libc assert); else how the program ended."""
    pattern = r"\berror:" if step.startswith("FileCheck") else \
        r"Assertion|assert|Segmentation|terminate|error"
    for l in lines:
        if re.search(pattern, l, re.I) and not l.startswith("enzyme-test:"):
            return f"{step}: {l.strip()}"
    for l in lines:
        if l.startswith("enzyme-test: the program"):
            return f"{step}: {l[len('enzyme-test: '):]}"
    return f"{step} failed"


def run_variant(test, variant, index, mode, timeout):
    work = os.path.join(WORK, mode, test.folder, f"{os.path.splitext(test.name)[0]}.{index}")
    os.makedirs(work, exist_ok=True)
    # lit's %t: a path of this build's own, for the files the setup lines write.
    lit_t = os.path.join(work, "t")
    for step in test.setup:
        done = subprocess.run(["bash", "-c", step.replace("%t", shlex.quote(lit_t))], cwd=work)
        if done.returncode != 0:
            return {"ok": False, "error": f"setup step failed: {step}", "secs": 0}
    umbra_options = [(name, value.replace("%t", lit_t)) for name, value in variant.umbra_options]
    env = dict(os.environ)
    env["CLANG"] = "clang++-22" if variant.cxx else "clang-22"
    if variant.filecheck is not None:
        env["ENZYME_FILECHECK"] = shlex.join(variant.filecheck)
    else:
        env.pop("ENZYME_FILECHECK", None)
    # Umbra's equivalents of the RUN line's Enzyme options: driver flags, or the plugin's
    # options (`;` between truncations becomes `:`, as `;` separates the plugin's settings).
    env["UMBRA_DRIVER_FLAGS"] = " ".join(
        shlex.quote(f"--{name}={value}") for name, value in umbra_options)
    if umbra_options:
        env["UMBRA_OPTIONS"] = " ".join(
            [env.get("UMBRA_OPTIONS", "")] +
            [f"{name}={value.replace(';', ':')}" for name, value in umbra_options]
        ).strip()
    cflags = list(variant.cflags)
    if mode == "driver" and "-fplugin=" + CLANG_PLUGIN in cflags:
        # The clang plugin loads the pass plugin, as Enzyme's does; here the driver
        # differentiates instead.
        cflags.append("-fplugin-arg-umbra-no-pass")
    cmd = ["bash", ENZYME_TEST, test.path, mode, work] + cflags
    start = time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True, text=True, errors="replace")
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"ok": False, "error": f"timed out after {timeout} s", "secs": timeout}
    secs = round(time.time() - start, 1)
    if proc.returncode == 0:
        return {"ok": True, "error": "", "secs": secs}
    return {"ok": False, "error": first_error(out), "secs": secs}


def run_all(tests, mode, jobs, timeout):
    jobs_list = [(t, v, i) for t in tests for i, v in enumerate(t.variants)]
    results = {}
    done = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_variant, t, v, i, mode, timeout): (t, v, i)
                   for t, v, i in jobs_list}
        for fut in concurrent.futures.as_completed(futures):
            t, v, i = futures[fut]
            r = fut.result()
            results[(t.folder, t.name, i)] = r
            done += 1
            status = "pass" if r["ok"] else "FAIL"
            print(f"[{done}/{len(jobs_list)}] {status} {t.folder}/{t.name} {v.level} "
                  f"({r['secs']} s){'  ' + r['error'] if not r['ok'] else ''}",
                  file=sys.stderr, flush=True)
    return results


def summarise(tests, results):
    """Per test: level -> (status, error), and the test's note."""
    rows = []
    for t in tests:
        cells = {}
        if t.skip:
            rows.append({"folder": t.folder, "name": t.name, "cells": {}, "skip": t.skip,
                         "note": t.skip})
            continue
        errors = []
        for i, v in enumerate(t.variants):
            r = results.get((t.folder, t.name, i))
            if r is None:
                continue
            prev = cells.get(v.level)
            if not r["ok"]:
                if prev != "fail":
                    cells[v.level] = "fail"
                    errors.append(f"{v.level}: {r['error']}")
            elif prev is None:
                cells[v.level] = "pass"
        note = errors[0] if errors else ""
        if t.skipped_lines:
            extra = "other RUN lines skipped: " + "; ".join(t.skipped_lines)
            note = f"{note} ({extra})" if note else extra
        rows.append({"folder": t.folder, "name": t.name, "cells": cells, "skip": None,
                     "note": note, "errors": errors})
    return rows


def totals(rows, folder):
    sel = [r for r in rows if r["folder"] == folder]
    out = {"tests": len(sel), "skipped": sum(1 for r in sel if r["skip"])}
    for lv in LEVELS:
        p = sum(1 for r in sel if r["cells"].get(lv) == "pass")
        f = sum(1 for r in sel if r["cells"].get(lv) == "fail")
        out[lv] = (p, p + f)
    ran = [r for r in sel if not r["skip"] and r["cells"]]
    out["all"] = (sum(1 for r in ran if all(c == "pass" for c in r["cells"].values())), len(ran))
    return out


def short(note):
    """A note without the absolute paths of the suite and the repository."""
    return note.replace(SUITE + "/", "").replace(ROOT + "/", "")


def clip(note, width):
    """`note` in at most `width` characters; a run failure keeps room for Umbra's warning."""
    m = re.match(r"(.*?) (\[umbra: warning: .*\])(.*)$", note)
    if m and len(note) > width:
        head, warn, rest = m.groups()
        half = width // 2
        head = head if len(head) <= half else head[: half - 3] + "..."
        warn = warn if len(warn) <= half else warn[: half - 4] + "...]"
        note = f"{head} {warn}{rest}"
    return note if len(note) <= width else note[: width - 3] + "..."


def kind_of(error):
    """What kind of failure a first-failure line describes."""
    body = error.split(": ", 1)[1] if re.match(r"O\w+: ", error) else error
    if re.search(r"\bumbra: (error|internal)", body):
        return "Umbra refuses the code (a one-line error)"
    if body.startswith("run"):
        return "the program aborts or crashes (a wrong derivative, or a failing check)"
    if body.startswith("FileCheck"):
        return "the output differs from what the test's FileCheck lines expect"
    if "linker command failed" in body:
        # The plugin's compile step links too.
        return "the link fails"
    if body.startswith("compile"):
        return "clang-22 rejects the test before Umbra sees it"
    if body.startswith("link"):
        return "the link fails"
    if body.startswith("timed out"):
        return "timed out"
    return "other"


def kinds(rows):
    """(kind, cells failing that way, tests): over every failing (test, level) cell."""
    # Every failing cell, by the first failure at its level.
    out = {}
    for r in rows:
        first = {}
        for e in r.get("errors", []):
            first.setdefault(e.split(":", 1)[0], e)
        for lv, c in r["cells"].items():
            if c != "fail":
                continue
            k = kind_of(first.get(lv, "other"))
            n, names = out.get(k, (0, set()))
            out[k] = (n + 1, names | {f"{r['folder']}/{r['name']}"})
    return sorted(((k, n, len(names)) for k, (n, names) in out.items()), key=lambda x: -x[1])


def cell(status, md):
    if status is None:
        return "-"
    if status == "fail":
        return "**fail**" if md else "FAIL"
    return status


def render(rows, mode, md, stamp):
    used = [lv for lv in LEVELS if any(lv in r["cells"] for r in rows)]
    out = []
    if md:
        out.append(f"Mode: {mode}. {stamp}")
        out.append("")
        out.append("| folder | tests | skipped | " + " | ".join(f"-{lv}" for lv in used)
                   + " | all levels |")
        out.append("|---|---|---|" + "---|" * len(used) + "---|")
    else:
        out.append(f"Enzyme integration tests through Umbra ({mode}). {stamp}")
        out.append("")
        out.append(f"{'folder':<18} {'tests':>5} {'skip':>5} "
                   + " ".join(f"{'-' + lv:>8}" for lv in used) + f" {'all':>8}")
    folders = [f for f in FOLDERS if any(r["folder"] == f for r in rows)]
    for folder in folders:
        t = totals(rows, folder)
        frac = [f"{t[lv][0]}/{t[lv][1]}" if t[lv][1] else "-" for lv in used]
        allf = f"{t['all'][0]}/{t['all'][1]}"
        if md:
            out.append(f"| {folder} | {t['tests']} | {t['skipped']} | " + " | ".join(frac)
                       + f" | {allf} |")
        else:
            out.append(f"{folder:<18} {t['tests']:>5} {t['skipped']:>5} "
                       + " ".join(f"{x:>8}" for x in frac) + f" {allf:>8}")
    out.append("")
    if md:
        out.append("Failing cells by kind of failure:")
        out.append("")
        out.append("| kind | cells | tests |")
        out.append("|---|---|---|")
        for k, n, t in kinds(rows):
            out.append(f"| {k} | {n} | {t} |")
    else:
        out.append("Failing cells by kind of failure:")
        for k, n, t in kinds(rows):
            out.append(f"  {n:>4} cells, {t:>3} tests: {k}")
    for folder in folders:
        sel = [r for r in rows if r["folder"] == folder]
        out.append("")
        if md:
            out.append(f"### {folder}")
            out.append("")
            out.append("| test | " + " | ".join(f"-{lv}" for lv in used)
                       + " | first failure, or why skipped |")
            out.append("|---|" + "---|" * len(used) + "---|")
        else:
            out.append(f"{folder}")
        for r in sel:
            cells = ["skip" if r["skip"] else cell(r["cells"].get(lv), md) for lv in used]
            note = short(r["note"])
            if md:
                note = clip(note.replace("|", "\\|").replace("`", "'"), 240)
                out.append(f"| {r['name']} | " + " | ".join(cells) + f" | {note} |")
            else:
                note = clip(note, 160)
                out.append(f"  {r['name']:<36} " + " ".join(f"{c:>6}" for c in cells)
                           + f"  {note}")
    return "\n".join(out) + "\n"


DOC_HEAD = """# Enzyme's integration tests through Umbra

Enzyme's own integration tests (`enzyme/test/Integration`: C and C++ programs that call
`__enzyme_autodiff`, `__enzyme_fwddiff`, ... and abort on a wrong derivative), run unchanged
through Umbra by `make enzyme-compat` (`scripts/enzyme-compat.py`). They are not part of this
repository: the target runs them from `../shared/enzyme-integration` when that directory
exists, as its README describes. For each `// RUN:` line the front-end flags of its first
`%clang`/`%clang++` step are kept and Enzyme's own options dropped (`%loadEnzyme`,
`-mllvm -enzyme-*`, the `opt ... %enzyme` stage; `%O0TBAA` is `-O1 -Xclang
-disable-llvm-passes`), except the options Umbra has an equivalent of, which become that (the
script's `UMBRA_EQUIVALENTS`; `enzyme-test.sh` passes `UMBRA_DRIVER_FLAGS` to the driver, the
plugin reads `UMBRA_OPTIONS`); where the RUN line loads Enzyme's clang plugin, Umbra's clang
plugin (`-fplugin=build/plugin/libUmbraClang.so`) is loaded instead. The test is then built
(`clang -emit-llvm`, `umbra`, link, with the clang plugin's `-fplugin-arg-umbra-no-pass`: it
lowers the attributes and keeps functions with user rules out of line, the driver
differentiates; or with the pass plugin: `--mode plugin`, [below](#plugin-mode)), run with one
and two OpenMP threads, and its output checked with `FileCheck` where the RUN line pipes it
there (`test/integration/enzyme-test.sh`).

| Enzyme's option | driver mode | plugin mode |
|---|---|---|
| `-mllvm --enzyme-truncate-all=SPEC` | `umbra --truncate-all=SPEC` | `UMBRA_OPTIONS=truncate-all=SPEC` (`;` in SPEC becomes `:`) |
| `--enzyme-load-inactive-file=FILE` (on Enzyme's `opt` stage) | `umbra --inactive-file=FILE` | `UMBRA_OPTIONS=inactive-file=FILE` |

RUN lines that only write files for the others (`echo "mysin" > %t.list`) run before each
build, with lit's `%t` a path in that build's directory. C tests are compiled with
`-Wno-error=implicit-function-declaration -Wno-error=incompatible-pointer-types`: the clangs
Enzyme's tests were written for only warned of these, clang 22 rejects them (`blas_lacpy.c`
calls `fabs` without `<math.h>`), and they say nothing of differentiation.

Skipped, with the reason in the table: RUN lines that check Enzyme's own IR or diagnostics
(`FileCheck` on the compiler's output, `-Xclang -verify`, a compile expected to fail), its LTO
pipeline, its separate compilation and MPFR truncation; tests that need MPI or CUDA (or Boost,
when it is not installed) or are XFAIL upstream. A cell is `pass` when every distinct flag set of the test's RUN lines at that
level passes; "first failure" is Umbra's one-line error or the failing step's first line.

```text
make enzyme-compat                       # run all, print the table (minutes; 2 jobs)
make enzyme-compat ARGS="--write-docs"   # ... and rewrite this page from both modes' last runs
make enzyme-compat ARGS="--mode plugin"  # the same through the plugins
scripts/enzyme-compat.py --filter 'ReverseMode/cout' --mode plugin   # a subset, one mode
```

What still fails, and why: `blas.cpp`, `blas_runtime.cpp` and `cublas.cpp` define BLAS
routines as call-recording shims and compare the calls Enzyme's adjoints make (its cache
copies through a non-standard `cblas_dlacpy` included); Umbra's BLAS rules apply to calls of
the library, and it refuses the shims' stores of pointers into a global container.
`Sparse/cloth_simple.cpp` and `Sparse/elastic.cpp` are rejected by clang-22 itself (an
overloaded function template passed where a parameter pack deduces its type).
`fbuff.cpp` is never run upstream, and its check is wrong (d/dx (2x)^2 at 2.1 is the
16.8 Umbra computes). `notypeanalysis.c` stores a derivative through a pointer loaded from a
global without a shadow: Enzyme drops it, Umbra refuses. In plugin mode `customglob.cpp` at
-O0 does not link: the unoptimised primal loads an `extern` global the program never defines
(`lli`, which Enzyme's RUN lines use, resolves symbols lazily).

## The table

"""


PLUGIN_HEAD = """## Plugin mode

The same tests built the way a user of the plugins builds them: `clang -fpass-plugin=
build/plugin/libUmbraPlugin.so` from source to program, with `-fplugin=build/plugin/
libUmbraClang.so` added where the RUN line loads Enzyme's clang plugin (the clang plugin sees
the pass plugin already loaded and does not load it again), so Umbra runs inside clang's own
pipeline, at its end, with the functions that user rules name kept out of line from its start.
At `-O0TBAA` (`-Xclang -disable-llvm-passes`, which leaves pass plugins out as well) the bitcode
goes through `opt -load-pass-plugin=build/plugin/libUmbraPlugin.so -passes=umbra` instead, as
Enzyme's RUN lines do with `opt ... %enzyme`.

"""


def render_plugin_summary(driver_rows, rows, stamp):
    """Plugin mode: the totals and kinds of failure, and the rows whose cells differ from the
    driver mode's."""
    full = render(rows, "plugin", True, stamp)
    head = full.split("\n### ", 1)[0].rstrip("\n")
    out = [PLUGIN_HEAD + head, ""]
    by_name = {(r["folder"], r["name"]): r for r in driver_rows}
    used = [lv for lv in LEVELS if any(lv in r["cells"] for r in rows)]
    differ = [r for r in rows
              if (r["folder"], r["name"]) in by_name
              and r["cells"] != by_name[(r["folder"], r["name"])]["cells"]]
    out.append("Tests whose cells differ from the driver mode's (plugin mode's cells):")
    out.append("")
    if not differ:
        out.append("none.")
        return "\n".join(out) + "\n"
    out.append("| test | " + " | ".join(f"-{lv}" for lv in used)
               + " | first failure in plugin mode |")
    out.append("|---|" + "---|" * len(used) + "---|")
    for r in differ:
        cells = [cell(r["cells"].get(lv), True) for lv in used]
        note = clip(short(r["note"]).replace("|", "\\|").replace("`", "'"), 240)
        out.append(f"| {r['folder']}/{r['name']} | " + " | ".join(cells) + f" | {note} |")
    return "\n".join(out) + "\n"


def load_store(mode):
    path = os.path.join(WORK, f"results-{mode}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def fresh_names(tests):
    return [f"{t.folder}/{t.name}" for t in tests]


def write_docs():
    """The page: the driver mode's full table, then the plugin mode's summary (each from its
    last stored run)."""
    driver, plugin = load_store("driver"), load_store("plugin")
    text = DOC_HEAD
    if driver:
        text += render(driver["rows"], "driver", True, driver["stamp"])
    else:
        text += "No driver-mode run is stored yet.\n"
    if plugin:
        text += "\n" + render_plugin_summary(driver["rows"] if driver else [], plugin["rows"],
                                             plugin["stamp"])
    with open(DOC, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=["driver", "plugin"], default="driver")
    ap.add_argument("--jobs", type=int, default=2, help="parallel builds (at most 2)")
    ap.add_argument("--timeout", type=int, default=600,
                    help="seconds per build and run of one RUN line's flag set")
    ap.add_argument("--filter", help="regular expression on FOLDER/NAME")
    ap.add_argument("--write-docs", action="store_true", help=f"write {os.path.relpath(DOC, ROOT)}")
    ap.add_argument("--report-only", action="store_true",
                    help="print the table of the last run (build/enzyme-compat) without running")
    ap.add_argument("--list", action="store_true", help="print the parsed RUN lines and stop")
    args = ap.parse_args()
    if not os.path.isdir(SUITE):
        print(f"enzyme-compat: {SUITE} not found (Enzyme's integration tests; see its README)",
              file=sys.stderr)
        return 2
    jobs = max(1, min(args.jobs, 2))
    tests = collect(args.filter)
    if args.list:
        for t in tests:
            if t.skip:
                print(f"{t.folder}/{t.name}: skip: {t.skip}")
            for v in t.variants:
                fc = f" | FileCheck {shlex.join(v.filecheck)}" if v.filecheck else ""
                cc = "clang++" if v.cxx else "clang"
                print(f"{t.folder}/{t.name}: {v.level}: {cc} {shlex.join(v.cflags)}{fc}")
        return 0
    os.makedirs(WORK, exist_ok=True)
    store = os.path.join(WORK, f"results-{args.mode}.json")
    if args.report_only:
        with open(store) as f:
            saved = json.load(f)
        rows, stamp = saved["rows"], saved["stamp"]
    else:
        umbra = os.environ.get("UMBRA_BIN") or os.path.join(ROOT, "target", "release", "umbra")
        for tool in [umbra, CLANG_PLUGIN]:
            if not os.path.isfile(tool):
                print(f"enzyme-compat: {tool} missing: run `make plugin`", file=sys.stderr)
                return 2
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip() or "?"
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "passes",
                                "driver", "cmake", "runtime"],
                               capture_output=True, text=True).stdout.strip()
        commit += " with local changes" if dirty else ""
        start = time.time()
        results = run_all(tests, args.mode, jobs, args.timeout)
        rows = summarise(tests, results)
        when = time.strftime("%Y-%m-%d", time.gmtime())
        secs = int(time.time() - start)
        if args.filter and os.path.exists(store):
            # Update the stored table: these tests' rows are replaced, the others kept.
            with open(store) as f:
                saved = json.load(f)
            fresh = {(r["folder"], r["name"]): r for r in rows}
            rows = [fresh.pop((r["folder"], r["name"]), r) for r in saved["rows"]]
            rows += list(fresh.values())
            order = {f: k for k, f in enumerate(FOLDERS)}
            rows.sort(key=lambda r: (order[r["folder"]], r["name"]))
            stamp = (f"{saved['stamp']} Re-run at {commit}, {when}: "
                     f"{', '.join(sorted(set(fresh_names(tests))))}.")
        else:
            stamp = (f"Umbra at {commit}, LLVM {LLVM_VERSION}, {when}; {len(results)} builds "
                     f"in {secs} s.")
        if not args.filter or os.path.exists(store):
            with open(store, "w") as f:
                json.dump({"rows": rows, "stamp": stamp}, f, indent=1)
    print(render(rows, args.mode, False, stamp))
    if args.write_docs:
        write_docs()
        print(f"wrote {os.path.relpath(DOC, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
