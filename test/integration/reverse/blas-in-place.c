// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-LDFLAGS: -lopenblas
// BLAS inputs the adjoint reads where they are, and those it must copy first. The overwrite
// analysis lets a BLAS adjoint read an input array in place when nothing may write it between
// the call and the adjoint (reverse/blas-in-place.ll pins which); a wrong "in place" reads
// the changed values and the gradient is wrong, which the finite differences here catch:
// - stable(): gemv (row-major, x with stride 2), a heap vector freed at the end, dot with a
//   negative stride, nrm2: every input read in place;
// - overwritten(): the same shapes, then x, A, w and the heap vector are changed after the
//   calls: every input copied;
// - pingpong(): gemv in a loop whose output becomes the next step's input (two heap blocks
//   swapped): the vectors copied, the matrix read in place;
// - stable_fortran(): the Fortran interface (scalars by pointer), in place;
// - a Hessian-vector product of stable()'s gradient (forward over reverse: the adjoint's
//   in-place reads are differentiated again).
#include <cblas.h>
#include <f77blas.h>
#include <stdlib.h>
#include <string.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff_v(void *, ...) __asm__("__enzyme_autodiff");
void __enzyme_fwddiff(void *, ...);

enum { M = 4, N = 3, STEPS = 3 };
enum { NA = M * N, NX = 2 * N, NW = M, NP = NA + NX + NW };

double stable(const double *A, const double *x, const double *w) {
  double *y = malloc(M * sizeof *y);
  cblas_dgemv(CblasRowMajor, CblasNoTrans, M, N, 1.5, A, N, x, 2, 0.0, y, 1);
  for (int i = 0; i < M; i++) y[i] = tanh(y[i]);
  double r = cblas_ddot(M, y, 1, w, -1) + cblas_dnrm2(N, x, 2);
  free(y);
  return r;
}

double overwritten(double *A, double *x, double *w) {
  double *y = malloc(M * sizeof *y);
  // A read as the column-major N x M matrix with leading dimension N (its transpose: M x N).
  cblas_dgemv(CblasColMajor, CblasTrans, N, M, 0.7, A, N, x, 2, 0.0, y, 1);
  for (int i = 0; i < M; i++) y[i] = sin(y[i]);
  double r = cblas_ddot(M, y, 1, w, 1) + cblas_dnrm2(N, x, 2);
  x[0] = 2.0;
  A[1] *= 3.0;
  w[M - 1] = 0;
  for (int i = 0; i < M; i++) y[i] = 0;
  free(y);
  return r;
}

double pingpong(const double *A, const double *x) {
  // A is N x N here (the first N * N entries).
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  cblas_dcopy(N, x, 2, a, 1);
  for (int s = 0; s < STEPS; s++) {
    cblas_dgemv(CblasRowMajor, CblasNoTrans, N, N, 0.9, A, N, a, 1, 0.0, b, 1);
    for (int i = 0; i < N; i++) b[i] = tanh(b[i] + 0.1 * i);
    double *t = a;
    a = b;
    b = t;
  }
  double r = cblas_ddot(N, a, 1, a, 1);
  free(a);
  free(b);
  return r;
}

double stable_fortran(const double *A, const double *x, const double *w) {
  double *y = malloc(M * sizeof *y);
  int m = M, n = N, lda = M, two = 2, one = 1;
  double alpha = 1.2, beta = 0.0;
  char t = 'N';
  dgemv_(&t, &m, &n, &alpha, A, &lda, x, &two, &beta, y, &one);
  for (int i = 0; i < M; i++) y[i] = cos(y[i]);
  double r = ddot_(&m, y, &one, w, &one);
  free(y);
  return r;
}

typedef double (*fn3)(double *, double *, double *);
static double at(const double *p, void *c) {
  double q[NP];
  memcpy(q, p, sizeof q);
  return ((fn3)c)(q, q + NA, q + NA + NX);
}

// The request names its function directly (a function pointer known only at run time is no
// request Umbra can compile).
#define CHECK(f)                                                                               \
  do {                                                                                         \
    double p[NP], q[NP], g[NP] = {0}, fd[NP];                                                  \
    for (int k = 0; k < NP; k++) p[k] = 0.7 * sin(1.3 * k + 0.4) + 0.05 * k;                   \
    memcpy(q, p, sizeof q);                                                                    \
    __enzyme_autodiff_v((void *)f, enzyme_dup, q, g, enzyme_dup, q + NA, g + NA, enzyme_dup,   \
                        q + NA + NX, g + NA + NX);                                             \
    fd_grad(at, (void *)f, p, NP, fd);                                                         \
    printf("%s\n", #f);                                                                        \
    fd_check_array("dA", g, fd, NA);                                                           \
    fd_check_array("dx", g + NA, fd + NA, NX);                                                 \
    fd_check_array("dw", g + NA + NX, fd + NA + NX, NW);                                       \
  } while (0)

static double pingpong_at(const double *p, void *c) {
  (void)c;
  return pingpong(p, p + NA);
}

// The gradient of stable() in p, and its Hessian-vector product by forward mode.
void grad_stable(const double *p, double *g) {
  for (int k = 0; k < NP; k++) g[k] = 0;
  __enzyme_autodiff_v((void *)stable, enzyme_dup, p, g, enzyme_dup, p + NA, g + NA, enzyme_dup,
                      p + NA + NX, g + NA + NX);
}
static void grad_at(const double *p, double *g, void *c) {
  (void)c;
  grad_stable(p, g);
}

int main(void) {
  CHECK(stable);
  CHECK(overwritten);
  CHECK(stable_fortran);

  double p[NP], g[NP] = {0}, fd[NP];
  for (int k = 0; k < NP; k++) p[k] = 0.6 * cos(0.8 * k + 0.2) - 0.03 * k;
  __enzyme_autodiff_v((void *)pingpong, enzyme_dup, p, g, enzyme_dup, p + NA, g + NA);
  fd_grad(pingpong_at, NULL, p, NA + NX, fd);
  fd_check_array("pingpong dA", g, fd, N * N);
  fd_check_array("pingpong dx", g + NA, fd + NA, NX);

  double v[NP], gs[NP], hv[NP], fdh[NP];
  for (int k = 0; k < NP; k++) v[k] = 0.5 - 0.1 * k;
  __enzyme_fwddiff((void *)grad_stable, enzyme_dup, p, v, enzyme_dup, gs, hv);
  fd_dir_vec(grad_at, NULL, p, v, NP, fdh, NP);
  fd_check_array("H v", hv, fdh, NP);
  return fd_finish();
}
