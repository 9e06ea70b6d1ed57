// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -fsanitize=address
// EXEC-LDFLAGS: -fsanitize=address
// Code built with AddressSanitizer: its instrumentation calls __asan_memcpy, __asan_memset
// and __asan_memmove for the memory intrinsics (the memcpy/memset/memmove rules, by alias;
// before: "no derivative rule for '__asan_memcpy'") and checks every load and store
// through shadow-byte lookups (integer arithmetic on the addresses, no derivative). The
// derived code runs under ASan too: an out-of-bounds access to a shadow would stop the test.
// The markers are only declared: ASan's checks of their loads stay behind when the requests
// are lowered, and Umbra gives such markers weak definitions (before: undefined references
// to `enzyme_const` at link time). Stack arrays live in one ASan frame, which use-after-return
// detection may move to a "fake stack" (an address the runtime returns as an integer): in the
// functions requests reach, the run-time switch reads as off, so the frame is the alloca
// (before: "pointer '%6 = inttoptr i64 %5 to ptr' is made from an integer").
// An in-place Gauss-Jordan inverse with partial pivoting on malloc'd copies.
#include "fdcheck.h"
#include <stdlib.h>
#include <string.h>
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const; /* defined nowhere */
#define N 5
double invsum(const double *a0, int n) {
  double *a = malloc(sizeof(double) * n * n), *inv = malloc(sizeof(double) * n * n);
  double piv[16]; /* n <= 16 */
  memcpy(a, a0, sizeof(double) * n * n);
  memset(inv, 0, sizeof(double) * n * n);
  for (int i = 0; i < n; i++) inv[i*n+i] = 1;
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++) if (fabs(a[r*n+c]) > fabs(a[p*n+c])) p = r;
    if (p != c) for (int j = 0; j < n; j++) {
      double t = a[c*n+j]; a[c*n+j] = a[p*n+j]; a[p*n+j] = t;
      t = inv[c*n+j]; inv[c*n+j] = inv[p*n+j]; inv[p*n+j] = t;
    }
    double d = a[c*n+c];
    piv[c] = d; /* a stack array: ASan's frame */
    for (int j = 0; j < n; j++) { a[c*n+j] /= d; inv[c*n+j] /= d; }
    for (int r = 0; r < n; r++) if (r != c) {
      double f = a[r*n+c];
      for (int j = 0; j < n; j++) { a[r*n+j] -= f * a[c*n+j]; inv[r*n+j] -= f * inv[c*n+j]; }
    }
  }
  memmove(inv + 1, inv, sizeof(double) * (n * n - 1)); /* shifts by one element */
  double s = 0;
  for (int i = 0; i < n*n; i++) s += inv[i] * (1 + 0.1 * i);
  for (int c = 0; c < n; c++) s += 0.01 * piv[c] * piv[c];
  free(a); free(inv);
  return s;
}
static double f_at(const double *v, void *c) { (void)c; return invsum(v, N); }
int main(void) {
  double a[N*N], g[N*N], fd[N*N], v[N*N];
  for (int i = 0; i < N*N; i++) { a[i] = sin(1.3 * i + 0.2) + (i % (N+1) == 0 ? 0.5 : 0); g[i] = 0; v[i] = cos(0.7*i); }
  __enzyme_autodiff((void *)invsum, enzyme_dup, a, g, enzyme_const, N);
  fd_grad(f_at, NULL, a, N*N, fd);
  for (int i = 0; i < N*N; i++) { char nm[32]; snprintf(nm, 32, "d/da[%d]", i); fd_check(nm, g[i], fd[i]); }
  double t = __enzyme_fwddiff((void *)invsum, enzyme_dup, a, v, enzyme_const, N);
  double dot = 0; for (int i = 0; i < N*N; i++) dot += g[i] * v[i];
  fd_check("fwd vs rev", t, dot);
  return fd_finish();
}
