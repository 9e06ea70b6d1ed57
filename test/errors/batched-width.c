// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -c %s -o %t2.o 2>&1 | FileCheck %s
// Batched forward mode: a request declared with a result that cannot hold the N tangents is an
// error at its call site.
extern int enzyme_width, enzyme_dup, enzyme_out;
double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);

double f(double x) { return x * x; }

double fwd(double x) {
  // CHECK: batched-width.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}declared to return double, but with enzyme_width 2 it returns 2 tangents
  return __enzyme_fwddiff((void *)f, enzyme_width, 2, x, 1.0, 2.0);
}
