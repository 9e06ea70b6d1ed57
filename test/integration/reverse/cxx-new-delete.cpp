// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// C++ allocation inside f: new/delete of one double, new[]/delete[] (sized deletes, as clang
// emits them by default), the nothrow forms, and an over-aligned type (alignas(64)), whose new
// and delete take the alignment. The heap is dirtied first so that unzeroed shadows would show.
#include "fdcheck.h"
#include <new>

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
extern "C" double __enzyme_autodiff(void *, ...);

struct alignas(64) Cell {
  double v[4];
};

double f(const double *x, int n, double c) {
  double *a = new double[n];
  double *b = new (std::nothrow) double[n];
  double *one = new double;
  double *two = new (std::nothrow) double;
  Cell *cell = new Cell;
  Cell *cells = new Cell[2];
  *one = c;
  *two = 0.5 * c;
  for (int i = 0; i < n; i++) {
    a[i] = x[i] * *one;
    b[i] = sin(x[i]) + *two;
  }
  for (int k = 0; k < 4; k++) {
    cell->v[k] = a[k % n] * b[(k + 1) % n];
    cells[0].v[k] = a[(k + 2) % n];
    cells[1].v[k] = b[k % n] * c;
  }
  for (int i = 0; i + 1 < n; i++)
    a[i] += a[i + 1] * b[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * cell->v[i % 4] + cells[i % 2].v[(i + 1) % 4] * x[i];
  delete[] a;
  delete[] b;
  delete one;
  delete two;
  delete cell;
  delete[] cells;
  return s;
}

enum { N = 6 };
// packed [x (N), c]
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N, p[N]); }

static void dirty_heap() {
  void *blocks[8];
  size_t sizes[4] = {N * sizeof(double), sizeof(double), sizeof(Cell), 2 * sizeof(Cell)};
  for (int k = 0; k < 8; k++) {
    blocks[k] = malloc(sizes[k % 4]);
    memset(blocks[k], 0xff, sizes[k % 4]);
  }
  for (int k = 0; k < 8; k++)
    free(blocks[k]);
}

int main() {
  double p[N + 1], dx[N] = {0}, fd[N + 1];
  for (int i = 0; i < N; i++) p[i] = 0.3 + 0.21 * i - 0.45 * (i % 2);
  p[N] = 0.7;
  dirty_heap();
  double dc = __enzyme_autodiff((void *)f, enzyme_dup, p, dx, enzyme_const, N,
                                enzyme_out, p[N]);
  fd_grad(f_at, NULL, p, N + 1, fd);
  fd_check_array("dx", dx, fd, N);
  fd_check("dc", dc, fd[N]);
  return fd_finish();
}
