// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// 'out' marks a floating-point value passed by value; a pointer needs 'dup'.
extern int enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);

double sum(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}

int main(void) {
  double x[3] = {1, 2, 3};
  // CHECK: reverse-out-on-pointer.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'out' is for floating-point
  double d = __enzyme_autodiff((void *)sum, enzyme_out, x, enzyme_const, 3);
  return d > 0;
}
