//! The OpenMP runtime calls that appear inside the outlined body of a parallel region (clang
//! `-fopenmp`): loop scheduling, thread queries, barriers and the bounds of `critical`,
//! `single`, `master` and `masked` sections run in the primal only (reverse mode mirrors the
//! synchronisation itself, [`crate::openmp::Sync`]), and the `+` reductions'
//! `__kmpc_reduce_nowait` and `__kmpc_reduce` are made safe to differentiate.
//!
//! Guarantee: a reduction never takes libomp's tree method, which combines the threads' private
//! copies through clang's `reduce_func` and so would combine primal values but not their
//! tangents. libomp picks the tree method only when both `reduce_data` and `reduce_func` are
//! non-null (`FAST_REDUCTION_TREE_METHOD_GENERATED`, also when `KMP_FORCE_REDUCTION=tree`, which
//! falls back to critical), so derived code passes nulls: the critical method (the threads add
//! their copies one at a time under a lock) or the atomic one (`atomicrmw fadd`), whose
//! derivatives follow the instructions the threads run. The reverse half passes on the turn
//! the adjoint of the critical section waited for ([`crate::openmp::reduction_turn_end`]).
//! Reductions whose atomic method is a compare-and-swap (`max`, `min`, `*`) only ever take the
//! critical method ([`crate::openmp_reduce`]).
//!
//! `__kmpc_fork_call` itself is not a rule: the sweeps call the outlined function's derivative
//! through it (`forward/openmp.rs`, `reverse/openmp.rs`). Runtime calls not listed here stay
//! errors (tasks, ...) unless, as the dynamic schedules' `__kmpc_dispatch_*`, they touch only
//! variables no derivative reaches, which get no shadow (`analysis::primal_objects`) and run in
//! the primal only; reverse mode refuses synchronisation it cannot mirror
//! ([`crate::openmp::check_reverse`]).

use super::calls::{
    AdjointCall, ArgAdjoints, ArgNeeds, AugmentCall, Augmented, CustomNeeds, CustomReverse,
    ForwardCall, ForwardRule,
};
use super::rule::{Area, Effects, Reverse, Rule, RuleKind};
use crate::diag::Result;
use crate::ir::{Ty, Val};

macro_rules! primal_only {
    ($effects:expr; $($name:literal),* $(,)?) => {
        &[$(Rule {
            name: $name,
            aliases: &[],
            libm_variants: false,
            area: Area::OpenMp,
            kind: RuleKind::Inactive,
            effects: $effects.synchronising(),
        }),*]
    };
}

/// Loop scheduling (the static schedule writes the thread's bounds into its arguments), the
/// end of a reduction's critical section, barriers and the bounds of `critical`, `single`,
/// `master` and `masked` sections. Their values run in the primal only; reverse mode mirrors
/// the synchronisation itself ([`crate::openmp::Sync`]).
pub static WRITING: &[Rule] = primal_only![Effects::READS_WRITES;
    "__kmpc_for_static_init_4", "__kmpc_for_static_init_4u", "__kmpc_for_static_init_8",
    "__kmpc_for_static_init_8u", "__kmpc_for_static_fini", "__kmpc_end_reduce_nowait",
    "__kmpc_end_reduce", "__kmpc_push_num_threads", "__kmpc_barrier", "__kmpc_critical",
    "__kmpc_critical_with_hint", "__kmpc_end_critical", "__kmpc_single", "__kmpc_end_single",
    "__kmpc_master", "__kmpc_end_master", "__kmpc_masked", "__kmpc_end_masked",
];

/// Thread queries.
pub static PURE: &[Rule] = primal_only![Effects::READS;
    "__kmpc_global_thread_num", "omp_get_thread_num", "omp_get_num_threads",
    "omp_get_max_threads",
];

/// `__kmpc_reduce_nowait(loc, gtid, n, size, reduce_data, reduce_func, lock)`.
static REDUCE: CustomReverse = CustomReverse {
    augment: reduce_augment,
    adjoint: reduce_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::Positions(&[0]),
        result: true,
        saved: false,
        shadows_only: ArgNeeds::None,
    },
};

/// `__kmpc_reduce(...)`, the blocking reduction of a worksharing loop inside a region.
static REDUCE_BLOCKING: CustomReverse = CustomReverse {
    augment: reduce_augment,
    adjoint: reduce_blocking_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::Positions(&[0]),
        result: true,
        saved: false,
        shadows_only: ArgNeeds::None,
    },
};

/// The reduction rules.
pub static RULES: &[Rule] = &[
    Rule {
        name: "__kmpc_reduce_nowait",
        aliases: &[],
        libm_variants: false,
        area: Area::OpenMp,
        kind: RuleKind::Forward(reduce_forward as ForwardRule, Reverse::Custom(&REDUCE)),
        effects: Effects::READS_WRITES.synchronising(),
    },
    Rule {
        name: "__kmpc_reduce",
        aliases: &[],
        libm_variants: false,
        area: Area::OpenMp,
        kind: RuleKind::Forward(
            reduce_forward as ForwardRule,
            Reverse::Custom(&REDUCE_BLOCKING),
        ),
        effects: Effects::READS_WRITES.synchronising(),
    },
];

/// Null `reduce_data` and `reduce_func` in a derived copy of the call: no tree reduction.
fn no_tree(call: Val) {
    let ptr = Ty::ptr(call.ty().context());
    for k in [4, 5] {
        call.set_operand(k, ptr.zero());
        call.remove_call_arg_attrs(k, &["nonnull", "noundef", "dereferenceable"]);
    }
}

fn reduce_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    no_tree(c.call);
    Ok(None)
}

fn reduce_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let call = c.primal_call();
    no_tree(call);
    Ok(Augmented {
        result: Some(call),
        shadow: None,
        saved: None,
    })
}

/// The adjoint of the critical section waited for its turn where the section ended
/// (`__kmpc_end_reduce_nowait`, reached first going backwards, with the ticket taken there);
/// the reduction returned 1 exactly when that section ran, so that is when the turn passes on
/// here ([`crate::openmp::reduction_turn_end`]).
fn reduce_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    if let Some(result) = c.result {
        crate::openmp::reduction_turn_end(c.b, c.src.call_args()[6], result, false)?;
    }
    Ok(vec![None; c.args.len()])
}

/// A blocking reduction ends with `__kmpc_end_reduce` in both its critical (1) and atomic (2)
/// methods, and the adjoint waits for its turn there in both
/// ([`crate::openmp::Sync::EndReduce`]): the turn passes on here when the reduction returned
/// 1 or 2.
fn reduce_blocking_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    if let Some(result) = c.result {
        crate::openmp::reduction_turn_end(c.b, c.src.call_args()[6], result, true)?;
    }
    Ok(vec![None; c.args.len()])
}
