#include "../bench.h"
#include "lognormal_model.h"
#include "umbra.h"
#include <string.h>

const char bench_name[] = "lognormal_model";
const int bench_n = 2;
double *bench_data;

/* theta near the data's parameters; the data drawn from LogNormal(1, 0.5) by Box-Muller */
void bench_init(double *x) {
  x[0] = -2.0;
  x[1] = -3.0;
  bench_data = malloc(sizeof *bench_data * ND);
  uint64_t seed = 9;
  for (int i = 0; i < ND; i++) {
    double u = bench_uniform(&seed, 1e-12, 1), w = bench_uniform(&seed, 0, 1);
    bench_data[i] = exp(1 + 0.5 * sqrt(-2 * log(u)) * cos(2 * M_PI * w));
  }
}
double bench_primal(const double *x) { return bench_flat(x); }

void bench_hand_grad(const double *x, double *g) {
  double s0 = 1 / (1 + exp(-x[0])), s1 = 1 / (1 + exp(-x[1]));
  double mu = 0.1 + 9.9 * s0, sigma = 0.1 + 9.9 * s1;
  double sz = 0, sq = 0; /* sum of z_i and of z_i^2, z_i = (log d_i - mu) / sigma */
  for (int i = 0; i < ND; i++) {
    double z = (log(bench_data[i]) - mu) / sigma;
    sz += z;
    sq += z * z;
  }
  double dmu = sz / sigma - (mu - 1) / 4;                /* data, then the prior */
  double dsigma = (sq - ND) / sigma - (sigma - 1) / 4;
  g[0] = dmu * 9.9 * s0 * (1 - s0) + (1 - 2 * s0);       /* chain rule, then the log-Jacobian */
  g[1] = dsigma * 9.9 * s1 * (1 - s1) + (1 - 2 * s1);
}

#ifndef NO_UMBRA_GRAD
void bench_umbra_grad(const double *x, double *g) {
  memset(g, 0, sizeof *g * 2);
  __umbra_autodiff((void *)lognormal_model, umbra_dup, x, g, umbra_const, bench_data);
}
#endif
#ifndef NO_UMBRA_TANGENT
double bench_umbra_tangent(const double *x, const double *v) {
  return __umbra_fwddiff((void *)lognormal_model, umbra_dup, x, v, umbra_const, bench_data);
}
#endif
