#!/usr/bin/env python3
"""sparse-check.py TEST OUTPUT

Checks the Hessian that one of Enzyme's Sparse integration tests (run unchanged through
Umbra by enzyme-test.sh) printed as triplets ("r, c = v" or "i=r, j=c, val=v"): the values
summed per (row, column) must match central second differences of the test's function, written
here in Python at the test's own point, for every row the test asks for (the tests print
the triplets without checking them). Exits non-zero naming the first mismatch.
"""
import math
import re
import sys


def sqrtspring():
    n = 8
    x = [(i + 1) ** 2 for i in range(n)]

    def f(x):
        return sum((math.sqrt(x[i + 1] - x[i]) + 1) ** 2 for i in range(n - 1))

    return x, f, range(n), lambda c: c, 1e-4


def ringspring():
    # The input is a periodic view (index mod n); column n is x[0] again.
    n = 8
    x = [(i + 1) ** 2 for i in range(n)]

    def f(x):
        e = 0.0
        for i in range(n):
            d = (x[(i + 1) % n] - x[i]) ** 2
            e += (math.sqrt(d) - 1) ** 2
        return e

    return x, f, range(n), lambda c: c % n, 1e-4


def ring(n, dim):
    x = []
    for i in range(n):
        a = 2 * math.pi * i / n
        x += [math.cos(a), math.sin(a), 0.0][:dim]
    return x + x[:dim]


def ringspring2Dextenddata():
    n = 30
    x = ring(n, 2)

    def f(p):
        return sum(
            (p[2 * i + 2] - p[2 * i]) ** 2 + (p[2 * i + 3] - p[2 * i + 1]) ** 2
            for i in range(n)
        )

    return x, f, range(n), lambda c: c, 1e-4


def spring3d(rest_one):
    def f(p, count):
        e = 0.0
        for i in range(0, count, 3):
            d = sum((p[i + 3 + k] - p[i + k]) ** 2 for k in range(3))
            e += (math.sqrt(d) - 1) ** 2 if rest_one else d
        return e

    return f


def ringspring3Dextenddata():
    n = 30
    x = ring(n, 3)
    g = spring3d(False)
    return x, lambda p: g(p, n), range(n), lambda c: c, 1e-4


def ringspring3Dextenddatarestlengthone():
    n = 30
    x = ring(n, 3)
    g = spring3d(True)
    return x, lambda p: g(p, 3 * (n // 3)), range(n), lambda c: c, 1e-4


def eigen_analysis():
    # eigenstuffM on one face, in float: (x0^2 + x1^2 + x2^2) / 3 * area(face).
    x = [0.0, 1.0, 0.0]
    pos0 = [1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 3.0, 1.0, 3.0]
    u, v, w = pos0[0:3], pos0[3:6], pos0[6:9]
    d1 = [v[k] - u[k] for k in range(3)]
    d2 = [w[k] - u[k] for k in range(3)]
    c = [
        d1[1] * d2[2] - d1[2] * d2[1],
        d1[2] * d2[0] - d1[0] * d2[2],
        d1[0] * d2[1] - d1[1] * d2[0],
    ]
    area = 0.5 * math.sqrt(sum(t * t for t in c))

    def f(x):
        return (x[0] ** 2 + x[1] ** 2 + x[2] ** 2) / 3 * area

    # Rows past the three unknowns (the test asks for 24) have no entries.
    return x, f, range(24), lambda c: c, 1e-3


TESTS = {
    t.__name__: t
    for t in [
        sqrtspring,
        ringspring,
        ringspring2Dextenddata,
        ringspring3Dextenddata,
        ringspring3Dextenddatarestlengthone,
        eigen_analysis,
    ]
}

TRIPLE = re.compile(
    r"^\s*(?:(\d+), (\d+) = |i=(\d+), j=(\d+), val=)(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)"
)


def main():
    name, path = sys.argv[1], sys.argv[2]
    x, f, rows, fold, tol = TESTS[name]()
    got = {}
    with open(path) as out:
        for line in out:
            for piece in line.replace("i=", "\ni=").splitlines():
                m = TRIPLE.match(piece)
                if not m:
                    continue
                r = int(m.group(1) or m.group(3))
                c = fold(int(m.group(2) or m.group(4)))
                got[(r, c)] = got.get((r, c), 0.0) + float(m.group(5))
    if not got:
        sys.exit(f"sparse-check: {name}: no triplets in {path}")
    h = 1e-4
    n = len(x)
    bad = []
    for r in rows:
        if r >= n:
            if any(k[0] == r and abs(v) > tol for k, v in got.items()):
                bad.append(f"row {r} has entries but no unknown")
            continue
        for c in range(n):
            cf = fold(c)
            if cf != c:
                continue

            def at(dr, dc):
                p = list(x)
                p[r] += dr
                p[c] += dc
                return f(p)

            want = (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4 * h * h)
            have = got.get((r, c), 0.0)
            if abs(have - want) > tol * (1 + abs(want)):
                bad.append(f"H[{r}][{c}] = {have:.6f}, expected {want:.6f}")
    extra = [k for k in got if k[0] not in rows]
    if extra:
        bad.append(f"entries in rows the test does not ask for: {extra[:3]}")
    if bad:
        sys.exit(f"sparse-check: {name}: {len(bad)} wrong entries, first: {bad[0]}")
    print(f"sparse-check: {name}: {len(got)} entries match")


main()
