// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// A double passed as the shadow of a pointer parameter.
extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

double sum(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i];
  return s;
}

int main(void) {
  double x[3] = {1, 2, 3};
  // CHECK: pointer-shadow-mismatch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}does not match
  double d = __enzyme_fwddiff((void *)sum, enzyme_dup, x, 1.0, enzyme_const, 3);
  return d > 0;
}
