// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// A function with both double and float arguments (the float and its tangent
// are promoted to double through `...`), returning double; and one returning
// float with a double argument.
#include "fdcheck.h"

double __enzyme_fwddiff(void *, ...);
float __enzyme_fwddiff_f(void *, ...);

double mixed(double a, float b, int k, double c) {
  float t = b * b + sinf(b);           // float arithmetic
  double r = a * t + exp(a * c) * b;   // promoted to double
  return r * k + c / (1.0 + b * b);
}
static double mixed_at(const double *p, void *ctx) {
  (void)ctx; // double-precision version of the same formula
  double b = p[1], t = b * b + sin(b);
  return (p[0] * t + exp(p[0] * p[2]) * b) * 3 + p[2] / (1.0 + b * b);
}
static double mixed_real_at(const double *p, void *ctx) {
  (void)ctx; // the real function; p[1] must hold an exact float
  return mixed(p[0], (float)p[1], 3, p[2]);
}

float mixed_f(float x, double y) { return x * (float)y + expf(x) * (float)(y * y); }
static double mixed_f_at(const double *p, void *ctx) {
  (void)ctx;
  return p[0] * p[1] + exp(p[0]) * p[1] * p[1];
}

int main(void) {
  double a = 0.8, c = -0.4, da = 0.5, dc = 1.5;
  float b = 1.25f, db = -0.75f;
  double p[3] = {a, b, c};
  // all active
  double v[3] = {da, db, dc};
  fd_check_f("mixed all", __enzyme_fwddiff((void *)mixed, a, da, b, db, 3, c, dc),
             fd_dir(mixed_at, NULL, p, v, 3));
  // only the float active: derivative flows through float arithmetic
  double vb[3] = {0, 1, 0};
  fd_check_f("mixed d/db", __enzyme_fwddiff((void *)mixed, a, 0.0, b, 1.0f, 3, c, 0.0),
             fd_dir(mixed_at, NULL, p, vb, 3));
  // only doubles active: float only enters through promotion, tight tolerance
  double vd[3] = {da, 0, dc};
  fd_check("mixed d/da,dc", __enzyme_fwddiff((void *)mixed, a, da, b, 0.0f, 3, c, dc),
           fd_dir(mixed_real_at, NULL, p, vd, 3));

  float x = 0.5f;
  double y = 1.1;
  double q[2] = {x, (float)y}, w[2] = {1.0, -2.0};
  fd_check_f("mixed_f", __enzyme_fwddiff_f((void *)mixed_f, x, 1.0f, y, -2.0),
             fd_dir(mixed_f_at, NULL, q, w, 2));
  return fd_finish();
}
