/*
 * docking.c - a single-precision molecular docking energy, the shape of the kernels that score
 * candidate poses of a small molecule (the ligand) against a protein: per pose a rigid
 * transform (three rotations, a translation) of the ligand's atoms, then every ligand atom
 * against every protein atom, with terms that switch on and off by distance (steric clashes,
 * hydrophobic contact, electrostatics, desolvation). Poses go in batches of PPW, each batch's
 * energies kept in a small private array, as such kernels do for vectorisation.
 *
 * The gradient is that of a weighted sum of the poses' energies with respect to the protein's
 * coordinates. The kernel writes nothing it reads: every per-pair value can be recomputed from
 * the coordinates, the force field and the poses.
 *
 *   docking [POSES]     default 1024 poses (-DSMALL: 16 poses, fewer atoms)
 */
#include "app.h"

#include <string.h>

#ifdef SMALL
enum { PROTEIN = 120, LIGAND = 12, POSES = 16, TYPES = 8 };
#else
enum { PROTEIN = 940, LIGAND = 26, POSES = 1024, TYPES = 16 };
#endif
enum { PPW = 4 }; /* poses per batch */

typedef struct {
  float radius, hardness, charge, solvation; /* per atom type */
  int hydrophobic;
} FF;

typedef struct {
  float x, y, z;
  int type;
} LigandAtom;

static const float CUTOFF_ELEC = 4.0f, CUTOFF_CONTACT = 4.0f, HBOND = 1.0f;
static const float ELEC_SCALE = 2.0f, DESOLV_CUT = 10.0f, DESOLV_SCALE = 0.015f;

/* The energies of poses [first, first + PPW), written to energies[]. */
static void score_batch(const float *restrict protein, const int *restrict ptype,
                        const LigandAtom *restrict ligand, const FF *restrict ff,
                        const float *restrict poses, int first, float *restrict energies) {
  float transform[PPW][3][4];
  float etot[PPW];
  for (int l = 0; l < PPW; l++) {
    const float *p = poses + 6 * (first + l);
    float sx = sinf(p[0]), cx = cosf(p[0]);
    float sy = sinf(p[1]), cy = cosf(p[1]);
    float sz = sinf(p[2]), cz = cosf(p[2]);
    transform[l][0][0] = cy * cz;
    transform[l][0][1] = sx * sy * cz - cx * sz;
    transform[l][0][2] = cx * sy * cz + sx * sz;
    transform[l][0][3] = p[3];
    transform[l][1][0] = cy * sz;
    transform[l][1][1] = sx * sy * sz + cx * cz;
    transform[l][1][2] = cx * sy * sz - sx * cz;
    transform[l][1][3] = p[4];
    transform[l][2][0] = -sy;
    transform[l][2][1] = sx * cy;
    transform[l][2][2] = cx * cy;
    transform[l][2][3] = p[5];
    etot[l] = 0;
  }
  for (int il = 0; il < LIGAND; il++) {
    const LigandAtom a = ligand[il];
    const FF la = ff[a.type];
    float lx[PPW], ly[PPW], lz[PPW];
    for (int l = 0; l < PPW; l++) {
      lx[l] = transform[l][0][0] * a.x + transform[l][0][1] * a.y + transform[l][0][2] * a.z +
              transform[l][0][3];
      ly[l] = transform[l][1][0] * a.x + transform[l][1][1] * a.y + transform[l][1][2] * a.z +
              transform[l][1][3];
      lz[l] = transform[l][2][0] * a.x + transform[l][2][1] * a.y + transform[l][2][2] * a.z +
              transform[l][2][3];
    }
    for (int ip = 0; ip < PROTEIN; ip++) {
      const FF pa = ff[ptype[ip]];
      const float px = protein[3 * ip], py = protein[3 * ip + 1], pz = protein[3 * ip + 2];
      const float radij = pa.radius + la.radius;
      const float inv_radij = 1.0f / radij;
      const float hard = 0.5f * (pa.hardness + la.hardness);
      const float charge = pa.charge * la.charge * ELEC_SCALE;
      const int both_hydrophobic = pa.hydrophobic && la.hydrophobic;
      const float desolv = (pa.solvation * la.charge + la.solvation * pa.charge) * DESOLV_SCALE;
      for (int l = 0; l < PPW; l++) {
        const float dx = lx[l] - px, dy = ly[l] - py, dz = lz[l] - pz;
        const float dist = sqrtf(dx * dx + dy * dy + dz * dz);
        const float gap = dist - radij;
        float e = 0;
        if (gap < 0) /* overlap: a steep steric penalty */
          e += hard * (1.0f - dist * inv_radij) * (1.0f - dist * inv_radij);
        if (gap < CUTOFF_CONTACT) { /* contact: attraction or repulsion by type */
          const float w = gap < 0 ? 1.0f : 1.0f - gap / CUTOFF_CONTACT;
          /* hydrophobic pairs attract; others attract when close (a hydrogen bond) */
          e += both_hydrophobic ? -0.4f * w : (gap < HBOND ? -0.8f * (1.0f - gap / HBOND) * w : 0);
        }
        if (gap < CUTOFF_ELEC) { /* screened electrostatics */
          const float screen = gap < 0 ? 1.0f : 1.0f - gap / CUTOFF_ELEC;
          e += charge * screen / fmaxf(dist, 0.5f);
        }
        if (dist < DESOLV_CUT) /* desolvation, smooth to zero at the cut-off */
          e += desolv * (1.0f - dist / DESOLV_CUT) * (1.0f - dist / DESOLV_CUT);
        etot[l] += e;
      }
    }
  }
  for (int l = 0; l < PPW; l++) energies[l] = etot[l];
}

/* Sum over poses of weight * energy: the objective differentiated. */
__attribute__((noinline)) float docking_energy(const float *protein, const int *ptype,
                                               const LigandAtom *ligand, const FF *ff,
                                               const float *poses, const float *weights,
                                               int nposes) {
  float total = 0;
#pragma omp parallel for reduction(+ : total)
  for (int first = 0; first <= nposes - PPW; first += PPW) {
    float energies[PPW];
    score_batch(protein, ptype, ligand, ff, poses, first, energies);
    for (int l = 0; l < PPW; l++) total += weights[first + l] * energies[l];
  }
  return total;
}

typedef struct {
  float *protein, *dprotein, *poses, *weights;
  int *ptype;
  LigandAtom *ligand;
  FF *ff;
  int nposes;
  volatile float sink;
} Problem;

static void run_primal(void *c) {
  Problem *p = c;
  p->sink = docking_energy(p->protein, p->ptype, p->ligand, p->ff, p->poses, p->weights,
                           p->nposes);
}

static void run_gradient(void *c) {
  Problem *p = c;
  memset(p->dprotein, 0, 3 * PROTEIN * sizeof(float));
  __enzyme_autodiff((void *)docking_energy, enzyme_dup, p->protein, p->dprotein, enzyme_const,
                    p->ptype, enzyme_const, p->ligand, enzyme_const, p->ff, enzyme_const,
                    p->poses, enzyme_const, p->weights, enzyme_const, p->nposes);
}

int main(int argc, char **argv) {
  Problem p = {0};
  p.nposes = argc > 1 ? atoi(argv[1]) : POSES;
  p.nposes -= p.nposes % PPW;
  unsigned long long seed = 42;
  p.protein = malloc(3 * PROTEIN * sizeof(float));
  p.dprotein = malloc(3 * PROTEIN * sizeof(float));
  p.ptype = malloc(PROTEIN * sizeof(int));
  p.ligand = malloc(LIGAND * sizeof(LigandAtom));
  p.ff = malloc(TYPES * sizeof(FF));
  p.poses = malloc(6 * p.nposes * sizeof(float));
  p.weights = malloc(p.nposes * sizeof(float));
  for (int t = 0; t < TYPES; t++) {
    p.ff[t].radius = 1.4f + 0.6f * app_rand(&seed);
    p.ff[t].hardness = 20.0f + 20.0f * app_rand(&seed);
    p.ff[t].charge = 0.8f * (app_rand(&seed) - 0.5f);
    p.ff[t].solvation = app_rand(&seed);
    p.ff[t].hydrophobic = app_rand(&seed) < 0.4;
  }
  /* A protein of about 3 atoms per 10 cubic angstroms around the origin. */
  const float box = cbrtf(PROTEIN * 10.0f / 3.0f);
  for (int i = 0; i < PROTEIN; i++) {
    for (int k = 0; k < 3; k++) p.protein[3 * i + k] = box * (app_rand(&seed) - 0.5f);
    p.ptype[i] = (int)(app_rand(&seed) * TYPES) % TYPES;
  }
  for (int i = 0; i < LIGAND; i++) {
    p.ligand[i].x = 3.0f * (app_rand(&seed) - 0.5f);
    p.ligand[i].y = 3.0f * (app_rand(&seed) - 0.5f);
    p.ligand[i].z = 3.0f * (app_rand(&seed) - 0.5f);
    p.ligand[i].type = (int)(app_rand(&seed) * TYPES) % TYPES;
  }
  for (int k = 0; k < p.nposes; k++) {
    for (int j = 0; j < 3; j++) p.poses[6 * k + j] = 6.2832f * app_rand(&seed);
    for (int j = 3; j < 6; j++) p.poses[6 * k + j] = 0.6f * box * (app_rand(&seed) - 0.5f);
    p.weights[k] = 0.5f + app_rand(&seed);
  }

  /* Checks: <grad, v> against a central difference along v, on a few poses (float: the step
   * balances truncation and rounding). */
  Problem small = p;
  small.nposes = p.nposes < 8 ? p.nposes : 8;
  run_gradient(&small);
  float *xp = malloc(3 * PROTEIN * sizeof(float));
  for (int dir = 0; dir < 3; dir++) {
    float v[3 * PROTEIN];
    double ad = 0;
    for (int i = 0; i < 3 * PROTEIN; i++) {
      v[i] = (float)(app_rand(&seed) - 0.5);
      ad += (double)small.dprotein[i] * v[i];
    }
    const float h = 1e-2f;
    double f[2];
    for (int s = 0; s < 2; s++) {
      for (int i = 0; i < 3 * PROTEIN; i++) xp[i] = p.protein[i] + (s ? -h : h) * v[i];
      f[s] = docking_energy(xp, p.ptype, p.ligand, p.ff, p.poses, p.weights, small.nposes);
    }
    char what[64];
    snprintf(what, sizeof what, "docking gradient, direction %d", dir);
    app_check(what, ad, (f[0] - f[1]) / (2 * h), 2e-2);
  }
  free(xp);
  if (app_failures_) return 1;

  double primal_s, grad_s;
  app_time(run_primal, run_gradient, &p, &primal_s, &grad_s);
  app_report("docking", primal_s, grad_s);
  printf("docking tape bytes per pose %.1f\n", (double)app_tape_bytes_ / p.nposes);
  return 0;
}
