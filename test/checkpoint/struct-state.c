// RUN: %clang -O0 -g -I%runtime-include -I%testinc -c -emit-llvm %s -o %t.0.bc
// RUN: not %umbra %t.0.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O2 -g -I%runtime-include -I%testinc -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O0 -g -I%runtime-include -I%testinc -DHELPER -c -emit-llvm %s -o %t.h.bc
// RUN: not %umbra %t.h.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=HELPER
// RUN: not %clang -O1 -g -I%runtime-include -I%testinc -DHELPER -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=HELPER
// RUN: env EXTRA_CFLAGS="-DMARKED -DHELPER" %exec-test %s driver 1 %t
// RUN: env EXTRA_CFLAGS="-DMARKED -DHELPER" %exec-test %s plugin 2 %t
// RUN: env EXTRA_CFLAGS=-DMARKED %exec-test %s driver 0 %t
// RUN: env EXTRA_CFLAGS=-DMARKED %exec-test %s driver 2 %t
// RUN: env EXTRA_CFLAGS=-DMARKED %exec-test %s plugin 1 %t
// RUN: env EXTRA_CFLAGS=-DMARKED %exec-test %s plugin 3 %t
// A step that reaches its state through a struct of pointers (the shape of a simulation
// object): the marked region s->pos covers what the step writes through s->pos, but not what
// it writes and reads through s->vel, another field of the same struct, which Umbra refuses,
// naming the store (before it checked this, the gradient was silently off by 0.4%); also
// when a helper writes through the address of the field (with -DHELPER; &s->vel is not
// &s->pos, though both point into *s). With both fields marked, the gradient equals the
// fully taped one and finite differences.
#include <umbra/checkpoint.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define N 6
#define STEPS 40

struct sim {
  double *pos;
  double *vel;
  double dt;
};

__attribute__((noinline)) static void kick(double **vel, const double *pos, double dt) {
  for (int j = 0; j < N; j++) {
    double f = -sin(pos[j]) + 0.1 * (pos[(j + 1) % N] - pos[j]);
    // HELPER: struct-state.c:[[@LINE+1]]:{{.*}}checkpointed step 'step' writes memory that later steps read and no snapshot holds (memory reached through a pointer stored where its argument 1 points)
    (*vel)[j] += dt * f;
  }
}

__attribute__((noinline)) static void step(int64_t i, struct sim *s) {
  (void)i;
#if defined(HELPER)
  kick(&s->vel, s->pos, s->dt);
#else
  for (int j = 0; j < N; j++) {
    double f = -sin(s->pos[j]) + 0.1 * (s->pos[(j + 1) % N] - s->pos[j]);
    // CHECK: struct-state.c:[[@LINE+1]]:{{.*}}checkpointed step 'step' writes memory that later steps read and no snapshot holds (memory reached through a pointer stored where its argument 1 points)
    s->vel[j] += s->dt * f;
  }
#endif
  for (int j = 0; j < N; j++)
    s->pos[j] += s->dt * s->vel[j];
}

static EnzymeCkptConfig config = {5, 0, NULL, 0, NULL};
static const int64_t bytes = N * sizeof(double);

static double checkpointed(struct sim *s) {
  __enzyme_checkpoint_for((void *)step, 0, STEPS, enzyme_scheme, &EnzymeCkptRevolve, &config,
                          enzyme_checkpoint_region, s->pos, bytes,
#if defined(MARKED)
                          enzyme_checkpoint_region, s->vel, bytes,
#endif
                          s);
  double e = 0;
  for (int j = 0; j < N; j++)
    e += s->pos[j] * s->pos[j] * (j + 1) + s->vel[j];
  return e;
}

static double plain(struct sim *s) {
  for (int64_t i = 0; i < STEPS; i++)
    step(i, s);
  double e = 0;
  for (int j = 0; j < N; j++)
    e += s->pos[j] * s->pos[j] * (j + 1) + s->vel[j];
  return e;
}

static void init(double *pos, double *vel) {
  for (int j = 0; j < N; j++) {
    pos[j] = 0.2 * j - 0.4;
    vel[j] = 0.05 * j;
  }
}

static double at(const double *x, void *ctx) {
  (void)ctx;
  double pos[N], vel[N];
  init(pos, vel);
  memcpy(pos, x, bytes);
  struct sim s = {pos, vel, 0.1};
  return plain(&s);
}

// Apart: at -O2 clang would merge two requests into one call of a selected function.
__attribute__((noinline)) static void grad_checkpointed(struct sim *s, struct sim *ds) {
  __enzyme_autodiff((void *)checkpointed, enzyme_dup, s, ds);
}

__attribute__((noinline)) static void grad_plain(struct sim *s, struct sim *ds) {
  __enzyme_autodiff((void *)plain, enzyme_dup, s, ds);
}

static void gradient(int ckpt, double *g) {
  double *pos = malloc(bytes), *vel = malloc(bytes);
  double *dpos = calloc(N, sizeof(double)), *dvel = calloc(N, sizeof(double));
  init(pos, vel);
  struct sim *s = malloc(sizeof(struct sim)), *ds = calloc(1, sizeof(struct sim));
  *s = (struct sim){pos, vel, 0.1};
  *ds = (struct sim){dpos, dvel, 0};
  if (ckpt)
    grad_checkpointed(s, ds);
  else
    grad_plain(s, ds);
  memcpy(g, dpos, bytes);
  free(pos);
  free(vel);
  free(dpos);
  free(dvel);
  free(s);
  free(ds);
}

int main(void) {
  int failures = 0;
  double x[N], v[N], fd[N], taped[N], got[N];
  init(x, v);
  fd_grad(at, NULL, x, N, fd);
  gradient(0, taped);
  gradient(1, got);
  fd_check_array("taped", taped, fd, N);
  fd_check_array("checkpointed", got, fd, N);
  for (int j = 0; j < N; j++)
    if (fabs(got[j] - taped[j]) > 1e-13 * (1 + fabs(taped[j]))) {
      printf("FAIL dpos[%d] = %.17g, fully taped %.17g\n", j, got[j], taped[j]);
      failures++;
    }
  return fd_finish() | (failures != 0);
}
