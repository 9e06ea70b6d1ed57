#!/usr/bin/env python3
"""Random C programs of loops and branches for differential testing of reverse mode.

    scripts/gen-control-flow.py FAMILY SEED   prints one program on standard output

Each program defines `double f(const double *x, int n)` and a `main` that takes its gradient
with `__enzyme_autodiff` and checks it against central finite differences (test/include/
fdcheck.h), so it runs under test/integration/exec-test.sh like any execution test. Family
`loops`: if / else-if chains on loop counters and on inputs, nested and triangular loops,
loops unrolled by hand with remainders, loops between constants, loops left by `break` and
continued, a scratch buffer updated in place. Family `exits`: loops counting down, `!=`
tests, `while` loops on data, `switch`, in-place updates whose branches read the buffer they
write, steps of 2 with a remainder, early returns. scripts/fuzz.sh runs seeds of both.
"""
import random
import sys


def gen_loops(seed):
    r = random.Random(seed)
    N = r.choice([5, 7, 9, 12, 13])
    lines = []
    lines.append('#include "fdcheck.h"')
    lines.append('extern int enzyme_dup, enzyme_const;')
    lines.append('double __enzyme_autodiff(void *, ...);')
    lines.append(f'enum {{ N = {N} }};')
    lines.append('double f(const double *x, int n) {')
    lines.append('  double s = 0, t = 0.5;')
    lines.append('  double *w = malloc(sizeof *w * (n + 2));')
    lines.append('  for (int i = 0; i < n + 2; i++) w[i] = 0.1 * i;')
    def cond(iv, bound):
        c = r.choice([
            f'{iv} % {r.choice([2,3,4])} == 0', f'{iv} >= {bound}', f'({iv} & 1)',
            f'x[({iv}) % n] > {r.choice(["0.3","0.5","0.7"])}', f'{iv} < {r.randint(1,5)}',
            f'x[({iv}) % n] < x[({iv} + 1) % n]'])
        return c
    def expr(iv):
        return r.choice([f'x[({iv}) % n] * x[({iv}) % n]', f'sin(x[({iv}) % n])', f'x[({iv}) % n] * t',
                         f'exp(0.3 * x[({iv}) % n])', f'x[({iv}) % n] * w[({iv}) % n]', f'x[({iv} + 1) % n] - x[({iv}) % n] * 0.5'])
    nloops = r.randint(1, 3)
    for L in range(nloops):
        kind = r.choice(['plain', 'nested', 'remainder', 'constant', 'break'])
        if kind == 'plain':
            lines.append(f'  for (int i = 0; i < n; i++) {{')
            lines.append(f'    if ({cond("i", "2")}) s += {expr("i")};')
            if r.random() < 0.6:
                lines.append(f'    else if ({cond("i", "3")}) s -= {expr("i")};')
            lines.append(f'    else t = t * 0.9 + {expr("i")} * 0.1;')
            lines.append('  }')
        elif kind == 'nested':
            lines.append(f'  for (int i = 0; i < n; i++)')
            lines.append(f'    for (int j = 0; j < {r.choice(["i", "n", "n - i", "5"])}; j++) {{')
            lines.append(f'      if ({cond("j", "i")}) s += {expr("i + j")};')
            lines.append(f'      else s += 0.25 * {expr("j")};')
            lines.append('    }')
        elif kind == 'remainder':
            u = r.choice([2, 3, 4])
            lines.append('  { int i = 0;')
            lines.append(f'    for (; i + {u} <= n; i += {u}) s += ' + ' + '.join(expr(f'i + {k}') for k in range(u)) + ';')
            lines.append(f'    for (; i < n; i++) s += {expr("i")} * (i + 1);')
            lines.append('  }')
        elif kind == 'constant':
            c = r.randint(3, 9)
            lines.append(f'  for (int i = 0; i < {c}; i++)')
            lines.append(f'    for (int j = 0; j < {r.randint(2,6)}; j++)')
            lines.append(f'      if ({cond("j", "i")}) s += {expr("i * 3 + j")}; else s += 0.1 * {expr("j")};')
        else:
            lines.append('  { int i = 0;')
            lines.append(f'    for (; i < n; i++) {{ if (x[i] > {r.choice(["0.6","0.8","1.0"])}) break; s += {expr("i")}; }}')
            lines.append(f'    for (; i < n; i++) s += {expr("i")} * 0.5;')
            lines.append('  }')
        if r.random() < 0.5:
            lines.append(f'  for (int i = 0; i < n; i++) w[i] = w[i] * 0.5 + x[i] * {r.choice(["0.3", "t", "s * 0.01"])};')
    lines.append('  for (int i = 0; i < n; i++) s += w[i] * w[i];')
    lines.append('  free(w);')
    lines.append('  return s + t;')
    lines.append('}')
    lines.append('static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N); }')
    lines.append('int main(void) {')
    lines.append('  double x[N], dx[N] = {0}, fd[N];')
    lines.append(f'  for (int i = 0; i < N; i++) x[i] = 0.05 + 0.0{r.randint(3,9)}7 * i + 0.21 * ((i * {r.randint(2,7)}) % 5) - 0.33 * (i % 2);')
    lines.append('  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);')
    lines.append('  fd_grad(f_at, NULL, x, N, fd);')
    lines.append('  fd_check_array("dx", dx, fd, N);')
    lines.append('  return fd_finish();')
    lines.append('}')
    return '\n'.join(lines) + '\n'

def gen_exits(seed):
    r = random.Random(seed * 7919 + 13)
    N = r.choice([6, 9, 11, 16])
    L = ['#include "fdcheck.h"', 'extern int enzyme_dup, enzyme_const;', 'double __enzyme_autodiff(void *, ...);', f'enum {{ N = {N} }};',
         'double f(const double *x, int n) {', '  double s = 0.25;', '  double *w = malloc(sizeof *w * n);',
         '  for (int i = 0; i < n; i++) w[i] = x[i] * 0.5 + 0.1;']
    def e(iv):
        return r.choice([f'x[({iv}) % n] * x[({iv}) % n]', f'cos(x[({iv}) % n])', f'w[({iv}) % n] * x[({iv}) % n]',
                         f'x[({iv}) % n] * s * 0.1', f'exp(-x[({iv}) % n])'])
    for _ in range(r.randint(2, 4)):
        k = r.choice(['down', 'ne', 'while', 'switch', 'inplace', 'step2', 'ret'])
        if k == 'down':
            L.append(f'  for (int i = n - 1; i >= 0; i--) {{ if (i % 2) s += {e("i")}; else s -= 0.5 * {e("i + 1")}; }}')
        elif k == 'ne':
            L.append(f'  for (int i = 0; i != n; i++) {{ if (i > {r.randint(0,4)}) s += {e("i")}; }}')
        elif k == 'while':
            L.append(f'  {{ int i = 0; while (i < n && x[i] < {r.choice(["0.6","0.9","1.2"])}) {{ s += {e("i")}; i++; }} if (i < n) s += {e("i")}; }}')
        elif k == 'switch':
            L.append(f'  for (int i = 0; i < n; i++) switch (i % 4) {{ case 0: s += {e("i")}; break; case 1: s *= 0.9; break; case 2: s += {e("i+2")}; break; default: break; }}')
        elif k == 'inplace':
            L.append(f'  for (int i = 0; i < n; i++) {{ if (w[i] > 0.3) w[i] = w[i] * w[i]; else w[i] = {e("i")}; }}')
        elif k == 'step2':
            L.append(f'  {{ int i = 0; for (; i + 1 < n; i += 2) s += {e("i")} - {e("i + 1")}; if (i < n) s += {e("i")}; }}')
        else:
            L.append(f'  if (x[{r.randint(0, N-1)}] > {r.choice(["0.4","0.7"])}) {{ for (int i = 0; i < n; i++) s += w[i]; free(w); return s; }}')
    L += ['  for (int i = 0; i < n; i++) s += w[i] * x[i];', '  free(w);', '  return s;', '}',
          'static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N); }',
          'int main(void) {', '  double x[N], dx[N] = {0}, fd[N];',
          f'  for (int i = 0; i < N; i++) x[i] = 0.07 + 0.0{r.randint(3,9)}3 * i + 0.17 * ((i * {r.randint(2,7)}) % 5) - 0.21 * (i % 3 == 1);',
          '  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);', '  fd_grad(f_at, NULL, x, N, fd);',
          '  fd_check_array("dx", dx, fd, N);', '  return fd_finish();', '}']
    return '\n'.join(L) + '\n'

FAMILIES = {"loops": gen_loops, "exits": gen_exits}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in FAMILIES:
        sys.exit("usage: gen-control-flow.py loops|exits SEED")
    sys.stdout.write(FAMILIES[sys.argv[1]](int(sys.argv[2])))
