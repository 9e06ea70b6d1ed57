// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Without re-optimisation (umbra -O0), where the regions' index tests stay in the code:
// RUN: %clang -O2 -g -I %testinc -c -emit-llvm %s -o %t.O2.bc
// RUN: %umbra -O0 %t.O2.bc -o %t.O2.o
// RUN: %clang %t.O2.o -lm -o %t.O2.exe
// RUN: %t.O2.exe
// The loop-indexed tape (reverse/loop_tape.rs): loops whose exit test counts their
// iterations keep what each iteration tapes in one region reserved on entry. Each function
// overwrites what it reads, so every iteration tapes. Covered: a loop a `break` leaves early
// (the region is larger than needed), a loop whose test never fires and a `break` ends (the
// count is too small: later iterations push as usual), counting down by 2, an 8-bit counter
// that wraps around, a triangular nest (a region per inner loop execution), and a loop with
// two paths (which one each iteration took is in the region).
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
enum { N = 9 };

// Leaves when the running value gets large: fewer iterations than n.
__attribute__((noinline)) double early_break(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double t = x[i];
    x[i] = sin(t);
    s += t * x[i];
    if (s > 1.5) break;
  }
  return s;
}

// i != n with n odd never holds for even i: only the break ends the loop, after more
// iterations than the test's count ((7 - 2) / 2 + 1 = 3 for n = 7): the later ones push.
__attribute__((noinline)) double count_too_small(double *x, int n) {
  double s = 0;
  for (int i = 0; i != n; i += 2) {
    int k = (i / 2) % N;
    double t = x[k];
    x[k] = t * 0.5 + 0.1;
    s += t * t + x[k];
    if (s > 1.2) break;
  }
  return s;
}

__attribute__((noinline)) double down_by_two(double *x, int n) {
  double s = 1;
  for (int i = n - 1; i >= 0; i -= 2) {
    double t = x[i];
    x[i] = t * t;
    s = s * 0.5 + cos(t) * x[i];
  }
  return s;
}

__attribute__((noinline)) double wraps(double *x) {
  double s = 0;
  for (unsigned char c = 250; c != 4; c++) {
    int k = c % N;
    double t = x[k];
    x[k] = t + 0.25 * t * t;
    s += t * exp(-t * t) + x[k] * 0.01;
  }
  return s;
}

// Each iteration takes one of two paths: the block where they meet records which, in the
// region too.
__attribute__((noinline)) double branchy(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double t = x[i];
    if (t > 0) {
      x[i] = sin(t) * t;
      s += exp(x[i]);
    } else {
      x[i] = -t * cos(t);
      s += t * x[i] * 3;
    }
    s += x[i] * t;
  }
  return s;
}

__attribute__((noinline)) double triangle(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double t = x[j];
      x[j] = t * 0.9 + 0.05 * x[i];
      s += t * x[j];
    }
  return s;
}

typedef double (*fn)(double *, int);
static double call(fn f, const double *x0, int n) {
  double x[N];
  for (int i = 0; i < N; i++) x[i] = x0[i];
  return f(x, n);
}
static double wraps_n(double *x, int n) {
  (void)n;
  return wraps(x);
}
struct job {
  fn f;
  int n;
};
static double at(const double *x, void *c) {
  struct job *j = c;
  return call(j->f, x, j->n);
}
// The request needs the function itself, so one gradient function per case.
#define GRADIENT(name)                                                   \
  static void grad_##name(const double *x0, double *d, int n) {          \
    double x[N];                                                         \
    for (int i = 0; i < N; i++) x[i] = x0[i], d[i] = 0;                  \
    __enzyme_autodiff((void *)name, enzyme_dup, x, d, enzyme_const, n); \
  }
GRADIENT(early_break)
GRADIENT(count_too_small)
GRADIENT(down_by_two)
GRADIENT(triangle)
GRADIENT(branchy)
static void grad_wraps(const double *x0, double *d, int n) {
  (void)n;
  double x[N];
  for (int i = 0; i < N; i++) x[i] = x0[i], d[i] = 0;
  __enzyme_autodiff((void *)wraps, enzyme_dup, x, d);
}
int main(void) {
  double x[N] = {0.3, -0.2, 0.5, 0.1, 0.4, -0.6, 0.2, 0.7, -0.1}, d[N], fd[N];
  struct {
    const char *name;
    fn f;
    void (*grad)(const double *, double *, int);
    int n;
  } cases[] = {
      {"early_break", early_break, grad_early_break, N},
      {"count_too_small", count_too_small, grad_count_too_small, 7},
      {"down_by_two", down_by_two, grad_down_by_two, N},
      {"triangle", triangle, grad_triangle, N},
      {"branchy", branchy, grad_branchy, N},
      {"wraps", wraps_n, grad_wraps, 0},
  };
  for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    // Twice: the second gradient starts from a tape sized by the first.
    for (int rep = 0; rep < 2; rep++) {
      struct job j = {cases[k].f, cases[k].n};
      cases[k].grad(x, d, cases[k].n);
      fd_grad(at, &j, x, N, fd);
      fd_check_array(cases[k].name, d, fd, N);
    }
  }
  return fd_finish();
}
