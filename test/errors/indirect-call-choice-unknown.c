// RUN: rm -f %t.o
// RUN: %clang -O0 -g -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// A local table of functions whose address is passed to a function that stores a pointer
// found at run time there: the call through the table dispatches among the module's
// address-taken functions of its type (a choice between a known function and an argument, or a
// pointer returned by a function defined elsewhere, does too: reverse/callback-argument.c), but
// the table then holds a pointer that comes from outside the differentiated code, with no
// shadow, stored where differentiable pointers are expected: still a compile-time error naming
// the store.
double __enzyme_autodiff(void *, ...);
extern int enzyme_const;
typedef double (*op_t)(double);
double square(double x) { return x * x; }
double cube(double x) { return x * x * x; }
op_t lookup(const char *name);
// Replaces an entry with a function found at run time.
// CHECK: indirect-call-choice-unknown.c:[[@LINE+1]]:{{[0-9]+}}: in function 'fill': pointer {{.*}}@lookup{{.*}} has no shadow memory but flows where pointers with shadows are expected
__attribute__((noinline)) void fill(op_t *ops) { ops[1] = lookup("cube"); }

__attribute__((noinline)) double apply(int pick, double x) {
  op_t ops[2] = {square, cube};
  fill(ops);
  return ops[pick & 1](x * x);
}
double d(double x) { return __enzyme_autodiff((void *)apply, enzyme_const, 1, x); }
