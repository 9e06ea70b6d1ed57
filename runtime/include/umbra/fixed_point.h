/*
 * umbra/fixed_point.h - loops iterated to convergence whose derivative is taken at the
 * converged state. Also reachable as <enzyme/fixed_point.h> (Enzyme's ABI).
 *
 *     __enzyme_fixed_point(step, enzyme_fp_state, z, bytes,      (one or more states)
 *                          [enzyme_fp_reduction, r,]             (double; default 1e-12)
 *                          [enzyme_fp_max_iters, n,]             (int64_t; default 1000, 0: none)
 *                          [enzyme_fp_control, control,]
 *                          [enzyme_checkpoint_region, ptr, bytes,]...
 *                          args...);
 *
 * is the loop `int64_t i = 0; while (step(i++, args...));` (step returns nonzero to iterate
 * again), the `umbra_` spellings alike. Forward mode does not differentiate the iterations one
 * by one: the loop runs, then the tangent of one step is iterated at the state it converged to
 * (restored before each pass), s <- phi_z s + phi_x xdot, from s = 0 (the tangent of the
 * initial guess has no effect), until the squared 2-norm of the change of the states' tangents
 * (read as doubles) falls to r times its value after the first pass (or is 0 after the first),
 * or after n passes. With a control function, Tapenade's protocol decides instead:
 *
 *     int control(double *cumul, double *reduction);
 *
 * is called with *cumul = -1 before the first pass (returning 0 skips the passes) and with the
 * squared norm after each, and returns whether to go on. A Newton iteration, whose step has
 * phi_z = 0 at its fixed point, takes two passes. The primal state afterwards is the one the
 * loop converged to.
 *
 * Reverse mode is Christianson's two-phase adjoint: the forward sweep keeps only the converged
 * state (and the regions), one snapshot whatever the number of iterations; the reverse sweep
 * iterates the adjoint of one step at that state until the squared 2-norm of the state's
 * adjoint update falls to r times its value after the first pass (same limits and control
 * function, *cumul being that norm). The state's shadow is zero afterwards (the converged state
 * does not depend on the initial guess), and the primal memory is left as the reverse sweep
 * found it. enzyme_checkpoint_region, ptr, bytes marks other memory the step reads that later
 * code may overwrite: it is kept with the state, and so are the mutable globals the step refers
 * to that some code writes.
 *
 * A loop may instead be marked from inside, at the top of its body (what Enzyme's Fortran
 * directive lowers to):
 *
 *     while (err > tol) {
 *       __enzyme_set_fixed_point(reduction, max_iters, control, state, bytes, ...);
 *       ...
 *     }
 *
 * (a negative reduction or max_iters, or a null control: the defaults; all computed before the
 * loop). Umbra outlines one iteration as the step: the loop is tested at its bottom (a `while`
 * loop is rotated first), has one exit, and the values it carries in variables join the state.
 * Other shapes are refused at compile time naming the marker's line.
 */
#ifndef UMBRA_FIXED_POINT_H
#define UMBRA_FIXED_POINT_H
#ifndef ENZYME_FIXED_POINT_H
#define ENZYME_FIXED_POINT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Markers (recognised by name, never defined) and the entry points. */
extern int enzyme_fp_state;
extern int enzyme_fp_reduction;
extern int enzyme_fp_max_iters;
extern int enzyme_fp_control;
extern int enzyme_checkpoint_region;
extern int umbra_fp_state;
extern int umbra_fp_reduction;
extern int umbra_fp_max_iters;
extern int umbra_fp_control;
extern int umbra_checkpoint_region;

void __enzyme_fixed_point(void *step, ...);
void __umbra_fixed_point(void *step, ...);
void __enzyme_set_fixed_point(double reduction, int64_t max_iters, void *control, ...);

#ifdef __cplusplus
}
#endif

#endif /* ENZYME_FIXED_POINT_H */
#endif /* UMBRA_FIXED_POINT_H */
