// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -ffast-math -march=x86-64-v3
// Op-mode truncation of code the optimiser vectorised and reassociated (-ffast-math -O3):
// vector arithmetic, llvm.vector.reduce.fadd / fmax reductions, llvm.lround and fmax calls
// are computed in float too. Reassociation makes the order the optimiser's, so the checks
// are a float-sized error against the double result, and that the result is not the double
// one.
#include <math.h>
#include <stdio.h>

typedef double (*fn)(const double *, int);
fn __enzyme_truncate_op_func(fn, int, int);

double sum(const double *x, int n) {
  double s = 0, m = -1e300;
  long r = 0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i] * 1.0000001;
    m = fmax(m, x[i] / 3.0);
    r += lround(x[i] * 100.0);
  }
  return s + m + (double)r * 1e-9;
}

int main(void) {
  double x[64];
  for (int i = 0; i < 64; i++)
    x[i] = 1.0 + 0.0123456789 * i;
  double full = sum(x, 64);
  double low = __enzyme_truncate_op_func(sum, 64, 32)(x, 64);
  double rel = fabs(low - full) / fabs(full);
  printf("full %.17g float %.17g rel %.3g\n", full, low, rel);
  // float's precision over 64 terms; the double result has many more digits.
  return !(rel < 1e-5 && rel > 1e-12 && (double)(float)low == low);
}
