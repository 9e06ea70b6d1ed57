// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Array of structs with mixed int and double fields; the shadow array has the
// same layout and receives the gradient in the double fields (also through a
// copy of the whole struct), while its int fields are left alone.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff_v(void *, ...);

typedef struct {
  int id;
  double w;
  double x[3];
} item;

double energy(const item *it, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    item tmp = it[i]; // struct copy: a memcpy of int and double fields
    const item *p = &tmp;
    s += p->w * p->x[p->id % 3] * p->x[(p->id + 1) % 3];
    if (p->id % 2 == 0)
      s += sin(p->x[0] * p->x[1] * p->x[2]) * p->w;
    else
      s -= p->w * p->w * exp(0.1 * p->x[2]);
  }
  return s;
}

enum { N = 5, K = 4 }; // K active scalars per item
static void unpack(const double *p, item *it) {
  for (int i = 0; i < N; i++) {
    it[i].id = 3 * i + 1;
    it[i].w = p[K * i];
    for (int j = 0; j < 3; j++) it[i].x[j] = p[K * i + 1 + j];
  }
}
static double energy_at(const double *p, void *ctx) {
  (void)ctx;
  item it[N];
  unpack(p, it);
  return energy(it, N);
}

int main(void) {
  double p[K * N], fd[K * N], ad[K * N];
  for (int k = 0; k < K * N; k++) p[k] = 0.5 + 0.25 * (k % 7) - 0.3 * (k % 3);
  item it[N], dit[N];
  unpack(p, it);
  memset(dit, 0, sizeof dit);
  for (int i = 0; i < N; i++) dit[i].id = -7; // must survive
  __enzyme_autodiff_v((void *)energy, enzyme_dup, it, dit, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    ad[K * i] = dit[i].w;
    for (int j = 0; j < 3; j++) ad[K * i + 1 + j] = dit[i].x[j];
    fd_check_exact("shadow id untouched", dit[i].id, -7);
    fd_check_exact("primal id untouched", it[i].id, 3 * i + 1);
  }
  fd_grad(energy_at, NULL, p, K * N, fd);
  fd_check_array("d(w, x[3])", ad, fd, K * N);
  return fd_finish();
}
