//! A BLAS routine's declared layout: its parameters in CBLAS order, each with the role that
//! fixes how either interface passes it, which array it writes, and what its reverse half
//! keeps for the adjoint. Everything that touches a routine's arguments (the forward rule, the
//! augmented and adjoint sweeps, the prototype of the calls derivative code emits) reads
//! positions and kinds from here, so a routine's layout is written once.
//!
//! Guarantees: the Fortran position of a parameter is its CBLAS position less one when the
//! routine has an order argument (Fortran has none); the saved scalars are always laid out as
//! flags (order, transposes), then integers, then reals, each in signature order, then the
//! result if it is kept; kept arrays follow in signature order. Parameters are looked up by
//! name, and an unknown name panics the first time its rule runs (the unit tests run every
//! rule in both modes and both interfaces); `signatures_are_consistent` checks the tables.

/// What a parameter is, which decides how each interface passes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// CBLAS's storage order (`CblasRowMajor`, `CblasColMajor`); Fortran has no such argument
    /// and is column-major.
    Order,
    /// A transpose flag: a CBLAS enum, or a character by pointer in Fortran.
    Trans,
    /// A dimension, stride or leading dimension: by value in CBLAS, `int *` in Fortran.
    Int,
    /// A real scalar (`alpha`, `beta`): by value in CBLAS (its adjoint is returned), by
    /// pointer in Fortran (its adjoint is added to its shadow).
    Real,
    /// A vector, walked with stride `inc`; `kept` when the augmented sweep may save a copy.
    Vector { inc: &'static str, kept: bool },
    /// A matrix with leading dimension `ld`; `kept` as for vectors.
    Matrix { ld: &'static str, kept: bool },
}

impl Role {
    /// A scalar the augmented sweep saves (every non-array parameter).
    fn is_scalar(self) -> bool {
        !self.is_array()
    }
    pub(super) fn is_array(self) -> bool {
        matches!(self, Role::Vector { .. } | Role::Matrix { .. })
    }
    /// Where a scalar goes in the saved buffer: flags, then integers, then reals.
    fn saved_group(self) -> u8 {
        match self {
            Role::Order | Role::Trans => 0,
            Role::Int => 1,
            _ => 2,
        }
    }
}

/// One parameter: its name (as in the reference BLAS documentation) and role.
#[derive(Clone, Copy, Debug)]
pub(super) struct Param {
    pub name: &'static str,
    pub role: Role,
}

impl Param {
    pub const fn order() -> Param {
        Param::new("order", Role::Order)
    }
    pub const fn trans(name: &'static str) -> Param {
        Param::new(name, Role::Trans)
    }
    pub const fn int(name: &'static str) -> Param {
        Param::new(name, Role::Int)
    }
    pub const fn real(name: &'static str) -> Param {
        Param::new(name, Role::Real)
    }
    /// A vector the augmented sweep never copies (see [`kept`](Param::kept)).
    pub const fn vector(name: &'static str, inc: &'static str) -> Param {
        Param::new(name, Role::Vector { inc, kept: false })
    }
    /// A matrix the augmented sweep never copies (see [`kept`](Param::kept)).
    pub const fn matrix(name: &'static str, ld: &'static str) -> Param {
        Param::new(name, Role::Matrix { ld, kept: false })
    }
    /// The same array, which the augmented sweep may copy for the adjoint (it gets a slot in
    /// the saved buffer).
    pub const fn kept(self) -> Param {
        let role = match self.role {
            Role::Vector { inc, .. } => Role::Vector { inc, kept: true },
            Role::Matrix { ld, .. } => Role::Matrix { ld, kept: true },
            _ => panic!("only arrays are kept"),
        };
        Param::new(self.name, role)
    }
    const fn new(name: &'static str, role: Role) -> Param {
        Param { name, role }
    }
}

/// A routine's layout, shared by its rules and by the calls derivative code emits.
pub(super) struct Signature {
    /// The routine's name without precision or interface (`gemv` for `cblas_dgemv`, `sgemv_`).
    pub name: &'static str,
    /// The parameters, in CBLAS order.
    pub params: &'static [Param],
    /// Whether the routine returns a real (`dot`, `nrm2`) rather than nothing.
    pub returns_real: bool,
    /// The array the routine writes, if any (named in the error for a missing shadow).
    pub output: Option<&'static str>,
    /// Whether the augmented sweep saves the call's result after the scalars (`nrm2`'s adjoint
    /// divides by the norm).
    pub result_kept: bool,
}

/// The name a kept result is read back under.
pub(super) const RESULT: &str = "result";

impl Signature {
    /// The CBLAS position of parameter `name`.
    #[track_caller]
    pub fn cblas_pos(&self, name: &str) -> usize {
        match self.params.iter().position(|p| p.name == name) {
            Some(k) => k,
            None => panic!("BLAS {}: no parameter '{name}'", self.name),
        }
    }

    /// The position of parameter `name` in a call through the CBLAS interface or, when
    /// `fortran`, the Fortran one (which has no order argument).
    #[track_caller]
    pub fn position(&self, name: &str, fortran: bool) -> usize {
        let k = self.cblas_pos(name);
        if fortran && self.has_order() {
            k - 1
        } else {
            k
        }
    }

    #[track_caller]
    pub fn role(&self, name: &str) -> Role {
        self.params[self.cblas_pos(name)].role
    }

    /// Whether the CBLAS interface has an order argument (level 2 and 3).
    pub fn has_order(&self) -> bool {
        self.params.iter().any(|p| p.role == Role::Order)
    }

    /// The position of the first integer parameter, whose type is the call's BLAS integer.
    pub fn first_int(&self) -> usize {
        let k = self.params.iter().position(|p| p.role == Role::Int);
        k.expect("every BLAS routine has a dimension")
    }

    /// The scalars the augmented sweep saves, in their buffer order.
    pub fn saved_scalars(&self) -> impl Iterator<Item = &'static Param> {
        let params = self.params;
        (0..3u8).flat_map(move |g| {
            params
                .iter()
                .filter(move |p| p.role.is_scalar() && p.role.saved_group() == g)
        })
    }

    /// The number of scalar slots in the saved buffer (the result's included).
    pub fn scalar_slots(&self) -> usize {
        self.saved_scalars().count() + usize::from(self.result_kept)
    }

    /// The arrays the augmented sweep may keep, in their buffer order.
    pub fn kept_arrays(&self) -> impl Iterator<Item = &'static str> {
        self.params.iter().filter_map(|p| match p.role {
            Role::Vector { kept: true, .. } | Role::Matrix { kept: true, .. } => Some(p.name),
            _ => None,
        })
    }

    /// The stride or leading-dimension parameter of array `name`.
    #[track_caller]
    pub fn stride_of(&self, name: &str) -> &'static str {
        match self.role(name) {
            Role::Vector { inc, .. } => inc,
            Role::Matrix { ld, .. } => ld,
            r => panic!("BLAS {}: '{name}' is a {r:?}, not an array", self.name),
        }
    }

    /// The parameters that can carry a derivative into the output: reals and arrays other
    /// than the output itself.
    pub fn inputs(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.params
            .iter()
            .filter(|p| (p.role == Role::Real || p.role.is_array()) && Some(p.name) != self.output)
            .map(|p| p.name)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{level1, level2, level3};
    use super::*;

    #[test]
    fn signatures_are_consistent() {
        let sigs = level1::SIGNATURES
            .iter()
            .chain(level2::SIGNATURES)
            .chain(level3::SIGNATURES);
        for s in sigs {
            for (i, p) in s.params.iter().enumerate() {
                assert_eq!(s.cblas_pos(p.name), i, "{}: '{}' twice", s.name, p.name);
                if p.role.is_array() {
                    assert_eq!(s.role(s.stride_of(p.name)), Role::Int, "{}", s.name);
                }
            }
            if let Some(o) = s.output {
                assert!(s.role(o).is_array(), "{}: output '{o}'", s.name);
            }
            assert_eq!(s.params[0].role == Role::Order, s.has_order(), "{}", s.name);
            assert!(s.first_int() < s.params.len());
        }
    }
}
