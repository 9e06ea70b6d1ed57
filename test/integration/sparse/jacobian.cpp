// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// A sparse Jacobian by forward mode through Enzyme's dense views, C++ spelling (the template
// __enzyme_todense<T *>), in double and float: the input itself is a view (periodic
// indexing of a smaller array, so the stencil reads x[i + 1] and x[i + 2] past the end), its
// tangent a view of a column of the identity (periodic too), and the output's tangent a view
// whose stores become (row, column, value) triplets in a std::vector; the output's primal is a
// dummy pointer passed enzyme_dupnoneed, which must never be written. Checked against central
// differences of the stencil written with explicit wrap-around, and the sparsity pattern.
#include "fdcheck.h"
#include <cstdint>
#include <vector>

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
template <typename R, typename... A> R __enzyme_fwddiff(void *, A...) noexcept;
template <typename R, typename... A> R __enzyme_todense(A...) noexcept;

template <typename T> struct Triple {
  size_t row, col;
  T val;
};

template <typename T> static void stencil(const T *x, T *y, size_t n) {
  for (size_t i = 0; i < n; i++)
    y[i] = x[i + 1] * x[i] - std::sin(x[i + 2]) + x[i] * x[i] * x[i];
}

// The same with explicit wrap-around, in double, for the finite differences.
static const size_t N = 9;
static void stencil_fd(const double *x, double *y, void *) {
  for (size_t i = 0; i < N; i++)
    y[i] = x[(i + 1) % N] * x[i] - std::sin(x[(i + 2) % N]) + x[i] * x[i] * x[i];
}

template <typename T> static T periodic_load(int64_t off, const T *base, size_t n) {
  return base[(off / (int64_t)sizeof(T)) % (int64_t)n];
}
static int forbidden_stores = 0;
template <typename T> static void no_store(T, int64_t, const T *, size_t) { forbidden_stores++; }

template <typename T> static T ident_load(int64_t off, size_t col, size_t n) {
  return (size_t)(off / (int64_t)sizeof(T)) % n == col ? T(1) : T(0);
}
template <typename T> static void ident_no_store(T, int64_t, size_t, size_t) {
  forbidden_stores++;
}

template <typename T> static T zero_load(int64_t, size_t, std::vector<Triple<T>> *) {
  return T(0);
}
template <typename T>
static void triple_store(T v, int64_t off, size_t col, std::vector<Triple<T>> *out) {
  if (v != T(0))
    out->push_back(Triple<T>{(size_t)(off / (int64_t)sizeof(T)), col, v});
}

template <typename T>
__attribute__((noinline)) static std::vector<Triple<T>> jacobian(const T *base, size_t n) {
  std::vector<Triple<T>> out;
  T *x = __enzyme_todense<T *>((void *)periodic_load<T>, (void *)no_store<T>, base, n);
  for (size_t j = 0; j < n; j++) {
    T *dx = __enzyme_todense<T *>((void *)ident_load<T>, (void *)ident_no_store<T>, j, n);
    T *dy = __enzyme_todense<T *>((void *)zero_load<T>, (void *)triple_store<T>, j, &out);
    __enzyme_fwddiff<void>((void *)stencil<T>, enzyme_dup, x, dx, enzyme_dupnoneed, (T *)0x1,
                           dy, enzyme_const, n);
  }
  return out;
}

template <typename T> static void check(const char *what, bool single) {
  T base[N];
  double xd[N];
  for (size_t i = 0; i < N; i++)
    xd[i] = base[i] = T(0.2 * i - 0.7 + 0.03 * i * i);
  std::vector<Triple<T>> jac = jacobian(base, N);
  double dense[N][N] = {{0}};
  int outside = 0;
  for (auto &t : jac) {
    dense[t.row][t.col] += t.val;
    size_t d = (t.col + N - t.row) % N;
    outside += d > 2;
  }
  for (size_t j = 0; j < N; j++) {
    double e[N] = {0}, col[N];
    e[j] = 1;
    fd_dir_vec(stencil_fd, nullptr, xd, e, N, col, N);
    for (size_t i = 0; i < N; i++) {
      char name[48];
      snprintf(name, sizeof name, "%s J[%zu][%zu]", what, i, j);
      if (single)
        fd_check_f(name, dense[i][j], col[i]);
      else
        fd_check(name, dense[i][j], col[i]);
    }
  }
  char name[48];
  snprintf(name, sizeof name, "%s entries outside the stencil", what);
  fd_check_exact(name, outside, 0);
}

int main() {
  check<double>("double", false);
  check<float>("float", true);
  fd_check_exact("stores through read-only views", forbidden_stores, 0);
  return fd_finish();
}
