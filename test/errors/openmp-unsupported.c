// RUN: %clang -O2 -g -fopenmp -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: %clang -O0 -g -fopenmp -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// OpenMP constructs Umbra does not mirror are clear errors naming the runtime call, never a
// gradient computed without the synchronisation the primal had: here a dynamic schedule
// (`__kmpc_dispatch_*`) in reverse mode. Forward mode differentiates it: the dispatch calls
// touch only the loop's bound variables, which carry no derivative
// (integration/forward/openmp-dynamic.c).
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double sum_sq(const double *x, int n) {
  double s = 0;
  // The error points at the loop.
  // CHECK: openmp-unsupported.c:[[@LINE+2]]:{{[0-9]+}}: {{.*}}reverse mode cannot differentiate the OpenMP construct that calls '__kmpc_dispatch_init_4'{{.*}}static schedule
#pragma omp parallel for reduction(+ : s) schedule(dynamic)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0};
  __enzyme_autodiff((void *)sum_sq, enzyme_dup, x, dx, enzyme_const, 4);
  return dx[0] > 0;
}
