// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// The function to differentiate has no body in the module.
double __enzyme_fwddiff(void *, ...);
double ext(double);

int main(void) {
  // CHECK: declaration-only.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}no body
  double d = __enzyme_fwddiff((void *)ext, 1.5, 1.0);
  return d > 0;
}
