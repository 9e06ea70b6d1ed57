//! The transfer functions: what each instruction says about the trees of its operands, its
//! result and the memory it touches ([`Analysis::visit`]), calls included (arguments and
//! returns in the callee's context, requests, calls seeded by the rules). GEPs have a file of
//! their own ([`super::gep`]).

use super::bytes;
use super::queries::TypeResults;
use super::seeds::{tbaa_kind, tbaa_pointee_kind, type_tree, CallSeed};
use super::tree::{self, Kind, Tree};
use crate::analysis::indices::Indices;
use crate::ir::{Module, Opcode, Ty, TyKind, Val};
use std::collections::{HashMap, HashSet};

pub(super) struct Analysis {
    pub(super) m: Module,
    pub(super) info: TypeResults,
    pub(super) changed: bool,
    pub(super) seed: fn(Val) -> CallSeed,
    /// The context of the function being visited.
    pub(super) ctx: u32,
    /// Index reasoning per function (`None`: an irreducible CFG), built when a GEP asks.
    pub(super) indices: HashMap<Val, Option<Indices>>,
    /// [`Analysis::bounded_index`] by GEP: the same in every round.
    pub(super) ranges: HashMap<Val, Option<(u64, u64, u64)>>,
    /// The (function, context)s that more than one call site reaches, when the fixed point is
    /// to stop for [`specialise`] where one of their parameters or returns climbs
    /// ([`Analysis::restless`]); empty otherwise.
    pub(super) shared: HashSet<(Val, u32)>,
    /// Past [`SETTLE_ROUNDS`], the (function, context)s in [`Analysis::shared`] whose
    /// parameters or return reached higher offsets this round ([`extent`]). One function
    /// context reached by one object at two offsets passes what it learns from each caller
    /// back to the other, shifted by the distance: Eigen's `derived()` returns its parameter
    /// and is called on an expression `a` and on its member at `a + 8`, so `a` comes to hold
    /// what it holds 8 bytes up, one step more every round; `MapBase` constructs its two
    /// empty members at bytes 8 and 9 through one constructor. The object's tree climbs to
    /// the offset bound and the analysis never settles (-O0). Those call sites get contexts
    /// of their own.
    pub(super) restless: Option<HashSet<(Val, u32)>>,
}

impl Analysis {
    pub(super) fn get(&self, v: Val) -> Tree {
        self.get_in(self.ctx, v)
    }

    pub(super) fn get_in(&self, ctx: u32, v: Val) -> Tree {
        self.info.view(ctx).tree(self.m, v)
    }

    /// Adds what `t` says to `v`'s tree (constants keep their own).
    pub(super) fn add(&mut self, v: Val, t: &Tree) {
        self.add_in(self.ctx, v, t)
    }

    pub(super) fn add_in(&mut self, ctx: u32, v: Val, t: &Tree) {
        if !(v.is_instruction() || v.is_argument()) || t.is_unknown() {
            return;
        }
        let m = self.m;
        let cur = self
            .info
            .trees
            .entry((ctx, v))
            .or_insert_with(|| type_tree(m, v.ty()));
        // Past SETTLE_ROUNDS: a parameter of a shared context, watched for a climb.
        let watched = match (&self.restless, v.is_argument()) {
            (Some(_), true) => v
                .parent_function()
                .filter(|&f| self.shared.contains(&(f, ctx)))
                .map(|f| (f, extent(cur))),
            _ => None,
        };
        let changed = cur.merge(t);
        self.changed |= changed;
        if let (Some((f, before)), true) = (watched, changed) {
            if extent(cur) > before {
                self.restless
                    .get_or_insert_with(HashSet::new)
                    .insert((f, ctx));
            }
        }
    }

    /// Adds `t` to the memory `p` points to.
    pub(super) fn add_pointee(&mut self, p: Val, t: Tree) {
        if t.is_unknown() {
            return;
        }
        self.add(p, &Tree::pointer_to(t));
    }

    /// Values and the memory they are loaded from or stored to agree on the accessed bytes.
    fn access(&mut self, i: Val, v: Val, p: Val, ty: Ty) {
        let size = self.m.store_size(ty);
        let mut vt = type_tree(self.m, ty);
        let tbaa = i.tbaa_access_type();
        if let Some(k) = tbaa.as_deref().and_then(tbaa_kind) {
            if !ty.is_ptr() && (ty.is_int() || ty.kind() == TyKind::Float) {
                vt.at.insert(0, vt.get(0).map_or(k, |old| old.join(k)));
            }
        }
        // A `float *` read or written as such points to a float (Eigen's `m_data`, passed at
        // -O0 through helpers that only copy it).
        if ty.is_ptr() {
            if let Some(k) = tbaa.as_deref().and_then(tbaa_pointee_kind) {
                vt.merge(&Tree::pointer_to(Tree::scalar(k)));
            }
        }
        vt.merge(&self.get(v).prefix(size));
        self.add(v, &vt);
        let mut from_memory = self.get(p).pointee().prefix(size);
        // An integer narrower than the float the memory holds there carries no float, only
        // some of its bits (an `int` stored into a `std::variant<double, int>`'s storage at
        // -O0): taken for one, the `int` it came from became a `double` too.
        if ty.is_int() {
            from_memory.at.retain(|&o, k| match k {
                Kind::Float(f) => o + f.size() <= size,
                _ => true,
            });
        }
        self.add(v, &from_memory);
        // A vector access without TBAA may be the vectorizer reading several fields at once,
        // lanes it never uses included (a pointer read as the second lane of a double pair):
        // it learns from memory but does not teach it.
        if ty.is_vector() && i.tbaa_access_type().is_none() {
            return;
        }
        let now = self.get(v);
        self.add_pointee(p, now);
    }

    /// Two values that are the same bits (casts, phis, call arguments and parameters).
    fn same(&mut self, a: Val, b: Val) {
        let (ta, tb) = (self.get(a), self.get(b));
        self.add(a, &tb);
        self.add(b, &ta);
    }

    pub(super) fn visit(&mut self, i: Val) {
        use Opcode::*;
        let m = self.m;
        match i.opcode() {
            LLVMLoad => self.access(i, i, i.operand(0), i.ty()),
            LLVMStore => {
                self.access(i, i.operand(0), i.operand(1), i.operand(0).ty());
                // A byte-wise copy: both bases hold the same data (as a memcpy of unknown
                // length says), whatever the bytes themselves are read as.
                if let Some(bc) = bytes::byte_copy(i) {
                    let (d, s) = (self.get(bc.dst).pointee(), self.get(bc.src).pointee());
                    self.add_pointee(bc.dst, s);
                    self.add_pointee(bc.src, d);
                }
            }
            LLVMAlloca => {
                let t = type_tree(m, i.allocated_type());
                self.add_pointee(i, t);
            }
            LLVMGetElementPtr => self.gep(i),
            LLVMBitCast | LLVMAddrSpaceCast | LLVMFreeze => self.same(i, i.operand(0)),
            // A choice between different fields of one object (`x = left ? &n->left :
            // &n->right`, as a red-black tree's insertion walks) points at either field: what
            // is known of the choice is the union of the fields, which says nothing about each
            // of them. Passed back to them, it would shift into the object at each field's
            // offset and grow there every round instead of settling.
            LLVMPHI | LLVMSelect if field_choice(m, i) => {
                for v in choices(i) {
                    let t = self.get(v);
                    self.add(i, &t);
                }
            }
            LLVMPHI | LLVMSelect => {
                for v in choices(i) {
                    self.same(i, v);
                }
            }
            // An integer `and`/`xor` with one constant operand keeps the other's bits in
            // place (clearing or flipping a float's sign bit).
            LLVMAnd | LLVMXor if i.operand(1).const_int_value().is_some() => {
                self.same(i, i.operand(0))
            }
            // Integers packing several values (-O2 passes a {float, float} as an i64 built
            // with zext, shl and or, and unpacks it with lshr and trunc): whole bytes keep
            // their contents at the shifted offsets (little-endian).
            LLVMZExt | LLVMTrunc if i.ty().is_int() => self.shifted(i, 0, 0),
            LLVMShl | LLVMLShr if i.ty().is_int() => {
                match i.operand(1).const_int_value().filter(|c| c % 8 == 0) {
                    Some(c) if i.opcode() == LLVMShl => self.shifted(i, c / 8, 0),
                    Some(c) => self.shifted(i, 0, c / 8),
                    None => self.add(i, &type_tree(m, i.ty())),
                }
            }
            // Each operand's bytes are in the result (a disjoint `or` joins packed values).
            // Not the other way: an operand's bytes that are zero hold nothing of the result.
            LLVMOr if i.ty().is_int() => {
                self.add(i, &type_tree(m, i.ty()));
                for k in 0..2 {
                    let t = self.get(i.operand(k));
                    self.add(i, &t);
                }
            }
            LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFNeg | LLVMFCmp => {
                for k in 0..i.num_operands() {
                    let t = type_tree(m, i.operand(k).ty());
                    self.add(i.operand(k), &t);
                }
            }
            LLVMPtrToInt | LLVMIntToPtr => {
                self.add(i, &Tree::scalar(Kind::Pointer));
                let t = self.get(i);
                self.add(i.operand(0), &t);
            }
            LLVMRet if i.num_operands() == 1 => {
                let f = i.parent_block().parent();
                let t = self.get(i.operand(0));
                let r = self.info.returns.entry((self.ctx, f)).or_default();
                let before = extent(r);
                let changed = r.merge(&t);
                self.changed |= changed;
                let back = r.clone();
                if changed && extent(r) > before && self.shared.contains(&(f, self.ctx)) {
                    if let Some(r) = self.restless.as_mut() {
                        r.insert((f, self.ctx));
                    }
                }
                self.add(i.operand(0), &back);
            }
            // C++ with exceptions calls through `invoke` (-O0 calls everything so).
            LLVMCall | LLVMInvoke => self.call(i),
            _ => {
                let t = type_tree(m, i.ty());
                self.add(i, &t);
            }
        }
    }

    /// The integer `i` holds operand 0's bytes moved `up` bytes higher or `down` bytes lower
    /// (a zero extension, truncation or shift by whole bytes), each within its own width.
    fn shifted(&mut self, i: Val, up: u64, down: u64) {
        let m = self.m;
        let x = i.operand(0);
        let (ni, nx) = (m.store_size(i.ty()), m.store_size(x.ty()));
        let own = type_tree(m, i.ty());
        self.add(i, &own);
        let from_x = self.get(x).shift_down(down).shift_up(up).prefix(ni);
        self.add(i, &from_x);
        let from_i = self.get(i).shift_down(up).shift_up(down).prefix(nx);
        self.add(x, &from_i);
    }

    fn call(&mut self, c: Val) {
        let m = self.m;
        let args = c.call_args();
        if let Some(t) = (!c.ty().is_void()).then(|| type_tree(m, c.ty())) {
            self.add(c, &t);
        }
        if let Some(site) = self.info.requests.get(&c) {
            // The caller's memory, as it holds it, is what the function's pointer parameters
            // point to (one way: see [`requests`]).
            let (f, k) = (site.function, self.info.view(self.ctx).callee_context(c));
            let params = f.params();
            for a in site.args.clone() {
                let mut t = self.get(a.primal);
                if let Some(s) = a.shadow {
                    t.merge(&self.get(s));
                }
                self.add_in(k, params[a.param], &t);
            }
            return;
        }
        let Some(f) = c.called_function() else {
            return;
        };
        if !f.is_declaration() && c.parent_function().is_some_and(is_open_dispatcher) {
            // A dispatcher over guessed candidates passes its arguments to each, but only
            // the one the pointer matches receives them: the candidates' own accesses say
            // nothing about the caller's memory (a `std::function`'s storage is no
            // `double *` because some other address-taken function of the same type takes
            // one), nor the caller's about theirs (that function's `double *` would take the
            // storage's pointers, and pass the conflict on to everything it calls).
            return;
        }
        if !f.is_declaration() {
            // The callee's values in the context this call site reaches.
            let k = self.info.view(self.ctx).callee_context(c);
            for (a, p) in args.iter().zip(f.params()) {
                let (ta, tp) = (self.get(*a), self.get_in(k, p));
                self.add(*a, &tp);
                self.add_in(k, p, &ta);
            }
            if let Some(r) = self.info.returns.get(&(k, f)).cloned() {
                self.add(c, &r);
                let back = self.get(c);
                self.changed |= self.info.returns.entry((k, f)).or_default().merge(&back);
            }
            return;
        }
        // The user's hint about the memory at its pointer ([`super::hints`]), checked once the
        // analysis is done.
        if let Some((h, size)) = super::hints::read(c) {
            self.info.hints.insert((self.ctx, c));
            if let (Some(size), Some(&p)) = (size, args.first()) {
                self.add_pointee(p, super::hints::pointee(h, size));
            }
            return;
        }
        let seed = (self.seed)(c);
        if seed == CallSeed::Copy && args.len() >= 3 {
            // The copied bytes are the same data on both sides.
            let len = args[2].const_int_value().unwrap_or(tree::MAX_OFFSET);
            let (d, s) = (self.get(args[0]).pointee(), self.get(args[1]).pointee());
            self.add_pointee(args[0], s.prefix(len));
            self.add_pointee(args[1], d.prefix(len));
        } else if seed == CallSeed::Allocates && c.ty().is_ptr() {
            self.add(c, &Tree::scalar(Kind::Pointer));
        } else if seed == CallSeed::Math {
            for a in args {
                let t = type_tree(m, a.ty());
                self.add(a, &t);
            }
        } else if seed == CallSeed::MathOut && !args.is_empty() {
            let t = type_tree(m, args[0].ty());
            self.add(args[0], &t);
            for &a in args[1..].iter().filter(|a| a.ty().is_ptr()) {
                self.add_pointee(a, t.clone());
            }
        }
    }
}

/// The highest offset `t` or any tree it points to says anything about: what climbs when an
/// analysis does not settle.
fn extent(t: &Tree) -> u64 {
    let own = t.at.last_key_value().map_or(0, |(&o, _)| o);
    own.max(t.pointee.as_deref().map_or(0, extent))
}

/// The function attribute of a dispatcher whose candidates are the address-taken functions of
/// the call's type, not read off the pointer's origin ([`crate::devirt`]).
pub const OPEN_DISPATCHER: &str = "umbra-dispatch-open";

fn is_open_dispatcher(f: Val) -> bool {
    f.string_fn_attr(OPEN_DISPATCHER).is_some()
}

/// The values a phi or select chooses between.
fn choices(i: Val) -> Vec<Val> {
    if i.opcode() == Opcode::LLVMSelect {
        vec![i.operand(1), i.operand(2)]
    } else {
        i.incoming().into_iter().map(|(v, _)| v).collect()
    }
}

/// True when phi or select `i` chooses between constant offsets of one base pointer, not all
/// the same ([`Analysis::visit`]).
fn field_choice(m: Module, i: Val) -> bool {
    if !i.ty().is_ptr() {
        return false;
    }
    let mut base = None;
    let mut offsets = HashSet::new();
    for v in choices(i) {
        let (b, o) = if v.is_instruction() && v.opcode() == Opcode::LLVMGetElementPtr {
            match bytes::const_offset(m, v) {
                Some(o) => (v.operand(0), o),
                None => return false,
            }
        } else {
            (v, 0)
        };
        if base.is_some_and(|x| x != b) {
            return false;
        }
        base = Some(b);
        offsets.insert(o);
    }
    offsets.len() > 1
}
