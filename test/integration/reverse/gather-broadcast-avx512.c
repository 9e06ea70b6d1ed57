// REQUIRES: avx512f
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -mavx512f
// kron(A, upper-triangle(B)) with A read through a strided view (kron_view_sum's shape): with
// AVX-512 the vectoriser reads A[i][j] with a masked gather whose lanes all hold one address
// (a broadcast under the triangle's mask). Its adjoint sums the active lanes into that one
// shadow element, and leaves it alone where no lane is active.
#include "fdcheck.h"
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { AR = 12, AC = 10, NV = 6, NB = 24, NK = NV * NB };

double kron_view(const double *A, const double *B) {
  double *K = malloc(sizeof *K * NK * NK);
  for (int i = 0; i < NV; i++)
    for (int k = 0; k < NB; k++)
      for (int j = 0; j < NV; j++)
        for (int l = 0; l < NB; l++) {
          if (l >= k)
            K[(i * NB + k) * NK + j * NB + l] = A[i * AC + j] * B[k * NB + l];
          else
            K[(i * NB + k) * NK + j * NB + l] = 0;
        }
  double s = 0;
  for (int p = 0; p < NK * NK; p++)
    s += K[p] * K[p];
  free(K);
  return s;
}

static double f_at(const double *x, void *c) {
  (void)c;
  return kron_view(x, x + AR * AC);
}

int main(void) {
  enum { N = AR * AC + NB * NB };
  static double x[N], dx[N], fd[N];
  for (int i = 0; i < N; i++)
    x[i] = -0.8 + (i * 37 % 100) / 60.0;
  fd_grad(f_at, NULL, x, N, fd);
  __enzyme_autodiff((void *)kron_view, enzyme_dup, x, dx, enzyme_dup, x + AR * AC,
                    dx + AR * AC);
  fd_check_array("grad", dx, fd, N);
  return fd_finish();
}
