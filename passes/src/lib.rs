//! Umbra's differentiation passes: everything that turns derivative requests in an LLVM module
//! into derivative functions. No I/O lives here; the `umbra` driver and the opt/clang plugin
//! (through [`capi`]) are thin shells around [`differentiate_module`].
//!
//! The flow for one module:
//! 1. `api` finds the `__umbra_fwddiff`/`__enzyme_autodiff`/... calls and decodes their
//!    activity markers into requests;
//! 2. `preprocess` canonicalises (SROA, mem2reg) the functions to be differentiated;
//! 3. `derive` builds one derived function per (function, mode, activity), lazily and cached in
//!    `cache::Session`: the visitors of `forward`, `reverse` (augmented and adjoint sweeps
//!    sharing a `tape`) and `batch` fill in the bodies, calling [`rules`] for functions without
//!    a body;
//! 4. each request call is replaced by a call to its derived function, and the dense views of
//!    sparse storage (`__enzyme_todense`) are lowered to the user's load and store functions;
//! 5. the driver or the plugin re-optimises the module ([`reoptimize`]).
//!
//! The crate map, its layers and their invariants (`ir` at the bottom, then the IR facts, the
//! `tape` and the [`rules`], then the differentiation analyses, the engine and the visitors,
//! then `api`) are in `docs/internals/ARCHITECTURE.md`; `layers.rs`'s tests check what a
//! machine can (no import cycle, `rules` never names the session, only `ir` names
//! `llvm_sys`).
#![deny(missing_docs)]

pub(crate) mod analysis;
pub(crate) mod api;
pub(crate) mod batch;
pub(crate) mod cache;
pub mod capi;
pub(crate) mod checkpoint;
pub(crate) mod clone;
mod contraction;
pub(crate) mod debug_checks;
pub(crate) mod derive;
pub(crate) mod devirt;
pub mod diag;
pub(crate) mod distinct_args;
pub(crate) mod fixed_arity;
pub(crate) mod forward;
pub(crate) mod grad_log;
pub mod inspect;
pub mod ir;
#[cfg(test)]
mod layers;
pub(crate) mod mixed_returns;
pub(crate) mod openmp;
pub(crate) mod openmp_float;
pub(crate) mod openmp_reduce;
pub mod options;
pub(crate) mod preprocess;
pub mod reoptimize;
pub(crate) mod reverse;
pub(crate) mod rules;
pub(crate) mod rustlib;
mod schedule;
pub(crate) mod signature;
pub(crate) mod tape;
pub(crate) mod untouched;
pub(crate) mod unwind;
pub(crate) mod vocab;

pub use diag::{Error, ErrorKind, Result};

/// The rule reference `umbra rules` prints: every built-in rule as a row.
pub mod reference {
    pub use crate::rules::reference::{markdown, text};
}
pub use ir::{Module, Val};
pub use options::Options;

/// What a run over a module did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Derivative requests found and lowered.
    pub requests: usize,
    /// Dense views of sparse storage (`__enzyme_todense`) lowered.
    pub views: usize,
    /// Floating-point truncations done: calls to Enzyme's truncation entry points lowered,
    /// plus functions truncated by `truncate_all` ([`api::truncate`]).
    pub truncations: usize,
    /// Derived functions generated (including those for callees).
    pub derived_functions: usize,
    /// What `print_activity` / `print_types` asked for, one line each.
    pub report: Vec<String>,
    /// Warnings for the user, one line each without the `umbra: warning: ` prefix: rules
    /// defeated by inlining, derivatives dropped by the user's inactive declarations
    /// ([`analysis::dropped`]).
    pub warnings: Vec<String>,
    /// The functions defined before the run that it left unchanged and that nothing it added
    /// or changed refers to ([`untouched`]): already optimised by the host, so
    /// [`reoptimize::run_pipeline`] skips them. Valid until the module next changes.
    pub untouched: Vec<Val>,
}

/// Differentiates every derivative request in `module` in place. On error the module may hold
/// partially built derived functions and must be discarded.
pub fn differentiate_module(module: Module, opts: &Options) -> Result<Summary> {
    // Floating-point truncation first: what is truncated is then ordinary code to the rest.
    let truncated = api::truncate::lower(module, &opts.truncate_all)?;
    // Checkpointed loops become loop functions first: their primal is needed with or without
    // requests, and the requests then see ordinary calls.
    // Loop markers get names outside the API's namespaces (the request finder refuses unknown
    // `__enzyme_` names); they are outlined once the code is canonical, below.
    checkpoint::marks::rename_markers(module);
    checkpoint::lower_calls(module)?;
    // Shadows of function pointers are the pointers themselves: no request needs to see these.
    api::virtual_reverse::lower(module)?;
    // Calls run in the primal only, and the user's type hints: calls the rules make inactive,
    // until every request is lowered.
    api::call_inactive::lower(module)?;
    api::type_hints::lower(module)?;
    preprocess::canonicalize_request_holders(module)?;
    let requests = api::find_requests(module)?;
    // Misuse is reported at the user's call, before derived copies of it exist.
    api::iter::check(module)?;
    if requests.is_empty() {
        api::shadow_context::refuse_without_requests(module)?;
        api::global_shadows::unlink_inactive_registrations(module);
        // Loops marked for checkpointing stay plain loops.
        checkpoint::marks::strip_markers(module)?;
        api::iter::finish(module)?;
        api::call_inactive::finish(module);
        api::type_hints::finish(module);
        // A program's other objects may call `umbra_release_tapes` too.
        tape::pool::define(module);
        // Views of sparse storage mean the same without requests (the derivative code that
        // uses them may come from elsewhere).
        let views = api::todense::lower(module)?;
        return Ok(Summary {
            views,
            truncations: truncated.count,
            ..Summary::default()
        });
    }
    // Judged before canonicalisation makes every function look optimised.
    let unoptimised = untouched::unoptimised(module);
    let rules = rules::user::collect(module, opts)?;
    // Rust's liballoc functions that rustc left as declarations get their bodies from the
    // toolchain's bitcode; linking replaces those declarations, so look at the requests anew.
    let requests =
        if rustlib::load_bodies(module, &requests, &rules, opts.rust_sysroot.as_deref())? > 0 {
            api::find_requests(module)?
        } else {
            requests
        };
    // Before lowering: only the user's own calls count as signs of life.
    let mut warnings = rules::user::inlined_rule_warnings(module);
    // Before anything is copied: copies and program then fuse the same multiply-adds.
    contraction::make_explicit(module);
    let program: Vec<String> = module
        .functions()
        .into_iter()
        .filter(|f| !f.is_declaration())
        .map(|f| f.name())
        .collect();
    let mut canonical = preprocess::canonicalize_reachable(module, &requests, &rules)?;
    // A rule's body inlined into differentiated code (seen through `-g`) would be differentiated
    // in the rule's place: refused rather than warned about.
    rules::user::refuse_inlined_rules(module, &canonical)?;
    // Calls passing distinct stack slots call copies that know it (noalias parameters).
    distinct_args::specialise(&mut canonical, &rules)?;
    // Small loop-free helpers given such slots are inlined: the slots become SSA values the
    // reverse planner's cut can see through.
    distinct_args::inline_leaf_helpers(module, &canonical, &rules)?;
    // Loops marked for checkpointing become checkpointed loops of outlined steps.
    checkpoint::outline::outline_marked(module, &mut canonical)?;
    // On canonical code: the memory a checkpointed step carries to the next must be in its
    // snapshots (globals passed to it are added; anything else uncovered refuses reverse mode).
    checkpoint::state::cover_all(module, &canonical, &rules)?;
    // What the run leaves alone is told by comparing with the canonical module.
    let snapshot = untouched::Snapshot::take(module, &unoptimised);
    // Canonicalisation rewrites the bodies that hold requests as well (at -O0 a request's
    // arguments are loads from allocas, which mem2reg deletes): decode them again from the
    // canonical code. Requests inside functions an outer request differentiates go first, so
    // the outer pass sees calls to their derived functions instead of request calls.
    let mut requests = api::inner_first(api::find_requests(module)?)?;
    api::truncate::refuse_in_requests(&truncated, &requests)?;
    // On canonical code, before any derived function: mutable globals the differentiated code
    // writes derivatives into get shadows, as if the user had declared them.
    let mut rules = rules;
    let shadow_sets = api::global_shadows::create(module, &canonical, &requests, &mut rules)?;
    let mut session = cache::Session::new(module, opts, rules);
    session.set_unoptimised(unoptimised);
    session.set_type_seed(rules::type_seed);
    session.set_requests(
        requests
            .iter()
            .filter_map(api::Request::type_site)
            .collect(),
    );
    for k in 0..requests.len() {
        let req = &requests[k];
        // The global shadows of the request's context or width (`api::shadow_sets`).
        shadow_sets.select(&mut session, k);
        preprocess::devirtualize_derived(req, &session.rules, &mut canonical);
        // Lowering replaces the call's uses and erases it: a later request that was given its
        // result (the tape of `__enzyme_augmentfwd`) holds a value that is gone.
        let replaced = req.call.has_uses();
        let defined = api::iter::snapshot(module);
        if let Err(mut e) = api::dispatch::lower_request(&mut session, req) {
            // What `--print-activity` / `--print-types` gathered up to the refusal explains
            // it; the error is all the caller gets back, so print it here, as hosts do.
            for line in &session.report {
                eprintln!("{line}");
            }
            // A rule the optimiser inlined away before Umbra ran is a likely cause (its body
            // is differentiated instead): the warning would be lost with the error.
            for w in &warnings {
                e.message.push_str(&format!(" (note: {w})"));
            }
            return Err(e);
        }
        // The functions this request derived count `__enzyme_iter` one order further.
        api::iter::bump_new(module, &defined)?;
        if replaced {
            for later in &mut requests[k + 1..] {
                *later = api::redecode(later)?;
            }
            session.set_requests(
                requests[k + 1..]
                    .iter()
                    .filter_map(api::Request::type_site)
                    .collect(),
            );
        }
    }
    // After every request: a caller that ignores an augmented sweep's result is now known.
    reverse::remove_unread_primal(&session.augmented_functions(), &session.forward_functions());
    let derived_functions = session.derived_count();
    warnings.extend(analysis::dropped::dropped_derivatives(&session));
    api::lower::remove_request_declarations(module);
    api::global_shadows::unlink_inactive_registrations(module);
    api::iter::finish(module)?;
    api::call_inactive::finish(module);
    api::type_hints::finish(module);
    tape::pool::define(module);
    // After every request: the derivative code reads and writes through the views' shadows.
    let views = api::todense::lower(module)?;
    // The rules are applied: functions kept out of line for them may be inlined again, into
    // the program and the derived code, so neither they nor their callers skip re-optimisation.
    let released = rules::protect::release_protection(module);
    let untouched = snapshot
        .untouched(module)
        .into_iter()
        .filter(|&f| !released.contains(&f) && !rules::protect::calls_any(f, &released))
        .collect();
    // After differentiation, which copied the program's flags into the adjoint's arithmetic.
    let program: Vec<Val> = program.iter().filter_map(|n| module.function(n)).collect();
    contraction::settle_primal(module, &program);
    Ok(Summary {
        requests: requests.len(),
        views,
        truncations: truncated.count,
        derived_functions,
        report: session.report,
        warnings,
        untouched,
    })
}
