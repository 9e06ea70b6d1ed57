// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// A damped oscillator x'' + c x' + k x = 0 integrated with a few RK4 steps
// (state in a local array, stage helper writing through pointers); gradient of
// the final energy w.r.t. the initial state (dup) and the parameters c and k.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
typedef struct {
  double a, b;
} two;
two __enzyme_autodiff_two(void *, ...);
#ifdef FD_SELFTEST
two __enzyme_autodiff_two(void *f, ...) { (void)f; two r = {0, 0}; return r; }
#endif

static void rhs(const double *s, double c, double k, double *ds) {
  ds[0] = s[1];
  ds[1] = -c * s[1] - k * s[0] + 0.1 * sin(s[0]);
}

double energy_after(const double *s0, double c, double k, double dt, int steps) {
  double s[2] = {s0[0], s0[1]}, k1[2], k2[2], k3[2], k4[2], t[2];
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
  return 0.5 * s[1] * s[1] + 0.5 * k * s[0] * s[0];
}

static const double DT = 0.1;
enum { STEPS = 12 };
// packed [x0, v0, c, k]
static double e_at(const double *p, void *ctx) { (void)ctx; return energy_after(p, p[2], p[3], DT, STEPS); }

int main(void) {
  double p[4] = {1.0, -0.3, 0.25, 2.0}, ds[2] = {0, 0}, fd[4];
  two r = __enzyme_autodiff_two((void *)energy_after, enzyme_dup, p, ds, enzyme_out, p[2],
                                enzyme_out, p[3], enzyme_const, DT, enzyme_const, STEPS);
  fd_grad(e_at, NULL, p, 4, fd);
  fd_check("d/dx0", ds[0], fd[0]);
  fd_check("d/dv0", ds[1], fd[1]);
  fd_check("d/dc", r.a, fd[2]);
  fd_check("d/dk", r.b, fd[3]);
  return fd_finish();
}
