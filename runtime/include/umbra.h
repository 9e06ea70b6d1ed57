/*
 * umbra.h - derivative requests for Umbra, the automatic-differentiation compiler for LLVM IR.
 *
 * Write a call to one of the entry points below where you want a derivative; Umbra (the
 * `umbra` driver, or the opt/clang plugin libUmbraPlugin.so) replaces the call with generated
 * derivative code. Nothing here needs a runtime library: the entry points and markers are only
 * ever declared, never defined, and Umbra defines umbra_release_tapes in the objects it writes.
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
 * Batched forward mode (N tangents per call): enzyme_width, N right after the function, then N
 * shadows after each duplicated argument, or enzyme_dupv / enzyme_dupnoneedv followed by a byte
 * stride, the primal and one pointer (lane k's shadow at pointer + k * stride). The request
 * returns the N tangents as the struct of N floating-point fields (or vector of N) it is
 * declared to return:
 *
 *   struct pair { double a, b; };
 *   struct pair __enzyme_fwddiff_pair(void *, ...);
 *   struct pair g = __enzyme_fwddiff_pair((void *)f, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
 *
 * Inside, the N tangents of a float or double are one <N x T> vector, computed by vector
 * instructions.
 *
 * Batch mode (Enzyme's __enzyme_batch): f itself on N argument sets at once, the lanes in
 * lockstep. enzyme_width, N right after the function; then per parameter N values (the
 * default, or after enzyme_vector), one value for every lane (enzyme_scalar), or
 * enzyme_buffer, a byte stride and one pointer (lane k's at pointer + k * stride). It returns
 * the N results as the struct, array or vector of N it is declared to return (declare your own
 * prototype, any name containing __enzyme_batch):
 *
 *   struct quad { double a, b, c, d; };
 *   struct quad __enzyme_batch(void *, ...);
 *   struct quad r = __enzyme_batch((void *)square, enzyme_width, 4, x1, x2, x3, x4);
 *   struct pair p = __enzyme_batch_pair((void *)poly, enzyme_width, 2, x, y,
 *                                       enzyme_scalar, coeffs, enzyme_scalar, n);
 *
 * Lockstep means: every lane must take the same branches (a branch on a lane-varying value is
 * an error: select instead, or branch on an enzyme_scalar value); a lane-varying value stored to
 * memory every lane shares (a global, an enzyme_scalar pointer) is an error; each lane gets its
 * own stack arrays and heap allocations; work that depends on no lane runs once.
 *
 * Split mode (Enzyme's): the forward and reverse sweeps of a gradient at different times. The
 * caller keeps the tape's 32-byte header (__enzyme_augmentsize returns 32) in a buffer:
 *
 *   int size = __enzyme_augmentsize((void *)f, enzyme_dup, enzyme_dup);
 *   void *tape = malloc(size);
 *   __enzyme_augmentfwd((void *)f, enzyme_allocated, size, enzyme_tape, tape, y, dy, x, dx);
 *   ... anything, even overwriting x ...
 *   __enzyme_reverse((void *)f, enzyme_allocated, size, enzyme_tape, tape, y, dy, x, dx);
 *
 * or gives `enzyme_tape, &slot` (a void * receiving the tape), or nothing: __enzyme_augmentfwd
 * then returns the tape (void *, or struct { void *tape; double result; }) and __enzyme_reverse
 * takes it last, after the arguments and the adjoint of f's result. __enzyme_reverse returns
 * the `out` adjoints like __enzyme_autodiff. One reverse sweep per forward sweep, of the same
 * function and activities; any other tape stops the program with a message. enzyme_nofree is
 * not supported.
 *
 * Requests may be nested, in any mode and to any depth: a Hessian-vector product is
 * __enzyme_fwddiff of a function calling __enzyme_autodiff (forward over reverse) or
 * __enzyme_autodiff of w . grad f (reverse over reverse).
 *
 * ----------------------------------------------------------------------------------------------
 * Return types
 *
 * The entry points are variadic and declared to return double. For another return type
 * declare your own prototype: as in Enzyme, ANY function whose name contains `__umbra_fwddiff`,
 * `__umbra_autodiff`, `__enzyme_fwddiff` or `__enzyme_autodiff` is a request of that mode
 * (Enzyme's deferred variants `__enzyme_autodiff_deferred` and `__enzyme_fwddiff_deferred` are
 * the same requests to Umbra), e.g. in C:
 *
 *   float  __umbra_fwddiff_f(void *, ...);
 *   struct grad2 { double dx, dy; };
 *   struct grad2 __umbra_autodiff_xy(void *, ...);   (two `out` arguments)
 *   void   __umbra_autodiff_v(void *, ...);           (no `out` arguments: pointers only)
 *
 * In C++, Enzyme's template (whose mangled name contains the request name) works without this
 * header; its `int` parameters receive the markers' values:
 *
 *   int enzyme_dup, enzyme_const, enzyme_out;   (global namespace: not mangled)
 *   template <typename R, typename... T> R __enzyme_autodiff(void *, T...);
 *   double dx = __enzyme_autodiff<double>((void *)f, enzyme_out, x);
 *
 * Enzyme's __enzyme_call_inactive(fn, args...) (fn(args...) in the primal only) and type hints
 * __enzyme_double(p, n), __enzyme_float, __enzyme_integer, __enzyme_pointer (the n bytes at p
 * hold that type; n a constant) work as in Enzyme (docs/guide/modes.md). Calls to other
 * functions whose names contain `__enzyme_` or `__umbra_` (Enzyme's __enzyme_fwdsplit, ...)
 * and markers other than the above (enzyme_noret, ...) are errors naming them: Umbra does not
 * implement them yet.
 *
 * ----------------------------------------------------------------------------------------------
 * User rules
 *
 * Tell Umbra how to differentiate a particular function. These override built-in rules and
 * apply even to functions with a body, to the calls of the function: if the optimiser inlines
 * it first, its body is differentiated instead. The plugin prevents that (it marks such
 * functions noinline at the start of clang's pipeline, and so does the clang plugin loaded
 * with -fplugin-arg-umbra-no-pass before the driver); otherwise, with the driver, mark them
 * __attribute__((noinline)) (the driver refuses when -g shows a body inlined into
 * differentiated code, and warns when a function with a rule has no calls left).
 * The registrations are globals recognised by name prefix (as in Enzyme); the macros below
 * write them, with a unique name per line.
 *
 *   UMBRA_INACTIVE_FN(log_value);          no derivative flows through calls to log_value
 *   UMBRA_INACTIVE_GLOBAL(history);        history's contents carry no derivative (storing a
 *                                          differentiable value there drops its derivative)
 *   UMBRA_FUNCTION_LIKE(my_log1p, "log1p"); differentiate my_log1p with the built-in rule log1p
 *                                          (`umbra rules` lists them)
 *   __attribute__((annotate("umbra_inactive")))   on a function or global: same as the first two
 *   UMBRA_SHADOW(scale, d_scale);          the global d_scale (same type) holds the derivative of
 *                                          the global scale: reverse mode adds scale's adjoint
 *                                          there, forward mode reads its tangent from there
 *
 * With the clang plugin (clang -fplugin=build/plugin/libUmbraClang.so), Enzyme's attributes say
 * the same in the source: __attribute__((enzyme_inactive)), enzyme_function_like("log1p"),
 * enzyme_shadow(d_scale) (and umbra_inactive, umbra_function_like, umbra_shadow). Without the
 * plugin clang ignores them with only a warning ("unknown attribute ... ignored").
 *
 *   UMBRA_DERIVATIVE(f, f_fwd);            forward mode calls f_fwd instead of differentiating f
 *   UMBRA_GRADIENT(f, f_aug, f_grad);      reverse mode calls f_aug in the forward sweep and
 *                                          f_grad in the adjoint sweep
 *
 * Conventions (checked at compile time against f's prototype; a mismatch is an error):
 *
 *   f_fwd   takes f's parameters, each floating-point or pointer parameter followed by its
 *           tangent (pointers: the shadow, or NULL when the pointer is constant), and returns
 *           the tangent of f's result (f itself runs first to produce the result), or a
 *           struct {result, tangent}, or void when f returns void (then f_fwd must also do
 *           f's work, e.g. write its outputs).
 *   f_aug   takes f's parameters, each pointer followed by its shadow (NULL when constant), and
 *           does f's work. It returns void, the result, a tape (void *: anything the gradient
 *           needs), or struct {void *tape; result}; when it does not return the result, f runs
 *           first to produce it.
 *   f_grad  takes f's parameters with pointer shadows as for f_aug, then the adjoint of the
 *           result (when f returns a floating-point value), then the tape (when f_aug returns
 *           one). It adds the adjoints of pointed-to memory into the shadows and returns the
 *           adjoints of f's floating-point parameters: void, a double, or a struct of them in
 *           parameter order. It frees the tape if the tape was allocated.
 *
 *   double f(double x, double *y);                    for example:
 *   double f_fwd(double x, double dx, double *y, double *dy);
 *   void  *f_aug(double x, double *y, double *dy);
 *   double f_grad(double x, double *y, double *dy, double dresult, void *tape);
 *
 * On the command line: `umbra --inactive NAME[,NAME...]` and `umbra --rules FILE`, a TOML file:
 *
 *   inactive = ["log_value", "trace"]
 *   inactive_globals = ["history"]
 *   [function_like]
 *   my_log1p = "log1p"
 *
 * The plugin takes the same as pass parameters: -passes='umbra<inactive=a:b;rules=FILE>'.
 *
 * ----------------------------------------------------------------------------------------------
 * Tape memory
 *
 * A gradient's tape outlives the call: each thread keeps up to 16 of the largest tape chunks
 * given back as spares, which the next gradient call reuses instead of asking the system for fresh pages.
 * A spare larger than the environment variable UMBRA_TAPE_KEEP (bytes; default 1 GiB, 0 keeps
 * none) is not kept. A thread's spares are freed when the thread exits, and when it calls
 *
 *   void umbra_release_tapes(void);
 *
 * which Umbra defines in every object that has requests (or declares it).
 *
 * ----------------------------------------------------------------------------------------------
 * Time loops and fixed points
 *
 *   __umbra_checkpoint_for(step, start, n, umbra_scheme, &scheme, &config,
 *                          umbra_checkpoint_region, ptr, bytes, ..., args...);
 *
 * runs `for (i = start; i < start + n; i++) step(i, args...)`; its gradient keeps snapshots
 * (binomial/Revolve, periodic or store-all schemes) instead of every step's tape: memory that
 * does not grow with n. <umbra/checkpoint.h> defines the schemes and the ABI (Enzyme's
 * __enzyme_checkpoint_for, <enzyme/checkpoint.h>). <umbra/fixed_point.h> declares
 * __umbra_fixed_point / __enzyme_fixed_point, a loop iterated to convergence whose tangent is
 * iterated at the converged state. See docs/guide/checkpointing.md.
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

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Entry points. */
double __umbra_fwddiff(void *f, ...);
double __umbra_autodiff(void *f, ...);

/* Frees the calling thread's spare tape chunk (see "Tape memory"). */
void umbra_release_tapes(void);

/* Activity markers (recognised by name; never defined, never static). */
extern int umbra_dup;
extern int umbra_const;
extern int umbra_dupnoneed;
extern int umbra_out;
extern int umbra_width;
extern int umbra_dupv;
extern int umbra_dupnoneedv;

/* Enzyme spellings, accepted with the same meanings. */
double __enzyme_fwddiff(void *f, ...);
double __enzyme_autodiff(void *f, ...);
extern int enzyme_dup;
extern int enzyme_const;
extern int enzyme_dupnoneed;
extern int enzyme_out;
extern int enzyme_width;
extern int enzyme_dupv;
extern int enzyme_dupnoneedv;
int __enzyme_augmentsize(void *f, ...);
void *__enzyme_augmentfwd(void *f, ...);
void __enzyme_reverse(void *f, ...);
extern int enzyme_allocated;
extern int enzyme_tape;
/* __enzyme_batch's markers (the request itself is declared by the caller, for its result). */
extern int enzyme_vector;
extern int enzyme_scalar;
extern int enzyme_buffer;

/* Checkpointed loops and fixed points (see "Time loops and fixed points"; the schemes and
 * their types are in <umbra/checkpoint.h>). */
void __umbra_checkpoint_for(void *step, int64_t start, int64_t n, ...);
void __enzyme_checkpoint_for(void *step, int64_t start, int64_t n, ...);
void __umbra_fixed_point(void *step, ...);
void __enzyme_fixed_point(void *step, ...);
extern int umbra_scheme;
extern int umbra_checkpoint_region;
extern int enzyme_scheme;
extern int enzyme_checkpoint_region;
extern int umbra_fp_state;
extern int umbra_fp_reduction;
extern int umbra_fp_max_iters;
extern int umbra_fp_control;
extern int enzyme_fp_state;
extern int enzyme_fp_reduction;
extern int enzyme_fp_max_iters;
extern int enzyme_fp_control;

/* User rules (see "User rules" above). The registration globals must be visible (not static)
 * and kept (`used`); the unique suffix allows several per translation unit. */
#define UMBRA_CAT2_(a, b) a##b
#define UMBRA_CAT_(a, b) UMBRA_CAT2_(a, b)
#define UMBRA_REGISTRATION_(prefix)                                                            \
  __attribute__((used)) void *UMBRA_CAT_(prefix, UMBRA_CAT_(__LINE__, __COUNTER__))[]
#define UMBRA_INACTIVE_FN(fn) UMBRA_REGISTRATION_(__enzyme_inactivefn_) = {(void *)(fn)}
#define UMBRA_INACTIVE_GLOBAL(g) UMBRA_REGISTRATION_(__enzyme_inactive_global_) = {(void *)&(g)}
#define UMBRA_FUNCTION_LIKE(fn, rule)                                                          \
  UMBRA_REGISTRATION_(__enzyme_function_like_) = {(void *)(fn), (void *)(rule)}
#define UMBRA_SHADOW(g, shadow)                                                                \
  UMBRA_REGISTRATION_(__umbra_shadow_) = {(void *)&(g), (void *)&(shadow)}
#define UMBRA_DERIVATIVE(fn, fwd)                                                              \
  UMBRA_REGISTRATION_(__enzyme_register_derivative_) = {(void *)(fn), (void *)(fwd)}
#define UMBRA_GRADIENT(fn, aug, grad)                                                          \
  UMBRA_REGISTRATION_(__enzyme_register_gradient_) = {(void *)(fn), (void *)(aug),             \
                                                       (void *)(grad)}

#ifdef __cplusplus
}
#endif

#endif /* UMBRA_H */
