// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// __enzyme_batch from C++, as Enzyme's tutorial writes it (a variadic declaration without
// extern "C", mangled `_Z14__enzyme_batchz`) and as a template (`__enzyme_batch<Vector>`,
// whose int parameters receive the markers as loaded values); the results against the primal
// called once per lane.
#include "fdcheck.h"

struct Vector {
  double x1, x2, x3, x4;
};
extern Vector __enzyme_batch(...);
template <typename R, typename... T> R __enzyme_batch(void *, T...);
int enzyme_width, enzyme_vector, enzyme_scalar;

double square(double x) { return x * x; }
double mul(double x, double k) { return x * k + 1.0; }

Vector vecsquare(double x1, double x2, double x3, double x4) {
  return __enzyme_batch(square, enzyme_width, 4, enzyme_vector, x1, x2, x3, x4);
}

int main() {
  double v[] = {23.1, 10.0, 100.0, 3.14};
  Vector r = vecsquare(v[0], v[1], v[2], v[3]);
  fd_check_exact("square lane 0", r.x1, square(v[0]));
  fd_check_exact("square lane 1", r.x2, square(v[1]));
  fd_check_exact("square lane 2", r.x3, square(v[2]));
  fd_check_exact("square lane 3", r.x4, square(v[3]));
  Vector m = __enzyme_batch<Vector>((void *)mul, enzyme_width, 4, v[0], v[1], v[2], v[3],
                                    enzyme_scalar, 0.5);
  fd_check_exact("mul lane 0", m.x1, mul(v[0], 0.5));
  fd_check_exact("mul lane 1", m.x2, mul(v[1], 0.5));
  fd_check_exact("mul lane 2", m.x3, mul(v[2], 0.5));
  fd_check_exact("mul lane 3", m.x4, mul(v[3], 0.5));
  return fd_finish();
}
