#include "../bench.h"
#include "naive_map_sin_cos_exp.h"
#include "umbra.h"
#include <string.h>

const char bench_name[] = "naive_map_sin_cos_exp";
const int bench_n = N;
double *bench_data;

void bench_init(double *x) { bench_fill(x, N, 6, -1, 1); }
double bench_primal(const double *x) { return bench_flat(x); }

void bench_hand_grad(const double *x, double *g) {
  for (int i = 0; i < N; i++) {
    double e = exp(x[i]), c = cos(e);
    g[i] = cos(c) * -sin(e) * e;
  }
}

#ifndef NO_UMBRA_GRAD
void bench_umbra_grad(const double *x, double *g) {
  memset(g, 0, sizeof *g * N);
  __umbra_autodiff((void *)map_sin_cos_exp, umbra_dup, x, g, umbra_const, N);
}
#endif
#ifndef NO_UMBRA_TANGENT
double bench_umbra_tangent(const double *x, const double *v) {
  return __umbra_fwddiff((void *)map_sin_cos_exp, umbra_dup, x, v, umbra_const, N);
}
#endif
