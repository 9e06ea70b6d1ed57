// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// EXEC-CFLAGS: -ffast-math -march=x86-64-v3
// Under -ffast-math on an FMA machine the back end fuses `a*b + c` into one fma wherever the
// product has no other use. The derived functions' copies of the primal must round exactly as
// the program does: before, the gradient's forward sweep dropped the unused running sum, left
// the product with one use and fused `q - x[i+2]` where the program did not, so the outputs
// (and the max taken of them) differed in the last bits. The outputs the gradient's forward
// sweep and the tangent function write must equal the program's bit for bit.
// Through the driver only: inside clang (the plugin), `-ffast-math` sets the back end's
// global `-ffp-contract=fast`, which fuses any product with one use whatever its flags, so
// a derived copy whose product lost a use (here, when the gradient's tape keeps the inputs
// rather than the product) rounds apart in the last bit; see docs/reference/limitations.md.
#include "fdcheck.h"
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { N = 64 };

__attribute__((noinline)) double step(const double *x, double *out, int n) {
  double acc = 0;
  for (int i = 0; i < n; i++) {
    double q = x[i] * x[i + 1];
    double s = q + 0.3;
    double t = q - x[i + 2];
    double u = x[i + 1] * x[i + 2] - x[i] * 0.7;
    out[i] = t > u ? t : u;
    acc += s * s;
  }
  return acc;
}

static double step_at(const double *x, void *ctx) {
  (void)ctx;
  double out[N];
  return step(x, out, N);
}

int main(void) {
  double x[N + 2], dx[N + 2], fd[N + 2];
  for (int k = 0; k < N + 2; k++) x[k] = 0.1 + 0.37 * ((k * 7) % 11) / 3.0 + k * 1e-3;
  double out[N], out_grad[N], out_tan[N], dout[N];
  step(x, out, N);

  memset(dx, 0, sizeof dx);
  memset(dout, 0, sizeof dout);
  memset(out_grad, 0, sizeof out_grad);
  __enzyme_autodiff((void *)step, enzyme_dup, x, dx, enzyme_dup, out_grad, dout, enzyme_const,
                    N);
  int same = memcmp(out, out_grad, sizeof out) == 0;
  for (int i = 0; i < N && !same; i++)
    if (out[i] != out_grad[i])
      printf("gradient sweep out[%d] = %.17g, program %.17g\n", i, out_grad[i], out[i]);
  fd_check_exact("gradient sweep's outputs equal the program's", same, 1);

  double v[N + 2];
  for (int k = 0; k < N + 2; k++) v[k] = 1.0;
  memset(dout, 0, sizeof dout);
  memset(out_tan, 0, sizeof out_tan);
  double t = __enzyme_fwddiff((void *)step, enzyme_dup, x, v, enzyme_dup, out_tan, dout,
                              enzyme_const, N);
  same = memcmp(out, out_tan, sizeof out) == 0;
  for (int i = 0; i < N && !same; i++)
    if (out[i] != out_tan[i])
      printf("tangent out[%d] = %.17g, program %.17g\n", i, out_tan[i], out[i]);
  fd_check_exact("tangent function's outputs equal the program's", same, 1);

  fd_grad(step_at, NULL, x, N + 2, fd);
  fd_check_array("gradient", dx, fd, N + 2);
  double dot = 0;
  for (int k = 0; k < N + 2; k++) dot += fd[k] * v[k];
  fd_check("tangent", t, dot);
  return fd_finish();
}
