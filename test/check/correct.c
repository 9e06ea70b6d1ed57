// `umbra check` passes on correct code at every optimisation level: functions a request
// targets (an array whose size the request's alloca tells, an in-place array with an active
// scalar), and functions named with a description (a float, a constant array, an integer).
// RUN: %clang -O0 -c -emit-llvm %s -o %t.O0.bc
// RUN: %umbra check %t.O0.bc | FileCheck --check-prefix=REQ %s
// RUN: %umbra check %t.O0.bc -O0 --points 3 --seed 11 | FileCheck --check-prefix=REQ %s
// RUN: %clang -O1 -c -emit-llvm %s -o %t.O1.bc
// RUN: %umbra check %t.O1.bc | FileCheck --check-prefix=REQ %s
// RUN: %clang -O2 -c -emit-llvm %s -o %t.O2.bc
// RUN: %umbra check %t.O2.bc -O3 | FileCheck --check-prefix=REQ %s
// RUN: %clang -O3 -c -emit-llvm %s -o %t.O3.bc
// RUN: %umbra check %t.O3.bc | FileCheck --check-prefix=REQ %s
// REQ-DAG: umbra check: 'energy' ok: worst relative error {{.*}}; {{[34]}} points; forward vs finite differences, reverse vs forward)
// REQ-DAG: umbra check: 'smooth' ok:
// REQ-NOT: FAILED
//
// RUN: %umbra check %t.O0.bc --function 'mixed(w: const double[3], x: double[3], n: 3, s: float)' --function 'single' | FileCheck --check-prefix=NAMED %s
// RUN: %umbra check %t.O3.bc --function 'mixed(w: const double[3], x: double[3], n: 3, s: float)' --function 'single' | FileCheck --check-prefix=NAMED %s
// NAMED: umbra check: 'mixed' ok: worst relative error {{.*}} (tolerance 1e-2; 4 points;
// NAMED: umbra check: 'single' ok: worst relative error {{.*}} (tolerance 1e-2;
#include <math.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

double energy(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(x[i]) * x[i] + sqrt(x[i] * x[i] + 1.0) + log(x[i]);
  return s;
}

// In place: y = a * exp(y) + y^2 elementwise.
void smooth(double *y, double a, int n) {
  for (int i = 0; i < n; i++)
    y[i] = a * exp(y[i]) + y[i] * y[i];
}

// A float parameter, a constant array of weights and an integer.
double mixed(const double *w, double *x, int n, float s) {
  double acc = 0;
  for (int i = 0; i < n; i++) {
    acc += w[i] * x[i] * s;
    x[i] = tanh(x[i] * s);
  }
  return acc;
}

float single(float a, float b) { return a * expf(b) - b / a; }

int main(void) {
  double x[8] = {0}, dx[8] = {0}, y[4] = {0}, dy[4] = {0};
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, 8);
  __enzyme_fwddiff((void *)smooth, enzyme_dup, y, dy, enzyme_dup, 2.0, 1.0, enzyme_const, 4);
  return 0;
}
