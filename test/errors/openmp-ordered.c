// RUN: %clang -O2 -g -fopenmp -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O0 -g -fopenmp -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// Synchronisation reverse mode does not mirror yet stays a one-line error naming the runtime
// call: an `ordered` loop (its sections run in iteration order, which the adjoint would have
// to reverse), where barriers, critical, single and master sections are differentiated.
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

void running(const double *x, double *y, int n) {
#pragma omp parallel for ordered
  for (int i = 1; i < n; i++) {
    // The error points at the ordered section (the loop's dispatch calls are differentiated).
    // CHECK: openmp-ordered.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}reverse mode cannot differentiate the OpenMP construct that calls '__kmpc_ordered'
#pragma omp ordered
    y[i] = y[i - 1] * x[i];
  }
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0}, y[4] = {1}, dy[4] = {0, 0, 0, 1};
  __enzyme_autodiff((void *)running, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, 4);
  return dx[0] > 0;
}
