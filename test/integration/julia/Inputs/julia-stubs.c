/* Stand-ins for the few Julia runtime entry points the Julia-shaped IR tests call, with the
 * object layouts of Julia 1.10 (jl_array_t) and 1.11 (jl_genericmemory_t, jl_datatype_t,
 * jl_datatype_layout_t), plus the test driver: derivatives of julia_f in both modes against
 * central finite differences.
 *
 * New arrays and memories are filled with 0xff bytes (NaN as doubles), as an uninitialised
 * bits-type allocation may be: a shadow the rule failed to zero shows up as a NaN derivative.
 * Nothing is freed (Julia's collector would); the program is short-lived. */
#include "fdcheck.h"
#include <stddef.h>
#include <stdint.h>

/* ---- Julia 1.10: arrays ---- */
typedef struct {
  void *data;
  size_t length;
  uint16_t flags;
  uint16_t elsize;
  uint32_t offset;
  size_t nrows;
  size_t ncols; /* maxsize for 1-d */
  size_t dim3;  /* further dimensions for ndims > 2 */
} jl_array_t;

_Static_assert(offsetof(jl_array_t, length) == 8, "jl_array_t layout");
_Static_assert(offsetof(jl_array_t, elsize) == 18, "jl_array_t layout");

char jl_array_float64_1d_type, jl_array_float64_2d_type, jl_array_float64_3d_type;
static uint64_t world = 1;
static long allocations = 0;

static void *garbage(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) abort();
  memset(p, 0xff, bytes);
  return p;
}

static jl_array_t *new_array(size_t nr, size_t nc, size_t n3) {
  jl_array_t *a = garbage(sizeof *a);
  a->data = garbage(nr * nc * n3 * sizeof(double));
  a->length = nr * nc * n3;
  a->flags = 0;
  a->elsize = sizeof(double);
  a->offset = 0;
  a->nrows = nr;
  a->ncols = nc;
  a->dim3 = n3;
  allocations++;
  return a;
}

jl_array_t *ijl_alloc_array_1d(void *atype, size_t n) { (void)atype; return new_array(n, 1, 1); }
jl_array_t *ijl_alloc_array_2d(void *atype, size_t nr, size_t nc) {
  (void)atype;
  return new_array(nr, nc, 1);
}
jl_array_t *ijl_alloc_array_3d(void *atype, size_t a, size_t b, size_t c) {
  (void)atype;
  return new_array(a, b, c);
}
uint64_t ijl_get_world_counter(void) { return world; }

/* ---- Julia 1.11: memory ---- */
typedef struct {
  uint32_t size, nfields, npointers;
  int32_t first_ptr;
  uint16_t alignment;
  uint16_t flags; /* bit 3: arrayelem_isboxed */
} jl_datatype_layout_t;
typedef struct {
  void *name, *super, *parameters, *types, *instance;
  const jl_datatype_layout_t *layout;
  uint32_t hash;
  uint16_t bits;
} jl_datatype_t;
typedef struct {
  size_t length;
  void *ptr;
} jl_genericmemory_t;

_Static_assert(offsetof(jl_datatype_t, layout) == 40, "jl_datatype_t layout");
_Static_assert(offsetof(jl_datatype_layout_t, flags) == 18, "jl_datatype_layout_t layout");

static const jl_datatype_layout_t float64_elem = {.size = 8, .alignment = 8};
jl_datatype_t jl_memory_float64_type = {.layout = &float64_elem};

jl_genericmemory_t *ijl_alloc_genericmemory(jl_datatype_t *mtype, size_t n) {
  size_t elsz = mtype->layout->size;
  /* Header, owner word, then the data inline, as Julia lays out small memories. */
  jl_genericmemory_t *m = garbage(sizeof *m + sizeof(void *) + n * elsz);
  m->length = n;
  m->ptr = (char *)m + sizeof *m + sizeof(void *);
  allocations++;
  return m;
}
void *ijl_genericmemory_owner(jl_genericmemory_t *m) { return m; }

/* ---- the test ---- */
double julia_f(double *x, long n);
double tangent(double *x, double *dx, long n);
void gradient(double *x, double *dx, long n);

enum { N = 5 };
static double f_at(const double *p, void *ctx) {
  (void)ctx;
  double x[N];
  memcpy(x, p, sizeof x);
  return julia_f(x, N);
}

int main(void) {
  double x[N], v[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.4 + 0.23 * i - 0.3 * (i % 2);
    v[i] = 0.7 - 0.31 * i;
  }
  fd_check("tangent", tangent(x, v, N), fd_dir(f_at, NULL, x, v, N));
  gradient(x, dx, N);
  fd_grad(f_at, NULL, x, N, fd);
  fd_check_array("gradient", dx, fd, N);
  return fd_finish();
}
