//! Bodies of Rust's `alloc` and `core` functions, loaded from the toolchain's own bitcode.
//!
//! Below `-C opt-level=2` rustc does not inline liballoc's non-generic `RawVecInner` methods
//! (`grow_one`, `grow_amortized`, `try_allocate_in`, `deallocate`, ...): a crate's bitcode
//! only declares them, and differentiating a function that pushes to a `Vec` would need a
//! rule for each. Their bodies exist, though: every rlib in the sysroot embeds its codegen
//! units' bitcode (the `.llvmbc` section of its `.rcgu.o` members). So before
//! differentiating, each declaration from `alloc` or `core` that a request's function reaches
//! (directly or through functions with bodies), that has no rule and that returns, gets its
//! body linked in from there, with whatever that body refers to in its codegen unit, all as
//! `internal` copies: the final link against std's own objects sees no second definition.
//! The loaded bodies end in `__rust_alloc`/`__rust_realloc`/`__rust_dealloc`, which have rules.
//! Panics (`noreturn`) stay declarations: no derivative flows through them.
//!
//! Each copy is specialised to its call sites' integer constants. liballoc's methods take the
//! element's size and alignment as arguments and make an empty allocation's dangling pointer
//! from the alignment (`inttoptr` of a parameter, which has no pointer to take a shadow from);
//! with `Vec<f64>`'s 8 in its place (propagated into the helpers by IPSCCP) the pointer is a
//! constant address, as it is when rustc inlines at `-O2`.

pub mod names;
pub mod sysroot;

use crate::api::Request;
use crate::diag::{Error, Result};
use crate::ir::{link, Module, Val};
use crate::rules::user::UserRules;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The crates whose functions are loaded.
const CRATES: &[&str] = &["alloc", "core"];

/// A declaration and the integer constants its call sites pass (`None`: not a constant).
type Key = (String, Vec<Option<u64>>);

/// Links in the bodies the requests' functions need (see the module doc); returns how many
/// copies were loaded. Canonicalises the functions it walks through (as
/// [`crate::preprocess`] would), so that an `-O0` caller's arguments are constants.
pub fn load_bodies(
    module: Module,
    requests: &[Request],
    rules: &UserRules,
    sysroot_option: Option<&str>,
) -> Result<usize> {
    let mut loaded = 0;
    let mut tried: HashSet<Key> = HashSet::new();
    let mut bitcode: HashMap<sysroot::Member, Vec<u8>> = HashMap::new();
    let roots: Vec<Val> = requests.iter().map(|r| r.function).collect();
    // A body may call further `alloc`/`core` functions its codegen unit only declares: load
    // rounds until the reachable code needs nothing more.
    loop {
        let needed = needed_calls(&roots, rules)?;
        if needed.is_empty() {
            return Ok(loaded);
        }
        let lib = library(module, sysroot_option, &needed)?;
        let index = sysroot::index(&lib);
        for ((name, consts), calls) in needed {
            let call = calls[0];
            if !tried.insert((name.clone(), consts.clone())) {
                return Err(Error::internal(
                    call,
                    format!("'{name}' is still called after its body was linked in"),
                ));
            }
            let Some(member) = index.get(&name) else {
                return Err(Error::at(
                    call,
                    format!(
                        "'{name}' (Rust's {} crate) has no body in this module, and none of the rlibs in {} defines it: was this crate compiled by that toolchain's rustc? (--rust-sysroot or RUST_SYSROOT choose the sysroot)",
                        names::root_crate(&name).unwrap_or("?"),
                        lib.display()
                    ),
                ));
            };
            let failed = |e: String| {
                Error::at(
                    call,
                    format!(
                        "loading the body of '{name}' from {}: {e}",
                        member.archive.display()
                    ),
                )
            };
            if !bitcode.contains_key(member) {
                let bytes = sysroot::member_bytes(member).map_err(|e| failed(e.to_string()))?;
                let bc = link::object_section(module.context(), &bytes, ".llvmbc")
                    .map_err(&failed)?
                    .ok_or_else(|| {
                        failed("the member has no embedded bitcode (.llvmbc section)".into())
                    })?;
                bitcode.insert(member.clone(), bc);
            }
            load_specialised(module, &bitcode[member], &name, &consts, &calls).map_err(failed)?;
            loaded += 1;
        }
    }
}

/// The calls to load bodies for, by callee and constant arguments: reached from `roots`
/// through direct calls in functions with bodies (each canonicalised first), skipping what
/// the user declared inactive. Sorted, so that loading goes the same way on every run.
fn needed_calls(roots: &[Val], rules: &UserRules) -> Result<BTreeMap<Key, Vec<Val>>> {
    let mut needed: BTreeMap<Key, Vec<Val>> = BTreeMap::new();
    let mut seen = HashSet::new();
    let mut stack: Vec<Val> = roots.to_vec();
    while let Some(f) = stack.pop() {
        if f.is_declaration() || rules.is_inactive(&f.name()) || !seen.insert(f) {
            continue;
        }
        crate::preprocess::canonicalize(f)?;
        for b in f.blocks() {
            for i in b.instructions() {
                if !i.is_call() {
                    continue;
                }
                stack.extend(crate::openmp::outlined(i));
                let Some(callee) = i.called_function() else {
                    continue;
                };
                if !callee.is_declaration() {
                    stack.push(callee);
                } else if wants_body(callee, rules) {
                    let consts = i.call_args().iter().map(|a| a.const_int_value()).collect();
                    needed.entry((callee.name(), consts)).or_default().push(i);
                }
            }
        }
    }
    Ok(needed)
}

/// True for a declaration from `alloc` or `core` that returns and that no rule covers.
fn wants_body(f: Val, rules: &UserRules) -> bool {
    let name = f.name();
    names::root_crate(&name).is_some_and(|c| CRATES.contains(&c))
        && f.intrinsic_id() == 0
        && !f.has_fn_attr("noreturn")
        && crate::rules::lookup(&name).is_none()
        && !rules.is_inactive(&name)
        && !rules.function_like.contains_key(&name)
        && !rules.derivatives.contains_key(&name)
        && !rules.gradients.contains_key(&name)
}

/// The target's rlib directory, or the error naming what needed it and where Umbra looked.
fn library(
    module: Module,
    option: Option<&str>,
    needed: &BTreeMap<Key, Vec<Val>>,
) -> Result<std::path::PathBuf> {
    // `needed` is never empty here; the first entry in order, for a stable message.
    let Some(((first, _), calls)) = needed.iter().next() else {
        return Err(Error::general("no Rust library function to load"));
    };
    let call = calls[0];
    let why = format!(
        "'{first}' (Rust's {} crate) has no body in this module; Umbra loads it from the Rust toolchain's bitcode",
        names::root_crate(first).unwrap_or("?")
    );
    let (root, how) = sysroot::find(option).map_err(|e| {
        Error::at(
            call,
            format!(
                "{why}, but found no sysroot: {e} (give one with --rust-sysroot or RUST_SYSROOT)"
            ),
        )
    })?;
    let triple = module.target_triple();
    sysroot::lib_dir(&root, &triple).ok_or_else(|| {
        Error::at(
            call,
            format!(
                "{why}, but the sysroot {} (from {how}) has no rlibs for '{triple}' under lib/rustlib (give another with --rust-sysroot or RUST_SYSROOT)",
                root.display()
            ),
        )
    })
}

/// Links a copy of `name` from `bitcode` into `module` with the integer constants `consts`
/// in place of its parameters, under a name of its own, and points `calls` at it.
fn load_specialised(
    module: Module,
    bitcode: &[u8],
    name: &str,
    consts: &[Option<u64>],
    calls: &[Val],
) -> std::result::Result<(), String> {
    let src = link::parse_bitcode(module.context(), bitcode)?;
    let Some(f) = src.function(name).filter(|f| !f.is_declaration()) else {
        link::dispose(src);
        return Err(format!("its bitcode does not define '{name}'"));
    };
    let mut copy = format!("{name}.umbra");
    for (p, c) in f.params().into_iter().zip(consts) {
        match c {
            Some(c) if p.ty().is_int() => {
                p.replace_all_uses_with(p.ty().int_const(*c));
                copy.push_str(&format!(".{c}"));
            }
            _ => copy.push_str(".x"),
        }
    }
    f.set_name(&copy);
    let wanted = HashSet::from([copy.clone()]);
    link::link_internal(module, src, &wanted)?;
    let g = module
        .function(&copy)
        .ok_or_else(|| format!("'{copy}' is missing after linking"))?;
    for &call in calls {
        call.set_operand(call.num_operands() - 1, g);
    }
    Ok(())
}
