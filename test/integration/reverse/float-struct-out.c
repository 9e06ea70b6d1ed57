// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Two float `out` arguments: the adjoints come back in a struct of two floats,
// which the x86-64 ABI returns packed in one register (an LLVM <2 x float>).
#include "fdcheck.h"

typedef struct {
  float a, b;
} ftwo;
ftwo __enzyme_autodiff_ftwo(void *, ...);
#ifdef FD_SELFTEST
ftwo __enzyme_autodiff_ftwo(void *f, ...) { (void)f; ftwo r = {0, 0}; return r; }
#endif

float g(float x, float y) { return x * y * y + sinf(x * y); }
static double g_at(const double *p, void *c) { (void)c; return p[0] * p[1] * p[1] + sin(p[0] * p[1]); }

int main(void) {
  double p[2] = {1.25, -0.5}, fd[2];
  fd_grad(g_at, NULL, p, 2, fd);
  ftwo r = __enzyme_autodiff_ftwo((void *)g, (float)p[0], (float)p[1]);
  fd_check_f("g d/dx", r.a, fd[0]);
  fd_check_f("g d/dy", r.b, fd[1]);
  return fd_finish();
}
