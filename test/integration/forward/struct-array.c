// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Array of structs with mixed int / double / float / double[3] fields; the
// shadow array has the same layout, tangents in the floating-point fields.
#include "fdcheck.h"
#include "umbra.h"

typedef struct {
  int id;
  double w;
  float f;
  double x[3];
} item;

double energy(const item *it, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    const item *p = &it[i];
    s += p->w * p->f * p->x[p->id % 3];
    if (p->id % 2 == 0)
      s += p->x[0] * p->x[1] * p->x[2] * p->w;
    else
      s -= (double)p->f * p->f;
  }
  return s;
}

enum { N = 5, K = 5 }; // K active scalars per item
static void unpack(const double *p, item *it) {
  for (int i = 0; i < N; i++) {
    it[i].id = 3 * i + 1;
    it[i].w = p[K * i];
    it[i].f = (float)p[K * i + 1]; // exact: values and steps are dyadic
    for (int j = 0; j < 3; j++) it[i].x[j] = p[K * i + 2 + j];
  }
}
static double energy_at(const double *p, void *ctx) {
  (void)ctx;
  item it[N];
  unpack(p, it);
  return energy(it, N);
}

int main(void) {
  double p[K * N], v[K * N];
  for (int k = 0; k < K * N; k++) {
    p[k] = 0.5 + 0.25 * (k % 7) - 0.125 * (k % 3);
    v[k] = (k % 4) * 0.5 - 0.75;
  }
  item it[N], dit[N];
  unpack(p, it);
  memset(dit, 0, sizeof dit);
  for (int i = 0; i < N; i++) {
    dit[i].w = v[K * i];
    dit[i].f = (float)v[K * i + 1];
    for (int j = 0; j < 3; j++) dit[i].x[j] = v[K * i + 2 + j];
  }
  double ad = __umbra_fwddiff((void *)energy, umbra_dup, it, dit, umbra_const, N);
  // energy is a polynomial of degree <= 4: Richardson-extrapolated central
  // differences with a dyadic step are exact up to rounding.
  fd_check("energy", ad, fd_dir_h(energy_at, NULL, p, v, K * N, 0x1p-8));
  return fd_finish();
}
