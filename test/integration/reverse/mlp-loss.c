// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// A small neural-network loss: 2-layer MLP (3 -> 5 tanh -> 2), squared error
// averaged over a batch; gradient w.r.t. the weights and biases, four dup
// arrays; inputs and targets are const pointers.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff_v(void *, ...);

enum { I = 3, H = 5, O = 2, B = 4, NP = H * I + H + O * H + O };

double loss(const double *W1, const double *b1, const double *W2, const double *b2,
            const double *X, const double *T, int batch) {
  double L = 0;
  for (int s = 0; s < batch; s++) {
    double h[H];
    for (int j = 0; j < H; j++) {
      double a = b1[j];
      for (int i = 0; i < I; i++) a += W1[j * I + i] * X[s * I + i];
      h[j] = tanh(a);
    }
    for (int o = 0; o < O; o++) {
      double y = b2[o];
      for (int j = 0; j < H; j++) y += W2[o * H + j] * h[j];
      double e = y - T[s * O + o];
      L += e * e;
    }
  }
  return L / batch;
}

static double X[B * I], T[B * O];
// packed params [W1, b1, W2, b2]
static double loss_at(const double *p, void *c) {
  (void)c;
  return loss(p, p + H * I, p + H * I + H, p + H * I + H + O * H, X, T, B);
}

int main(void) {
  double p[NP], dp[NP], fd[NP];
  for (int k = 0; k < NP; k++) p[k] = 0.8 * sin(0.9 * k + 0.3);
  for (int k = 0; k < B * I; k++) X[k] = cos(1.7 * k) * 1.5;
  for (int k = 0; k < B * O; k++) T[k] = 0.5 * sin(2.3 * k + 1.0);
  for (int k = 0; k < NP; k++) dp[k] = 0;
  double *W1 = p, *b1 = p + H * I, *W2 = b1 + H, *b2 = W2 + O * H;
  double *dW1 = dp, *db1 = dp + H * I, *dW2 = db1 + H, *db2 = dW2 + O * H;
  __enzyme_autodiff_v((void *)loss, enzyme_dup, W1, dW1, enzyme_dup, b1, db1,
                      enzyme_dup, W2, dW2, enzyme_dup, b2, db2, enzyme_const, X,
                      enzyme_const, T, enzyme_const, B);
  fd_grad(loss_at, NULL, p, NP, fd);
  fd_check_array("dW1", dW1, fd, H * I);
  fd_check_array("db1", db1, fd + H * I, H);
  fd_check_array("dW2", dW2, fd + H * I + H, O * H);
  fd_check_array("db2", db2, fd + H * I + H + O * H, O);
  return fd_finish();
}
