/*
 * harness.c - checks, then times, one benchmark (see bench.h and /work/shared/BENCHMARKS.md).
 *
 *   bench-<name> [--check] [--umbra-failed REASON] [--failures FILE]
 *   bench-<name> --repeat TOOL MODE N
 *
 * First every gradient is checked: the hand gradient against central finite differences, then
 * umbra's, ADOL-C's and the finite-difference gradient against the hand gradient, and the
 * tangents against <hand gradient, v>. A column that fails its check is not timed; it is
 * reported (stderr, and a `benchmark,tool,mode,reason` row appended to FILE) instead.
 * REASON says why umbra's gradient or tangent is missing from this build (umbra's error): that
 * is reported the same way, but only wrong results and crashes fail --check.
 * With --check that is all. Otherwise the columns that passed are timed interleaved (one batch
 * of each per round, so drifting machine load hits all of them alike): each batch runs at least
 * MIN_BATCH_S, and the median over ROUNDS rounds is printed on stdout as CSV rows
 * `benchmark,tool,mode,seconds_per_call,ratio_to_primal`.
 * --repeat runs one column (primal primal, hand grad, umbra grad or umbra tangent) N times and
 * nothing else, no check and no timing: for `perf stat -e cycles,instructions` and `perf record`,
 * whose counts then belong to that column alone (check the build with --check first).
 */
#include "bench.h"

#include <adolc/drivers/drivers.h>
#include <malloc.h>
#include <adolc/interfaces.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { ROUNDS = 11, TAG_REPLAY = 1, TAG_RETAPE = 2, FD_MAX_INPUTS = 128 };
static const double MIN_BATCH_S = 0.05;
static const double AD_TOL = 1e-8; /* AD tools agree with the hand gradient to rounding */
static const double FD_TOL = 1e-5; /* finite differences only to truncation error */

/* Umbra's entry points are missing when the build script had to leave them out. */
#pragma weak bench_umbra_grad
#pragma weak bench_umbra_tangent

static int n;
static double *x, *v, *g, *g_hand, *xp;
static volatile double sink; /* keeps timed results alive */
static const char *failures_path;

static int failed, refused;

/* Memory: the benchmark's object is linked with --wrap for malloc, calloc, realloc and free
 * (bench/run.sh), so the heap it uses while `counting` is tracked: live bytes and their peak.
 * Umbra reports its tape's size through umbra_tape_stats (umbra --tape-stats). */
void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void __real_free(void *);
static int counting;
static long long live_bytes, peak_bytes, tape_bytes;

static void *counted(void *p) {
  if (counting && p) {
    live_bytes += (long long)malloc_usable_size(p);
    if (live_bytes > peak_bytes)
      peak_bytes = live_bytes;
  }
  return p;
}
static void uncount(void *p) {
  if (counting && p)
    live_bytes -= (long long)malloc_usable_size(p);
}
void *__wrap_malloc(size_t n) { return counted(__real_malloc(n)); }
void *__wrap_calloc(size_t k, size_t n) { return counted(__real_calloc(k, n)); }
void *__wrap_realloc(void *p, size_t n) {
  uncount(p);
  return counted(__real_realloc(p, n));
}
void __wrap_free(void *p) {
  uncount(p);
  __real_free(p);
}
void umbra_tape_stats(long long bytes) {
  if (bytes > tape_bytes)
    tape_bytes = bytes;
}

/* The peak heap bytes one call of `run` allocates beyond what was live before it. */
static long long peak_heap_of(void (*run)(void)) {
  live_bytes = peak_bytes = 0;
  counting = 1;
  run();
  counting = 0;
  return peak_bytes;
}

static void report(const char *tool, const char *mode, const char *reason) {
  fprintf(stderr, "%s: %s %s: %s\n", bench_name, tool, mode, reason);
  if (!failures_path)
    return;
  FILE *f = fopen(failures_path, "a");
  if (!f)
    return;
  fprintf(f, "%s,%s,%s,\"", bench_name, tool, mode);
  for (const char *c = reason; *c; c++) {
    if (*c == '"') /* CSV: a quote inside quotes is doubled */
      fputc('"', f);
    fputc(*c, f);
  }
  fputs("\"\n", f);
  fclose(f);
}

/* A column that cannot be trusted: reported, and with --check the exit status says so. */
static void fail(const char *tool, const char *mode, const char *reason) {
  failed = 1;
  report(tool, mode, reason);
}

/* A column umbra refused to build, with its error message: reported in the table, but not a
 * wrong result, so not a failed check. */
static void refuse(const char *tool, const char *mode, const char *reason) {
  refused = 1;
  report(tool, mode, reason);
}

static double dot(const double *a, const double *b) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* Central difference of the primal at x along d, step h. */
static double central_difference(const double *d, double h) {
  for (int i = 0; i < n; i++)
    xp[i] = x[i] + h * d[i];
  double fp = bench_primal(xp);
  for (int i = 0; i < n; i++)
    xp[i] = x[i] - h * d[i];
  return (fp - bench_primal(xp)) / (2 * h);
}

/* Finite differences are only good to truncation error, plus the rounding error of f itself
 * (about eps * |f| / h, given generous room below). */
static int fd_agrees(double fd, const double *d, double f) {
  double scale = 0;
  for (int i = 0; i < n; i++)
    scale += fabs(g_hand[i] * d[i]);
  return fabs(fd - dot(g_hand, d)) <= FD_TOL * scale + 1e-8 * fabs(f);
}

/* The hand gradient along a random direction and along up to 8 coordinate axes. */
static int check_hand(void) {
  bench_hand_grad(x, g_hand);
  double f = bench_primal(x), h = 1e-6;
  char why[160];
  if (!fd_agrees(central_difference(v, h), v, f)) {
    snprintf(why, sizeof why, "directional derivative %.10g, finite differences %.10g",
             dot(g_hand, v), central_difference(v, h));
    fail("hand", "grad", why);
    return 0;
  }
  double *e = calloc(n, sizeof *e);
  int ok = 1;
  for (int k = 0; k < 8 && k < n && ok; k++) {
    int i = (int)((long)k * n / (n < 8 ? n : 8));
    e[i] = 1;
    double fd = central_difference(e, h);
    if (!fd_agrees(fd, e, f)) {
      snprintf(why, sizeof why, "d/dx[%d] = %.10g, finite differences %.10g", i, g_hand[i], fd);
      fail("hand", "grad", why);
      ok = 0;
    }
    e[i] = 0;
  }
  free(e);
  return ok;
}

/* Relative error of a gradient against the hand gradient, in the max norm. */
static int grad_agrees(const char *tool, const char *mode, const double *got, double tol) {
  double err = 0, scale = 0;
  int worst = 0;
  for (int i = 0; i < n; i++) {
    if (!(fabs(got[i] - g_hand[i]) <= err)) { /* also catches NaN */
      err = fabs(got[i] - g_hand[i]);
      worst = i;
    }
    scale = fmax(scale, fabs(g_hand[i]));
  }
  if (err <= tol * fmax(scale, 1e-300))
    return 1;
  char why[160];
  snprintf(why, sizeof why, "gradient[%d] = %.12g but the hand gradient has %.12g", worst,
           got[worst], g_hand[worst]);
  fail(tool, mode, why);
  return 0;
}

static int tangent_agrees(const char *tool, double got) {
  double want = dot(g_hand, v), scale = 0;
  for (int i = 0; i < n; i++)
    scale += fabs(g_hand[i] * v[i]);
  if (fabs(got - want) <= AD_TOL * scale)
    return 1;
  char why[160];
  snprintf(why, sizeof why, "tangent %.12g but <hand gradient, v> = %.12g", got, want);
  fail(tool, "tangent", why);
  return 0;
}

/* Runs f once in a child process first, so code that crashes fails one column, not the suite. */
static int survives(void (*f)(void), const char *tool, const char *mode) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    f();
    _exit(0);
  }
  int status;
  if (pid < 0 || waitpid(pid, &status, 0) < 0)
    return 1; /* cannot isolate it: let the check in this process decide */
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return 1;
  char why[64];
  if (WIFSIGNALED(status))
    snprintf(why, sizeof why, "crashed: %s", strsignal(WTERMSIG(status)));
  else
    snprintf(why, sizeof why, "exited with status %d", WEXITSTATUS(status));
  fail(tool, mode, why);
  return 0;
}

/* The timed operations, on the globals above. */
static void run_primal(void) { sink = bench_primal(x); }
static void run_hand_grad(void) { bench_hand_grad(x, g); }
static void run_umbra_grad(void) { bench_umbra_grad(x, g); }
static void run_umbra_tangent(void) { sink = bench_umbra_tangent(x, v); }
static void run_adolc_grad(void) { gradient(TAG_REPLAY, n, x, g); }
static void run_adolc_tape_grad(void) {
  bench_adolc_tape(TAG_RETAPE, x);
  gradient(TAG_RETAPE, n, x, g);
}
static void run_adolc_tangent(void) {
  double y, dy;
  fos_forward(TAG_REPLAY, 1, n, 0, x, v, &y, &dy);
  sink = dy;
}
static void run_fd_grad(void) {
  for (int i = 0; i < n; i++) {
    double h = 1e-6 * fmax(1, fabs(x[i])), xi = x[i];
    x[i] = xi + h;
    double fp = bench_primal(x);
    x[i] = xi - h;
    g[i] = (fp - bench_primal(x)) / (2 * h);
    x[i] = xi;
  }
}

struct column {
  const char *tool, *mode;
  void (*run)(void);
  long batch;       /* calls per timed batch */
  double t[ROUNDS]; /* seconds per call, one per round */
};

static struct column columns[8];
static int ncolumns;

static void add(const char *tool, const char *mode, void (*run)(void)) {
  columns[ncolumns++] = (struct column){tool, mode, run, 1, {0}};
}

/* Every column that passes its check is added for timing. */
static void check_all(const char *umbra_failed) {
  add("primal", "primal", run_primal);
  add("hand", "grad", run_hand_grad);
  if (bench_umbra_grad && survives(run_umbra_grad, "umbra", "grad")) {
    memset(g, 0x7f, sizeof *g * n); /* the wrapper must overwrite, not accumulate */
    bench_umbra_grad(x, g);
    if (grad_agrees("umbra", "grad", g, AD_TOL))
      add("umbra", "grad", run_umbra_grad);
  } else if (!bench_umbra_grad) {
    refuse("umbra", "grad", umbra_failed ? umbra_failed : "not built");
  }
  if (bench_umbra_tangent && survives(run_umbra_tangent, "umbra", "tangent")) {
    if (tangent_agrees("umbra", bench_umbra_tangent(x, v)))
      add("umbra", "tangent", run_umbra_tangent);
  } else if (!bench_umbra_tangent) {
    refuse("umbra", "tangent", umbra_failed ? umbra_failed : "not built");
  }
  bench_adolc_tape(TAG_REPLAY, x);
  if (gradient(TAG_REPLAY, n, x, g) < 0)
    fail("adolc", "grad", "gradient() returned an error");
  else if (grad_agrees("adolc", "grad", g, AD_TOL))
    add("adolc", "grad", run_adolc_grad);
  run_adolc_tape_grad();
  if (grad_agrees("adolc", "tape+grad", g, AD_TOL))
    add("adolc", "tape+grad", run_adolc_tape_grad);
  double y, dy;
  fos_forward(TAG_REPLAY, 1, n, 0, x, v, &y, &dy);
  if (tangent_agrees("adolc", dy))
    add("adolc", "tangent", run_adolc_tangent);
  if (n <= FD_MAX_INPUTS) {
    run_fd_grad();
    if (grad_agrees("fd", "grad", g, FD_TOL))
      add("fd", "grad", run_fd_grad);
  }
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double time_batch(struct column *c) {
  double t0 = now();
  for (long i = 0; i < c->batch; i++)
    c->run();
  return now() - t0;
}

static int by_value(const void *a, const void *b) {
  double d = *(const double *)a - *(const double *)b;
  return (d > 0) - (d < 0);
}

static double median(const double *t) {
  double s[ROUNDS];
  memcpy(s, t, sizeof s);
  qsort(s, ROUNDS, sizeof *s, by_value);
  return s[ROUNDS / 2];
}

/* The memory columns: umbra's peak tape bytes and peak heap use next to the hand gradient's
 * peak heap use (what a gradient keeps besides its inputs and outputs), as CSV rows whose
 * `seconds_per_call` field holds bytes. */
static void memory_rows(void) {
  long long hand = peak_heap_of(run_hand_grad);
  printf("%s,hand,heap_bytes,%lld,0\n", bench_name, hand);
  int umbra_timed = 0;
  for (int c = 0; c < ncolumns; c++)
    umbra_timed |= !strcmp(columns[c].tool, "umbra") && !strcmp(columns[c].mode, "grad");
  if (umbra_timed) {
    tape_bytes = 0;
    long long heap = peak_heap_of(run_umbra_grad);
    printf("%s,umbra,tape_bytes,%lld,0\n", bench_name, tape_bytes);
    printf("%s,umbra,heap_bytes,%lld,0\n", bench_name, heap);
  }
}

static void time_all(void) {
  for (int c = 0; c < ncolumns; c++) { /* size batches: double until one takes MIN_BATCH_S */
    double t;
    while ((t = time_batch(&columns[c])) < MIN_BATCH_S)
      columns[c].batch = t > 0 ? (long)(columns[c].batch * fmin(2 * MIN_BATCH_S / t, 64)) + 1
                               : columns[c].batch * 2;
  }
  for (int r = 0; r < ROUNDS; r++)
    for (int c = 0; c < ncolumns; c++)
      columns[c].t[r] = time_batch(&columns[c]) / columns[c].batch;
  double primal = median(columns[0].t);
  for (int c = 0; c < ncolumns; c++) {
    double m = median(columns[c].t);
    printf("%s,%s,%s,%.6e,%.4f\n", bench_name, columns[c].tool, columns[c].mode, m, m / primal);
  }
}

/* --repeat TOOL MODE N: the column's operation N times (0 when there is no such column). */
static int repeat(const char *tool, const char *mode, long times) {
  static const struct {
    const char *tool, *mode;
    void (*run)(void);
  } runs[] = {{"primal", "primal", run_primal},
              {"hand", "grad", run_hand_grad},
              {"umbra", "grad", run_umbra_grad},
              {"umbra", "tangent", run_umbra_tangent}};
  for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
    if (strcmp(runs[r].tool, tool) || strcmp(runs[r].mode, mode))
      continue;
    if ((runs[r].run == run_umbra_grad && !bench_umbra_grad) ||
        (runs[r].run == run_umbra_tangent && !bench_umbra_tangent))
      break;
    for (long i = 0; i < times; i++)
      runs[r].run();
    return 1;
  }
  fprintf(stderr, "%s: no column %s %s to repeat\n", bench_name, tool, mode);
  return 0;
}

int main(int argc, char **argv) {
  int check_only = 0;
  const char *umbra_failed = NULL;
  const char *repeat_tool = NULL, *repeat_mode = NULL;
  long repeat_times = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--repeat") && i + 3 < argc) {
      repeat_tool = argv[++i];
      repeat_mode = argv[++i];
      repeat_times = atol(argv[++i]);
    } else if (!strcmp(argv[i], "--check"))
      check_only = 1;
    else if (!strcmp(argv[i], "--umbra-failed") && i + 1 < argc)
      umbra_failed = argv[++i];
    else if (!strcmp(argv[i], "--failures") && i + 1 < argc)
      failures_path = argv[++i];
    else {
      fprintf(stderr,
              "usage: %s [--check] [--umbra-failed REASON] [--failures FILE]\n"
              "       %s --repeat TOOL MODE N\n",
              argv[0], argv[0]);
      return 2;
    }
  }
  n = bench_n;
  x = malloc(sizeof *x * n);
  v = malloc(sizeof *v * n);
  g = malloc(sizeof *g * n);
  g_hand = malloc(sizeof *g_hand * n);
  xp = malloc(sizeof *xp * n);
  bench_init(x);
  bench_fill(v, n, 42, -1, 1);
  if (repeat_tool)
    return repeat(repeat_tool, repeat_mode, repeat_times) ? 0 : 2;
  /* Without a trustworthy reference nothing can be checked, so nothing is timed. */
  if (!check_hand())
    return 1;
  check_all(umbra_failed);
  if (check_only) {
    fprintf(stderr, "%s: %s (n = %d)\n", bench_name,
            failed ? "FAILED" : refused ? "ok, but umbra refused a request" : "ok", n);
    return failed;
  }
  time_all();
  memory_rows();
  return 0;
}
