// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s plugin 0 %t
// File streams in differentiated code at -O0 (issue 29, Enzyme's ReverseMode/fbuff.cpp; from -O1
// on their destructors are partly inlined, refused like string streams': a vtable pointer loaded
// from a `_ZTT` table has no shadow, docs/reference/limitations.md): std::ofstream
// and std::ifstream opened, written, read and closed run in the primal only, and
// `in.read(buf, n)` stores bytes that come from the file, without a derivative: the tangents
// and adjoints of the gcount() bytes it stored are zeroed, and only those (a short read at
// the end of the file leaves the rest, and their derivatives, alone). Known values: what was
// read back is a constant to the derivative, as Enzyme treats input.
// EXEC-CFLAGS: -std=c++11
#include "fdcheck.h"
#include "umbra.h"
#include <cstdio>
#include <fstream>
#include <unistd.h>

static char path[64];

__attribute__((noinline)) double f(double x) {
  double buf[3] = {x * x, 3 * x, 5 * x};
  {
    std::ofstream out(path, std::ios::out | std::ios::binary);
    out.write(reinterpret_cast<const char *>(buf), sizeof(double));
    out.close();
  }
  std::ifstream in(path, std::ios::in | std::ios::binary);
  if (!in.is_open())
    abort();
  double y = x;  // overwritten by the read: its derivative is gone
  in.read(reinterpret_cast<char *>(&y), sizeof y);
  // Asks for two doubles at the end of the file: a short read that stores nothing, so
  // buf[1] and buf[2] keep their values and derivatives.
  in.read(reinterpret_cast<char *>(&buf[1]), 2 * sizeof(double));
  in.close();
  return y * x + buf[1] + buf[2] * buf[2];
}

int main() {
  snprintf(path, sizeof path, "/tmp/umbra-read-%d.bin", (int)getpid());
  double x = 1.7;
  // y = x*x read back (a constant c): d/dx (c*x + 3x + 25x^2) = c + 3 + 50x.
  double expect = x * x + 3 + 50 * x;
  fd_check("primal", f(x), x * x * x + 3 * x + 25 * x * x);
  fd_check("reverse", __enzyme_autodiff((void *)f, x), expect);
  fd_check("forward", __enzyme_fwddiff((void *)f, x, 1.0), expect);
  remove(path);
  return fd_finish();
}
