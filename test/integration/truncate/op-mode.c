// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -ffp-contract=off
// Enzyme's op-mode truncation, __enzyme_truncate_op_func(f, FROM, TO): every double operation
// of f (and of the defined functions it calls) computed in float (64 -> 32, and 11-52 given
// as exponent-significand, 8-23) or in half (64 -> 16), its result converted back to double.
// Each operation's operands are then exact floats, so the result must be bit for bit the
// same computation written in float by hand (sqrtf, powf, sinf, expf for the libm calls);
// comparisons, loads and stores stay double, as in Enzyme.
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef double (*fn2)(double, double);
typedef double (*fnv)(const double *, double *, int);
fn2 __enzyme_truncate_op_func(fn2, int, int);
fnv __enzyme_truncate_op_func_v(fnv, int, int);
fn2 __enzyme_truncate_op_func_pair(fn2, int, int, int);

__attribute__((noinline)) static double helper(double a, double b) {
  return a / b - 0.1 * a;
}

double f(double a, double b) {
  double t = a * b + sqrt(a) - sin(b) / a;
  if (t > 1.0) // compared in double: t is a double holding a float
    t = -t + pow(a, 3.0);
  return helper(t, b) + exp(-a);
}

static float helper_f(float a, float b) { return a / b - 0.1f * a; }
static float f_by_hand(float a, float b) {
  float t = a * b + sqrtf(a) - sinf(b) / a;
  if (t > 1.0f)
    t = -t + powf(a, 3.0f);
  return helper_f(t, b) + expf(-a);
}

// A loop over memory: loads and stores stay double, the arithmetic is float.
double scale(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    y[i] = x[i] * 1.1 + s;
    s += y[i] * y[i];
  }
  return s;
}

static float scale_by_hand(const double *x, double *y, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) {
    float yi = (float)x[i] * 1.1f + s;
    y[i] = yi;
    s += yi * yi;
  }
  return s;
}

// Half precision: each operation rounded to _Float16 (assignments drop clang's excess
// precision).
double g(double a, double b) { return sqrt(a * b + a) / b; }
static _Float16 g_by_hand(_Float16 a, _Float16 b) {
  _Float16 p = a * b;
  _Float16 q = p + a;
  _Float16 r = (_Float16)sqrtf((float)q);
  _Float16 s = r / b;
  return s;
}

static int same(const char *what, double got, double want) {
  if (memcmp(&got, &want, sizeof got) != 0) {
    printf("FAIL %s: %.17g, by hand %.17g\n", what, got, want);
    return 1;
  }
  printf("ok %s: %.9g\n", what, got);
  return 0;
}

int main(void) {
  int bad = 0;
  double as[] = {0.7, 1.3, 2.9}, bs[] = {0.3, 1.7, 4.1};
  for (int k = 0; k < 3; k++) {
    double a = as[k], b = bs[k];
    bad |= same("f 64to32", __enzyme_truncate_op_func(f, 64, 32)(a, b),
                (double)f_by_hand((float)a, (float)b));
    bad |= same("f 64to8-23", __enzyme_truncate_op_func_pair(f, 64, 8, 23)(a, b),
                (double)f_by_hand((float)a, (float)b));
    // The truncated result differs from the double one: the copy really computes in float.
    bad |= f(a, b) == __enzyme_truncate_op_func(f, 64, 32)(a, b);
    bad |= same("g 64to16", __enzyme_truncate_op_func(g, 64, 16)(a, b),
                (double)g_by_hand((_Float16)a, (_Float16)b));
  }
  double x[5] = {0.1, 0.25, -0.6, 1.9, 3.3}, y[5], z[5];
  double s = __enzyme_truncate_op_func_v(scale, 64, 32)(x, y, 5);
  bad |= same("scale 64to32", s, (double)scale_by_hand(x, z, 5));
  for (int i = 0; i < 5; i++)
    bad |= same("scale y[i]", y[i], z[i]);
  return bad;
}
