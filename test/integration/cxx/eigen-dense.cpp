// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %clangxx -O0 -g -I/usr/include/eigen3 -I %S/../../include -I %S/../../../runtime/include -c -emit-llvm %s -o %t.O0.bc
// RUN: not %umbra %t.O0.bc -o %t.O0.o 2>&1 | FileCheck %s --check-prefix=O0
// EXEC-CFLAGS: -I/usr/include/eigen3
// Eigen (dense): a Map over the input, a matrix product with a transpose, a column, a
// matrix-vector product, a trace and an array expression, in both modes. Three bugs stood in
// the way, each fixed: a copy of one Map inside a larger expression object was refused
// ("may not start a Product") although the type analysis knew every byte; a field of an
// expression copied as an untyped i64 into a `long` field was refused as a possible float;
// and, with -g, stores and copies cloned into derived functions kept their assignment-tracking
// link (!DIAssignID) to the original function, which made the module invalid (an internal
// error).
// At -O0 the expression objects are copied whole by their constructors, and that copy is
// still refused (a one-line error, no output): the first is Map's copy constructor, whose only
// other access to the object is address arithmetic past the copied bytes, which says nothing
// of what they hold (it once counted as a witness of "no pointers, no floats"), and the
// module's type analysis does not settle at -O0:
// O0: in function '{{.*}}Map{{.*}}': cannot tell what type of data this call moves
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
