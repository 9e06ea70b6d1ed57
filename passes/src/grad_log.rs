//! Gradient logging as Enzyme does it: when the module has a function named `enzymeLogGrad` (or
//! Umbra's own `umbra_log_grad`), of type `void (double grad, const char *opcode, const char
//! *callee, const char *module, const char *function, unsigned block, unsigned inst)`, the
//! adjoint sweep calls it with each adjoint it propagates through a floating-point instruction
//! or a math function (the rows of `rules/instructions.rs` and the `Math` rules): the adjoint
//! (as a double), the instruction's opcode name, the callee's name (`""` for an instruction),
//! the module's identifier, the differentiated function's name, and the instruction's block
//! and position in that function. Enzyme emits the call at the same places (its derivative
//! patterns' reverse code), so its `ReverseMode/logger.cpp` counts the same calls.
//!
//! A logger with another type is refused with an error naming it, never called wrongly. The
//! logger runs in the adjoint sweep only; nothing changes for a module without one.

use crate::diag::{Error, Result};
use crate::ir::{Builder, Module, Opcode, Ty, TyKind, Val};

/// The names a logger may have, Enzyme's first.
pub const NAMES: [&str; 2] = ["enzymeLogGrad", "umbra_log_grad"];

/// True for a logger's name, C or C++ (`_Z13enzymeLogGraddPKcS0_S0_S0_jj`: a global
/// function whose parameters the type check below judges).
fn is_logger_name(name: &str) -> bool {
    NAMES.iter().any(|n| {
        name == *n
            || name
                .strip_prefix(&format!("_Z{}{n}", n.len()))
                .is_some_and(|rest| !rest.is_empty())
    })
}

/// The module's logger, if it has one; an error when its type is not the logger's.
pub fn logger(m: Module) -> Result<Option<Val>> {
    let found = NAMES.iter().find_map(|n| m.function(n)).or_else(|| {
        m.functions()
            .into_iter()
            .find(|f| is_logger_name(&f.name()))
    });
    let Some(f) = found else {
        return Ok(None);
    };
    let ty = f.function_type();
    let params = ty.param_types();
    let kinds: Vec<TyKind> = params.iter().map(|t| t.kind()).collect();
    let fits = ty.return_type().is_void()
        && !ty.is_var_arg()
        && params.len() == 7
        && params[0].print() == "double"
        && kinds[1..5].iter().all(|k| *k == TyKind::Ptr)
        && params[5..].iter().all(|t| t.print() == "i32");
    if !fits {
        return Err(Error::general(format!(
            "'{}' is the gradient logger's name, but its type is {}; a logger is void {}(double grad, const char *opcode, const char *callee, const char *module, const char *function, unsigned block, unsigned inst)",
            f.name(),
            ty.print(),
            f.name()
        )));
    }
    Ok(Some(f))
}

/// Calls `log` with adjoint `d` of source instruction `i` (scalar floats only: a vector's
/// lanes have no one value to report).
pub fn log(b: &mut Builder, log: Val, i: Val, d: Val) {
    let dt = d.ty();
    if !dt.is_float() || dt.is_vector() {
        return;
    }
    let m = b.module();
    let ctx = m.context();
    let double = Ty::double(ctx);
    let grad = if dt.print() == "double" {
        d
    } else {
        b.cast(Opcode::LLVMFPExt, d, double)
    };
    let callee = if i.is_call() {
        i.called_function().map(|f| f.name()).unwrap_or_default()
    } else {
        String::new()
    };
    let (opcode, function, block, inst) = position(i);
    let i32t = Ty::int(ctx, 32);
    let args = [
        grad,
        string(m, &opcode),
        string(m, &callee),
        string(m, &m.identifier()),
        string(m, &function),
        i32t.int_const(block),
        i32t.int_const(inst),
    ];
    b.call_function(log, &args);
}

/// `i`'s opcode name, function name, block index and index in the block.
fn position(i: Val) -> (String, String, u64, u64) {
    let text = i.print();
    let after = text
        .split_once(" = ")
        .map_or(text.trim(), |(_, r)| r.trim());
    let mut words = after.split_whitespace();
    let mut opcode = words.next().unwrap_or("").to_string();
    if opcode == "tail" || opcode == "musttail" || opcode == "notail" {
        opcode = words.next().unwrap_or("").to_string();
    }
    let Some(f) = i.parent_function() else {
        return (opcode, String::new(), 0, 0);
    };
    let here = i.parent_block();
    let blocks = f.blocks();
    let block = blocks.iter().position(|&b| b == here).unwrap_or(0) as u64;
    let inst = here
        .instructions()
        .iter()
        .position(|&x| x == i)
        .unwrap_or(0) as u64;
    (opcode, f.name(), block, inst)
}

/// A private constant C string.
fn string(m: Module, s: &str) -> Val {
    let arr = Val::const_string_in(m.context(), s);
    let g = m.add_global(arr.ty(), "umbra.log.str");
    g.set_initializer(arr);
    g.set_global_constant(true);
    g.set_internal();
    g
}

#[cfg(test)]
mod tests {
    #[test]
    fn logger_names_c_and_cxx() {
        assert!(super::is_logger_name("enzymeLogGrad"));
        assert!(super::is_logger_name("umbra_log_grad"));
        assert!(super::is_logger_name("_Z13enzymeLogGraddPKcS0_S0_S0_jj"));
        assert!(!super::is_logger_name("_Z13enzymeLogGrad"));
        assert!(!super::is_logger_name("enzymeLogGradient"));
        assert!(!super::is_logger_name("_ZN2ns13enzymeLogGradEd"));
    }
}
