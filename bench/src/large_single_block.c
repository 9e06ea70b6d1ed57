#include "../bench.h"
#include "large_single_block.h"
#include "umbra.h"
#include <string.h>

const char bench_name[] = "large_single_block";
const int bench_n = 2;
double *bench_data;

void bench_init(double *x) {
  x[0] = 0.9;
  x[1] = 0.99;
}
double bench_primal(const double *x) { return bench_flat(x); }

/* d/dx0 = x1^400, d/dx1 = 400 x0 x1^399, the powers by the same repeated multiplication. */
void bench_hand_grad(const double *x, double *g) {
  double p = 1;
  for (int k = 0; k < 399; k++)
    p *= x[1];
  g[0] = p * x[1];
  g[1] = 400 * x[0] * p;
}

#ifndef NO_UMBRA_GRAD
void bench_umbra_grad(const double *x, double *g) {
  memset(g, 0, sizeof *g * 2);
  __umbra_autodiff((void *)large_single_block, umbra_dup, x, g);
}
#endif
#ifndef NO_UMBRA_TANGENT
double bench_umbra_tangent(const double *x, const double *v) {
  return __umbra_fwddiff((void *)large_single_block, umbra_dup, x, v);
}
#endif
