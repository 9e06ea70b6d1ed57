//! Scoped-noalias metadata on a reverse-mode pair's loads and stores: an access through a
//! primal pointer parameter, one through a shadow parameter and one into the tape never
//! overlap one another.
//!
//! Without it the optimiser must assume that adding into the shadow `d.x[i]` may change the
//! primal `y[j]` the adjoint reads next, so it can neither reorder nor vectorise an adjoint loop
//! (`d.x[i] += 2 * x[i]` stays scalar where the hand-written `g[i] = 2 * x[i]` is vectorised).
//!
//! What it claims rests on the calling convention (docs/guide/modes.md): a shadow is memory of
//! its own, disjoint from the memory the function uses as primal. Umbra keeps it too: the
//! shadows it makes are fresh memory, and the few shadows that are the primal pointer itself
//! (vtables, tables of functions, null or dangling addresses, [`crate::clone::substitute_shadow`])
//! are never written through, so no reordering of accesses to them changes a result. The tape
//! is memory only Umbra's helpers hand out (`umbra.tape.push`, `umbra.tape.pop`: a chunk from
//! the pool or the request's stack chunk), never the program's.
//!
//! Guarantees: only a load or store whose address is based, through GEPs, casts, phis and
//! selects, on one class alone (primal pointer parameters, shadow parameters, or what a tape
//! helper returned) is marked; every other access (through a pointer loaded from memory, a
//! stack slot, a call's result) keeps no scoped metadata and aliases as before. Loaded
//! pointers are not followed: a shadow struct may hold the primal's own pointer where a user
//! shared an integer array. The scopes are self-referential (distinct) nodes, so the inliner
//! clones them per inlined call: the claim never spans two calls, such as two requests in one
//! function where one's shadow is the other's primal.

use std::collections::{HashMap, HashSet};

use crate::ir::{new_alias_scopes, Opcode, Val};
use crate::signature::paired_params;
use crate::vocab::Activity;

/// The kinds of memory a reverse-mode function accesses that never overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Primal,
    Shadow,
    Tape,
}

/// The prefix of the tape helpers whose pointer results address the tape (`tape/mod.rs`).
const TAPE_HELPERS: &str = "umbra.tape.";

/// What the walk from an address back to the parameters found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Found {
    /// Based on parameters of this class only.
    Only(Class),
    /// Only the phi being walked (a loop-carried address): no evidence either way.
    Cycle,
    /// Based on something else, or on both classes.
    Unknown,
}

/// Addresses followed back from one access at most (longer chains are left unmarked).
const WALK_LIMIT: usize = 256;

/// Marks the accesses of the augmented sweep and the adjoint of `src` for `activity` (both
/// take the tape first, then each parameter and its shadow: [`paired_params`]).
pub fn mark_pair(src: Val, activity: &[Activity], augmented: Val, adjoint: Val) {
    for f in [augmented, adjoint] {
        let mut classes = HashMap::new();
        for (_, p, shadow) in paired_params(src, f, activity, 1) {
            let Some(s) = shadow else { continue };
            if p.ty().is_ptr() && s.ty().is_ptr() {
                classes.insert(p, Class::Primal);
                classes.insert(s, Class::Shadow);
            }
        }
        mark(f, &classes);
    }
}

/// Marks the loads and stores of `f` whose address is based on parameters of one class.
fn mark(f: Val, classes: &HashMap<Val, Class>) {
    if f.blocks().is_empty() {
        return;
    }
    let scopes = new_alias_scopes(
        f,
        &format!("umbra: {}", f.name()),
        &["primal memory", "shadow memory", "tape"],
    );
    let (primal, shadow, tape) = (scopes[0], scopes[1], scopes[2]);
    let mut walk = Walk {
        classes,
        memo: HashMap::new(),
        visiting: HashSet::new(),
        steps: 0,
    };
    for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
        let address = match i.opcode() {
            Opcode::LLVMLoad => i.operand(0),
            Opcode::LLVMStore => i.operand(1),
            _ => continue,
        };
        if i.has_alias_scopes() {
            continue;
        }
        walk.steps = 0;
        match walk.class_of(address).0 {
            Found::Only(Class::Primal) => i.set_alias_scopes(&[primal], &[shadow, tape]),
            Found::Only(Class::Shadow) => i.set_alias_scopes(&[shadow], &[primal, tape]),
            Found::Only(Class::Tape) => i.set_alias_scopes(&[tape], &[primal, shadow]),
            Found::Cycle | Found::Unknown => {}
        }
    }
}

struct Walk<'a> {
    classes: &'a HashMap<Val, Class>,
    /// Results that did not depend on a phi still being walked.
    memo: HashMap<Val, Found>,
    visiting: HashSet<Val>,
    steps: usize,
}

impl Walk<'_> {
    /// What address `v` is based on, and whether that was decided while a phi it depends on
    /// was still being walked (such a result is not final, so it is not remembered).
    fn class_of(&mut self, v: Val) -> (Found, bool) {
        if v.is_argument() {
            let found = self
                .classes
                .get(&v)
                .map_or(Found::Unknown, |&c| Found::Only(c));
            return (found, false);
        }
        if !v.is_instruction() {
            return (Found::Unknown, false);
        }
        if let Some(&found) = self.memo.get(&v) {
            return (found, false);
        }
        if self.visiting.contains(&v) {
            return (Found::Cycle, true);
        }
        self.steps += 1;
        if self.steps > WALK_LIMIT {
            return (Found::Unknown, true);
        }
        let bases: Vec<Val> = match v.opcode() {
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => {
                vec![v.operand(0)]
            }
            Opcode::LLVMPHI => v.incoming().into_iter().map(|(x, _)| x).collect(),
            Opcode::LLVMSelect => vec![v.operand(1), v.operand(2)],
            Opcode::LLVMCall if is_tape_helper_call(v) => return (Found::Only(Class::Tape), false),
            _ => return (Found::Unknown, false),
        };
        self.visiting.insert(v);
        let mut found = Found::Cycle;
        let mut tentative = false;
        for b in bases {
            let (f, t) = self.class_of(b);
            tentative |= t;
            found = join(found, f);
            if found == Found::Unknown {
                break;
            }
        }
        self.visiting.remove(&v);
        // A result that leaned on a phi being walked (other than through `v` itself, which is
        // now done) may change once that phi is decided.
        let still_open = tentative && !self.visiting.is_empty();
        if !still_open {
            self.memo.insert(v, found);
        }
        (found, still_open)
    }
}

/// True when `v` calls one of Umbra's tape helpers (its result addresses the tape).
fn is_tape_helper_call(v: Val) -> bool {
    v.called_function()
        .is_some_and(|f| f.name().starts_with(TAPE_HELPERS))
}

fn join(a: Found, b: Found) -> Found {
    match (a, b) {
        (Found::Cycle, x) | (x, Found::Cycle) => x,
        (Found::Only(x), Found::Only(y)) if x == y => a,
        _ => Found::Unknown,
    }
}

#[cfg(test)]
mod tests;
