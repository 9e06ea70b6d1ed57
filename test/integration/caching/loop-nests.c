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
// Loop nests on the loop-indexed tape (reverse/loop_tape.rs): an inner loop whose count is
// the same in every outer iteration keeps its iterations in a sub-region of the nest's one
// reservation, at outer index x inner count + inner index; its exit record goes into the
// outer iteration's slot. Each function overwrites what it reads, so every iteration tapes.
// Covered: a rectangular nest, one whose inner loop starts at a computed value, a nest three
// deep, two inner loops side by side, an inner count read from memory (a region per inner
// execution), an inner `break`, an inner count too small (later inner iterations push), an
// outer count too small (the inner slots of the outer iterations past it push too), an inner
// 8-bit counter that wraps around, and an inner loop that tapes nothing (only its exit
// record, in the outer slot), and loops that count down with `-=`.
// Triangular nests (the inner count is affine in the outer index t: rows of
// max(0, first + slope x t) slots, the row of t after the sum of those before it): j = i .. n,
// j < i, j <= i, j = i + 1 .. n, both counting down, a band (both ends follow i), one whose
// inner loop runs only for odd i, outer and inner steps of 2 and 3, rows that stop (j from
// 2i) or start (j < 2i - n + 2) half-way, a row ended by a `break`, rows too small (a `!=`
// test that only a `break` ends: the iterations past the row push), an outer count too small
// (the rows of the outer iterations past it push), a triangle in a rectangle and a rectangle
// in a triangle, a tetrahedron (k < j < i: k's count follows a triangle's index, a nest per
// execution of j), and one whose inner step does not divide the count's change (j != n by 2
// from i: a nest per execution too). At -O0 and -O1 nearly all of them nest as triangles; at
// -O2/-O3 clang unrolls most of their inner loops by 2 (counts of t / 2, not affine: a nest
// per execution), leaving triangle_break, triangle_by_two, triangle_down,
// triangle_outer_too_small, rectangle_in_triangle and the tetrahedron's j loop as triangles.
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
enum { N = 9 };

__attribute__((noinline)) double rectangle(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n - 2; j++) {
      double t = x[j];
      x[j] = sin(t) + 0.1 * x[i];
      s += t * x[j];
    }
  return s;
}

// The inner loop starts at n / 3 (an instruction, recorded per inner execution) and the
// outer counts down by 2.
__attribute__((noinline)) double computed_start(double *x, int n) {
  double s = 0;
  int lo = n / 3;
  for (int i = n - 1; i >= 0; i -= 2)
    for (int j = lo; j < n; j++) {
      double t = x[j];
      x[j] = t * 0.7 + 0.2 * cos(x[i]);
      s += t * t * x[j];
    }
  return s;
}

__attribute__((noinline)) double three_deep(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n / 3; i++)
    for (int j = 0; j < n / 2 - 1; j++) {
      double u = x[(i + j) % N];
      x[(i + j) % N] = u * 0.9 + 0.05;
      for (int k = 0; k < n - 6; k++) {
        int at = (i + 2 * j + k) % N;
        double t = x[at];
        x[at] = sin(t) * 0.8 + 0.1 * u;
        s += t * x[at] + u;
      }
    }
  return s;
}

__attribute__((noinline)) double side_by_side(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 4; j++) {
      double t = x[j + 1];
      x[j + 1] = t * 0.8 + 0.1 * x[i];
      s += t * x[j + 1];
    }
    for (int j = n - 1; j >= 5; j--) {
      double t = x[j];
      x[j] = exp(-t * t) + 0.3 * x[0];
      s += t * x[j];
    }
  }
  return s;
}

__attribute__((noinline)) double triangle_upper(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++) {
      double t = x[j];
      x[j] = t * 0.8 + 0.1 * cos(x[i]);
      s += t * x[j];
    }
  return s;
}

__attribute__((noinline)) double triangle_lower(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) {
      double t = x[j];
      x[j] = t * 0.7 + 0.2 * sin(x[i]);
      s += t * x[j] + x[i];
    }
  return s;
}

// At i = n - 1 the inner loop is skipped (its guard fails; its count there is that of a test
// run past its bound).
__attribute__((noinline)) double triangle_strict(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double t = x[j];
      x[j] = t * 0.8 - 0.15 * x[i] * x[i];
      s += t * x[j];
    }
  return s;
}

// Both count down: i from n - 1 to 0, j from n - 1 down to i.
__attribute__((noinline)) double triangle_down(double *x, int n) {
  double s = 0;
  for (int i = n - 1; i >= 0; i--)
    for (int j = n - 1; j >= i; j--) {
      double t = x[j];
      x[j] = cos(t) * 0.6 + 0.1 * x[i];
      s += t * x[j];
    }
  return s;
}

// Both ends follow i, by 2 (a band of the same width for every i).
__attribute__((noinline)) double band(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n - 4; i += 2)
    for (int j = i; j < i + 5; j++) {
      double t = x[j];
      x[j] = t * t * 0.4 + 0.3 * x[i + 1];
      s += t * x[j];
    }
  return s;
}

// The inner loop runs only for odd i.
__attribute__((noinline)) double triangle_skipped(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (i % 2 == 0) continue;
    for (int j = 0; j < i; j++) {
      double t = x[j];
      x[j] = t * 0.9 + 0.1 * exp(-x[i] * x[i]);
      s += t * x[j];
    }
  }
  return s;
}

__attribute__((noinline)) double tetrahedron(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) {
      double u = x[j];
      x[j] = u * 0.95 + 0.02 * x[i];
      for (int k = 0; k < j; k++) {
        double t = x[k];
        x[k] = sin(t) * 0.9 + 0.05 * u;
        s += t * x[k] + u;
      }
    }
  return s;
}

// j != n (n odd) never holds for even i (j steps by 2 from i): only the break ends those
// inner loops, after 7 iterations, past the count their test gives ((n - i) / 2 + 1): the
// iterations past it push. For odd i, j reaches n first. The count moves by half an
// iteration per i (not affine): a region per inner execution.
__attribute__((noinline)) double triangle_too_small(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = i; j != n; j += 2) {
      int k = j % N;
      double t = x[k];
      x[k] = t * 0.7 + 0.1 * x[i];
      s += t * x[k] + 0.1;
      if (j >= i + 12) break;
    }
  return s;
}

__attribute__((noinline)) double triangle_diagonal(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double t = x[j];
      x[j] = t * 0.85 + 0.1 * sin(x[i]);
      s += t * x[j];
    }
  return s;
}

// The outer counter steps by 3: each row is 3 longer than the last.
__attribute__((noinline)) double triangle_steep(double *x, int n) {
  double s = 0;
  for (int i = 1; i < n; i += 3)
    for (int j = 0; j < i; j++) {
      double t = x[j];
      x[j] = t * 0.75 + 0.2 * cos(x[i]);
      s += t * x[j] + x[i];
    }
  return s;
}

// Both step by 2: the row at i has (n - i + 1) / 2 iterations, one fewer per outer one.
__attribute__((noinline)) double triangle_by_two(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i += 2)
    for (int j = i; j < n; j += 2) {
      double t = x[j];
      x[j] = t * t * 0.3 + 0.4 * x[i];
      s += t * x[j];
    }
  return s;
}

// j from 2i: the inner loop is entered only while 2i < n (rows stop at half the outer loop).
__attribute__((noinline)) double triangle_clamped(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 2 * i; j < n; j++) {
      double t = x[j];
      x[j] = sin(t) * 0.8 + 0.1 * x[i];
      s += t * x[j];
    }
  return s;
}

// j < 2i - n + 2: the inner loop is entered only from the middle of the outer loop on.
__attribute__((noinline)) double triangle_rising(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 2 * i - n + 2; j++) {
      double t = x[j];
      x[j] = t * 0.9 + 0.05 * x[i] * x[i];
      s += t * x[j];
    }
  return s;
}

// A row ended early by a data-dependent break.
__attribute__((noinline)) double triangle_break(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double t = x[j];
      x[j] = t * t * 0.5 + 0.1 * x[i];
      s += t * x[j] + 0.05;
      if (s > 0.3 * i + 0.2 && j > 0) break;
    }
  return s;
}

// j != n (n odd) never holds (j steps by 2 from 2i): only the break ends the rows, after 6
// iterations, past the count their test gives for the later i ((n - 2i) / 2 + 1 header runs).
__attribute__((noinline)) double triangle_row_too_small(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 2 * i; j != n; j += 2) {
      int k = j % N;
      double t = x[k];
      x[k] = t * 0.7 + 0.1 * x[i];
      s += t * x[k] + 0.1;
      if (j >= 2 * i + 10) break;
    }
  return s;
}

// A triangle inside a rectangle (k < j, j < m, twice) and a rectangle inside a triangle
// (k < 3 inside j < i).
__attribute__((noinline)) double triangle_in_rectangle(double *x, int n) {
  double s = 0;
  int m = n - 2;
  for (int r = 0; r < 2; r++)
    for (int j = 0; j < m; j++) {
      double u = x[j + 2];
      x[j + 2] = u * 0.9 + 0.05 * r;
      for (int k = 0; k < j; k++) {
        double t = x[k];
        x[k] = cos(t) * 0.7 + 0.1 * u;
        s += t * x[k] + u;
      }
    }
  return s;
}

__attribute__((noinline)) double rectangle_in_triangle(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) {
      double u = x[j];
      x[j] = u * 0.95 + 0.03 * x[i];
      for (int k = 0; k < 3; k++) {
        int at = (i + j + k) % N;
        double t = x[at];
        x[at] = t * 0.8 + 0.1 * u;
        s += t * x[at];
      }
    }
  return s;
}

// The outer test i != n (n odd) never holds: the break ends the nest after 7 outer iterations,
// past the outer count (4 for n = 7): the rows of those push, slot by slot.
__attribute__((noinline)) double triangle_outer_too_small(double *x, int n) {
  double s = 0;
  for (int i = 0; i != n; i += 2) {
    for (int j = 0; j < i; j++) {
      int k = j % N;
      double t = x[k];
      x[k] = t * 0.6 + 0.15;
      s += t * t + 0.05;
    }
    if (s > 6.0) break;
  }
  return s;
}

static const int lengths[N] = {3, 0, 5, 1, 9, 2, 4, 7, 6};
__attribute__((noinline)) double count_from_memory(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < lengths[i]; j++) {
      double t = x[j];
      x[j] = t * 0.9 + 0.1 * sin(x[i]);
      s += t * x[j];
    }
  return s;
}

// The inner loop leaves early, more so in later outer iterations.
__attribute__((noinline)) double inner_break(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double t = x[j];
      x[j] = t * t * 0.5 + 0.2;
      s += t * x[j] + 0.05;
      if (s > 0.5 * i + 0.75 && j > 0) break;
    }
  return s;
}

// j != n with n odd never holds: only the break ends the inner loop, after more iterations
// than its count ((7 - 0) / 2 + 1 = 4 for n = 7).
__attribute__((noinline)) double inner_too_small(double *x, int n) {
  double s = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j != n; j += 2) {
      int k = (j / 2 + i) % N;
      double t = x[k];
      x[k] = t * 0.5 + 0.1;
      s += t * t + 0.3;
      if (s > 1.3 * (i + 1) + 0.05) break;
    }
  return s;
}

// The outer test i != n with n odd never holds: the break ends the nest after more outer
// iterations than the outer count: the inner loop's slots of those push.
__attribute__((noinline)) double outer_too_small(double *x, int n) {
  double s = 0;
  for (int i = 0; i != n; i += 2) {
    for (int j = 0; j < 3; j++) {
      int k = (i / 2 + j) % N;
      double t = x[k];
      x[k] = t * 0.6 + 0.15;
      s += t * t + 0.2;
    }
    if (s > 4.05) break;
  }
  return s;
}

__attribute__((noinline)) double inner_wraps(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n / 3; i++)
    for (unsigned char c = 250; c != 4; c++) {
      int k = (c + i) % N;
      double t = x[k];
      x[k] = t + 0.25 * t * t;
      s += t * exp(-t * t) + x[k] * 0.01;
    }
  return s;
}

// The inner loop only reads; the outer overwrites: what the outer tapes and the inner
// loop's exit record share the outer slot.
__attribute__((noinline)) double inner_reads(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double acc = 0;
    for (int j = 0; j < n; j++) acc += x[j] * (j + 1);
    double t = x[i];
    x[i] = sin(acc * 0.05) * t;
    s += x[i] * t;
  }
  return s;
}

// Both loops count down with `-=` (a `sub` at -O0, where `i--` is an `add` of -1).
__attribute__((noinline)) double down_by_sub(double *x, int n) {
  double s = 0;
  for (int i = n - 1; i >= 0; i -= 2)
    for (int j = n - 1; j > 1; j -= 3) {
      double t = x[j];
      x[j] = t * 0.75 + 0.1 * sin(x[i]);
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
GRADIENT(rectangle)
GRADIENT(computed_start)
GRADIENT(three_deep)
GRADIENT(side_by_side)
GRADIENT(triangle_upper)
GRADIENT(triangle_lower)
GRADIENT(triangle_strict)
GRADIENT(triangle_down)
GRADIENT(band)
GRADIENT(triangle_skipped)
GRADIENT(tetrahedron)
GRADIENT(triangle_too_small)
GRADIENT(triangle_diagonal)
GRADIENT(triangle_steep)
GRADIENT(triangle_by_two)
GRADIENT(triangle_clamped)
GRADIENT(triangle_rising)
GRADIENT(triangle_break)
GRADIENT(triangle_row_too_small)
GRADIENT(triangle_in_rectangle)
GRADIENT(rectangle_in_triangle)
GRADIENT(triangle_outer_too_small)
GRADIENT(count_from_memory)
GRADIENT(inner_break)
GRADIENT(inner_too_small)
GRADIENT(outer_too_small)
GRADIENT(inner_wraps)
GRADIENT(inner_reads)
GRADIENT(down_by_sub)
int main(void) {
  double x[N] = {0.3, -0.2, 0.5, 0.1, 0.4, -0.6, 0.2, 0.7, -0.1}, d[N], fd[N];
  struct {
    const char *name;
    fn f;
    void (*grad)(const double *, double *, int);
    int n;
  } cases[] = {
      {"rectangle", rectangle, grad_rectangle, N},
      {"computed_start", computed_start, grad_computed_start, N},
      {"three_deep", three_deep, grad_three_deep, N},
      {"side_by_side", side_by_side, grad_side_by_side, N},
      {"triangle_upper", triangle_upper, grad_triangle_upper, N},
      {"triangle_lower", triangle_lower, grad_triangle_lower, N},
      {"triangle_strict", triangle_strict, grad_triangle_strict, N},
      {"triangle_down", triangle_down, grad_triangle_down, N},
      {"band", band, grad_band, N},
      {"triangle_skipped", triangle_skipped, grad_triangle_skipped, N},
      {"tetrahedron", tetrahedron, grad_tetrahedron, N},
      {"triangle_too_small", triangle_too_small, grad_triangle_too_small, N},
      {"triangle_diagonal", triangle_diagonal, grad_triangle_diagonal, N},
      {"triangle_steep", triangle_steep, grad_triangle_steep, N},
      {"triangle_by_two", triangle_by_two, grad_triangle_by_two, N},
      {"triangle_clamped", triangle_clamped, grad_triangle_clamped, N},
      {"triangle_rising", triangle_rising, grad_triangle_rising, N},
      {"triangle_break", triangle_break, grad_triangle_break, N},
      {"triangle_row_too_small", triangle_row_too_small, grad_triangle_row_too_small, N},
      {"triangle_in_rectangle", triangle_in_rectangle, grad_triangle_in_rectangle, N},
      {"rectangle_in_triangle", rectangle_in_triangle, grad_rectangle_in_triangle, N},
      {"triangle_outer_too_small", triangle_outer_too_small, grad_triangle_outer_too_small, 7},
      {"count_from_memory", count_from_memory, grad_count_from_memory, N},
      {"inner_break", inner_break, grad_inner_break, N},
      {"inner_too_small", inner_too_small, grad_inner_too_small, 7},
      {"outer_too_small", outer_too_small, grad_outer_too_small, 7},
      {"inner_wraps", inner_wraps, grad_inner_wraps, N},
      {"inner_reads", inner_reads, grad_inner_reads, N},
      {"down_by_sub", down_by_sub, grad_down_by_sub, N},
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
