// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -fsanitize=address
// EXEC-LDFLAGS: -fsanitize=address
// Variable-length arrays under AddressSanitizer, with the bitcode instrumented before Umbra
// sees it (the driver). ASan poisons a redzone around each VLA and, at the function's exit,
// unpoisons the stack from the last VLA up to a slot of the frame: right while the VLAs are
// dynamic allocas, each below the one before. In a derived function specialised for a call
// whose length is a constant, re-optimisation turned the VLAs into fixed-size frame slots,
// laid out in any order, so the exit's range could miss them and their poison stayed behind:
// a later, unrelated function's in-bounds write to a stack array was then reported as a
// `dynamic-stack-buffer-overflow` (before the fix, with the driver at every level). In the
// functions requests reach, ASan's VLA redzones are now left unpoisoned (every other check
// stays).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double vla_sum(const double *x, int n) {
  double a[n];
  for (int i = 0; i < n; i++) a[i] = x[i];
  double w[n];
  for (int i = 0; i < n; i++) w[i] = cos(0.3 * i);
  double s = 0;
  for (int i = 0; i < n; i++) s += w[i] * a[i] * a[i];
  return s;
}

// Writes its own stack array, in bounds: ASan must stay silent.
__attribute__((noinline)) static double probe(int k) {
  volatile double big[k];
  for (int i = 0; i < k; i++) big[i] = i;
  return big[k - 1];
}

static double f_at(const double *x, void *c) {
  (void)c;
  return vla_sum(x, 6);
}

int main(void) {
  double x[6], dx[6] = {0}, g[6];
  for (int i = 0; i < 6; i++) x[i] = 0.1 * i + 0.3;
  __enzyme_autodiff((void *)vla_sum, enzyme_dup, x, dx, enzyme_const, 6);
  double t = 0;
  for (int k = 1; k < 200; k += 7) t += probe(k);
  fd_check_exact("the probe's sum", t, 2842);
  fd_grad(f_at, NULL, x, 6, g);
  fd_check_array("dx", dx, g, 6);
  return fd_finish();
}
