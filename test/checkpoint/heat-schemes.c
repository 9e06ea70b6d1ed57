// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// A checkpointed time loop (__enzyme_checkpoint_for) of a nonlinear heat equation, updated in
// place, with an energy accumulated through a pointer (both marked): its gradient with respect
// to the initial state and the conductivities equals the gradient of the same plain loop,
// fully taped (to rounding), and central finite differences, for Revolve with 1, 3 and 40
// slots, periodic, store-all and Revolve spilled to files; the recomputed steps are Revolve's
// optimum; the primal state and energy after the gradient are the plain loop's (to rounding).
#include <umbra/checkpoint.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define M 6
#define STEPS 37

__attribute__((noinline)) static void step(int64_t i, double *u, const double *k, double *e) {
  double next[M];
  for (int j = 0; j < M; j++) {
    double l = u[(j + M - 1) % M], r = u[(j + 1) % M];
    next[j] = u[j] + 0.1 * k[j] * (l - 2 * u[j] + r) + 0.05 * sin(u[j]) * (double)(i % 3);
  }
  for (int j = 0; j < M; j++) {
    u[j] = next[j];
    *e += u[j] * u[j] * 1e-2;
  }
}

static EnzymeCkptStats stats;
static EnzymeCkptConfig config = {3, 0, NULL, 0, &stats};
static const EnzymeCheckpointScheme *scheme = &EnzymeCkptRevolve;

static double checkpointed(double *u, const double *k, double *e) {
  __enzyme_checkpoint_for((void *)step, 0, STEPS, enzyme_scheme, scheme, &config,
                          enzyme_checkpoint_region, u, (int64_t)(M * sizeof(double)),
                          enzyme_checkpoint_region, e, (int64_t)sizeof(double), u, k, e);
  return *e + u[0] * u[1];
}

static double plain(double *u, const double *k, double *e) {
  for (int64_t i = 0; i < STEPS; i++)
    step(i, u, k, e);
  return *e + u[0] * u[1];
}

static void init(double *u, double *k) {
  for (int j = 0; j < M; j++) {
    u[j] = sin(j + 1.0);
    k[j] = 1.0 + 0.1 * j;
  }
}

// f(u0, k) for finite differences: x = (u0, k).
static double at(const double *x, void *ctx) {
  (void)ctx;
  double u[M], k[M], e = 0;
  for (int j = 0; j < M; j++) {
    u[j] = x[j];
    k[j] = x[M + j];
  }
  return plain(u, k, &e);
}

static void gradient(int ckpt, double *g, double *u_after, double *e_after) {
  double u[M], k[M], du[M] = {0}, dk[M] = {0}, e = 0, de = 0;
  init(u, k);
  if (ckpt)
    __enzyme_autodiff((void *)checkpointed, enzyme_dup, u, du, enzyme_dup, k, dk, enzyme_dup, &e,
                      &de);
  else
    __enzyme_autodiff((void *)plain, enzyme_dup, u, du, enzyme_dup, k, dk, enzyme_dup, &e, &de);
  for (int j = 0; j < M; j++) {
    g[j] = du[j];
    g[M + j] = dk[j];
    u_after[j] = u[j];
  }
  *e_after = e;
}

int main(void) {
  int failures = 0;
  double x[2 * M], fd[2 * M], taped[2 * M], got[2 * M], u_plain[M], u_ckpt[M], e_plain, e_ckpt;
  init(x, x + M);
  fd_grad(at, NULL, x, 2 * M, fd);
  gradient(0, taped, u_plain, &e_plain);
  fd_check_array("taped gradient", taped, fd, 2 * M);

  struct {
    const char *name;
    const EnzymeCheckpointScheme *scheme;
    int64_t snapshots;
    const char *spill;
  } runs[] = {{"revolve-1", &EnzymeCkptRevolve, 1, NULL},
              {"revolve-3", &EnzymeCkptRevolve, 3, NULL},
              {"revolve-40", &EnzymeCkptRevolve, 40, NULL},
              {"periodic-5", &EnzymeCkptPeriodic, 5, NULL},
              {"store-all", &EnzymeCkptStoreAll, 0, NULL},
              {"revolve-4-spilled", &EnzymeCkptRevolve, 4, "/tmp"}};
  for (unsigned r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
    scheme = runs[r].scheme;
    config.snapshots = runs[r].snapshots;
    config.spill_dir = runs[r].spill && getenv("TMPDIR") ? getenv("TMPDIR") : runs[r].spill;
    config.mem_budget = 2 * M * sizeof(double);
    memset(&stats, 0, sizeof(stats));
    gradient(1, got, u_ckpt, &e_ckpt);
    for (int j = 0; j < 2 * M; j++) {
      if (fabs(got[j] - taped[j]) > 1e-13 * (1 + fabs(taped[j]))) {
        printf("FAIL %s: d[%d] = %.17g, taped %.17g\n", runs[r].name, j, got[j], taped[j]);
        failures++;
      }
    }
    fd_check_array(runs[r].name, got, fd, 2 * M);
    // To rounding: the checkpointed steps and the taped loop's forward sweep are optimised
    // separately, and at -O3 they may contract or vectorise the same sums differently.
    for (int j = 0; j < M; j++) {
      if (fabs(u_ckpt[j] - u_plain[j]) > 1e-13 * (1 + fabs(u_plain[j]))) {
        printf("FAIL %s: the state after the gradient differs from the plain loop's: u[%d] = "
               "%.17g, plain %.17g\n",
               runs[r].name, j, u_ckpt[j], u_plain[j]);
        failures++;
        break;
      }
    }
    // The energy is marked too: unmarked, the recomputed steps would add to it again.
    if (fabs(e_ckpt - e_plain) > 1e-13 * (1 + fabs(e_plain))) {
      printf("FAIL %s: the energy after the gradient is %.17g, the plain loop's %.17g\n",
             runs[r].name, e_ckpt, e_plain);
      failures++;
    }
    if (stats.taped_steps != STEPS) {
      printf("FAIL %s: %lld steps differentiated\n", runs[r].name,
             (long long)stats.taped_steps);
      failures++;
    }
    if (runs[r].scheme == &EnzymeCkptRevolve &&
        (stats.forward_steps !=
             umbra_ckpt_binomial_cost(STEPS, runs[r].snapshots > STEPS ? STEPS
                                                                     : runs[r].snapshots) ||
         stats.max_slots > runs[r].snapshots)) {
      printf("FAIL %s: %lld recomputed steps, %lld slots\n", runs[r].name,
             (long long)stats.forward_steps, (long long)stats.max_slots);
      failures++;
    }
    printf("%s: %lld recomputed, %lld stores, %lld restores, %lld slots\n", runs[r].name,
           (long long)stats.forward_steps, (long long)stats.stores, (long long)stats.restores,
           (long long)stats.max_slots);
  }
  return fd_finish() | (failures != 0);
}
