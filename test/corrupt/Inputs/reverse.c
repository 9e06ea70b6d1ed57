// Seed for the corrupt-input corpus (test/corrupt/corpus.py) and the front-door fuzzer: a
// reverse-mode request over an array, with a shadow buffer.
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
static double norm2(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}
void grad(const double *x, double *dx, int n) {
  __enzyme_autodiff((void *)norm2, enzyme_dup, x, dx, enzyme_const, n);
}
