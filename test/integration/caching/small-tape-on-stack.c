// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-LDFLAGS: -Wl,--wrap=malloc,--wrap=free
// A gradient whose tape fits in 4 KiB keeps it in the requesting function's frame: evaluated
// many times, it calls malloc and free not at all. A gradient whose tape outgrows that chunk
// on its first evaluation continues on the heap, and later evaluations start on one heap chunk
// as large as it needed (the hint), which the thread keeps as its spare between evaluations
// (tape/pool.rs): once the hint is known, an evaluation calls malloc not at all, and
// every chunk but the spare is freed; umbra_release_tapes() frees the spare. Both gradients
// are checked against finite differences.
#include "fdcheck.h"
#include <stddef.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void umbra_release_tapes(void);

static long mallocs, frees;
void *__real_malloc(size_t);
void __real_free(void *);
void *__wrap_malloc(size_t n) {
  mallocs++;
  return __real_malloc(n);
}
void __wrap_free(void *p) {
  if (p) frees++;
  __real_free(p);
}

// Overwrites what it reads: each iteration tapes a value (8 bytes).
__attribute__((noinline)) double f(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double t = x[i];
    x[i] = sin(t);
    s += t * x[i];
  }
  return s;
}

enum { SMALL = 8, LARGE = 1000 };
static double xs[LARGE];
static void gradient(const double *x0, double *d, int n) {
  double *x = xs;
  for (int i = 0; i < n; i++) x[i] = x0[i], d[i] = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, n);
}
static double copy[LARGE];
static double f_at(const double *x0, void *c) {
  int n = *(int *)c;
  for (int i = 0; i < n; i++) copy[i] = x0[i];
  return f(copy, n);
}

int main(void) {
  static double x[LARGE], d[LARGE], fd[LARGE];
  for (int i = 0; i < LARGE; i++) x[i] = 0.3 + 0.001 * i;
  int n = SMALL;
  long m0 = mallocs;
  for (int k = 0; k < 100; k++) gradient(x, d, SMALL);
  fd_check("small tape: mallocs in 100 gradients", (double)(mallocs - m0), 0);
  fd_grad(f_at, &n, x, SMALL, fd);
  fd_check_array("small tape gradient", d, fd, SMALL);

  n = LARGE;
  m0 = mallocs;
  long f0 = frees;
  for (int k = 0; k < 10; k++) gradient(x, d, LARGE);
  fd_check("large tape: every chunk but the spare freed", (double)(mallocs - m0 - (frees - f0)),
           1);
  long m1 = mallocs;
  gradient(x, d, LARGE);
  fd_check("large tape: no malloc once the hint is known", (double)(mallocs - m1), 0);
  umbra_release_tapes();
  fd_check("large tape: umbra_release_tapes frees the spare", (double)(frees - f0),
           (double)(mallocs - m0));
  fd_grad(f_at, &n, x, LARGE, fd);
  fd_check_array("large tape gradient", d, fd, LARGE);
  return fd_finish();
}
