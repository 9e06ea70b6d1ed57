// RUN: %clang -O2 -g -fopenmp -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O0 -g -fopenmp -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -fopenmp -DFORWARD -c -emit-llvm %s -o %tf.bc
// RUN: not %umbra %tf.bc -o %t.o 2>&1 | FileCheck %s
// A `_Float16` captured by value travels in the low bits of a pointer-sized integer: both
// modes refuse it, naming the capture, rather than drop its derivative (a `float` is widened
// to a `double`, which fills the integer: integration/reverse/openmp-firstprivate-float.c).
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

void scale(_Float16 *y, int n, _Float16 c) {
  // CHECK: openmp-half-capture.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}cannot differentiate this OpenMP parallel region: it captures '{{.*}}' by value, floating-point data that does not fill the pointer-sized integer it travels in
#pragma omp parallel for firstprivate(c)
  for (int i = 0; i < n; i++)
    y[i] *= c;
}

int main(void) {
  _Float16 y[4] = {1, 2, 3, 4}, dy[4] = {1, 1, 1, 1};
#ifdef FORWARD
  __enzyme_fwddiff((void *)scale, enzyme_dup, y, dy, enzyme_const, 4, (_Float16)2.0f,
                   (_Float16)1.0f);
#else
  __enzyme_autodiff((void *)scale, enzyme_dup, y, dy, enzyme_const, 4, (_Float16)2.0f);
#endif
  return dy[0] > 0;
}
