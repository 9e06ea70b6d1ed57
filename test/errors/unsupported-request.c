// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s
// Enzyme's __enzyme_fwdsplit, which umbra does not implement: an error naming it and the
// call site, not an undefined reference at link time. The module also holds a request umbra
// does implement; the unsupported call is reported all the same.
void *__enzyme_fwdsplit(void *, ...);
double __enzyme_autodiff(void *, ...);

double f(double x) { return x * x; }

double use(double x) {
  double g = __enzyme_autodiff((void *)f, x);
  // CHECK: unsupported-request.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_fwdsplit' is Enzyme's __enzyme_fwdsplit, which umbra does not support yet
  void *p = __enzyme_fwdsplit((void *)f, &g);
  return g + (p != 0);
}

int main(void) { return use(2.0) > 0; }
