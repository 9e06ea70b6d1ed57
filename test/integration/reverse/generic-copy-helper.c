// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// A generic copy helper (void *, const void *, size_t), not inlined, called on doubles, on ints
// and on a struct holding a pointer (issue 11, per-call-site specialisation). Merged over its
// callers, its parameters conflict (a double, an int and a pointer at offset 0) and reverse
// mode refused the copy; specialised per call site, each call's derivative is its own function
// with its own layout, and the copy's length is the constant that call passes. (The int array,
// initialised from a constant, holds neither floats nor pointers: its copies need no shadow.)
#include "fdcheck.h"

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
  for (int i = 0; i < w.n; i++) s += w.p[jdx[i]] * t[i] * (i + 1);
  return s;
}

static double f_at(const double *p, void *ctx) {
  (void)ctx;
  return f(p);
}

int main(void) {
  double x[3] = {0.5, -1.25, 2.0}, dx[3] = {0}, fd[3];
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  fd_grad(f_at, NULL, x, 3, fd);
  fd_check_array("dx", dx, fd, 3);
  return fd_finish();
}
