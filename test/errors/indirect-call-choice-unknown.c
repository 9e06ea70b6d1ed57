// RUN: rm -f %t.o
// RUN: %clang -O0 -g -DCASE=1 -c -emit-llvm %s -o %t1.bc
// RUN: not %umbra %t1.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=ARG
// RUN: %clang -O2 -g -DCASE=1 -c -emit-llvm %s -o %t1o.bc
// RUN: not %umbra %t1o.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=ARG
// RUN: %clang -O0 -g -DCASE=2 -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=ESCAPE
// RUN: %clang -O2 -g -DCASE=2 -c -emit-llvm %s -o %t2o.bc
// RUN: not %umbra %t2o.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=ESCAPE
// RUN: %clang -O0 -g -DCASE=3 -c -emit-llvm %s -o %t3.bc
// RUN: not %umbra %t3.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=EXTERNAL
// RUN: %clang -O2 -g -DCASE=3 -c -emit-llvm %s -o %t3o.bc
// RUN: not %umbra %t3o.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=EXTERNAL
// RUN: test ! -e %t.o
// Function pointers chosen at run time whose possible targets cannot all be known stay a
// compile-time error saying why: a select between a known function and an argument; a local
// table whose address is passed to a function that may store anything there; a pointer
// returned by a function without a body in the module. (A select or phi of known functions, a
// local copy of a constant table, a function returning a known function are dispatched.)
double __enzyme_autodiff(void *, ...);
extern int enzyme_const;
typedef double (*op_t)(double);
double square(double x) { return x * x; }
double cube(double x) { return x * x * x; }
op_t lookup(const char *name);
// Replaces an entry with a function found at run time.
__attribute__((noinline)) void fill(op_t *ops) { ops[1] = lookup("cube"); }

#if CASE == 1
__attribute__((noinline)) double apply(op_t user, int pick, double x) {
  op_t op = pick ? square : user;
  // ARG: indirect-call-choice-unknown.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}the callee is not known at compile time (the function pointer: it is an argument of the calling function){{.*}}Ways out
  return op(x * x);
}
double d(double x) { return __enzyme_autodiff((void *)apply, enzyme_const, cube, enzyme_const, 1, x); }
#elif CASE == 2
__attribute__((noinline)) double apply(int pick, double x) {
  op_t ops[2] = {square, cube};
  fill(ops);
  // ESCAPE: indirect-call-choice-unknown.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}the callee is not known at compile time (the function pointer: it is loaded from a local variable whose address is passed to a call, which may write any function there){{.*}}Ways out
  return ops[pick & 1](x * x);
}
double d(double x) { return __enzyme_autodiff((void *)apply, enzyme_const, 1, x); }
#else
__attribute__((noinline)) double apply(int pick, double x) {
  op_t op = pick ? square : lookup("cube");
  // EXTERNAL: indirect-call-choice-unknown.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}the callee is not known at compile time (the function pointer: it is returned by a function whose body is not in this module){{.*}}Ways out
  return op(x * x);
}
double d(double x) { return __enzyme_autodiff((void *)apply, enzyme_const, 1, x); }
#endif
