// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s plugin 0 %t
// Reading numbers from a string stream at -O0 (from -O1 on, and with the bodies -O1 keeps
// for inlining even under -disable-llvm-passes, string streams are refused: see
// errors/string-stream-optimised.cpp): a double and a float read
// with `>>` are constants, so the variable they overwrite loses its derivative there. `v`
// held an active value before the read; with the call merely inactive, forward mode kept v's
// old tangent and reverse mode let the adjoint of the new v flow into the old one (both
// wrong). Integers, characters and skipping carry no derivative.
// EXEC-CFLAGS: -std=c++11
#include "fdcheck.h"
#include "umbra.h"
#include <sstream>
#include <string>

__attribute__((noinline)) double f(const double *x) {
  double v = x[0] * 2;
  float w = static_cast<float>(x[1]);
  double acc = v * v;  // w is not used before the read: only its derivative could leak
  std::istringstream in(std::string("1.5 2.25 7 ab"));
  in >> v >> w;
  int k;
  in >> k;
  in.ignore();
  char c;
  in.get(c);
  return acc + v * x[1] + w * x[0] + k + (c == 'a');
}

static double f_at(const double *p, void *) { return f(p); }

int main() {
  double x[2] = {0.7, -1.2};
  double fd[2];
  fd_grad(f_at, nullptr, x, 2, fd);
  double dx[2] = {0, 0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  fd_check_array("grad", dx, fd, 2);
  for (int k = 0; k < 2; k++) {
    double t[2] = {0, 0};
    t[k] = 1;
    fd_check("tangent", __enzyme_fwddiff((void *)f, enzyme_dup, x, t), fd[k]);
  }
  return fd_finish();
}
