/*
 * umbra/checkpoint.h - checkpointed time loops: a gradient through n steps whose memory does
 * not grow with n. Also reachable as <enzyme/checkpoint.h> (same ABI as Enzyme's header).
 *
 * The loop
 *
 *     for (int64_t i = start; i < start + n; i++) step(i, args...);
 *
 * written as
 *
 *     __enzyme_checkpoint_for((void *)step, start, n,
 *                             enzyme_scheme, &EnzymeCkptRevolve, &config,
 *                             enzyme_checkpoint_region, ptr, bytes,   (any number of these)
 *                             args...);
 *
 * runs the same loop (umbra_scheme / umbra_checkpoint_region / __umbra_checkpoint_for are the
 * same markers and entry point). Differentiated in forward mode it is the plain loop. In
 * reverse mode Umbra keeps no tape across steps: the forward sweep runs the steps untaped and
 * takes snapshots where the scheme says; the reverse sweep restores snapshots, recomputes steps
 * untaped, and differentiates one step at a time (its taped forward and its adjoint together),
 * so at most one step's tape exists at once. A snapshot holds the marked regions, the mutable
 * globals the step (or a function it calls) refers to that some code may write, and the
 * globals passed to the step that it writes and reads: mark every other piece of memory a step
 * writes and reads (Umbra refuses the gradient at compile time, naming the store, when such
 * memory reached through pointers is left out), and memory a step reads that later code
 * overwrites before the gradient is taken (see docs/guide/checkpointing.md).
 *
 * Action protocol (Revolve, Griewank & Walther, ACM TOMS Alg. 799; flag values and the layout
 * of EnzymeCkptAction as Checkpointing.jl's ActionFlag and Action). Steps are numbered from 0;
 * step j is called with i = start + j.
 *
 *   STORE      (iteration = c, cpnum = k)  the state is the one before step c: save it in slot k
 *   FORWARD    (startiteration = a, iteration = b)  run steps a..b-1 untaped
 *   FIRSTUTURN (iteration = b)  the state is the one before step b-1, the last step; only in
 *              the forward sweep, which ends there
 *   UTURN      (iteration = b)  the state is the one before step b-1: run it taped, then its
 *              adjoint
 *   RESTORE    (iteration = c, cpnum = k)  load slot k, the state before step c
 *   DONE       the schedule is complete (the first action when n = 0)
 *
 * Besides the scheme's slots, the driver stores and restores two of its own through the same
 * store/restore functions: slot -2, the state before the last step (stored at FIRSTUTURN,
 * restored when the reverse sweep starts), and slot -1, the state the reverse sweep found,
 * restored when the schedule is done (the primal memory is left as the reverse sweep found it).
 *
 * Reference schemes (enzyme_scheme, &SCHEME, &config), all with statistics (EnzymeCkptStats):
 *
 *   EnzymeCkptRevolve   binomial checkpointing with config.snapshots slots (the start's
 *                       included): the fewest recomputed steps there are for that many slots
 *   EnzymeCkptPeriodic  config.snapshots segments: a snapshot at each segment's start; the
 *                       segment being reversed has a snapshot before each of its steps
 *   EnzymeCkptStoreAll  a snapshot before every step (one segment); also for while loops
 *
 * Snapshots live in memory, or with config.spill_dir set, in files in that directory once the
 * snapshots held in memory would pass config.mem_budget bytes.
 *
 * Written for Umbra from the published algorithm and the ABI description; the schedules are
 * checked against the optimum by test/checkpoint/schedules.c.
 */
#ifndef UMBRA_CHECKPOINT_H
#define UMBRA_CHECKPOINT_H
/* Enzyme's include guard too: a program including both spellings gets one copy. */
#ifndef ENZYME_CHECKPOINT_H
#define ENZYME_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENZYME_CKPT_ABI_VERSION 1

/* Action flags (Checkpointing.jl's ActionFlag values). */
enum {
  ENZYME_CKPT_NONE = 0,
  ENZYME_CKPT_STORE = 1,
  ENZYME_CKPT_RESTORE = 2,
  ENZYME_CKPT_FORWARD = 3,
  ENZYME_CKPT_FIRSTUTURN = 4,
  ENZYME_CKPT_UTURN = 5,
  ENZYME_CKPT_ERROR = 6,
  ENZYME_CKPT_DONE = 7
};

/* One action (Checkpointing.jl's Action): 32 bytes, offsets 0, 8, 16, 24. */
typedef struct EnzymeCkptAction {
  int32_t flag;
  int64_t iteration;
  int64_t startiteration;
  int64_t cpnum;
} EnzymeCkptAction;

/* One piece of memory a snapshot holds: 24 bytes. */
typedef struct EnzymeCkptRegion {
  void *ptr;
  uint64_t bytes;
  uint32_t addrspace;
  uint32_t flags;
} EnzymeCkptRegion;

/* A scheme: version, then nine function pointers (offsets 8, 16, ..., 72). Umbra calls init,
 * next_action, store, restore and finalize; set_nsteps belongs to while loops. A scheme whose
 * store/restore are NULL copies the state itself: Umbra calls save_state/load_state instead,
 * with env pointing at the step's arguments after i, each followed by its shadow if it has one
 * (8-byte words, integers widened to int64_t; test/checkpoint/save-state.c); a scheme with
 * neither pair stops the program with a message. set_paths is not called. */
typedef struct EnzymeCheckpointScheme {
  uint32_t version;
  /* nsteps is -1 for a while loop; snapshot_bytes is the size of all regions. */
  void *(*init)(void *data, int64_t nsteps, uint64_t snapshot_bytes);
  void (*next_action)(void *state, EnzymeCkptAction *out);
  void (*store)(void *state, int64_t slot, int64_t step, const EnzymeCkptRegion *regions,
                uint64_t nregions);
  void (*restore)(void *state, int64_t slot, int64_t step, const EnzymeCkptRegion *regions,
                  uint64_t nregions);
  void (*set_nsteps)(void *state, int64_t nsteps);
  void (*finalize)(void *state);
  void (*save_state)(void *state, int64_t slot, int64_t step, void *env);
  void (*load_state)(void *state, int64_t slot, int64_t step, void *env);
  void (*set_paths)(void *state, const int64_t *paths, uint64_t len);
} EnzymeCheckpointScheme;

/* Markers (recognised by name, never defined) and the entry points. */
extern int enzyme_scheme;
extern int enzyme_checkpoint_region;
extern int umbra_scheme;
extern int umbra_checkpoint_region;
void __enzyme_checkpoint_for(void *step, int64_t start, int64_t n, ...);
void __umbra_checkpoint_for(void *step, int64_t start, int64_t n, ...);
/* `int64_t i = 0; while (step(i++, args...));` (step returns nonzero for another step), with
 * the same markers. The number of steps is known only when the loop ends: the scheme's init gets
 * nsteps = -1, and set_nsteps the number once a step has returned 0, after which it continues
 * from the final state to its first turn. Of the reference schemes, EnzymeCkptStoreAll does
 * this; the others stop the program with a message. */
void __enzyme_checkpoint_while(void *step, ...);

/* ------------------------------------------------------------------------------------------ */
/* Reference schemes                                                                          */
/* ------------------------------------------------------------------------------------------ */

typedef struct EnzymeCkptStats {
  int64_t forward_steps; /* steps run untaped (the forward sweep's included) */
  int64_t taped_steps;   /* steps run taped: one per step */
  int64_t stores;        /* snapshots taken (the driver's slots -2, -1 not counted) */
  int64_t restores;      /* snapshots loaded (idem) */
  int64_t max_slots;     /* most of the scheme's slots in use at once */
  uint64_t max_bytes;    /* their bytes */
} EnzymeCkptStats;

typedef struct EnzymeCkptConfig {
  /* Revolve: slots (the start's included). Periodic: segments. */
  int64_t snapshots;
  /* 1: a summary on stderr when done; 2: also every action. */
  int verbose;
  /* NULL: every snapshot in memory. */
  const char *spill_dir;
  /* With spill_dir: snapshots beyond this many bytes in memory go to files. */
  uint64_t mem_budget;
  /* Filled in when the schedule completes, if not NULL. */
  EnzymeCkptStats *stats;
} EnzymeCkptConfig;

/* A loop marked in place, its body outlined into the step by Umbra (docs/guide/checkpointing.md,
 * "A marked loop"). Called just before a counted `for` loop (an integer counter from a value
 * fixed before the loop, up by one, compared by <, <= or != with a bound fixed before it), with
 * the scheme, its configuration and umbra_checkpoint_region, pointer, bytes for each piece of
 * memory the loop writes and reads:
 *
 *     umbra_checkpoint_next_loop(&EnzymeCkptRevolve, &config,
 *                                umbra_checkpoint_region, u, n * sizeof(double));
 *     for (int t = 0; t < steps; t++) { ... }
 *
 * Values the loop carries in variables (a sum, the counter) need no region. Without Umbra (or
 * when no derivative goes through the loop) the call is erased and the loop runs plainly. */
void umbra_checkpoint_next_loop(const EnzymeCheckpointScheme *scheme, EnzymeCkptConfig *config,
                                ...);
/* The same call, and `#pragma clang loop unroll(disable)` for the loop that follows: at -O1 and
 * above clang unrolls small loops before Umbra sees them, and an unrolled loop (its counter goes
 * up by more than one) is refused.
 *
 *     UMBRA_CHECKPOINT_LOOP(&EnzymeCkptRevolve, &config, umbra_checkpoint_region, u, bytes)
 *     for (int t = 0; t < steps; t++) { ... }
 */
#define UMBRA_CHECKPOINT_LOOP(...)                                                              \
  umbra_checkpoint_next_loop(__VA_ARGS__);                                                      \
  _Pragma("clang loop unroll(disable)")
/* Enzyme's marker, at the top of a loop body: what the clang plugin's loop attribute
 * __attribute__((enzyme_checkpointing_enable("binomial" or "regular", snapshots))) emits.
 * Mode 2 binomial (EnzymeCkptRevolve), 1 or 0 periodic (EnzymeCkptPeriodic); snapshots 0: the
 * square root of the number of steps. */
void __enzyme_set_checkpointing(uint64_t mode, uint64_t snapshots);

static inline void umbra_ckpt_fail(const char *what) {
  fprintf(stderr, "umbra checkpoint: %s\n", what);
  abort();
}

/* --- Slot storage shared by the schemes: slot s (>= -2) at index s + 2. --- */

enum { UMBRA_CKPT_EMPTY = 0, UMBRA_CKPT_IN_MEMORY = 1, UMBRA_CKPT_IN_FILE = 2 };

typedef struct umbra_ckpt_slots {
  const EnzymeCkptConfig *config;
  uint64_t bytes;     /* one snapshot */
  int64_t cap;        /* entries of where/data */
  unsigned char *where;
  void **data;
  uint64_t in_memory; /* bytes of snapshots held in memory */
  int64_t used;       /* scheme slots (>= 0) holding a snapshot now */
  EnzymeCkptStats stats;
} umbra_ckpt_slots;

static inline void umbra_ckpt_slots_init(umbra_ckpt_slots *s, const EnzymeCkptConfig *config,
                                         uint64_t bytes) {
  memset(s, 0, sizeof(*s));
  s->config = config;
  s->bytes = bytes;
}

static inline void umbra_ckpt_file(const umbra_ckpt_slots *s, int64_t index, char *buf,
                                   size_t len) {
  snprintf(buf, len, "%s/umbra-ckpt-%ld-%p-%lld.bin", s->config->spill_dir, (long)getpid(),
           (const void *)s, (long long)index);
}

static inline void umbra_ckpt_put(umbra_ckpt_slots *s, int64_t slot,
                                  const EnzymeCkptRegion *regions, uint64_t nregions) {
  int64_t index = slot + 2;
  uint64_t r, off = 0;
  if (slot < -2)
    umbra_ckpt_fail("store to a slot below -2");
  for (r = 0; r < nregions; r++)
    if (regions[r].addrspace != 0)
      umbra_ckpt_fail("the reference schemes copy address space 0 only");
  if (index >= s->cap) {
    int64_t cap = s->cap ? s->cap : 8;
    while (cap <= index)
      cap *= 2;
    s->where = (unsigned char *)realloc(s->where, (size_t)cap);
    s->data = (void **)realloc(s->data, (size_t)cap * sizeof(void *));
    if (!s->where || !s->data)
      umbra_ckpt_fail("out of memory for the slot table");
    memset(s->where + s->cap, 0, (size_t)(cap - s->cap));
    memset(s->data + s->cap, 0, (size_t)(cap - s->cap) * sizeof(void *));
    s->cap = cap;
  }
  if (s->where[index] == UMBRA_CKPT_EMPTY) {
    /* A new snapshot: in memory while the budget allows, else in a file. */
    int spill = s->config->spill_dir && s->in_memory + s->bytes > s->config->mem_budget;
    if (spill) {
      s->where[index] = UMBRA_CKPT_IN_FILE;
    } else {
      s->data[index] = malloc(s->bytes ? s->bytes : 1);
      if (!s->data[index])
        umbra_ckpt_fail("out of memory for a snapshot");
      s->in_memory += s->bytes;
      s->where[index] = UMBRA_CKPT_IN_MEMORY;
    }
    if (slot >= 0) {
      s->used++;
      if (s->used > s->stats.max_slots) {
        s->stats.max_slots = s->used;
        s->stats.max_bytes = (uint64_t)s->used * s->bytes;
      }
    }
  }
  if (s->where[index] == UMBRA_CKPT_IN_FILE) {
    char path[4096];
    FILE *f;
    umbra_ckpt_file(s, index, path, sizeof(path));
    f = fopen(path, "wb");
    if (!f)
      umbra_ckpt_fail("cannot create a spill file in config.spill_dir");
    for (r = 0; r < nregions; r++)
      if (fwrite(regions[r].ptr, 1, regions[r].bytes, f) != regions[r].bytes)
        umbra_ckpt_fail("short write to a spill file");
    if (fclose(f) != 0)
      umbra_ckpt_fail("cannot close a spill file");
  } else {
    for (r = 0; r < nregions; r++) {
      memcpy((char *)s->data[index] + off, regions[r].ptr, regions[r].bytes);
      off += regions[r].bytes;
    }
  }
  if (slot >= 0)
    s->stats.stores++;
}

static inline void umbra_ckpt_get(umbra_ckpt_slots *s, int64_t slot,
                                  const EnzymeCkptRegion *regions, uint64_t nregions) {
  int64_t index = slot + 2;
  uint64_t r, off = 0;
  if (slot < -2 || index >= s->cap || s->where[index] == UMBRA_CKPT_EMPTY)
    umbra_ckpt_fail("restore of a slot that holds no snapshot");
  if (s->where[index] == UMBRA_CKPT_IN_FILE) {
    char path[4096];
    FILE *f;
    umbra_ckpt_file(s, index, path, sizeof(path));
    f = fopen(path, "rb");
    if (!f)
      umbra_ckpt_fail("cannot open a spill file");
    for (r = 0; r < nregions; r++)
      if (fread(regions[r].ptr, 1, regions[r].bytes, f) != regions[r].bytes)
        umbra_ckpt_fail("short read from a spill file");
    fclose(f);
  } else {
    for (r = 0; r < nregions; r++) {
      memcpy(regions[r].ptr, (char *)s->data[index] + off, regions[r].bytes);
      off += regions[r].bytes;
    }
  }
  if (slot >= 0)
    s->stats.restores++;
}

/* Slot `slot` is no longer needed: its memory (or file) goes. */
static inline void umbra_ckpt_drop(umbra_ckpt_slots *s, int64_t slot) {
  int64_t index = slot + 2;
  if (index < 0 || index >= s->cap || s->where[index] == UMBRA_CKPT_EMPTY)
    return;
  if (s->where[index] == UMBRA_CKPT_IN_FILE) {
    char path[4096];
    umbra_ckpt_file(s, index, path, sizeof(path));
    remove(path);
  } else {
    free(s->data[index]);
    s->data[index] = NULL;
    s->in_memory -= s->bytes;
  }
  s->where[index] = UMBRA_CKPT_EMPTY;
  if (slot >= 0)
    s->used--;
}

static inline const char *umbra_ckpt_flag_name(int32_t flag) {
  static const char *const names[] = {"none",  "store", "restore", "forward",
                                      "firstuturn", "uturn", "error", "done"};
  return flag >= 0 && flag <= 7 ? names[flag] : "error";
}

/* Counts an action into the statistics and traces it when config.verbose > 1. */
static inline void umbra_ckpt_note(umbra_ckpt_slots *s, const EnzymeCkptAction *a) {
  if (a->flag == ENZYME_CKPT_FORWARD)
    s->stats.forward_steps += a->iteration - a->startiteration;
  if (a->flag == ENZYME_CKPT_FIRSTUTURN || a->flag == ENZYME_CKPT_UTURN)
    s->stats.taped_steps++;
  if (s->config->verbose > 1)
    fprintf(stderr, "umbra checkpoint: %s iteration %lld start %lld slot %lld\n",
            umbra_ckpt_flag_name(a->flag), (long long)a->iteration,
            (long long)a->startiteration, (long long)a->cpnum);
}

static inline void umbra_ckpt_slots_finish(umbra_ckpt_slots *s) {
  int64_t k;
  if (s->config->verbose > 0)
    fprintf(stderr,
            "umbra checkpoint: %lld recomputed steps, %lld taped steps, %lld stores, "
            "%lld restores, %lld slots (%llu bytes)\n",
            (long long)s->stats.forward_steps, (long long)s->stats.taped_steps,
            (long long)s->stats.stores, (long long)s->stats.restores,
            (long long)s->stats.max_slots, (unsigned long long)s->stats.max_bytes);
  if (s->config->stats)
    *s->config->stats = s->stats;
  for (k = 0; k < s->cap; k++)
    umbra_ckpt_drop(s, k - 2);
  free(s->where);
  free(s->data);
}

static inline void umbra_ckpt_emit(umbra_ckpt_slots *s, EnzymeCkptAction *out, int32_t flag,
                                   int64_t iteration, int64_t startiteration, int64_t cpnum) {
  out->flag = flag;
  out->iteration = iteration;
  out->startiteration = startiteration;
  out->cpnum = cpnum;
  umbra_ckpt_note(s, out);
}

/* --- Binomial checkpointing (Revolve) --------------------------------------------------- */
/*
 * Reversing m steps from a snapshot of their start with c slots in all (that one included)
 * costs, at best, T(m, c) = r m - C(c + r, c + 1) untaped steps, where r is the least integer
 * with C(c + r, c) >= m (Griewank 1992). T is convex in m; the schedule splits [a, e) at the
 * j minimising j + T(m - j, c - 1) + T(j, c): advance j steps, store, reverse the right part
 * with one slot fewer, then the left part from the snapshot at a.
 */

/* C(c + r, c) for r = 0, 1, ... until it reaches m: r, and whether it saturated. */
static inline int64_t umbra_ckpt_repetitions(int64_t m, int64_t c) {
  unsigned __int128 beta = 1; /* C(c + 0, c) */
  int64_t r = 0;
  if (c < 1)
    umbra_ckpt_fail("binomial checkpointing needs at least one slot");
  while (beta < (unsigned __int128)m) {
    r++;
    beta = beta * (unsigned __int128)(c + r) / (unsigned __int128)r;
  }
  return r;
}

/* T(m, c): the fewest untaped steps reversing m steps with c slots. */
static inline int64_t umbra_ckpt_binomial_cost(int64_t m, int64_t c) {
  int64_t r, k;
  unsigned __int128 beta = 1; /* C(c + 1 + k, c + 1) for k = 0 */
  if (m <= 1)
    return 0;
  r = umbra_ckpt_repetitions(m, c);
  for (k = 1; k <= r - 1; k++)
    beta = beta * (unsigned __int128)(c + 1 + k) / (unsigned __int128)k;
  return r * m - (int64_t)beta;
}

static inline int64_t umbra_ckpt_split_cost(int64_t m, int64_t c, int64_t j) {
  return j + umbra_ckpt_binomial_cost(m - j, c - 1) + umbra_ckpt_binomial_cost(j, c);
}

/* Where to take the next snapshot when reversing m >= 2 steps with c >= 2 slots: the least
 * minimiser of the convex split cost, by bisection on its forward difference. */
static inline int64_t umbra_ckpt_binomial_split(int64_t m, int64_t c) {
  int64_t lo = 1, hi = m - 1;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (umbra_ckpt_split_cost(m, c, mid + 1) >= umbra_ckpt_split_cost(m, c, mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

typedef struct umbra_ckpt_revolve {
  umbra_ckpt_slots slots;
  int64_t steps, capacity; /* slots allowed */
  int64_t *at;             /* at[k]: the step slot k's snapshot was taken before */
  int64_t top;             /* slots in use: at[0..top-1] */
  int64_t end;             /* steps end.. are reversed; [at[top-1], end) is being worked on */
  int64_t cur;             /* the step the live state is before, or -1 when unknown */
  int store_next, turned;
} umbra_ckpt_revolve;

static inline void *umbra_ckpt_revolve_init(void *data, int64_t nsteps, uint64_t bytes) {
  const EnzymeCkptConfig *config = (const EnzymeCkptConfig *)data;
  umbra_ckpt_revolve *r;
  if (nsteps < 0)
    umbra_ckpt_fail("binomial checkpointing needs the number of steps (not a while loop)");
  r = (umbra_ckpt_revolve *)calloc(1, sizeof(*r));
  if (!r)
    umbra_ckpt_fail("out of memory");
  umbra_ckpt_slots_init(&r->slots, config, bytes);
  r->steps = nsteps;
  r->capacity = config->snapshots < 1 ? 1 : config->snapshots;
  if (r->capacity > nsteps && nsteps > 0)
    r->capacity = nsteps;
  r->at = (int64_t *)calloc((size_t)r->capacity + 1, sizeof(int64_t));
  r->end = nsteps;
  r->cur = 0;
  r->store_next = nsteps > 0;
  return r;
}

static inline void umbra_ckpt_revolve_next(void *state, EnzymeCkptAction *out) {
  umbra_ckpt_revolve *r = (umbra_ckpt_revolve *)state;
  umbra_ckpt_slots *s = &r->slots;
  int64_t base, m, free_slots, j;
  if (r->end == 0) {
    umbra_ckpt_emit(s, out, ENZYME_CKPT_DONE, 0, 0, -1);
    return;
  }
  if (r->cur == r->end - 1) {
    /* The live state is before the next step to reverse: turn. */
    int64_t step = --r->end;
    r->cur = -1;
    r->store_next = 0;
    if (r->top > 1 && r->at[r->top - 1] == r->end) {
      /* That snapshot's steps are all reversed: its slot is free again. */
      umbra_ckpt_drop(s, r->top - 1);
      r->top--;
    }
    umbra_ckpt_emit(s, out, r->turned ? ENZYME_CKPT_UTURN : ENZYME_CKPT_FIRSTUTURN, step + 1,
                    step, r->top - 1);
    r->turned = 1;
    return;
  }
  if (r->store_next) {
    r->store_next = 0;
    r->at[r->top] = r->cur;
    r->top++;
    umbra_ckpt_emit(s, out, ENZYME_CKPT_STORE, r->cur, r->cur, r->top - 1);
    return;
  }
  base = r->at[r->top - 1];
  if (r->cur != base) {
    r->cur = base;
    umbra_ckpt_emit(s, out, ENZYME_CKPT_RESTORE, base, base, r->top - 1);
    return;
  }
  m = r->end - base;
  free_slots = r->capacity - r->top;
  j = free_slots == 0 ? m - 1 : umbra_ckpt_binomial_split(m, free_slots + 1);
  r->cur = base + j;
  /* A snapshot right before the step to turn on would never be restored. */
  r->store_next = free_slots > 0 && r->cur != r->end - 1;
  umbra_ckpt_emit(s, out, ENZYME_CKPT_FORWARD, r->cur, base, r->top - 1);
}

static inline void umbra_ckpt_revolve_store(void *state, int64_t slot, int64_t step,
                                            const EnzymeCkptRegion *regions, uint64_t n) {
  (void)step;
  umbra_ckpt_put(&((umbra_ckpt_revolve *)state)->slots, slot, regions, n);
}

static inline void umbra_ckpt_revolve_restore(void *state, int64_t slot, int64_t step,
                                              const EnzymeCkptRegion *regions, uint64_t n) {
  (void)step;
  umbra_ckpt_get(&((umbra_ckpt_revolve *)state)->slots, slot, regions, n);
}

static inline void umbra_ckpt_revolve_finalize(void *state) {
  umbra_ckpt_revolve *r = (umbra_ckpt_revolve *)state;
  umbra_ckpt_slots_finish(&r->slots);
  free(r->at);
  free(r);
}

static const EnzymeCheckpointScheme EnzymeCkptRevolve = {
    ENZYME_CKPT_ABI_VERSION, umbra_ckpt_revolve_init,     umbra_ckpt_revolve_next,
    umbra_ckpt_revolve_store, umbra_ckpt_revolve_restore, NULL,
    umbra_ckpt_revolve_finalize, NULL,                     NULL,
    NULL};

/* --- Periodic checkpointing and store-all ---------------------------------------------- */
/*
 * K segments [seg(k), seg(k+1)), seg(k) = k n / K. The forward sweep stores each segment's
 * start in slot k. Reversing segment k: from its start, store the state before each of its
 * steps but the first (slots K, K+1, ...), advancing one step at a time, turn on its last step,
 * then restore and turn on each earlier one. The actions of one segment are queued (at most
 * 2 n / K + 2 of them). A while loop (nsteps = -1, store-all only) stores before every step
 * until set_nsteps says how many there were.
 */

typedef struct umbra_ckpt_periodic {
  umbra_ckpt_slots slots;
  int64_t steps, segments;
  int64_t next_segment; /* forward sweep: the segment whose start is stored next */
  int64_t reversing;    /* the segment whose actions are queued, or -1 */
  EnzymeCkptAction *queue;
  int64_t qlen, qpos, qcap;
  int online, online_store; /* while loop still running; store before the next step */
  int64_t pos;
  int turned, done, forward_pending;
} umbra_ckpt_periodic;

static inline int64_t umbra_ckpt_segment_start(const umbra_ckpt_periodic *p, int64_t k) {
  return (int64_t)(((unsigned __int128)k * (unsigned __int128)p->steps) /
                   (unsigned __int128)p->segments);
}

static inline void umbra_ckpt_queue(umbra_ckpt_periodic *p, int32_t flag, int64_t iteration,
                                    int64_t startiteration, int64_t cpnum) {
  EnzymeCkptAction *a;
  if (p->qlen == p->qcap) {
    p->qcap = p->qcap ? 2 * p->qcap : 16;
    p->queue = (EnzymeCkptAction *)realloc(p->queue, (size_t)p->qcap * sizeof(*a));
    if (!p->queue)
      umbra_ckpt_fail("out of memory for the action queue");
  }
  a = &p->queue[p->qlen++];
  a->flag = flag;
  a->iteration = iteration;
  a->startiteration = startiteration;
  a->cpnum = cpnum;
}

/* The slot holding the state before step j of segment k (starting at s). */
static inline int64_t umbra_ckpt_periodic_slot(const umbra_ckpt_periodic *p, int64_t k,
                                               int64_t s, int64_t j) {
  return j == s ? k : p->segments + (j - s - 1);
}

/* Queues the reversal of segment k, whose start is the live state. */
static inline void umbra_ckpt_queue_segment(umbra_ckpt_periodic *p, int64_t k) {
  int64_t s = umbra_ckpt_segment_start(p, k), e = umbra_ckpt_segment_start(p, k + 1), j;
  p->qlen = p->qpos = 0;
  for (j = s; j < e - 1; j++) {
    if (j > s)
      umbra_ckpt_queue(p, ENZYME_CKPT_STORE, j, j, umbra_ckpt_periodic_slot(p, k, s, j));
    umbra_ckpt_queue(p, ENZYME_CKPT_FORWARD, j + 1, j, k);
  }
  umbra_ckpt_queue(p, p->turned ? ENZYME_CKPT_UTURN : ENZYME_CKPT_FIRSTUTURN, e, e - 1, k);
  p->turned = 1;
  for (j = e - 2; j >= s; j--) {
    umbra_ckpt_queue(p, ENZYME_CKPT_RESTORE, j, j, umbra_ckpt_periodic_slot(p, k, s, j));
    umbra_ckpt_queue(p, ENZYME_CKPT_UTURN, j + 1, j, k);
  }
  p->reversing = k;
}

static inline umbra_ckpt_periodic *umbra_ckpt_periodic_new(const EnzymeCkptConfig *config,
                                                           int64_t nsteps, uint64_t bytes,
                                                           int64_t segments) {
  umbra_ckpt_periodic *p = (umbra_ckpt_periodic *)calloc(1, sizeof(*p));
  if (!p)
    umbra_ckpt_fail("out of memory");
  umbra_ckpt_slots_init(&p->slots, config, bytes);
  p->steps = nsteps;
  p->segments = segments < 1 ? 1 : segments;
  if (nsteps >= 0 && p->segments > nsteps)
    p->segments = nsteps > 0 ? nsteps : 1;
  p->reversing = -1;
  p->done = nsteps == 0;
  return p;
}

static inline void *umbra_ckpt_periodic_init(void *data, int64_t nsteps, uint64_t bytes) {
  const EnzymeCkptConfig *config = (const EnzymeCkptConfig *)data;
  if (nsteps < 0)
    umbra_ckpt_fail("periodic checkpointing needs the number of steps (use store-all)");
  return umbra_ckpt_periodic_new(config, nsteps, bytes, config->snapshots);
}

static inline void *umbra_ckpt_store_all_init(void *data, int64_t nsteps, uint64_t bytes) {
  umbra_ckpt_periodic *p = umbra_ckpt_periodic_new((const EnzymeCkptConfig *)data, nsteps,
                                                   bytes, 1);
  if (nsteps < 0) {
    p->online = 1;
    p->online_store = 1;
  }
  return p;
}

/* A while loop ended after n steps, the state before step j in slot j: reverse from there. */
static inline void umbra_ckpt_store_all_set_nsteps(void *state, int64_t n) {
  umbra_ckpt_periodic *p = (umbra_ckpt_periodic *)state;
  int64_t j;
  p->online = 0;
  p->steps = n;
  p->qlen = p->qpos = 0;
  p->reversing = 0;
  p->next_segment = p->segments; /* no forward sweep left */
  if (n == 0) {
    p->done = 1;
    return;
  }
  umbra_ckpt_queue(p, ENZYME_CKPT_RESTORE, n - 1, n - 1, n - 1);
  umbra_ckpt_queue(p, ENZYME_CKPT_FIRSTUTURN, n, n - 1, n - 1);
  p->turned = 1;
  for (j = n - 2; j >= 0; j--) {
    umbra_ckpt_queue(p, ENZYME_CKPT_RESTORE, j, j, j);
    umbra_ckpt_queue(p, ENZYME_CKPT_UTURN, j + 1, j, j);
  }
}

static inline void umbra_ckpt_periodic_next(void *state, EnzymeCkptAction *out) {
  umbra_ckpt_periodic *p = (umbra_ckpt_periodic *)state;
  umbra_ckpt_slots *s = &p->slots;
  if (p->online) {
    if (p->online_store)
      umbra_ckpt_emit(s, out, ENZYME_CKPT_STORE, p->pos, p->pos, p->pos);
    else {
      umbra_ckpt_emit(s, out, ENZYME_CKPT_FORWARD, p->pos + 1, p->pos, p->pos);
      p->pos++;
    }
    p->online_store = !p->online_store;
    return;
  }
  if (p->done) {
    umbra_ckpt_emit(s, out, ENZYME_CKPT_DONE, 0, 0, -1);
    return;
  }
  if (p->reversing < 0) {
    /* The forward sweep: store each segment's start, then run to the next one; the last
     * segment's start stored, queue its reversal. */
    int64_t k = p->next_segment;
    int64_t a = umbra_ckpt_segment_start(p, k);
    if (!p->forward_pending) {
      p->forward_pending = 1;
      umbra_ckpt_emit(s, out, ENZYME_CKPT_STORE, a, a, k);
      return;
    }
    p->forward_pending = 0;
    if (k + 1 < p->segments) {
      p->next_segment = k + 1;
      umbra_ckpt_emit(s, out, ENZYME_CKPT_FORWARD, umbra_ckpt_segment_start(p, k + 1), a, k);
      return;
    }
    umbra_ckpt_queue_segment(p, k);
  }
  if (p->qpos == p->qlen) {
    /* Segment `reversing` is done: restore the previous one's start and reverse it. */
    int64_t k = p->reversing - 1, a;
    if (k < 0) {
      p->done = 1;
      umbra_ckpt_emit(s, out, ENZYME_CKPT_DONE, 0, 0, -1);
      return;
    }
    umbra_ckpt_drop(s, k + 1);
    umbra_ckpt_queue_segment(p, k);
    a = umbra_ckpt_segment_start(p, k);
    umbra_ckpt_emit(s, out, ENZYME_CKPT_RESTORE, a, a, k);
    return;
  }
  *out = p->queue[p->qpos++];
  umbra_ckpt_note(s, out);
}

static inline void umbra_ckpt_periodic_store(void *state, int64_t slot, int64_t step,
                                             const EnzymeCkptRegion *regions, uint64_t n) {
  (void)step;
  umbra_ckpt_put(&((umbra_ckpt_periodic *)state)->slots, slot, regions, n);
}

static inline void umbra_ckpt_periodic_restore(void *state, int64_t slot, int64_t step,
                                               const EnzymeCkptRegion *regions, uint64_t n) {
  (void)step;
  umbra_ckpt_get(&((umbra_ckpt_periodic *)state)->slots, slot, regions, n);
}

static inline void umbra_ckpt_periodic_finalize(void *state) {
  umbra_ckpt_periodic *p = (umbra_ckpt_periodic *)state;
  umbra_ckpt_slots_finish(&p->slots);
  free(p->queue);
  free(p);
}

static const EnzymeCheckpointScheme EnzymeCkptPeriodic = {
    ENZYME_CKPT_ABI_VERSION,      umbra_ckpt_periodic_init,    umbra_ckpt_periodic_next,
    umbra_ckpt_periodic_store,    umbra_ckpt_periodic_restore, NULL,
    umbra_ckpt_periodic_finalize, NULL,                        NULL,
    NULL};

static const EnzymeCheckpointScheme EnzymeCkptStoreAll = {
    ENZYME_CKPT_ABI_VERSION,      umbra_ckpt_store_all_init,       umbra_ckpt_periodic_next,
    umbra_ckpt_periodic_store,    umbra_ckpt_periodic_restore,     umbra_ckpt_store_all_set_nsteps,
    umbra_ckpt_periodic_finalize, NULL,                            NULL,
    NULL};

/* The scheme of an Enzyme mode (the marker __enzyme_set_checkpointing): Umbra calls it where it
 * outlines a loop so marked. Weak: one definition per program, from any file including this. */
__attribute__((weak, used)) const EnzymeCheckpointScheme *umbra_checkpoint_scheme_of_mode(int64_t mode) {
  return mode == 2 ? &EnzymeCkptRevolve : &EnzymeCkptPeriodic;
}

#ifdef __cplusplus
}
#endif

#endif /* ENZYME_CHECKPOINT_H */
#endif /* UMBRA_CHECKPOINT_H */
