/*
 * The ADOL-C side of one benchmark: src/<name>.h (named by -DBENCH_HEADER) compiled on adouble,
 * so ADOL-C tapes exactly the primal that umbra differentiates.
 */
#include "bench.h"
#include BENCH_HEADER
#include <adolc/taping.h>

extern "C" void bench_adolc_tape(short tag, const double *x) {
  double y;
  trace_on(tag);
  {
    adouble *ax = new adouble[bench_n];
    for (int i = 0; i < bench_n; i++)
      ax[i] <<= x[i];
    adouble ay = bench_flat(ax);
    ay >>= y;
    delete[] ax;
  }
  trace_off();
}
