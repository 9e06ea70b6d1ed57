// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-LDFLAGS: -fsanitize=leak
// A gradient whose forward sweep throws after allocating (operator new[] in a callee whose
// block the caller owns, malloc, std::vector growth), caught around the request, many times:
// the unwinding path must free the tape's chunks and every shadow block the forward sweep
// allocated (LeakSanitizer fails the run at exit otherwise). Also in split mode (the forward
// sweep __enzyme_augmentfwd throws). When nothing is thrown the gradient is still checked
// against finite differences. Regression: the tape and the shadows leaked on every throw.
#include <memory>
#include <stdexcept>
#include <vector>
#include "fdcheck.h"

extern "C" {
double __enzyme_autodiff(void *, ...);
void __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_allocated, enzyme_tape;
}

enum { N = 6 };
static const double LIMIT = 8.0;

// A block the caller owns (its shadow escapes the callee's forward sweep).
__attribute__((noinline)) static double *scaled(const double *x, int n) {
  double *t = new double[n];
  for (int i = 0; i < n; i++)
    t[i] = 1.5 * x[i];
  return t;
}

__attribute__((noinline)) static void check(double s) {
  if (!(s < LIMIT))
    throw std::domain_error("too large");
}

// Throws (from a callee, after every allocation) when the sum reaches LIMIT.
static double f(const double *x, int n) {
  std::unique_ptr<double[]> t(scaled(x, n));
  std::vector<double> v;
  double *w = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) {
    w[i] = sin(t[i]) * x[i];
    v.push_back(w[i] * w[i] + x[i] * x[i]);
  }
  double s = 0;
  for (double e : v)
    s += e;
  free(w);
  check(s);
  return s;
}
static double f_at(const double *x, void *) { return f(x, N); }

// Split mode: y = f(x) through a pointer, so the forward sweep has a tape to keep.
static void g(const double *x, double *y) { *y = f(x, N); }

int main() {
  int thrown = 0, computed = 0;
  for (int rep = 0; rep < 400; rep++) {
    // Half of the points have a sum beyond LIMIT.
    double scale = 0.2 + 0.01 * (rep % 200);
    double x[N], dx[N] = {0};
    for (int k = 0; k < N; k++)
      x[k] = scale * (0.5 + 0.3 * k) * (k % 2 ? -1 : 1);
    bool threw = false;
    try {
      __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (int)N);
    } catch (const std::domain_error &) {
      threw = true;
      thrown++;
    }
    bool expect_throw = false;
    try {
      f(x, N);
    } catch (const std::domain_error &) {
      expect_throw = true;
    }
    if (threw != expect_throw) {
      printf("FAIL rep %d: the gradient %s, the primal %s\n", rep, threw ? "threw" : "did not throw",
             expect_throw ? "throws" : "does not");
      return 1;
    }
    if (!threw && rep % 50 == 7) {
      double g_fd[N];
      fd_grad(f_at, nullptr, x, N, g_fd);
      fd_check_array("gradient when nothing is thrown", dx, g_fd, N);
      computed++;
    }
    // Split mode: the forward sweep throws or fills the tape for the reverse sweep.
    char tape[32];
    double y = 0, dy = 1, sx[N] = {0};
    try {
      __enzyme_augmentfwd((void *)g, enzyme_allocated, 32, enzyme_tape, tape, enzyme_dup, x, sx,
                          enzyme_dup, &y, &dy);
      __enzyme_reverse((void *)g, enzyme_allocated, 32, enzyme_tape, tape, enzyme_dup, x, sx,
                       enzyme_dup, &y, &dy);
      if (rep % 50 == 7) {
        double g_fd[N];
        fd_grad(f_at, nullptr, x, N, g_fd);
        fd_check_array("split-mode gradient when nothing is thrown", sx, g_fd, N);
      }
    } catch (const std::domain_error &) {
      if (!expect_throw) {
        printf("FAIL rep %d: split mode threw, the primal does not\n", rep);
        return 1;
      }
    }
  }
  if (thrown == 0 || computed == 0) {
    printf("FAIL the test must both throw (%d) and compute gradients (%d)\n", thrown, computed);
    return 1;
  }
  return fd_finish();
}
