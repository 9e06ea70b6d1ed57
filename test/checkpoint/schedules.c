// The reference schemes of <umbra/checkpoint.h> driven through the action protocol, without
// Umbra: the "state" is the index of the step it is before, so every action can be checked.
// Each scheme must reverse every step once, last first, from the right state; Revolve's
// recomputed steps must equal the optimum (a dynamic program over all splits, and Griewank's
// closed form) for every n <= 60 and 1..7 slots, with at most that many slots in use; periodic
// and store-all have their known counts; the spill to files gives the same schedule; the
// <enzyme/checkpoint.h> spelling and C++ compile.
//
// RUN: %clang -std=c11 -O1 -Wall -Wextra -Werror -I%runtime-include %s -o %t && %t
// RUN: %clangxx -x c++ -O1 -Wall -Wextra -Werror -I%runtime-include %s -o %t.cxx && %t.cxx
// RUN: %clang -std=c11 -O1 -Wall -Werror -DENZYME_SPELLING -I%runtime-include %s -o %t.e && %t.e

#ifdef ENZYME_SPELLING
#include <enzyme/checkpoint.h>
#else
#include <umbra/checkpoint.h>
#endif
#include <stdio.h>
#include <stdlib.h>

static int failures;
#define CHECK(cond, ...)                                                                       \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      printf(__VA_ARGS__);                                                                     \
      printf("\n");                                                                            \
      if (++failures > 20)                                                                     \
        exit(1);                                                                               \
    }                                                                                          \
  } while (0)

// Drives `scheme` as Umbra's generated code does; the snapshot is the live position. Returns
// the statistics; `ok` is cleared on a protocol violation. For a while loop (n < 0) the loop
// "ends" after `actual` steps.
static EnzymeCkptStats drive(const EnzymeCheckpointScheme *scheme, EnzymeCkptConfig *config,
                             int64_t n, int64_t actual, int *ok) {
  EnzymeCkptStats stats;
  int64_t pos = 0, steps = n < 0 ? actual : n, expect = steps - 1;
  EnzymeCkptRegion region = {&pos, sizeof(pos), 0, 0};
  EnzymeCkptAction a;
  int turned = 0, guard = 0;
  void *st;
  memset(&stats, 0, sizeof(stats));
  config->stats = &stats;
  st = scheme->init(config, n, sizeof(pos));
  *ok = 1;
  for (;;) {
    if (++guard > 10000000) {
      *ok = 0;
      printf("no end\n");
      break;
    }
    scheme->next_action(st, &a);
    if (a.flag == ENZYME_CKPT_DONE)
      break;
    switch (a.flag) {
    case ENZYME_CKPT_STORE:
      if (pos != a.iteration || a.cpnum < 0) {
        printf("store at %lld, state before %lld\n", (long long)a.iteration, (long long)pos);
        *ok = 0;
      }
      scheme->store(st, a.cpnum, a.iteration, &region, 1);
      break;
    case ENZYME_CKPT_RESTORE:
      scheme->restore(st, a.cpnum, a.iteration, &region, 1);
      if (pos != a.iteration) {
        printf("restore of slot %lld gave %lld, not %lld\n", (long long)a.cpnum,
               (long long)pos, (long long)a.iteration);
        *ok = 0;
      }
      break;
    case ENZYME_CKPT_FORWARD:
      if (pos != a.startiteration || a.iteration <= a.startiteration) {
        printf("forward %lld..%lld from %lld\n", (long long)a.startiteration,
               (long long)a.iteration, (long long)pos);
        *ok = 0;
      }
      if (n < 0 && a.iteration >= actual) {
        // The loop's condition fails in its last step.
        pos = actual;
        scheme->set_nsteps(st, actual);
        break;
      }
      pos = a.iteration;
      break;
    case ENZYME_CKPT_FIRSTUTURN:
    case ENZYME_CKPT_UTURN:
      if ((a.flag == ENZYME_CKPT_FIRSTUTURN) == turned || pos != a.iteration - 1 ||
          a.iteration - 1 != expect) {
        printf("%s on step %lld, state before %lld, expected step %lld\n",
               a.flag == ENZYME_CKPT_UTURN ? "uturn" : "firstuturn",
               (long long)a.iteration - 1, (long long)pos, (long long)expect);
        *ok = 0;
      }
      if (a.flag == ENZYME_CKPT_FIRSTUTURN) {
        // The driver's own slots: the forward sweep keeps the state before the last step,
        // runs it, and the reverse sweep starts from there.
        scheme->store(st, -2, a.iteration - 1, &region, 1);
        pos = a.iteration;
        scheme->store(st, -1, steps, &region, 1);
        scheme->restore(st, -2, a.iteration - 1, &region, 1);
      }
      turned = 1;
      expect--;
      pos = a.iteration; // the step ran
      break;
    default:
      printf("bad flag %d\n", a.flag);
      *ok = 0;
    }
    if (!*ok)
      break;
  }
  if (*ok && expect != -1) {
    printf("done with step %lld not reversed\n", (long long)expect);
    *ok = 0;
  }
  if (*ok && steps > 0) {
    scheme->restore(st, -1, steps, &region, 1);
    if (pos != steps) {
      printf("slot -1 gave %lld\n", (long long)pos);
      *ok = 0;
    }
  }
  scheme->finalize(st);
  return stats;
}

// F[m][s]: the fewest untaped steps reversing m steps from a stored start with s more slots.
#define MAXN 61
#define MAXC 8
static int64_t F[MAXN][MAXC];

static void optimum(void) {
  for (int s = 0; s < MAXC; s++)
    for (int m = 1; m < MAXN; m++) {
      if (m == 1) {
        F[m][s] = 0;
      } else if (s == 0) {
        F[m][s] = (int64_t)m * (m - 1) / 2;
      } else {
        int64_t best = -1;
        for (int j = 1; j < m; j++) {
          int64_t c = j + F[m - j][s - 1] + F[j][s];
          if (best < 0 || c < best)
            best = c;
        }
        F[m][s] = best;
      }
    }
}

int main(void) {
  int ok;
  optimum();
  for (int64_t c = 1; c < MAXC; c++)
    for (int64_t n = 0; n < MAXN; n++) {
      EnzymeCkptConfig config = {c, 0, NULL, 0, NULL};
      EnzymeCkptStats st = drive(&EnzymeCkptRevolve, &config, n, 0, &ok);
      int64_t want = n == 0 ? 0 : F[n][(c < n ? c : n) - 1];
      CHECK(ok, "revolve n=%lld c=%lld: protocol violated", (long long)n, (long long)c);
      CHECK(st.forward_steps == want, "revolve n=%lld c=%lld: %lld recomputed steps, optimum %lld",
            (long long)n, (long long)c, (long long)st.forward_steps, (long long)want);
      CHECK(n == 0 || st.forward_steps == umbra_ckpt_binomial_cost(n, c < n ? c : n),
            "revolve n=%lld c=%lld: closed form %lld", (long long)n, (long long)c,
            (long long)umbra_ckpt_binomial_cost(n, c < n ? c : n));
      CHECK(st.max_slots <= c && st.taped_steps == n,
            "revolve n=%lld c=%lld: %lld slots, %lld taped", (long long)n, (long long)c,
            (long long)st.max_slots, (long long)st.taped_steps);
    }
  // A long loop: the optimum by the closed form, few slots, fast.
  {
    EnzymeCkptConfig config = {20, 0, NULL, 0, NULL};
    EnzymeCkptStats st = drive(&EnzymeCkptRevolve, &config, 100000, 0, &ok);
    CHECK(ok && st.forward_steps == umbra_ckpt_binomial_cost(100000, 20) &&
              st.max_slots <= 20,
          "revolve 1e5 steps, 20 slots: %lld recomputed, %lld slots", (long long)st.forward_steps,
          (long long)st.max_slots);
    printf("revolve n=100000 c=20: %lld recomputed steps (%.2f per step), %lld stores\n",
           (long long)st.forward_steps, st.forward_steps / 1e5, (long long)st.stores);
  }
  // Periodic: the forward sweep runs the n - L steps before the last segment (L steps), and
  // reversing a segment of L steps runs L - 1 of them again.
  for (int64_t K = 1; K < 9; K++)
    for (int64_t n = 0; n < 40; n++) {
      EnzymeCkptConfig config = {K, 0, NULL, 0, NULL};
      EnzymeCkptStats st = drive(&EnzymeCkptPeriodic, &config, n, 0, &ok);
      int64_t k = K < n ? K : (n ? n : 1), want = 0, longest = 0;
      for (int64_t s = 0; s < k; s++) {
        int64_t len = ((s + 1) * n) / k - (s * n) / k;
        want += len - 1 + (s + 1 < k ? len : 0);
        longest = len > longest ? len : longest;
      }
      if (n == 0)
        want = 0;
      CHECK(ok, "periodic n=%lld K=%lld: protocol violated", (long long)n, (long long)K);
      CHECK(st.forward_steps == want, "periodic n=%lld K=%lld: %lld recomputed, expected %lld",
            (long long)n, (long long)K, (long long)st.forward_steps, (long long)want);
      CHECK(n == 0 || st.max_slots <= k + longest - 1, "periodic n=%lld K=%lld: %lld slots",
            (long long)n, (long long)K, (long long)st.max_slots);
    }
  // Store-all: no step recomputed, n slots; for loops and while loops.
  for (int64_t n = 1; n < 30; n++) {
    EnzymeCkptConfig config = {0, 0, NULL, 0, NULL};
    EnzymeCkptStats st = drive(&EnzymeCkptStoreAll, &config, n, 0, &ok);
    int64_t stores = n > 1 ? n - 1 : 1;
    CHECK(ok && st.forward_steps == n - 1 && st.max_slots == stores && st.stores == stores,
          "store-all n=%lld: %lld forward, %lld slots", (long long)n,
          (long long)st.forward_steps, (long long)st.max_slots);
    st = drive(&EnzymeCkptStoreAll, &config, -1, n, &ok);
    CHECK(ok && st.max_slots == n, "store-all while loop of %lld steps: %lld slots",
          (long long)n, (long long)st.max_slots);
  }
  // Spilled to files past a budget of 3 snapshots: the same schedule.
  {
    EnzymeCkptConfig mem = {5, 0, NULL, 0, NULL};
    EnzymeCkptConfig disk = {5, 0, getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", 3 * 8, NULL};
    EnzymeCkptStats a = drive(&EnzymeCkptRevolve, &mem, 50, 0, &ok);
    EnzymeCkptStats b = drive(&EnzymeCkptRevolve, &disk, 50, 0, &ok);
    CHECK(ok && a.forward_steps == b.forward_steps && a.stores == b.stores,
          "revolve spilled to files differs");
    b = drive(&EnzymeCkptPeriodic, &disk, 50, 0, &ok);
    CHECK(ok, "periodic spilled to files");
  }
  if (failures) {
    printf("%d failures\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
