// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-LDFLAGS: -lopenblas
// A two-layer network through gemm, forward mode: H = tanh(X W1) (row-major call),
// Y = s H W2^T - T (column-major call with a transpose, beta = -1), loss = Y . Y;
// tangent along a direction in (W1, W2, s), with X, T constant; and the same first
// layer through the Fortran dgemm_.
#include <cblas.h>
#include <f77blas.h>
#include <stdlib.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

enum { B = 4, IN = 3, H = 5, O = 2, NP = IN * H + O * H + 1 };

static double output_loss(double *Hd, const double *W2, double s, const double *T) {
  double Y[B * O];
  for (int k = 0; k < B * H; k++) Hd[k] = tanh(Hd[k]);
  for (int k = 0; k < B * O; k++) Y[k] = T[k];
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, B, O, H, s, Hd, H, W2, H, -1.0, Y, B);
  return cblas_ddot(B * O, Y, 1, Y, 1);
}

double net(const double *W1, const double *W2, double s, const double *X, const double *T) {
  double *Hd = malloc(sizeof(double) * B * H);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, H, IN, 1.0, X, IN, W1, H, 0.0, Hd,
              H);
  double r = output_loss(Hd, W2, s, T);
  free(Hd);
  return r;
}

// The first layer through Fortran: the row-major H (B x H) is the column-major H^T =
// W1^T X^T, where the row-major W1 and X read column-major are W1^T (H x IN, ld H) and
// X^T (IN x B, ld IN).
double net_f77(double *W1, double *W2, double s, double *X, double *T) {
  double *Hd = malloc(sizeof(double) * B * H);
  int m = H, n = B, k = IN, lda = H, ldb = IN, ldc = H;
  double one = 1.0, zero = 0.0;
  dgemm_("N", "N", &m, &n, &k, &one, W1, &lda, X, &ldb, &zero, Hd, &ldc);
  double r = output_loss(Hd, W2, s, T);
  free(Hd);
  return r;
}

static double X[B * IN], T[B * O];
// packed [W1, W2, s]
static double net_at(const double *p, void *c) {
  (void)c;
  return net(p, p + IN * H, p[IN * H + O * H], X, T);
}

int main(void) {
  double p[NP], v[NP];
  for (int k = 0; k < NP; k++) {
    p[k] = 0.8 * sin(0.9 * k + 0.3);
    v[k] = 0.5 + 0.3 * cos(1.9 * k);
  }
  p[NP - 1] = 1.3;
  for (int k = 0; k < B * IN; k++) X[k] = cos(1.7 * k) * 1.2;
  for (int k = 0; k < B * O; k++) T[k] = 0.5 * sin(2.3 * k + 1.0);
  double fd = fd_dir(net_at, NULL, p, v, NP);
  double *W1 = p, *W2 = p + IN * H, *dW1 = v, *dW2 = v + IN * H;
  double s = p[NP - 1], ds = v[NP - 1];
  fd_check("cblas", __enzyme_fwddiff((void *)net, enzyme_dup, W1, dW1, enzyme_dup, W2, dW2, s,
                                     ds, enzyme_const, X, enzyme_const, T), fd);
  fd_check("f77", __enzyme_fwddiff((void *)net_f77, enzyme_dup, W1, dW1, enzyme_dup, W2, dW2, s,
                                   ds, enzyme_const, X, enzyme_const, T), fd);
  return fd_finish();
}
