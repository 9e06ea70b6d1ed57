// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -fopenmp
// EXEC-LDFLAGS: -fopenmp
// The tape pool with OpenMP (issue 27): each thread of a parallel region records on a tape of
// its own, which must not cost fresh pages on every gradient call either. A region's per-thread
// tapes start with one chunk as large as the region's tapes have grown (a hint of the region's
// own), and every thread keeps two spares, because the main thread holds the gradient's tape and
// its own tape of the region at once. Before: the per-thread tapes grew chunk by chunk from
// nothing on every call and all chunks but the largest came fresh from the system (about 1,800
// page faults per call here). Checked with 1 and 2 threads: calls after the warm-up fault in
// (almost) no pages, and the gradient agrees with finite differences.
#include "fdcheck.h"
#include <malloc.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void __enzyme_autodiff(void *, ...);
void umbra_release_tapes(void);

// C independent chains of L steps (8 bytes of tape per step): 16 MiB of tapes in all.
enum { C = 8, L = 1 << 18, N = C * L };

__attribute__((noinline)) double chains(const double *x) {
  double total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static)
  for (int c = 0; c < C; c++) {
    double s = 0.5;
    for (int j = 0; j < L; j++) s = sin(s + x[c * L + j]);
    total += s;
  }
  return total;
}

static double *x, *dx;

static void gradient(void) {
  memset(dx, 0, N * sizeof(double));
  __enzyme_autodiff((void *)chains, x, dx);
}

static long faults(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

static double chains_at(double t, void *ctx) {
  int k = *(int *)ctx;
  double keep = x[k];
  x[k] = t;
  double r = chains(x);
  x[k] = keep;
  return r;
}

int main(void) {
  // Every block of 1 MiB or more is mapped on its own, and given back when freed.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  x = malloc(N * sizeof(double));
  dx = malloc(N * sizeof(double));
  for (int i = 0; i < N; i++) x[i] = 0.3 * sin(0.001 * i);
  for (int threads = 1; threads <= 2; threads++) {
    omp_set_num_threads(threads);
    gradient();
    // The last steps of the first and the last chain (earlier steps' derivatives die away).
    int ks[] = {L - 1, L - 2, N - 1, N - 3};
    for (int j = 0; j < 4; j++)
      fd_check("gradient", dx[ks[j]], fd_deriv1(chains_at, &ks[j], x[ks[j]]));
    gradient();
    gradient();
    long before = faults();
    gradient();
    gradient();
    long steady = (faults() - before) / 2;
    printf("%d thread(s): page faults per call in steady state: %ld\n", threads, steady);
    fd_check_exact("steady-state calls fault in under 256 pages", steady < 256, 1);
  }
  umbra_release_tapes();
  free(x);
  free(dx);
  return fd_finish();
}
