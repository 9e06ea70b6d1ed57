/* logistic.c - gradient of a logistic-regression loss by forward mode.
 *
 *   loss(w) = 1/n sum_i log(1 + exp(-y_i <w, x_i>)) + lambda/2 |w|^2
 *
 * over a small synthetic data set.  Forward mode gives one directional
 * derivative per call, so the full gradient takes one call per weight (seed
 * the tangent with a unit vector); each entry is printed beside a central
 * finite-difference estimate, and finally one directional derivative along
 * a random direction.
 *
 *   clang-22 -O2 -g -c -emit-llvm -I runtime/include examples/logistic.c -o l.bc
 *   target/release/umbra l.bc -o l.o && clang-22 l.o -lm -o l && ./l
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "umbra.h"

enum { N = 200, D = 6 };

double loss(const double *w, const double *X, const double *y, int n, int d,
            double lambda) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double z = 0.0;
    for (int j = 0; j < d; j++)
      z += w[j] * X[i * d + j];
    s += log1p(exp(-y[i] * z));
  }
  double r = 0.0;
  for (int j = 0; j < d; j++)
    r += w[j] * w[j];
  return s / n + 0.5 * lambda * r;
}

static double X[N * D], Y[N];

static unsigned rng = 12345u;
static double uniform(void) { /* deterministic LCG in [-1, 1) */
  rng = rng * 1103515245u + 12345u;
  return ((rng >> 8) & 0xffffff) / 8388608.0 - 1.0;
}

static double fd(const double *w, const double *v, double lambda) {
  double h = 1e-6, wp[D], wm[D];
  for (int j = 0; j < D; j++) {
    wp[j] = w[j] + h * v[j];
    wm[j] = w[j] - h * v[j];
  }
  return (loss(wp, X, Y, N, D, lambda) - loss(wm, X, Y, N, D, lambda)) / (2 * h);
}

int main(void) {
  const double truth[D] = {1.5, -2.0, 0.5, 0.0, 1.0, -0.7};
  for (int i = 0; i < N; i++) {
    double z = 0;
    for (int j = 0; j < D; j++) {
      X[i * D + j] = uniform();
      z += truth[j] * X[i * D + j];
    }
    Y[i] = z + 0.3 * uniform() > 0 ? 1.0 : -1.0;
  }
  double w[D] = {0.2, -0.4, 0.1, 0.3, 0.0, -0.1};
  double lambda = 0.01;

  printf("logistic regression: n=%d samples, d=%d weights, lambda=%g\n", N, D,
         lambda);
  printf("loss(w) = %.12f\n\n", loss(w, X, Y, N, D, lambda));
  printf("%-16s %20s %20s %10s\n", "derivative", "Umbra (forward)",
         "finite difference", "rel. diff");
  double worst = 0;
  for (int k = 0; k <= D; k++) {
    double v[D];
    char label[32];
    if (k < D) { /* unit vector: gradient entry k */
      for (int j = 0; j < D; j++) v[j] = (j == k);
      snprintf(label, sizeof label, "dloss/dw[%d]", k);
    } else { /* a random direction */
      for (int j = 0; j < D; j++) v[j] = uniform();
      snprintf(label, sizeof label, "along random v");
    }
    double ad = __umbra_fwddiff((void *)loss, umbra_dup, w, v, umbra_const, X,
                                umbra_const, Y, umbra_const, N, umbra_const, D,
                                umbra_const, lambda);
    double f = fd(w, v, lambda);
    double rel = fabs(ad - f) / fmax(1e-12, fabs(f));
    worst = fmax(worst, rel);
    printf("%-16s %20.12f %20.12f %10.2e\n", label, ad, f, rel);
  }
  return worst < 1e-5 ? 0 : 1;
}
