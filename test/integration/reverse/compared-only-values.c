// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O2 -c -emit-llvm %s -I%testinc -o %t.bc
// RUN: %umbra %t.bc --tape-report -o %t.o 2>&1 | FileCheck %s
// RUN: opt -load-pass-plugin=%plugin '-passes=umbra<tape-report>' %t.bc -o %t.opt.bc 2>&1 | FileCheck %s
// Values computed from active ones but only compared (`fabs(v) < cut`, `sqrt(...) > lim`, a
// conversion to an integer) carry no derivative anywhere: their adjoint is zero, so reverse
// mode leaves it out (reverse/dead_adjoints.rs), and the tape keeps the comparisons' results
// (one byte each) instead of the values their adjoints needed (`fabs`'s needs `v` for its
// sign): the hydrodynamics step's velocity update kept 96 bytes per node for its cutoff, 3
// after. `update` overwrites what it reads (the loads cannot be read again). `kept` compares
// `fabs(v)` and adds it to the result too: that value carries a derivative and stays. Checked
// against finite differences, the cutoffs taken by some entries and not by others.
// (Before: 40 and 44 bytes per iteration of update's vector and scalar loops.)
// CHECK-LABEL: tape of @augfwd.kept
// CHECK:       per iteration of the loop {{.*}}: 8 bytes
// CHECK:       value {{.*}} = load double
// CHECK-LABEL: tape of @augfwd.update
// CHECK:       per iteration of the loop {{.*}}: 34 bytes
// CHECK-NOT:   fabs{{.*}}bytes:
// CHECK:       per iteration of the loop {{.*}}: 21 bytes
// CHECK-NOT:   fabs{{.*}}bytes:
#include "fdcheck.h"
#include <math.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 7 };

/* Velocity update with a cutoff, in place; an energy scaled by a branch on a norm it only
 * compares; a bucket index from a value only converted to an integer. */
__attribute__((noinline)) void update(double *xd, const double *xdd, double *e, double dt,
                                      int n) {
  for (int i = 0; i < n; i++) {
    double v = xd[i] + xdd[i] * dt;
    if (fabs(v) < 0.05) v = 0;
    xd[i] = v;
    double w = sqrt(v * v + e[i] * e[i]);
    int bucket = (int)(4.0 * e[i] * e[i]);
    e[i] = w > 1.5 ? e[i] * (0.5 + 0.1 * bucket) : e[i] * (1.0 + v);
  }
}

/* The compared value is also part of the result: its derivative counts. */
__attribute__((noinline)) double kept(double *xd, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double a = fabs(xd[i] * xd[i] - 0.3);
    if (a < 0.1) a = 0.1;
    xd[i] = a * xd[i];
    s += a;
  }
  return s;
}

double step(double *xd, double *xdd, double *e) {
  update(xd, xdd, e, 0.1, N);
  double s = kept(xd, N);
  for (int i = 0; i < N; i++) s += xd[i] * xd[i] * e[i] + xdd[i] * e[i];
  return s;
}

static const double xd0[N] = {0.4, -0.02, 0.9, -1.3, 0.03, 0.7, -0.6};
static const double xdd0[N] = {0.5, 0.1, -0.4, 0.2, -0.1, 1.1, 0.3};
static const double e0[N] = {1.2, 0.3, 1.6, 0.8, 0.5, 1.4, 0.9};

static double step_at(double v, void *ctx) {
  int k = *(int *)ctx;
  double xd[N], xdd[N], e[N];
  for (int i = 0; i < N; i++) {
    xd[i] = xd0[i];
    xdd[i] = xdd0[i];
    e[i] = e0[i];
  }
  if (k < N)
    xd[k] = v;
  else if (k < 2 * N)
    xdd[k - N] = v;
  else
    e[k - 2 * N] = v;
  return step(xd, xdd, e);
}

int main(void) {
  double xd[N], xdd[N], e[N], dxd[N] = {0}, dxdd[N] = {0}, de[N] = {0};
  for (int i = 0; i < N; i++) {
    xd[i] = xd0[i];
    xdd[i] = xdd0[i];
    e[i] = e0[i];
  }
  __enzyme_autodiff((void *)step, enzyme_dup, xd, dxd, enzyme_dup, xdd, dxdd, enzyme_dup, e, de);
  for (int k = 0; k < 3 * N; k++) {
    double ad = k < N ? dxd[k] : k < 2 * N ? dxdd[k - N] : de[k - 2 * N];
    double at = k < N ? xd0[k] : k < 2 * N ? xdd0[k - N] : e0[k - 2 * N];
    fd_check("step", ad, fd_deriv1(step_at, &k, at));
  }
  return fd_finish();
}
