/*
 * hydro.cpp - one explicit Lagrangian shock-hydrodynamics time step on a structured hexahedral
 * mesh, written the way HPC proxy applications write it (a Domain of std::vectors, one function
 * per kernel, indirect addressing through the connectivity), and its gradient with respect to
 * the whole state through Enzyme's calling convention (`enzyme_dup, &domain, &shadow_domain`).
 *
 * The step (staggered grid: positions and velocities on nodes, thermodynamics on elements):
 *   1. nodal forces: stress integration (one-point shape-function derivatives of each hexahedron,
 *      force = (p + q) dV/dx at its nodes) plus Flanagan-Belytschko-style hourglass control
 *      (the 4 hourglass modes, projected orthogonal to the linear field), written per element
 *      corner and summed at the nodes through a node -> corner list;
 *   2. a = F / m, symmetry planes x = 0, y = 0, z = 0 hold the normal acceleration at 0,
 *      velocity and position updates with a velocity cutoff;
 *   3. element kinematics: new volume (exact for a trilinear hexahedron: 2x2x2 Gauss points),
 *      characteristic length, volumetric strain rate at the half step;
 *   4. artificial viscosity: velocity jumps across each element along its three logical
 *      directions, a monotonic limiter from the neighbours' jumps, linear + quadratic terms;
 *   5. equation of state per region (3 regions, elements assigned round-robin, one ideal gas
 *      each: p = (gamma - 1) e / v with cutoffs and a floor, sound speed), a predictor-corrector
 *      energy update;
 *   6. time-step constraints (Courant and volume-change) for the next step.
 * The objective is the total (internal + kinetic) energy after the step plus a weighted next
 * time step, so every kernel matters to the gradient.
 *
 *   hydro [n]        n^3 elements (default 30; -DSMALL: 6)
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "app.h"

typedef double Real;
typedef int Index;

#ifdef SMALL
#define DEFAULT_EDGE 6
#else
#define DEFAULT_EDGE 30
#endif

struct Params {
  Real u_cut = 1e-7, e_cut = 1e-7, p_cut = 1e-7, q_cut = 1e-7, v_cut = 1e-10;
  Real hgcoef = 3.0;
  Real qstop = 1e12, monoq_max_slope = 1.0, monoq_limiter = 2.0, qlc = 0.5, qqc = 2.0;
  Real qqc2 = 64.0 * 2.0 * 2.0;
  Real pmin = 0.0, emin = -1e15, eosvmin = 1e-9, eosvmax = 1e9, refdens = 1.0;
  Real ss_floor2 = 1.111111e-36, dvovmax = 0.1, ptiny = 1e-36;
  Real dt_weight = 1e3; /* weight of the next time step in the objective */
};

struct Domain {
  /* mesh */
  Index n = 0, numElem = 0, numNode = 0;
  std::vector<Index> nodelist;                             /* 8 nodes per element */
  std::vector<Index> lxim, lxip, letam, letap, lzetam, lzetap; /* neighbours, -1 at the boundary */
  std::vector<Index> nodeElemStart, nodeElemCorner;        /* node -> element corners (8 e + k) */
  std::vector<Index> symmX, symmY, symmZ;                  /* nodes on the symmetry planes */
  std::vector<std::vector<Index>> regElemList;             /* elements of each region */
  std::vector<Real> regGamma;

  /* nodal fields */
  std::vector<Real> x, y, z, xd, yd, zd, xdd, ydd, zdd, fx, fy, fz, nodalMass;

  /* element fields */
  std::vector<Real> e, p, q, ql, qq, v, volo, vnew, delv, vdov, arealg, ss, elemMass;
  std::vector<Real> delv_xi, delv_eta, delv_zeta, delx_xi, delx_eta, delx_zeta;

  Params par;
  Real dtcourant = 1e20, dthydro = 1e20;
  int volumeError = 0, qstopError = 0;
};

/* Logical coordinates of a hexahedron's corners and its 4 hourglass modes. */
static const Real sxi[8] = {-1, 1, 1, -1, -1, 1, 1, -1};
static const Real seta[8] = {-1, -1, 1, 1, -1, -1, 1, 1};
static const Real szeta[8] = {-1, -1, -1, -1, 1, 1, 1, 1};
/* The same, by direction. (Not an array of pointers to the three above: umbra refuses that at
 * clang -O0, where the array is copied from a constant: /tmp/hydro-bugs/const-pointer-table-O0.cpp.) */
static const Real sdir[3][8] = {{-1, 1, 1, -1, -1, 1, 1, -1},
                                {-1, -1, 1, 1, -1, -1, 1, 1},
                                {-1, -1, -1, -1, 1, 1, 1, 1}};
static const Real hgmode[4][8] = {
    {1, -1, 1, -1, 1, -1, 1, -1},  /* xi eta */
    {1, 1, -1, -1, -1, -1, 1, 1},  /* eta zeta */
    {1, -1, -1, 1, -1, 1, 1, -1},  /* zeta xi */
    {-1, 1, -1, 1, 1, -1, 1, -1}}; /* xi eta zeta */
/* Faces, corners counter-clockwise seen from outside. */
static const int faceNodes[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                    {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}};

static inline void gather8(const Index *nl, const std::vector<Real> &a, Real out[8]) {
  for (int i = 0; i < 8; ++i) out[i] = a[nl[i]];
}

/* Jacobian of the trilinear map at the element centre, its cofactors give B[a][i] = dV/dx_i^a
 * (one-point quadrature); returns the one-point volume 8 det J. */
static inline Real shape_derivatives(const Real xe[8], const Real ye[8], const Real ze[8],
                                     Real B[3][8]) {
  Real J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (int i = 0; i < 8; ++i) {
    J[0][0] += xe[i] * sxi[i];
    J[0][1] += xe[i] * seta[i];
    J[0][2] += xe[i] * szeta[i];
    J[1][0] += ye[i] * sxi[i];
    J[1][1] += ye[i] * seta[i];
    J[1][2] += ye[i] * szeta[i];
    J[2][0] += ze[i] * sxi[i];
    J[2][1] += ze[i] * seta[i];
    J[2][2] += ze[i] * szeta[i];
  }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) J[a][b] *= 0.125;
  Real C[3][3];
  C[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
  C[0][1] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
  C[0][2] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
  C[1][0] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
  C[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
  C[1][2] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
  C[2][0] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
  C[2][1] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
  C[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  Real det = J[0][0] * C[0][0] + J[0][1] * C[0][1] + J[0][2] * C[0][2];
  for (int i = 0; i < 8; ++i)
    for (int a = 0; a < 3; ++a) B[a][i] = C[a][0] * sxi[i] + C[a][1] * seta[i] + C[a][2] * szeta[i];
  return 8.0 * det;
}

/* Volume of a trilinear hexahedron: det J integrated by 2x2x2 Gauss points (exact). */
Real hex_volume(const Real xe[8], const Real ye[8], const Real ze[8]) {
  const Real g = 0.57735026918962576451;
  Real vol = 0;
  for (int gp = 0; gp < 8; ++gp) {
    Real a = sxi[gp] * g, b = seta[gp] * g, c = szeta[gp] * g;
    Real J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (int i = 0; i < 8; ++i) {
      Real da = sxi[i] * (1 + seta[i] * b) * (1 + szeta[i] * c) * 0.125;
      Real db = seta[i] * (1 + sxi[i] * a) * (1 + szeta[i] * c) * 0.125;
      Real dc = szeta[i] * (1 + sxi[i] * a) * (1 + seta[i] * b) * 0.125;
      J[0][0] += xe[i] * da;
      J[0][1] += xe[i] * db;
      J[0][2] += xe[i] * dc;
      J[1][0] += ye[i] * da;
      J[1][1] += ye[i] * db;
      J[1][2] += ye[i] * dc;
      J[2][0] += ze[i] * da;
      J[2][1] += ze[i] * db;
      J[2][2] += ze[i] * dc;
    }
    vol += J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
           J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
           J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
  }
  return vol;
}

/* Exact derivatives of that volume with respect to the corner coordinates: at each Gauss point
 * d(det J)/dx_i^a = sum_b cof(J)_ab dN_i/dxi_b. Returns the volume. */
Real volume_derivatives(const Real xe[8], const Real ye[8], const Real ze[8], Real dvdx[3][8]) {
  const Real g = 0.57735026918962576451;
  Real vol = 0;
  for (int a = 0; a < 3; ++a)
    for (int i = 0; i < 8; ++i) dvdx[a][i] = 0;
  for (int gp = 0; gp < 8; ++gp) {
    Real a = sxi[gp] * g, b = seta[gp] * g, c = szeta[gp] * g;
    Real dN[3][8];
    Real J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (int i = 0; i < 8; ++i) {
      dN[0][i] = sxi[i] * (1 + seta[i] * b) * (1 + szeta[i] * c) * 0.125;
      dN[1][i] = seta[i] * (1 + sxi[i] * a) * (1 + szeta[i] * c) * 0.125;
      dN[2][i] = szeta[i] * (1 + sxi[i] * a) * (1 + seta[i] * b) * 0.125;
      for (int d = 0; d < 3; ++d) {
        J[0][d] += xe[i] * dN[d][i];
        J[1][d] += ye[i] * dN[d][i];
        J[2][d] += ze[i] * dN[d][i];
      }
    }
    Real C[3][3];
    C[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
    C[0][1] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
    C[0][2] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
    C[1][0] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
    C[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
    C[1][2] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
    C[2][0] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
    C[2][1] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
    C[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    vol += J[0][0] * C[0][0] + J[0][1] * C[0][1] + J[0][2] * C[0][2];
    for (int d = 0; d < 3; ++d)
      for (int i = 0; i < 8; ++i)
        dvdx[d][i] += C[d][0] * dN[0][i] + C[d][1] * dN[1][i] + C[d][2] * dN[2][i];
  }
  return vol;
}

/* Volume over the largest face area. */
static inline Real char_length(const Real xe[8], const Real ye[8], const Real ze[8], Real vol) {
  Real amax = 0;
  for (int f = 0; f < 6; ++f) {
    const int *c = faceNodes[f];
    Real ax = xe[c[2]] - xe[c[0]], ay = ye[c[2]] - ye[c[0]], az = ze[c[2]] - ze[c[0]];
    Real bx = xe[c[3]] - xe[c[1]], by = ye[c[3]] - ye[c[1]], bz = ze[c[3]] - ze[c[1]];
    Real nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
    amax = std::max(amax, 0.25 * (nx * nx + ny * ny + nz * nz));
  }
  return vol / std::sqrt(amax);
}

/* ---------------------------------------------------------------------------------------------
 * Nodal forces */

void integrate_stress(const Domain &d, Real *fxe, Real *fye, Real *fze) {
#pragma omp parallel for
  for (Index k = 0; k < d.numElem; ++k) {
    const Index *nl = &d.nodelist[8 * k];
    Real xe[8], ye[8], ze[8], B[3][8];
    gather8(nl, d.x, xe);
    gather8(nl, d.y, ye);
    gather8(nl, d.z, ze);
    shape_derivatives(xe, ye, ze, B);
    Real sig = d.p[k] + d.q[k];
    for (int i = 0; i < 8; ++i) {
      fxe[8 * k + i] = sig * B[0][i];
      fye[8 * k + i] = sig * B[1][i];
      fze[8 * k + i] = sig * B[2][i];
    }
  }
}

/* Hourglass base vectors gamma_m = h_m - (h_m . x) B / V (B = dV/dx), orthogonal to the linear
 * field. */
static inline void hourglass_vectors(const Real xe[8], const Real ye[8], const Real ze[8],
                                     const Real B[3][8], Real vol, Real gam[4][8]) {
  Real volinv = 1.0 / vol;
  for (int m = 0; m < 4; ++m) {
    Real hx = 0, hy = 0, hz = 0;
    for (int j = 0; j < 8; ++j) {
      hx += hgmode[m][j] * xe[j];
      hy += hgmode[m][j] * ye[j];
      hz += hgmode[m][j] * ze[j];
    }
    for (int i = 0; i < 8; ++i)
      gam[m][i] = hgmode[m][i] - volinv * (hx * B[0][i] + hy * B[1][i] + hz * B[2][i]);
  }
}

void hourglass_control(const Domain &d, Real *fxe, Real *fye, Real *fze) {
#pragma omp parallel for
  for (Index k = 0; k < d.numElem; ++k) {
    const Index *nl = &d.nodelist[8 * k];
    Real xe[8], ye[8], ze[8], xde[8], yde[8], zde[8], B[3][8], gam[4][8];
    gather8(nl, d.x, xe);
    gather8(nl, d.y, ye);
    gather8(nl, d.z, ze);
    gather8(nl, d.xd, xde);
    gather8(nl, d.yd, yde);
    gather8(nl, d.zd, zde);
    Real vol = volume_derivatives(xe, ye, ze, B);
    hourglass_vectors(xe, ye, ze, B, vol, gam);
    Real coef = -d.par.hgcoef * 0.01 * d.ss[k] * d.elemMass[k] / std::cbrt(vol);
    Real qx[4], qy[4], qz[4];
    for (int m = 0; m < 4; ++m) {
      qx[m] = qy[m] = qz[m] = 0;
      for (int j = 0; j < 8; ++j) {
        qx[m] += gam[m][j] * xde[j];
        qy[m] += gam[m][j] * yde[j];
        qz[m] += gam[m][j] * zde[j];
      }
    }
    for (int i = 0; i < 8; ++i) {
      Real hx = 0, hy = 0, hz = 0;
      for (int m = 0; m < 4; ++m) {
        hx += gam[m][i] * qx[m];
        hy += gam[m][i] * qy[m];
        hz += gam[m][i] * qz[m];
      }
      fxe[8 * k + i] += coef * hx;
      fye[8 * k + i] += coef * hy;
      fze[8 * k + i] += coef * hz;
    }
  }
}

static inline void sum_corner_forces(Domain &d, const Real *fxe, const Real *fye,
                                     const Real *fze) {
#pragma omp parallel for
  for (Index nd = 0; nd < d.numNode; ++nd) {
    Real sx = 0, sy = 0, sz = 0;
    for (Index c = d.nodeElemStart[nd]; c < d.nodeElemStart[nd + 1]; ++c) {
      Index corner = d.nodeElemCorner[c];
      sx += fxe[corner];
      sy += fye[corner];
      sz += fze[corner];
    }
    d.fx[nd] = sx;
    d.fy[nd] = sy;
    d.fz[nd] = sz;
  }
}

void calc_force_for_nodes(Domain &d) {
  std::vector<Real> fxe(8 * d.numElem), fye(8 * d.numElem), fze(8 * d.numElem);
  integrate_stress(d, fxe.data(), fye.data(), fze.data());
  if (d.par.hgcoef > 0) hourglass_control(d, fxe.data(), fye.data(), fze.data());
  sum_corner_forces(d, fxe.data(), fye.data(), fze.data());
}

/* ---------------------------------------------------------------------------------------------
 * Nodes: acceleration, boundary conditions, velocity, position */

static inline void calc_acceleration(Domain &d) {
#pragma omp parallel for
  for (Index nd = 0; nd < d.numNode; ++nd) {
    d.xdd[nd] = d.fx[nd] / d.nodalMass[nd];
    d.ydd[nd] = d.fy[nd] / d.nodalMass[nd];
    d.zdd[nd] = d.fz[nd] / d.nodalMass[nd];
  }
}

static inline void apply_acceleration_bc(Domain &d) {
  for (size_t i = 0; i < d.symmX.size(); ++i) d.xdd[d.symmX[i]] = 0;
  for (size_t i = 0; i < d.symmY.size(); ++i) d.ydd[d.symmY[i]] = 0;
  for (size_t i = 0; i < d.symmZ.size(); ++i) d.zdd[d.symmZ[i]] = 0;
}

void calc_velocity(Domain &d, Real dt) {
  const Real u_cut = d.par.u_cut;
#pragma omp parallel for
  for (Index nd = 0; nd < d.numNode; ++nd) {
    Real vx = d.xd[nd] + d.xdd[nd] * dt;
    if (std::fabs(vx) < u_cut) vx = 0;
    d.xd[nd] = vx;
    Real vy = d.yd[nd] + d.ydd[nd] * dt;
    if (std::fabs(vy) < u_cut) vy = 0;
    d.yd[nd] = vy;
    Real vz = d.zd[nd] + d.zdd[nd] * dt;
    if (std::fabs(vz) < u_cut) vz = 0;
    d.zd[nd] = vz;
  }
}

static inline void calc_position(Domain &d, Real dt) {
#pragma omp parallel for
  for (Index nd = 0; nd < d.numNode; ++nd) {
    d.x[nd] += d.xd[nd] * dt;
    d.y[nd] += d.yd[nd] * dt;
    d.z[nd] += d.zd[nd] * dt;
  }
}

/* ---------------------------------------------------------------------------------------------
 * Elements: kinematics, artificial viscosity */

void calc_kinematics(Domain &d, Real dt) {
#pragma omp parallel for
  for (Index k = 0; k < d.numElem; ++k) {
    const Index *nl = &d.nodelist[8 * k];
    Real xe[8], ye[8], ze[8], xde[8], yde[8], zde[8], B[3][8];
    gather8(nl, d.x, xe);
    gather8(nl, d.y, ye);
    gather8(nl, d.z, ze);
    gather8(nl, d.xd, xde);
    gather8(nl, d.yd, yde);
    gather8(nl, d.zd, zde);
    Real vol = hex_volume(xe, ye, ze);
    Real vrel = vol / d.volo[k];
    d.vnew[k] = vrel;
    d.delv[k] = vrel - d.v[k];
    d.arealg[k] = char_length(xe, ye, ze, vol);
    if (vrel <= 0) d.volumeError = 1;
    /* strain rate at the half step */
    for (int i = 0; i < 8; ++i) {
      xe[i] -= 0.5 * dt * xde[i];
      ye[i] -= 0.5 * dt * yde[i];
      ze[i] -= 0.5 * dt * zde[i];
    }
    Real vhalf = shape_derivatives(xe, ye, ze, B);
    Real dxx = 0, dyy = 0, dzz = 0;
    for (int i = 0; i < 8; ++i) {
      dxx += B[0][i] * xde[i];
      dyy += B[1][i] * yde[i];
      dzz += B[2][i] * zde[i];
    }
    d.vdov[k] = (dxx + dyy + dzz) / vhalf;
  }
}

/* Velocity jump across the element along each logical direction, normal to the mid-surface, and
 * the element's thickness in that direction. */
void calc_q_gradients(Domain &d) {
  const Real ptiny = d.par.ptiny;
#pragma omp parallel for
  for (Index k = 0; k < d.numElem; ++k) {
    const Index *nl = &d.nodelist[8 * k];
    Real xe[8], ye[8], ze[8], xde[8], yde[8], zde[8];
    gather8(nl, d.x, xe);
    gather8(nl, d.y, ye);
    gather8(nl, d.z, ze);
    gather8(nl, d.xd, xde);
    gather8(nl, d.yd, yde);
    gather8(nl, d.zd, zde);
    Real dX[3][3], dV[3][3];
    for (int b = 0; b < 3; ++b) {
      Real ax = 0, ay = 0, az = 0, vx = 0, vy = 0, vz = 0;
      for (int i = 0; i < 8; ++i) {
        ax += sdir[b][i] * xe[i];
        ay += sdir[b][i] * ye[i];
        az += sdir[b][i] * ze[i];
        vx += sdir[b][i] * xde[i];
        vy += sdir[b][i] * yde[i];
        vz += sdir[b][i] * zde[i];
      }
      dX[b][0] = 0.25 * ax;
      dX[b][1] = 0.25 * ay;
      dX[b][2] = 0.25 * az;
      dV[b][0] = 0.25 * vx;
      dV[b][1] = 0.25 * vy;
      dV[b][2] = 0.25 * vz;
    }
    Real vol = d.volo[k] * d.vnew[k];
    Real dvel[3], dlen[3];
    for (int b = 0; b < 3; ++b) {
      const Real *u = dX[(b + 1) % 3], *w = dX[(b + 2) % 3];
      Real nx = u[1] * w[2] - u[2] * w[1];
      Real ny = u[2] * w[0] - u[0] * w[2];
      Real nz = u[0] * w[1] - u[1] * w[0];
      Real area = std::sqrt(nx * nx + ny * ny + nz * nz + ptiny);
      dlen[b] = vol / area;
      dvel[b] = (dV[b][0] * nx + dV[b][1] * ny + dV[b][2] * nz) / area;
    }
    d.delv_xi[k] = dvel[0];
    d.delv_eta[k] = dvel[1];
    d.delv_zeta[k] = dvel[2];
    d.delx_xi[k] = dlen[0];
    d.delx_eta[k] = dlen[1];
    d.delx_zeta[k] = dlen[2];
  }
}

/* Monotonic limiter from the neighbours' velocity jumps (minus side: symmetry plane, plus side:
 * free surface at the boundary). */
static inline Real monoq_limiter(const Params &par, Real dv, Real dvm, Real dvp) {
  Real norm = 1.0 / (dv + par.ptiny);
  dvm *= norm;
  dvp *= norm;
  Real phi = 0.5 * (dvm + dvp);
  dvm *= par.monoq_limiter;
  dvp *= par.monoq_limiter;
  phi = std::min(phi, dvm);
  phi = std::min(phi, dvp);
  phi = std::min(phi, par.monoq_max_slope);
  return std::max(phi, 0.0);
}

static inline Real neighbour(const std::vector<Real> &f, Index nb, Real outside) {
  return nb >= 0 ? f[nb] : outside;
}

void calc_monotonic_q(Domain &d) {
  const Params &par = d.par;
#pragma omp parallel for
  for (Index k = 0; k < d.numElem; ++k) {
    Real dxi = d.delv_xi[k], deta = d.delv_eta[k], dzeta = d.delv_zeta[k];
    Real phixi = monoq_limiter(par, dxi, neighbour(d.delv_xi, d.lxim[k], dxi),
                               neighbour(d.delv_xi, d.lxip[k], 0.0));
    Real phieta = monoq_limiter(par, deta, neighbour(d.delv_eta, d.letam[k], deta),
                                neighbour(d.delv_eta, d.letap[k], 0.0));
    Real phizeta = monoq_limiter(par, dzeta, neighbour(d.delv_zeta, d.lzetam[k], dzeta),
                                 neighbour(d.delv_zeta, d.lzetap[k], 0.0));
    Real qlin, qquad;
    if (d.vdov[k] > 0) {
      qlin = 0;
      qquad = 0;
    } else {
      Real vxi = dxi * d.delx_xi[k], veta = deta * d.delx_eta[k], vzeta = dzeta * d.delx_zeta[k];
      if (vxi > 0) vxi = 0;
      if (veta > 0) veta = 0;
      if (vzeta > 0) vzeta = 0;
      Real rho = d.elemMass[k] / (d.volo[k] * d.vnew[k]);
      qlin = -par.qlc * rho * (vxi * (1 - phixi) + veta * (1 - phieta) + vzeta * (1 - phizeta));
      qquad = par.qqc * rho *
              (vxi * vxi * (1 - phixi * phixi) + veta * veta * (1 - phieta * phieta) +
               vzeta * vzeta * (1 - phizeta * phizeta));
    }
    d.ql[k] = qlin;
    d.qq[k] = qquad;
  }
}

/* ---------------------------------------------------------------------------------------------
 * Equation of state, per region */

static inline Real eos_pressure(const Params &par, Real gamma, Real e, Real vrel) {
  Real p = (gamma - 1.0) * e / vrel;
  if (std::fabs(p) < par.p_cut) p = 0;
  if (vrel >= par.eosvmax) p = 0;
  if (p < par.pmin) p = par.pmin;
  return p;
}

static inline Real eos_sound_speed(const Params &par, Real gamma, Real p, Real vrel) {
  Real ssc = gamma * p * vrel / par.refdens;
  if (ssc <= par.ss_floor2) ssc = par.ss_floor2;
  return std::sqrt(ssc);
}

void eval_eos_region(Domain &d, const std::vector<Index> &list, Real gamma) {
  const Params &par = d.par;
  const size_t m = list.size();
  std::vector<Real> e_old(m), p_old(m), q_old(m), dv(m), vn(m), qlin(m), qquad(m);
  std::vector<Real> e_new(m), p_new(m), q_new(m), ss_new(m);
  for (size_t i = 0; i < m; ++i) {
    Index k = list[i];
    e_old[i] = d.e[k];
    p_old[i] = d.p[k];
    q_old[i] = d.q[k];
    dv[i] = d.delv[k];
    qlin[i] = d.ql[k];
    qquad[i] = d.qq[k];
    Real vr = d.vnew[k];
    vr = std::max(vr, par.eosvmin);
    vr = std::min(vr, par.eosvmax);
    vn[i] = vr;
  }
  for (size_t i = 0; i < m; ++i) {
    /* predictor: half the work of the old pressure */
    Real eh = e_old[i] - 0.5 * dv[i] * (p_old[i] + q_old[i]);
    eh = std::max(eh, par.emin);
    Real ph = eos_pressure(par, gamma, eh, vn[i]);
    Real qh = 0;
    if (dv[i] <= 0) qh = eos_sound_speed(par, gamma, ph, vn[i]) * qlin[i] + qquad[i];
    /* corrector: trapezoidal work */
    Real en = e_old[i] - 0.5 * dv[i] * (p_old[i] + q_old[i] + ph + qh);
    if (std::fabs(en) < par.e_cut) en = 0;
    en = std::max(en, par.emin);
    Real pn = eos_pressure(par, gamma, en, vn[i]);
    Real sn = eos_sound_speed(par, gamma, pn, vn[i]);
    Real qn = 0;
    if (dv[i] <= 0) qn = sn * qlin[i] + qquad[i];
    if (std::fabs(qn) < par.q_cut) qn = 0;
    e_new[i] = en;
    p_new[i] = pn;
    q_new[i] = qn;
    ss_new[i] = sn;
  }
  for (size_t i = 0; i < m; ++i) {
    Index k = list[i];
    d.e[k] = e_new[i];
    d.p[k] = p_new[i];
    d.q[k] = q_new[i];
    d.ss[k] = ss_new[i];
    if (q_new[i] > par.qstop) d.qstopError = 1;
  }
}

void apply_material_properties(Domain &d) {
  for (size_t r = 0; r < d.regElemList.size(); ++r)
    eval_eos_region(d, d.regElemList[r], d.regGamma[r]);
}

static inline void update_volumes(Domain &d) {
#pragma omp parallel for
  for (Index k = 0; k < d.numElem; ++k) {
    Real vr = d.vnew[k];
    if (std::fabs(vr - 1.0) < d.par.v_cut) vr = 1.0;
    d.v[k] = vr;
  }
}

/* ---------------------------------------------------------------------------------------------
 * Time-step constraints */

void calc_time_constraints(Domain &d) {
  const Params &par = d.par;
  Real dtc = 1e20, dth = 1e20;
  for (size_t r = 0; r < d.regElemList.size(); ++r) {
    const std::vector<Index> &list = d.regElemList[r];
    for (size_t i = 0; i < list.size(); ++i) {
      Index k = list[i];
      Real vdov = d.vdov[k];
      if (vdov == 0) continue;
      Real dtf = d.ss[k] * d.ss[k];
      if (vdov < 0) dtf += par.qqc2 * d.arealg[k] * d.arealg[k] * vdov * vdov;
      dtc = std::min(dtc, d.arealg[k] / std::sqrt(dtf));
      dth = std::min(dth, par.dvovmax / (std::fabs(vdov) + 1e-20));
    }
  }
  d.dtcourant = dtc;
  d.dthydro = dth;
}

/* ---------------------------------------------------------------------------------------------
 * One step; returns total energy after it plus the weighted next time step */

double step(Domain &d, double dt) {
  calc_force_for_nodes(d);
  calc_acceleration(d);
  apply_acceleration_bc(d);
  calc_velocity(d, dt);
  calc_position(d, dt);
  calc_kinematics(d, dt);
  calc_q_gradients(d);
  calc_monotonic_q(d);
  apply_material_properties(d);
  update_volumes(d);
  calc_time_constraints(d);

  Real eint = 0, ekin = 0;
  for (Index k = 0; k < d.numElem; ++k) eint += d.e[k] * d.volo[k];
  for (Index nd = 0; nd < d.numNode; ++nd)
    ekin += 0.5 * d.nodalMass[nd] * (d.xd[nd] * d.xd[nd] + d.yd[nd] * d.yd[nd] + d.zd[nd] * d.zd[nd]);
  Real dtnext = std::min(d.dtcourant, d.dthydro);
  return eint + ekin + d.par.dt_weight * dtnext;
}

/* ---------------------------------------------------------------------------------------------
 * Mesh and initial state */

static Domain build_domain(Index n, unsigned long long seed) {
  Domain d;
  d.n = n;
  d.numElem = n * n * n;
  d.numNode = (n + 1) * (n + 1) * (n + 1);
  const Index ne = d.numElem, nn = d.numNode, n1 = n + 1;
  for (std::vector<Real> *f : {&d.x, &d.y, &d.z, &d.xd, &d.yd, &d.zd, &d.xdd, &d.ydd, &d.zdd,
                               &d.fx, &d.fy, &d.fz, &d.nodalMass})
    f->assign(nn, 0.0);
  for (std::vector<Real> *f : {&d.e, &d.p, &d.q, &d.ql, &d.qq, &d.v, &d.volo, &d.vnew, &d.delv,
                               &d.vdov, &d.arealg, &d.ss, &d.elemMass, &d.delv_xi, &d.delv_eta,
                               &d.delv_zeta, &d.delx_xi, &d.delx_eta, &d.delx_zeta})
    f->assign(ne, 0.0);

  /* nodes: a jittered lattice on [0, 1.125]^3, a random flow field; symmetry planes keep their
   * normal coordinate and velocity at 0 */
  const Real h = 1.125 / n;
  for (Index k = 0; k < n1; ++k)
    for (Index j = 0; j < n1; ++j)
      for (Index i = 0; i < n1; ++i) {
        Index nd = i + n1 * (j + n1 * k);
        Real jx = i > 0 ? 0.3 * h * (app_rand(&seed) - 0.5) : 0;
        Real jy = j > 0 ? 0.3 * h * (app_rand(&seed) - 0.5) : 0;
        Real jz = k > 0 ? 0.3 * h * (app_rand(&seed) - 0.5) : 0;
        d.x[nd] = i * h + jx;
        d.y[nd] = j * h + jy;
        d.z[nd] = k * h + jz;
        Real u[3];
        for (int a = 0; a < 3; ++a) {
          Real mag = 0.02 + 0.2 * app_rand(&seed);
          u[a] = app_rand(&seed) < 0.5 ? -mag : mag;
        }
        d.xd[nd] = i > 0 ? u[0] : 0;
        d.yd[nd] = j > 0 ? u[1] : 0;
        d.zd[nd] = k > 0 ? u[2] : 0;
        if (i == 0) d.symmX.push_back(nd);
        if (j == 0) d.symmY.push_back(nd);
        if (k == 0) d.symmZ.push_back(nd);
      }

  /* elements: connectivity, neighbours, regions */
  d.nodelist.resize(8 * ne);
  for (std::vector<Index> *f : {&d.lxim, &d.lxip, &d.letam, &d.letap, &d.lzetam, &d.lzetap})
    f->assign(ne, -1);
  const int nregions = 3;
  const Real gammas[nregions] = {1.4, 5.0 / 3.0, 1.3};
  d.regElemList.assign(nregions, std::vector<Index>());
  d.regGamma.assign(gammas, gammas + nregions);
  for (Index k = 0; k < n; ++k)
    for (Index j = 0; j < n; ++j)
      for (Index i = 0; i < n; ++i) {
        Index el = i + n * (j + n * k);
        Index base = i + n1 * (j + n1 * k);
        Index *nl = &d.nodelist[8 * el];
        nl[0] = base;
        nl[1] = base + 1;
        nl[2] = base + n1 + 1;
        nl[3] = base + n1;
        for (int c = 0; c < 4; ++c) nl[4 + c] = nl[c] + n1 * n1;
        if (i > 0) d.lxim[el] = el - 1;
        if (i < n - 1) d.lxip[el] = el + 1;
        if (j > 0) d.letam[el] = el - n;
        if (j < n - 1) d.letap[el] = el + n;
        if (k > 0) d.lzetam[el] = el - n * n;
        if (k < n - 1) d.lzetap[el] = el + n * n;
        d.regElemList[el % nregions].push_back(el);
      }

  /* node -> element corners */
  d.nodeElemStart.assign(nn + 1, 0);
  for (Index c = 0; c < 8 * ne; ++c) d.nodeElemStart[d.nodelist[c] + 1]++;
  for (Index nd = 0; nd < nn; ++nd) d.nodeElemStart[nd + 1] += d.nodeElemStart[nd];
  d.nodeElemCorner.resize(8 * ne);
  std::vector<Index> fill(d.nodeElemStart.begin(), d.nodeElemStart.end() - 1);
  for (Index c = 0; c < 8 * ne; ++c) d.nodeElemCorner[fill[d.nodelist[c]]++] = c;

  /* thermodynamic state: a warm background with a Sedov-like deposit in the corner element */
  for (Index el = 0; el < ne; ++el) {
    const Index *nl = &d.nodelist[8 * el];
    Real xe[8], ye[8], ze[8];
    gather8(nl, d.x, xe);
    gather8(nl, d.y, ye);
    gather8(nl, d.z, ze);
    Real vol = hex_volume(xe, ye, ze);
    d.volo[el] = vol;
    d.v[el] = 1.0;
    d.elemMass[el] = vol * d.par.refdens;
    for (int c = 0; c < 8; ++c) d.nodalMass[nl[c]] += 0.125 * d.elemMass[el];
    d.arealg[el] = char_length(xe, ye, ze, vol);
    Real gamma = d.regGamma[el % nregions];
    d.e[el] = el == 0 ? 2e3 : 0.5 + app_rand(&seed);
    d.p[el] = eos_pressure(d.par, gamma, d.e[el], 1.0);
    d.q[el] = 0.05 * app_rand(&seed) * d.p[el];
    d.ss[el] = eos_sound_speed(d.par, gamma, d.p[el], 1.0);
  }
  return d;
}

/* The state a gradient is taken with respect to, and how large a perturbation of each field is
 * (for the finite-difference directions). */
typedef std::vector<Real> Domain::*Field;
static const Field state_fields[] = {&Domain::x,  &Domain::y, &Domain::z, &Domain::xd,
                                     &Domain::yd, &Domain::zd, &Domain::e, &Domain::p,
                                     &Domain::q,  &Domain::v,  &Domain::ss};
static const int num_state_fields = sizeof state_fields / sizeof *state_fields;

static void load_state(Domain &dst, const Domain &src) {
  for (int f = 0; f < num_state_fields; ++f) dst.*state_fields[f] = src.*state_fields[f];
}

/* A shadow Domain: the same sizes and connectivity, every floating-point field zero. */
static void zero_shadow(Domain &s) {
  for (std::vector<Real> *f :
       {&s.x,    &s.y,      &s.z,        &s.xd,     &s.yd,       &s.zd,      &s.xdd,   &s.ydd,
        &s.zdd,  &s.fx,     &s.fy,       &s.fz,     &s.nodalMass, &s.e,      &s.p,     &s.q,
        &s.ql,   &s.qq,     &s.v,        &s.volo,   &s.vnew,     &s.delv,    &s.vdov,  &s.arealg,
        &s.ss,   &s.elemMass, &s.delv_xi, &s.delv_eta, &s.delv_zeta, &s.delx_xi, &s.delx_eta,
        &s.delx_zeta, &s.regGamma})
    std::fill(f->begin(), f->end(), 0.0);
  Real *pp = reinterpret_cast<Real *>(&s.par);
  for (size_t i = 0; i < sizeof(Params) / sizeof(Real); ++i) pp[i] = 0;
  s.dtcourant = s.dthydro = 0;
}

struct Bench {
  Domain base, work, shadow;
  Real dt;
  double sink;
};

static void run_primal(void *ctx) {
  Bench &b = *static_cast<Bench *>(ctx);
  load_state(b.work, b.base);
  b.sink += step(b.work, b.dt);
}

static void run_gradient(void *ctx) {
  Bench &b = *static_cast<Bench *>(ctx);
  load_state(b.work, b.base);
  zero_shadow(b.shadow);
  __enzyme_autodiff((void *)step, enzyme_dup, &b.work, &b.shadow, enzyme_const, b.dt);
}

static double objective_along(Bench &b, const Domain &dir, Real h) {
  load_state(b.work, b.base);
  for (int f = 0; f < num_state_fields; ++f) {
    std::vector<Real> &w = b.work.*state_fields[f];
    const std::vector<Real> &t = dir.*state_fields[f];
    for (size_t i = 0; i < w.size(); ++i) w[i] += h * t[i];
  }
  return step(b.work, b.dt);
}

/* Checks the gradient in b.shadow along a random direction in field `only` (all when < 0).
 * The normal velocity on a symmetry plane is held at 0 by the boundary condition (and cut
 * off), so directions leave it. */
static void check_direction(Bench &b, int only, int r, unsigned long long *seed) {
  static const char *names[] = {"x", "y", "z", "xd", "yd", "zd", "e", "p", "q", "v", "ss"};
  const Real hmesh = 1.125 / b.base.n;
  const Real scale[] = {0.1 * hmesh, 0.1 * hmesh, 0.1 * hmesh, 0.1, 0.1, 0.1, 0, 0, 0, 0.01, 0};
  Domain dir = b.base;
  for (int f = 0; f < num_state_fields; ++f) {
    std::vector<Real> &t = dir.*state_fields[f];
    const std::vector<Real> &x0 = b.base.*state_fields[f];
    for (size_t i = 0; i < t.size(); ++i) {
      Real u = 2 * app_rand(seed) - 1;
      t[i] = scale[f] > 0 ? scale[f] * u : 0.1 * std::fabs(x0[i]) * u; /* relative: e, p, q, ss */
      if (only >= 0 && f != only) t[i] = 0;
    }
  }
  for (Index nd : b.base.symmX) dir.xd[nd] = 0;
  for (Index nd : b.base.symmY) dir.yd[nd] = 0;
  for (Index nd : b.base.symmZ) dir.zd[nd] = 0;
  double ad = 0;
  for (int f = 0; f < num_state_fields; ++f) {
    const std::vector<Real> &g = b.shadow.*state_fields[f], &t = dir.*state_fields[f];
    for (size_t i = 0; i < g.size(); ++i) ad += g[i] * t[i];
  }
  /* h: truncation error ~h^2, rounding ~1e-16 |f| / (h |f'|); one field alone can move the
   * objective 1e5 times less than it is large (ss only scales the hourglass forces) */
  const Real h = only < 0 ? 1e-5 : 1e-4;
  double fd = (objective_along(b, dir, h) - objective_along(b, dir, -h)) / (2 * h);
  char what[64];
  if (only < 0)
    snprintf(what, sizeof what, "hydro n=%d direction %d", b.base.n, r);
  else
    snprintf(what, sizeof what, "hydro n=%d direction in %s", b.base.n, names[only]);
  app_check(what, ad, fd, 1e-5);
}

int main(int argc, char **argv) {
  Index n = argc > 1 ? atoi(argv[1]) : DEFAULT_EDGE;
  if (n < 2) n = 2;
  Bench b;
  b.base = build_domain(n, 12345);
  b.work = b.base;
  b.shadow = b.base;
  b.sink = 0;

  /* the time step: a fraction of the Courant limit of the initial state */
  Real dtc = 1e20;
  for (Index k = 0; k < b.base.numElem; ++k)
    dtc = std::min(dtc, b.base.arealg[k] / b.base.ss[k]);
  b.dt = 0.3 * dtc;

  /* gradient against central differences along 3 random directions in the whole state (and,
   * in -DSMALL builds, along one random direction in each field alone) */
  run_gradient(&b);
  unsigned long long seed = 777;
  for (int r = 0; r < 3; ++r) check_direction(b, -1, r, &seed);
#ifdef SMALL
  for (int f = 0; f < num_state_fields; ++f) check_direction(b, f, 0, &seed);
#endif

  load_state(b.work, b.base);
  double f0 = step(b.work, b.dt);
  fprintf(stderr, "hydro n=%d: %d elements, dt %.3e, objective %.10g, dtcourant %.3e dthydro %.3e%s\n",
          n, b.base.numElem, b.dt, f0, b.work.dtcourant, b.work.dthydro,
          b.work.volumeError ? " VOLUME ERROR" : "");

  double tp, tg;
  app_time(run_primal, run_gradient, &b, &tp, &tg);
  app_report("hydro", tp, tg);
  return app_failures_ ? 1 : 0;
}
