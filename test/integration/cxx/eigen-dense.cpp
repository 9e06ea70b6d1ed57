// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -I/usr/include/eigen3
// Eigen (dense): a Map over the input, a matrix product with a transpose, a column, a
// matrix-vector product, a trace and an array expression, in both modes. Three bugs stood in
// the way, each fixed: a copy of one Map inside a larger expression object was refused
// ("may not start a Product") although the type analysis knew every byte; a field of an
// expression copied as an untyped i64 into a `long` field was refused as a possible float;
// and, with -g, stores and copies cloned into derived functions kept their assignment-tracking
// link (!DIAssignID) to the original function, which made the module invalid (an internal
// error).
// At -O0 this module is not differentiated: its type analysis keeps climbing (a function
// context reached by one object at two offsets, see eigen-o0-tbaa.cpp) and, split per call
// site, settles only after minutes, to refuse a write into Eigen's static cache-size global
// (manage_caching_sizes). Not run here for its time; docs/reference/limitations.md.
#include "fdcheck.h"
#include "umbra.h"
#include <Eigen/Dense>
using namespace Eigen;

__attribute__((noinline)) double f(const double *x, int n) {
  Map<const MatrixXd> A(x, n, n);
  MatrixXd B = A * A.transpose() + MatrixXd::Identity(n, n);
  VectorXd v = B.col(0);
  VectorXd w = B * v;
  return w.squaredNorm() + B.trace() + (A.array().sin() * A.array()).sum();
}

enum { N = 4 };
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N); }

int main() {
  double x[N * N], dx[N * N] = {0}, fd[N * N], v[N * N];
  for (int i = 0; i < N * N; i++) {
    x[i] = 0.1 * sin(1.3 * i) + 0.05 * i;
    v[i] = 1 - 0.05 * i;
  }
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  fd_grad(f_at, NULL, x, N * N, fd);
  fd_check_array("dx", dx, fd, N * N);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N);
  double jv = 0;
  for (int i = 0; i < N * N; i++)
    jv += fd[i] * v[i];
  fd_check("tangent", t, jv);
  return fd_finish();
}
