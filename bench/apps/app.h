/*
 * app.h - what the application benchmarks (bench/apps/, run by bench/apps/run.sh) share.
 *
 * Each application is one program, built with `umbra -O3 --tape-stats`, that
 *   1. checks its gradient against central finite differences along a few random directions
 *      (<grad, v> against (f(x + h v) - f(x - h v)) / 2h), and exits non-zero when one fails;
 *   2. times the primal and the gradient, alternating, each the median of APP_ROUNDS;
 *   3. prints one line `app NAME primal_s P grad_s G ratio R tape_bytes T grad_sys S` on
 *      stdout, S being the system time's share of the timed gradient calls' CPU time (steady
 *      state: the warm-up call is not counted; all threads, getrusage).
 * run.sh adds peak RSS and the system-time share of the whole run (/usr/bin/time).
 */
#ifndef UMBRA_APP_H
#define UMBRA_APP_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

#ifndef APP_ROUNDS
#define APP_ROUNDS 7
#endif

/* The largest tape a gradient held (umbra --tape-stats calls this between the sweeps). */
static long long app_tape_bytes_;
void umbra_tape_stats(long long bytes) {
  if (bytes > app_tape_bytes_) app_tape_bytes_ = bytes;
}

static inline double app_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* User and system CPU seconds of the process so far (all threads). */
static inline void app_cpu(double *user, double *sys) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  *user = u.ru_utime.tv_sec + 1e-6 * u.ru_utime.tv_usec;
  *sys = u.ru_stime.tv_sec + 1e-6 * u.ru_stime.tv_usec;
}

/* System time's share of the timed gradient calls' CPU time (set by app_time). */
static double app_grad_sys_;

static int app_cmp_(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Times `primal(ctx)` and `grad(ctx)` alternately, APP_ROUNDS each; medians in seconds. */
static inline void app_time(void (*primal)(void *), void (*grad)(void *), void *ctx,
                            double *primal_s, double *grad_s) {
  double p[APP_ROUNDS], g[APP_ROUNDS], user = 0, sys = 0;
  primal(ctx); /* warm up: first touches, the tape's size hint */
  grad(ctx);
  for (int r = 0; r < APP_ROUNDS; r++) {
    double t0 = app_now();
    primal(ctx);
    double u0, s0, u1, s1;
    app_cpu(&u0, &s0);
    double t1 = app_now();
    grad(ctx);
    double t2 = app_now();
    app_cpu(&u1, &s1);
    user += u1 - u0;
    sys += s1 - s0;
    p[r] = t1 - t0;
    g[r] = t2 - t1;
  }
  app_grad_sys_ = user + sys > 0 ? sys / (user + sys) : 0;
  qsort(p, APP_ROUNDS, sizeof *p, app_cmp_);
  qsort(g, APP_ROUNDS, sizeof *g, app_cmp_);
  *primal_s = p[APP_ROUNDS / 2];
  *grad_s = g[APP_ROUNDS / 2];
}

/* Compares a directional derivative from AD with a central difference; prints and counts. */
static int app_failures_;
static inline void app_check(const char *what, double ad, double fd, double rtol) {
  double err = fabs(ad - fd), scale = fmax(fabs(ad), fabs(fd));
  int ok = err <= rtol * scale + 1e-12;
  fprintf(stderr, "%s %s: ad %.10g fd %.10g rel.err %.2e\n", ok ? "ok" : "FAIL", what, ad, fd,
          scale > 0 ? err / scale : err);
  if (!ok) app_failures_++;
}

static inline void app_report(const char *name, double primal_s, double grad_s) {
  printf("app %s primal_s %.6g grad_s %.6g ratio %.3f tape_bytes %lld grad_sys %.4f\n", name,
         primal_s, grad_s, grad_s / primal_s, app_tape_bytes_, app_grad_sys_);
}

/* A reproducible pseudo-random number in [0, 1). */
static inline double app_rand(unsigned long long *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*state >> 11) / 9007199254740992.0;
}

#ifdef __cplusplus
}
#endif
#endif
