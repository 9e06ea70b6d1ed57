// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// A function in umbra's namespace that is no entry point (a misspelt request): an error at
// the call, even in a module without any other request.
double __umbra_fwdiff(void *, ...);

double f(double x) { return x * x; }

double use(double x) {
  // CHECK: unknown-api-name.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__umbra_fwdiff' is neither an umbra nor an Enzyme function; requests are __enzyme_autodiff, __enzyme_fwddiff, __umbra_autodiff and __umbra_fwddiff
  return __umbra_fwdiff((void *)f, x, 1.0);
}

int main(void) { return use(2.0) > 0; }
