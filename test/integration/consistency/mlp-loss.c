// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Forward/reverse consistency on a 2-layer tanh MLP loss, differentiated with
// respect to its four weight arrays: <J v, w> (forward) = <v, J^T w> (reverse).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

enum { I = 4, H = 6, O = 3, B = 5, NP = H * I + H + O * H + O };

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

static unsigned long long rng = 0x452821e638d01377ULL;
static double rnd(void) { // uniform in [-1, 1)
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) * 0x1p-52 - 1.0;
}
static double X[B * I], T[B * O];
static double loss_at(const double *p, void *c) {
  (void)c;
  return loss(p, p + H * I, p + H * I + H, p + H * I + H + O * H, X, T, B);
}

int main(void) {
  double p[NP], v[NP], g[NP] = {0};
  for (int k = 0; k < NP; k++) p[k] = 0.7 * rnd();
  for (int k = 0; k < B * I; k++) X[k] = 1.5 * rnd();
  for (int k = 0; k < B * O; k++) T[k] = 0.5 * rnd();
  for (int k = 0; k < NP; k++) v[k] = rnd();
  double w = rnd();
  const int o1 = H * I, o2 = o1 + H, o3 = o2 + O * H; // offsets of b1, W2, b2
  double jv = __enzyme_fwddiff((void *)loss, enzyme_dup, p, v, enzyme_dup, p + o1, v + o1,
                               enzyme_dup, p + o2, v + o2, enzyme_dup, p + o3, v + o3,
                               enzyme_const, X, enzyme_const, T, enzyme_const, B);
  __enzyme_autodiff_v((void *)loss, enzyme_dup, p, g, enzyme_dup, p + o1, g + o1,
                      enzyme_dup, p + o2, g + o2, enzyme_dup, p + o3, g + o3,
                      enzyme_const, X, enzyme_const, T, enzyme_const, B);
  double lhs = jv * w, rhs = 0, scale = 0;
  for (int k = 0; k < NP; k++) {
    rhs += v[k] * (w * g[k]);
    scale += fabs(v[k] * w * g[k]);
  }
  fd_check_tol("<Jv,w> = <v,J^T w>", lhs, rhs, 1e-10, 1e-12 * scale);
  fd_check("Jv against FD", jv, fd_dir(loss_at, NULL, p, v, NP));
  return fd_finish();
}
