// RUN: %clang -O2 -g -fopenmp -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: %clang -O0 -g -fopenmp -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// An OpenMP parallel loop with a reduction: the body is outlined and run through
// `__kmpc_fork_call`, which Umbra cannot differentiate yet. The error names it and does not
// suggest marking it inactive (that would drop the whole loop's derivative).
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double sum_sq(const double *x, int n) {
  double s = 0;
  // CHECK: openmp-parallel-for.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}no derivative rule for '__kmpc_fork_call'{{.*}}OpenMP parallel regions are not differentiated yet{{.*}}Marking it inactive would not fix this
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0};
  __enzyme_autodiff((void *)sum_sq, enzyme_dup, x, dx, enzyme_const, 4);
  return dx[0] > 0;
}
