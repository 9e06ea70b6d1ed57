// Seed for the corrupt-input corpus (test/corrupt/corpus.py) and the front-door fuzzer: a
// forward-mode request over a struct, a loop and a libm call, compiled with -g so that the
// bitcode also carries debug metadata.
#include <math.h>
double __enzyme_fwddiff(void *, ...);
extern int enzyme_const;
struct params { double a, b; };
static double f(double x, const struct params *p) {
  double s = 0;
  for (int i = 0; i < 4; i++)
    s += p->a * sin(x * i) + p->b;
  return s * x;
}
double df(double x) {
  struct params p = {1.0, 2.0};
  return __enzyme_fwddiff((void *)f, x, 1.0, enzyme_const, &p);
}
