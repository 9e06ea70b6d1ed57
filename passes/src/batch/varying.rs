//! Which values of a batched function differ between lanes: those computed from a
//! lane-varying parameter, loaded through a lane-varying pointer, or returned by a call given a
//! lane-varying argument; and each lane's own memory (stack slots, heap allocations), so that
//! lanes never share scratch space. Everything else is shared: emitted once for all lanes.
//!
//! Memory needs no tracking beyond this: a lane-varying value is never stored where every lane
//! can see it (the batcher refuses that), so a load through a shared pointer reads the same
//! value in every lane.

use crate::analysis::cfg::reverse_post_order;
use crate::ir::{Opcode, Val};
use std::collections::HashSet;

/// The values of `f` that differ between lanes when the parameters flagged in `varies` do.
pub fn varying(f: Val, varies: &[bool]) -> HashSet<Val> {
    let mut out: HashSet<Val> = f
        .params()
        .into_iter()
        .zip(varies)
        .filter(|(_, &v)| v)
        .map(|(p, _)| p)
        .collect();
    let order = reverse_post_order(f);
    // Phis of loops see values defined later: iterate to the fixed point.
    loop {
        let mut changed = false;
        for b in &order {
            for i in b.instructions() {
                if !out.contains(&i) && varies_at(i, &out) {
                    out.insert(i);
                    changed = true;
                }
            }
        }
        if !changed {
            return out;
        }
    }
}

/// True when instruction `i` differs between lanes, given the values `out` known to.
fn varies_at(i: Val, out: &HashSet<Val>) -> bool {
    match i.opcode() {
        Opcode::LLVMAlloca => true,
        Opcode::LLVMCall | Opcode::LLVMInvoke => {
            i.call_args().iter().any(|a| out.contains(a)) || is_allocation(i)
        }
        Opcode::LLVMPHI => i.incoming().iter().any(|(v, _)| out.contains(v)),
        _ => i.operands().iter().any(|o| out.contains(o)),
    }
}

/// True for a call returning fresh memory (`malloc`, `calloc`, `operator new`, ...): each lane
/// gets its own, as it gets its own stack slots.
pub fn is_allocation(call: Val) -> bool {
    crate::rules::lookup_call(call).is_some_and(|r| r.effects.allocates)
}
