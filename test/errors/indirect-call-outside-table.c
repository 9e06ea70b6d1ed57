// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc -o %t.o
// RUN: %clang %t.o -lm -o %t.exe
// RUN: not --crash %t.exe 2>&1 | FileCheck %s
// A call through a table of functions dispatches among the functions of the table's
// initializer. When the program has since stored another function there, the derivative
// cannot follow it: the derived code stops with an error naming the call site, instead of
// returning a wrong derivative (the primal call still works).
#include <stdio.h>
double __enzyme_autodiff(void *, ...);

static double square(double v) { return v * v; }
static double twice(double v) { return 2 * v; }
static double (*table[1])(double) = {square};
double (*volatile other)(double) = twice;

double f(double x);

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  printf("primal %g\n", f(3.0));
  // CHECK: primal 27
  double d = __enzyme_autodiff((void *)f, 1.5);
  printf("derivative %g\n", d);
  // CHECK: derivative 6.75
  table[0] = other;
  printf("primal %g\n", f(3.0));
  // CHECK: primal 18
  d = __enzyme_autodiff((void *)f, 1.5);
  printf("not reached %g\n", d);
  return 0;
}

double f(double x) {
  // The run-time error comes last, after main's output.
  // CHECK: umbra: error: {{.*}}indirect-call-outside-table.c:[[@LINE+1]]:{{[0-9]+}}: indirect call reached a function that is in none of the vtables or tables of functions
  return table[0](x) * x;
}
