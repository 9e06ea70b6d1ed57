// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-LDFLAGS: -lpthread
// The tape's chunks outlive the gradient call (reverse/tape_pool.rs): each thread keeps the
// largest chunk given back as a spare, and the next call reuses its pages instead of mapping
// and faulting in fresh ones. Checked through glibc's own accounting (every block of 1 MiB or
// more is mapped on its own here, so `hblkhd` counts the bytes blocks hold):
// - calls after the first two fault in (almost) no pages, and the spare stays mapped between
//   calls;
// - umbra_release_tapes() gives the calling thread's spare back;
// - a thread that ran a gradient gives its spare back when it exits;
// - with UMBRA_TAPE_KEEP=0 (tape-pool-keep.c) nothing is kept.
// The gradient (a recurrence: 8 bytes of tape per step, 16 MiB) is checked against finite
// differences.
#include "fdcheck.h"
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void __enzyme_autodiff(void *, ...);
void umbra_release_tapes(void);

enum { N = 2 << 20 };
static const size_t TAPE = (size_t)N * sizeof(double);

__attribute__((noinline)) double chain(const double *x, int n) {
  double s = 0.5;
  for (int i = 0; i < n; i++) s = sin(s + x[i]);
  return s;
}

static double *x, *dx;

static void gradient(void) {
  memset(dx, 0, N * sizeof(double));
  __enzyme_autodiff((void *)chain, x, dx, N);
}

static long faults(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

static size_t mapped(void) { return mallinfo2().hblkhd; }

static void *in_thread(void *arg) {
  (void)arg;
  double *tdx = calloc(N, sizeof(double));
  __enzyme_autodiff((void *)chain, x, tdx, N);
  free(tdx);
  return NULL;
}

static double chain_at(double t, void *ctx) {
  int k = *(int *)ctx;
  double keep = x[k];
  x[k] = t;
  double r = chain(x, N);
  x[k] = keep;
  return r;
}

int main(void) {
#ifdef KEEP_NONE
  setenv("UMBRA_TAPE_KEEP", "0", 1);
#endif
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  x = malloc(N * sizeof(double));
  dx = malloc(N * sizeof(double));
  for (int i = 0; i < N; i++) x[i] = 0.3 * sin(0.001 * i);
  memset(dx, 0, N * sizeof(double));
  size_t base = mapped();

  gradient();
  int ks[] = {N - 3, N - 2, N - 1}; // earlier steps' derivatives have died away
  for (int j = 0; j < 3; j++)
    fd_check("gradient", dx[ks[j]], fd_deriv1(chain_at, &ks[j], x[ks[j]]));
  gradient();
  long before = faults();
  gradient();
  gradient();
  long steady = (faults() - before) / 2;
#ifdef KEEP_NONE
  fd_check_exact("nothing kept with UMBRA_TAPE_KEEP=0", mapped() == base, 1);
#else
  printf("page faults per call in steady state: %ld\n", steady);
  fd_check_exact("steady-state calls fault in under 256 pages", steady < 256, 1);
  fd_check_exact("the spare stays between calls", mapped() >= base + TAPE, 1);
  umbra_release_tapes();
  fd_check_exact("umbra_release_tapes gives it back", mapped() == base, 1);
  umbra_release_tapes(); // nothing left: harmless
#endif
  pthread_t t;
  pthread_create(&t, NULL, in_thread, NULL);
  pthread_join(t, NULL);
  fd_check_exact("a thread's spare goes back when it exits", mapped() == base, 1);
  free(x);
  free(dx);
  return fd_finish();
}
