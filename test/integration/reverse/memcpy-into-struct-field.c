// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// A local array of mixed structs (a double, an int, three doubles and a pointer) filled from
// `x`, whose `v[3]` loop becomes a 24-byte memcpy from `x` into the middle of each struct at
// -O1 and above, read by a noinline helper and then copied into a heap block (issue 25, item 4).
// The source of the small copies repeats every 8 bytes (a double array); the struct's int and
// pointer lie outside the 24 copied bytes, and must not be folded into that period: the copies
// were refused ("incompatible types ({0: conflict every 8})" at -O2/-O3, "may not start a
// [3 x %struct.Item]" at -O1).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

typedef struct {
  double w;
  int count;
  double v[3];
  const double *scale;
} Item;

enum { N = 3 };

__attribute__((noinline)) static double weigh(const Item *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i].w * (a[i].v[0] + a[i].v[1] * a[i].v[2]) * a[i].count * *a[i].scale;
  return s;
}

double f(const double *x, const double *scale) {
  Item local[N];
  for (int i = 0; i < N; i++) {
    local[i].w = x[4 * i];
    local[i].count = i + 1;
    local[i].scale = scale;
    for (int j = 0; j < 3; j++) local[i].v[j] = x[4 * i + 1 + j];
  }
  double w = weigh(local, N);
  Item *heap = malloc(sizeof local);
  memcpy(heap, local, sizeof local);
  double r = 0;
  for (int i = 0; i < N; i++) r += heap[i].v[1] * heap[i].w * *heap[i].scale;
  free(heap);
  return r * w;
}

static double scale = 1.5;

static double f_at(const double *p, void *ctx) {
  (void)ctx;
  return f(p, &scale);
}

int main(void) {
  double x[4 * N], dx[4 * N] = {0}, fd[4 * N], dscale = 0;
  for (int i = 0; i < 4 * N; i++) x[i] = 0.3 + 0.2 * i - (i % 3) * 0.25;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, &scale, &dscale);
  fd_grad(f_at, NULL, x, 4 * N, fd);
  fd_check_array("dx", dx, fd, 4 * N);
  // f is homogeneous of degree 2 in *scale.
  fd_check("dscale", dscale, 2 * f(x, &scale) / scale);
  return fd_finish();
}
