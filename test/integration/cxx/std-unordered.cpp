// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s plugin 0 %t
// std::unordered_map<int, double> and std::unordered_set<int> in differentiated code, both
// modes: libstdc++'s growth policy (_Prime_rehash_policy::_M_need_rehash, _M_next_bkt) lives
// in libstdc++.so; it takes and returns integers, so it runs in the primal only (before: "no
// derivative rule for '_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm'").
// At -O0 the end() iterator is built from a null pointer, passed as constant, stored where the
// map's node pointers (with shadows) go: refused before ("pointer '__p', parameter 2 of
// '..._Node_iterator_base...', passed as constant, has no shadow memory"); a null pointer the
// callee may store is now passed duplicated, its shadow null.
#include "fdcheck.h"
#include <unordered_map>
#include <unordered_set>
#include <cmath>
extern "C" { void __enzyme_autodiff(void *, ...); double __enzyme_fwddiff(void *, ...); }
extern int enzyme_dup, enzyme_const;
double f(const double *x, int n) {
  std::unordered_map<int, double> m;
  for (int i = 0; i < n; i++) m[(i * 7) % n] = x[i] * x[i];
  for (int i = 0; i < n; i += 2) m[i] += std::sin(x[i]);
  double s = 0;
  for (int k = 0; k < n; k++) s += m.at(k) * (k + 1);
  std::unordered_set<int> seen;
  for (int i = 0; i < n; i++) if (seen.insert(i % 5).second) s += x[i];
  return s;
}
static double f_at(const double *x, void *c) { (void)c; return f(x, 23); }
int main() {
  double x[23], d[23] = {0}, fd[23], v[23];
  for (int i = 0; i < 23; i++) { x[i] = 0.1 * i - 1.0; v[i] = std::cos(i); }
  __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, 23);
  fd_grad(f_at, nullptr, x, 23, fd);
  fd_check_array("grad", d, fd, 23);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, 23);
  double dot = 0; for (int i = 0; i < 23; i++) dot += d[i] * v[i];
  fd_check("fwd vs rev", t, dot);
  return fd_finish();
}
