// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=O1
// RUN: test ! -e %t.o
// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=O0
// RUN: test ! -e %t.o
// Differentiable values stored into a static array (a global: no shadow). The error said the
// address "is a constant argument or a global" and to "pass the destination as dup", which a
// static cannot be; it now names the global, or, inside a helper it was passed to, the
// helper's parameter.
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

static void fill(int n, double a[n], const double *x) {
  for (int i = 0; i < n; i++)
    // O0: static-array-store.c:[[@LINE+1]]:{{[0-9]+}}: in function 'fill': stores a value with a derivative into memory without a shadow (it points into 'a', parameter 2 of 'fill', which has none: the request passes it as constant, or a caller passes a global or a constant pointer there)
    a[i] = x[i] * x[i];
}

double f(const double *x) {
  static double scratch[4];
  // O1: static-array-store.c:{{[0-9]+}}:{{[0-9]+}}: in function 'f': stores a value with a derivative into memory without a shadow ('{{.*}}' is in the global 'f.scratch', and globals get no shadow); keep the data in a local or heap array, or pass it to the differentiated function as a dup argument
  fill(4, scratch, x);
  return scratch[0] * scratch[3] + scratch[1];
}

void grad(const double *x, double *dx) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx); }
