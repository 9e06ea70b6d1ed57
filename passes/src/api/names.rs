//! Recognising the API's names the way Enzyme does: a function is a request when its name
//! *contains* a request name, so C++ spellings work unchanged (the documented template
//! `__enzyme_autodiff<double>(...)` mangles to `_Z17__enzyme_autodiffIdJ...`, a declaration
//! without `extern "C"` to `_Z17__enzyme_autodiffPvd`), as do C prototypes with a suffix for
//! another return type (`__enzyme_autodiff_two`). Activity markers are recognised likewise
//! when C++ mangles their names (`static int enzyme_dup;` is `_ZL10enzyme_dup`).
//!
//! Any other function whose name contains `__enzyme_` or `__umbra_` is an API Umbra does not
//! implement; calling one is an error rather than an undefined reference at link time.

use crate::analysis::types::Hint;
use crate::vocab::Mode;

/// Which part of a split-mode gradient a request asks for: Enzyme's `__enzyme_augmentsize`
/// (the bytes the caller must allocate for the tape), `__enzyme_augmentfwd` (the augmented
/// forward sweep, leaving the tape behind) and `__enzyme_reverse` (the adjoint sweep, consuming
/// it), for programs that run the two sweeps at different times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sweep {
    /// `__enzyme_augmentsize`.
    Size,
    /// `__enzyme_augmentfwd`.
    Forward,
    /// `__enzyme_reverse`.
    Reverse,
}

impl Sweep {
    /// Enzyme's name of the entry point, for messages.
    pub fn entry(self) -> &'static str {
        match self {
            Sweep::Size => "__enzyme_augmentsize",
            Sweep::Forward => "__enzyme_augmentfwd",
            Sweep::Reverse => "__enzyme_reverse",
        }
    }
}

/// Enzyme's functions of global shadows (its `global_shadow_*.c` tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShadowFn {
    /// `__enzyme_context(width)`: a context holding a shadow of every global.
    Context,
    /// `__enzyme_shadow(ctx, &g, lane)` or `__enzyme_shadow(&g, width, lane)`: the address of
    /// a global's shadow.
    Shadow,
    /// `__enzyme_zero_shadows(ctx)`: zeroes every shadow of a context.
    ZeroShadows,
}

/// What a function name means to the API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApiName {
    /// A derivative request Umbra implements.
    Request(Mode),
    /// One part of a split-mode gradient (`__enzyme_augmentsize`, `__enzyme_augmentfwd`,
    /// `__enzyme_reverse`).
    Split(Sweep),
    /// `__enzyme_batch`: the primal on several argument sets at once.
    Batch,
    /// `__enzyme_iter`: an iteration count growing with the derivative order ([`super::iter`]).
    Iter,
    /// `__enzyme_virtualreverse`: the shadow of a function or vtable pointer
    /// ([`super::virtual_reverse`]).
    VirtualReverse,
    /// One of Enzyme's entry points that Umbra does not implement (yet); the canonical name.
    Unsupported(&'static str),
    /// `__enzyme_todense` or `__enzyme_post_sparse_todense`: a dense view of sparse storage
    /// (`super::todense`).
    View,
    /// Some other name in the API's namespaces (`__enzyme_`, `__umbra_`): not an entry point of
    /// either.
    Unknown,
    /// Enzyme's run-time access to global shadows (`super::shadow_context`).
    GlobalShadows(ShadowFn),
    /// Enzyme's floating-point truncation (`super::truncate`).
    Truncate(TruncateFn),
    /// `__enzyme_call_inactive`: a call run in the primal only (`super::call_inactive`).
    CallInactive,
    /// `__enzyme_float`, `__enzyme_double`, `__enzyme_integer`, `__enzyme_pointer`: what
    /// memory holds (`super::type_hints`).
    TypeHint(Hint),
}

/// Enzyme's floating-point truncation entry points (`super::truncate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TruncateFn {
    /// `__enzyme_truncate_mem_func(f, FROM, TO)`.
    MemFunc,
    /// `__enzyme_truncate_op_func(f, FROM, TO)`.
    OpFunc,
    /// `__enzyme_truncate_mem_value(x, FROM, TO)`.
    MemValue,
    /// `__enzyme_expand_mem_value(x, FROM, TO)`.
    ExpandValue,
}

/// The entry points by name. A name containing several of them means the longest (most
/// specific: `__enzyme_autodiff_deferred` is that entry point, not `__enzyme_autodiff` with a
/// suffix), while suffixes that are no entry point of their own (`__enzyme_autodiff_two`) keep
/// meaning the request.
const ENTRY_POINTS: &[(&str, Entry)] = &[
    ("__enzyme_autodiff", Entry::Request(Mode::Reverse)),
    ("__umbra_autodiff", Entry::Request(Mode::Reverse)),
    ("__enzyme_fwddiff", Entry::Request(Mode::Forward)),
    ("__umbra_fwddiff", Entry::Request(Mode::Forward)),
    ("__enzyme_augmentsize", Entry::Split(Sweep::Size)),
    ("__enzyme_augmentfwd", Entry::Split(Sweep::Forward)),
    ("__enzyme_reverse", Entry::Split(Sweep::Reverse)),
    ("__enzyme_batch", Entry::Batch),
    // Enzyme generates these late in its pipeline (for GPU and Julia code); Umbra differentiates
    // every request at the same point, so for it they mean the requests themselves.
    ("__enzyme_autodiff_deferred", Entry::Request(Mode::Reverse)),
    ("__enzyme_fwddiff_deferred", Entry::Request(Mode::Forward)),
    // Enzyme's other entry points (its Enzyme.cpp and documentation).
    ("__enzyme_fwdsplit", Entry::None),
    // Dense views of sparse storage, lowered after differentiation (`todense.rs`).
    ("__enzyme_todense", Entry::View),
    ("__enzyme_post_sparse_todense", Entry::View),
    ("__enzyme_virtualreverse", Entry::VirtualReverse),
    ("__enzyme_iter", Entry::Iter),
    ("__enzyme_call_inactive", Entry::CallInactive),
    // Enzyme's run-time context of global shadows (global_shadow_*.c).
    ("__enzyme_context", Entry::GlobalShadows(ShadowFn::Context)),
    ("__enzyme_shadow", Entry::GlobalShadows(ShadowFn::Shadow)),
    (
        "__enzyme_zero_shadows",
        Entry::GlobalShadows(ShadowFn::ZeroShadows),
    ),
    // Floating-point truncation (`truncate/`). Enzyme's pass has no `__enzyme_truncate_op_value`
    // (op mode keeps values in their format), so it stays an unknown entry point.
    (
        "__enzyme_truncate_mem_func",
        Entry::Truncate(TruncateFn::MemFunc),
    ),
    (
        "__enzyme_truncate_op_func",
        Entry::Truncate(TruncateFn::OpFunc),
    ),
    (
        "__enzyme_truncate_mem_value",
        Entry::Truncate(TruncateFn::MemValue),
    ),
    ("__enzyme_truncate_op_value", Entry::None),
    (
        "__enzyme_expand_mem_value",
        Entry::Truncate(TruncateFn::ExpandValue),
    ),
    ("__enzyme_float", Entry::TypeHint(Hint::Float)),
    ("__enzyme_double", Entry::TypeHint(Hint::Double)),
    ("__enzyme_integer", Entry::TypeHint(Hint::Integer)),
    ("__enzyme_pointer", Entry::TypeHint(Hint::Pointer)),
];

/// What an entry point is to Umbra.
#[derive(Clone, Copy)]
enum Entry {
    Request(Mode),
    Split(Sweep),
    Batch,
    Iter,
    VirtualReverse,
    /// A dense view.
    View,
    /// Global shadows' functions.
    GlobalShadows(ShadowFn),
    /// Floating-point truncation.
    Truncate(TruncateFn),
    /// A call in the primal only.
    CallInactive,
    /// A type hint.
    TypeHint(Hint),
    /// Enzyme's, not implemented by Umbra.
    None,
}

/// The namespaces of API names: anything containing one of these is the API's business.
const NAMESPACES: [&str; 2] = ["__enzyme_", "__umbra_"];

/// What function name `name` means to the API; `None` for names outside its namespaces.
pub fn classify(name: &str) -> Option<ApiName> {
    if !NAMESPACES.iter().any(|ns| name.contains(ns)) {
        return None;
    }
    let best = ENTRY_POINTS
        .iter()
        .filter(|(entry, _)| name.contains(entry))
        .max_by_key(|(entry, _)| entry.len());
    Some(match best {
        Some((_, Entry::Request(mode))) => ApiName::Request(*mode),
        Some((_, Entry::Split(sweep))) => ApiName::Split(*sweep),
        Some((_, Entry::Batch)) => ApiName::Batch,
        Some((_, Entry::Iter)) => ApiName::Iter,
        Some((_, Entry::VirtualReverse)) => ApiName::VirtualReverse,
        Some((_, Entry::View)) => ApiName::View,
        Some((_, Entry::GlobalShadows(f))) => ApiName::GlobalShadows(*f),
        Some((_, Entry::Truncate(f))) => ApiName::Truncate(*f),
        Some((_, Entry::CallInactive)) => ApiName::CallInactive,
        Some((_, Entry::TypeHint(h))) => ApiName::TypeHint(*h),
        Some((entry, Entry::None)) => ApiName::Unsupported(entry),
        None => ApiName::Unknown,
    })
}

/// True when `name` is a derivative request (any mode, split or batch): a call to it names the
/// function to differentiate first (after an `sret` pointer).
pub fn is_request(name: &str) -> bool {
    matches!(
        classify(name),
        Some(ApiName::Request(_) | ApiName::Split(_) | ApiName::Batch)
    )
}

/// The identifier in the API's namespaces that `name` carries, for messages: `__enzyme_todense`
/// out of `_Z16__enzyme_todensePv`.
pub fn api_identifier(name: &str) -> &str {
    NAMESPACES
        .iter()
        .filter_map(|ns| name.find(ns).map(|at| identifier_at(name, at)))
        .min_by_key(|id| name.find(id))
        .unwrap_or(name)
}

/// The source identifier of a variable named `name`, undoing C++ mangling: `_ZL10enzyme_dup`
/// and `_ZN2ns10enzyme_dupE` are `enzyme_dup`; an unmangled name is itself. For mangled names
/// the first length-prefixed component that starts with one of `prefixes` is taken.
pub fn source_identifier<'a>(name: &'a str, prefixes: &[&str]) -> &'a str {
    if !name.starts_with("_Z") {
        return name;
    }
    let bytes = name.as_bytes();
    let mut i = 2;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || bytes[i - 1].is_ascii_digit() {
            i += 1;
            continue;
        }
        let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        let start = i + digits;
        // A length prefix: the identifier is exactly that many characters long.
        if let Ok(len) = name[i..start].parse::<usize>() {
            if let Some(id) = name.get(start..start.saturating_add(len)) {
                if prefixes.iter().any(|p| id.starts_with(p)) {
                    return id;
                }
            }
        }
        i = start;
    }
    name
}

/// The identifier starting at byte `at` of `name`: a mangled length-prefixed one when digits
/// precede it and cover it, else the run of identifier characters.
fn identifier_at(name: &str, at: usize) -> &str {
    let head = &name[..at];
    let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        if let Ok(len) = head[at - digits..].parse::<usize>() {
            if let Some(id) = name.get(at..at.saturating_add(len)) {
                return id;
            }
        }
    }
    let rest = &name[at..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    &rest[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_found_by_containment_in_c_and_cxx_names() {
        let rev = Some(ApiName::Request(Mode::Reverse));
        let fwd = Some(ApiName::Request(Mode::Forward));
        assert_eq!(classify("__enzyme_autodiff"), rev);
        assert_eq!(classify("__umbra_autodiff_xy"), rev);
        assert_eq!(classify("__enzyme_autodiff_two"), rev);
        assert_eq!(classify("_Z17__enzyme_autodiffIdJPFddEdEET_PvDpT0_"), rev);
        assert_eq!(classify("_Z17__enzyme_autodiffPvd"), rev);
        assert_eq!(classify("__enzyme_fwddiff_f"), fwd);
        assert_eq!(classify("_Z16__enzyme_fwddiffIdJiddEET_PvDpT0_"), fwd);
        assert_eq!(classify("__umbra_fwddiff"), fwd);
        assert_eq!(classify("sqrt"), None);
        assert_eq!(classify("enzyme_autodiff"), None);
    }

    #[test]
    fn the_longest_entry_point_wins_and_others_are_not_requests() {
        assert_eq!(
            classify("__enzyme_autodiff_deferred"),
            Some(ApiName::Request(Mode::Reverse))
        );
        assert_eq!(
            classify("_Z25__enzyme_fwddiff_deferredIdJdEET_PvDpT0_"),
            Some(ApiName::Request(Mode::Forward))
        );
        assert_eq!(
            classify("__enzyme_fwdsplit"),
            Some(ApiName::Unsupported("__enzyme_fwdsplit"))
        );
        assert_eq!(classify("_Z16__enzyme_todensePv"), Some(ApiName::View));
        assert_eq!(
            classify("_Z28__enzyme_post_sparse_todenseIPfJPFfyPKfPKiEPFvyS2_S4_ES2_S4_EET_DpT0_"),
            Some(ApiName::View)
        );
        assert_eq!(
            classify("_Z23__enzyme_virtualreverseIPvET_S1_"),
            Some(ApiName::VirtualReverse)
        );
        assert_eq!(classify("__enzyme_frobnicate"), Some(ApiName::Unknown));
        assert_eq!(
            classify("__enzyme_context"),
            Some(ApiName::GlobalShadows(ShadowFn::Context))
        );
        assert_eq!(
            classify("__enzyme_shadow"),
            Some(ApiName::GlobalShadows(ShadowFn::Shadow))
        );
        // The longest entry point a name contains decides.
        assert_eq!(
            classify("__enzyme_zero_shadows"),
            Some(ApiName::GlobalShadows(ShadowFn::ZeroShadows))
        );
        assert_eq!(
            classify("_Z16__enzyme_reverseIJPdS0_EEvPvDpT_"),
            Some(ApiName::Split(Sweep::Reverse))
        );
        assert_eq!(
            classify("__enzyme_augmentfwd"),
            Some(ApiName::Split(Sweep::Forward))
        );
        assert_eq!(
            classify("__enzyme_augmentsize"),
            Some(ApiName::Split(Sweep::Size))
        );
        assert_eq!(classify("__umbra_jacobian"), Some(ApiName::Unknown));
        assert_eq!(classify("__enzyme_batch"), Some(ApiName::Batch));
        assert_eq!(
            classify("_Z28__enzyme_truncate_mem_func_2z"),
            Some(ApiName::Truncate(TruncateFn::MemFunc))
        );
        assert_eq!(
            classify("__enzyme_truncate_op_func"),
            Some(ApiName::Truncate(TruncateFn::OpFunc))
        );
        assert_eq!(classify("__enzyme_iter"), Some(ApiName::Iter));
        assert_eq!(
            classify("_Z22__enzyme_call_inactivePvz"),
            Some(ApiName::CallInactive)
        );
        assert_eq!(
            classify("__enzyme_double"),
            Some(ApiName::TypeHint(Hint::Double))
        );
        assert_eq!(
            classify("_Z16__enzyme_integerPvm"),
            Some(ApiName::TypeHint(Hint::Integer))
        );
        assert_eq!(classify("_Z13__enzyme_iteryy"), Some(ApiName::Iter));
        assert_eq!(
            classify("_Z14__enzyme_batchIJdEEvPvDpT_"),
            Some(ApiName::Batch)
        );
    }

    #[test]
    fn identifiers_are_read_out_of_mangled_names() {
        assert_eq!(api_identifier("_Z16__enzyme_todensePv"), "__enzyme_todense");
        assert_eq!(api_identifier("__enzyme_batch"), "__enzyme_batch");
        assert_eq!(api_identifier("__enzyme_batch.2"), "__enzyme_batch");
        let p = ["enzyme_", "umbra_"];
        assert_eq!(source_identifier("_ZL10enzyme_dup", &p), "enzyme_dup");
        assert_eq!(
            source_identifier("_ZN2ns12enzyme_constE", &p),
            "enzyme_const"
        );
        assert_eq!(source_identifier("_ZL9umbra_out", &p), "umbra_out");
        assert_eq!(source_identifier("enzyme_dup", &p), "enzyme_dup");
        assert_eq!(source_identifier("_ZL5count", &p), "_ZL5count");
        assert_eq!(source_identifier("_Z99", &p), "_Z99");
    }
}
