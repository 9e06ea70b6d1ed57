// RUN: %clangxx -std=c++11 -O2 -g -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clangxx -std=c++11 -O2 -g -fpass-plugin=%plugin -c %s -o %t2.o 2>&1 | FileCheck %s
// A string stream in optimised code that reads into a variable holding a derivative: the
// extraction's rule zeroes that variable's derivative, so the call receives one and the stream
// object keeps a shadow; parts of its constructor and destructor are inlined and would run on
// that shadow, which the library's calls (primal only) never construct. Refused with a one-line
// error at compile time, never a crash of the derived code. A stream only the primal uses (read
// into fresh variables, written to) has no shadow and is differentiated at every level:
// integration/cxx/string-streams-optimised.cpp; at -O0, integration/cxx/streams-extract.cpp.
#include <sstream>
#include <string>
double __enzyme_autodiff(void *, ...);

double f(double x) {
  // CHECK: error: {{.*}}in function '_Z1fd'
  double v = x * 2;
  std::istringstream in(std::string("1.5"));
  in >> v;
  return x * v;
}

double g(double x) { return __enzyme_autodiff((void *)f, x); }
