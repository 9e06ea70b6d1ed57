// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// An array of structs with a float field the differentiated function never reads, filled by
// the caller field by field: no byte is read as another type than it was written as, so the
// request is not a reinterpretation. At -O1 both the caller's and the function's loops over
// the member array v[3] index it as `gep double, ptr, k` (the array's type gone): taken as
// repeating every 8 bytes, their doubles covered `id` and `pad`, and the request was refused
// ("the caller holds as double at byte 8, but 'energy' reads float at byte 12").
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff_v(void *, ...);

typedef struct {
  double m;
  int id;
  float pad;
  double v[3];
} Body;

__attribute__((noinline)) double energy(const Body *b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) {
    double v2 = 0;
    for (int k = 0; k < 3; k++) v2 += b[i].v[k] * b[i].v[k];
    e += (b[i].id % 3 + 1) * 0.5 * b[i].m * v2 + sin(b[i].m * b[i].v[0]);
  }
  return e;
}

enum { N = 4, K = 4 }; // m and v[3] per body
static void fill(const double *p, Body *b) {
  for (int i = 0; i < N; i++) {
    b[i].m = p[K * i];
    b[i].id = 2 * i + 1;
    b[i].pad = 0;
    for (int k = 0; k < 3; k++) b[i].v[k] = 0.5 * p[K * i + 1 + k]; // stored scaled
  }
}
static double energy_at(const double *p, void *ctx) {
  (void)ctx;
  Body b[N];
  fill(p, b);
  return energy(b, N);
}

int main(void) {
  double p[K * N], fd[K * N], ad[K * N];
  for (int k = 0; k < K * N; k++) p[k] = 0.4 + 0.3 * (k % 5) - 0.2 * (k % 3);
  Body b[N], db[N];
  fill(p, b);
  memset(db, 0, sizeof db);
  __enzyme_autodiff_v((void *)energy, enzyme_dup, b, db, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    ad[K * i] = db[i].m;
    for (int k = 0; k < 3; k++) ad[K * i + 1 + k] = 0.5 * db[i].v[k];
    fd_check_exact("shadow id untouched", db[i].id, 0);
    fd_check_exact("shadow pad untouched", db[i].pad, 0);
  }
  fd_grad(energy_at, NULL, p, K * N, fd);
  fd_check_array("d(m, v[3])", ad, fd, K * N);
  return fd_finish();
}
