// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// The output runs in the primal only, once per sweep that runs the primal:
// RUN: %clangxx -O2 -g -I %testinc -I %runtime-include -fpass-plugin=%plugin %s -lm -o %t.count
// RUN: %t.count | FileCheck --check-prefix=COUNT %s
// COUNT-COUNT-3: step 2:
// COUNT-NOT: step
// Printing differentiable values through libstdc++'s streams: std::cout, std::cerr, std::clog
// and std::wcout with doubles, floats, integers, characters and strings, std::endl and
// std::flush, put, sync_with_stdio and locales. Before, each insertion was a call with no rule
// that received a derivative (`_ZNSo9_M_insertIdEERSoT_`, `_ZNSolsEd` at -O0,
// `__ostream_insert` at -O1 and up, std::locale's constructors): a compile-time error. Output has
// no derivative: the gradient and the tangent are those of the arithmetic alone, against
// finite differences.
#include "fdcheck.h"
#include "umbra.h"
#include <iostream>
#include <locale>

static int verbose = 1;

__attribute__((noinline)) double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i] * (i + 1);
    if (verbose)
      std::cout << "step " << i << ": " << s << ' ' << static_cast<float>(x[i]) << " "
                << static_cast<long>(i) << std::endl;
  }
  if (verbose) {
    std::cerr << "sum " << s << '\n' << std::flush;
    std::clog << "x0 " << x[0] << (long double)s << std::endl;
    std::wcout << L"w " << s << L'\n' << x[1] << std::endl;
    std::cout.put('.').flush();
    std::ios_base::sync_with_stdio(true);
    std::cout.imbue(std::locale::classic());
    std::locale loc;
    std::wcout.imbue(loc);
  }
  return std::sin(s) * x[0];
}

static double f_at(const double *p, void *) { return f(p, 3); }

int main() {
  double x[3] = {0.4, -0.3, 0.9};
  double fd[3];
  verbose = 0;
  fd_grad(f_at, nullptr, x, 3, fd);
  verbose = 1;
  double dx[3] = {0, 0, 0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3);
  verbose = 0;
  fd_check_array("grad", dx, fd, 3);
  for (int k = 0; k < 3; k++) {
    double t[3] = {0, 0, 0};
    t[k] = 1;
    verbose = k == 1;
    fd_check("tangent", __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, 3), fd[k]);
  }
  verbose = 1;
  f(x, 3);
  return fd_finish();
}
