//! May-alias judgements of the overwrite analysis: whether a writer may change the bytes a
//! load read (underlying objects, constant offsets, TBAA, allocation sites in loops), and
//! whether a fresh allocation escapes the function.

use super::ordering::Places;
use super::*;

impl Oracle<'_> {
    /// True when writer target `t` of instruction `s` (running after load `l`) may change
    /// bytes `l` read.
    pub(super) fn may_clobber(&mut self, l: Val, s: Val, t: &Target, places: &Places) -> bool {
        if matches!(s.opcode(), Opcode::LLVMCall | Opcode::LLVMInvoke)
            && self.typed_call_spares(l, s)
        {
            return false;
        }
        let lp = l.operand(0);
        let lobjs = self.objects(lp);
        let (wp, size, tbaa) = match *t {
            Target::Everything => {
                return lobjs.iter().any(|&o| match self.kind(o) {
                    Kind::Nothing | Kind::Global { constant: true } => false,
                    k if Self::is_fresh(k) || k == Kind::ParentSlot => self.escapes(o),
                    _ => true,
                })
            }
            Target::Anywhere(p) => (p, None, None),
            Target::At { ptr, size, tbaa } => (ptr, size, tbaa),
        };
        if let Some(s) = tbaa {
            if tbaa_disjoint(l, s) {
                return false;
            }
        }
        let wobjs = self.objects(wp);
        let mut any = false;
        for &a in &lobjs {
            for &b in &wobjs {
                if self.objects_may_alias(a, b) && !self.newer_block(l, s, a, b, wp, places) {
                    any = true;
                }
            }
        }
        if !any {
            return false;
        }
        // One object, constant offsets: disjoint byte ranges do not alias.
        if let (Some(ws), Some(ls)) = (size, fixed_size(self.m, l.ty())) {
            if let (Some((lo, loff)), Some((wo, woff))) =
                (self.const_offset(lp), self.const_offset(wp))
            {
                if lo == wo && (loff + ls as i64 <= woff || woff + ws as i64 <= loff) {
                    return false;
                }
            }
        }
        true
    }

    pub(super) fn objects_may_alias(&mut self, a: Val, b: Val) -> bool {
        let (ka, kb) = (self.kind(a), self.kind(b));
        match (ka, kb) {
            (Kind::Nothing, _) | (_, Kind::Nothing) => false,
            (Kind::Global { constant: true }, _) | (_, Kind::Global { constant: true }) => false,
            // A global of this module whose address nothing captures (an OpenMP critical
            // section's lock): no pointer of unknown origin, argument or loaded, points to it.
            (Kind::Global { .. }, Kind::Unknown | Kind::Arg { .. } | Kind::FromParent)
                if self.private_global(a) =>
            {
                false
            }
            (Kind::Unknown | Kind::Arg { .. } | Kind::FromParent, Kind::Global { .. })
                if self.private_global(b) =>
            {
                false
            }
            // A pointer the forking function stored before the region: none of the body's
            // blocks, no stack slot of the forking function (regions.rs).
            (Kind::FromParent, k) | (k, Kind::FromParent) => {
                !(Self::is_fresh(k) || k == Kind::ParentSlot || k == Kind::Arg { noalias: true })
            }
            // A slot of the forking function nothing else there captured: reachable from the
            // body only through the parameter, unless the body lets it escape.
            (Kind::ParentSlot, Kind::ParentSlot) => a == b,
            (Kind::ParentSlot, Kind::Unknown) => self.escapes(a),
            (Kind::Unknown, Kind::ParentSlot) => self.escapes(b),
            (Kind::ParentSlot, _) | (_, Kind::ParentSlot) => false,
            (Kind::Unknown, Kind::Unknown) => true,
            (Kind::Unknown, k) if Self::is_fresh(k) => self.escapes(b),
            (k, Kind::Unknown) if Self::is_fresh(k) => self.escapes(a),
            (Kind::Unknown, _) | (_, Kind::Unknown) => true,
            (Kind::Arg { noalias: na }, Kind::Arg { noalias: nb }) => a == b || !(na || nb),
            (Kind::Arg { noalias }, Kind::Global { .. })
            | (Kind::Global { .. }, Kind::Arg { noalias }) => !noalias,
            // Distinct identified objects (allocas, allocation sites, globals, a fresh block
            // against an argument) never overlap; the same one may (another iteration's block
            // of one site is a different block, but treating it as the same is safe).
            _ => a == b,
        }
    }

    /// True when `a` and `b` are one allocation site whose every execution makes a distinct
    /// block, `l` reads the block of its latest execution before `l`, `s` writes the block of
    /// its latest execution before `s`, and every path from `l` to `s` executes the site
    /// again: then `s` writes a newer block. (Distinct, because a free of `l`'s block after
    /// `l` is either deferred or itself a writer that makes `l` not re-readable.)
    pub(super) fn newer_block(
        &self,
        l: Val,
        s: Val,
        a: Val,
        b: Val,
        wp: Val,
        places: &Places,
    ) -> bool {
        a == b
            && self.kind(a) == Kind::Heap
            && !objects_through_phis(l.operand(0)).contains(&a)
            && !objects_through_phis(wp).contains(&a)
            && places.always_through(l, s, a)
    }

    /// `p` as (identified object, constant byte offset), through constant GEPs and casts.
    pub(super) fn const_offset(&mut self, p: Val) -> Option<(Val, i64)> {
        let mut off = 0i64;
        let mut v = p;
        for _ in 0..64 {
            let op = if v.is_instruction() {
                Some(v.opcode())
            } else if v.is_constant_expr() {
                Some(v.const_opcode())
            } else {
                None
            };
            match op {
                Some(Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast | Opcode::LLVMFreeze) => {
                    v = v.operand(0)
                }
                Some(Opcode::LLVMGetElementPtr) => {
                    off = off.checked_add(self.m.const_gep_offset(v)?)?;
                    v = v.operand(0);
                }
                _ => {
                    return match self.kind(v) {
                        Kind::Unknown | Kind::Nothing => None,
                        _ => Some((v, off)),
                    }
                }
            }
        }
        None
    }

    // ----- escapes -----

    /// True when global `g` is reached through its symbol alone, so no parameter and no
    /// pointer of unknown origin points into it: no other module can take its address (it has
    /// local linkage, or it is a lock clang makes for OpenMP critical sections and reductions,
    /// `.gomp_critical_user_*`, common across modules under a name no source language can
    /// spell), and in this module it is only loaded, stored to, compared, or passed to
    /// declarations whose rules keep no argument (a function with a body would see it as a
    /// parameter), directly or through GEPs and casts; no constant expression uses it.
    pub(super) fn private_global(&mut self, g: Val) -> bool {
        if !g.is_global_variable()
            || !(g.is_local_linkage() || g.name().starts_with(".gomp_critical_user_"))
        {
            return false;
        }
        let mut seen = HashSet::from([g]);
        let mut stack = vec![g];
        while let Some(v) = stack.pop() {
            for u in v.users() {
                if !u.is_instruction() {
                    return false;
                }
                use Opcode::*;
                match u.opcode() {
                    LLVMLoad | LLVMICmp => {}
                    LLVMStore if u.operand(0) != v => {}
                    LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast => {
                        if seen.insert(u) {
                            stack.push(u);
                        }
                    }
                    LLVMCall | LLVMInvoke => {
                        let declared = u.called_function().is_some_and(|f| f.is_declaration());
                        let nargs = u.num_call_args();
                        if !declared || (nargs..u.num_operands()).any(|k| u.operand(k) == v) {
                            return false;
                        }
                        for k in 0..nargs {
                            if u.operand(k) == v && self.captures_arg(u, k) {
                                return false;
                            }
                        }
                    }
                    _ => return false,
                }
            }
        }
        true
    }

    /// True when `root` (a fresh allocation or a parameter) may be captured: stored as a value,
    /// returned, turned into an integer, passed to a call that may capture it, ...
    pub(super) fn escapes(&mut self, root: Val) -> bool {
        if let Some(&e) = self.escapes.get(&root) {
            return e;
        }
        let e = self.compute_escapes(root);
        self.escapes.insert(root, e);
        e
    }

    pub(super) fn compute_escapes(&mut self, root: Val) -> bool {
        let mut seen = HashSet::from([root]);
        let mut stack = vec![root];
        while let Some(v) = stack.pop() {
            for u in v.users() {
                if !u.is_instruction() {
                    return true;
                }
                use Opcode::*;
                match u.opcode() {
                    LLVMLoad | LLVMICmp => {}
                    LLVMStore if u.operand(0) != v => {}
                    LLVMAtomicRMW if u.operand(1) != v => {}
                    LLVMAtomicCmpXchg if u.operand(1) != v && u.operand(2) != v => {}
                    LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMPHI | LLVMFreeze => {
                        if seen.insert(u) {
                            stack.push(u);
                        }
                    }
                    LLVMSelect if u.operand(0) != v => {
                        if seen.insert(u) {
                            stack.push(u);
                        }
                    }
                    LLVMCall | LLVMInvoke => {
                        if u.called_function().is_some_and(inert_callee) {
                            continue;
                        }
                        // As the callee or in an operand bundle: escaped.
                        let nargs = u.num_call_args();
                        if (nargs..u.num_operands()).any(|k| u.operand(k) == v) {
                            return true;
                        }
                        for k in 0..nargs {
                            if u.operand(k) == v && self.captures_arg(u, k) {
                                return true;
                            }
                        }
                    }
                    _ => return true,
                }
            }
        }
        false
    }

    /// True when call `call` may capture its argument `k` (keep it beyond the call, in memory
    /// or in its result).
    pub(super) fn captures_arg(&mut self, call: Val, k: u32) -> bool {
        if call.call_arg_attr_value(k, "captures") == Some(0) {
            return false;
        }
        let Some(f) = call.called_function() else {
            return true;
        };
        if inert_callee(f) {
            return false;
        }
        let name = f.name();
        if self.rules.gradients.contains_key(&name) {
            return true;
        }
        if !f.is_declaration() {
            return self
                .summary(f)
                .captures
                .get(k as usize)
                .copied()
                .unwrap_or(true);
        }
        match self.rule_for(call) {
            Some(r) => {
                (r.effects.captures && r.effects.writes)
                    || r.effects.allocates
                    || call.ty().contains_ptr()
            }
            None => true,
        }
    }
}

/// True when the TBAA tags of `a` and `b` prove they access unrelated types (neither access
/// type is an ancestor of the other in the same type tree).
pub(super) fn tbaa_disjoint(a: Val, b: Val) -> bool {
    let (Some(ca), Some(cb)) = (a.tbaa_access_chain(), b.tbaa_access_chain()) else {
        return false;
    };
    if ca.last() != cb.last() {
        return false;
    }
    !ca.contains(&cb[0]) && !cb.contains(&ca[0])
}

/// The objects `p` may reach only through a phi that merges different values (which may carry
/// a block from an earlier execution of its allocation site).
pub(super) fn objects_through_phis(p: Val) -> HashSet<Val> {
    let mut out = HashSet::new();
    let mut seen = HashSet::new();
    let mut stack = vec![(p, false)];
    while let Some((v, via)) = stack.pop() {
        if !seen.insert((v, via)) {
            continue;
        }
        let op = if v.is_instruction() {
            v.opcode()
        } else if v.is_constant_expr() {
            v.const_opcode()
        } else {
            if via {
                out.insert(v);
            }
            continue;
        };
        match op {
            Opcode::LLVMGetElementPtr
            | Opcode::LLVMBitCast
            | Opcode::LLVMAddrSpaceCast
            | Opcode::LLVMFreeze => stack.push((v.operand(0), via)),
            Opcode::LLVMSelect => stack.extend([(v.operand(1), via), (v.operand(2), via)]),
            Opcode::LLVMPHI if v.is_instruction() => {
                let inc = v.incoming();
                let merges = inc.iter().any(|(x, _)| *x != inc[0].0);
                stack.extend(inc.into_iter().map(|(x, _)| (x, via || merges)));
            }
            _ => {
                if via {
                    out.insert(v);
                }
            }
        }
    }
    out
}
