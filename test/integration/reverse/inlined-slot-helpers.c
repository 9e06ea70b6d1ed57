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
// An element kernel gathers four node coordinates into stack arrays and passes them to a
// loop-free helper twice: once as gathered, once after updating them in place (the arrays ARE
// changed between the two calls, as the hydrodynamics step's calc_kinematics does before its
// shape derivatives). A separate helper cannot re-read the arrays (the next element
// overwrites them), so each call's augmented sweep kept the eight coordinates it read, and the
// element loop kept what the helpers returned. Inlined before differentiation
// (distinct_args.rs, inline_leaf_helpers), the arrays become SSA values and the element
// loop's cut keeps the gathered values themselves: the node coordinates are overwritten after
// the kernel (`step` moves the nodes), so they cannot be re-read, and `twist`'s values are
// stored into the arrays after a non-linear update, so they must be rebuilt from kept values.
// The gradient is checked against finite differences. (Before: each call of the helper went
// to its distinct-arguments copy, whose re-optimisation packed two doubles into an i128 that
// reverse mode refused at -O2; had it not, the helper's two tapes would have kept 2 x 88
// bytes per element beside the loop's 96.)
// CHECK-NOT:   tape of @augfwd.corners
// CHECK-LABEL: tape of @augfwd.elements
// CHECK:       per iteration of the loop {{.*}}: 144 bytes
// CHECK-NOT:   tape of @augfwd.corners
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

// Straight-line and large enough that clang keeps it a call at -O2 (two call sites).
double corners(const double *xe, const double *ye, double *b) {
  double s = 0;
  for (int i = 0; i < 4; i++) {
    int j = (i + 1) & 3, k = (i + 2) & 3;
    double ax = xe[j] - xe[i], ay = ye[j] - ye[i];
    double bx = xe[k] - xe[i], by = ye[k] - ye[i];
    double c = ax * by - ay * bx;
    double l = ax * ax + ay * ay + bx * bx + by * by;
    b[i] = c * c / (1.0 + l) + ax * bx * by - ay * ax * bx;
    s += c * l + b[i] * xe[i] * ye[k];
  }
  return s;
}

enum { NN = 9, NE = 6 };
static const int nodes[NE][4] = {{0, 1, 4, 3}, {1, 2, 5, 4}, {3, 4, 7, 6},
                                  {4, 5, 8, 7}, {0, 2, 8, 6}, {1, 5, 7, 3}};

double elements(double *x, double *y, double *out, double dt) {
  double s = 0;
  for (int e = 0; e < NE; e++) {
    double xe[4], ye[4], b[4];
    for (int i = 0; i < 4; i++) {
      xe[i] = x[nodes[e][i]];
      ye[i] = y[nodes[e][i]];
    }
    double v = corners(xe, ye, b);
    out[e] = v;
    for (int i = 0; i < 4; i++) {
      xe[i] -= dt * xe[i] * ye[i];
      ye[i] += dt * b[i];
    }
    s += v * corners(xe, ye, b) + b[0] * b[3];
  }
  return s;
}

/* Moves the nodes after the kernel read them: the gathered loads cannot be read again. */
double step(double *x, double *y, double *out) {
  double s = elements(x, y, out, 0.1);
  for (int n = 0; n < NN; n++) {
    x[n] += 0.01 * out[n % NE];
    y[n] -= 0.02 * out[(n + 1) % NE];
  }
  for (int n = 0; n < NN; n++) s += x[n] * y[n];
  return s;
}

static double x[NN], y[NN];

static double step_at(double v, void *ctx) {
  int k = *(int *)ctx;
  double xs[NN], ys[NN], out[NE];
  for (int n = 0; n < NN; n++) {
    xs[n] = x[n];
    ys[n] = y[n];
  }
  if (k < NN)
    xs[k] = v;
  else
    ys[k - NN] = v;
  return step(xs, ys, out);
}

int main(void) {
  for (int n = 0; n < NN; n++) {
    x[n] = (n % 3) + 0.1 * n;
    y[n] = (n / 3) - 0.05 * n * n;
  }
  double dx[NN] = {0}, dy[NN] = {0}, out[NE], dout[NE] = {0};
  double xs[NN], ys[NN];
  for (int n = 0; n < NN; n++) {
    xs[n] = x[n];
    ys[n] = y[n];
  }
  __enzyme_autodiff((void *)step, enzyme_dup, xs, dx, enzyme_dup, ys, dy, enzyme_dup, out, dout);
  for (int k = 0; k < 2 * NN; k++) {
    double ad = k < NN ? dx[k] : dy[k - NN];
    double at = k < NN ? x[k] : y[k - NN];
    fd_check("step", ad, fd_deriv1(step_at, &k, at));
  }
  return fd_finish();
}
