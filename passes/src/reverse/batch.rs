//! Batched tape traffic: the values a run of instructions in one block tapes go onto the tape
//! in one push (one capacity check) instead of one push each, and come back in one pop. In
//! unrolled and vectorised loop bodies, which tape tens of values per iteration, this removes
//! most of the tape's bookkeeping from the hot path.
//!
//! Both sweeps derive the same batches from the source block ([`batches`]), so the byte layout
//! the augmented sweep writes is exactly the one the adjoint reads. A batch is a maximal run of
//! consecutive instructions that are not *barriers*: calls that may push onto the tape
//! themselves (derived callees, user rules, hand-written rules that save a value, invokes)
//! and terminators ([`ReversePlan::is_barrier`]). Barriers keep their own, unbatched pushes, so the tape stays in LIFO order
//! around them.

use super::needs::Need;
use super::plan::ReversePlan;
use crate::analysis::activity::ActiveSet;
use crate::ir::{Block, Module, Opcode, Val};
use crate::rules::user::UserRules;
use std::collections::HashMap;

/// One batch: its instructions' taped needs at byte offsets in one tape slot.
pub struct Batch {
    /// Per member instruction (forward order), its needs in push order with their offsets.
    pub layout: Vec<(Val, Vec<(Need, u64)>)>,
    /// Total bytes.
    pub bytes: u64,
    /// Where each distinct need is written.
    offsets: HashMap<Need, u64>,
}

impl Batch {
    /// The last member in forward order: the adjoint pops the batch where it reverses it.
    pub fn last(&self) -> Option<Val> {
        self.layout.last().map(|(i, _)| *i)
    }
}

/// The batches of block `b` with at least one taped value, and for each batched instruction
/// the index of its batch.
pub fn batches(
    m: Module,
    b: Block,
    active: &ActiveSet,
    rules: &UserRules,
    plan: &ReversePlan,
) -> (Vec<Batch>, HashMap<Val, usize>) {
    let mut out: Vec<Batch> = Vec::new();
    let mut member = HashMap::new();
    let mut current = Batch {
        layout: Vec::new(),
        bytes: 0,
        offsets: HashMap::new(),
    };
    let close = |current: &mut Batch, out: &mut Vec<Batch>, member: &mut HashMap<Val, usize>| {
        if current.bytes > 0 {
            for (i, _) in &current.layout {
                member.insert(*i, out.len());
            }
            out.push(std::mem::replace(
                current,
                Batch {
                    layout: Vec::new(),
                    bytes: 0,
                    offsets: HashMap::new(),
                },
            ));
        } else {
            current.layout.clear();
            current.offsets.clear();
        }
    };
    for i in b.instructions() {
        if i.opcode() == Opcode::LLVMPHI {
            continue;
        }
        if plan.is_barrier(i, active, rules) {
            close(&mut current, &mut out, &mut member);
            continue;
        }
        let needs = plan.taped_needs(i, active, rules);
        if needs.is_empty() {
            continue;
        }
        let mut placed = Vec::new();
        for n in needs {
            // A value several members need (a load's result used by a product and a libm
            // call) is written once; each member's layout points at the same bytes.
            if let Some(&off) = current.offsets.get(&n) {
                placed.push((n, off));
                continue;
            }
            let ty = match n {
                Need::Primal(v) | Need::Shadow(v) => v.ty(),
                // Saved values come from custom rules, which are barriers.
                Need::Saved(_) => crate::ir::Ty::ptr(m.context()),
            };
            placed.push((n, current.bytes));
            current.offsets.insert(n, current.bytes);
            current.bytes += m.alloc_size(ty);
        }
        current.layout.push((i, placed));
    }
    close(&mut current, &mut out, &mut member);
    (out, member)
}
