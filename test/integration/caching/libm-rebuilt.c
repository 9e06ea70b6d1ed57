// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 3 %t
// lognormal_model's shape: z = (log(x[i]) - mu) / sigma feeds only the result, so the adjoint
// calls log again on the re-read data instead of taping z; a second libm value (exp) also
// steers a branch, so it is taped. Gradient in (mu, sigma) against finite differences.
#include "fdcheck.h"
#include <math.h>

extern int enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
typedef struct { double mu, sigma; } Grad;
Grad __enzyme_autodiff2(void *, ...) __asm__("__enzyme_autodiff");

enum { N = 300 };
static double DATA[N];

double density(const double *data, int n, double mu, double sigma) {
  double sq = 0, sum_log = 0, tail = 0;
  for (int i = 0; i < n; i++) {
    double z = (log(data[i]) - mu) / sigma;
    sq += z * z;
    sum_log += log(data[i]);
    double e = exp(-z);
    if (e > 1.5)
      tail += e * sigma;
  }
  return -0.5 * sq - sum_log - n * log(sigma) + 0.01 * tail;
}

static double at(const double *p, void *c) {
  (void)c;
  return density(DATA, N, p[0], p[1]);
}

int main(void) {
  for (int i = 0; i < N; i++)
    DATA[i] = 0.2 + (i * 37 % 100) / 25.0;
  double p[2] = {0.3, 1.7}, fd[2];
  fd_grad(at, NULL, p, 2, fd);
  Grad g = __enzyme_autodiff2((void *)density, enzyme_const, DATA, enzyme_const, N, p[0], p[1]);
  double ad[2] = {g.mu, g.sigma};
  fd_check_array("grad", ad, fd, 2);
  return fd_finish();
}
