/*
 * bench.h - the interface between one benchmark (src/<name>.c) and the harness (harness.c).
 *
 * Each benchmark is linked into its own executable (harness.o + <name>.o + its ADOL-C tape), so
 * the names below are the same in every benchmark. The differentiated inputs are passed as one
 * flat array x of bench_n doubles; the benchmark splits it into its function's arguments.
 *
 * The primal is written once, on the type `real`, in src/<name>.h: C compiles it on double (the
 * primal, umbra's input and the hand gradient's reference), C++ on ADOL-C's adouble (the tape),
 * so both tools differentiate the same code.
 */
#ifndef BENCH_H
#define BENCH_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef __cplusplus
#include <adolc/adouble.h>
typedef adouble real;
#define REAL_ALLOC(n) (new adouble[(n)])
#define REAL_FREE(p) (delete[] (p))
extern "C" {
#else
typedef double real;
#define REAL_ALLOC(n) ((real *)malloc(sizeof(real) * (size_t)(n)))
#define REAL_FREE(p) free(p)
#endif

/* Defined by src/<name>.c. */
extern const char bench_name[];
extern const int bench_n;  /* number of differentiated inputs */
extern double *bench_data; /* constant (not differentiated) data built by bench_init, or NULL */
void bench_init(double *x); /* fixes x (and bench_data) from a seed */
double bench_primal(const double *x);
void bench_hand_grad(const double *x, double *g); /* overwrites g */
/* Umbra's gradient (overwrites g) and tangent along v. Left undefined (weak NULL in the harness)
 * when the build script had to compile the benchmark without them because umbra failed. */
void bench_umbra_grad(const double *x, double *g);
double bench_umbra_tangent(const double *x, const double *v);

/* Defined by adolc_tape.cpp: records the primal at x on ADOL-C tape `tag`. */
void bench_adolc_tape(short tag, const double *x);

#ifdef __cplusplus
}
#endif

/* Deterministic inputs: splitmix64, uniform in [lo, hi). */
static inline double bench_uniform(uint64_t *state, double lo, double hi) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return lo + (hi - lo) * (double)(z >> 11) * 0x1.0p-53;
}

static inline void bench_fill(double *x, int n, uint64_t seed, double lo, double hi) {
  for (int i = 0; i < n; i++)
    x[i] = bench_uniform(&seed, lo, hi);
}

#endif /* BENCH_H */
