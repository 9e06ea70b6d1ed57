// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A matrix as std::vector<std::vector<double>>, its rows copies of one row
// (`A(N, std::vector<double>(N))`) of a size known at compile time (with a size known only at
// run time, a loop over the rows tells the type analysis they are arrays of doubles). The
// rows' copy constructor (`__do_uninit_fill_n`, out of line) moves `end - begin`
// bytes with memmove. Umbra refused it before:
// - at -O1, the type analysis lost what the first row points to on its way to the matrix
//   (a bounded index, `A[i]` for i < 4), and the row the copy reads, whose end pointer shares
//   a field with its start, climbed 32 bytes a round to "double every 32";
// - at -O2 and -O3, all it knew of the rows was {0: double, ..., 24: double}, every access
//   unrolled, and the copy's length is not a constant.
// Both modes against finite differences.
#include "fdcheck.h"
#include "umbra.h"
#include <cmath>
#include <vector>

enum { N = 4 };

// Fixed size: a rank-one update of the identity, applied to x.
extern "C" __attribute__((noinline)) double fixed(const double *x) {
  std::vector<std::vector<double>> A(N, std::vector<double>(N));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = x[i] * x[j] + (i == j);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += A[i][j] * x[j];
  return s;
}

static double at_fixed(const double *p, void *) { return fixed(p); }

int main() {
  double x[N] = {0.5, -1.2, 2.0, 0.7}, g[N];
  double dx[N] = {0};
  fd_grad(at_fixed, 0, x, N, g);
  __enzyme_autodiff((void *)fixed, enzyme_dup, x, dx);
  fd_check_array("fixed reverse", dx, g, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("fixed forward", __enzyme_fwddiff((void *)fixed, enzyme_dup, x, t), g[k]);
  }
  return fd_finish();
}
