// RUN: %clang -O2 -fopenmp -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc --print-types -o %t.o 2>&1 | FileCheck %s
// RUN: %opt-umbra '-passes=umbra<print-types>' %t.bc -o %t.opt.bc 2>&1 | FileCheck %s
// Which loads of a parallel region its adjoint re-reads (issue 27; the gradients:
// integration/reverse/openmp-region-reread.c). The region's shared variables are stack slots
// of the function that forks it: their loads are taped, but the pointers the caller stored in
// them point to memory the region may re-read when the caller writes nothing after the fork.
// Every write of the region counts as coming after every read (its threads run at once).
#include <math.h>
#include <omp.h>
extern int enzyme_dup, enzyme_const; void __enzyme_autodiff(void *, ...);
enum { N = 24 };

__attribute__((noinline)) double energy(const double *x, const double *w, int n) {
  double e = 0;
#pragma omp parallel for reduction(+ : e)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double d = x[i] - w[j];
      e += sin(d) * d + cos(x[i] * w[j]);
    }
  return e;
}

__attribute__((noinline)) double energy_then_reset(double *x, const double *w, int n) {
  double e = 0;
#pragma omp parallel for reduction(+ : e)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) e += sin(x[i] * w[j]) * x[i];
  for (int i = 0; i < n; i++) x[i] = 0.5; // after the region: its reads must be taped
  return e;
}

__attribute__((noinline)) double handoff(const double *x, double *acc, double *seen) {
  double y = 0;
  int flag = 0;
#pragma omp parallel reduction(+ : y)
  {
    int t = omp_get_thread_num();
    if (t == 1) {
      int ready = 0;
      while (!ready) {
#pragma omp atomic read
        ready = flag;
      }
      acc[0] = 7.0; // after thread 0's read below
    }
    if (t == 0 || omp_get_num_threads() == 1) {
      seen[0] = acc[0];
      y += sin(acc[0]) * x[0];
#pragma omp atomic write
      flag = 1;
    }
  }
  return y;
}

void grads(double *x, double *dx, double *w, double *acc, double *seen) {
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, N);
  __enzyme_autodiff((void *)energy_then_reset, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, N);
  __enzyme_autodiff((void *)handoff, enzyme_dup, x, dx, enzyme_const, acc, enzyme_const, seen);
}

// The slots are taped; the arrays behind them are re-read.
// CHECK-LABEL: overwrites of @energy.omp_outlined (memory stable):
// CHECK:         load ptr, ptr %3, align 8: cached: reads a stack slot of the function forking the parallel region, dead when the adjoint runs
// CHECK:         load double, ptr %{{[0-9]+}}, align 8: re-read
// CHECK:         load double, ptr %{{[0-9]+}}, align 8: re-read

// The caller overwrites x (doubles) after the region: its double loads are taped, the region
// gets the caller's writes by type.
// CHECK-LABEL: overwrites of @energy_then_reset.omp_outlined (caller may write 1 TBAA access types):
// CHECK:         load double, ptr %{{[0-9]+}}, align 8: cached: the caller may write

// Thread 1's store comes before thread 0's load in the code, not in time.
// CHECK-LABEL: overwrites of @handoff.omp_outlined (memory stable):
// CHECK:         load double, ptr %{{[0-9]+}}, align 8: cached: may be overwritten by store double 7.000000e+00
