/*
 * timeloop - a long time loop: an explicit integrator of a viscous Burgers equation on a
 * periodic grid, and the gradient of the final energy with respect to the initial state and the
 * viscosity field, four ways (issue 30):
 *
 *   taped      the plain loop, every step's tape kept (memory grows with the steps)
 *   store-all  __enzyme_checkpoint_for with EnzymeCkptStoreAll (a snapshot before every step)
 *   periodic   EnzymeCkptPeriodic with sqrt(steps) segments
 *   binomial   EnzymeCkptRevolve with SNAPS slots
 *
 *   timeloop            default 100000 steps of 256 points, 20 slots (-DSMALL: 600 steps of 32)
 *
 * Checks: every gradient against central differences along random directions, and the
 * checkpointed gradients against the taped one. Prints, besides the `app` line (the binomial
 * gradient against the primal; its tape_bytes is the largest tape held, one step's), one line
 * per way: `timeloop WAY grad_s G ratio R memory_bytes M recomputed K optimum O`, where memory
 * is the largest tape held plus the snapshots' bytes, and optimum is Revolve's theoretical
 * minimum of recomputed steps for SNAPS slots.
 */
#include <umbra/checkpoint.h>

#include "app.h"

#include <string.h>

#ifdef SMALL
#define N 32
#define STEPS 600
#define SNAPS 6
#else
#define N 256
#define STEPS 100000
#define SNAPS 20
#endif

/* One step, in place: u <- u - dt u u_x + dt nu u_xx (centred differences). */
__attribute__((noinline)) static void step(int64_t i, double *u, const double *nu) {
  const double dt = 0.002, dx = 1.0 / N;
  double next[N];
  (void)i;
  for (int j = 0; j < N; j++) {
    double l = u[(j + N - 1) % N], r = u[(j + 1) % N], c = u[j];
    next[j] = c - dt * c * (r - l) / (2 * dx) * 0.01 + dt * nu[j] * (r - 2 * c + l) / (dx * dx) * 1e-4;
  }
  memcpy(u, next, sizeof(next));
}

static double energy(const double *u) {
  double e = 0;
  for (int j = 0; j < N; j++)
    e += u[j] * u[j];
  return e / N;
}

static EnzymeCkptStats stats;
static EnzymeCkptConfig config = {SNAPS, 0, NULL, 0, &stats};
static const EnzymeCheckpointScheme *scheme = &EnzymeCkptRevolve;

static double checkpointed(double *u, const double *nu) {
  __enzyme_checkpoint_for((void *)step, 0, STEPS, enzyme_scheme, scheme, &config,
                          enzyme_checkpoint_region, u, (int64_t)sizeof(double) * N, u, nu);
  return energy(u);
}

static double taped(double *u, const double *nu) {
  for (int64_t i = 0; i < STEPS; i++)
    step(i, u, nu);
  return energy(u);
}

typedef struct {
  double u0[N], nu[N], u[N], du[N], dnu[N];
  int ckpt;
} ctx_t;

static void run_primal(void *p) {
  ctx_t *c = (ctx_t *)p;
  memcpy(c->u, c->u0, sizeof(c->u));
  taped(c->u, c->nu);
}

__attribute__((noinline)) static void grad_checkpointed_nu(ctx_t *c) {
  __enzyme_autodiff((void *)checkpointed, enzyme_dup, c->u, c->du, enzyme_dup, c->nu, c->dnu);
}
__attribute__((noinline)) static void grad_taped(ctx_t *c) {
  __enzyme_autodiff((void *)taped, enzyme_dup, c->u, c->du, enzyme_dup, c->nu, c->dnu);
}

static void run_gradient(void *p) {
  ctx_t *c = (ctx_t *)p;
  memcpy(c->u, c->u0, sizeof(c->u));
  memset(c->du, 0, sizeof(c->du));
  memset(c->dnu, 0, sizeof(c->dnu));
  if (c->ckpt)
    grad_checkpointed_nu(c);
  else
    grad_taped(c);
}

static double value(ctx_t *c, const double *u0, const double *nu) {
  double u[N];
  memcpy(u, u0, sizeof(u));
  return taped(u, nu);
}

int main(void) {
  static ctx_t c;
  unsigned long long seed = 30;
  for (int j = 0; j < N; j++) {
    c.u0[j] = sin(2 * M_PI * j / N) + 0.1 * app_rand(&seed);
    c.nu[j] = 1.0 + 0.5 * app_rand(&seed);
  }
  /* The taped gradient, the reference. */
  static double g_taped[2 * N];
  c.ckpt = 0;
  run_gradient(&c);
  long long taped_tape = app_tape_bytes_;
  memcpy(g_taped, c.du, sizeof(c.du));
  memcpy(g_taped + N, c.dnu, sizeof(c.dnu));
  /* Directional checks of the taped gradient against central differences. */
  for (int d = 0; d < 3; d++) {
    static double v[2 * N], xp[2 * N], xm[2 * N];
    double ad = 0, h = 1e-6;
    for (int j = 0; j < 2 * N; j++) {
      v[j] = app_rand(&seed) - 0.5;
      xp[j] = (j < N ? c.u0[j] : c.nu[j - N]) + h * v[j];
      xm[j] = (j < N ? c.u0[j] : c.nu[j - N]) - h * v[j];
      ad += g_taped[j] * v[j];
    }
    double fd = (value(&c, xp, xp + N) - value(&c, xm, xm + N)) / (2 * h);
    char what[32];
    snprintf(what, sizeof(what), "taped direction %d", d);
    app_check(what, ad, fd, 1e-5);
  }

  struct {
    const char *name;
    const EnzymeCheckpointScheme *scheme;
    int64_t snapshots;
  } ways[] = {{"store-all", &EnzymeCkptStoreAll, 0},
              {"periodic", &EnzymeCkptPeriodic, (int64_t)sqrt((double)STEPS)},
              {"binomial", &EnzymeCkptRevolve, SNAPS}};
  int64_t optimum = umbra_ckpt_binomial_cost(STEPS, SNAPS);
  double primal_s = 0, grad_s = 0, taped_primal = 0, taped_grad = 0;
  c.ckpt = 0;
  app_time(run_primal, run_gradient, &c, &taped_primal, &taped_grad);
  printf("timeloop taped grad_s %.6g ratio %.3f memory_bytes %lld recomputed 0 optimum %lld\n",
         taped_grad, taped_grad / taped_primal, taped_tape, (long long)optimum);
  for (unsigned w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
    scheme = ways[w].scheme;
    config.snapshots = ways[w].snapshots;
    c.ckpt = 1;
    app_tape_bytes_ = 0;
    run_gradient(&c);
    double worst = 0, scale = 0;
    for (int j = 0; j < N; j++) {
      worst = fmax(worst, fmax(fabs(c.du[j] - g_taped[j]), fabs(c.dnu[j] - g_taped[N + j])));
      scale = fmax(scale, fmax(fabs(g_taped[j]), fabs(g_taped[N + j])));
    }
    worst /= scale;
    char what[64];
    snprintf(what, sizeof(what), "%s = taped (largest difference / largest entry)",
             ways[w].name);
    app_check(what, 1.0 + worst, 1.0, 1e-9);
    EnzymeCkptStats s = stats;
    long long memory = app_tape_bytes_ + (long long)s.max_bytes;
    app_time(run_primal, run_gradient, &c, &primal_s, &grad_s);
    printf("timeloop %s grad_s %.6g ratio %.3f memory_bytes %lld recomputed %lld optimum %lld\n",
           ways[w].name, grad_s, grad_s / primal_s, memory, (long long)s.forward_steps,
           (long long)optimum);
    if (ways[w].scheme == &EnzymeCkptRevolve && s.forward_steps != optimum)
      app_check("binomial recomputation = Revolve's optimum", (double)s.forward_steps,
                (double)optimum, 0);
  }
  /* The app line: the binomial gradient, the last one timed; its tape is one step's. */
  app_report("timeloop", primal_s, grad_s);
  return app_failures_ != 0;
}
