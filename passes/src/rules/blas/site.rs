//! A user's BLAS call as a rule sees it: which interface and precision it uses, and its
//! arguments, shadows and activity looked up by parameter name through the routine's
//! [`Signature`].
//!
//! Guarantees: integers come out in the call's BLAS integer type, reals in its precision,
//! order and transposes as CBLAS `i32` enums whichever interface the call uses; nothing is
//! emitted for CBLAS arguments already of the right type (so reading an argument twice costs
//! nothing there), and each Fortran read is one load.

use super::emit::{Blas, COL_MAJOR, NO_TRANS, TRANS};
use super::signature::{Role, Signature};
use crate::diag::{Error, Result};
use crate::ir::{Builder, IntPred, Module, Opcode, Ty, Val};
use crate::rules::calls::{AdjointCall, ArgAdjoints, AugmentCall};
use std::ops::Index;

/// A BLAS call site: its routine's signature, its interface and its arguments.
pub(super) struct Site {
    pub sig: &'static Signature,
    fortran: bool,
    args: Vec<Val>,
    /// Per argument: memory the adjoint may read in place (see [`Site::in_place`]).
    in_place: Vec<bool>,
    /// Per argument: a shadow other threads may add into at the same time (see
    /// [`Site::shared`]).
    shared: Vec<bool>,
    pub blas: Blas,
}

impl Site {
    /// The site of call `src` (arguments `args`) to the routine of `sig`; an error naming the
    /// call when its arguments do not match the routine's parameters (a declaration with
    /// another prototype).
    pub fn new(sig: &'static Signature, module: Module, src: Val, args: &[Val]) -> Result<Site> {
        let name = src.called_function().map(|f| f.name()).unwrap_or_default();
        let fortran = !name.starts_with("cblas_");
        check_arguments(sig, fortran, &name, src, args)?;
        let single = name.trim_start_matches("cblas_").starts_with('s');
        let ctx = module.context();
        let int = if fortran {
            Ty::int(ctx, 32)
        } else {
            args[sig.first_int()].ty()
        };
        Ok(Site {
            sig,
            fortran,
            args: args.to_vec(),
            in_place: Vec::new(),
            shared: Vec::new(),
            blas: Blas::new(module, single, int, name),
        })
    }

    /// The site of an adjoint sweep's call, which knows which shadows other threads share.
    pub fn adjoining(sig: &'static Signature, c: &AdjointCall) -> Result<Site> {
        Ok(Site {
            shared: c.shared.clone(),
            ..Site::new(sig, c.b.module(), c.src, &c.args)?
        })
    }

    /// True when other threads may add into the shadow of array or scalar `name` while the
    /// adjoint runs (in an OpenMP region): the adjoint adds into it atomically.
    #[track_caller]
    pub fn shared(&self, name: &str) -> bool {
        self.shared.get(self.pos(name)) == Some(&true)
    }

    /// The site of an augmented sweep's call, which knows which arrays are unchanged until
    /// the adjoint.
    pub fn augmenting(sig: &'static Signature, c: &AugmentCall) -> Result<Site> {
        Ok(Site {
            in_place: c.in_place.clone(),
            ..Site::new(sig, c.b.module(), c.src, &c.args)?
        })
    }

    /// True when the adjoint may read input array `name` where it is: the overwrite analysis
    /// proved its memory unchanged until then. Never the array the call writes.
    #[track_caller]
    pub fn in_place(&self, name: &str) -> bool {
        Some(name) != self.sig.output && self.in_place.get(self.pos(name)) == Some(&true)
    }

    /// The position of parameter `name` in this call (Fortran has no order argument).
    #[track_caller]
    fn pos(&self, name: &str) -> usize {
        self.sig.position(name, self.fortran)
    }

    /// Argument `name` as passed (an array, or a Fortran scalar's pointer).
    #[track_caller]
    pub fn ptr(&self, name: &str) -> Val {
        self.args[self.pos(name)]
    }

    #[track_caller]
    pub fn int(&self, b: &mut Builder, name: &str) -> Val {
        let a = self.ptr(name);
        if self.fortran {
            b.load(self.blas.int, a, 4)
        } else {
            b.sext_or_trunc(a, self.blas.int)
        }
    }

    #[track_caller]
    pub fn real(&self, b: &mut Builder, name: &str) -> Val {
        let a = self.ptr(name);
        if self.fortran {
            b.load(self.blas.elem, a, 0)
        } else {
            a
        }
    }

    /// The storage order as a CBLAS enum (Fortran is column-major).
    pub fn order(&self, b: &mut Builder) -> Val {
        if self.fortran {
            self.blas.enum_c(COL_MAJOR)
        } else {
            b.sext_or_trunc(self.args[0], self.blas.i32t)
        }
    }

    /// A transpose flag as a CBLAS enum; Fortran's `'N'`/`'n'` mean no transpose, anything
    /// else (`'T'`, `'C'`) a transpose (the same thing for real matrices).
    #[track_caller]
    pub fn trans(&self, b: &mut Builder, name: &str) -> Val {
        if !self.fortran {
            return b.sext_or_trunc(self.ptr(name), self.blas.i32t);
        }
        let i8t = Ty::int(self.blas.i32t.context(), 8);
        let ch = b.load(i8t, self.ptr(name), 1);
        let upper = b.icmp(IntPred::LLVMIntEQ, ch, i8t.int_const(b'N' as u64));
        let lower = b.icmp(IntPred::LLVMIntEQ, ch, i8t.int_const(b'n' as u64));
        let plain = b.binop(Opcode::LLVMOr, upper, lower);
        let (n, t) = (self.blas.enum_c(NO_TRANS), self.blas.enum_c(TRANS));
        b.select(plain, n, t)
    }

    /// Every scalar the augmented sweep saves, read in buffer order (see [`Signature`]);
    /// `given` supplies values to use instead of reading the argument.
    pub fn scalars(&self, b: &mut Builder, given: &[(&'static str, Val)]) -> Scalars {
        let mut out = Scalars::default();
        for p in self.sig.saved_scalars() {
            let v = match given.iter().find(|(n, _)| *n == p.name) {
                Some(&(_, v)) => v,
                None => match p.role {
                    Role::Order => self.order(b),
                    Role::Trans => self.trans(b, p.name),
                    Role::Int => self.int(b, p.name),
                    _ => self.real(b, p.name),
                },
            };
            out.push(p.name, v);
        }
        out
    }

    /// The shadow (or tangent) of parameter `name` in `shadows`.
    #[track_caller]
    pub fn shadow(&self, shadows: &[Option<Val>], name: &str) -> Option<Val> {
        shadows.get(self.pos(name)).copied().flatten()
    }

    /// Whether any input that feeds the output has a shadow (or tangent).
    pub fn any_input_shadow(&self, shadows: &[Option<Val>]) -> bool {
        self.sig
            .inputs()
            .any(|name| self.shadow(shadows, name).is_some())
    }

    /// The tangent of scalar `name`: by value (CBLAS) or read from its shadow (Fortran).
    #[track_caller]
    pub fn real_tangent(
        &self,
        b: &mut Builder,
        tangents: &[Option<Val>],
        name: &str,
    ) -> Option<Val> {
        let t = self.shadow(tangents, name)?;
        Some(if self.fortran {
            b.load(self.blas.elem, t, 0)
        } else {
            t
        })
    }

    /// Whether scalar `name` may carry a derivative, as the augmented sweep can tell: a
    /// constant never does. The adjoint's exact activity implies this, so what it uses was
    /// saved.
    #[track_caller]
    pub fn real_maybe_active(&self, src: Val, shadows: &[Option<Val>], name: &str) -> bool {
        if self.fortran {
            self.shadow(shadows, name).is_some()
        } else {
            !src.call_args()[self.pos(name)].is_constant()
        }
    }

    /// Whether scalar `name` carries a derivative (adjoint sweep).
    #[track_caller]
    pub fn real_active(&self, active: &[bool], shadows: &[Option<Val>], name: &str) -> bool {
        if self.fortran {
            self.shadow(shadows, name).is_some()
        } else {
            active[self.pos(name)]
        }
    }

    /// Hands the adjoint `d` of scalar `name` back: returned (CBLAS) or added to its shadow.
    #[track_caller]
    pub fn give(
        &self,
        b: &mut Builder,
        shadows: &[Option<Val>],
        out: &mut ArgAdjoints,
        name: &str,
        d: Val,
    ) {
        if !self.fortran {
            out[self.pos(name)] = Some(d);
        } else if let Some(s) = self.shadow(shadows, name) {
            if self.shared(name) {
                b.atomic_fadd(s, d);
                return;
            }
            let old = b.load(self.blas.elem, s, 0);
            let new = b.fadd(old, d);
            b.store(new, s, 0);
        }
    }

    /// The error for derivatives flowing into the routine's output, which has no shadow.
    pub fn no_shadow(&self, src: Val) -> Error {
        let what = self.sig.output.unwrap_or("its output");
        Error::at(
            src,
            format!(
                "'{}' writes values with derivatives into '{what}', which has no shadow (a constant argument or global); pass it as dup",
                self.blas.callee
            ),
        )
    }
}

/// An error unless `args` fit the routine's parameters: through CBLAS, exactly its parameters
/// (integers for the order, transposes and dimensions, reals of one precision, pointers for
/// arrays); through Fortran, a pointer for each (and possibly hidden string lengths after
/// them, which compilers of Fortran pass).
fn check_arguments(
    sig: &Signature,
    fortran: bool,
    name: &str,
    src: Val,
    args: &[Val],
) -> Result<()> {
    let params: Vec<_> = sig
        .params
        .iter()
        .filter(|p| !(fortran && p.role == Role::Order))
        .collect();
    let count_ok = if fortran {
        args.len() >= params.len()
    } else {
        args.len() == params.len()
    };
    let fits = |(p, a): (&&super::signature::Param, &Val)| {
        let t = a.ty();
        match p.role {
            _ if fortran => t.is_ptr(),
            Role::Vector { .. } | Role::Matrix { .. } => t.is_ptr(),
            Role::Real => t.is_float(),
            Role::Order | Role::Trans | Role::Int => t.is_int(),
        }
    };
    if count_ok && params.iter().zip(args).all(fits) {
        return Ok(());
    }
    let names: Vec<&str> = params.iter().map(|p| p.name).collect();
    Err(Error::at(
        src,
        format!(
            "'{name}' is called with {} arguments that do not match the BLAS routine's {} parameters ({}{}); declare it as {} does",
            args.len(),
            params.len(),
            names.join(", "),
            if fortran { ", each by pointer" } else { "" },
            if fortran { "the reference BLAS (f77blas.h)" } else { "cblas.h" }
        ),
    ))
}

/// Scalars by parameter name: read from a call, or back from the saved buffer.
#[derive(Default)]
pub(super) struct Scalars {
    names: Vec<&'static str>,
    vals: Vec<Val>,
}

impl Scalars {
    pub fn push(&mut self, name: &'static str, v: Val) {
        self.names.push(name);
        self.vals.push(v);
    }
    /// The values in buffer order.
    pub fn values(&self) -> &[Val] {
        &self.vals
    }
}

impl Index<&str> for Scalars {
    type Output = Val;
    #[track_caller]
    fn index(&self, name: &str) -> &Val {
        match self.names.iter().position(|n| *n == name) {
            Some(k) => &self.vals[k],
            None => panic!("no saved scalar '{name}'"),
        }
    }
}
