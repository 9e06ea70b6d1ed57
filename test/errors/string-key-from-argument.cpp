// RUN: %clangxx -O2 -g -I %testinc -I %runtime-include -c -emit-llvm %s -o %t2.bc
// RUN: %umbra %t2.bc -o %t2.o
// RUN: %clangxx %t2.o -lm -o %t2.exe
// RUN: %t2.exe | FileCheck %s --check-prefix=SHORT
// RUN: not --crash %t2.exe long 2>&1 | FileCheck %s
// RUN: %clangxx -O3 -g -I %testinc -I %runtime-include -fpass-plugin=%plugin %s -lm -o %t3p.exe
// RUN: %t3p.exe | FileCheck %s --check-prefix=SHORT
// RUN: not --crash %t3p.exe long 2>&1 | FileCheck %s
// A std::map key built from a `const char *` argument, at -O2 and -O3: the type analysis
// cannot tell the key's heap characters from the in-place buffer of the node's string, which
// the node's double follows, so it lets the characters' copy move at most 16 bytes. A short
// name gives the right gradient; a long one stops the program naming the copy, before a
// gradient could be returned (not a silently wrong one).
// SHORT: all 2 checks passed
// CHECK: char_traits.h:{{[0-9]+}}:{{[0-9]+}}: {{.*}}copies more than 16 bytes
#include "fdcheck.h"
#include "umbra.h"
#include <map>
#include <string>

extern "C" __attribute__((noinline)) double total(const double *x, const char *name) {
  std::map<std::string, double> m;
  m[name] = x[0] * x[1];
  m["other_coefficient_name"] = x[1];
  return m[name] * m["other_coefficient_name"];
}

int main(int argc, char **argv) {
  (void)argv;
  double x[2] = {0.7, -0.4}, dx[2] = {0};
  const char *name = argc > 1 ? "electron, a name longer than fifteen characters" : "ion";
  __enzyme_autodiff((void *)total, enzyme_dup, x, dx, enzyme_const, name);
  fd_check("d/dx0", dx[0], x[1] * x[1]);
  fd_check("d/dx1", dx[1], 2 * x[0] * x[1]);
  return fd_finish();
}
