// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -std=c++17
// std::complex<double> and std::complex<float> (C++17, libstdc++): `*` and `/` reach
// __muldc3/__divdc3 (__mulsc3/__divsc3), std::exp, std::log, std::sqrt, std::pow, std::sin,
// std::tanh reach cexp, clog, ... and std::abs, std::arg reach cabs, carg, through the
// library's inline wrappers, which pass complex numbers by reference (differentiated as
// ordinary code). FD runs the double formula at the float-rounded inputs.
#include "fdcheck.h"
#include <complex>

extern "C" int enzyme_dup;
extern "C" double __enzyme_autodiff(void *, ...);
extern "C" float __enzyme_autodiff_f(void *, ...);
#ifdef FD_SELFTEST
extern "C" float __enzyme_autodiff_f(void *, ...) { return 0; }
#endif

template <typename R> R body(const R *x) {
  std::complex<R> z(x[0], x[1]), w(x[2], x[3]);
  std::complex<R> p = z * w, q = z / w;
  std::complex<R> e = std::exp(z) + std::log(w) + std::sqrt(p) + std::pow(z, w) +
                      std::sin(q) * std::tanh(z) - std::conj(q) * R(0.5);
  return std::real(e) + R(0.7) * std::imag(e) + std::abs(p) * std::arg(q) + std::norm(q);
}

double fd_(const double *x) { return body(x); }
float ff_(const float *x) { return body(x); }
static double f_at(const double *x, void *) { return fd_(x); }

int main() {
  double x[4] = {0.6, -0.35, 0.9, 0.45};
  float xf[4];
  for (int i = 0; i < 4; i++) xf[i] = (float)x[i];
  double xr[4] = {xf[0], xf[1], xf[2], xf[3]};
  double dx[4] = {0}, g[4];
  __enzyme_autodiff((void *)fd_, enzyme_dup, x, dx);
  fd_grad(f_at, NULL, x, 4, g);
  fd_check_array("double dx", dx, g, 4);

  float dxf[4] = {0};
  __enzyme_autodiff_f((void *)ff_, enzyme_dup, xf, dxf);
  fd_grad(f_at, NULL, xr, 4, g);
  for (int i = 0; i < 4; i++) {
    char name[32];
    snprintf(name, sizeof name, "float dx[%d]", i);
    fd_check_f(name, dxf[i], g[i]);
  }
  return fd_finish();
}
