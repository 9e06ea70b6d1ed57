#!/usr/bin/env python3
"""The corrupt-input corpus: generates mutants of small seed modules and checks that the driver
meets every one of them the documented way.

    python3 test/corrupt/corpus.py UMBRA WORKDIR [--count N] [--seed S]
    python3 test/corrupt/corpus.py --seeds DIR     (only write the seed modules, for the fuzzer)

Run by `make test` through test/driver/corrupt-corpus.ll. Seeds: Inputs/*.c compiled with
clang-22 -O1 -g to bitcode and disassembled to textual IR, plus the checked-in bitcode files in
Inputs/ (mutants that crash LLVM 22's bitcode reader, reader-segv*.bc, or make it allocate without
bound, reader-oom.bc). The mutants are deterministic for a given --seed (truncations, bit flips,
byte overwrites, insertions, deletions).

Every run must end in one of three ways: exit 0 with the output written; exit 1 (a clean error)
or exit 2 (the input crashed LLVM's reader or hit a limit) with exactly one `umbra: error: `
line on stderr (after any warnings), OUTPUT not created, and an existing OUTPUT left as it was. The known crashers
must give exit 2. Anything else (exit 70, a signal, a second line, a stray temporary) fails.
"""

import os
import random
import shutil
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "Inputs")
LLVM_BIN = "/usr/lib/llvm-22/bin"


def build_seeds(out_dir):
    """Compiles Inputs/*.c to .bc and .ll in out_dir; returns every seed path (with the .bc
    files checked in)."""
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for name in sorted(os.listdir(SEEDS)):
        src = os.path.join(SEEDS, name)
        if name.endswith(".c"):
            bc = os.path.join(out_dir, name[:-2] + ".bc")
            ll = os.path.join(out_dir, name[:-2] + ".ll")
            subprocess.run(
                ["clang-22", "-O1", "-g", "-c", "-emit-llvm", src, "-o", bc], check=True
            )
            subprocess.run([os.path.join(LLVM_BIN, "llvm-dis"), bc, "-o", ll], check=True)
            paths += [bc, ll]
        elif name.endswith(".bc"):
            dst = os.path.join(out_dir, name)
            shutil.copyfile(src, dst)
            paths.append(dst)
    return paths


def mutate(rng, data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        if not b:
            b.append(0)
        at = rng.randrange(len(b))
        kind = rng.randrange(5)
        if kind == 0:
            b[at] ^= 1 << rng.randrange(8)
        elif kind == 1:
            b[at] = rng.randrange(256)
        elif kind == 2:
            del b[max(at, 1):]
        elif kind == 3:
            b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            del b[at:at + rng.randint(1, 32)]
    return bytes(b)


def check(umbra, path, work, expect, status):
    """Runs umbra on path; returns what went wrong, or None. Appends the exit status to
    status."""
    out = os.path.join(work, "out.o")
    keep = b"existing output\n"
    if os.path.exists(out):
        os.unlink(out)
    # Half the inputs (by name, so reproducibly) start with an existing OUTPUT.
    existing = zlib.crc32(os.path.basename(path).encode()) % 2 == 0
    if existing:
        with open(out, "wb") as f:
            f.write(keep)
    try:
        r = subprocess.run(
            [umbra, path, "-O0", "--max-memory=256", "--max-read-time=20", "-o", out],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    except subprocess.TimeoutExpired:
        return "timed out"
    status.append(r.returncode)
    err = r.stderr.decode("utf-8", "replace")
    lines = err.splitlines()
    stray = [n for n in os.listdir(work) if n.startswith(".umbra-")]
    if stray:
        return f"left {stray[0]} behind"
    if r.returncode == 0:
        if expect is not None:
            return f"exit 0, expected {expect}"
        if any(not l.startswith("umbra: warning: ") for l in lines):
            return f"exit 0 with unexpected stderr: {err!r}"
        if not os.path.exists(out) or (existing and open(out, "rb").read() == keep):
            return "exit 0 without output"
        return None
    if r.returncode not in (1, 2):
        return f"exit status {r.returncode}: {err!r}"
    if expect is not None and r.returncode != expect:
        return f"exit {r.returncode}, expected {expect}: {err!r}"
    # Warnings may come first; the error is one line, the last.
    if not lines or not lines[-1].startswith("umbra: error: ") or any(
        not l.startswith("umbra: warning: ") for l in lines[:-1]
    ):
        return f"not one error line: {err!r}"
    if existing:
        if open(out, "rb").read() != keep:
            return "existing output clobbered"
    elif os.path.exists(out):
        return "output created"
    return None


def main(argv):
    if len(argv) == 3 and argv[1] == "--seeds":
        for p in build_seeds(argv[2]):
            print(p)
        return 0
    args = argv[1:]
    count, seed = 50, 14
    while "--count" in args or "--seed" in args:
        for flag in ("--count", "--seed"):
            if flag in args:
                i = args.index(flag)
                value = int(args[i + 1])
                del args[i:i + 2]
                if flag == "--count":
                    count = value
                else:
                    seed = value
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    umbra, work = args
    shutil.rmtree(work, ignore_errors=True)
    seeds = build_seeds(os.path.join(work, "seeds"))
    mutants = os.path.join(work, "mutants")
    os.makedirs(mutants)
    rng = random.Random(seed)
    cases = []
    # The known crashers, as they are: LLVM 22's reader crashes on these.
    for p in seeds:
        name = os.path.basename(p)
        if name.startswith("reader-"):
            cases.append((p, 2))
    sources = [p for p in seeds if not os.path.basename(p).startswith("reader-")]
    for i in range(count):
        src = rng.choice(seeds)
        with open(src, "rb") as f:
            data = f.read()
        path = os.path.join(mutants, f"m{i:03}-{os.path.basename(src)}")
        with open(path, "wb") as f:
            f.write(mutate(rng, data))
        cases.append((path, None))
    # Every truncation point class: empty, magic only, header only, and half of each source.
    for p in sources:
        with open(p, "rb") as f:
            data = f.read()
        for n in (0, 2, 4, 8, len(data) // 2):
            path = os.path.join(mutants, f"t{n}-{os.path.basename(p)}")
            with open(path, "wb") as f:
                f.write(data[:n])
            # A prefix of textual IR may well be a valid (empty) module.
            cases.append((path, 1 if p.endswith(".bc") else None))
    failures = 0
    statuses = []
    run_dir = os.path.join(work, "run")
    os.makedirs(run_dir)
    for path, expect in cases:
        problem = check(umbra, path, run_dir, expect, statuses)
        if problem:
            failures += 1
            print(f"FAIL {path}: {problem}")
    by_status = ", ".join(
        f"exit {s}: {statuses.count(s)}" for s in sorted(set(statuses))
    )
    print(f"{len(cases)} inputs ({by_status}), {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
