// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// std::string in memory with a derivative, as C++17 code (clang's default) writes it: a
// std::map<std::string, double> of named coefficients with keys longer than the string's
// in-place buffer, a std::unordered_map keyed by a long name, and records holding a name beside
// their doubles, built and moved into a vector inside the differentiated function. From -O1
// on the long keys get their characters from libstdc++'s out-of-line _M_create (its rule: a
// shadow buffer of the same size), and std::map::operator[] reads the key's address as an
// integer (a pointer load again after canonicalisation); at -O0 the string's constructor from
// a pointer is a template defined in the module, which runs in the primal only. Each of the
// three was an error before. Reverse and forward mode against finite differences.
#include "fdcheck.h"
#include "umbra.h"
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

enum { N = 4 };

struct Species {
  std::string name;
  double mass, charge;
};

extern "C" __attribute__((noinline)) double energy(const double *x) {
  std::map<std::string, double> coeff;
  coeff["kinetic_energy_coefficient"] = x[0] * x[1];
  coeff["potential_energy_coefficient"] = sin(x[2]);
  coeff["short"] = x[3];
  std::unordered_map<std::string, double> scale;
  scale["a_rather_long_scale_name_3"] = x[1] * x[1];
  std::vector<Species> species;
  species.emplace_back(Species{"electron (a long enough name)", x[0], -x[3]});
  species.emplace_back(Species{"ion", x[2], x[3] * x[0]});
  double s = 0;
  for (auto &kv : coeff)
    s += kv.second * kv.second + (kv.first.size() > 10 ? kv.second : 0);
  for (const Species &sp : species)
    s += sp.mass * sp.charge * (sp.name.size() > 3 ? 2.0 : 1.0);
  return s + scale["a_rather_long_scale_name_3"] * coeff["kinetic_energy_coefficient"];
}

static double at(const double *p, void *c) {
  (void)c;
  return energy(p);
}

int main() {
  double x[N] = {0.7, -0.4, 1.3, 0.25}, dx[N] = {0}, g[N];
  fd_grad(at, 0, x, N, g);
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx);
  fd_check_array("reverse", dx, g, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("forward", __enzyme_fwddiff((void *)energy, enzyme_dup, x, t), g[k]);
  }
  return fd_finish();
}
