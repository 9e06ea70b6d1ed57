// RUN: %clang -O0 -g -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t2.o 2>&1 | FileCheck %s
// RUN: not %clang -O0 -g -c -fpass-plugin=%plugin %s -o %t3.o 2>&1 | FileCheck %s
// Reverse over reverse (issue 12) is refused at the inner request, naming both, instead of
// failing inside the outer adjoint on the inner gradient's tape.
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i] * x[i];
  return s;
}
void grad(const double *x, double *dx, int n) {
  // CHECK: reverse-over-reverse.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}reverse over reverse is not supported yet{{.*}}__enzyme_fwddiff
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
double wg(const double *x, const double *w, int n) {
  double g[8] = {0};
  grad(x, g, n);
  double s = 0;
  for (int i = 0; i < n; i++) s += w[i] * g[i];
  return s;
}
void hw(const double *x, double *dx, const double *w, int n) {
  __enzyme_autodiff((void *)wg, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, n);
}
