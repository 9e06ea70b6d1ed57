//! Linear integer constraints and a proof of their infeasibility: exact elimination of
//! equalities with a unit coefficient, then Fourier–Motzkin elimination with the integer
//! tightening of each constraint (divide by the gcd of its coefficients, round the constant
//! down).
//!
//! [`infeasible`] answers `true` only when no integer point satisfies every constraint: each
//! step keeps every integer solution (a substitution is exact, a combination of two constraints
//! is implied by them, tightening only drops non-integer points), so an empty result proves the
//! original system empty. Anything it cannot finish (arithmetic overflow, too many derived
//! constraints) answers `false`: "maybe feasible", the safe answer for the caller.

use std::collections::BTreeMap;

/// `Σ coefficient · variable + constant`, over integer variables numbered by the caller.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lin {
    pub terms: BTreeMap<usize, i128>,
    pub constant: i128,
}

/// Coefficients beyond this are treated as an overflow (the proof is abandoned).
const LIMIT: i128 = 1 << 100;
/// Derived constraints beyond this abandon the proof.
const MAX_CONSTRAINTS: usize = 4000;

fn checked(x: Option<i128>) -> Option<i128> {
    x.filter(|v| v.abs() < LIMIT)
}

impl Lin {
    pub fn constant(c: i128) -> Lin {
        Lin {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    pub fn var(v: usize) -> Lin {
        Lin {
            terms: BTreeMap::from([(v, 1)]),
            constant: 0,
        }
    }

    pub fn coefficient(&self, v: usize) -> i128 {
        self.terms.get(&v).copied().unwrap_or(0)
    }

    /// `self + k · other`, `None` on overflow.
    pub fn add_scaled(&self, other: &Lin, k: i128) -> Option<Lin> {
        let mut out = self.clone();
        for (&v, &c) in &other.terms {
            let e = out.terms.entry(v).or_insert(0);
            *e = checked(e.checked_add(checked(c.checked_mul(k))?))?;
            if *e == 0 {
                out.terms.remove(&v);
            }
        }
        out.constant = checked(
            out.constant
                .checked_add(checked(other.constant.checked_mul(k))?),
        )?;
        Some(out)
    }

    pub fn add(&self, other: &Lin) -> Option<Lin> {
        self.add_scaled(other, 1)
    }

    pub fn sub(&self, other: &Lin) -> Option<Lin> {
        self.add_scaled(other, -1)
    }

    pub fn scale(&self, k: i128) -> Option<Lin> {
        Lin::default().add_scaled(self, k)
    }

    pub fn plus(&self, c: i128) -> Option<Lin> {
        let mut out = self.clone();
        out.constant = checked(out.constant.checked_add(c))?;
        Some(out)
    }

    /// The same expression with every variable renumbered by `f`.
    pub fn rename(&self, f: &mut impl FnMut(usize) -> usize) -> Lin {
        let mut out = Lin::constant(self.constant);
        for (&v, &c) in &self.terms {
            let e = out.terms.entry(f(v)).or_insert(0);
            *e += c;
            if *e == 0 {
                out.terms.remove(&f(v));
            }
        }
        out
    }

    /// `self` with variable `v` replaced by `by`.
    fn substitute(&self, v: usize, by: &Lin) -> Option<Lin> {
        let c = self.coefficient(v);
        if c == 0 {
            return Some(self.clone());
        }
        let mut rest = self.clone();
        rest.terms.remove(&v);
        rest.add_scaled(by, c)
    }

    fn gcd_of_terms(&self) -> i128 {
        self.terms.values().fold(0, |g, &c| gcd(g, c.abs()))
    }
}

pub fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A set of constraints: each `Lin` of `nonneg` is `≥ 0`, each of `zero` is `= 0`.
#[derive(Clone, Debug, Default)]
pub struct System {
    pub nonneg: Vec<Lin>,
    pub zero: Vec<Lin>,
}

impl System {
    /// `a ≥ b`.
    pub fn ge(&mut self, a: &Lin, b: &Lin) {
        if let Some(d) = a.sub(b) {
            self.nonneg.push(d);
        }
    }
    /// `a ≤ b`.
    pub fn le(&mut self, a: &Lin, b: &Lin) {
        self.ge(b, a)
    }
    /// `a = b`.
    pub fn eq(&mut self, a: &Lin, b: &Lin) {
        if let Some(d) = a.sub(b) {
            self.zero.push(d);
        }
    }
    pub fn extend(&mut self, other: &System) {
        self.nonneg.extend(other.nonneg.iter().cloned());
        self.zero.extend(other.zero.iter().cloned());
    }
    /// True when the constraints imply `e ≥ 0`.
    pub fn implies_nonneg(&self, e: &Lin) -> bool {
        let mut s = self.clone();
        // not (e ≥ 0)  ⟺  -e - 1 ≥ 0
        match e.scale(-1).and_then(|x| x.plus(-1)) {
            Some(n) => s.nonneg.push(n),
            None => return false,
        }
        infeasible(&s)
    }
}

/// True only when no integer assignment satisfies `s` (see the module doc).
pub fn infeasible(s: &System) -> bool {
    solve(s, None).is_some_and(|r| r.is_err())
}

/// Integer bounds `(lower, upper)` of variable `v` implied by `s` (eliminating every other
/// variable, so that a bound needing rounding in between is found as well). A bound is `None`
/// when none is found, or when `s` itself is proven infeasible.
pub fn bounds(s: &System, v: usize) -> (Option<i128>, Option<i128>) {
    let Some(Ok(rows)) = solve(s, Some(v)) else {
        return (None, None);
    };
    let (mut lo, mut hi) = (None::<i128>, None::<i128>);
    for r in rows {
        if r.terms.len() != 1 {
            continue;
        }
        // c·v + k ≥ 0 with c = ±1 after tightening
        match r.coefficient(v) {
            1 => lo = Some(lo.map_or(-r.constant, |l| l.max(-r.constant))),
            -1 => hi = Some(hi.map_or(r.constant, |h| h.min(r.constant))),
            _ => {}
        }
    }
    (lo, hi)
}

/// `Some(Err(()))`: proven infeasible; `Some(Ok(rows))`: what is left after eliminating every
/// variable but `keep` (a rational solution may exist); `None`: gave up.
fn solve(s: &System, keep: Option<usize>) -> Option<Result<Vec<Lin>, ()>> {
    let mut zero = s.zero.clone();
    let mut nonneg = s.nonneg.clone();
    // Equalities: gcd test, then substitute away a variable with a unit coefficient.
    loop {
        let mut progress = false;
        let mut k = 0;
        while k < zero.len() {
            let e = &zero[k];
            if e.terms.is_empty() {
                if e.constant != 0 {
                    return Some(Err(()));
                }
                zero.swap_remove(k);
                continue;
            }
            let g = e.gcd_of_terms();
            if e.constant % g != 0 {
                return Some(Err(()));
            }
            let unit = e
                .terms
                .iter()
                .find(|(v, c)| c.abs() == 1 && Some(**v) != keep);
            if let Some((&v, &c)) = unit {
                // v = -(e - c·v) / c
                let mut rest = e.clone();
                rest.terms.remove(&v);
                let by = rest.scale(-c)?; // c = ±1, so 1/c = c
                zero.swap_remove(k);
                for z in zero.iter_mut() {
                    *z = z.substitute(v, &by)?;
                }
                for n in nonneg.iter_mut() {
                    *n = n.substitute(v, &by)?;
                }
                progress = true;
                continue;
            }
            k += 1;
        }
        if !progress {
            break;
        }
    }
    for z in zero {
        nonneg.push(z.scale(-1)?);
        nonneg.push(z);
    }
    fourier_motzkin(nonneg, keep)
}

/// Normalises `e ≥ 0`: `None` if trivially true, `Some(Err)` if trivially false.
fn tighten(e: Lin) -> Option<Result<Lin, ()>> {
    if e.terms.is_empty() {
        return if e.constant >= 0 { None } else { Some(Err(())) };
    }
    let g = e.gcd_of_terms();
    if g <= 1 {
        return Some(Ok(e));
    }
    let mut out = Lin::constant(e.constant.div_euclid(g));
    for (&v, &c) in &e.terms {
        out.terms.insert(v, c / g);
    }
    Some(Ok(out))
}

fn fourier_motzkin(mut rows: Vec<Lin>, keep: Option<usize>) -> Option<Result<Vec<Lin>, ()>> {
    loop {
        // Normalise, drop trivial rows and duplicates; a false row proves infeasibility.
        let mut set = std::collections::BTreeSet::new();
        for r in rows.drain(..) {
            match tighten(r) {
                None => {}
                Some(Err(())) => return Some(Err(())),
                Some(Ok(r)) => {
                    set.insert(r);
                }
            }
        }
        if set.len() > MAX_CONSTRAINTS {
            return None;
        }
        rows = set.into_iter().collect();
        // Two rows with opposite terms: a + c1 ≥ 0 and -a + c2 ≥ 0 need c1 + c2 ≥ 0.
        let mut by_terms: BTreeMap<Vec<(usize, i128)>, i128> = BTreeMap::new();
        for r in &rows {
            let key: Vec<(usize, i128)> = r.terms.iter().map(|(&v, &c)| (v, c)).collect();
            let e = by_terms.entry(key).or_insert(i128::MAX);
            *e = (*e).min(r.constant);
        }
        for (key, &c1) in &by_terms {
            let neg: Vec<(usize, i128)> = key.iter().map(|&(v, c)| (v, -c)).collect();
            if let Some(&c2) = by_terms.get(&neg) {
                if c1.checked_add(c2)? < 0 {
                    return Some(Err(()));
                }
            }
        }
        // Eliminate the variable with the fewest combinations.
        let mut vars: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
        for r in &rows {
            for (&v, &c) in r.terms.iter().filter(|(v, _)| Some(**v) != keep) {
                let e = vars.entry(v).or_insert((0, 0));
                if c > 0 {
                    e.0 += 1;
                } else {
                    e.1 += 1;
                }
            }
        }
        let Some((&v, _)) = vars.iter().min_by_key(|(_, (p, n))| p * n) else {
            return Some(Ok(rows));
        };
        let (pos, rest): (Vec<Lin>, Vec<Lin>) =
            rows.into_iter().partition(|r| r.coefficient(v) > 0);
        let (neg, mut keep): (Vec<Lin>, Vec<Lin>) =
            rest.into_iter().partition(|r| r.coefficient(v) < 0);
        if pos.len() * neg.len() > MAX_CONSTRAINTS {
            return None;
        }
        for p in &pos {
            for n in &neg {
                let (a, b) = (p.coefficient(v), -n.coefficient(v));
                // b·p + a·n eliminates v.
                keep.push(p.scale(b)?.add_scaled(n, a)?);
            }
        }
        rows = keep;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lin(terms: &[(usize, i128)], c: i128) -> Lin {
        Lin {
            terms: terms.iter().copied().filter(|t| t.1 != 0).collect(),
            constant: c,
        }
    }

    #[test]
    fn bounds_that_cross_are_infeasible() {
        // x ≥ 3, x ≤ 2
        let mut s = System::default();
        s.nonneg.push(lin(&[(0, 1)], -3));
        s.nonneg.push(lin(&[(0, -1)], 2));
        assert!(infeasible(&s));
        s.nonneg.pop();
        s.nonneg.push(lin(&[(0, -1)], 3));
        assert!(!infeasible(&s));
    }

    #[test]
    fn triangular_bounds_chain_through_elimination() {
        // 0 ≤ k ≤ j - 1, k = j' , j' ≥ j + 1: infeasible.
        let mut s = System::default();
        s.nonneg.push(lin(&[(0, 1)], 0));
        s.nonneg.push(lin(&[(1, 1), (0, -1)], -1));
        s.zero.push(lin(&[(0, 1), (2, -1)], 0));
        s.nonneg.push(lin(&[(2, 1), (1, -1)], -1));
        assert!(infeasible(&s));
    }

    #[test]
    fn integer_tightening_and_gcd_tests() {
        // 2x = 1 has no integer solution.
        let mut s = System::default();
        s.zero.push(lin(&[(0, 2)], -1));
        assert!(infeasible(&s));
        // 1 ≤ 2x ≤ 1 (rationally x = 1/2).
        let mut s = System::default();
        s.nonneg.push(lin(&[(0, 2)], -1));
        s.nonneg.push(lin(&[(0, -2)], 1));
        assert!(infeasible(&s));
        // 0 ≤ 2x ≤ 1 has x = 0.
        let mut s = System::default();
        s.nonneg.push(lin(&[(0, 2)], 0));
        s.nonneg.push(lin(&[(0, -2)], 1));
        assert!(!infeasible(&s));
    }

    #[test]
    fn unbounded_systems_are_feasible() {
        let mut s = System::default();
        s.nonneg.push(lin(&[(0, 1), (1, -1)], 0));
        s.nonneg.push(lin(&[(1, 1), (2, -3)], 5));
        assert!(!infeasible(&s));
    }

    #[test]
    fn bounds_found_only_by_rounding_in_between() {
        // j ∈ [8, 126], 0 ≤ j - 128 f ≤ 127: f = 0, though no row bounds f alone.
        let mut s = System::default();
        s.nonneg.push(lin(&[(0, 1)], -8));
        s.nonneg.push(lin(&[(0, -1)], 126));
        s.nonneg.push(lin(&[(0, 1), (1, -128)], 0));
        s.nonneg.push(lin(&[(0, -1), (1, 128)], 127));
        assert_eq!(bounds(&s, 1), (Some(0), Some(0)));
        assert_eq!(bounds(&s, 0), (Some(8), Some(126)));
    }

    #[test]
    fn implication() {
        // 0 ≤ x ≤ 7 implies 7 - x ≥ 0 but not x - 1 ≥ 0.
        let mut s = System::default();
        s.nonneg.push(lin(&[(0, 1)], 0));
        s.nonneg.push(lin(&[(0, -1)], 7));
        assert!(s.implies_nonneg(&lin(&[(0, -1)], 7)));
        assert!(!s.implies_nonneg(&lin(&[(0, 1)], -1)));
    }
}
