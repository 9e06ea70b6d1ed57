// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clangxx -O2 -g -c -emit-llvm -I %testinc %s -o %t.bc
// RUN: %umbra %t.bc -O2 --tape-stats -o %t.o
// RUN: %clangxx %t.o -lm -o %t.stats.exe
// RUN: %t.stats.exe tape
// A function's scratch std::vector is freed with the sized operator delete
// (`_ZdlPvm(p, bytes)`). The adjoint re-reads the scratch array, so the free is deferred to the
// adjoint, which releases the block with the unsized `operator delete(void *)`: the sized
// call was not deferred (the adjoint calls a deferred deallocator with the pointer alone), and
// every value read from the scratch array was taped instead, once per element. With
// --tape-stats the tape is checked to hold nothing per element; the gradient is checked
// against finite differences.
#include "fdcheck.h"
#include <cstring>
#include <vector>
extern int enzyme_dup, enzyme_const;
extern "C" void __enzyme_autodiff(void *, ...);
enum { N = 2000 };
__attribute__((noinline)) double smooth(const double *x, int n) {
  std::vector<double> t(n);
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[i] + 1.0;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[i] * x[i];
  return s;
}
static long long tape_bytes;
extern "C" void umbra_tape_stats(long long bytes) { tape_bytes = bytes; }
static double at_x(const double *x, void *) { return smooth(x, N); }
int main(int argc, char **argv) {
  static double x[N], dx[N], fd[N];
  for (int i = 0; i < N; i++) x[i] = 0.3 + 0.2 * sin(0.05 * i);
  __enzyme_autodiff((void *)smooth, enzyme_dup, x, dx, enzyme_const, N);
  if (argc > 1 && strcmp(argv[1], "tape") == 0) {
    printf("tape bytes: %lld (one double per element: %d)\n", tape_bytes, 8 * N);
    fd_check_exact("nothing taped per element", tape_bytes < 8 * N / 8, 1);
    return fd_finish();
  }
  fd_grad(at_x, nullptr, x, N, fd);
  fd_check_array("d/dx", dx, fd, N);
  return fd_finish();
}
