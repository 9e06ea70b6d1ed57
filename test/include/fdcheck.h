/* fdcheck.h - header-only helpers for Umbra execution tests.
 *
 * Central finite differences plus a tolerant comparator.  Typical use:
 *
 *   #include "fdcheck.h"
 *   static double f(double x) { return x * x; }
 *   static double f_at(const double *p, void *ctx) { (void)ctx; return f(p[0]); }
 *   int main(void) {
 *     double ad = __enzyme_fwddiff((void *)f, 1.5, 1.0);
 *     double fd = fd_dir(f_at, NULL, (double[]){1.5}, (double[]){1.0}, 1);
 *     fd_check("f", ad, fd);
 *     return fd_finish();
 *   }
 *
 * All FD is done in double.  For a float function, write the FD callback with
 * the same formula in double (sin for sinf, ...) evaluated at the float-rounded
 * inputs, and compare with fd_check_f() (looser tolerance: FD_RTOL_F).  If the
 * formula can only be evaluated in float, use fd_dir_f()/fd_step_f() (large step).
 *
 * Reverse mode: fd_grad(f, ctx, x, n, g) fills g with the full FD gradient
 * (one coordinate at a time) to compare entry by entry with the shadows and
 * returned adjoints, e.g. fd_check_array("dx", dx, g, n).
 *
 * Output: one line per check, "ok <name>: ad=<..> fd=<..>" or
 * "FAIL <name>: ...".  fd_finish() returns the exit code for main().
 *
 * -DFD_SELFTEST (sanity check of a test program without the AD compiler):
 * the derivative-request functions and marker globals get stub definitions,
 * the comparator ignores the AD value, and every FD is computed at two steps
 * (h, h/4) that must agree -- this checks the FD plumbing and that test points
 * are away from kinks.  Stubs exist for the common request prototypes
 * (double __enzyme_autodiff, or void with -DFD_AUTODIFF_VOID; void
 * __enzyme_autodiff_v; ...); a test declaring another prototype (e.g. a
 * struct-returning __enzyme_autodiff_two) defines its own stub under
 * #ifdef FD_SELFTEST.
 */
#ifndef UMBRA_FDCHECK_H
#define UMBRA_FDCHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FD_RTOL
#define FD_RTOL 1e-6
#endif
#ifndef FD_ATOL
#define FD_ATOL 1e-8
#endif
#ifndef FD_RTOL_F
#define FD_RTOL_F 2e-4
#endif
#ifndef FD_ATOL_F
#define FD_ATOL_F 1e-5
#endif

static int fd_failures_ = 0;
static int fd_checks_ = 0;

/* All estimates are central differences with one Richardson extrapolation
 * step, R = (4 D(h/2) - D(h)) / 3 with D(h) = (f(x+h) - f(x-h)) / 2h, whose
 * truncation error is O(h^4); so a fairly large step keeps rounding error
 * small (about 1e-12 relative for h = 1e-4).  Keep test points at least
 * ~1e-3 (relative) away from kinks and branch switch points. */
#ifndef FD_H
#define FD_H 1e-4
#endif
#ifndef FD_H_F
#define FD_H_F 1e-2
#endif

/* Step for a double input of magnitude |x|. */
static inline double fd_step(double x) {
  double ax = fabs(x);
  return FD_H * (ax > 1.0 ? ax : 1.0);
}
/* Step for a float-precision function evaluated at x. */
static inline double fd_step_f(double x) {
  double ax = fabs(x);
  return FD_H_F * (ax > 1.0 ? ax : 1.0);
}

/* Scalar function of a double, with context. */
typedef double (*fd_fn1)(double x, void *ctx);
/* Function of an n-vector returning a scalar. */
typedef double (*fd_fnv)(const double *x, void *ctx);
/* Function of an n-vector writing an m-vector. */
typedef void (*fd_fnvv)(const double *x, double *y, void *ctx);

/* Under -DFD_SELFTEST every FD is computed twice (steps h and h/4) and the
 * two estimates must agree; this validates the test's FD plumbing and that
 * the chosen points are away from kinks, before the AD compiler exists. */
static double fd_selftest_rtol_ = FD_RTOL / 10;
static inline int fd_selftest_check_(double a, double b) {
#ifdef FD_SELFTEST
  double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  if (!(fabs(a - b) <= FD_ATOL / 10 + fd_selftest_rtol_ * scale)) {
    fd_failures_++;
    printf("FAIL selftest: FD unstable under step change: %.17g vs %.17g\n",
           a, b);
    return 0;
  }
#else
  (void)a;
  (void)b;
#endif
  return 1;
}

static inline double fd_deriv1_raw_(fd_fn1 f, void *ctx, double x, double h) {
  double d1 = (f(x + h, ctx) - f(x - h, ctx)) / (2.0 * h);
  double d2 = (f(x + h / 2, ctx) - f(x - h / 2, ctx)) / h;
  return (4.0 * d2 - d1) / 3.0;
}

/* d/dx f at x with step h (h <= 0: automatic). */
static inline double fd_deriv1_h(fd_fn1 f, void *ctx, double x, double h) {
  if (h <= 0) h = fd_step(x);
  double r = fd_deriv1_raw_(f, ctx, x, h);
#ifdef FD_SELFTEST
  fd_selftest_check_(r, fd_deriv1_raw_(f, ctx, x, h / 4));
#endif
  return r;
}
static inline double fd_deriv1(fd_fn1 f, void *ctx, double x) {
  return fd_deriv1_h(f, ctx, x, 0.0);
}

/* Step for a perturbation along v: base * max(1, max|x_i|) / max(1, max|v_i|),
 * so the actual change in x is comparable to fd_step(). */
static inline double fd_dir_step_(const double *x, const double *v, int n,
                                  double base) {
  double mx = 1.0, mv = 1.0;
  for (int i = 0; i < n; i++) {
    if (fabs(x[i]) > mx) mx = fabs(x[i]);
    if (fabs(v[i]) > mv) mv = fabs(v[i]);
  }
  return base * mx / mv;
}

static inline double fd_dir_raw_(fd_fnv f, void *ctx, const double *x,
                                 const double *v, int n, double h) {
  size_t nn = (size_t)(n > 0 ? n : 1);
  double *xp = (double *)malloc(sizeof(double) * nn);
  double *xm = (double *)malloc(sizeof(double) * nn);
  double d[2];
  for (int k = 0; k < 2; k++) {
    double hk = k ? h / 2 : h;
    for (int i = 0; i < n; i++) {
      xp[i] = x[i] + hk * v[i];
      xm[i] = x[i] - hk * v[i];
    }
    d[k] = (f(xp, ctx) - f(xm, ctx)) / (2.0 * hk);
  }
  free(xp);
  free(xm);
  return (4.0 * d[1] - d[0]) / 3.0;
}

/* Directional derivative of scalar f along v: (f(x+hv) - f(x-hv)) / 2h (Richardson-extrapolated).
 * h <= 0 selects an automatic step. */
static inline double fd_dir_h(fd_fnv f, void *ctx, const double *x,
                              const double *v, int n, double h) {
  if (h <= 0) h = fd_dir_step_(x, v, n, FD_H);
  double r = fd_dir_raw_(f, ctx, x, v, n, h);
#ifdef FD_SELFTEST
  fd_selftest_check_(r, fd_dir_raw_(f, ctx, x, v, n, h / 4));
#endif
  return r;
}
static inline double fd_dir(fd_fnv f, void *ctx, const double *x,
                            const double *v, int n) {
  return fd_dir_h(f, ctx, x, v, n, 0.0);
}
/* Same, with a large step suited to functions evaluated in float. */
static inline double fd_dir_f(fd_fnv f, void *ctx, const double *x,
                              const double *v, int n) {
  fd_selftest_rtol_ = FD_RTOL_F / 10;
  double r = fd_dir_h(f, ctx, x, v, n, fd_dir_step_(x, v, n, FD_H_F));
  fd_selftest_rtol_ = FD_RTOL / 10;
  return r;
}

static inline void fd_dir_vec_raw_(fd_fnvv f, void *ctx, const double *x,
                                   const double *v, int n, double *dy, int m,
                                   double h) {
  size_t nn = (size_t)(n > 0 ? n : 1), mm = (size_t)(m > 0 ? m : 1);
  double *xp = (double *)malloc(sizeof(double) * nn);
  double *xm = (double *)malloc(sizeof(double) * nn);
  double *yp = (double *)calloc(mm, sizeof(double));
  double *ym = (double *)calloc(mm, sizeof(double));
  for (int k = 0; k < 2; k++) {
    double hk = k ? h / 2 : h;
    for (int i = 0; i < n; i++) {
      xp[i] = x[i] + hk * v[i];
      xm[i] = x[i] - hk * v[i];
    }
    memset(yp, 0, sizeof(double) * mm);
    memset(ym, 0, sizeof(double) * mm);
    f(xp, yp, ctx);
    f(xm, ym, ctx);
    for (int j = 0; j < m; j++) {
      double dj = (yp[j] - ym[j]) / (2.0 * hk);
      dy[j] = k ? (4.0 * dj - dy[j]) / 3.0 : dj;
    }
  }
  free(xp);
  free(xm);
  free(yp);
  free(ym);
}

/* Directional derivative of vector f (n inputs, m outputs) along v:
 * dy[j] = (y(x+hv)[j] - y(x-hv)[j]) / 2h.  h <= 0: automatic step. */
static inline void fd_dir_vec_h(fd_fnvv f, void *ctx, const double *x,
                                const double *v, int n, double *dy, int m,
                                double h) {
  if (h <= 0) h = fd_dir_step_(x, v, n, FD_H);
  fd_dir_vec_raw_(f, ctx, x, v, n, dy, m, h);
#ifdef FD_SELFTEST
  double *dy2 = (double *)calloc((size_t)(m > 0 ? m : 1), sizeof(double));
  fd_dir_vec_raw_(f, ctx, x, v, n, dy2, m, h / 4);
  for (int j = 0; j < m; j++) fd_selftest_check_(dy[j], dy2[j]);
  free(dy2);
#endif
}
static inline void fd_dir_vec(fd_fnvv f, void *ctx, const double *x,
                              const double *v, int n, double *dy, int m) {
  fd_dir_vec_h(f, ctx, x, v, n, dy, m, 0.0);
}

/* Full gradient of scalar f at x by finite differences, one coordinate at a
 * time (step fd_step(x[i]); fd_grad_f: the large float step). */
typedef struct {
  fd_fnv f;
  void *ctx;
  double *x;
  int i;
} fd_grad_ctx_;
static inline double fd_grad_1_(double t, void *c) {
  fd_grad_ctx_ *g = (fd_grad_ctx_ *)c;
  double saved = g->x[g->i];
  g->x[g->i] = t;
  double r = g->f(g->x, g->ctx);
  g->x[g->i] = saved;
  return r;
}
static inline void fd_grad_h_(fd_fnv f, void *ctx, const double *x, int n,
                              double *g, int flt) {
  double *xc = (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  memcpy(xc, x, sizeof(double) * (size_t)n);
  fd_grad_ctx_ c = {f, ctx, xc, 0};
  if (flt) fd_selftest_rtol_ = FD_RTOL_F / 10;
  for (int i = 0; i < n; i++) {
    c.i = i;
    g[i] = fd_deriv1_h(fd_grad_1_, &c, x[i], flt ? fd_step_f(x[i]) : 0.0);
  }
  fd_selftest_rtol_ = FD_RTOL / 10;
  free(xc);
}
static inline void fd_grad(fd_fnv f, void *ctx, const double *x, int n,
                           double *g) {
  fd_grad_h_(f, ctx, x, n, g, 0);
}
static inline void fd_grad_f(fd_fnv f, void *ctx, const double *x, int n,
                             double *g) {
  fd_grad_h_(f, ctx, x, n, g, 1);
}

/* Compare ad against fd with |ad-fd| <= atol + rtol*max(|ad|,|fd|). An infinite
 * value passes only when both are the same infinity (the bound is infinite then). */
static inline int fd_check_tol(const char *name, double ad, double fd,
                               double rtol, double atol) {
#ifdef FD_SELFTEST
  ad = fd; /* AD values are meaningless under the self-test stubs */
#endif
  double scale = fabs(ad) > fabs(fd) ? fabs(ad) : fabs(fd);
  double err = fabs(ad - fd);
  int ok = !isnan(ad) && !isnan(fd) &&
           (ad == fd || (isfinite(ad) && isfinite(fd) && err <= atol + rtol * scale));
  fd_checks_++;
  if (ok) {
    printf("ok %s: ad=%.12g fd=%.12g\n", name, ad, fd);
  } else {
    fd_failures_++;
    printf("FAIL %s: ad=%.17g fd=%.17g abs.err=%.3g rel.err=%.3g "
           "(rtol=%.3g atol=%.3g)\n",
           name, ad, fd, err, scale > 0 ? err / scale : err, rtol, atol);
  }
  fflush(stdout);
  return ok;
}
static inline int fd_check(const char *name, double ad, double fd) {
  return fd_check_tol(name, ad, fd, FD_RTOL, FD_ATOL);
}
static inline int fd_check_f(const char *name, double ad, double fd) {
  return fd_check_tol(name, ad, fd, FD_RTOL_F, FD_ATOL_F);
}
/* Exact comparison (e.g. a derivative that must be exactly zero). */
static inline int fd_check_exact(const char *name, double ad, double expect) {
  return fd_check_tol(name, ad, expect, 0.0, 0.0);
}
/* Element-wise comparison of arrays.  Up to 16 elements: one line per
 * element, "name[i]".  Longer arrays: every element is checked but only the
 * failing ones (at most 10) and one summary line are printed. */
static inline int fd_check_array(const char *name, const double *ad,
                                 const double *fd, int n) {
  char buf[160];
  int ok = 1;
  if (n <= 16) {
    for (int i = 0; i < n; i++) {
      snprintf(buf, sizeof buf, "%s[%d]", name, i);
      ok &= fd_check(buf, ad[i], fd[i]);
    }
    return ok;
  }
  int bad = 0, worst = 0;
  double worst_err = -1;
  for (int i = 0; i < n; i++) {
    double a = ad[i], f = fd[i];
#ifdef FD_SELFTEST
    a = f;
#endif
    double scale = fabs(a) > fabs(f) ? fabs(a) : fabs(f);
    double err = fabs(a - f) / (FD_ATOL + FD_RTOL * scale);
    if (isnan(err)) err = INFINITY;
    if (err > worst_err) { worst_err = err; worst = i; }
    if (!(err <= 1.0)) {
      if (bad++ < 10) {
        snprintf(buf, sizeof buf, "%s[%d]", name, i);
        fd_check(buf, ad[i], fd[i]);
        fd_checks_--; /* counted once below */
        fd_failures_--;
      }
      ok = 0;
    }
  }
  snprintf(buf, sizeof buf, "%s[0..%d) (%d bad; worst at [%d])", name, n, bad,
           worst);
  fd_checks_++;
  if (ok) {
    printf("ok %s: ad=%.12g fd=%.12g\n", buf, ad[worst], fd[worst]);
  } else {
    fd_failures_++;
    printf("FAIL %s: ad=%.17g fd=%.17g\n", buf, ad[worst], fd[worst]);
  }
  fflush(stdout);
  return ok;
}

/* Exit code for main: 0 iff every check passed (and at least one ran). */
static inline int fd_finish(void) {
  if (fd_checks_ == 0) {
    printf("FAIL: no checks were run\n");
    return 2;
  }
  if (fd_failures_) {
    printf("%d of %d checks FAILED\n", fd_failures_, fd_checks_);
    return 1;
  }
  printf("all %d checks passed\n", fd_checks_);
  return 0;
}

/* Self-test stubs: the derivative requests do nothing (results ignored).
 * Marker globals get definitions so the program links without Umbra. */
#ifdef FD_SELFTEST
/* C linkage in C++ too, matching the `extern "C"` declarations C++ tests make. */
#ifdef __cplusplus
extern "C" {
#endif
int enzyme_dup, enzyme_const, enzyme_dupnoneed, enzyme_out;
int umbra_dup, umbra_const, umbra_dupnoneed, umbra_out;
#ifdef FD_FWDDIFF_VOID /* test declares: void __enzyme_fwddiff(void *, ...) */
void __enzyme_fwddiff(void *f, ...) { (void)f; }
#else
double __enzyme_fwddiff(void *f, ...) { (void)f; return 0; }
#endif
float __enzyme_fwddiff_f(void *f, ...) { (void)f; return 0; }
void __enzyme_fwddiff_v(void *f, ...) { (void)f; }
double __umbra_fwddiff(void *f, ...) { (void)f; return 0; }
float __umbra_fwddiff_f(void *f, ...) { (void)f; return 0; }
#ifdef FD_AUTODIFF_VOID /* test declares: void __enzyme_autodiff(void *, ...) */
void __enzyme_autodiff(void *f, ...) { (void)f; }
#else
double __enzyme_autodiff(void *f, ...) { (void)f; return 0; }
#endif
double __umbra_autodiff(void *f, ...) { (void)f; return 0; }
void __enzyme_autodiff_v(void *f, ...) { (void)f; }
#ifdef __cplusplus
}
#endif
#endif

#endif /* UMBRA_FDCHECK_H */
