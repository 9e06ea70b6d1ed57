//! What the overwrite analysis may assume of an OpenMP outlined function (a parallel region's
//! body, run by `__kmpc_fork_call`): which of its parameters are stack slots of the function
//! that forks it, and what such a slot may hold.
//!
//! clang passes a region's shared variables by address: `&x` for every variable the body
//! names, so a pointer argument `p` of the forking function reaches the body as a slot holding
//! `p`, and the body loads `p` from it before reading the data. Those slots die with the
//! forking function's augmented sweep, and a pointer loaded from memory is of unknown origin,
//! so without more facts every read through them was taped per access (a docking kernel: a
//! kilobyte per inner iteration and thread, nothing serially).
//!
//! # Facts (checked at every fork site; any failure drops the parameter's facts)
//! A parameter `q` of the outlined function `g` is a *parent slot* when `g` is used only as
//! the microtask of `__kmpc_fork_call`s and at each of them the argument for `q` is an
//! `alloca` of the forking function that is used only by loads, by stores *into* it of values
//! that are not stack addresses (arguments, globals, null, scalars), by lifetime markers, and
//! as that very argument of forks of `g` (never twice in one fork). Then:
//! - no other pointer the body can see points into the slot, unless the body lets `q` escape;
//! - a slot the body only loads from (a *read-only slot*) holds, while the body runs, a value
//!   the forking function stored: a load of a pointer from it (*from the parent*) is no stack
//!   address of either function, and points to none of the body's own allocas or allocations.
//!
//! # Concurrency
//! Threads of the team run the body at once: a store of another thread may land between this
//! thread's load and its adjoint even when the store comes earlier in the code (a second
//! critical section reading what a first one wrote). The analysis of a region with these facts
//! therefore counts every writer of the body as running after every load, and drops the index
//! reasoning (whose "later iteration" is no later in time on another thread).

use crate::ir::{Opcode, Val};
use std::collections::HashSet;

/// The facts about one outlined function's parameters (see the module comment).
#[derive(Clone, Debug)]
pub(super) struct RegionFacts {
    /// The outlined function.
    pub function: Val,
    /// Parameters that are parent slots.
    pub slots: HashSet<Val>,
    /// Parent slots the body only loads from.
    pub read_only: HashSet<Val>,
}

impl RegionFacts {
    /// The facts for `g`, `None` unless `g` is an outlined function run only by forks.
    pub fn of(g: Val) -> Option<RegionFacts> {
        let forks = forks_of(g)?;
        let params = g.params();
        let mut facts = RegionFacts {
            function: g,
            slots: HashSet::new(),
            read_only: HashSet::new(),
        };
        for (k, &q) in params.iter().enumerate().skip(2) {
            if !q.ty().is_ptr() {
                continue;
            }
            let all = forks.iter().all(|&c| {
                c.call_args()
                    .get(k + 1)
                    .is_some_and(|&a| is_parent_slot(a, c, k + 1, g))
            });
            if all {
                facts.slots.insert(q);
                if q.users().into_iter().all(|u| {
                    u.opcode() == Opcode::LLVMLoad && u.operand(0) == q && !u.is_volatile()
                }) {
                    facts.read_only.insert(q);
                }
            }
        }
        Some(facts)
    }

    /// True when `o` is a pointer the body loaded from a read-only parent slot.
    pub fn loaded_from_parent(&self, o: Val) -> bool {
        o.is_instruction()
            && o.opcode() == Opcode::LLVMLoad
            && !o.is_volatile()
            && self.read_only.contains(&o.operand(0))
    }

    /// The forking function's allocas passed as parent slots at fork `call` of `g`.
    pub fn slot_allocas(&self, call: Val, g: Val) -> HashSet<Val> {
        let params = g.params();
        call.call_args()
            .into_iter()
            .enumerate()
            .skip(3)
            .filter(|&(k, _)| params.get(k - 1).is_some_and(|q| self.slots.contains(q)))
            .map(|(_, a)| a)
            .collect()
    }
}

/// The forks running `g`, when those are its only uses (`None` otherwise, or when it has none).
fn forks_of(g: Val) -> Option<Vec<Val>> {
    if !g.is_function() || g.is_declaration() || !g.is_local_linkage() {
        return None;
    }
    let mut forks = Vec::new();
    for u in g.users() {
        if !u.is_instruction() || crate::openmp::outlined(u) != Some(g) {
            return None;
        }
        // `g` only as the microtask, never among the captured arguments.
        let args = u.call_args();
        if args.iter().enumerate().any(|(k, &a)| a == g && k != 2) {
            return None;
        }
        forks.push(u);
    }
    (!forks.is_empty()).then_some(forks)
}

/// True when `a`, argument `k` of fork `call` of `g`, is a slot of the forking function used as
/// the module comment requires.
fn is_parent_slot(a: Val, call: Val, k: usize, g: Val) -> bool {
    if !a.is_instruction() || a.opcode() != Opcode::LLVMAlloca {
        return false;
    }
    // Passed once to this fork.
    if call.call_args().iter().filter(|&&x| x == a).count() != 1 {
        return false;
    }
    a.users().into_iter().all(|u| {
        if !u.is_instruction() {
            return false;
        }
        match u.opcode() {
            Opcode::LLVMLoad => u.operand(0) == a && !u.is_volatile(),
            Opcode::LLVMStore => {
                u.operand(1) == a
                    && u.operand(0) != a
                    && !u.is_volatile()
                    && stores_no_stack(u.operand(0))
            }
            Opcode::LLVMCall if crate::openmp::is_fork(u) => {
                crate::openmp::outlined(u) == Some(g)
                    && u.call_args()
                        .iter()
                        .enumerate()
                        .all(|(j, &x)| x != a || j == k)
                    && u.call_args().iter().filter(|&&x| x == a).count() == 1
            }
            // Lifetime markers and other calls that keep no operand and write nothing a load
            // sees.
            Opcode::LLVMCall => {
                crate::rules::lookup_call(u).is_some_and(|r| r.effects.lifetime || r.effects.inert)
            }
            _ => false,
        }
    })
}

/// True when storing `v` into a slot leaves no stack address there: a non-pointer value, or a
/// pointer whose every underlying object is an argument, a global, a function or null.
fn stores_no_stack(v: Val) -> bool {
    if !v.ty().contains_ptr() {
        return true;
    }
    if !v.ty().is_ptr() {
        return false;
    }
    super::underlying_objects(v).into_iter().all(|o| {
        o.is_argument()
            || o.is_global_variable()
            || o.is_function()
            || (o.is_constant() && o.is_null_constant())
    })
}

#[cfg(test)]
mod tests {
    use super::super::{OverwriteContext, Overwrites};
    use crate::ir::{parse_test_module, Module, Opcode, Val};
    use crate::rules::user::UserRules;
    use inkwell::context::Context;

    /// A parent `@f` forking `@g` with two shared pointers `x` and `acc`, each in a slot;
    /// `STORED` is what goes into the first slot, `AFTER` what `@f` does after the fork.
    const MODULE: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
declare void @__kmpc_fork_call(ptr, i32, ptr, ...)

define internal void @g(ptr noalias %gt, ptr noalias %bt, ptr %xs, ptr %as) {
entry:
  %x = load ptr, ptr %xs
  %a = load ptr, ptr %as
  %t = load i32, ptr %gt
  %one = icmp eq i32 %t, 1
  br i1 %one, label %write, label %read
write:
  store double 7.0, ptr %a
  br label %done
read:
  %v = load double, ptr %x
  br label %done
done:
  ret void
}

define double @f(ptr %x, ptr %acc) {
  %buf = alloca double
  %xs = alloca ptr
  %as = alloca ptr
  store ptr STORED, ptr %xs
  store ptr %acc, ptr %as
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr null, i32 2, ptr @g, ptr %xs, ptr %as)
  AFTER
  ret double 0.0
}
"#;

    /// (the fork is stable for `@f`, `%v` of `@g` is re-read) with memory stable in `@f`, and
    /// in `@g` when the fork is.
    fn verdicts(stored: &str, after: &str, noalias_acc: bool) -> (bool, bool) {
        let ctx = Context::create();
        let mut text = MODULE.replace("STORED", stored).replace("AFTER", after);
        if noalias_acc {
            // A second region body reading through x only: no store of the region may alias.
            text = text.replace("store double 7.0, ptr %a", "store double 7.0, ptr %bt");
        }
        let module = parse_test_module(&ctx, &text);
        let m = Module(module.as_mut_ptr());
        m.verify().expect("valid test IR");
        let (f, g) = (m.function("f").expect("@f"), m.function("g").expect("@g"));
        let rules = UserRules::default();
        let parent = Overwrites::analyze(f, OverwriteContext::stable(true), &rules);
        let fork = f
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .find(|i| i.opcode() == Opcode::LLVMCall)
            .expect("the fork");
        let stable = parent.fork_stable(fork, g);
        let body = Overwrites::analyze(g, OverwriteContext::stable(stable), &rules);
        let v: Val = g
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .find(|i| i.name() == "v")
            .expect("%v");
        (stable, body.rereadable(v))
    }

    #[test]
    fn memory_the_caller_stored_before_the_fork_is_re_read() {
        assert_eq!(verdicts("%x", "", true), (true, true));
    }

    /// Thread 1 may store after thread 0's load although the store comes first in the code.
    #[test]
    fn a_store_of_another_thread_counts_wherever_it_stands() {
        assert_eq!(verdicts("%x", "", false), (true, false));
    }

    #[test]
    fn a_write_after_the_fork_makes_the_region_tape() {
        assert_eq!(
            verdicts("%x", "store double 0.0, ptr %x", true),
            (false, false)
        );
        // A store into the region's slots after the fork changes nothing it re-reads.
        assert_eq!(
            verdicts("%x", "store ptr null, ptr %xs", true),
            (true, true)
        );
    }

    /// A slot holding a stack address: the region would re-read a dead frame.
    #[test]
    fn a_slot_holding_a_stack_address_is_no_parent_slot() {
        assert_eq!(verdicts("%buf", "", true), (false, false));
    }
}
