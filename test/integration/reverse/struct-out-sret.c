// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Three and four `out` scalars: the adjoint struct is too large for registers,
// so on x86-64 the request returns it through a hidden sret pointer (the first
// IR argument of the call, before the function pointer).
#include "fdcheck.h"

typedef struct {
  double a, b, c;
} three;
typedef struct {
  double a, b, c, d;
} four;
three __enzyme_autodiff_three(void *, ...);
four __enzyme_autodiff_four(void *, ...);
#ifdef FD_SELFTEST
three __enzyme_autodiff_three(void *f, ...) { (void)f; three r = {0, 0, 0}; return r; }
four __enzyme_autodiff_four(void *f, ...) { (void)f; four r = {0, 0, 0, 0}; return r; }
#endif

double f3(double x, double y, double z) {
  return x * y * z + sin(x * z) - y / (1.0 + z * z);
}
double f4(double a, double b, double c, double d) {
  return exp(0.2 * a * b) * c - d * d * a + cos(b + d) * c;
}

static double f3_at(const double *p, void *c) { (void)c; return f3(p[0], p[1], p[2]); }
static double f4_at(const double *p, void *c) { (void)c; return f4(p[0], p[1], p[2], p[3]); }

int main(void) {
  double p[4] = {0.8, -1.3, 1.6, 0.45}, fd[4];
  fd_grad(f3_at, NULL, p, 3, fd);
  three r3 = __enzyme_autodiff_three((void *)f3, p[0], p[1], p[2]);
  fd_check("f3 d/dx", r3.a, fd[0]);
  fd_check("f3 d/dy", r3.b, fd[1]);
  fd_check("f3 d/dz", r3.c, fd[2]);
  fd_grad(f4_at, NULL, p, 4, fd);
  four r4 = __enzyme_autodiff_four((void *)f4, p[0], p[1], p[2], p[3]);
  fd_check("f4 d/da", r4.a, fd[0]);
  fd_check("f4 d/db", r4.b, fd[1]);
  fd_check("f4 d/dc", r4.c, fd[2]);
  fd_check("f4 d/dd", r4.d, fd[3]);
  return fd_finish();
}
