// A gradient through 3000 steps of a 4096-point state under a 160 MB address-space limit
// (ulimit -v): the fully taped loop keeps every step's tape (about 3000 x 64 KB) and runs out;
// the checkpointed one (Revolve, 8 slots) holds 8 snapshots and one step's tape, and gets the
// same gradient entries as the taped one computed without the limit.
// RUN: %clang -O2 -I%runtime-include -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc -o %t.o
// RUN: %clang %t.o -lm -o %t
// RUN: %t taped > %t.ref
// RUN: bash -c 'ulimit -v 160000; %t checkpointed' > %t.ckpt
// RUN: diff %t.ref %t.ckpt
// RUN: bash -c 'ulimit -v 160000; %t taped; test $? -ne 0'
// RUN: %clang -O2 -I%runtime-include -fpass-plugin=%plugin %s -lm -o %t.p
// RUN: bash -c 'ulimit -v 160000; %t.p checkpointed' > %t.pckpt
// RUN: diff %t.ref %t.pckpt
#include <umbra/checkpoint.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define M 4096
#define STEPS 3000

__attribute__((noinline)) static void step(int64_t i, double *u, double *e) {
  (void)i;
  for (int j = 0; j < M; j++)
    u[j] = u[j] + 0.01 * sin(u[j]) * u[(j + 1) % M];
  *e += u[i % M] * 1e-3;
}

static EnzymeCkptConfig config = {8, 0, NULL, 0, NULL};

static double checkpointed(double *u, double *e) {
  __enzyme_checkpoint_for((void *)step, 0, STEPS, enzyme_scheme, &EnzymeCkptRevolve, &config,
                          enzyme_checkpoint_region, u, (int64_t)(M * sizeof(double)),
                          enzyme_checkpoint_region, e, (int64_t)sizeof(double), u, e);
  return *e + u[7];
}

static double taped(double *u, double *e) {
  for (int64_t i = 0; i < STEPS; i++)
    step(i, u, e);
  return *e + u[7];
}

static double u[M], du[M];

__attribute__((noinline)) static void grad_checkpointed(double *e, double *de) {
  __enzyme_autodiff((void *)checkpointed, enzyme_dup, u, du, enzyme_dup, e, de);
}

__attribute__((noinline)) static void grad_taped(double *e, double *de) {
  __enzyme_autodiff((void *)taped, enzyme_dup, u, du, enzyme_dup, e, de);
}

int main(int argc, char **argv) {
  double e = 0, de = 0;
  int ckpt = argc > 1 && !strcmp(argv[1], "checkpointed");
  for (int j = 0; j < M; j++)
    u[j] = 0.5 + 0.3 * sin(j);
  if (ckpt)
    grad_checkpointed(&e, &de);
  else
    grad_taped(&e, &de);
  // Rounded: the two differentiate the same operations, possibly in another order.
  for (int j = 0; j < M; j += 512)
    printf("du[%d] = %.10e\n", j, du[j]);
  return 0;
}
