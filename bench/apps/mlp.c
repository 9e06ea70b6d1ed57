/*
 * mlp.c - a multilayer perceptron's training loss through BLAS, as a model-fitting code
 * writes it: a batch of inputs through three dense layers (row-major cblas_dgemm, a bias added
 * per row, tanh), a mean squared error against targets, the activations allocated on the heap
 * and freed per call. Its gradient with respect to the weights and biases is one reverse
 * sweep through gemm's rules: what it keeps is what a BLAS adjoint needs (the layers' inputs,
 * the activations' derivatives), which the weights, the batch and the activations, unchanged
 * until the adjoint, let it read in place.
 */
// APP-LDFLAGS: -lopenblas
#include <cblas.h>
#include <string.h>

#include "app.h"

#ifdef SMALL
enum { BATCH = 8, D0 = 12, D1 = 10, D2 = 9, D3 = 4 };
#else
enum { BATCH = 64, D0 = 256, D1 = 256, D2 = 256, D3 = 10 };
#endif
enum { NW = D0 * D1 + D1 + D1 * D2 + D2 + D2 * D3 + D3 };

/* out (BATCH x m) = act(in (BATCH x k) W (k x m) + b); act = tanh when `squash`. */
static void layer(const double *in, const double *W, const double *b, double *out, int k, int m,
                  int squash) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, BATCH, m, k, 1.0, in, k, W, m, 0.0, out,
              m);
  for (int r = 0; r < BATCH; r++)
    for (int j = 0; j < m; j++) {
      double z = out[r * m + j] + b[j];
      out[r * m + j] = squash ? tanh(z) : z;
    }
}

/* The loss at parameters p (all weights and biases, packed), inputs X, targets T. */
double mlp_loss(const double *p, const double *X, const double *T) {
  const double *W1 = p, *b1 = W1 + D0 * D1, *W2 = b1 + D1, *b2 = W2 + D1 * D2;
  const double *W3 = b2 + D2, *b3 = W3 + D2 * D3;
  double *H1 = malloc(sizeof(double) * BATCH * D1);
  double *H2 = malloc(sizeof(double) * BATCH * D2);
  double *Y = malloc(sizeof(double) * BATCH * D3);
  layer(X, W1, b1, H1, D0, D1, 1);
  layer(H1, W2, b2, H2, D1, D2, 1);
  layer(H2, W3, b3, Y, D2, D3, 0);
  double s = 0;
  for (int k = 0; k < BATCH * D3; k++) s += (Y[k] - T[k]) * (Y[k] - T[k]);
  free(H1);
  free(H2);
  free(Y);
  return s / BATCH;
}

typedef struct {
  double *p, *dp, *X, *T;
  volatile double sink;
} Problem;

static void run_primal(void *c) {
  Problem *q = c;
  q->sink = mlp_loss(q->p, q->X, q->T);
}

static void run_gradient(void *c) {
  Problem *q = c;
  memset(q->dp, 0, NW * sizeof(double));
  __enzyme_autodiff((void *)mlp_loss, enzyme_dup, q->p, q->dp, enzyme_const, q->X, enzyme_const,
                    q->T);
}

int main(void) {
  Problem q = {0};
  unsigned long long seed = 7;
  q.p = malloc(NW * sizeof(double));
  q.dp = malloc(NW * sizeof(double));
  q.X = malloc(BATCH * D0 * sizeof(double));
  q.T = malloc(BATCH * D3 * sizeof(double));
  for (int i = 0; i < NW; i++) q.p[i] = 0.2 * (app_rand(&seed) - 0.5);
  for (int i = 0; i < BATCH * D0; i++) q.X[i] = 2 * app_rand(&seed) - 1;
  for (int i = 0; i < BATCH * D3; i++) q.T[i] = app_rand(&seed) - 0.5;

  /* Checks: <grad, v> against a central difference along v. */
  run_gradient(&q);
  double *v = malloc(NW * sizeof(double)), *xp = malloc(NW * sizeof(double));
  for (int dir = 0; dir < 3; dir++) {
    double ad = 0;
    for (int i = 0; i < NW; i++) {
      v[i] = app_rand(&seed) - 0.5;
      ad += q.dp[i] * v[i];
    }
    const double h = 1e-5;
    double f[2];
    for (int s = 0; s < 2; s++) {
      for (int i = 0; i < NW; i++) xp[i] = q.p[i] + (s ? -h : h) * v[i];
      f[s] = mlp_loss(xp, q.X, q.T);
    }
    char what[64];
    snprintf(what, sizeof what, "mlp gradient, direction %d", dir);
    app_check(what, ad, (f[0] - f[1]) / (2 * h), 1e-6);
  }
  free(v);
  free(xp);
  if (app_failures_) return 1;

  double primal_s, grad_s;
  app_time(run_primal, run_gradient, &q, &primal_s, &grad_s);
  app_report("mlp", primal_s, grad_s);
  return 0;
}
