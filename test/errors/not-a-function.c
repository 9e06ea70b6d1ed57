// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// The function to differentiate comes from a variable, not a function itself.
double __enzyme_fwddiff(void *, ...);

double f(double x) { return x * x; }
void *fp = (void *)f; // external linkage: the optimiser cannot fold the load

double use(double x) {
  // CHECK: not-a-function.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}not a function
  return __enzyme_fwddiff(fp, x, 1.0);
}

int main(void) { return use(2.0) > 0; }
