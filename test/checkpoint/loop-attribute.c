// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: env EXTRA_CFLAGS=-fsanitize=address EXTRA_LDFLAGS=-fsanitize=address %exec-test %s driver 1 %t
// RUN: env EXTRA_CFLAGS=-fsanitize=address EXTRA_LDFLAGS=-fsanitize=address %exec-test %s plugin 2 %t
// Under AddressSanitizer: the function frees its heap state and the cell after the loop,
// which the gradient's reverse sweep reads again (those frees must wait for it).
// EXEC-CLANG-PLUGIN
// RUN: %clang -O2 -g -I%runtime-include -I%testinc -fplugin=%clang-plugin -fplugin-arg-umbra-no-pass -c -emit-llvm %s -o %t.attr.bc
// RUN: llvm-dis-22 %t.attr.bc -o - | FileCheck %s --check-prefix=MARK
// RUN: %umbra -O0 %t.attr.bc -o - | FileCheck %s --check-prefix=IR --implicit-check-not=__enzyme_set_checkpointing
// MARK-DAG: call void @__enzyme_set_checkpointing(i64 noundef 2, i64 noundef 4)
// MARK-DAG: call void @__enzyme_set_checkpointing(i64 noundef 1, i64 noundef 0)
// IR-DAG: define internal void @umbra.ckpt.step.binomial(
// IR-DAG: define internal void @umbra.ckpt.step.regular(
// IR-DAG: define internal void @umbra.ckpt.step.small(
// MARK-DAG: !{!"llvm.loop.unroll.disable"}
// Enzyme's loop attribute through the clang plugin: enzyme_checkpointing_enable("binomial", 4)
// and ("regular") with the default number of snapshots (the square root of the number of
// steps) on plain `for` loops. The state is a heap array the function allocates itself (a whole
// region of its own: no mark needed), a scalar sum carried in a variable and the counter; dt
// is read by value. Gradients equal the unannotated loop's (fully taped) and finite
// differences.
#include <enzyme/checkpoint.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define N 6
#define STEPS 50

#define BODY                                                                                  \
  for (int j = 0; j < N; j++)                                                                 \
    v[j] += dt * (u[(j + 1) % N] - 2 * u[j] + u[(j + N - 1) % N]) - dt * 0.2 * sin(u[j]);     \
  for (int j = 0; j < N; j++)                                                                 \
    u[j] += dt * v[j];                                                                        \
  acc += u[t % N] * dt;

#define RUN(NAME, ATTR)                                                                       \
  __attribute__((noinline)) double NAME(const double *u0, double dt, int steps) {             \
    double *u = malloc(2 * N * sizeof(double));                                               \
    double *v = u + N;                                                                        \
    for (int j = 0; j < N; j++) {                                                             \
      u[j] = u0[j];                                                                           \
      v[j] = 0;                                                                               \
    }                                                                                         \
    double acc = 0;                                                                           \
    ATTR for (int t = 0; t < steps; t++) { BODY }                                             \
    double e = acc;                                                                           \
    for (int j = 0; j < N; j++)                                                               \
      e += u[j] * u[j] + v[j] * v[j];                                                         \
    free(u);                                                                                  \
    return e;                                                                                 \
  }

RUN(binomial, __attribute__((enzyme_checkpointing_enable("binomial", 4))))
RUN(regular, __attribute__((enzyme_checkpointing_enable("regular"))))
RUN(taped, )

// A small body clang would unroll at -O2 (and Umbra then refuse): the attribute keeps it whole.
#define SMALL(NAME, ATTR)                                                                     \
  __attribute__((noinline)) double NAME(const double *u0, double dt, int steps) {             \
    double a = u0[0], b = u0[1];                                                              \
    ATTR for (int t = 0; t < steps; t++) {                                                    \
      double a1 = a + dt * b;                                                                 \
      b = b - dt * a * a1;                                                                    \
      a = a1;                                                                                 \
    }                                                                                         \
    return a * b;                                                                             \
  }
SMALL(small, __attribute__((enzyme_checkpointing_enable("binomial", 3))))
SMALL(small_taped, )

static double at(const double *x, void *ctx) {
  (void)ctx;
  return taped(x, x[N], STEPS);
}

int main(void) {
  double x[N + 1], fd[N + 1], g[N + 1] = {0}, r[N + 1] = {0}, h[N + 1] = {0};
  for (int j = 0; j < N; j++)
    x[j] = 0.3 + 0.1 * j * j;
  x[N] = 0.07;
  fd_grad(at, NULL, x, N + 1, fd);
  g[N] = __enzyme_autodiff((void *)binomial, enzyme_dup, x, g, enzyme_out, x[N], enzyme_const,
                           STEPS);
  r[N] = __enzyme_autodiff((void *)regular, enzyme_dup, x, r, enzyme_out, x[N], enzyme_const,
                           STEPS);
  h[N] = __enzyme_autodiff((void *)taped, enzyme_dup, x, h, enzyme_out, x[N], enzyme_const,
                           STEPS);
  fd_check_array("gradient (binomial)", g, fd, N + 1);
  fd_check_array("gradient (regular)", r, fd, N + 1);
  for (int j = 0; j <= N; j++) {
    fd_check_tol("binomial = taped", g[j], h[j], 1e-12, 1e-14);
    fd_check_tol("regular = taped", r[j], h[j], 1e-12, 1e-14);
  }
  fd_check_tol("value", binomial(x, x[N], STEPS), taped(x, x[N], STEPS), 0, 0);
  double s[2] = {0, 0}, st[2] = {0, 0};
  __enzyme_autodiff((void *)small, enzyme_dup, x, s, enzyme_const, 0.01, enzyme_const, STEPS);
  __enzyme_autodiff((void *)small_taped, enzyme_dup, x, st, enzyme_const, 0.01, enzyme_const,
                    STEPS);
  fd_check_array("small loop = taped", s, st, 2);
  return fd_finish();
}
