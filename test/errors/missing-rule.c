// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// An active value flows into an external function Umbra has no rule for.
// The message names the callee, the mode, and the ways out; it warns against marking the
// callee inactive, which would drop the derivative instead of fixing it.
double __enzyme_fwddiff(void *, ...);
double mystery(double);

double f(double x) {
  double y = x * x;
  // CHECK: missing-rule.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}no derivative rule for 'mystery' (forward mode){{.*}}define 'mystery' in the module{{.*}}register a rule{{.*}}Marking it inactive would not fix this: it drops the derivative through 'mystery'
  return mystery(y) + x;
}

int main(void) {
  double d = __enzyme_fwddiff((void *)f, 1.5, 1.0);
  return d > 0;
}
