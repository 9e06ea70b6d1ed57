// A gradient through 3000 iterations of a plain `for` loop over a 4096-point state, marked
// with umbra_checkpoint_next_loop, under a 160 MB address-space limit (ulimit -v): the fully
// taped loop keeps every iteration's tape (about 3000 x 64 KB) and runs out; the outlined,
// checkpointed one (Revolve, 8 slots) holds 8 snapshots and one iteration's tape, and gets
// the same gradient entries as the taped one computed without the limit. The same through
// the clang plugin's loop attribute (the state a heap block the function allocates).
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
// RUN: %clang -O1 -I%runtime-include -fplugin=%clang-plugin %s -lm -o %t.a
// RUN: bash -c 'ulimit -v 160000; %t.a attribute' > %t.attr
// RUN: diff %t.ref %t.attr
#include <umbra/checkpoint.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define M 4096
#define STEPS 3000

static EnzymeCkptConfig config = {8, 0, NULL, 0, NULL};

#define BODY                                                                                  \
  for (int j = 0; j < M; j++)                                                                 \
    u[j] = u[j] + 0.01 * sin(u[j]) * u[(j + 1) % M];                                          \
  e += u[i % M] * 1e-3;

__attribute__((noinline)) static double checkpointed(double *u) {
  double e = 0;
  umbra_checkpoint_next_loop(&EnzymeCkptRevolve, &config, umbra_checkpoint_region, u,
                             (int64_t)(M * sizeof(double)));
  for (int i = 0; i < STEPS; i++) {
    BODY
  }
  return e + u[7];
}

__attribute__((noinline)) static double taped(double *u) {
  double e = 0;
  for (int i = 0; i < STEPS; i++) {
    BODY
  }
  return e + u[7];
}

// The state copied into a heap block of the function's own: a region without a mark.
__attribute__((noinline)) static double attribute(double *u0) {
  double *u = malloc(M * sizeof(double));
  memcpy(u, u0, M * sizeof(double));
  double e = 0;
  __attribute__((enzyme_checkpointing_enable("binomial", 8))) for (int i = 0; i < STEPS; i++) {
    BODY
  }
  e += u[7];
  free(u);
  return e;
}

static double u[M], du[M];

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "taped";
  for (int j = 0; j < M; j++)
    u[j] = 0.5 + 0.3 * sin(j);
  if (!strcmp(which, "checkpointed"))
    __enzyme_autodiff((void *)checkpointed, enzyme_dup, u, du);
#ifdef __clang__
  else if (!strcmp(which, "attribute"))
    __enzyme_autodiff((void *)attribute, enzyme_dup, u, du);
#endif
  else
    __enzyme_autodiff((void *)taped, enzyme_dup, u, du);
  // Rounded: the two differentiate the same operations, possibly in another order.
  for (int j = 0; j < M; j += 512)
    printf("du[%d] = %.10e\n", j, du[j]);
  return 0;
}
