// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O2 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s
// A generic copy helper (void *, void *, size_t) called on doubles, on ints and on a struct
// holding a pointer (issue 11, per-call-site specialisation). The type analysis is context-
// insensitive: the helper's parameters merge every caller's types into a conflict. Until it
// specialises per call site, the copy is refused clearly, never differentiated with a guess.
#include <string.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup;

__attribute__((noinline)) static void copy(void *d, const void *s, size_t n) { memcpy(d, s, n); }

typedef struct {
  double *p;
  int n;
} View;

double f(const double *x) {
  double t[3];
  copy(t, x, sizeof t);
  int idx[3] = {2, 0, 1}, jdx[3];
  copy(jdx, idx, sizeof idx);
  View v = {t, 3}, w;
  copy(&w, &v, sizeof v);
  double s = 0;
  for (int i = 0; i < w.n; i++) s += w.p[jdx[i]] * t[i];
  return s;
}
// CHECK: generic-copy-helper.c:{{[0-9]+}}:{{[0-9]+}}: in function '{{f|copy}}': this call moves memory the program accesses with incompatible types ({{.*}}conflict{{.*}}); reverse mode cannot tell where its floating-point data is

void df(const double *x, double *dx) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx); }
