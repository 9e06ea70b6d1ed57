// RUN: %clang -O1 -g -I%runtime-include -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=LOCAL
// RUN: %clang -O1 -g -I%runtime-include -DWHILE -c -emit-llvm %s -o %t.w.bc
// RUN: not %umbra %t.w.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=WHILE
// RUN: %clang -O1 -g -I%runtime-include -DNOSCHEME -c -emit-llvm %s -o %t.n.bc
// RUN: not %umbra %t.n.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=NOSCHEME
// RUN: %clang -O1 -g -I%runtime-include -DBYVALUE -c -emit-llvm %s -o %t.v.bc
// RUN: not %umbra %t.v.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=BYVALUE
// What Umbra refuses about checkpointed loops, each with its reason at the call site: a step
// in a local variable, a while loop's step that returns no integer, no scheme, an active float
// by value.
#include <umbra/checkpoint.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

static EnzymeCkptConfig config = {2, 0, 0, 0, 0};

__attribute__((noinline)) static void step(int64_t i, double *u, double *e) {
  u[0] = u[0] * 0.9 + (double)i;
  *e += u[0];
}

__attribute__((noinline)) static void scaled(int64_t i, double *u, double s) {
  u[0] = u[0] * s + (double)i;
}

double f(double *u, double s) {
#if defined(WHILE)
    // WHILE: errors.c:[[@LINE+1]]:{{.*}}__enzyme_checkpoint_while: the step step must return an integer
  __enzyme_checkpoint_while((void *)step, enzyme_scheme, &EnzymeCkptStoreAll, &config, u, u);
#elif defined(NOSCHEME)
  double e = 0;
  // NOSCHEME: errors.c:[[@LINE+1]]:{{.*}}__enzyme_checkpoint_for needs enzyme_scheme
  __enzyme_checkpoint_for((void *)step, 0, 10, u, &e);
  return e;
#elif defined(BYVALUE)
  // BYVALUE: takes a floating-point value that carries a derivative: pass it by pointer
  __enzyme_checkpoint_for((void *)scaled, 0, 10, enzyme_scheme, &EnzymeCkptRevolve, &config,
                          enzyme_checkpoint_region, u, (int64_t)8, u, s);
#else
  double e = 0;
  // LOCAL: errors.c:[[@LINE+1]]:{{.*}}the step's argument 2 points into a local variable
  __enzyme_checkpoint_for((void *)step, 0, 10, enzyme_scheme, &EnzymeCkptRevolve, &config,
                          enzyme_checkpoint_region, u, (int64_t)8, u, &e);
  return e;
#endif
  (void)s;
  return u[0];
}

void g(double *u, double *du, double s) { __enzyme_autodiff((void *)f, enzyme_dup, u, du, s); }
