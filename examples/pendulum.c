/* pendulum.c - sensitivities of a simulated damped pendulum.
 *
 * A pendulum of length L with damping b starts at rest at angle theta0 and is
 * integrated with the semi-implicit Euler method; the trajectory goes into a
 * malloc'd buffer, and the result is the mean height of the bob over the run.
 * Umbra's forward mode gives d(mean height)/d(theta0, L, b), each printed
 * beside a central finite-difference estimate.
 *
 *   clang-22 -O2 -g -c -emit-llvm -I runtime/include examples/pendulum.c -o p.bc
 *   target/release/umbra p.bc -o p.o && clang-22 p.o -lm -o p && ./p
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "umbra.h"

#define G 9.81

double mean_height(double theta0, double L, double b, int steps, double dt) {
  double *theta = malloc(sizeof(double) * (steps + 1));
  double w = 0.0;
  theta[0] = theta0;
  for (int k = 0; k < steps; k++) {
    w += dt * (-(G / L) * sin(theta[k]) - b * w);
    theta[k + 1] = theta[k] + dt * w;
  }
  double h = 0.0;
  for (int k = 0; k <= steps; k++)
    h += L * (1.0 - cos(theta[k]));
  free(theta);
  return h / (steps + 1);
}

enum { STEPS = 4000 };
static const double DT = 1e-3;

static double fd(int which, const double p[3]) {
  double lo[3] = {p[0], p[1], p[2]}, hi[3] = {p[0], p[1], p[2]};
  double h = 1e-6 * fmax(1.0, fabs(p[which]));
  lo[which] -= h;
  hi[which] += h;
  return (mean_height(hi[0], hi[1], hi[2], STEPS, DT) -
          mean_height(lo[0], lo[1], lo[2], STEPS, DT)) / (2 * h);
}

int main(void) {
  const double p[3] = {1.2, 0.75, 0.4}; /* theta0 [rad], L [m], b [1/s] */
  const char *names[3] = {"theta0", "L", "b"};

  printf("damped pendulum, %d steps of %g s: theta0=%g L=%g b=%g\n", STEPS, DT,
         p[0], p[1], p[2]);
  printf("mean height = %.10f m\n\n", mean_height(p[0], p[1], p[2], STEPS, DT));
  printf("%-22s %20s %20s %10s\n", "derivative", "Umbra (forward)",
         "finite difference", "rel. diff");
  double worst = 0;
  for (int i = 0; i < 3; i++) {
    double t[3] = {0, 0, 0};
    t[i] = 1.0; /* tangent: unit direction along parameter i */
    double ad = __umbra_fwddiff((void *)mean_height, p[0], t[0], p[1], t[1],
                                p[2], t[2], umbra_const, STEPS, umbra_const, DT);
    double f = fd(i, p);
    double rel = fabs(ad - f) / fmax(1e-12, fabs(f));
    worst = fmax(worst, rel);
    char label[32];
    snprintf(label, sizeof label, "d height / d %s", names[i]);
    printf("%-22s %20.12f %20.12f %10.2e\n", label, ad, f, rel);
  }
  return worst < 1e-5 ? 0 : 1;
}
