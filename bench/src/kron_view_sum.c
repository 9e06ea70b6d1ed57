#include "../bench.h"
#include "kron_view_sum.h"
#include "umbra.h"
#include <string.h>

const char bench_name[] = "kron_view_sum";
const int bench_n = AR * AC + NB * NB;
double *bench_data;

void bench_init(double *x) { bench_fill(x, bench_n, 5, -1, 1); }
double bench_primal(const double *x) { return bench_flat(x); }

/* The adjoint of the program's loops (see kron_sum.c); A outside the view and B below the
 * diagonal get zero. */
void bench_hand_grad(const double *x, double *g) {
  const double *A = x, *B = x + AR * AC;
  double *gA = g, *gB = g + AR * AC;
  memset(g, 0, sizeof *g * bench_n);
  for (int i = 0; i < NV; i++)
    for (int k = 0; k < NB; k++)
      for (int j = 0; j < NV; j++)
        for (int l = k; l < NB; l++) {
          gA[i * AC + j] += B[k * NB + l];
          gB[k * NB + l] += A[i * AC + j];
        }
}

#ifndef NO_UMBRA_GRAD
void bench_umbra_grad(const double *x, double *g) {
  memset(g, 0, sizeof *g * bench_n);
  __umbra_autodiff((void *)kron_view_sum, umbra_dup, x, g, umbra_dup, x + AR * AC, g + AR * AC);
}
#endif
#ifndef NO_UMBRA_TANGENT
double bench_umbra_tangent(const double *x, const double *v) {
  return __umbra_fwddiff((void *)kron_view_sum, umbra_dup, x, v, umbra_dup, x + AR * AC,
                         v + AR * AC);
}
#endif
