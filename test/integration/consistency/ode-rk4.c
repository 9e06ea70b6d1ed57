// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Forward/reverse consistency on an RK4-integrated damped oscillator, inputs
// the initial state (dup array) and two scalar parameters: for pseudo-random v
// and w, <J v, w> (forward mode) = <v, J^T w> (reverse mode).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_fwddiff(void *, ...);
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

double final_energy(const double *s0, double c, double k, double dt, int steps) {
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

static unsigned long long rng = 0x243f6a8885a308d3ULL;
static double rnd(void) { // uniform in [-1, 1)
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) * 0x1p-52 - 1.0;
}
static const double DT = 0.05;
enum { STEPS = 20 };
static double e_at(const double *p, void *c) { (void)c; return final_energy(p, p[2], p[3], DT, STEPS); }

int main(void) {
  double p[4] = {1.0 + 0.2 * rnd(), 0.5 * rnd(), 0.3 + 0.1 * rnd(), 2.0 + 0.5 * rnd()};
  double v[4], ds[2] = {0, 0};
  for (int k = 0; k < 4; k++) v[k] = rnd();
  double w = rnd();
  double jv = __enzyme_fwddiff((void *)final_energy, enzyme_dup, p, v, p[2], v[2], p[3], v[3],
                               enzyme_const, DT, enzyme_const, STEPS);
  two r = __enzyme_autodiff_two((void *)final_energy, enzyme_dup, p, ds, p[2], p[3],
                                enzyme_const, DT, enzyme_const, STEPS);
  double g[4] = {ds[0], ds[1], r.a, r.b}, lhs = jv * w, rhs = 0, scale = 0;
  for (int k = 0; k < 4; k++) {
    rhs += v[k] * (w * g[k]);
    scale += fabs(v[k] * w * g[k]);
  }
  fd_check_tol("<Jv,w> = <v,J^T w>", lhs, rhs, 1e-10, 1e-12 * scale);
  fd_check("Jv against FD", jv, fd_dir(e_at, NULL, p, v, 4));
  return fd_finish();
}
