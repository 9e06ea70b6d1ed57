// RUN: %clangxx -O0 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: not %clangxx -O2 -g -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s
// C++ spellings of entry points umbra does not implement are recognised by name containment
// too. The message shows the identifier and the mangled name.
template <typename R, typename... T> R __enzyme_fwdsplit(void *, T...);

double f(double x) { return x * x; }

double use(double x) {
  // CHECK: unsupported-request-cxx.cpp:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_fwdsplit' ('_Z17__enzyme_fwdsplitIdJdEET_PvDpT0_') is Enzyme's __enzyme_fwdsplit, which umbra does not support yet
  return __enzyme_fwdsplit<double>((void *)f, x);
}

int main() { return use(2.0) > 0; }
