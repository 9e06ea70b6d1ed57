/*
 * umbra.h - derivative requests for Umbra, the automatic-differentiation compiler for LLVM IR.
 *
 * Write a call to one of the entry points below where you want a derivative; Umbra (the
 * `umbra` driver, or the opt/clang plugin libUmbraPlugin.so) replaces the call with generated
 * derivative code. Nothing here needs a runtime library: the entry points and markers are only
 * ever declared, never defined.
 *
 * ----------------------------------------------------------------------------------------------
 * Requests
 *
 *   double __umbra_fwddiff(void *f, ...);    forward mode
 *   double __umbra_autodiff(void *f, ...);   reverse mode
 *
 * The first argument is the function to differentiate, cast to void*. The remaining arguments
 * are f's arguments in order, each optionally preceded by an activity marker and, for
 * differentiated arguments, followed by its shadow:
 *
 *   double f(double *x, double y, int n);
 *   double dx[N] = {...};
 *   double ddf = __umbra_fwddiff((void *)f, umbra_dup, x, dx, umbra_dup, y, 1.0,
 *                                umbra_const, n);
 *
 * Forward mode (__umbra_fwddiff) returns the tangent of f's return value: the directional
 * derivative of f along the tangents given for the arguments. A pointer argument's shadow
 * holds the tangents of the memory it points to (input tangents on entry, the tangents of
 * whatever f stores there on return).
 *
 * Reverse mode (__umbra_autodiff) computes gradients, seeding f's (scalar) return value with
 * a derivative of 1.0. The partial derivatives with respect to `out` (active) floating-point
 * arguments are returned by the call, as in Enzyme: one such argument, as a double; several,
 * as a struct with one field per `out` argument, in order (declare the prototype, see "Return
 * types" below). Pointer shadows are INCREMENTED by the adjoints of the memory they shadow,
 * never overwritten: the caller zeroes them first (or accumulates across calls on purpose).
 *
 * ----------------------------------------------------------------------------------------------
 * Activity markers
 *
 *   umbra_dup        the argument is differentiated; the next argument is its shadow
 *                    (tangent in forward mode; for pointers, the shadow memory).
 *   umbra_dupnoneed  like umbra_dup, but the primal result is not needed (f's own outputs
 *                    through this pointer may be left unwritten); only the shadow matters.
 *   umbra_const      the argument is constant: no derivative is taken with respect to it.
 *   umbra_out        (reverse mode) an active floating-point argument passed by value; its
 *                    partial derivative is returned rather than written to a shadow.
 *
 * Defaults when an argument has no marker:
 *   pointer         -> dup (the next argument is its shadow)
 *   integer         -> const
 *   floating point  -> dup in forward mode (the next argument is its tangent),
 *                      out (active) in reverse mode
 *
 * The markers are recognised by the NAME of the global whose value is passed, so their values
 * do not matter and nothing defines them. Do not declare your own markers `static` (internal
 * globals may be renamed or removed by the optimiser before Umbra sees them); use the extern
 * declarations below.
 *
 * Enzyme compatibility: __enzyme_fwddiff, __enzyme_autodiff and the markers enzyme_dup,
 * enzyme_const, enzyme_dupnoneed and enzyme_out are accepted with the same meanings, so code
 * written for Enzyme compiles unchanged (with or without this header).
 *
 * ----------------------------------------------------------------------------------------------
 * Return types
 *
 * The entry points are variadic and declared to return double. For another return type
 * declare your own prototype: ANY function whose name starts with `__umbra_fwddiff`,
 * `__umbra_autodiff`, `__enzyme_fwddiff` or `__enzyme_autodiff` is a request of that mode, e.g.
 *
 *   float  __umbra_fwddiff_f(void *, ...);
 *   struct grad2 { double dx, dy; };
 *   struct grad2 __umbra_autodiff_xy(void *, ...);   (two `out` arguments)
 *   void   __umbra_autodiff_v(void *, ...);           (no `out` arguments: pointers only)
 *
 * ----------------------------------------------------------------------------------------------
 * Building
 *
 *   clang-22 -O2 -c -emit-llvm prog.c -o prog.bc     (then the driver:)
 *   umbra prog.bc -o prog.o && clang-22 prog.o -lm -o prog
 *   clang-22 -O2 -fpass-plugin=libUmbraPlugin.so prog.c -lm -o prog   (or the plugin)
 *
 * Write requests with optimisation in mind: Umbra differentiates after clang has optimised the
 * user's code and re-optimises the generated code afterwards.
 */

#ifndef UMBRA_H
#define UMBRA_H

#ifdef __cplusplus
extern "C" {
#endif

/* Entry points. */
double __umbra_fwddiff(void *f, ...);
double __umbra_autodiff(void *f, ...);

/* Activity markers (recognised by name; never defined, never static). */
extern int umbra_dup;
extern int umbra_const;
extern int umbra_dupnoneed;
extern int umbra_out;

/* Enzyme spellings, accepted with the same meanings. */
double __enzyme_fwddiff(void *f, ...);
double __enzyme_autodiff(void *f, ...);
extern int enzyme_dup;
extern int enzyme_const;
extern int enzyme_dupnoneed;
extern int enzyme_out;

#ifdef __cplusplus
}
#endif

#endif /* UMBRA_H */
