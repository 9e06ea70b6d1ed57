// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// User allocators registered with Enzyme's __enzyme_allocation_like = {allocator, (void*)size
// argument index, "deallocator argument indices", deallocator} (issue 29, Enzyme's
// ReverseMode/customalloc.c): the shadow of each block is a second call of the allocator with
// the same arguments, zeroed over the size argument's bytes; reverse mode releases it with the
// deallocator, -1 standing for the block. A bump allocator over a static arena (size is
// argument 1, released by release(arena, block)) and a counting malloc wrapper (size argument
// 0, released by counted_free(block)), in a loop. Both modes against finite differences, and
// every shadow a reverse sweep allocates is released.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct arena {
  char data[1 << 16];
  int used;
  int released;
};
static struct arena pool;

__attribute__((noinline)) void *bump(struct arena *a, int size) {
  void *p = &a->data[a->used];
  a->used += (size + 15) & ~15;
  return p;
}
static void release(struct arena *a, void *p) {
  (void)p;
  a->released++;
}

static int live;
__attribute__((noinline)) void *counted_malloc(unsigned long n) {
  live++;
  return malloc(n);
}
static void counted_free(void *p) {
  live--;
  free(p);
}

void *__enzyme_allocation_like[4] = {(void *)bump, (void *)1, (void *)"0,-1", (void *)release};
void *__enzyme_allocation_like_counted[4] = {(void *)counted_malloc, (void *)0, (void *)"-1",
                                             (void *)counted_free};

enum { N = 4 };

__attribute__((noinline)) double *fill(const double *x) {
  double *v = (double *)bump(&pool, N * sizeof(double));
  for (int i = 0; i < N; i++)
    v[i] = x[i] * x[(i + 1) % N];
  return v;
}

static double f(const double *x) {
  double *v = fill(x);
  double s = 0;
  for (int i = 0; i < N; i++) {
    double *t = (double *)counted_malloc(2 * sizeof(double));
    t[0] = sin(v[i]);
    t[1] = t[0] * x[i];
    s += t[1] + v[i] * v[i];
    counted_free(t);
  }
  return s;
}
static double f_at(const double *x, void *ctx) {
  (void)ctx;
  return f(x);
}

int main(void) {
  double x[N] = {0.3, -0.8, 1.1, 0.45}, dx[N] = {0}, g[N];
  fd_grad(f_at, 0, x, N, g);
  pool.used = pool.released = 0;
  int live_before = live;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  fd_check_array("reverse", dx, g, N);
  // The primal block and its shadow come from the arena; the shadow is released once.
  fd_check("arena blocks released", pool.released, 1);
  fd_check("arena bytes used", pool.used, 2 * N * sizeof(double));
  fd_check("counted blocks live", live - live_before, 0);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("forward", __enzyme_fwddiff((void *)f, enzyme_dup, x, t), g[k]);
  }
  return fd_finish();
}
