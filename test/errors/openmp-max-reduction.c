// RUN: %clang -O2 -g -fopenmp -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: %clang -O0 -g -fopenmp -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -fopenmp -DFORWARD -c -emit-llvm %s -o %tf.bc
// RUN: not %umbra %tf.bc -o %t.o 2>&1 | FileCheck %s
// A `max` reduction: clang's atomic method for it is a compare-and-swap loop on the bits of
// the shared variable, and in reverse mode the adjoint of the critical method would have to
// replay the threads in the reverse of the order they took the lock. Both modes refuse it
// with an error that says what it is, at the loop.
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double max_abs(const double *x, int n) {
  double m = 0;
  // CHECK: openmp-max-reduction.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}compare-and-swap on differentiable data{{.*}}OpenMP reductions other than `+`{{.*}}only `+` reductions are supported
#pragma omp parallel for reduction(max : m)
  for (int i = 0; i < n; i++)
    m = m > x[i] * x[i] ? m : x[i] * x[i];
  return m;
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0};
#ifdef FORWARD
  return __enzyme_fwddiff((void *)max_abs, enzyme_dup, x, dx, enzyme_const, 4) > 0;
#else
  __enzyme_autodiff((void *)max_abs, enzyme_dup, x, dx, enzyme_const, 4);
  return dx[0] > 0;
#endif
}
