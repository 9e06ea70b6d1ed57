// RUN: %clang -O2 -g -fopenmp -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O0 -g -fopenmp -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// Two work-shared loops in one parallel region: the barrier between them orders the threads'
// writes to y before the reads, and the adjoint would need the same order in reverse.
// Reverse mode refuses it (naming the barrier) rather than race.
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

void two_loops(const double *x, double *y, double *z, int n) {
  // CHECK: openmp-barrier.c:[[@LINE+3]]:{{[0-9]+}}: {{.*}}reverse mode cannot differentiate the OpenMP construct that calls '__kmpc_barrier'
#pragma omp parallel
  {
#pragma omp for
    for (int i = 0; i < n; i++)
      y[i] = x[i] * x[i];
#pragma omp for
    for (int i = 0; i < n; i++)
      z[i] = y[(i + 1) % n] + y[i];
  }
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0}, y[4], dy[4] = {0}, z[4], dz[4] = {1, 1, 1, 1};
  __enzyme_autodiff((void *)two_loops, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dup, z, dz,
                    enzyme_const, 4);
  return dx[0] > 0;
}
