// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -fopenmp
// EXEC-LDFLAGS: -fopenmp
// Hand-written rules whose adjoints touch no memory (here `llvm.modf`, a struct-valued
// intrinsic, and `cexp`, a complex function) inside an OpenMP `parallel for`, in reverse mode.
// They were refused there like rules that add into shared memory. With 1, 2 and 3 threads.
#include "fdcheck.h"
#include <complex.h>
#include <math.h>
#include <omp.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double pure_calls(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++) {
    double ip;
    double fr = modf(x[i] * 3.0, &ip);
    double complex z = cexp(x[i] + I * (0.5 * x[i]));
    s += fr * x[i] + ip * creal(z) + cimag(z);
  }
  return s;
}

enum { N = 23 };
static double at(const double *x, void *c) { (void)c; return pure_calls(x, N); }

int main(void) {
  double x[N], dx[N], fd[N], first[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.07 * i + 0.01 * (i % 4);
  const int threads[3] = {1, 2, 3};
  for (int k = 0; k < 3; k++) {
    omp_set_num_threads(threads[k]);
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)pure_calls, enzyme_dup, x, dx, enzyme_const, N);
    fd_grad(at, NULL, x, N, fd);
    fd_check_array("pure_calls dx", dx, fd, N);
    if (k == 0)
      memcpy(first, dx, sizeof dx);
    else
      fd_check_array("same gradient with more threads", dx, first, N);
  }
  return fd_finish();
}
