//! Loops marked for checkpointing in place: `umbra_checkpoint_next_loop(&scheme, &config,
//! [umbra_checkpoint_region, ptr, bytes]...)` just before a loop, or Enzyme's
//! `__enzyme_set_checkpointing(mode, snapshots)` at the top of its body (what the clang
//! plugin's `enzyme_checkpointing_enable` attribute emits). [`outline_marked`] turns each such
//! loop of a function requests reach into a call of a loop function ([`super::loop_function`],
//! the same as `__enzyme_checkpoint_for` makes) whose step is the loop body, outlined into a
//! function of its own; the checkpointed reverse mode ([`super::reverse`]) then drives it.
//!
//! It runs on canonical code (after mem2reg), once `loop-simplify` and `lcssa` have given the
//! loop a preheader, one latch, dedicated exits and exit phis. The loop must have one exiting
//! block, the header (a `for` loop as clang emits it at -O0) or the latch (a rotated loop), and
//! it must be counted: its test compares an induction variable that starts at a value fixed
//! before the loop and goes up by one (or that plus one, or either widened) with a bound fixed
//! before the loop, by `<`, `<=` or `!=`. The step function is `step(j, cell, live-ins...)`:
//! iteration `j` of the body with the induction variable `start + j`. The values the loop
//! carries from one iteration to the next in registers (the header's phis), the floating-point
//! values it reads from before the loop and the values it leaves for after it live in a heap
//! *cell* (a struct, allocated before the loop and freed after it), which is the first snapshot
//! region; pointers and integers from before the loop are passed as arguments. The cell's
//! address and the live-ins are the step's arguments, as Enzyme's step ABI packs them.
//!
//! A loop marked with `__enzyme_set_fixed_point` becomes a call of a fixed-point function
//! ([`super::fixed`]) instead: after `loop-rotate` its test must be at the bottom (the step runs
//! a whole iteration, then returns whether to go on); the cell of carried values is the first
//! state, the marker's pieces of state follow, and the floating-point inputs (a cell of their
//! own) are a region, never state.
//!
//! Guarantees: anything else is refused with one line naming the function, saying why and
//! pointing at the marker ([`super::marks::refuse`]): a marker not followed by (or not inside)
//! a loop, a loop without a preheader, with several latches or exits, with a return, an
//! exception edge or variable arguments inside, a test that is not a counted one, a value
//! computed in the header of a `for` loop that code after the loop reads when it cannot be
//! recomputed there, a loop that reads the function's local variables (the reverse sweep runs
//! the steps again after the function has returned). Markers in functions no request reaches
//! are erased, leaving the plain loop.

use std::collections::{HashMap, HashSet};

use super::counted::{counted, trip_count};
use super::loops::{Cfg, Loop};
use super::marks::{
    decode, delete_declarations, erase_marker, markers, refuse, Kind, Scheme, BUILTIN_SCHEME,
};
use crate::diag::{Error, Result};
use crate::ir::{Block, Builder, IntPred, Module, Opcode, Ty, TyKind, Val};

/// Name prefix of the outlined step functions.
pub const STEP_PREFIX: &str = "umbra.ckpt.step.";

/// Outlines every marked loop of the functions in `canonical` (adding the new functions to
/// it) and erases the markers elsewhere.
pub fn outline_marked(module: Module, canonical: &mut HashSet<Val>) -> Result<()> {
    for (call, kind) in markers(module)? {
        let Some(f) = call.parent_function() else {
            continue;
        };
        if canonical.contains(&f) {
            let (step, looped) = outline(module, call, kind)?;
            canonical.insert(step);
            canonical.insert(looped);
        } else {
            erase_marker(call);
        }
    }
    delete_declarations(module);
    Ok(())
}

/// Where a value the loop uses or leaves ends up in the cell.
struct Cell {
    ty: Ty,
    /// The cell of the inputs, if there are any.
    in_ty: Option<Ty>,
    /// Field of each header phi carried from one iteration to the next.
    carried: Vec<(Val, u32)>,
    /// Field of each floating-point (or other non-pointer, non-integer) live-in.
    inputs: Vec<(Val, u32)>,
    /// Field of each value of a rotated loop read after it.
    outs: Vec<(Val, u32)>,
}

/// The TBAA access type saying what a cell field of type `ty` holds, so that the type analysis
/// knows the cell's integers (a counter) from its floats without tracing every store.
fn tbaa_name(ty: Ty) -> Option<&'static str> {
    match ty.kind() {
        TyKind::Int if ty.int_width() == 32 => Some("int"),
        TyKind::Int if ty.int_width() == 64 => Some("long"),
        TyKind::Int if ty.int_width() == 1 => Some("bool"),
        TyKind::Ptr => Some("any pointer"),
        _ if ty == Ty::double(ty.context()) => Some("double"),
        _ if ty == Ty::float(ty.context()) => Some("float"),
        _ => None,
    }
}

fn cell_load(b: &mut Builder, ty: Ty, at: Val) -> Val {
    let x = b.load(ty, at, 0);
    if let Some(name) = tbaa_name(ty) {
        x.set_tbaa_scalar(name);
    }
    x
}

fn cell_store(b: &mut Builder, v: Val, at: Val) {
    let s = b.store(v, at, 0);
    if let Some(name) = tbaa_name(v.ty()) {
        s.set_tbaa_scalar(name);
    }
}

fn field(b: &mut Builder, ty: Ty, ptr: Val, k: u32) -> Val {
    let i32t = Ty::int(ty.context(), 32);
    b.gep(ty, ptr, &[i32t.zero(), i32t.int_const(u64::from(k))], true)
}

/// Outlines the loop marker `call` designates; returns the step and the loop function.
fn outline(module: Module, call: Val, kind: Kind) -> Result<(Val, Val)> {
    let f = call
        .parent_function()
        .expect("a marker call is in a function");
    let inside = kind != Kind::Next;
    let fixed = kind == Kind::Fixed;
    let marker = decode(call, f, kind)?;
    // A fixed-point loop's step runs a whole iteration and then says whether to go on: its
    // test must be at the bottom (loop-rotate puts a `while` loop's there).
    let passes = if fixed {
        "loop-simplify,loop(loop-rotate),lcssa"
    } else {
        "loop-simplify,lcssa"
    };
    // At -O0 the function is `optnone`, which loop-rotate respects (loop-simplify and lcssa
    // then do not run either: the code below does not need them).
    let optnone = fixed && f.has_fn_attr("optnone");
    if optnone {
        f.set_fn_attr("optnone", false);
    }
    let done = crate::ir::run_function_passes(f, passes);
    if optnone {
        f.set_fn_attr("optnone", true);
    }
    done.map_err(|e| Error::in_function(f, format!("loop canonicalisation failed: {e}")))?;
    let cfg = Cfg::new(f);
    let here = call.parent_block();
    let l = if inside {
        cfg.innermost_around(here)
            .ok_or_else(|| refuse(call, f, "the marker is not inside a loop"))?
    } else {
        match cfg.next_loop(here) {
            Ok(Some(l)) => l,
            Ok(None) => return Err(refuse(call, f, "no loop follows the marker")),
            Err(n) => {
                return Err(refuse(
                    call,
                    f,
                    format!(
                    "{n} loops follow the marker at the same distance: put it just before the loop"
                ),
                ))
            }
        }
    };
    let mut l = l;
    l.absorb_dead_ends(&cfg);
    let outside: Vec<Block> = cfg
        .preds(l.header)
        .into_iter()
        .filter(|p| !l.blocks.contains(p))
        .collect();
    let pre = match outside.as_slice() {
        [p] if p.successors() == vec![l.header] => *p,
        _ => {
            return Err(refuse(
                call,
                f,
                "the loop has no preheader (one block entering it)",
            ))
        }
    };
    let [latch] = l.latches.as_slice() else {
        return Err(refuse(
            call,
            f,
            "the loop has several back edges (a `continue` the compiler could not merge)",
        ));
    };
    let latch = *latch;
    let exiting = l.exiting();
    let [exiting] = exiting.as_slice() else {
        return Err(refuse(
            call,
            f,
            "the loop has several exits (a `break`, `goto` or `return` inside it)",
        ));
    };
    let exiting = *exiting;
    let exits: Vec<Block> = exiting
        .successors()
        .into_iter()
        .filter(|s| !l.blocks.contains(s))
        .collect();
    let exit = match exits.as_slice() {
        [e] if cfg.preds(*e) == vec![exiting] => *e,
        _ => return Err(refuse(call, f, "the loop has several exits")),
    };
    if let Some((i, why)) = l.unmovable() {
        let at = i
            .debug_location()
            .map(|d| format!(" (at {d})"))
            .unwrap_or_default();
        return Err(refuse(call, f, format!("the loop {why}{at}")));
    }
    let c = if fixed {
        if exiting != latch {
            return Err(refuse(
                call,
                f,
                "its test is at the top of the loop and could not be moved to the bottom",
            ));
        }
        let args = call.call_args();
        if let Some(a) = args.iter().find(|a| l.defines(**a)) {
            return Err(refuse(
                call,
                f,
                format!(
                    "{} is computed in the loop: the marker's arguments must be computed before it",
                    crate::diag::short(*a)
                ),
            ));
        }
        None
    } else {
        let c = counted(&l, pre, latch, exiting).map_err(|why| refuse(call, f, why))?;
        if c.bound.ty().int_width() > 64 {
            return Err(refuse(call, f, "its counter is wider than 64 bits"));
        }
        Some(c)
    };
    // A marker inside the loop goes with the loop's blocks (and is not copied into the step).
    let ordered = l.ordered(&cfg);
    let ctx = module.context();
    let (i64t, ptr) = (Ty::int(ctx, 64), Ty::ptr(ctx));

    // What the loop reads from before it.
    let mut live_ins: Vec<Val> = Vec::new();
    let note = |v: Val, live_ins: &mut Vec<Val>| {
        if (v.is_argument() || (v.is_instruction() && !l.defines(v))) && !live_ins.contains(&v) {
            live_ins.push(v);
        }
    };
    for b in &ordered {
        for i in b.instructions() {
            if i == call {
                continue;
            }
            if i.opcode() == Opcode::LLVMPHI && *b == l.header {
                for (v, blk) in i.incoming() {
                    if blk == latch {
                        note(v, &mut live_ins);
                    }
                }
                continue;
            }
            for v in i.operands() {
                note(v, &mut live_ins);
            }
        }
    }
    if let Some(c) = &c {
        note(c.start, &mut live_ins);
    }
    for v in &live_ins {
        if let Some(local) = super::local_object(*v) {
            return Err(refuse(
                call,
                f,
                format!(
                    "the loop uses a local variable of '{}' ({}); in reverse mode the steps run again after '{}' has returned: keep that memory on the heap, in a global or in a parameter",
                    f.name(),
                    crate::diag::short(local),
                    f.name()
                ),
            ));
        }
    }
    let (args_in, cell_in): (Vec<Val>, Vec<Val>) = live_ins
        .iter()
        .partition(|v| v.ty().is_ptr() || v.ty().is_int());

    // What code after the loop reads of it (the exit block's phis after LCSSA, or any
    // instruction the loop's values dominate).
    let mut read_after: Vec<Val> = Vec::new();
    for b in &ordered {
        for i in b.instructions() {
            if i.users().into_iter().any(|u| !l.defines(u)) {
                read_after.push(i);
            }
        }
    }
    let header_phis: Vec<Val> = l
        .header
        .instructions()
        .into_iter()
        .filter(|i| i.opcode() == Opcode::LLVMPHI && c.as_ref().is_none_or(|c| *i != c.iv))
        .collect();
    let outs: Vec<Val> = match &c {
        Some(c) if c.at_latch => read_after
            .iter()
            .copied()
            .filter(|v| *v != c.iv && *v != c.next)
            .collect(),
        Some(_) => Vec::new(),
        None => read_after.clone(),
    };

    // The cell.
    let mut fields: Vec<Ty> = Vec::new();
    let slot = |ty: Ty, fields: &mut Vec<Ty>| {
        fields.push(ty);
        (fields.len() - 1) as u32
    };
    let carried: Vec<(Val, u32)> = header_phis
        .iter()
        .map(|p| (*p, slot(p.ty(), &mut fields)))
        .collect();
    // The floating-point values read from before the loop have a cell of their own: inputs,
    // never state (a fixed point's state is iterated; these stay put).
    let mut in_fields: Vec<Ty> = Vec::new();
    let inputs: Vec<(Val, u32)> = cell_in
        .iter()
        .map(|v| (*v, slot(v.ty(), &mut in_fields)))
        .collect();
    let out_fields: Vec<(Val, u32)> = outs
        .iter()
        .map(|v| (*v, slot(v.ty(), &mut fields)))
        .collect();
    if fields.is_empty() {
        fields.push(i64t);
    }
    let cell = Cell {
        ty: Ty::literal_struct(ctx, &fields),
        in_ty: (!in_fields.is_empty()).then(|| Ty::literal_struct(ctx, &in_fields)),
        carried,
        inputs,
        outs: out_fields,
    };

    // The step function.
    let mut params = vec![i64t, ptr, ptr];
    params.extend(args_in.iter().map(|v| v.ty()));
    let i32t = Ty::int(ctx, 32);
    let ret_ty = if fixed { i32t } else { Ty::void(ctx) };
    let step = module.add_function(
        &format!("{STEP_PREFIX}{}", f.name()),
        Ty::function(ret_ty, &params, false),
    );
    step.set_internal();
    crate::signature::copy_target_attributes(f, step);
    let sp = step.params();
    sp[0].set_name("j");
    sp[1].set_name("cell");
    sp[2].set_name("inputs");
    let mut map: HashMap<Val, Val> = HashMap::new();
    for (k, v) in args_in.iter().enumerate() {
        map.insert(*v, sp[3 + k]);
    }
    let mut b = Builder::new(module);
    let entry = step.append_block("entry");
    b.position_at_end(entry);
    for (v, k) in &cell.carried {
        let at = field(&mut b, cell.ty, sp[1], *k);
        let x = cell_load(&mut b, v.ty(), at);
        map.insert(*v, x);
    }
    for (v, k) in &cell.inputs {
        let in_ty = cell.in_ty.expect("inputs have a cell");
        let at = field(&mut b, in_ty, sp[2], *k);
        let x = cell_load(&mut b, v.ty(), at);
        map.insert(*v, x);
    }
    let mapv = |map: &HashMap<Val, Val>, v: Val| -> Val {
        match map.get(&v) {
            Some(x) => *x,
            None => v,
        }
    };
    if let Some(c) = &c {
        let start = mapv(&map, c.start);
        let j = b.sext_or_trunc(sp[0], c.iv.ty());
        let iv = b.add(start, j);
        map.insert(c.iv, iv);
    }
    let at_top = c.as_ref().is_some_and(|c| !c.at_latch);
    let mut bmap: HashMap<Block, Block> = HashMap::new();
    for blk in &ordered {
        bmap.insert(*blk, step.append_block(""));
    }
    let ret = step.append_block("step.end");
    b.br(bmap[&l.header]);
    let mut phis: Vec<(Val, Val)> = Vec::new();
    let in_loop_succ = |t: Val| {
        t.successors()
            .into_iter()
            .find(|s| l.blocks.contains(s))
            .expect("the exiting block's branch stays in the loop one way")
    };
    for blk in &ordered {
        b.position_at_end(bmap[blk]);
        for i in blk.instructions() {
            if i == call {
                continue;
            }
            if i.opcode() == Opcode::LLVMPHI {
                if *blk == l.header {
                    continue;
                }
                let p = b.phi(i.ty());
                p.set_name(&i.name());
                map.insert(i, p);
                phis.push((i, p));
                continue;
            }
            if i.is_terminator() && *blk == exiting && at_top {
                b.br(bmap[&in_loop_succ(i)]);
                continue;
            }
            if i.is_terminator() && *blk == latch {
                b.br(ret);
                continue;
            }
            let x = i.clone_instruction();
            for (k, v) in i.operands().into_iter().enumerate() {
                let m = if v.is_block() {
                    bmap.get(&v.as_block()).map(|nb| nb.as_value()).unwrap_or(v)
                } else {
                    mapv(&map, v)
                };
                x.set_operand(k as u32, m);
            }
            b.insert(x);
            if !x.ty().is_void() {
                x.set_name(&i.name());
            }
            map.insert(i, x);
        }
    }
    for (old, new) in &phis {
        for (v, blk) in old.incoming() {
            new.add_incoming(mapv(&map, v), bmap[&blk]);
        }
    }
    b.position_at_end(ret);
    for (p, k) in &cell.carried {
        let (v, _) = p
            .incoming()
            .into_iter()
            .find(|(_, blk)| *blk == latch)
            .expect("a header phi has an incoming value from the latch");
        let v = mapv(&map, v);
        let at = field(&mut b, cell.ty, sp[1], *k);
        cell_store(&mut b, v, at);
    }
    for (v, k) in &cell.outs {
        let x = mapv(&map, *v);
        let at = field(&mut b, cell.ty, sp[1], *k);
        cell_store(&mut b, x, at);
    }
    if fixed {
        // Another iteration when the latch's branch goes back to the header.
        let t = latch.terminator().expect("a latch ends in a branch");
        let cond = mapv(&map, t.operand(0));
        let again = if t.successors()[0] == l.header {
            cond
        } else {
            b.icmp(IntPred::LLVMIntEQ, cond, cond.ty().zero())
        };
        let again = b.cast(Opcode::LLVMZExt, again, i32t);
        b.ret(again);
    } else {
        b.ret_void();
    }

    // The call replacing the loop, at the end of the preheader.
    let pre_term = pre.terminator().expect("a preheader ends in a branch");
    b.position_before(pre_term);
    let malloc = module.get_or_add_function("malloc", Ty::function(ptr, &[i64t], false));
    let bytes = module.alloc_size(cell.ty).max(1);
    let cell_ptr = b.call_function(malloc, &[i64t.int_const(bytes)]);
    cell_ptr.set_name("ckpt.cell");
    for (p, k) in &cell.carried {
        let (v, _) = p
            .incoming()
            .into_iter()
            .find(|(_, blk)| *blk == pre)
            .expect("a header phi has an incoming value from the preheader");
        let at = field(&mut b, cell.ty, cell_ptr, *k);
        cell_store(&mut b, v, at);
    }
    let in_ptr = match cell.in_ty {
        Some(in_ty) => {
            let in_bytes = module.alloc_size(in_ty);
            let p = b.call_function(malloc, &[i64t.int_const(in_bytes)]);
            p.set_name("ckpt.inputs");
            for (v, k) in &cell.inputs {
                let at = field(&mut b, in_ty, p, *k);
                cell_store(&mut b, *v, at);
            }
            Some((p, i64t.int_const(in_bytes)))
        }
        None => None,
    };
    // The cell first: a fixed point's state, a checkpointed loop's first region.
    let mut regions: Vec<(Val, Val)> = vec![(cell_ptr, i64t.int_const(bytes))];
    let states = if fixed {
        regions.extend(marker.regions.iter().copied());
        let s = regions.len();
        regions.extend(in_ptr);
        s
    } else {
        regions.extend(in_ptr);
        regions.extend(marker.regions.iter().copied());
        0
    };
    for g in super::written_globals(step) {
        if !regions.iter().any(|r| super::strip_casts(r.0) == g) {
            regions.push((g, i64t.int_const(module.alloc_size(g.global_value_type()))));
        }
    }
    // The heap blocks the function allocates itself before the loop are whole regions (their
    // size is known): the loop attribute has no way to mark them.
    for v in &args_in {
        if let Some((base, size)) = allocation(&mut b, *v) {
            if !regions.iter().any(|r| r.0 == base) {
                regions.push((base, size));
            }
        }
    }
    let mut step_args = vec![cell_ptr, in_ptr.map_or(ptr.zero(), |p| p.0)];
    step_args.extend(args_in.iter().copied());
    let (looped, n) = match (&c, marker.scheme) {
        (None, Scheme::Fixed(reduction, max_iters, control)) => {
            let fp = fixed_point_call(
                module,
                &mut b,
                step,
                [reduction, max_iters, control],
                (&regions, states),
                &step_args,
            );
            fp.copy_debug_location(call);
            (fp.called_value(), None)
        }
        (Some(c), scheme) => {
            let n = trip_count(&mut b, c);
            let (scheme, config) = match scheme {
                Scheme::Given(s, cfg) => (s, cfg),
                Scheme::Mode(mode, snapshots) => builtin_scheme(module, &mut b, mode, snapshots, n),
                Scheme::Fixed(..) => unreachable!("a fixed point has no counter"),
            };
            let run = checkpoint_call(
                module,
                &mut b,
                step,
                (scheme, config, n),
                &regions,
                &step_args,
            );
            run.copy_debug_location(call);
            (run.called_value(), Some(n))
        }
        (None, _) => unreachable!("only a fixed point has no counter"),
    };

    // The values code after the loop reads.
    let mut exit_value: HashMap<Val, Val> = HashMap::new();
    if let (Some(c), Some(n)) = (&c, n) {
        let ivty = c.iv.ty();
        let n_iv = b.sext_or_trunc(n, ivty);
        let end = b.add(c.start, n_iv);
        if c.at_latch {
            exit_value.insert(c.next, end);
            let last = b.sub(end, ivty.int_const(1));
            exit_value.insert(c.iv, last);
        } else {
            exit_value.insert(c.iv, end);
            for (p, k) in &cell.carried {
                let at = field(&mut b, cell.ty, cell_ptr, *k);
                let x = cell_load(&mut b, p.ty(), at);
                exit_value.insert(*p, x);
            }
        }
    }
    for (v, k) in &cell.outs {
        let at = field(&mut b, cell.ty, cell_ptr, *k);
        let x = cell_load(&mut b, v.ty(), at);
        exit_value.insert(*v, x);
    }
    let mut values = Vec::new();
    for v in &read_after {
        let x = recompute(&mut b, *v, &l, &mut exit_value).ok_or_else(|| {
            refuse(
                call,
                f,
                format!(
                    "{} is computed in the loop's test block and read after the loop",
                    crate::diag::short(*v)
                ),
            )
        })?;
        values.push(x);
    }
    let free = module.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
    b.call_function(free, &[cell_ptr]);
    if let Some((p, _)) = in_ptr {
        b.call_function(free, &[p]);
    }
    pre_term.set_successor(0, exit);
    for (v, x) in read_after.iter().zip(values) {
        for u in v.users() {
            if l.defines(u) {
                continue;
            }
            for k in 0..u.num_operands() {
                if u.operand(k) == *v {
                    u.set_operand(k, x);
                }
            }
        }
    }
    // The exit block's only predecessor is now the preheader: its phis (one incoming value
    // each, from the exiting block) are that value. Last first: debug records LCSSA left on a
    // phi move to the next instruction when it goes, which must not be another phi.
    let phis: Vec<Val> = exit
        .instructions()
        .into_iter()
        .filter(|p| p.opcode() == Opcode::LLVMPHI)
        .collect();
    for p in phis.into_iter().rev() {
        p.replace_all_uses_with(p.operand(0));
        p.erase();
    }
    if !inside {
        erase_marker(call);
    }
    delete_loop(f, &ordered)?;
    Ok((step, looped))
}

/// Emits the call of the loop function of `step` (the scheme, its configuration and the number
/// of iterations given) with `regions` and the step's arguments.
fn checkpoint_call(
    module: Module,
    b: &mut Builder,
    step: Val,
    (scheme, config, n): (Val, Val, Val),
    regions: &[(Val, Val)],
    step_args: &[Val],
) -> Val {
    let i64t = Ty::int(module.context(), 64);
    let arg_tys: Vec<Ty> = step_args.iter().map(|a| a.ty()).collect();
    let looped = super::loop_function(module, step, false, regions.len(), &arg_tys, false);
    let mut sizes = Vec::new();
    let mut total = i64t.zero();
    for (_, bytes) in regions {
        let size = b.sext_or_trunc(*bytes, i64t);
        total = b.add(total, size);
        sizes.push(size);
    }
    let scheme = b.cast(Opcode::LLVMPtrToInt, scheme, i64t);
    let config = b.cast(Opcode::LLVMPtrToInt, config, i64t);
    let mut args = vec![
        i64t.zero(),
        n,
        scheme,
        config,
        i64t.int_const(regions.len() as u64),
        total,
    ];
    args.extend(regions.iter().map(|r| r.0));
    args.extend(sizes);
    args.extend(step_args.iter().copied());
    b.call_function(looped, &args)
}

/// Emits the call of the fixed-point function of `step`: the stopping rule of Enzyme's marker
/// (a negative reduction or number of passes: the defaults, `1e-12` and 1000; a null control:
/// none), the first `states` of `memory` as the state, the rest as regions.
fn fixed_point_call(
    module: Module,
    b: &mut Builder,
    step: Val,
    [reduction, max_iters, control]: [Val; 3],
    (memory, states): (&[(Val, Val)], usize),
    step_args: &[Val],
) -> Val {
    let ctx = module.context();
    let (i64t, f64t) = (Ty::int(ctx, 64), Ty::double(ctx));
    let reduction = if reduction.ty() == f64t {
        reduction
    } else {
        b.fp_cast(reduction, f64t)
    };
    let negative = b.fcmp(crate::ir::RealPred::LLVMRealOLT, reduction, f64t.zero());
    let reduction = b.select(negative, f64t.float_const(1e-12), reduction);
    let max_iters = b.sext_or_trunc(max_iters, i64t);
    let negative = b.icmp(IntPred::LLVMIntSLT, max_iters, i64t.zero());
    let max_iters = b.select(negative, i64t.int_const(1000), max_iters);
    let control = b.cast(Opcode::LLVMPtrToInt, control, i64t);
    let sizes: Vec<Val> = memory.iter().map(|m| b.sext_or_trunc(m.1, i64t)).collect();
    let mut ptys = vec![i64t; super::fixed_emit::FIXED];
    ptys.extend(std::iter::repeat_n(Ty::ptr(ctx), memory.len()));
    ptys.extend(std::iter::repeat_n(i64t, memory.len()));
    ptys.extend(step_args.iter().map(|a| a.ty()));
    let shape = (states, memory.len() - states);
    let fp = super::fixed::fixed_point_function(module, step, shape, &ptys, false);
    let bits = b.cast(Opcode::LLVMBitCast, reduction, i64t);
    let mut args = vec![bits, max_iters, control];
    args.extend(memory.iter().map(|m| m.0));
    args.extend(sizes);
    args.extend(step_args.iter().copied());
    b.call_function(fp, &args)
}

/// The value `v` (of the loop's header, tested at the top) has after the loop: known ones from
/// `known`, pure instructions of the header recomputed at `b` from them.
fn recompute(b: &mut Builder, v: Val, l: &Loop, known: &mut HashMap<Val, Val>) -> Option<Val> {
    if let Some(x) = known.get(&v) {
        return Some(*x);
    }
    if !l.defines(v) {
        return Some(v);
    }
    let pure = v.parent_block() == l.header
        && !matches!(
            v.opcode(),
            Opcode::LLVMPHI
                | Opcode::LLVMLoad
                | Opcode::LLVMStore
                | Opcode::LLVMCall
                | Opcode::LLVMAlloca
                | Opcode::LLVMAtomicRMW
                | Opcode::LLVMAtomicCmpXchg
                | Opcode::LLVMFence
                | Opcode::LLVMVAArg
        )
        && !v.is_terminator();
    if !pure {
        return None;
    }
    let ops = v.operands();
    let mut mapped = Vec::new();
    for o in &ops {
        mapped.push(recompute(b, *o, l, known)?);
    }
    let x = v.clone_instruction();
    for (k, m) in mapped.into_iter().enumerate() {
        x.set_operand(k as u32, m);
    }
    b.insert(x);
    known.insert(v, x);
    Some(x)
}

/// Deletes the loop's blocks, which nothing reaches any more: by LLVM's own pass, which also
/// drops the debug records left at their ends (deleted one instruction at a time, a block
/// keeps them as trailing records that a block later allocated at the same address inherits).
fn delete_loop(f: Val, blocks: &[Block]) -> Result<()> {
    debug_assert!(blocks.iter().all(|b| b.parent() == f));
    let optnone = f.has_fn_attr("optnone");
    if optnone {
        f.set_fn_attr("optnone", false);
    }
    let done = crate::ir::run_function_passes(f, "unreachableblockelim");
    if optnone {
        f.set_fn_attr("optnone", true);
    }
    done.map_err(|e| Error::in_function(f, format!("deleting an outlined loop failed: {e}")))
}

/// The scheme and configuration of Enzyme's `mode` (1 periodic, 2 binomial) with `snapshots`
/// (0: the square root of `n`, at least 1): the scheme from `umbra/checkpoint.h`'s
/// [`BUILTIN_SCHEME`], the configuration a private global of `EnzymeCkptConfig`'s layout.
fn builtin_scheme(
    module: Module,
    b: &mut Builder,
    mode: u64,
    snapshots: u64,
    n: Val,
) -> (Val, Val) {
    let ctx = module.context();
    let (i64t, i32t, ptr) = (Ty::int(ctx, 64), Ty::int(ctx, 32), Ty::ptr(ctx));
    let get = module.get_or_add_function(BUILTIN_SCHEME, Ty::function(ptr, &[i64t], false));
    let scheme = b.call_function(get, &[i64t.int_const(mode)]);
    // { snapshots, verbose, spill_dir, mem_budget, stats }
    let cty = Ty::literal_struct(ctx, &[i64t, i32t, ptr, i64t, ptr]);
    let config = module.add_global(cty, "umbra.ckpt.config");
    config.set_initializer(cty.zero());
    config.set_internal();
    let count = if snapshots > 0 {
        i64t.int_const(snapshots)
    } else {
        let d = Ty::double(ctx);
        let x = b.cast(Opcode::LLVMSIToFP, n, d);
        let r = b.call_libm("sqrt", &[x]);
        let r = b.cast(Opcode::LLVMFPToSI, r, i64t);
        let small = b.icmp(IntPred::LLVMIntSLT, r, i64t.int_const(1));
        b.select(small, i64t.int_const(1), r)
    };
    b.store(count, config, 0);
    (scheme, config)
}

/// The allocation `p` points into when it is a `malloc(size)` or `calloc(n, size)` of the
/// function (through address arithmetic), with its size in bytes (emitted at `b`).
fn allocation(b: &mut Builder, p: Val) -> Option<(Val, Val)> {
    let mut v = p;
    while v.is_instruction()
        && matches!(v.opcode(), Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast)
    {
        v = v.operand(0);
    }
    if !v.is_instruction() || !v.is_call() {
        return None;
    }
    let name = v.called_function()?.name();
    let args = v.call_args();
    let i64t = Ty::int(v.ty().context(), 64);
    match (name.as_str(), args.as_slice()) {
        ("malloc", [n]) => Some((v, b.zext_or_trunc(*n, i64t))),
        ("calloc", [n, m]) => {
            let n = b.zext_or_trunc(*n, i64t);
            let m = b.zext_or_trunc(*m, i64t);
            Some((v, b.mul(n, m)))
        }
        _ => None,
    }
}
