// RUN: %clang -O1 -g -I %runtime-include -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc --inactive mystery -o %t.o 2>&1 | FileCheck %s --implicit-check-not=warning
// RUN: env UMBRA_OPTIONS=inactive=mystery %clang -O1 -g -I %runtime-include -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s --implicit-check-not=warning
// A function the user declares inactive (UMBRA_INACTIVE_FN in the source, --inactive or
// UMBRA_OPTIONS=inactive=... on the command line) runs in the primal only. When differentiable
// values reach it at a call in differentiated code, their derivative through the call is lost:
// that compiles (it is right for logging) but warns, naming the function and the call site, so
// that following the advice to mark something inactive never silently zeroes a gradient. A call
// that passes it only constants, or a call outside differentiated code, does not warn.
#include "umbra.h"

double __enzyme_autodiff(void *, ...);
double mystery(double);
void log_value(double);
UMBRA_INACTIVE_FN(log_value);

double f(double x, int n) {
  // CHECK: umbra: warning: {{.*}}inactive-drops-derivative.c:[[@LINE+1]]:{{[0-9]+}}: in function 'f': 'log_value' is declared inactive but differentiable values flow into it here: the derivative through this call is dropped
  log_value(x);
  log_value((double)n);
  // CHECK: umbra: warning: {{.*}}inactive-drops-derivative.c:[[@LINE+1]]:{{[0-9]+}}: in function 'f': 'mystery' is declared inactive
  return mystery(x * x) + x;
}

int main(void) {
  log_value(2.0);
  double d = __enzyme_autodiff((void *)f, 1.5, 3);
  return d > 0;
}
