// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-LDFLAGS: -lopenblas
// A two-layer network through gemm: H = tanh(X W1) (row-major call), Y = s H W2^T - T
// (column-major call with a transpose, beta = -1), loss = Y . Y (dot); gradients w.r.t.
// W1 and W2 (dup) and the output scale s (out), with the inputs X, T constant. The
// hidden layer is heap scratch (malloc/free).
#include <cblas.h>
#include <stdlib.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { B = 4, IN = 3, H = 5, O = 2, NP = IN * H + O * H + 1 };

double net(const double *W1, const double *W2, double s, const double *X, const double *T) {
  double *Hd = malloc(sizeof(double) * B * H);
  double Y[B * O];
  // H (B x H) = X (B x IN) W1 (IN x H), row-major.
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, H, IN, 1.0, X, IN, W1, H, 0.0, Hd,
              H);
  for (int k = 0; k < B * H; k++) Hd[k] = tanh(Hd[k]);
  // Y (B x O, column-major, ld B) = s * H W2^T, with H read as the column-major H^T
  // (H x B, ld H) and W2 (O x H row-major) as the column-major W2^T (H x O, ld H).
  for (int k = 0; k < B * O; k++) Y[k] = T[k];
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, B, O, H, s, Hd, H, W2, H, -1.0, Y, B);
  free(Hd);
  return cblas_ddot(B * O, Y, 1, Y, 1);
}

static double X[B * IN], T[B * O];
// packed [W1, W2, s]
static double net_at(const double *p, void *c) {
  (void)c;
  return net(p, p + IN * H, p[IN * H + O * H], X, T);
}

int main(void) {
  double p[NP], fd[NP], g[NP] = {0};
  for (int k = 0; k < NP; k++) p[k] = 0.8 * sin(0.9 * k + 0.3);
  p[NP - 1] = 1.3;
  for (int k = 0; k < B * IN; k++) X[k] = cos(1.7 * k) * 1.2;
  for (int k = 0; k < B * O; k++) T[k] = 0.5 * sin(2.3 * k + 1.0);
  double W1[IN * H], W2[O * H];
  memcpy(W1, p, sizeof W1);
  memcpy(W2, p + IN * H, sizeof W2);
  double ds = __enzyme_autodiff((void *)net, enzyme_dup, W1, g, enzyme_dup, W2, g + IN * H,
                                p[NP - 1], enzyme_const, X, enzyme_const, T);
  fd_grad(net_at, NULL, p, NP, fd);
  fd_check_array("dW1", g, fd, IN * H);
  fd_check_array("dW2", g + IN * H, fd + IN * H, O * H);
  fd_check("ds", ds, fd[NP - 1]);
  return fd_finish();
}
