//! Calls without a derivative: they run in the primal and their results carry no tangent or
//! adjoint. I/O, clocks and timers, random numbers, environment and process control, runtime
//! queries (Julia's world counter), integer rounding of floats, and LLVM bookkeeping intrinsics
//! that take pointers (intrinsics that touch neither floating point nor pointers are inactive
//! without a rule).
//!
//! Their effects matter even without a derivative: reverse mode replays a load in the adjoint
//! sweep only when nothing in the function can have written memory since, so calls that may
//! write through a pointer (`sprintf`, `time`, ...) are listed as writing.

use super::rule::{Area, Effects, Rule, RuleKind};

/// The name prefix of Umbra's own bookkeeping helpers ([`crate::tape::owned`]): their calls
/// run in the primal only.
pub use crate::tape::owned::BOOKKEEPING_PREFIX;

/// The name prefix of the run-time checks derived code makes (that a byte-wise copy moves
/// whole floats, [`crate::reverse`]): integer bookkeeping, run in the primal only when derived
/// code is differentiated again.
pub const CHECK_PREFIX: &str = "umbra.check.";

/// The name prefix of helpers that compute integer indices from data (the order `qsort`'s rule
/// sorts by, [`super::sort`]): run in the primal only when derived code is differentiated
/// again.
pub const INDEX_PREFIX: &str = "umbra.index.";

/// The name prefix of the wrappers of `__enzyme_call_inactive` calls ([`crate::api`]): their
/// calls run in the primal only.
pub const CALL_INACTIVE_PREFIX: &str = "umbra.call_inactive.";

/// The name prefix of the user's lowered type hints (`__enzyme_double`, ...): facts for the type
/// analysis ([`crate::analysis::types::hints`]), no derivative.
pub use crate::analysis::types::HINT_PREFIX;

macro_rules! inactive {
    ($effects:expr; $($name:literal),* $(,)?) => {
        &[$(Rule {
            name: $name,
            aliases: &[],
            libm_variants: false,
            area: Area::Inactive,
            kind: RuleKind::Inactive,
            effects: $effects,
        }),*]
    };
}

/// Calls that may write memory through their arguments (or hidden state the function cannot
/// see, which is the same for replaying loads).
pub static WRITING: &[Rule] = inactive![Effects::READS_WRITES.capturing();
    // I/O
    "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsprintf", "vsnprintf",
    "puts", "fputs", "putchar", "fputc", "putc", "fwrite", "fflush", "perror", "write",
    "__printf_chk", "__fprintf_chk", "__sprintf_chk", "__snprintf_chk", "__vsnprintf_chk",
    // clocks and timers
    "time", "clock_gettime", "gettimeofday", "times", "getrusage", "nanosleep", "usleep",
    "sleep",
    // random numbers (they advance hidden state)
    "rand", "srand", "random", "srandom", "rand_r", "drand48", "erand48", "lrand48", "srand48",
    // process control
    "abort", "exit", "_exit", "__assert_fail", "__cxa_throw",
    // libstdc++'s hash tables (`std::unordered_map`, `std::unordered_set`): the growth
    // policy, integers in and out; both update the policy's mutable `_M_next_resize`
    "_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm",
    "_ZNKSt8__detail20_Prime_rehash_policy11_M_next_bktEm",
];

/// Calls that write nothing the function reads.
pub static PURE: &[Rule] = inactive![Effects::READS;
    "clock", "omp_get_wtime", "getenv", "getpid", "sysconf", "strlen", "strcmp", "strncmp",
    "memcmp", "bcmp",
    "lround", "lroundf", "llround", "llroundf", "lrint", "lrintf", "llrint", "llrintf",
    "ilogb", "ilogbf", "ilogbl", "llogb", "llogbf", "llogbl",
    // libstdc++'s hash of a key's bytes (`std::hash<std::string>`, ...)
    "_ZSt11_Hash_bytesPKvmm",
    // allocator queries (realloc's adjoint asks for the old block's size)
    "malloc_usable_size",
    // Julia runtime queries
    "jl_get_world_counter", "ijl_get_world_counter", "jl_get_current_task",
    // LLVM's integer rounding and float tests
    "llvm.lround", "llvm.llround", "llvm.lrint", "llvm.llrint", "llvm.is.fpclass",
    "llvm.fptosi.sat", "llvm.fptoui.sat",
];

/// LLVM's bookkeeping: nothing a load can observe changes, no operand is kept (debug records,
/// assumptions, prefetches, alias scopes, invariant markers).
pub static INERT: &[Rule] = inactive![Effects::READS.inert();
    "llvm.prefetch", "llvm.invariant.start", "llvm.invariant.end", "llvm.assume",
    "llvm.dbg.declare", "llvm.dbg.value", "llvm.dbg.assign", "llvm.dbg.label",
    "llvm.experimental.noalias.scope.decl", "llvm.pseudoprobe", "llvm.donothing",
];

/// LLVM's lifetime markers: inert, and the object they end is never read again.
pub static LIFETIME: &[Rule] = inactive![Effects::READS.inert().lifetime();
    "llvm.lifetime.start", "llvm.lifetime.end",
];

#[cfg(test)]
mod tests {
    use super::{PURE, WRITING};
    use crate::cache::Session;
    use crate::ir::{Builder, Module, Ty, Val};
    use crate::options::Options;
    use crate::vocab::Activity;
    use inkwell::context::Context;

    /// Calls to `callee` in function `g`.
    fn calls_to(g: Val, callee: Val) -> usize {
        g.blocks()
            .iter()
            .flat_map(|b| b.instructions())
            .filter(|i| i.is_call() && i.called_function() == Some(callee))
            .count()
    }

    /// Every inactive library rule (and libstdc++'s streams, [`crate::rules::streams`]) in both
    /// modes: `f(x) = x*x + name(x)` passes a
    /// differentiable value to the callee. Without the rule this is a missing-rule error; with
    /// it, the callee runs once in the primal sweep and nowhere in the adjoint. (The LLVM
    /// intrinsics among the rules have fixed signatures; the C tests reach them.)
    #[test]
    fn every_inactive_rule_runs_in_the_primal_only_in_both_modes() {
        for r in WRITING
            .iter()
            .chain(PURE)
            .chain(crate::rules::streams::PRIMAL_ONLY)
        {
            if r.name.starts_with("llvm.") {
                continue;
            }
            let ctx = Context::create();
            let module = ctx.create_module("inactive");
            let m = Module(module.as_mut_ptr());
            let dbl = Ty::double(m.context());
            let callee = m.add_function(r.name, Ty::function(dbl, &[dbl], false));
            let f = m.add_function("f", Ty::function(dbl, &[dbl], false));
            let mut b = Builder::new(m);
            b.position_at_end(f.append_block("entry"));
            let x = f.params()[0];
            let y = b.fmul(x, x);
            let t = b.call_function(callee, &[x]);
            let s = b.fadd(y, t);
            b.ret(s);
            let mut session = Session::new(m, &Options::default(), Default::default());
            session.set_type_seed(crate::rules::type_seed);
            let fwd = crate::derive::forward_function(&mut session, f, &[Activity::Dup])
                .unwrap_or_else(|e| panic!("{}: forward: {e}", r.name));
            let (aug, adj) =
                crate::derive::reverse_functions(&mut session, f, &[Activity::Out], true, 0)
                    .unwrap_or_else(|e| panic!("{}: reverse: {e}", r.name));
            m.verify()
                .unwrap_or_else(|e| panic!("{}: invalid IR: {e}", r.name));
            assert_eq!(calls_to(fwd, callee), 1, "{}: forward", r.name);
            assert_eq!(calls_to(aug, callee), 1, "{}: augmented", r.name);
            assert_eq!(calls_to(adj, callee), 0, "{}: adjoint", r.name);
        }
    }
}
