// RUN: %clang -O0 -g -I%runtime-include -DBREAK -c -emit-llvm %s -o %t.b.bc
// RUN: not %umbra %t.b.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=BREAK
// RUN: %clang -O2 -g -I%runtime-include -DBREAK -c -emit-llvm %s -o %t.b2.bc
// RUN: not %umbra %t.b2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=BREAK2
// RUN: %clang -O0 -g -I%runtime-include -DWHILE -c -emit-llvm %s -o %t.w.bc
// RUN: not %umbra %t.w.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=WHILE
// RUN: %clang -O0 -g -I%runtime-include -DSTRIDE -c -emit-llvm %s -o %t.s.bc
// RUN: not %umbra %t.s.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: %clang -O0 -g -I%runtime-include -DLOCAL -c -emit-llvm %s -o %t.l.bc
// RUN: not %umbra %t.l.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=LOCAL
// RUN: %clang -O0 -g -I%runtime-include -DNOLOOP -c -emit-llvm %s -o %t.n.bc
// RUN: not %umbra %t.n.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=NOLOOP
// RUN: %clang -O1 -g -I%runtime-include -DUNMARKED -c -emit-llvm %s -o %t.u.bc
// RUN: not %umbra %t.u.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=UNMARKED
// RUN: %clang -O0 -g -I%runtime-include -DNONCONST -c -emit-llvm %s -o %t.c.bc
// RUN: not %umbra %t.c.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=NONCONST
// What the loop outliner refuses, each in one line naming the function and the marker's line:
// a loop with a second exit (break), a loop that is not counted (a while loop on a float), a
// counter going up by two, state in a local array of the function, a marker with no loop after
// it, heap state reached through a parameter that no region marks, and Enzyme's marker with a
// mode that is not a constant.
#include <umbra/checkpoint.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

static EnzymeCkptConfig config = {3, 0, 0, 0, 0};

double f(double *u, int n, int mode) {
  (void)mode;
  double s = 0;
#if defined(LOCAL)
  double w[4] = {0};
#endif
#if !defined(NONCONST)
  umbra_checkpoint_next_loop(&EnzymeCkptRevolve, &config);
#endif
#if defined(BREAK)
  // BREAK: marked-loop-errors.c:36:3: in function 'f': the loop marked for checkpointing here (in 'f') cannot be outlined: the loop has several exits
  // At -O2 the two exits are one, on a test that is not counted.
  // BREAK2: marked-loop-errors.c:36:3: in function 'f': {{.*}} cannot be outlined: its test is not a counted one
  for (int t = 0; t < n; t++) {
    s += u[0] * u[0];
    if (s > 100)
      break;
  }
#elif defined(WHILE)
  // WHILE: marked-loop-errors.c:36:3: in function 'f': {{.*}} cannot be outlined: its test is not a counted one
  while (s < 10)
    s += u[0] * u[0] + 1;
#elif defined(STRIDE)
  // STRIDE: marked-loop-errors.c:36:3: in function 'f': {{.*}} cannot be outlined: its test is not a counted one
  for (int t = 0; t < n; t += 2)
    s += u[0] * u[0];
#elif defined(LOCAL)
  // LOCAL: marked-loop-errors.c:36:3: in function 'f': {{.*}} cannot be outlined: the loop uses a local variable of 'f' ({{.*}}alloca{{.*}}); in reverse mode the steps run again after 'f' has returned
  for (int t = 0; t < n; t++) {
    w[t % 4] += u[0];
    s += w[(t + 1) % 4] * u[0];
  }
#elif defined(NOLOOP)
  // NOLOOP: marked-loop-errors.c:36:3: in function 'f': {{.*}} cannot be outlined: no loop follows the marker
  s = u[0] * u[0];
#elif defined(UNMARKED)
  // UNMARKED: marked-loop-errors.c:[[@LINE+2]]:14: in function 'umbra.ckpt.step.f': checkpointed loop 'umbra.ckpt.step.f' writes memory that later iterations read and no snapshot holds (the memory 'u', parameter 1 of 'f' points to): mark it with umbra_checkpoint_region, pointer, bytes in a call of umbra_checkpoint_next_loop just before the loop
  for (int t = 0; t < n; t++)
    u[t % 3] = u[(t + 1) % 3] * 0.5 + 1;
  s = u[0];
#elif defined(NONCONST)
  // NONCONST: marked-loop-errors.c:[[@LINE+2]]:5: in function 'f': {{.*}} cannot be outlined: __enzyme_set_checkpointing takes a constant mode
  for (int t = 0; t < n; t++) {
    __enzyme_set_checkpointing(mode, 3);
    s += u[0] * u[0];
  }
#endif
  return s;
}

int main(void) {
  double u[3] = {1, 2, 3}, du[3] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, u, du, enzyme_const, 5, enzyme_const, 2);
  return 0;
}
