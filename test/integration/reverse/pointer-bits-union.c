// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Under AddressSanitizer, whose checks put blocks between a load and its store (the failing
// side ends in `unreachable`): the pointer bytes' copy is still recognised (before: refused as a copy
// through an integer).
// RUN: env "EXTRA_CFLAGS=-fsanitize=address" EXTRA_LDFLAGS=-fsanitize=address %exec-test %s driver 2 %t
// RUN: env "EXTRA_CFLAGS=-fsanitize=address" EXTRA_LDFLAGS=-fsanitize=address %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -fno-strict-aliasing
#include "fdcheck.h"
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
int enzyme_dup, enzyme_const;
/* Tagged slots holding a pointer to data or a count in the same bytes (a C union, as the
   variants of a Rust enum share them), copied between two layouts as one integer: without
   TBAA (-fno-strict-aliasing, or Rust) the copy is an untyped i64 load and store at different
   offsets, of bytes the type analysis finds pointers in. Reverse mode copies the shadow's
   bytes along (the pointer's shadow); before, it refused the copy ("the type analysis found
   pointer data there"). */
typedef union { double *p; long n; } payload;
typedef struct { long tag; payload u; } slot;      /* payload at offset 8 */
typedef struct { payload u; long tag; } flipped;   /* payload at offset 0 */
__attribute__((noinline)) void flip(flipped *d, const slot *s) {
  d->u.n = s->u.n; /* the bytes of whichever member is live */
  d->tag = s->tag != 0; /* computed: integer data */
}
__attribute__((noinline)) double use(const flipped *s) {
  return s->tag ? s->u.p[0] * s->u.p[1] : (double)s->u.n;
}
double f(double *x, slot *a, slot *b) {
  a->tag = 1; a->u.p = x;
  b->tag = 0; b->u.n = 3;
  flipped c, d;
  flip(&c, a);
  flip(&d, b);
  return use(&c) * use(&c) + use(&d);
}
static double f_at(const double *v, void *ctx) { (void)ctx; double x[2] = {v[0], v[1]}; slot a, b; return f(x, &a, &b); }
int main(void) {
  double x[2] = {0.7, -1.3}, dx[2] = {0}, fd[2];
  slot a, b, da = {0}, db = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, &a, &da, enzyme_dup, &b, &db);
  fd_grad(f_at, NULL, x, 2, fd);
  fd_check("d/dx0", dx[0], fd[0]);
  fd_check("d/dx1", dx[1], fd[1]);
  double v[2] = {1, 2};
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_dup, &a, &da, enzyme_dup, &b, &db);
  fd_check("fwd vs rev", t, dx[0] * v[0] + dx[1] * v[1]);
  return fd_finish();
}
