// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s plugin 3 %t
// A tape that grows through several chunks on its first call starts the next calls from one
// chunk as large as it then held (the hint, tape-hint-settles.c); the chunks it outgrew are
// given back to the system when the adjoint pops them, not kept as spares nobody asks for
// again. Before, they stayed in the pool and resident: a hydrodynamics step's first call grew
// through five chunks, the later ones used only the largest, and the other four (104 MB) made
// its peak memory 80 MB larger than its tape. Checked through glibc's accounting (blocks of
// 1 MiB or more are mapped on their own here, so `hblkhd` counts what they hold), with the
// gradient against finite differences.
#include "fdcheck.h"
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

void __enzyme_autodiff(void *, ...);
void umbra_release_tapes(void);

enum { N = 1 << 20, M = 3 * N / 2 };
/* What one call's tape holds: recurrences of N, 3N/2 and 3N/5 steps, 8 bytes each. The first
 * fills a chunk, the second a chunk twice as large, the third a third chunk of twice that:
 * 3.1 N doubles held, in chunks of 7 N doubles. */
static const size_t HELD = (size_t)(N + M + 3 * N / 5) * sizeof(double);

__attribute__((noinline)) double chain(const double *x, int n, double s) {
  for (int i = 0; i < n; i++) s = sin(s + x[i]);
  return s;
}

double f(const double *x, int n) {
  double a = chain(x, n, 0.5);
  double b = chain(x, 3 * n / 2, a);
  return chain(x, 3 * n / 5, b);
}

static double *x, *dx;
static size_t mapped(void) { return mallinfo2().hblkhd; }

static double f_at(double t, void *ctx) {
  int k = *(int *)ctx;
  double keep = x[k];
  x[k] = t;
  double r = f(x, N);
  x[k] = keep;
  return r;
}

int main(void) {
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  x = malloc(M * sizeof(double));
  dx = malloc(M * sizeof(double));
  for (int i = 0; i < M; i++) x[i] = 0.3 * sin(0.001 * i);
  size_t base = mapped();
  for (int call = 1; call <= 3; call++) {
    memset(dx, 0, M * sizeof(double));
    __enzyme_autodiff((void *)f, x, dx, N);
    printf("after call %d: the pool holds %zu bytes (one call's tape: %zu)\n", call,
           mapped() - base, HELD);
  }
  int ks[] = {3 * N / 5 - 2, 3 * N / 5 - 1}; // earlier steps' derivatives die away
  for (int j = 0; j < 2; j++)
    fd_check("gradient", dx[ks[j]], fd_deriv1(f_at, &ks[j], x[ks[j]]));
  size_t held = mapped() - base;
  fd_check_exact("the pool keeps one chunk for the tape, not the ones it outgrew",
                 held >= HELD && held < HELD + HELD / 2, 1);
  umbra_release_tapes();
  fd_check_exact("umbra_release_tapes gives it back", mapped() == base, 1);
  free(x);
  free(dx);
  return fd_finish();
}
