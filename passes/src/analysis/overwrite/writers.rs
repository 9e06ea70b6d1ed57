//! What each instruction of the analysed function may write or free: stores, atomics, `va_arg`
//! and calls, judged by the callee's rule effects, LLVM memory attributes and a recursive
//! summary of a callee's body, whichever is tightest.

use super::*;

impl Oracle<'_> {
    /// What instruction `i` may write, and the pointer it frees when it is a call of a rule
    /// that only frees (not among the targets).
    pub(super) fn instruction_writes(&mut self, i: Val) -> (Vec<Target>, Option<Val>) {
        use Opcode::*;
        let sized = |ptr: Val, ty: Ty, tbaa: Option<Val>, m: Module| Target::At {
            ptr,
            size: fixed_size(m, ty),
            tbaa,
        };
        match i.opcode() {
            LLVMStore => (
                vec![sized(i.operand(1), i.operand(0).ty(), Some(i), self.m)],
                None,
            ),
            LLVMAtomicRMW | LLVMAtomicCmpXchg => (
                vec![sized(i.operand(0), i.operand(1).ty(), None, self.m)],
                None,
            ),
            LLVMVAArg => (vec![Target::Anywhere(i.operand(0))], None),
            LLVMCall | LLVMInvoke | LLVMCallBr => self.call_writes(i),
            LLVMLandingPad | LLVMResume | LLVMCatchPad | LLVMCatchRet | LLVMCleanupPad
            | LLVMCleanupRet | LLVMCatchSwitch => (vec![Target::Everything], None),
            _ => (Vec::new(), None),
        }
    }

    pub(super) fn call_writes(&mut self, call: Val) -> (Vec<Target>, Option<Val>) {
        let f = call.called_function();
        let name = f.map(|f| f.name()).unwrap_or_default();
        if f.is_some_and(inert_callee) {
            return (Vec::new(), None);
        }
        // The tightest memory attribute of the call site and the callee.
        let fn_idx = u32::MAX;
        let mut me: u64 = u64::MAX;
        if let Some(v) = call.call_attr_value(fn_idx, "memory") {
            me &= v;
        }
        if let Some(v) = f.and_then(|f| f.fn_attr_value(fn_idx, "memory")) {
            me &= v;
        }
        let attr_args = mem_writes(me, MEM_ARG);
        let attr_other = mem_writes(me, MEM_OTHER) || mem_writes(me, MEM_ERRNO);
        if !attr_args && !attr_other {
            return (Vec::new(), None);
        }
        let args = call.call_args();
        // In a parallel region's body (the one analysed, or one a fork's summary reads): what
        // the runtime's synchronisation lets other threads' writes land is theirs, counted
        // with the region's writers, not the call's.
        let in_region = self
            .region
            .as_ref()
            .is_some_and(|r| call.parent_function() == Some(r.function))
            || call.parent_function().is_some_and(|f| {
                f.users()
                    .into_iter()
                    .any(|u| crate::openmp::outlined(u) == Some(f))
            });
        let ptr_args = |only: &dyn Fn(usize) -> bool| -> (Vec<Target>, bool) {
            let mut out = Vec::new();
            let mut hidden = false;
            for (k, &a) in args.iter().enumerate() {
                if !only(k) {
                    continue;
                }
                let t = a.ty();
                if t.is_ptr_or_ptr_vector() {
                    let ro = call.call_arg_has_attr(k as u32, "readonly")
                        || call.call_arg_has_attr(k as u32, "readnone");
                    if !ro {
                        out.push(Target::Anywhere(a));
                    }
                } else if t.contains_ptr() {
                    hidden = true;
                }
            }
            (out, hidden)
        };
        // (through which arguments, anything else)
        let (mut targets, mut other, mut free) = (Vec::new(), false, None);
        let gradient = self.rules.gradients.contains_key(&name);
        match f {
            Some(g) if !g.is_declaration() && !gradient => {
                let s = self.summary(g);
                let np = s.writes.len();
                let (t, hidden) = ptr_args(&|k| k >= np || s.writes[k]);
                targets = t;
                other = s.other || hidden;
            }
            _ => match self.rule_for(call) {
                // Copies and sets write the count their effects name, at one argument.
                Some(r) if counted_write(r).is_some() => {
                    let (at, count) = counted_write(r).expect("matched");
                    let size = args.get(count).and_then(|n| n.const_int_value());
                    match args.get(at) {
                        Some(&ptr) => targets.push(Target::At {
                            ptr,
                            size,
                            tbaa: None,
                        }),
                        None => other = true,
                    }
                }
                Some(r) if r.effects.frees && !r.effects.allocates && !r.effects.writes => {
                    free = args.first().copied().filter(|a| a.ty().is_ptr());
                    if free.is_none() {
                        other = true;
                    }
                }
                Some(r) if !r.effects.writes && !r.effects.frees => {}
                // Math functions that write do so through their pointer arguments (`frexp`'s
                // exponent, `remquo`'s quotient) and, for the `lgamma` family, libm's `int
                // signgam` (their effects name it). Code can only reach that through the global
                // itself: when this module names it, the write targets it; when it does not, no
                // pointer here can point at it (short of forging one from another translation
                // unit).
                Some(r) if matches!(r.effects.hidden, Hidden::Global(_)) => {
                    let Hidden::Global(name) = r.effects.hidden else {
                        unreachable!("matched")
                    };
                    let (t, hidden) = ptr_args(&|_| true);
                    targets = t;
                    other = hidden;
                    if let Some(g) = call.parent_function().and_then(|f| f.module().global(name)) {
                        targets.push(Target::At {
                            ptr: g,
                            size: None,
                            tbaa: None,
                        });
                    }
                }
                // Copies, sets and BLAS write through their pointer arguments only; other
                // writing rules may also write hidden state (I/O): their effects say which.
                // The OpenMP runtime's scheduling and synchronisation write its own state, which
                // no load of the program reads, and what their pointer arguments point to (a
                // static schedule's bounds, a critical section's lock). What other threads write
                // meanwhile is no write of the call: the analysis of a region counts every
                // writer of the region as running after every load (regions.rs).
                // A routine with array effects (BLAS) writes its output array and nothing else
                // (its scalars, which the Fortran interface passes by pointer, and its input
                // arrays are read only).
                Some(r) if r.effects.array_args(call).is_some() => {
                    let output = r.effects.array_args(call).and_then(|a| a.output);
                    targets = output
                        .and_then(|k| args.get(k).copied())
                        .map(Target::Anywhere)
                        .into_iter()
                        .collect();
                }
                Some(r) if in_region && r.effects.synchronises && !r.effects.captures => {
                    let (t, hidden) = ptr_args(&|_| true);
                    targets = t;
                    other = hidden;
                }
                Some(r) => {
                    let (t, hidden) = ptr_args(&|_| true);
                    targets = t;
                    other = hidden || r.effects.hidden == Hidden::Anything;
                }
                None => {
                    let (t, _) = ptr_args(&|_| true);
                    targets = t;
                    other = true;
                }
            },
        }
        // Restrict to what the memory attributes allow.
        if !attr_args {
            targets.clear();
            if free.is_some() && !attr_other {
                free = None;
            }
        }
        if other && !attr_other {
            other = false;
            if attr_args {
                targets = ptr_args(&|_| true).0;
            }
        }
        if other {
            targets.push(Target::Everything);
        }
        (targets, free)
    }

    /// The memory effects of function `g`'s body, memoised; recursion is answered
    /// conservatively.
    pub(super) fn summary(&mut self, g: Val) -> Summary {
        let params = g.params();
        if let Some(s) = self.summaries.get(&g) {
            return s.clone();
        }
        if !self.in_progress.insert(g) {
            return Summary::anything(params.len());
        }
        let mut s = Summary {
            writes: vec![false; params.len()],
            captures: vec![false; params.len()],
            other: g.function_type().is_var_arg(),
            typed: None,
            typed_normal: None,
        };
        let mut typed: Option<Vec<Val>> = (!s.other).then(Vec::new);
        let mut typed_normal = typed.clone();
        let returning = super::ordering::returning_blocks(g);
        for b in g.blocks() {
            let normal = returning.contains(&b);
            for i in b.instructions() {
                let (targets, free) = self.instruction_writes(i);
                let freeing = free.is_some();
                let ptrs = targets
                    .into_iter()
                    .chain(free.map(Target::Anywhere))
                    .map(|t| match t {
                        Target::Everything => None,
                        Target::Anywhere(p) | Target::At { ptr: p, .. } => Some(p),
                    });
                // Whether a caller could observe this write.
                let mut visible = false;
                for p in ptrs {
                    let Some(p) = p else {
                        s.other = true;
                        visible = true;
                        continue;
                    };
                    for o in self.objects(p) {
                        match self.kind(o) {
                            Kind::Nothing | Kind::Alloca | Kind::Global { constant: true } => {}
                            Kind::Arg { .. } => {
                                visible = true;
                                match params.iter().position(|&q| q == o) {
                                    Some(k) => s.writes[k] = true,
                                    None => s.other = true,
                                }
                            }
                            Kind::Heap if !self.escapes(o) => {}
                            _ => {
                                s.other = true;
                                visible = true;
                            }
                        }
                    }
                }
                if visible {
                    typed = match typed.take() {
                        Some(t) if !freeing => self.typed_writer(i, t),
                        _ => None,
                    };
                    if normal {
                        typed_normal = match typed_normal.take() {
                            Some(t) if !freeing => self.typed_normal_writer(i, t),
                            _ => None,
                        };
                    }
                }
            }
        }
        s.typed = typed.map(std::rc::Rc::new);
        s.typed_normal = typed_normal.map(std::rc::Rc::new);
        for (k, &p) in params.iter().enumerate() {
            s.captures[k] = p.ty().contains_ptr() && self.escapes(p);
        }
        self.in_progress.remove(&g);
        self.summaries.insert(g, s.clone());
        s
    }
}

impl Oracle<'_> {
    /// `found` (the typed writers so far) with visible writer `i` added: a store or memory
    /// intrinsic with a TBAA tag (LLVM's alias analysis reads a memset's or memcpy's tag the
    /// same way), or a call of a function with a body whose own writes are all typed; `None`
    /// for anything else. One writer is kept per distinct access type.
    pub(super) fn typed_writer(&mut self, i: Val, found: Vec<Val>) -> Option<Vec<Val>> {
        self.typed_writer_as(i, found, false)
    }

    /// Like [`Oracle::typed_writer`], seeing of a `call` (not an `invoke`, whose caller may
    /// catch what the callee throws and go on) only the callee's writes on paths that return.
    pub(super) fn typed_normal_writer(&mut self, i: Val, found: Vec<Val>) -> Option<Vec<Val>> {
        self.typed_writer_as(i, found, i.opcode() == Opcode::LLVMCall)
    }

    fn typed_writer_as(&mut self, i: Val, mut found: Vec<Val>, normal: bool) -> Option<Vec<Val>> {
        let add = |w: Val, found: &mut Vec<Val>| {
            let chain = w.tbaa_access_chain();
            if chain.is_some() && !found.iter().any(|&x| x.tbaa_access_chain() == chain) {
                found.push(w);
            }
        };
        match i.opcode() {
            Opcode::LLVMStore if !i.is_atomic_access() && i.tbaa_access_chain().is_some() => {
                add(i, &mut found)
            }
            Opcode::LLVMCall | Opcode::LLVMInvoke => {
                // A fork writes what its region's body writes through the captured pointers
                // (the runtime's own calls write only through their arguments).
                if let Some(h) = crate::openmp::outlined(i) {
                    let summary = self.summary(h);
                    let region = if normal {
                        summary.typed_normal?
                    } else {
                        summary.typed?
                    };
                    for &w in region.iter() {
                        add(w, &mut found);
                    }
                    return Some(found);
                }
                let f = i.called_function()?;
                let name = f.name();
                if f.is_declaration() {
                    // Copies and sets (their effects name the bytes they write at one
                    // argument): typed by their own tag.
                    let counted = self.rule_for(i).is_some_and(|r| counted_write(r).is_some());
                    if !counted || i.tbaa_access_chain().is_none() {
                        return None;
                    }
                    add(i, &mut found);
                } else {
                    if self.rules.gradients.contains_key(&name) {
                        return None;
                    }
                    let summary = self.summary(f);
                    let callee = if normal {
                        summary.typed_normal?
                    } else {
                        summary.typed?
                    };
                    for &w in callee.iter() {
                        add(w, &mut found);
                    }
                }
            }
            _ => return None,
        }
        Some(found)
    }

    /// True when `call` runs a function with a body whose every write its callers could see
    /// carries a TBAA tag disjoint from load `l`'s: it cannot change the bytes `l` read.
    pub(super) fn typed_call_spares(&mut self, l: Val, call: Val) -> bool {
        if l.tbaa_access_chain().is_none() {
            return false;
        }
        let Some(f) = call.called_function() else {
            return false;
        };
        if f.is_declaration() || self.rules.gradients.contains_key(&f.name()) {
            return false;
        }
        self.summary(f)
            .typed
            .is_some_and(|ws| ws.iter().all(|&w| super::aliasing::tbaa_disjoint(l, w)))
    }
}

/// The pointer argument a rule's callee writes a counted number of bytes at, and the argument
/// holding the count ([`rules::Extent::CountIn`]: copies and sets), from its effects.
fn counted_write(r: &Rule) -> Option<(usize, usize)> {
    match r.effects.writes_arg {
        Some(rules::ArgBytes {
            arg,
            bytes: rules::Extent::CountIn(n),
        }) => Some((arg as usize, n as usize)),
        _ => None,
    }
}
