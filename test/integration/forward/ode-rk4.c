// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RK4 integration of a damped oscillator x'' + c x' + k x = 0 for 40 steps;
// derivative of the final position w.r.t. initial state and parameters.
#include "fdcheck.h"

double __enzyme_fwddiff(void *, ...);

static void rhs(const double *s, double c, double k, double *ds) {
  ds[0] = s[1];
  ds[1] = -c * s[1] - k * s[0];
}

double rk4(double x0, double v0, double c, double k, int steps, double dt) {
  double s[2] = {x0, v0}, k1[2], k2[2], k3[2], k4[2], t[2];
  for (int n = 0; n < steps; n++) {
    rhs(s, c, k, k1);
    for (int i = 0; i < 2; i++) t[i] = s[i] + 0.5 * dt * k1[i];
    rhs(t, c, k, k2);
    for (int i = 0; i < 2; i++) t[i] = s[i] + 0.5 * dt * k2[i];
    rhs(t, c, k, k3);
    for (int i = 0; i < 2; i++) t[i] = s[i] + dt * k3[i];
    rhs(t, c, k, k4);
    for (int i = 0; i < 2; i++)
      s[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  }
  return s[0] + 0.1 * s[1] * s[1];
}

enum { STEPS = 40 };
static double rk4_at(const double *p, void *c) { (void)c; return rk4(p[0], p[1], p[2], p[3], STEPS, p[4]); }

int main(void) {
  double p[5] = {1.0, 0.0, 0.3, 4.0, 0.05};
  double dirs[][5] = {{1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 1, 0, 0},
                      {0, 0, 0, 1, 0}, {0.3, -0.2, 0.5, 0.1, 0},
                      {0, 0, 0, 0, 1}};
  const char *names[] = {"d/dx0", "d/dv0", "d/dc", "d/dk", "mixed", "d/ddt"};
  for (int d = 0; d < 6; d++) {
    double *v = dirs[d];
    double ad = __enzyme_fwddiff((void *)rk4, p[0], v[0], p[1], v[1], p[2], v[2],
                                 p[3], v[3], STEPS, p[4], v[4]);
    fd_check(names[d], ad, fd_dir(rk4_at, NULL, p, v, 5));
  }
  return fd_finish();
}
