// RUN: %clang -O2 -fopenmp -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc --emit=llvm-ir -O0 -o - | FileCheck %s
// Which adjoints of loads inside a parallel region add atomically (issue 28's scaling item;
// the gradients: integration/reverse/openmp-partial-sums.c). A slice each iteration reads and
// overwrites adds without atomics; a variable of the caller the region only reads is summed
// in a private slot and added once, atomically, at the exit of the thread's adjoint; in a
// region that writes no shared memory, loads are summed in a per-thread table keyed by
// address; a slice only read in a region that writes shared memory (another thread might
// read the same element through another pointer) stays atomic.
#include <math.h>
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out;

void update(double *u, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    u[i] = sin(u[i]) * u[i] + 1;
}

void scaled(double *u, double c, int n) {
  double k = c * c;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    u[i] = u[i] * k;
}

void readonly(const double *x, double *y, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[i];
}

// Only locals and the reduction are written: x and the table c are summed per thread, in a
// table keyed by shadow address.
double table_sum(const double *x, const double *c, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += c[i % 4] * x[i];
  return s;
}

void grads(double *u, double *du, double c, const double *x, double *dx, double *y, double *dy,
           const double *t, double *dt, int n) {
  __enzyme_autodiff((void *)update, enzyme_dup, u, du, enzyme_const, n);
  __enzyme_autodiff((void *)scaled, enzyme_dup, u, du, enzyme_out, c, enzyme_const, n);
  __enzyme_autodiff((void *)readonly, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
  __enzyme_autodiff((void *)table_sum, enzyme_dup, x, dx, enzyme_dup, t, dt, enzyme_const, n);
}

// The read-modify-write slice: no atomic add anywhere in the thread's adjoint.
// CHECK-LABEL: define internal void @adjoint.update.omp_outlined.{{[a-z]+(\.s)?}}(
// CHECK-NOT: atomicrmw
// CHECK: define internal void @adjoint.update.omp_outlined.{{[a-z]+(\.s)?}}.omp(

// The shared k: a private sum, added once at the exit; the slice of u: plain adds.
// CHECK-LABEL: define internal void @adjoint.scaled.omp_outlined.{{[a-z]+(\.s)?}}(
// CHECK: %private.sum = alloca double
// CHECK-NOT: atomicrmw
// CHECK: exit:
// CHECK-NEXT: %[[SUM:[0-9]+]] = load double, ptr %private.sum
// CHECK-NEXT: atomicrmw fadd ptr %{{[0-9]+}}, double %[[SUM]] monotonic
// CHECK-NOT: atomicrmw
// CHECK: define internal void @adjoint.scaled.omp_outlined.{{[a-z]+(\.s)?}}.omp(

// A slice only read, y written: atomic adds.
// CHECK-LABEL: define internal void @adjoint.readonly.omp_outlined.{{[a-z]+(\.s)?}}(
// CHECK-NOT: private.sum
// CHECK-NOT: @calloc(i64 4096, i64 16)
// CHECK: atomicrmw fadd
// CHECK: define internal void @adjoint.readonly.omp_outlined.{{[a-z]+(\.s)?}}.omp(

// Nothing shared written: the thread's table, flushed at the exit.
// CHECK-LABEL: define internal void @adjoint.table_sum.omp_outlined.{{[a-z]+(\.s)?}}(
// CHECK: call ptr @calloc(i64 4096, i64 16)
// CHECK: exit:
// CHECK: call void @umbra.omp.sum.flush.double(
