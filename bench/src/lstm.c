#include "../bench.h"
#include "lstm.h"
#include "umbra.h"
#include <string.h>

const char bench_name[] = "lstm";
const int bench_n = MAIN_N + EXTRA_N;
double *bench_data;

void bench_init(double *x) {
  bench_fill(x, MAIN_N + EXTRA_N, 14, -1, 1);
  bench_data = malloc(sizeof *bench_data * (STATE_N + C * B));
  bench_fill(bench_data, STATE_N + C * B, 15, -1, 1);
}
double bench_primal(const double *x) { return bench_flat(x); }

/* What one layer's step needs kept for backpropagation through time. */
struct step {
  double in[B], h0[B], c0[B]; /* input, hidden and cell before the step */
  double f[B], ig[B], o[B], ch[B], c[B];
};

/* Backpropagation through time: the forward pass keeps every step of every layer, the backward
 * pass carries the adjoints of hidden and cell state from step t + 1 back to step t. */
void bench_hand_grad(const double *x, double *g) {
  const double *w = x, *w2 = x + MAIN_N, *sequence = bench_data + STATE_N;
  double *gw = g, *gw2 = g + MAIN_N;
  struct step *st = malloc(sizeof *st * (C - 1) * NL);
  double state[STATE_N], ypred[C - 1][B], top[C - 1][B];
  memcpy(state, bench_data, sizeof state);
  memset(g, 0, sizeof *g * (MAIN_N + EXTRA_N));
  for (int t = 0; t < C - 1; t++) {
    double in[B];
    for (int i = 0; i < B; i++)
      in[i] = sequence[t * B + i] * w2[i];
    for (int l = 0; l < NL; l++) {
      struct step *s = &st[t * NL + l];
      const double *wt = w + 8 * l * B, *bs = wt + 4 * B;
      double *h = state + 2 * l * B, *c = h + B;
      for (int i = 0; i < B; i++) {
        s->in[i] = in[i];
        s->h0[i] = h[i];
        s->c0[i] = c[i];
        s->f[i] = sigmoid(in[i] * wt[i] + bs[i]);
        s->ig[i] = sigmoid(h[i] * wt[B + i] + bs[B + i]);
        s->o[i] = sigmoid(in[i] * wt[2 * B + i] + bs[2 * B + i]);
        s->ch[i] = tanh(h[i] * wt[3 * B + i] + bs[3 * B + i]);
        c[i] = s->c[i] = c[i] * s->f[i] + s->ig[i] * s->ch[i];
        h[i] = in[i] = s->o[i] * tanh(c[i]);
      }
    }
    for (int i = 0; i < B; i++) {
      top[t][i] = in[i];
      ypred[t][i] = in[i] * w2[B + i] + w2[2 * B + i];
    }
  }
  double dh[NL][B], dc[NL][B]; /* adjoints of the state carried to the step before */
  memset(dh, 0, sizeof dh);
  memset(dc, 0, sizeof dc);
  const double scale = -1.0 / ((C - 1) * B);
  for (int t = C - 2; t >= 0; t--) {
    const double *ygold = sequence + (t + 1) * B;
    double s = 2, gold = 0; /* loss_t = scale sum_i ygold_i (ypred_i - log(sum_j e^ypred_j + 2)) */
    for (int i = 0; i < B; i++) {
      s += exp(ypred[t][i]);
      gold += ygold[i];
    }
    double dup[B]; /* adjoint flowing into the top layer's hidden output */
    for (int i = 0; i < B; i++) {
      double dy = scale * (ygold[i] - gold * exp(ypred[t][i]) / s);
      gw2[B + i] += dy * top[t][i];
      gw2[2 * B + i] += dy;
      dup[i] = dy * w2[B + i];
    }
    for (int l = NL - 1; l >= 0; l--) {
      const struct step *st_l = &st[t * NL + l];
      const double *wt = w + 8 * l * B;
      double *gwt = gw + 8 * l * B, *gbs = gwt + 4 * B;
      for (int i = 0; i < B; i++) {
        double h = dh[l][i] + dup[i], tc = tanh(st_l->c[i]);
        double dcell = dc[l][i] + h * st_l->o[i] * (1 - tc * tc);
        double af = dcell * st_l->c0[i] * st_l->f[i] * (1 - st_l->f[i]);
        double ai = dcell * st_l->ch[i] * st_l->ig[i] * (1 - st_l->ig[i]);
        double ao = h * tc * st_l->o[i] * (1 - st_l->o[i]);
        double ac = dcell * st_l->ig[i] * (1 - st_l->ch[i] * st_l->ch[i]);
        gwt[i] += af * st_l->in[i];
        gwt[B + i] += ai * st_l->h0[i];
        gwt[2 * B + i] += ao * st_l->in[i];
        gwt[3 * B + i] += ac * st_l->h0[i];
        gbs[i] += af;
        gbs[B + i] += ai;
        gbs[2 * B + i] += ao;
        gbs[3 * B + i] += ac;
        dc[l][i] = dcell * st_l->f[i];
        dh[l][i] = ai * wt[B + i] + ac * wt[3 * B + i];
        dup[i] = af * wt[i] + ao * wt[2 * B + i]; /* into the layer's input */
      }
    }
    for (int i = 0; i < B; i++) /* the bottom layer's input is sequence_t * w2 */
      gw2[i] += dup[i] * sequence[t * B + i];
  }
  free(st);
}

#ifndef NO_UMBRA_GRAD
void bench_umbra_grad(const double *x, double *g) {
  memset(g, 0, sizeof *g * (MAIN_N + EXTRA_N));
  __umbra_autodiff((void *)lstm_objective, umbra_dup, x, g, umbra_dup, x + MAIN_N, g + MAIN_N,
                   umbra_const, bench_data);
}
#endif
#ifndef NO_UMBRA_TANGENT
double bench_umbra_tangent(const double *x, const double *v) {
  return __umbra_fwddiff((void *)lstm_objective, umbra_dup, x, v, umbra_dup, x + MAIN_N,
                         v + MAIN_N, umbra_const, bench_data);
}
#endif
