// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// A differentiable value flows into a call through a function pointer whose target is not
// known at compile time: the same kind of error as a missing rule, at the call site.
double __enzyme_autodiff(void *, ...);
double (*volatile op)(double);

double f(double x) {
  // CHECK: indirect-call.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}indirect call with differentiable arguments (reverse mode){{.*}}Ways out
  return op(x * x);
}

int main(void) {
  double d = __enzyme_autodiff((void *)f, 1.5);
  return d > 0;
}
