//! Exceptions in derived code (Enzyme's approach). A source `invoke` is visited as the
//! equivalent `call` ([`crate::ir::Val::clone_instruction`] clones an invoke into one), so every
//! visitor and rule emits its derivative code after it unchanged; then each call emitted for
//! it that may unwind becomes an `invoke` whose normal destination continues the derived code
//! and whose unwind destination is the derived copy of the source's landing pad, and the derived
//! code branches to the normal destination. The landing pads themselves run the primal's
//! cleanup code (forward mode also releases the shadows that cleanup frees) and `resume`.
//!
//! Reverse mode differentiates the normal path only (see `reverse::cfg`): when an exception
//! propagates out of a gradient request, no adjoint runs and the exception reaches the request's
//! caller. On its way out, the guard around the forward sweep frees the tape and the blocks the
//! sweep allocated for the adjoint (`tape::owned`).

use crate::ir::{Block, Builder, Module, Ty, Val};
use std::collections::HashSet;

/// Where the code emitted for one source instruction starts, to find the calls it emitted.
pub struct Span {
    block: Block,
    /// The last instruction before the span in `block` (`None`: the span starts the block).
    before: Option<Val>,
    blocks: HashSet<Block>,
}

impl Span {
    /// A span starting at the builder's position (the end of its block).
    pub fn begin(b: &Builder) -> Span {
        let block = b.current_block();
        let before = block.instructions().last().copied();
        Span::new(block, before)
    }

    /// A span starting right before instruction `at`.
    pub fn before(at: Val) -> Span {
        Span::new(at.parent_block(), at.previous_instruction())
    }

    fn new(block: Block, before: Option<Val>) -> Span {
        let blocks = block.parent().blocks().into_iter().collect();
        Span {
            block,
            before,
            blocks,
        }
    }

    /// The plain calls emitted since the span began that may unwind, in order: those after the
    /// start in the first block, then those in blocks created since.
    fn unwinding_calls(&self) -> Vec<Val> {
        let mut out = Vec::new();
        let mut i = match self.before {
            Some(p) => p.next_instruction(),
            None => self.block.first_instruction(),
        };
        while let Some(x) = i {
            if x.call_may_unwind() {
                out.push(x);
            }
            i = x.next_instruction();
        }
        for b in self.block.parent().blocks() {
            if !self.blocks.contains(&b) {
                out.extend(b.instructions().into_iter().filter(|x| x.call_may_unwind()));
            }
        }
        out
    }

    /// Turns every call emitted in the span that may unwind into an `invoke` unwinding to
    /// `unwind`, and positions `b` where its code continued (the end of the last continuation
    /// block when `b` was at the end of a block that got split).
    pub fn invoke_unwinding_calls(&self, b: &mut Builder, unwind: Block) -> Invoked {
        let mut current = b.current_block();
        let at_end = current.terminator().is_none();
        let mut out = Invoked::default();
        for call in self.unwinding_calls() {
            let from = call.parent_block();
            let (inv, cont) = to_invoke(b.module(), call, unwind);
            out.preds.push(inv.parent_block());
            out.replaced.push((call, inv));
            if from == current {
                current = cont;
            }
        }
        if at_end {
            b.position_at_end(current);
        }
        out
    }
}

/// What [`Span::invoke_unwinding_calls`] did.
#[derive(Default)]
pub struct Invoked {
    /// The blocks now ending in the new invokes: the landing pad's new predecessors.
    pub preds: Vec<Block>,
    /// (erased call, the invoke replacing it): maps holding the calls must follow.
    pub replaced: Vec<(Val, Val)>,
}

/// Replaces plain call `call` by an `invoke` of the same callee, arguments and attributes
/// unwinding to `unwind`; the instructions after it move to a new block, the normal
/// destination. Returns the invoke and that block.
fn to_invoke(module: Module, call: Val, unwind: Block) -> (Val, Block) {
    let block = call.parent_block();
    let cont = block.parent().append_block("invoke.cont");
    let mut b = Builder::new(module);
    b.position_at_end(cont);
    let mut next = call.next_instruction();
    while let Some(x) = next {
        next = x.next_instruction();
        x.remove_from_parent();
        b.insert(x);
    }
    // The moved terminator's successors now come from `cont`.
    for s in cont.successors() {
        rewrite_phi_edges(s, block, &[cont]);
    }
    b.position_at_end(block);
    let args = call.call_args();
    let inv = b.invoke(
        call.call_function_type(),
        call.called_value(),
        &args,
        cont,
        unwind,
    );
    inv.copy_call_site(call);
    if !call.ty().is_void() {
        let name = call.name();
        call.replace_all_uses_with(inv);
        inv.set_name(&name);
    }
    call.erase();
    (inv, cont)
}

/// Rewrites the phis of `block`: the incoming entry from `from` is replaced by one entry per
/// block of `to` with the same value (none when `to` is empty). The C API cannot retarget an
/// incoming edge, so each phi is rebuilt (keeping its name, debug location and fast-math
/// flags); returns each rebuilt phi with its replacement.
pub fn rewrite_phi_edges(block: Block, from: Block, to: &[Block]) -> Vec<(Val, Val)> {
    let phis: Vec<Val> = block
        .instructions()
        .into_iter()
        .take_while(|i| i.opcode() == crate::ir::Opcode::LLVMPHI)
        .collect();
    let mut rebuilt = Vec::new();
    if phis.is_empty() {
        return rebuilt;
    }
    let mut b = Builder::new(block.parent().module());
    for p in phis {
        let incoming = p.incoming();
        if !incoming.iter().any(|&(_, blk)| blk == from) {
            continue;
        }
        b.position_before(p);
        let q = b.phi(p.ty());
        for (v, blk) in incoming {
            if blk == from {
                for &t in to {
                    q.add_incoming(v, t);
                }
            } else {
                q.add_incoming(v, blk);
            }
        }
        q.copy_debug_location(p);
        q.add_fast_math_flags(p.fast_math_flags());
        let name = p.name();
        p.replace_all_uses_with(q);
        p.erase();
        q.set_name(&name);
        rebuilt.push((p, q));
    }
    rebuilt
}

/// Ends the current block with a fatal run-time error: `message` on standard error, then
/// `abort`. For paths the derived code cannot follow, which must not return wrong derivatives.
pub fn emit_fatal(b: &mut Builder, message: &str) {
    emit_fatal_call(b, message);
    b.unreachable();
}

/// A fatal run-time error (`message` on standard error, then `abort`) in the middle of a block:
/// the code after it is never reached, and the caller goes on emitting the block's rest.
pub fn emit_fatal_call(b: &mut Builder, message: &str) {
    let m = b.module();
    let (text, len) = fatal_text(m, message);
    let len = m.intptr_ty().int_const(len);
    emit_fatal_text(b, text, len);
}

/// A constant global holding the line `umbra: <message>` as a fatal run-time error prints it,
/// and its length in bytes.
pub fn fatal_text(m: Module, message: &str) -> (Val, u64) {
    let text = format!("umbra: {message}\n");
    let arr = Val::const_string_in(m.context(), &text);
    let g = m.add_global(arr.ty(), "umbra.fatal");
    g.set_initializer(arr);
    g.set_global_constant(true);
    g.set_internal();
    (g, text.len() as u64)
}

/// A fatal run-time error printing the `len` (an `intptr`) bytes at `text` (a
/// [`fatal_text`]): `write` to standard error, then `abort`.
pub fn emit_fatal_text(b: &mut Builder, text: Val, len: Val) {
    let m = b.module();
    let ctx = m.context();
    let i32t = Ty::int(ctx, 32);
    let intptr = m.intptr_ty();
    let ptr = Ty::ptr(ctx);
    let write = m.get_or_add_function("write", Ty::function(intptr, &[i32t, ptr, intptr], false));
    b.call_function(write, &[i32t.int_const(2), text, len]);
    let abort = m.get_or_add_function("abort", Ty::function(Ty::void(ctx), &[], false));
    b.call_function(abort, &[]);
}
