// RUN: %clangxx -O0 -g -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clangxx -O2 -g -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s
// __enzyme_virtualreverse takes one function (or vtable) pointer and returns its shadow (itself
// in Umbra); called otherwise, it is a one-line error at the call.
template <typename R, typename... T> R __enzyme_virtualreverse(void *, T...);

double f(double x) { return x * x; }

double use(double x) {
  // CHECK: enzyme-virtualreverse-args.cpp:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'_Z23__enzyme_virtualreverseIdJdEET_PvDpT0_' takes the function (or vtable) pointer whose shadow it returns, and returns a pointer
  return __enzyme_virtualreverse<double>((void *)f, x);
}

int main() { return use(2.0) > 0; }
