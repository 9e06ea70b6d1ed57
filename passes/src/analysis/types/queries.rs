//! The analysis's answers ([`TypeResults`], and [`TypeInfo`], a view of them in one type
//! context), and the questions the rest of Umbra asks of them: which floats an integer carries
//! ([`float_bits`]), whether one may cross a call boundary ([`check_no_float_bits`]), the
//! `--print-types` report ([`describe`]).

use super::seeds::{float_ty, type_tree, RequestSite};
use super::tree::{FloatKind, Kind, Tree};
use crate::ir::{Module, Ty, TyKind, Val};
use std::collections::{HashMap, HashSet};

/// What the analysis found: a tree for each value seen, per type context. A context is one
/// copy of a function's analysis: context 0 for every function, and one more per call site of
/// a helper whose callers pass differently typed memory (a generic `copy(void *, const void *,
/// size_t)` called on doubles and on ints), so that each call's derivative sees its own types
/// instead of their conflict. Query it through [`TypeInfo`], a view in one context.
pub struct TypeResults {
    /// Trees by (context of the value's function, value).
    pub(super) trees: HashMap<(u32, Val), Tree>,
    /// Trees of each function's returned value, by (context, function).
    pub(super) returns: HashMap<(u32, Val), Tree>,
    /// The callee's context at each call site, by (caller's context, call); absent: 0.
    pub(super) callees: HashMap<(u32, Val), u32>,
    /// How many contexts each specialised function has (absent: one).
    pub(super) contexts: HashMap<Val, u32>,
    /// The direct calls reaching each specialised (function, context) other than context 0:
    /// (caller's context, call). Requests count as calls of the function they differentiate.
    pub(super) sites: HashMap<(Val, u32), Vec<(u32, Val)>>,
    /// The derivative requests, by request call ([`super::requests`]).
    pub(super) requests: HashMap<Val, RequestSite>,
    /// False when the fixed point was cut off: every answer is then only a lower bound.
    pub(super) converged: bool,
    /// The user's type hints seen, by (context, call) ([`super::hints`]).
    pub(super) hints: HashSet<(u32, Val)>,
}

impl TypeResults {
    /// The view in context `ctx`.
    pub fn view(&self, ctx: u32) -> TypeInfo<'_> {
        TypeInfo {
            r: self,
            ctx,
            converged: self.converged,
        }
    }
}

/// The analysis's answers for the values of one type context of a function.
#[derive(Clone, Copy)]
pub struct TypeInfo<'a> {
    r: &'a TypeResults,
    /// The context answered in.
    pub ctx: u32,
    /// False when the fixed point was cut off: every answer is then only a lower bound.
    pub converged: bool,
}

impl<'a> TypeInfo<'a> {
    /// The tree of `v` (constants and unseen values: from their LLVM type alone; a global
    /// variable points to memory of its declared type, which its initialiser has).
    pub fn tree(&self, m: Module, v: Val) -> Tree {
        if let Some(t) = self.r.trees.get(&(self.ctx, v)) {
            return t.clone();
        }
        if v.is_global_variable() && !is_abi_data(v) {
            return Tree::pointer_to(type_tree(m, v.global_value_type()));
        }
        type_tree(m, v.ty())
    }

    /// The request `call` seen as a call of the function it differentiates, when it is one.
    pub fn request(&self, call: Val) -> Option<&'a RequestSite> {
        self.r.requests.get(&call)
    }

    /// The tree of the memory `p` points to.
    pub fn pointee(&self, m: Module, p: Val) -> Tree {
        self.tree(m, p).pointee()
    }

    /// The kind of the first byte of `v` (`None`: unknown).
    pub fn kind(&self, m: Module, v: Val) -> Option<Kind> {
        self.tree(m, v).get(0)
    }

    /// The tree of `f`'s returned value in this context.
    pub(super) fn returned(&self, f: Val) -> Option<&'a Tree> {
        self.r.returns.get(&(self.ctx, f))
    }

    /// The context the callee of `call` (a call in this context) is analysed in.
    pub fn callee_context(&self, call: Val) -> u32 {
        self.r.callees.get(&(self.ctx, call)).copied().unwrap_or(0)
    }

    /// The same results in context `ctx`.
    pub fn in_context(&self, ctx: u32) -> TypeInfo<'a> {
        self.r.view(ctx)
    }

    /// The constant every call reaching this context passes for parameter `p`, when all those
    /// calls are known: a call site's own context, or context 0 of a function no other module
    /// sees and only direct calls use.
    pub fn constant_argument(&self, p: Val) -> Option<u64> {
        if !p.is_argument() {
            return None;
        }
        let f = p.parent_function()?;
        let k = f.params().into_iter().position(|q| q == p)?;
        let sites = self.r.sites.get(&(f, self.ctx))?;
        if self.ctx == 0 {
            // Context 0 also answers for callers the analysis does not see (other modules,
            // calls through pointers): there must be none.
            let known = |u: &Val| {
                self.r
                    .sites
                    .iter()
                    .any(|(&(g, _), s)| g == f && s.iter().any(|&(_, c)| c == *u))
            };
            if !f.is_local_linkage() || !f.users().iter().all(known) {
                return None;
            }
        }
        // A request passes its values after markers: the constants it was seen to pass.
        let requests = &self.r.requests;
        let mut values = sites.iter().map(|&(_, call)| match requests.get(&call) {
            Some(site) => site.constants.iter().find(|c| c.0 == k).map(|c| c.1),
            None => call.call_args()[k].const_int_value(),
        });
        let first = values.next()??;
        values.all(|v| v == Some(first)).then_some(first)
    }

    /// The type hints the analysis saw, by (context, call), in a stable order.
    pub(super) fn hint_sites(&self) -> Vec<(u32, Val)> {
        let mut out: Vec<(u32, Val)> = self.r.hints.iter().copied().collect();
        out.sort_by_key(|&(k, c)| (k, crate::diag::Location::of_instruction(c).to_string()));
        out
    }

    /// How many contexts `f` is analysed in.
    pub fn contexts_of(&self, f: Val) -> u32 {
        self.r.contexts.get(&f).copied().unwrap_or(1)
    }
}

/// The floating-point type whose bits the integer `v` carries (a `double` moved as an `i64`,
/// a union read through its integer member), when the analysis found float data filling it:
/// one float of the integer's width, or a vector of equal floats packed into it (two `float`s
/// in an `i64`, as `-O2` moves a `{float, float}`).
pub fn float_bits(info: TypeInfo, m: Module, v: Val) -> Option<Ty> {
    if !v.ty().is_int() || !info.converged {
        return None;
    }
    float_bits_in(m, &info.tree(m, v), v.ty())
}

/// The floating-point type whose bits `f`'s integer return value carries ([`float_bits`] of
/// the tree its `ret`s return).
pub fn returned_float_bits(info: TypeInfo, m: Module, f: Val) -> Option<Ty> {
    let ty = f.function_type().return_type();
    if !ty.is_int() || !info.converged {
        return None;
    }
    float_bits_in(m, info.returned(f)?, ty)
}

/// [`float_bits`] of an integer of type `ty` described by `t`.
fn float_bits_in(m: Module, t: &Tree, ty: Ty) -> Option<Ty> {
    let Kind::Float(k) = t.get(0)? else {
        return None;
    };
    let bytes = ty.int_width() as u64 / 8;
    if 8 * bytes != ty.int_width() as u64 || !bytes.is_multiple_of(k.size()) {
        return None;
    }
    let n = bytes / k.size();
    // Every lane must be known to hold the same format.
    if (1..n).any(|j| t.get(j * k.size()) != Some(Kind::Float(k))) {
        return None;
    }
    // Half and bfloat too: a `_Float16` whose sign bit is cleared through an i16 carries its
    // derivative like a float does (it was dropped, silently, in reverse mode).
    let f = match k {
        FloatKind::Half => Ty::half(m.context()),
        FloatKind::BFloat => Ty::bfloat(m.context()),
        _ => float_ty(m, k),
    };
    if f.kind() != TyKind::Float {
        return None;
    }
    Some(if n == 1 { f } else { Ty::vector(f, n as u32) })
}

/// An error unless the integer `v` is known not to carry float bits the caller's derivative
/// depends on. Called where `v` crosses a call boundary as an integer that the callee's derived
/// signature does not carry as a float ([`crate::signature::FloatBits`]: only integers filled
/// by whole floats of one format are), so the derivative would silently vanish there.
pub fn check_no_float_bits(
    info: TypeInfo,
    m: Module,
    v: Val,
    at: Val,
    what: &str,
) -> crate::diag::Result<()> {
    if !v.ty().is_int() {
        return Ok(());
    }
    if !info.converged {
        return Ok(());
    }
    // Only integers the analysis found to hold floats and nothing else: a conflict (an integer
    // also used as one, as sizes computed from pointer differences are) is too common in C++
    // library code to refuse, and was integer data before this analysis existed.
    match info.kind(m, v) {
        Some(k @ Kind::Float(_)) => Err(crate::diag::Error::at(
            at,
            format!(
                "{what} floating-point data ({k}) as an integer: '{}' ({}) holds float bits but is not filled by whole floats of one format, so a derivative cannot travel through it as an integer parameter or return value; pass or return it as a floating-point value (or let the call be inlined)",
                short_name(v),
                v.ty().print()
            ),
        )),
        _ => Ok(()),
    }
}

/// `%name` of a value, or its printed form when it has no name.
fn short_name(v: Val) -> String {
    crate::diag::short(v)
}

/// True for the C++ ABI's type information and vtables (`_ZTI`, `_ZTS`, `_ZTV`): a pointer to
/// them says nothing about the memory it is stored in. `std::function`'s manager returns its
/// functor's `type_info` through the same slot that holds the functor pointer; taking the
/// `type_info`'s layout (two pointers) for the functor's would call its doubles pointers.
fn is_abi_data(g: Val) -> bool {
    let name = g.name();
    ["_ZTI", "_ZTS", "_ZTV"].iter().any(|p| name.starts_with(p))
}

/// The `--print-types` lines for `f`: the tree of each parameter, of the return value, and of
/// each integer the analysis found to carry float bits.
pub fn describe(info: TypeInfo, m: Module, f: Val) -> Vec<String> {
    let mut out = vec![match info.ctx {
        0 => format!("type trees of @{}:", f.name()),
        k => format!("type trees of @{} (call-site context {k}):", f.name()),
    }];
    for (k, p) in f.params().into_iter().enumerate() {
        let name = if p.name().is_empty() {
            format!("#{k}")
        } else {
            format!("%{}", p.name())
        };
        out.push(format!("  param {name}: {}", info.tree(m, p)));
    }
    if let Some(r) = info.returned(f) {
        out.push(format!("  return: {r}"));
    }
    for b in f.blocks() {
        for i in b.instructions() {
            if i.ty().is_int() && info.kind(m, i).is_some_and(Kind::may_be_float) {
                out.push(format!("  float bits: {}: {}", i.print(), info.tree(m, i)));
            }
        }
    }
    out
}
