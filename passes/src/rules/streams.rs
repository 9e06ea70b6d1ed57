//! libstdc++'s I/O streams, locales and the `std::string`s streams hand out: calls that run in
//! the primal only. What goes out (`std::cout << x`, `std::wcout`, `std::cerr`, `std::clog`,
//! string streams) has no derivative: printing a value consumes it and gives nothing back that
//! depends on it. Stream objects, locales, `std::allocator<char>` and `std::string`s hold
//! characters, integers and pointers into the library's own state, never data a derivative
//! flows through; these functions are listed by their mangled names, each a non-inline member
//! or function of the library that `#include <iostream>` and `<sstream>` leave as calls
//! (`extern template`), at `-O0` (`operator<<`) and above (`_M_insert`). String streams and
//! strings are listed as `-O0` calls them: optimised code inlines parts of their constructors
//! and destructors, which would run on shadows these calls never construct. A local stream or
//! string that only the primal uses gets no shadow at all (`analysis::primal_objects`), and
//! the library calls left on it then need no row: they receive no derivative.
//!
//! What comes in is different: `stream >> x` for a floating-point `x` overwrites `x` with a value
//! parsed from characters, whose derivative is zero. Its rule does what a store of a constant
//! does to the shadow: forward mode zeroes `x`'s tangent, reverse mode zeroes `x`'s adjoint where
//! the value was overwritten, so neither a tangent nor an adjoint from before the read survives
//! it. Extraction into integers, characters and strings writes nothing with a derivative.
//! Unformatted input (`stream.read(buf, n)`) is the same for bytes: the `gcount()` bytes it
//! stores lose their tangents and adjoints. File streams and buffers (`std::ifstream`,
//! `std::ofstream`, `std::filebuf`) are covered as `-O0` calls them, like string streams.

use super::calls::{
    AdjointCall, ArgAdjoints, ArgNeeds, AugmentCall, Augmented, CustomNeeds, CustomReverse,
    ForwardCall, ForwardRule,
};
use super::rule::{Area, Effects, Reverse, Rule, RuleKind};
use crate::diag::{Error, Result};
use crate::ir::{Ty, Val};

macro_rules! primal_only {
    ($($name:literal),* $(,)?) => {
        &[$(Rule {
            name: $name,
            aliases: &[],
            libm_variants: false,
            area: Area::Inactive,
            kind: RuleKind::Inactive,
            // They write the stream's (or locale's, or string's) own state, and may keep
            // pointers to what they are given.
            effects: Effects::READS_WRITES.capturing(),
        }),*]
    };
}

/// Output, locales, allocators, string and string-stream bookkeeping: primal only.
pub static PRIMAL_ONLY: &[Rule] = primal_only![
    // Insertion into `std::ostream` (`char`): strings, characters, numbers (the numbers through
    // `operator<<` at -O0, `_M_insert<T>` once that is inlined), `std::string`, manipulators.
    "_ZSt16__ostream_insertIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_PKS3_l",
    "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
    "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_c",
    "_ZStlsIcSt11char_traitsIcESaIcEERSt13basic_ostreamIT_T0_ES7_RKNSt7__cxx1112basic_stringIS4_S5_T1_EE",
    "_ZNSolsEd", "_ZNSolsEf", "_ZNSolsEe", "_ZNSolsEi", "_ZNSolsEj", "_ZNSolsEl", "_ZNSolsEm",
    "_ZNSolsEs", "_ZNSolsEt", "_ZNSolsEx", "_ZNSolsEy", "_ZNSolsEb", "_ZNSolsEPKv",
    "_ZNSo9_M_insertIdEERSoT_", "_ZNSo9_M_insertIeEERSoT_", "_ZNSo9_M_insertIlEERSoT_",
    "_ZNSo9_M_insertImEERSoT_", "_ZNSo9_M_insertIxEERSoT_", "_ZNSo9_M_insertIyEERSoT_",
    "_ZNSo9_M_insertIbEERSoT_", "_ZNSo9_M_insertIPKvEERSoT_",
    "_ZNSo3putEc", "_ZNSo5writeEPKcl", "_ZNSo5flushEv",
    "_ZSt4endlIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_",
    "_ZSt5flushIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_",
    // The same for `std::wostream` (`wchar_t`).
    "_ZSt16__ostream_insertIwSt11char_traitsIwEERSt13basic_ostreamIT_T0_ES6_PKS3_l",
    "_ZStlsIwSt11char_traitsIwEERSt13basic_ostreamIT_T0_ES6_PKS3_",
    "_ZStlsIwSt11char_traitsIwEERSt13basic_ostreamIT_T0_ES6_PKc",
    "_ZStlsIwSt11char_traitsIwEERSt13basic_ostreamIT_T0_ES6_S3_",
    "_ZStlsIwSt11char_traitsIwEERSt13basic_ostreamIT_T0_ES6_c",
    "_ZNSt13basic_ostreamIwSt11char_traitsIwEElsEd",
    "_ZNSt13basic_ostreamIwSt11char_traitsIwEElsEf",
    "_ZNSt13basic_ostreamIwSt11char_traitsIwEElsEe",
    "_ZNSt13basic_ostreamIwSt11char_traitsIwEElsEi",
    "_ZNSt13basic_ostreamIwSt11char_traitsIwEElsEl",
    "_ZNSt13basic_ostreamIwSt11char_traitsIwEElsEm",
    "_ZNSt13basic_ostreamIwSt11char_traitsIwEE9_M_insertIdEERS2_T_",
    "_ZNSt13basic_ostreamIwSt11char_traitsIwEE9_M_insertIeEERS2_T_",
    "_ZNSt13basic_ostreamIwSt11char_traitsIwEE9_M_insertIlEERS2_T_",
    "_ZNSt13basic_ostreamIwSt11char_traitsIwEE9_M_insertImEERS2_T_",
    "_ZNSt13basic_ostreamIwSt11char_traitsIwEE3putEw",
    "_ZNSt13basic_ostreamIwSt11char_traitsIwEE5flushEv",
    "_ZSt4endlIwSt11char_traitsIwEERSt13basic_ostreamIT_T0_ES6_",
    // Stream state and configuration.
    "_ZNSt8ios_base15sync_with_stdioEb",
    "_ZNSt9basic_iosIcSt11char_traitsIcEE5clearESt12_Ios_Iostate",
    "_ZNSt9basic_iosIwSt11char_traitsIwEE5clearESt12_Ios_Iostate",
    "_ZNSt9basic_iosIcSt11char_traitsIcEE5imbueERKSt6locale",
    "_ZNSt9basic_iosIwSt11char_traitsIwEE5imbueERKSt6locale",
    "_ZNSt8ios_base5imbueERKSt6locale",
    // Locales.
    "_ZNSt6localeC1Ev", "_ZNSt6localeC2Ev", "_ZNSt6localeC1EPKc", "_ZNSt6localeC1ERKS_",
    "_ZNSt6localeD1Ev", "_ZNSt6localeD2Ev", "_ZNSt6localeaSERKS_", "_ZNSt6locale6globalERKS_",
    "_ZNSt6locale7classicEv",
    // `std::allocator<char>` (and `wchar_t`): empty objects.
    "_ZNSaIcEC1Ev", "_ZNSaIcEC2Ev", "_ZNSaIcED1Ev", "_ZNSaIcED2Ev", "_ZNSaIcEC1ERKS_",
    "_ZNSaIwEC1Ev", "_ZNSaIwED1Ev",
    // `std::string` (`char`): whole-object construction and destruction, as -O0 calls them.
    // Not its buffer management (`_M_create`, `_M_assign`, ...), which optimised code calls
    // from inlined members that also run on the string's shadow, which these calls leave
    // unconstructed: `_M_create` allocates (`super::strings`), the rest have no rule and stay
    // a compile-time error there. The C++14 constructor template: `super::strings`.
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC1EPKcRKS3_",
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC2EPKcRKS3_",
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC1ERKS4_",
    // The move constructor: a container of string keys (`std::map<std::string, double>`)
    // moves each key into its node (the node's shadow key stays zero, as the node's shadow
    // was allocated: no code runs on shadow strings at -O0).
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC1EOS4_",
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC2EOS4_",
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEED1Ev",
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEED2Ev",
    // Its const observers, which read the characters and the length only (`==` on keys,
    // `c_str()` handed to a stream): integers and character pointers, no derivative.
    "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE4sizeEv",
    "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE6lengthEv",
    "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE4dataEv",
    "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE5c_strEv",
    "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE5emptyEv",
    "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE7compareERKS4_",
    "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE7compareEPKc",
    // String streams: construction, destruction, the text (-O0; optimised code inlines parts
    // of their constructors and destructors, which Umbra refuses on a stream with a shadow: a
    // vtable pointer loaded from a `_ZTT` table has none).
    "_ZNSt7__cxx1119basic_ostringstreamIcSt11char_traitsIcESaIcEEC1Ev",
    "_ZNSt7__cxx1119basic_ostringstreamIcSt11char_traitsIcESaIcEED1Ev",
    "_ZNKSt7__cxx1119basic_ostringstreamIcSt11char_traitsIcESaIcEE3strEv",
    "_ZNSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEEC1Ev",
    "_ZNSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEEC1ERKNS_12basic_stringIcS2_S3_EESt13_Ios_Openmode",
    "_ZNSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEED1Ev",
    "_ZNKSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEE3strEv",
    "_ZNSt7__cxx1119basic_istringstreamIcSt11char_traitsIcESaIcEEC1ERKNS_12basic_stringIcS2_S3_EESt13_Ios_Openmode",
    "_ZNSt7__cxx1119basic_istringstreamIcSt11char_traitsIcESaIcEED1Ev",
    // File streams and buffers (`-O0`, where libstdc++ keeps them out of line): opening,
    // closing, state queries, unformatted output, and `std::ostream` over a buffer.
    "_ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1Ev",
    "_ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode",
    "_ZNSt14basic_ifstreamIcSt11char_traitsIcEED1Ev",
    "_ZNSt14basic_ifstreamIcSt11char_traitsIcEE5closeEv",
    "_ZNSt14basic_ifstreamIcSt11char_traitsIcEE7is_openEv",
    "_ZNKSt14basic_ifstreamIcSt11char_traitsIcEE5rdbufEv",
    "_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode",
    "_ZNSt14basic_ofstreamIcSt11char_traitsIcEED1Ev",
    "_ZNSt14basic_ofstreamIcSt11char_traitsIcEE5closeEv",
    "_ZNSt14basic_ofstreamIcSt11char_traitsIcEE7is_openEv",
    "_ZNSt13basic_filebufIcSt11char_traitsIcEEC1Ev",
    "_ZNSt13basic_filebufIcSt11char_traitsIcEED1Ev",
    "_ZNSt13basic_filebufIcSt11char_traitsIcEED0Ev",
    "_ZNSt13basic_filebufIcSt11char_traitsIcEE4openEPKcSt13_Ios_Openmode",
    "_ZNSt13basic_filebufIcSt11char_traitsIcEE5closeEv",
    "_ZNSt15basic_streambufIcSt11char_traitsIcEE5sputnEPKcl",
    "_ZNSt15basic_streambufIcSt11char_traitsIcEE7pubsyncEv",
    "_ZNSt15basic_streambufIcSt11char_traitsIcEE9pubsetbufEPcl",
    "_ZNSoC1EPSt15basic_streambufIcSt11char_traitsIcEE",
    "_ZNSoD1Ev",
    "_ZNSolsEPFRSoS_E",
    "_ZNKSt9basic_iosIcSt11char_traitsIcEEcvbEv",
    "_ZNKSt9basic_iosIcSt11char_traitsIcEEntEv",
    // Extraction of what carries no derivative: integers, characters, skipping.
    "_ZNSirsERi", "_ZNSirsERj", "_ZNSirsERl", "_ZNSirsERm", "_ZNSirsERs", "_ZNSirsERt",
    "_ZNSirsERx", "_ZNSirsERy", "_ZNSirsERb",
    "_ZNSi10_M_extractIlEERSiRT_", "_ZNSi10_M_extractImEERSiRT_",
    "_ZNSi10_M_extractIjEERSiRT_", "_ZNSi10_M_extractItEERSiRT_",
    "_ZNSi10_M_extractIxEERSiRT_", "_ZNSi10_M_extractIyEERSiRT_",
    "_ZNSi10_M_extractIbEERSiRT_",
    "_ZNSi3getERc", "_ZNSi3getEv", "_ZNSi3getEPclc", "_ZNSi3getEPcl", "_ZNSi7getlineEPclc",
    "_ZNSi7getlineEPcl", "_ZNSi6ignoreEv", "_ZNSi6ignoreEl", "_ZNSi6ignoreEli", "_ZNSi4peekEv",
    "_ZStrsIcSt11char_traitsIcEERSt13basic_istreamIT_T0_ES6_RS3_",
];

/// Extraction into a floating-point variable (`stream >> x`): the value read has no
/// derivative, so `x`'s tangent and adjoint are zeroed where it is overwritten.
pub static EXTRACT: &[Rule] = &[
    extract("_ZNSirsERd"),
    extract("_ZNSirsERf"),
    extract("_ZNSirsERe"),
    extract("_ZNSi10_M_extractIdEERSiRT_"),
    extract("_ZNSi10_M_extractIfEERSiRT_"),
    extract("_ZNSi10_M_extractIeEERSiRT_"),
];

/// Unformatted input, `stream.read(buf, n)`: the bytes it stores (`gcount()` of them, fewer
/// than `n` at the end of the input) come from characters and have no derivative, so their
/// tangents are zeroed, and in reverse mode their adjoints where they were overwritten (the
/// count travels on the tape in the rule's one saved, pointer-sized slot).
pub static READ: &[Rule] = &[Rule {
    name: "_ZNSi4readEPcl",
    aliases: &[],
    libm_variants: false,
    area: Area::Inactive,
    kind: RuleKind::Forward(read_forward as ForwardRule, Reverse::Custom(&READ_REVERSE)),
    effects: Effects::READS_WRITES.capturing(),
}];

static READ_REVERSE: CustomReverse = CustomReverse {
    augment: read_augment,
    adjoint: read_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::None,
        result: false,
        saved: true,
        shadows_only: ArgNeeds::Positions(&[1]),
    },
};

/// `stream.gcount()` after the read: how many bytes it stored.
fn bytes_read(b: &mut crate::ir::Builder, stream: Val) -> Val {
    let m = b.module();
    let ctx = m.context();
    let ty = Ty::function(m.intptr_ty(), &[Ty::ptr(ctx)], false);
    let gcount = m.get_or_add_function("_ZNKSi6gcountEv", ty);
    b.call_function(gcount, &[stream])
}

fn read_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    if let Some(sx) = c.tangents[1] {
        let n = bytes_read(c.b, c.args[0]);
        c.b.memset_zero(sx, n, 1);
    }
    Ok(c.tangents[0])
}

fn read_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let call = c.primal_call();
    let ptr = Ty::ptr(c.b.module().context());
    let saved = match c.shadows[1] {
        Some(sx) => {
            let n = bytes_read(c.b, c.args[0]);
            c.b.memset_zero(sx, n, 1);
            c.b.cast(crate::ir::Opcode::LLVMIntToPtr, n, ptr)
        }
        None => ptr.zero(),
    };
    Ok(Augmented {
        result: Some(call),
        shadow: c.shadows[0],
        saved: Some(saved),
    })
}

fn read_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    if let (Some(sx), Some(saved)) = (c.shadows[1], c.saved) {
        let intptr = c.env.module().intptr_ty();
        let n = c.b.cast(crate::ir::Opcode::LLVMPtrToInt, saved, intptr);
        c.b.memset_zero(sx, n, 1);
    }
    Ok(vec![None; c.args.len()])
}

const fn extract(name: &'static str) -> Rule {
    Rule {
        name,
        aliases: &[],
        libm_variants: false,
        area: Area::Inactive,
        kind: RuleKind::Forward(extract_forward as ForwardRule, Reverse::Custom(&EXTRACTED)),
        effects: Effects::READS_WRITES.capturing(),
    }
}

static EXTRACTED: CustomReverse = CustomReverse {
    augment: extract_augment,
    adjoint: extract_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::None,
        result: false,
        saved: false,
        shadows_only: ArgNeeds::Positions(&[1]),
    },
};

/// The floating-point type an extraction writes, from the last letter of its mangled name's
/// argument (`d` double, `f` float, `e` long double).
fn extracted_type(call: Val) -> Result<Ty> {
    let name = call.called_function().map(|f| f.name()).unwrap_or_default();
    let ctx = call.ty().context();
    let code = name
        .strip_suffix("EERSiRT_")
        .or_else(|| name.strip_prefix("_ZNSirsER"))
        .and_then(|s| s.chars().last());
    match code {
        Some('d') => Ok(Ty::double(ctx)),
        Some('f') => Ok(Ty::float(ctx)),
        Some('e') => Ok(Ty::x86_fp80(ctx)),
        _ => Err(Error::at(
            call,
            format!("'{name}': not a floating-point extraction (internal)"),
        )),
    }
}

fn extract_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    if let Some(sx) = c.tangents[1] {
        let ty = extracted_type(c.src)?;
        c.b.store(ty.zero(), sx, 0);
    }
    // The stream is returned: the result stands for it, shadow and all.
    Ok(c.tangents[0])
}

fn extract_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let call = c.primal_call();
    Ok(Augmented {
        result: Some(call),
        shadow: c.shadows[0],
        saved: None,
    })
}

fn extract_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    if let Some(sx) = c.shadows[1] {
        // The value the call overwrote is gone, and the value it read has no derivative.
        let ty = extracted_type(c.src)?;
        c.b.store(ty.zero(), sx, 0);
    }
    Ok(vec![None; c.args.len()])
}
