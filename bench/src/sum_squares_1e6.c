#include "../bench.h"
#include "sum_squares_1e6.h"
#include "umbra.h"
#include <string.h>

const char bench_name[] = "sum_squares_1e6";
const int bench_n = N;
double *bench_data;

void bench_init(double *x) { bench_fill(x, N, 3, -1, 1); }
double bench_primal(const double *x) { return bench_flat(x); }

void bench_hand_grad(const double *x, double *g) {
  for (int i = 0; i < N; i++)
    g[i] = 2 * x[i];
}

#ifndef NO_UMBRA_GRAD
void bench_umbra_grad(const double *x, double *g) {
  memset(g, 0, sizeof *g * N);
  __umbra_autodiff((void *)sum_squares, umbra_dup, x, g, umbra_const, N);
}
#endif
#ifndef NO_UMBRA_TANGENT
double bench_umbra_tangent(const double *x, const double *v) {
  return __umbra_fwddiff((void *)sum_squares, umbra_dup, x, v, umbra_const, N);
}
#endif
