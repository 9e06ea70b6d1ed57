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
// An element kernel gathers coordinates into a stack array and passes it, with an output
// array, to a helper whose Gauss-point loop reads the coordinates and accumulates into the
// output. As far as the helper alone can tell, the output's stores may overwrite the
// coordinates, so it reloads them at every point and its tape kept what they gave per point
// (issue 27: the hydrodynamics step's `volume_derivatives`, nine Jacobian entries for each of
// eight points). Called with distinct stack slots nothing else sees, the call goes to a copy
// whose parameters are `noalias` (distinct_args.rs): its loads leave the loop and the tape keeps
// the coordinates once per call. `overlapping` passes output and coordinates in one slot, so
// that the helper does read what it wrote: the original is called, and both gradients are
// checked against finite differences.
// CHECK-LABEL: tape of @augfwd.volume.distinct.nnm.{{.*}} (for @volume.distinct.nnm):
// CHECK-NEXT:  once per call: 32 bytes
// CHECK-NOT:   per iteration
// CHECK:       tape of @augfwd.overlapping
// CHECK:       tape of @augfwd.volume.{{[a-z]+}} (for @volume):
// CHECK-NEXT:  per iteration of the loop
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

static const double gpw[8] = {-0.9, -0.6, -0.3, -0.1, 0.1, 0.3, 0.6, 0.9};

__attribute__((noinline)) double volume(const double *xe, double *dvdx, int ngp) {
  double vol = 0;
  for (int i = 0; i < 4; i++) dvdx[i] = 0;
  for (int gp = 0; gp < ngp; gp++) {
    double a = gpw[gp];
    double j0 = xe[0] * (1 + a) + xe[1] * (1 - a), j1 = xe[2] * (1 + a) - xe[3] * (1 - a);
    vol += j0 * j1;
    dvdx[0] += j1 * (1 + a);
    dvdx[1] += j1 * (1 - a);
    dvdx[2] += j0 * (1 + a);
    dvdx[3] -= j0 * (1 - a);
  }
  return vol;
}

enum { N = 7 };

double elements(const double *x, int n) {
  double s = 0;
  for (int k = 0; k + 4 <= n; k++) {
    double xe[4], d[4];
    for (int i = 0; i < 4; i++) xe[i] = x[k + i] * x[k + i];
    s += volume(xe, d, 8) * (d[0] + d[3]);
  }
  return s;
}

double overlapping(const double *x, int n) {
  double s = 0;
  for (int k = 0; k + 4 <= n; k++) {
    double b[5];
    for (int i = 0; i < 5; i++) b[i] = x[(k + i) % n] * x[(k + i) % n];
    s += volume(b, b + 1, 8) * b[4];
  }
  return s;
}

static double x[N];

static double elements_at(double v, void *ctx) {
  int k = *(int *)ctx;
  double keep = x[k];
  x[k] = v;
  double r = elements(x, N);
  x[k] = keep;
  return r;
}

static double overlapping_at(double v, void *ctx) {
  int k = *(int *)ctx;
  double keep = x[k];
  x[k] = v;
  double r = overlapping(x, N);
  x[k] = keep;
  return r;
}

int main(void) {
  for (int i = 0; i < N; i++) x[i] = 0.7 + 0.13 * i;
  double dx[N] = {0}, dy[N] = {0};
  __enzyme_autodiff((void *)elements, enzyme_dup, x, dx, enzyme_const, N);
  __enzyme_autodiff((void *)overlapping, enzyme_dup, x, dy, enzyme_const, N);
  for (int k = 0; k < N; k++) {
    fd_check("elements", dx[k], fd_deriv1(elements_at, &k, x[k]));
    fd_check("overlapping", dy[k], fd_deriv1(overlapping_at, &k, x[k]));
  }
  return fd_finish();
}
