//! Which functions a differentiation run left alone, so the re-optimisation afterwards can skip
//! them ([`crate::reoptimize`]): the primal code came out of the host's optimisation pipeline
//! already (clang's `-O2` before `umbra`, or the pipeline the plugin runs at the end of), and
//! optimising it a second time only costs compile time.
//!
//! A function is *untouched* when it was defined before the run, its body is unchanged (same
//! instructions with the same operands, compared by a fingerprint taken before and after), and
//! no new or changed function refers to it, directly or through constants and global
//! initializers (a vtable): those references are what the inliner, devirtualisation and
//! interprocedural passes could pull into the derived code, so everything reachable from the
//! changed code is optimised as before.
//!
//! The baseline is the module after canonicalisation ([`crate::preprocess`]): SROA, CSE and
//! loop-simplify on optimised code leave it optimised, so a primal function that was only
//! canonicalised is untouched. A function that did not look optimised *before*
//! canonicalisation (a local every optimising pipeline would have turned into a register:
//! `clang -O1 -Xclang -disable-llvm-passes`, or `-O0 -Xclang -disable-O0-optnone`) is never
//! untouched, so unoptimised input still comes out optimised.

use crate::ir::{Module, Opcode, Val};
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

/// The defined functions of `module` that do not look optimised: their entry block holds an
/// alloca used only by plain loads and stores of it (and lifetime markers), a local every
/// optimising pipeline promotes to a register.
pub fn unoptimised(module: Module) -> HashSet<Val> {
    module
        .functions()
        .into_iter()
        .filter(|f| !f.is_declaration() && looks_unoptimised(*f))
        .collect()
}

fn looks_unoptimised(f: Val) -> bool {
    f.entry_block().instructions().into_iter().any(|a| {
        a.opcode() == Opcode::LLVMAlloca
            && a.users().into_iter().all(|u| match u.opcode() {
                Opcode::LLVMLoad => !u.is_volatile(),
                Opcode::LLVMStore => u.operand(1) == a && u.operand(0) != a && !u.is_volatile(),
                Opcode::LLVMCall => u
                    .called_function()
                    .is_some_and(|g| g.name().starts_with("llvm.lifetime.")),
                _ => false,
            })
    })
}

/// The bodies of a module's defined functions at the start of a run, by fingerprint.
pub struct Snapshot {
    before: HashMap<Val, u64>,
}

impl Snapshot {
    /// Fingerprints every defined function of `module` except those in `unoptimised` (from
    /// [`unoptimised`], taken before canonicalisation), which are never untouched.
    pub fn take(module: Module, unoptimised: &HashSet<Val>) -> Snapshot {
        let before = module
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration() && !unoptimised.contains(f))
            .map(|f| (f, fingerprint(f)))
            .collect();
        Snapshot { before }
    }

    /// The defined functions of `module` that are untouched since [`Snapshot::take`] (see the
    /// module doc), in module order.
    pub fn untouched(&self, module: Module) -> Vec<Val> {
        let defined: Vec<Val> = module
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration())
            .collect();
        // A function deleted during the run may have left its address to a new one: the
        // fingerprint, over the new body's instructions, tells them apart.
        let changed: Vec<Val> = defined
            .iter()
            .copied()
            .filter(|f| self.before.get(f) != Some(&fingerprint(*f)))
            .collect();
        let reached = referenced_closure(changed);
        defined
            .into_iter()
            .filter(|f| !reached.contains(f))
            .collect()
    }
}

/// A hash of `f`'s body: per instruction its opcode and operands (values by identity), so any
/// instruction added, removed or rewired changes it.
fn fingerprint(f: Val) -> u64 {
    let mut h = DefaultHasher::new();
    for b in f.blocks() {
        b.hash(&mut h);
        for i in b.instructions() {
            i.hash(&mut h);
            (i.opcode() as u32).hash(&mut h);
            for k in 0..i.num_operands() {
                i.operand(k).hash(&mut h);
            }
        }
    }
    h.finish()
}

/// `roots` and every function they refer to, transitively: through instruction operands,
/// constant expressions, aliases and global variables' initializers.
fn referenced_closure(roots: Vec<Val>) -> HashSet<Val> {
    let mut functions: HashSet<Val> = HashSet::new();
    let mut constants: HashSet<Val> = HashSet::new();
    let mut stack = roots;
    while let Some(f) = stack.pop() {
        if !functions.insert(f) || f.is_declaration() {
            continue;
        }
        let mut pending: Vec<Val> = Vec::new();
        for b in f.blocks() {
            for i in b.instructions() {
                pending.extend(i.operands().into_iter().filter(|v| v.is_constant()));
            }
        }
        while let Some(c) = pending.pop() {
            if c.is_null_handle() || !constants.insert(c) {
                continue;
            }
            if c.is_function() {
                stack.push(c);
            } else {
                // Global variables (their initializer), aliases (their aliasee), constant
                // expressions and aggregates: their operands.
                pending.extend(c.operands().into_iter().filter(|v| v.is_constant()));
            }
        }
    }
    functions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_test_module;
    use inkwell::context::Context;

    const IR: &str = r#"
@table = internal constant [1 x ptr] [ptr @via_table]

define internal double @via_table(double %x) {
  ret double %x
}

define internal double @callee(double %x) {
  %y = fmul double %x, %x
  ret double %y
}

define double @changed(double %x) {
  %y = call double @callee(double %x)
  %p = load ptr, ptr @table
  %z = call double %p(double %y)
  ret double %z
}

define double @alone(double %x) {
  %y = fadd double %x, 1.0
  ret double %y
}
"#;

    #[test]
    fn changed_functions_and_what_they_reach_are_touched() {
        let ctx = Context::create();
        let m = parse_test_module(&ctx, IR);
        let module = Module(m.as_mut_ptr());
        let snapshot = Snapshot::take(module, &HashSet::new());
        let names = |fs: Vec<Val>| fs.iter().map(|f| f.name()).collect::<Vec<_>>();
        assert_eq!(
            names(snapshot.untouched(module)),
            ["via_table", "callee", "changed", "alone"]
        );
        // Rewire one operand of @changed: it, its callee and the table's function are touched.
        let changed = module.function("changed").unwrap();
        let indirect = changed.entry_block().instructions()[2];
        indirect.set_operand(0, changed.params()[0]);
        assert_eq!(names(snapshot.untouched(module)), ["alone"]);
    }
}
