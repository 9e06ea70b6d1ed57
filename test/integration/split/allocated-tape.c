// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Split mode as in Enzyme's C tests: __enzyme_augmentsize, a caller-allocated tape
// (enzyme_allocated, size, enzyme_tape, buffer), the forward sweep in one function, the reverse
// sweep in another, and in between the caller overwrites the input the function read and runs
// unrelated heap work. The gradient is still that of the forward sweep's input (what f read
// then must come from the tape, not from memory), checked against finite differences.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_allocated, enzyme_tape;
int __enzyme_augmentsize(void *, ...);
void __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

enum { N = 7 };

// y[i] = sum of a mix of x's entries; the loop and a heap scratch buffer give the tape work.
__attribute__((noinline)) void f(double *y, const double *x, int n) {
  double *t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = sin(x[i]) * x[(i + 1) % n];
  for (int i = 0; i < n; i++)
    y[i] = t[i] * t[(i + 2) % n] + exp(0.1 * x[i]);
  free(t);
}

__attribute__((noinline)) void forward(void *tape, int size, double *y, double *dy,
                                       double *x, double *dx) {
  __enzyme_augmentfwd((void *)f, enzyme_allocated, size, enzyme_tape, tape, enzyme_dup, y, dy,
                      enzyme_dup, x, dx, enzyme_const, N);
}

__attribute__((noinline)) void reverse(void *tape, int size, double *y, double *dy,
                                       double *x, double *dx) {
  __enzyme_reverse((void *)f, enzyme_allocated, size, enzyme_tape, tape, enzyme_dup, y, dy,
                   enzyme_dup, x, dx, enzyme_const, N);
}

// L(x) = sum_i w_i y_i(x)
static const double w[N] = {0.5, -1.0, 0.25, 2.0, -0.75, 1.5, 0.3};
static double loss(const double *x, void *ctx) {
  (void)ctx;
  double y[N];
  f(y, x, N);
  double s = 0;
  for (int i = 0; i < N; i++) s += w[i] * y[i];
  return s;
}

int main(void) {
  int size = __enzyme_augmentsize((void *)f, enzyme_dup, enzyme_dup, enzyme_const);
  if (size != 32) { printf("augmentsize %d\n", size); return 1; }
  void *tape = malloc(size);
  double x[N], x0[N], dx[N] = {0}, y[N], dy[N], fd[N];
  for (int i = 0; i < N; i++) x0[i] = x[i] = 0.4 + 0.21 * i - 0.6 * (i % 3 == 1);
  forward(tape, size, y, dy, x, dx);
  // Unrelated work between the sweeps: overwrite x and y, churn the heap.
  for (int i = 0; i < N; i++) { x[i] = 100.0 + i; y[i] = -1.0; }
  double *junk = malloc(1000 * sizeof *junk);
  for (int i = 0; i < 1000; i++) junk[i] = i;
  for (int i = 0; i < N; i++) dy[i] = w[i];
  reverse(tape, size, y, dy, x, dx);
  free(junk);
  free(tape);
  fd_grad(loss, NULL, x0, N, fd);
  fd_check_array("dx", dx, fd, N);
  return fd_finish();
}
