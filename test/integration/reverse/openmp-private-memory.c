// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -fopenmp
// EXEC-LDFLAGS: -fopenmp
// Memory intrinsics on a thread's own scratch arrays inside a parallel region (issue 28: a
// docking kernel's `etot[PPWI]` cleared element by element, which clang turns into a
// memset, was refused because "its adjoint would add into memory other threads may share"):
// memset and memcpy of local arrays of the outlined function, also through a helper's
// parameter, are differentiated like serial code. Reverse and forward mode, 1, 2 and 3 threads, against finite differences, each other
// and the function without OpenMP. (A memcpy out of shared differentiable memory is still
// refused: errors/openmp-shared-memcpy.c.)
#include "fdcheck.h"
#include <omp.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define PPWI 48

// A helper filling the caller's local array: its parameter is private to the thread because
// every call passes a local array (a hexahedron's derivatives in a hydrodynamics step).
__attribute__((noinline)) static void fill(double *b, const double *x, int i, int n) {
  memset(b, 0, PPWI * sizeof *b);
  for (int l = 0; l < PPWI; l += 3)
    b[l] += x[(i + 2 * l) % n] * x[i];
}
#define BODY                                                                                   \
  for (int i = 0; i < n; i++) {                                                                \
    double etot[PPWI];                                                                         \
    for (int l = 0; l < PPWI; l++)                                                             \
      etot[l] = 0;                                                                             \
    for (int l = 0; l < PPWI; l++)                                                             \
      etot[l] += x[i] * (l + 1);                                                              \
    double loc[PPWI], copy[PPWI];                                                              \
    for (int l = 0; l < PPWI; l++)                                                             \
      loc[l] = sin(x[(i + l) % n]);                                                            \
    memcpy(copy, loc, sizeof loc);                                                             \
    double filled[PPWI];                                                                       \
    fill(filled, x, i, n);                                                                     \
    for (int l = 0; l < PPWI; l++)                                                             \
      s += etot[l] * etot[l] * 0.01 + copy[l] * x[i] + filled[l] * 0.1;                        \
  }

double kernel(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  BODY
  return s;
}

double serial(const double *x, int n) {
  double s = 0;
  BODY
  return s;
}

enum { N = 19 };
static double at(const double *x, void *c) { (void)c; return kernel(x, N); }

int main(void) {
  double x[N], dx[N], fd[N], sdx[N], first[N], v[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.4 + 0.05 * i - 0.03 * (i % 3);
    v[i] = 0.2 - 0.03 * i;
  }
  fd_grad(at, NULL, x, N, fd);
  memset(sdx, 0, sizeof sdx);
  __enzyme_autodiff((void *)serial, enzyme_dup, x, sdx, enzyme_const, N);
  fd_check_array("serial dx", sdx, fd, N);
  double want = 0;
  for (int i = 0; i < N; i++)
    want += sdx[i] * v[i];
  for (int k = 0; k < 3; k++) {
    omp_set_num_threads(k + 1);
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)kernel, enzyme_dup, x, dx, enzyme_const, N);
    fd_check_array("kernel dx", dx, fd, N);
    fd_check_array("kernel dx as serial", dx, sdx, N);
    if (k == 0)
      memcpy(first, dx, sizeof dx);
    fd_check_array("same dx with more threads", dx, first, N);
    double t = __enzyme_fwddiff((void *)kernel, enzyme_dup, x, v, enzyme_const, N);
    fd_check("kernel tangent as serial gradient", t, want);
  }
  return fd_finish();
}
