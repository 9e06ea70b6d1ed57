// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// A memcpy of part of a record (an int key and a double value) in a function that accesses
// only the record's other fields (an int and pointers), as libstdc++'s std::map copy clones a
// node. Regression: the copy's layout was inferred from the function's own accesses to the
// same objects, which saw pointers and no float and so called the copied bytes pointers only:
// the adjoint moved nothing (zero gradient through the copy). The module's type analysis knows
// the double at offset 8 of the copied bytes, from the accesses in the callers.
#include "fdcheck.h"
#include "umbra.h"
#include <stdlib.h>
#include <string.h>

struct node {
  int colour;
  struct node *parent, *left, *right;
  int key;
  double value;
};

enum { N = 6 };

__attribute__((noinline)) static void clone(struct node *n, const struct node *x,
                                            struct node *parent) {
  memcpy(&n->key, &x->key, sizeof(int) + sizeof(double) + 4);
  n->colour = x->colour;
  n->parent = parent;
  n->left = n->right = NULL;
}

__attribute__((noinline)) double f(const double *x) {
  struct node *a = malloc(N * sizeof(struct node)), *b = malloc(N * sizeof(struct node));
  for (int i = 0; i < N; i++) {
    a[i].colour = i & 1;
    a[i].key = i;
    a[i].value = x[i] * x[i];
  }
  for (int i = 0; i < N; i++) clone(&b[i], &a[i], &a[i]);
  double r = 0;
  for (int i = 0; i < N; i++) r += sin(b[i].value) * (b[i].key + 1);
  free(a);
  free(b);
  return r;
}

static double at(const double *p, void *c) {
  (void)c;
  return f(p);
}

int main(void) {
  double x[N] = {0.3, -0.5, 0.8, 0.15, 1.1, -0.7}, dx[N] = {0}, fd[N], v[N];
  fd_grad(at, NULL, x, N, fd);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  fd_check_array("gradient", dx, fd, N);
  for (int i = 0; i < N; i++) v[i] = 0.3 - 0.1 * i;
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v);
  double jv = 0;
  for (int i = 0; i < N; i++) jv += fd[i] * v[i];
  fd_check("tangent", t, jv);
  return fd_finish();
}
