// RUN: %clang -O1 -g -c -emit-llvm -DCASE=1 %s -o %t.1.bc
// RUN: not %umbra %t.1.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -DCASE=1 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=2 %s -o %t.2.bc
// RUN: not %umbra %t.2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=NOFREE
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=3 %s -o %t.3.bc
// RUN: not %umbra %t.3.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=COMBINED
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=4 %s -o %t.4.bc
// RUN: not %umbra %t.4.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=NOTAPE
// RUN: %clang -O1 -g -c -emit-llvm -DCASE=5 %s -o %t.5.bc
// RUN: not %umbra %t.5.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=BYVALUE
// Split-mode options umbra refuses, each with the call site: a tape buffer smaller than
// __enzyme_augmentsize's answer, enzyme_nofree (running a reverse sweep twice on one tape), a
// split-mode marker in a combined gradient, a reverse sweep without its tape, and
// enzyme_allocated without a buffer (Enzyme would return the tape by value).
extern int enzyme_dup, enzyme_allocated, enzyme_tape, enzyme_nofree;
void __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
double __enzyme_autodiff(void *, ...);

void sq(double *y, const double *x) { y[0] = x[0] * x[0]; }
double cube(double x) { return x * x * x; }

#if CASE == 1
void small(double *y, double *dy, double *x, double *dx) {
  char tape[16];
  // SMALL: split-bad-options.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}the tape buffer has 16 bytes; 'sq' needs 32 (what __enzyme_augmentsize returns)
  __enzyme_augmentfwd((void *)sq, enzyme_allocated, 16, enzyme_tape, tape, y, dy, x, dx);
}
#elif CASE == 2
void nofree(double *y, double *dy, double *x, double *dx, void *tape) {
  // NOFREE: split-bad-options.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}enzyme_nofree (keeping the tape to run the reverse sweep again) is not supported by umbra yet
  __enzyme_reverse((void *)sq, enzyme_allocated, 32, enzyme_nofree, enzyme_tape, tape, y, dy, x, dx);
}
#elif CASE == 3
double combined(double x, void *tape) {
  // COMBINED: split-bad-options.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}marker at argument 2 of '__enzyme_autodiff' is for split mode (__enzyme_augmentfwd and __enzyme_reverse) only
  return __enzyme_autodiff((void *)cube, enzyme_tape, tape, x);
}
#elif CASE == 4
void no_tape(double *y, double *dy, double *x, double *dx) {
  // NOTAPE: split-bad-options.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_reverse' needs the tape: the value __enzyme_augmentfwd returned, after the arguments
  __enzyme_reverse((void *)sq, y, dy, x, dx);
}
#else
void by_value(double *y, double *dy, double *x, double *dx) {
  // BYVALUE: split-bad-options.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}enzyme_allocated needs enzyme_tape and the buffer of that size
  __enzyme_augmentfwd((void *)sq, enzyme_allocated, 32, y, dy, x, dx);
}
#endif
