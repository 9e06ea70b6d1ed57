// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O2 -g -c -emit-llvm -I %testinc %s -o %t.bc
// RUN: %umbra %t.bc -O2 --print-types -o %t.o 2>&1 | FileCheck %s
// RUN: %umbra %t.bc -O2 --tape-stats -o %t.o
// RUN: %clang %t.o -lm -o %t.stats.exe
// RUN: %t.stats.exe tape
// A call after a loop writes only doubles (every store in its body, and in its callees, has
// a TBAA tag, all of them `double`). The loop's integer node indices and the mesh's pointer
// fields cannot be among the bytes it writes, so the adjoint re-reads them instead of taping
// them: only the gathered doubles, which the call may overwrite, are kept (16 bytes per
// iteration; 20 before, with the index). The gradient is checked against finite differences.
// CHECK:     load i32{{.*}}: re-read
// CHECK-NOT: load i32{{.*}}: cached
// CHECK:     load double{{.*}}: cached: may be overwritten by {{.*}}@scale(
#include "fdcheck.h"
#include <string.h>
void __enzyme_autodiff(void *, ...);
enum { N = 1000, NODES = 300 };
struct Mesh {
  int *nodes;
  double *x, *f;
  int n, nn;
};
__attribute__((noinline)) void scale(struct Mesh *m, double s) {
  for (int i = 0; i < m->nn; i++) m->f[i] *= s;
}
__attribute__((noinline)) double gather(struct Mesh *m) {
  double e = 0;
  for (int i = 0; i < m->n; i++) {
    int k = m->nodes[i];
    e += m->x[k] * m->x[k] * m->f[k];
  }
  scale(m, 0.5);
  return e;
}
static long long tape_bytes;
void umbra_tape_stats(long long bytes) { tape_bytes = bytes; }
static int nodes[N];
static double f0[NODES];
static double at_x(const double *x, void *c) {
  (void)c;
  double xs[NODES], fs[NODES];
  memcpy(xs, x, sizeof xs);
  memcpy(fs, f0, sizeof fs);
  struct Mesh m = {nodes, xs, fs, N, NODES};
  return gather(&m);
}
int main(int argc, char **argv) {
  double x[NODES], f[NODES], dx[NODES] = {0}, df[NODES] = {0}, fd[NODES], x0[NODES];
  for (int i = 0; i < N; i++) nodes[i] = (i * 37) % NODES;
  for (int i = 0; i < NODES; i++) {
    x0[i] = 0.5 + 0.3 * sin(0.7 * i);
    f0[i] = 1.0 + 0.1 * cos(0.2 * i);
  }
  memcpy(x, x0, sizeof x);
  memcpy(f, f0, sizeof f);
  struct Mesh m = {nodes, x, f, N, NODES}, dm = {nodes, dx, df, N, NODES};
  __enzyme_autodiff((void *)gather, &m, &dm);
  if (argc > 1 && strcmp(argv[1], "tape") == 0) {
    printf("tape bytes: %lld (16 per iteration: %d)\n", tape_bytes, 16 * N);
    fd_check_exact("no index taped", tape_bytes <= 16 * N + 512, 1);
    return fd_finish();
  }
  fd_grad(at_x, NULL, x0, NODES, fd);
  fd_check_array("d/dx", dx, fd, NODES);
  return fd_finish();
}
