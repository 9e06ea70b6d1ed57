// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// In-place insertion sort of a dup array, then a weighted sum of the sorted
// values: the adjoints must follow the element moves back to the original
// positions (da[k] = 2 (rank(k)+1) a[k] + cos(a[k]) for the weighted part).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff_v(void *, ...);

static void isort(double *a, int n) {
  for (int i = 1; i < n; i++) {
    double key = a[i];
    int j = i - 1;
    while (j >= 0 && a[j] > key) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = key;
  }
}

double f(double *a, int n) {
  isort(a, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * a[i] * a[i] + sin(a[i]);
  return s;
}

enum { N = 11 };
static double f_at(const double *p, void *c) {
  (void)c;
  double a[N];
  memcpy(a, p, sizeof a);
  return f(a, N);
}

int main(void) {
  double x[N], a[N], da[N] = {0}, fd[N], ex[N];
  for (int i = 0; i < N; i++) x[i] = sin(2.7 * i + 1.0) * 3.0; // distinct, unsorted
  memcpy(a, x, sizeof a);
  __enzyme_autodiff_v((void *)f, enzyme_dup, a, da, enzyme_const, N);
  for (int i = 1; i < N; i++)
    fd_check("primal array sorted", a[i] >= a[i - 1], 1.0);
  fd_grad(f_at, NULL, x, N, fd);
  fd_check_array("da", da, fd, N);
  for (int k = 0; k < N; k++) {
    int rank = 0;
    for (int i = 0; i < N; i++) rank += x[i] < x[k];
    ex[k] = 2.0 * (rank + 1) * x[k] + cos(x[k]);
  }
  fd_check_array("da analytic", da, ex, N);
  return fd_finish();
}
