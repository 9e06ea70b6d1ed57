// RUN: %clang -O2 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// A sparse matrix in CSR form: a struct holding the differentiable values and the index
// arrays, which the request passes as constant. The struct's shadow needs a shadow for each
// pointer it holds; the message names the parameter by its source name (it said "pointer
// 'ptr %2'") and says how to pass it.
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

typedef struct {
  int n;
  const int *rowptr, *col;
  const double *val;
} csr;

__attribute__((noinline)) static double quad(const csr *A, const double *x) {
  double s = 0;
  for (int i = 0; i < A->n; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      s += x[i] * A->val[p] * x[A->col[p]];
  return s;
}

double f(const double *val, const int *rowptr, const int *col, const double *x, int n) {
  // CHECK: constant-pointer-in-struct.c:[[@LINE+1]]:{{[0-9]+}}: in function 'f': pointer 'rowptr', parameter 2 of 'f', passed as constant, has no shadow memory {{.*}}; pass it as dup with a zeroed shadow of the same size (for integer data such as index arrays, any zeroed array of that size)
  csr A = {n, rowptr, col, val};
  return quad(&A, x);
}

double grad(const double *val, double *dval, const int *rowptr, const int *col, const double *x, int n) {
  return __enzyme_autodiff((void *)f, enzyme_dup, val, dval, enzyme_const, rowptr,
                           enzyme_const, col, enzyme_const, x, enzyme_const, n);
}
