/* energy.c - gradient, Hessian-vector product and tangent of a physical energy.
 *
 * N particles in the plane, neighbours joined by springs of rest length L, every pair
 * pushing apart with a soft Gaussian repulsion, and all of them pulled towards the origin:
 *
 *   E(x) = sum_i k/2 (|x_i - x_{i+1}| - L)^2 + sum_{i<j} eps exp(-|x_i - x_j|^2 / s^2)
 *        + c/2 sum_i |x_i|^2
 *
 * Three derivatives, each printed beside central finite differences and timed against E
 * itself in this same run:
 *   - the gradient dE/dx (minus the forces), one reverse-mode call (__umbra_autodiff);
 *   - a Hessian-vector product H(x) v, forward mode over reverse mode: __umbra_fwddiff of a
 *     function that itself calls __umbra_autodiff;
 *   - a tangent dE/dx . v, one forward-mode call (__umbra_fwddiff).
 * Exits non-zero when a derivative disagrees with its finite differences.
 *
 *   clang-22 -O2 -g -c -emit-llvm -I runtime/include examples/energy.c -o e.bc
 *   target/release/umbra e.bc -o e.o && clang-22 e.o -lm -o e && ./e
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "umbra.h"

/* Requests that return nothing: any function whose name contains __umbra_autodiff or
 * __umbra_fwddiff is a request, so each return type gets its own prototype. */
void __umbra_autodiff_v(void *, ...);
void __umbra_fwddiff_v(void *, ...);

enum { N = 48, D = 2 * N }; /* 48 particles, 96 coordinates */

static const double K = 10.0, L = 0.5, EPS = 0.3, S2 = 0.25, C = 0.05;

double energy(const double *x, int n) {
  double e = 0.0;
  for (int i = 0; i + 1 < n; i++) { /* springs between neighbours */
    double dx = x[2 * i] - x[2 * i + 2], dy = x[2 * i + 1] - x[2 * i + 3];
    double r = sqrt(dx * dx + dy * dy) - L;
    e += 0.5 * K * r * r;
  }
  for (int i = 0; i < n; i++) /* soft repulsion between every pair */
    for (int j = i + 1; j < n; j++) {
      double dx = x[2 * i] - x[2 * j], dy = x[2 * i + 1] - x[2 * j + 1];
      e += EPS * exp(-(dx * dx + dy * dy) / S2);
    }
  for (int i = 0; i < 2 * n; i++) /* a weak pull towards the origin */
    e += 0.5 * C * x[i] * x[i];
  return e;
}

/* g = dE/dx: reverse mode. Shadows accumulate, so g is zeroed first. */
void gradient(const double *x, double *g, int n) {
  memset(g, 0, sizeof(double) * 2 * n);
  __umbra_autodiff_v((void *)energy, umbra_dup, x, g, umbra_const, n);
}

/* hv = H(x) v: the tangent of the gradient along v (forward over reverse). */
void hvp(const double *x, const double *v, double *g, double *hv, int n) {
  __umbra_fwddiff_v((void *)gradient, umbra_dup, x, v, umbra_dup, g, hv, umbra_const, n);
}

/* dE/dx . v: forward mode, one call. */
double tangent(const double *x, const double *v, int n) {
  return __umbra_fwddiff((void *)energy, umbra_dup, x, v, umbra_const, n);
}

/* ---------------------------------------------------------------- checks and timing */

static unsigned rng = 2024u;
static double uniform(void) { /* deterministic LCG in [-1, 1) */
  rng = rng * 1103515245u + 12345u;
  return ((rng >> 8) & 0xffffff) / 8388608.0 - 1.0;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static volatile double sink; /* keeps timed results alive */

/* Seconds per call of `what` (0 primal, 1 gradient, 2 HVP, 3 tangent): calls repeated for at
 * least 0.1 s, best of 5 such rounds. */
static double seconds_per_call(int what, const double *x, const double *v) {
  double g[D], hv[D], best = INFINITY;
  for (int round = 0; round < 5; round++) {
    long calls = 0;
    double start = now(), elapsed;
    do {
      for (int k = 0; k < 16; k++, calls++) {
        switch (what) {
        case 0: sink = energy(x, N); break;
        case 1: gradient(x, g, N); sink = g[calls % D]; break;
        case 2: memset(hv, 0, sizeof hv); hvp(x, v, g, hv, N); sink = hv[calls % D]; break;
        default: sink = tangent(x, v, N); break;
        }
      }
      elapsed = now() - start;
    } while (elapsed < 0.1);
    best = fmin(best, elapsed / calls);
  }
  return best;
}

/* |a - b| relative to b, or absolute where |b| < 1 (finite differences of E, about 70, carry
 * absolute errors near 1e-9 whatever the size of the entry). */
static double rel_err(double a, double b) { return fabs(a - b) / fmax(1.0, fabs(b)); }

int main(void) {
  double x[D], v[D];
  for (int i = 0; i < N; i++) { /* a noisy spiral */
    double t = 0.35 * i;
    x[2 * i] = (0.5 + 0.08 * i) * cos(t) + 0.05 * uniform();
    x[2 * i + 1] = (0.5 + 0.08 * i) * sin(t) + 0.05 * uniform();
  }
  for (int i = 0; i < D; i++) v[i] = uniform();
  const double h = 1e-5;
  double xp[D], xm[D];
  int ok = 1;

  printf("energy of %d particles on springs with pairwise repulsion (%d coordinates)\n", N, D);
  printf("E(x) = %.12f\n", energy(x, N));

  /* gradient: every coordinate against central differences of E */
  double g[D], fd_g[D], worst = 0;
  gradient(x, g, N);
  for (int i = 0; i < D; i++) {
    memcpy(xp, x, sizeof x); memcpy(xm, x, sizeof x);
    xp[i] += h; xm[i] -= h;
    fd_g[i] = (energy(xp, N) - energy(xm, N)) / (2 * h);
    worst = fmax(worst, rel_err(g[i], fd_g[i]));
  }
  printf("\ngradient dE/dx (reverse mode, one call for all %d entries)\n", D);
  printf("  %-10s %20s %20s\n", "entry", "Umbra", "finite difference");
  for (int i = 0; i < D; i += D / 4 - 1)
    printf("  dE/dx[%2d] %20.12f %20.12f\n", i, g[i], fd_g[i]);
  printf("  largest difference over all %d entries: %.2e\n", D, worst);
  ok &= worst < 1e-6;

  /* Hessian-vector product: against central differences of the gradient along v */
  double gv[D], hv[D], gp[D], gm[D];
  memset(hv, 0, sizeof hv);
  hvp(x, v, gv, hv, N);
  for (int i = 0; i < D; i++) { xp[i] = x[i] + h * v[i]; xm[i] = x[i] - h * v[i]; }
  gradient(xp, gp, N);
  gradient(xm, gm, N);
  double worst_h = 0, worst_gv = 0;
  for (int i = 0; i < D; i++) {
    worst_h = fmax(worst_h, rel_err(hv[i], (gp[i] - gm[i]) / (2 * h)));
    worst_gv = fmax(worst_gv, rel_err(gv[i], g[i]));
  }
  printf("\nHessian-vector product H(x) v (forward over reverse)\n");
  printf("  %-10s %20s %20s\n", "entry", "Umbra", "finite difference");
  for (int i = 0; i < D; i += D / 4 - 1)
    printf("  (Hv)[%2d]  %20.12f %20.12f\n", i, hv[i], (gp[i] - gm[i]) / (2 * h));
  printf("  largest difference over all %d entries: %.2e\n", D, worst_h);
  printf("  (the gradient computed beside it matches the plain gradient to %.2e)\n", worst_gv);
  ok &= worst_h < 1e-5 && worst_gv < 1e-12;

  /* tangent: the directional derivative along v */
  double t = tangent(x, v, N);
  double fd_t = (energy(xp, N) - energy(xm, N)) / (2 * h);
  double dot = 0;
  for (int i = 0; i < D; i++) dot += g[i] * v[i];
  printf("\ntangent dE/dx . v (forward mode)\n");
  printf("  Umbra %.12f   finite difference %.12f   gradient . v %.12f\n", t, fd_t, dot);
  printf("  difference: %.2e\n", rel_err(t, fd_t));
  ok &= rel_err(t, fd_t) < 1e-6 && rel_err(t, dot) < 1e-10;

  /* timing, all in this run */
  double primal = seconds_per_call(0, x, v);
  double tg = seconds_per_call(1, x, v), th = seconds_per_call(2, x, v);
  double tt = seconds_per_call(3, x, v);
  printf("\ntime per call (best of 5 rounds of >= 0.1 s each; a shared machine is noisy)\n");
  printf("  %-26s %10.2f us\n", "primal E(x)", 1e6 * primal);
  printf("  %-26s %10.2f us   %5.2f x primal\n", "gradient (reverse)", 1e6 * tg, tg / primal);
  printf("  %-26s %10.2f us   %5.2f x primal\n", "HVP (forward over reverse)", 1e6 * th,
         th / primal);
  printf("  %-26s %10.2f us   %5.2f x primal\n", "tangent (forward)", 1e6 * tt, tt / primal);
  printf("  (finite differences: the gradient takes %d calls of E, an HVP %d calls of the gradient)\n",
         2 * D, 2);

  if (!ok) printf("\nenergy: a derivative DISAGREES with finite differences\n");
  return ok ? 0 : 1;
}
