// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Inline assembly that moves no derivative (a comment, a compiler barrier: Eigen's
// EIGEN_ASM_COMMENT, cpuid queries) inside a differentiated function is copied as it is.
// It is not a call through a function pointer: before, devirtualisation dispatched it among
// the module's address-taken functions of its type (here `tick`), producing invalid IR
// ("Cannot take the address of an inline asm!", an internal error) from the driver and a
// crashing program from the plugin. Found running the suite under AddressSanitizer (Eigen).
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
static int calls;
static void tick(void) { calls++; }
void (*volatile hook)(void) = tick; /* an address-taken void(void) function */
double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    __asm__ volatile("# loop body" ::: "memory");
    s += sin(x[i]) * x[i];
  }
  hook();
  return s;
}
static double f_at(const double *x, void *c) { (void)c; return f(x, 3); }
int main(void) {
  double x[3] = {0.3, 0.5, -0.7}, d[3] = {0}, fd[3], v[3] = {1, 2, 3};
  __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, 3);
  fd_grad(f_at, NULL, x, 3, fd);
  fd_check_array("grad", d, fd, 3);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, 3);
  fd_check("fwd vs rev", t, d[0] * v[0] + d[1] * v[1] + d[2] * v[2]);
  return fd_finish();
}
