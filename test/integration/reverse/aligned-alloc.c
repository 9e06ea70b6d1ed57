// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Aligned heap scratch buffers inside f: aligned_alloc, posix_memalign (the block comes back
// through a pointer argument, so its shadow goes to the shadow of that slot) and memalign,
// filled, combined in place and freed. The heap is dirtied first (blocks of the same sizes
// filled with NaN bytes and freed) so shadows the allocation rules failed to zero would show.
#include "fdcheck.h"
#include <malloc.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

double f(const double *x, int n, double c) {
  size_t bytes = n * sizeof(double);
  double *a = aligned_alloc(64, (bytes + 63) / 64 * 64); // size: a multiple of the alignment
  double *b = NULL;
  if (posix_memalign((void **)&b, 32, bytes + sizeof *b) != 0)
    abort();
  double *m = memalign(16, bytes);
  for (int i = 0; i < n; i++) {
    a[i] = x[i] * c;
    b[i + 1] = sin(x[i]);
  }
  b[0] = c;
  for (int i = 0; i < n; i++)
    m[i] = a[i] * b[i] + b[i + 1];
  for (int i = 0; i + 1 < n; i++)
    m[i] += 0.5 * m[i + 1] * a[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += m[i] * x[(i + 2) % n];
  free(m);
  free(b);
  free(a);
  return s;
}

enum { N = 7 };
// packed [x (N), c]
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N, p[N]); }

static void dirty_heap(void) {
  void *blocks[8];
  size_t sizes[4] = {N * sizeof(double), (N + 1) * sizeof(double), 64, 128};
  for (int k = 0; k < 8; k++) {
    blocks[k] = malloc(sizes[k % 4]);
    memset(blocks[k], 0xff, sizes[k % 4]);
  }
  for (int k = 0; k < 8; k++)
    free(blocks[k]);
}

int main(void) {
  double p[N + 1], dx[N] = {0}, fd[N + 1];
  for (int i = 0; i < N; i++) p[i] = 0.25 + 0.19 * i - 0.4 * (i % 2);
  p[N] = 0.8;
  dirty_heap();
  double dc = __enzyme_autodiff((void *)f, enzyme_dup, p, dx, enzyme_const, N,
                                enzyme_out, p[N]);
  fd_grad(f_at, NULL, p, N + 1, fd);
  fd_check_array("dx", dx, fd, N);
  fd_check("dc", dc, fd[N]);
  return fd_finish();
}
