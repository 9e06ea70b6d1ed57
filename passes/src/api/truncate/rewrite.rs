//! Rewriting a function body so that its floating-point operations of the truncation's FROM
//! type are computed in its TO type, in Enzyme's two modes.
//!
//! - **Op mode** (`__enzyme_truncate_op_func`, `--truncate-all`): values keep the FROM type
//!   everywhere (arguments, returns, memory, phis); each arithmetic operation (`fadd`, `fsub`,
//!   `fmul`, `fdiv`, `frem`, `fneg`, scalar or vector), each math intrinsic and each libm call
//!   converts its FROM operands down to TO (`fptrunc`), computes at TO and converts the result
//!   back up (`fpext`). As in Enzyme, comparisons, casts, selects, loads and stores are left
//!   alone, and calls to functions without a body run as they are.
//! - **Mem mode** (`__enzyme_truncate_mem_func`): a FROM value *is* its truncated
//!   representation: the TO value's bits, zero-extended into the FROM value's bits (what Enzyme
//!   programs rely on is only the round trip through `__enzyme_truncate_mem_value` and
//!   `__enzyme_expand_mem_value`). Arguments, returns, memory, phis and selects carry it
//!   unchanged; operations decode their operands (`bitcast`, `trunc`, `bitcast`), compute at
//!   TO (comparisons and conversions too) and encode their results; FROM constants become
//!   their encoding.
//!
//! Calls to other defined functions call their truncated copy (same mode, built once), except
//! in `--truncate-all`, which truncates every body in place.
//!
//! Guarantees: what is not handled is refused with an error naming the instruction, never left
//! computing at FROM where the mode says TO: intrinsics outside the known math set, libm
//! functions without an intrinsic or a TO variant; in mem mode also values escaping to
//! functions without a body (`printf`), bit casts of FROM values, vectors and aggregate
//! constants of FROM.

use super::format::Truncation;
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{copy_function, copyable, fresh_name, Builder, Opcode, Ty, Val};
use std::collections::HashMap;

/// Which of Enzyme's modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Operations truncated, values at FROM.
    Op,
    /// Values held in the truncated representation.
    Mem,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Op => "op",
            Mode::Mem => "mem",
        }
    }
}

/// LLVM's math intrinsics overloaded on their floating-point type only (plus `powi` and
/// `ldexp`, overloaded on the integer too), which the truncated code calls at TO.
const MATH_INTRINSICS: &[&str] = &[
    "llvm.sqrt",
    "llvm.sin",
    "llvm.cos",
    "llvm.tan",
    "llvm.asin",
    "llvm.acos",
    "llvm.atan",
    "llvm.atan2",
    "llvm.sinh",
    "llvm.cosh",
    "llvm.tanh",
    "llvm.exp",
    "llvm.exp2",
    "llvm.exp10",
    "llvm.log",
    "llvm.log2",
    "llvm.log10",
    "llvm.pow",
    "llvm.powi",
    "llvm.ldexp",
    "llvm.fabs",
    "llvm.floor",
    "llvm.ceil",
    "llvm.trunc",
    "llvm.rint",
    "llvm.nearbyint",
    "llvm.round",
    "llvm.roundeven",
    "llvm.minnum",
    "llvm.maxnum",
    "llvm.minimum",
    "llvm.maximum",
    "llvm.copysign",
    "llvm.fma",
    "llvm.fmuladd",
    "llvm.canonicalize",
    // Overloaded on their (vector) operand rather than their result.
    "llvm.vector.reduce.fadd",
    "llvm.vector.reduce.fmul",
    "llvm.vector.reduce.fmax",
    "llvm.vector.reduce.fmin",
    "llvm.vector.reduce.fmaximum",
    "llvm.vector.reduce.fminimum",
    "llvm.is.fpclass",
    // Overloaded on their integer result and their operand.
    "llvm.lrint",
    "llvm.llrint",
    "llvm.lround",
    "llvm.llround",
    "llvm.fptosi.sat",
    "llvm.fptoui.sat",
];

/// The overload types of intrinsic `intr` called with (already truncated) operands `ops` and
/// result type `ret` (already truncated when it is a float).
fn overloads(intr: &str, ops: &[Val], ret: Ty) -> Vec<Ty> {
    match intr {
        "llvm.powi" | "llvm.ldexp" => vec![ret, ops[1].ty()],
        "llvm.vector.reduce.fadd" | "llvm.vector.reduce.fmul" => vec![ops[1].ty()],
        "llvm.vector.reduce.fmax"
        | "llvm.vector.reduce.fmin"
        | "llvm.vector.reduce.fmaximum"
        | "llvm.vector.reduce.fminimum"
        | "llvm.is.fpclass" => vec![ops[0].ty()],
        "llvm.lrint" | "llvm.llrint" | "llvm.lround" | "llvm.llround" | "llvm.fptosi.sat"
        | "llvm.fptoui.sat" => vec![ret, ops[0].ty()],
        _ => vec![ret],
    }
}

/// libm functions (the `double` spelling) with the intrinsic computing the same.
const LIBM_INTRINSICS: &[(&str, &str)] = &[
    ("sqrt", "llvm.sqrt"),
    ("sin", "llvm.sin"),
    ("cos", "llvm.cos"),
    ("tan", "llvm.tan"),
    ("asin", "llvm.asin"),
    ("acos", "llvm.acos"),
    ("atan", "llvm.atan"),
    ("atan2", "llvm.atan2"),
    ("sinh", "llvm.sinh"),
    ("cosh", "llvm.cosh"),
    ("tanh", "llvm.tanh"),
    ("exp", "llvm.exp"),
    ("exp2", "llvm.exp2"),
    ("exp10", "llvm.exp10"),
    ("log", "llvm.log"),
    ("log2", "llvm.log2"),
    ("log10", "llvm.log10"),
    ("pow", "llvm.pow"),
    ("ldexp", "llvm.ldexp"),
    ("fabs", "llvm.fabs"),
    ("floor", "llvm.floor"),
    ("ceil", "llvm.ceil"),
    ("trunc", "llvm.trunc"),
    ("rint", "llvm.rint"),
    ("nearbyint", "llvm.nearbyint"),
    ("round", "llvm.round"),
    ("roundeven", "llvm.roundeven"),
    ("fmin", "llvm.minnum"),
    ("fmax", "llvm.maxnum"),
    ("copysign", "llvm.copysign"),
    ("fma", "llvm.fma"),
];

/// libm functions without an intrinsic: called in their `float` spelling when truncating
/// `double` to `float` (libm has no `half` or `bfloat` entry points).
const LIBM_FLOAT_ONLY: &[&str] = &[
    "cbrt",
    "expm1",
    "log1p",
    "hypot",
    "erf",
    "erfc",
    "tgamma",
    "lgamma",
    "asinh",
    "acosh",
    "atanh",
    "fmod",
    "remainder",
    "fdim",
];

/// Builds truncated copies of functions and rewrites bodies, remembering the copies made.
pub struct Truncator {
    builder: Builder,
    copies: HashMap<(Val, Truncation, Mode), Val>,
}

impl Truncator {
    /// A truncator for `module`.
    pub fn new(module: crate::ir::Module) -> Truncator {
        Truncator {
            builder: Builder::new(module),
            copies: HashMap::new(),
        }
    }

    /// The copies made so far, with their mode.
    pub fn copies(&self) -> impl Iterator<Item = (Val, Mode)> + '_ {
        self.copies.iter().map(|((_, _, m), &c)| (c, *m))
    }

    /// The truncated copy of defined function `f` (built on first use), for the call `site`.
    pub fn copy_of(&mut self, f: Val, t: Truncation, mode: Mode, site: Val) -> Result<Val> {
        if let Some(&c) = self.copies.get(&(f, t, mode)) {
            return Ok(c);
        }
        if !copyable(f) {
            return Err(Error::user_at(
                site,
                format!(
                    "cannot truncate '{}': it is variadic or holds block addresses or setjmp",
                    f.name()
                ),
            )
            .with_kind(ErrorKind::Unsupported));
        }
        let base = format!("{}.umbra_trunc_{}_{}", f.name(), mode.name(), t.mangled());
        let copy = copy_function(f, &fresh_name(f, &base));
        // Before the body: a recursive call finds the copy.
        self.copies.insert((f, t, mode), copy);
        self.rewrite(copy, t, mode, true)?;
        Ok(copy)
    }

    /// Rewrites `f`'s body in place; `follow`: calls to defined functions call their copies.
    pub fn rewrite(&mut self, f: Val, t: Truncation, mode: Mode, follow: bool) -> Result<()> {
        let insts: Vec<Val> = f
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .collect();
        for i in insts {
            self.visit(i, t, mode, follow)?;
        }
        Ok(())
    }

    fn visit(&mut self, i: Val, t: Truncation, mode: Mode, follow: bool) -> Result<()> {
        let ctx = self.builder.module().context();
        let from = t.from.ty(ctx);
        let is_from = |ty: Ty| ty == from || (ty.is_vector() && ty.element() == from);
        let has_from = i.operands().iter().any(|o| is_from(o.ty())) || is_from(i.ty());
        if mode == Mode::Mem
            && has_from
            && (i.ty().is_vector() && is_from(i.ty())
                || i.operands()
                    .iter()
                    .any(|o| o.ty().is_vector() && is_from(o.ty())))
        {
            return Err(refuse(
                i,
                format!(
                    "memory-mode truncation does not handle vectors of {}",
                    t.from.type_name()
                ),
            ));
        }
        use Opcode::*;
        match i.opcode() {
            LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFNeg if is_from(i.ty()) => {
                self.builder.position_before(i);
                let ops: Vec<Val> = i
                    .operands()
                    .into_iter()
                    .map(|o| self.down(o, t, mode))
                    .collect();
                self.builder.set_fast_math_from(i);
                let r = if i.opcode() == LLVMFNeg {
                    self.builder.fneg(ops[0])
                } else {
                    self.builder.binop(i.opcode(), ops[0], ops[1])
                };
                self.builder.clear_fast_math();
                let r = self.up(r, t, mode);
                replace(i, r);
            }
            LLVMCall | LLVMInvoke => self.visit_call(i, t, mode, follow)?,
            // Arithmetic in memory: neither mode has a narrow form of it.
            LLVMAtomicRMW if has_from => {
                return Err(refuse(
                    i,
                    format!(
                        "cannot truncate an atomic read-modify-write of a {}",
                        t.from.type_name()
                    ),
                ))
            }
            _ if mode == Mode::Op || !has_from => {}
            LLVMFCmp => {
                self.builder.position_before(i);
                let a = self.down(i.operand(0), t, mode);
                let b = self.down(i.operand(1), t, mode);
                // The same predicate and flags on the decoded operands.
                let n = i.clone_instruction();
                self.builder.insert(n);
                n.set_operand(0, a);
                n.set_operand(1, b);
                replace(i, n);
            }
            LLVMFPExt | LLVMFPTrunc | LLVMSIToFP | LLVMUIToFP | LLVMFPToSI | LLVMFPToUI => {
                self.builder.position_before(i);
                let src = i.operand(0);
                let src = if src.ty() == from {
                    self.down(src, t, mode)
                } else {
                    src
                };
                let to = t.to.ty(ctx);
                let r = match i.opcode() {
                    LLVMFPToSI | LLVMFPToUI => self.builder.cast(i.opcode(), src, i.ty()),
                    LLVMSIToFP | LLVMUIToFP => {
                        let v = self.builder.cast(i.opcode(), src, to);
                        self.up(v, t, mode)
                    }
                    // fpext/fptrunc: to the result's format, through TO when that is FROM.
                    _ if i.ty() == from => {
                        let v = self.builder.fp_cast(src, to);
                        self.up(v, t, mode)
                    }
                    _ => self.builder.fp_cast(src, i.ty()),
                };
                replace(i, r);
            }
            LLVMBitCast => {
                return Err(refuse(
                    i,
                    format!(
                        "memory-mode truncation cannot reinterpret the bits of a {} value (they hold its truncated representation)",
                        t.from.type_name()
                    ),
                ))
            }
            LLVMLoad => {
                // The program's own data is not in the truncated representation.
                if let Some(g) = global_with_values(i.operand(0), from) {
                    return Err(refuse(
                        i,
                        format!(
                            "memory-mode truncation cannot read the global '{}': its initial {} values are not in the truncated representation",
                            g.name(),
                            t.from.type_name()
                        ),
                    ));
                }
            }
            _ => self.encode_constants(i, t)?,
        }
        Ok(())
    }

    fn visit_call(&mut self, i: Val, t: Truncation, mode: Mode, follow: bool) -> Result<()> {
        let ctx = self.builder.module().context();
        let from = t.from.ty(ctx);
        let is_from = |ty: Ty| ty == from || (ty.is_vector() && ty.element() == from);
        let args = i.call_args();
        let touches = args.iter().any(|a| is_from(a.ty())) || is_from(i.ty());
        let callee = i.called_function();
        if let Some(g) = callee.filter(|g| !g.is_declaration()) {
            if follow {
                let copy = self.copy_of(g, t, mode, i)?;
                // The callee is a call's last operand.
                i.set_operand(i.num_operands() - 1, copy);
            }
            if mode == Mode::Mem {
                self.encode_constants(i, t)?;
            }
            return Ok(());
        }
        if !touches {
            return Ok(());
        }
        let name = callee.map(|g| g.name()).unwrap_or_default();
        if name.starts_with("llvm.dbg.") || name.starts_with("llvm.lifetime.") {
            return Ok(());
        }
        // The intrinsic computing the call at TO, or a libm entry point in TO's spelling.
        let math = MATH_INTRINSICS
            .iter()
            .find(|m| {
                name.strip_prefix(**m)
                    .is_some_and(|rest| rest.starts_with('.'))
            })
            .map(|m| m.to_string())
            .or_else(|| libm_intrinsic(&name, t).map(str::to_string));
        let float_libm = libm_float_variant(&name, t);
        if i.is_invoke() && (math.is_some() || float_libm.is_some()) {
            return Err(refuse(i, format!("cannot truncate an invoke of '{name}'")));
        }
        let to = t.to.ty(ctx);
        let to_of = |ty: Ty| {
            if ty.is_vector() {
                Ty::vector(to, ty.vector_len())
            } else {
                to
            }
        };
        if let Some(intr) = math {
            self.builder.position_before(i);
            let ops: Vec<Val> = args.iter().map(|&a| self.down(a, t, mode)).collect();
            let ret = if is_from(i.ty()) {
                to_of(i.ty())
            } else {
                i.ty()
            };
            let overloads = overloads(&intr, &ops, ret);
            self.builder.set_fast_math_from(i);
            let r = self.builder.intrinsic(&intr, &overloads, &ops);
            self.builder.clear_fast_math();
            let Some(r) = r else {
                return Err(refuse(i, format!("LLVM has no {intr} for {}", t.to.name())));
            };
            // Integer results (classification, rounding to integers) are what they are.
            let r = if is_from(i.ty()) {
                self.up(r, t, mode)
            } else {
                r
            };
            replace(i, r);
            return Ok(());
        }
        if let Some(fname) = float_libm {
            self.builder.position_before(i);
            let ops: Vec<Val> = args.iter().map(|&a| self.down(a, t, mode)).collect();
            let params: Vec<Ty> = ops.iter().map(|o| o.ty()).collect();
            let f = self
                .builder
                .module()
                .get_or_add_function(&fname, Ty::function(to, &params, false));
            let r = self.builder.call_function(f, &ops);
            let r = self.up(r, t, mode);
            replace(i, r);
            return Ok(());
        }
        if name.starts_with("llvm.") || is_libm(&name, t) {
            return Err(refuse(
                i,
                format!(
                    "cannot compute '{name}' in {}: umbra truncates LLVM's math intrinsics and the libm functions that have one",
                    t.to.name()
                ),
            ));
        }
        if mode == Mode::Mem {
            let shown = if name.is_empty() {
                "an indirect call".to_string()
            } else {
                format!("'{name}'")
            };
            return Err(refuse(
                i,
                format!(
                    "a {} in memory-mode truncated representation escapes to {shown}, which has no body to truncate",
                    t.from.type_name()
                ),
            ));
        }
        // Op mode: functions without a body run at FROM, as in Enzyme.
        Ok(())
    }

    /// A FROM operand as a TO value: converted in op mode, decoded in mem mode (constants
    /// of the program are values, not encodings, and are converted).
    fn down(&mut self, v: Val, t: Truncation, mode: Mode) -> Val {
        let ctx = self.builder.module().context();
        let from = t.from.ty(ctx);
        let to = t.to.ty(ctx);
        if v.ty() != from && !(v.ty().is_vector() && v.ty().element() == from) {
            return v;
        }
        let to = if v.ty().is_vector() {
            Ty::vector(to, v.ty().vector_len())
        } else {
            to
        };
        if mode == Mode::Op || (v.is_constant() && !v.is_instruction()) {
            return self.builder.fp_cast(v, to);
        }
        decode(&mut self.builder, v, t)
    }

    /// A TO result as a FROM value: converted in op mode, encoded in mem mode.
    fn up(&mut self, v: Val, t: Truncation, mode: Mode) -> Val {
        let ctx = self.builder.module().context();
        match mode {
            Mode::Op => {
                let from = t.from.ty(ctx);
                let from = if v.ty().is_vector() {
                    Ty::vector(from, v.ty().vector_len())
                } else {
                    from
                };
                self.builder.fp_cast(v, from)
            }
            Mode::Mem => encode(&mut self.builder, v, t),
        }
    }

    /// Mem mode: FROM constants among `i`'s operands become their encoding (a zero stays
    /// zero); aggregate constants holding FROM values are refused.
    fn encode_constants(&mut self, i: Val, t: Truncation) -> Result<()> {
        let ctx = self.builder.module().context();
        let from = t.from.ty(ctx);
        let to = t.to.ty(ctx);
        for k in 0..i.num_operands() {
            let o = i.operand(k);
            if !o.is_constant() || o.is_function() || o.is_global_variable() || o.is_undef() {
                continue;
            }
            if o.ty() == from {
                self.builder.position_before(i);
                let v = self.builder.fp_cast(o, to);
                let e = encode(&mut self.builder, v, t);
                i.set_operand(k, e);
            } else if o.ty().contains_float() && !o.is_null_constant() && contains_ty(o.ty(), from)
            {
                return Err(refuse(
                    i,
                    format!(
                        "memory-mode truncation does not rewrite {} values inside aggregate constants",
                        t.from.type_name()
                    ),
                ));
            }
        }
        // Incoming constants of phis are operands too, handled above.
        Ok(())
    }
}

/// The TO value whose encoding FROM value `v` is.
pub fn decode(b: &mut Builder, v: Val, t: Truncation) -> Val {
    let ctx = b.module().context();
    let wide = Ty::int(ctx, t.from.bits());
    let narrow = Ty::int(ctx, t.to.bits());
    let bits = b.cast(Opcode::LLVMBitCast, v, wide);
    let bits = b.cast(Opcode::LLVMTrunc, bits, narrow);
    b.cast(Opcode::LLVMBitCast, bits, t.to.ty(ctx))
}

/// The FROM value holding TO value `v`'s encoding: its bits, zero-extended.
pub fn encode(b: &mut Builder, v: Val, t: Truncation) -> Val {
    let ctx = b.module().context();
    let wide = Ty::int(ctx, t.from.bits());
    let narrow = Ty::int(ctx, t.to.bits());
    let bits = b.cast(Opcode::LLVMBitCast, v, narrow);
    let bits = b.cast(Opcode::LLVMZExt, bits, wide);
    b.cast(Opcode::LLVMBitCast, bits, t.from.ty(ctx))
}

fn replace(old: Val, new: Val) {
    old.replace_all_uses_with(new);
    old.erase();
}

fn refuse(i: Val, message: String) -> Error {
    Error::user_at(i, message).with_kind(ErrorKind::Unsupported)
}

/// The global variable `ptr` points into (through GEPs and casts) when its initializer holds
/// non-zero `want` values.
fn global_with_values(mut ptr: Val, want: Ty) -> Option<Val> {
    for _ in 0..32 {
        if ptr.is_global_variable() {
            let init = ptr.initializer()?;
            let holds =
                contains_ty(init.ty(), want) && !init.is_null_constant() && !init.is_undef();
            return holds.then_some(ptr);
        }
        let op = if ptr.is_instruction() {
            ptr.opcode()
        } else if ptr.is_constant_expr() {
            ptr.const_opcode()
        } else {
            return None;
        };
        match op {
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => {
                ptr = ptr.operand(0)
            }
            _ => return None,
        }
    }
    None
}

/// True when `ty` is or holds `want`.
fn contains_ty(ty: Ty, want: Ty) -> bool {
    if ty == want {
        return true;
    }
    if ty.is_vector() {
        return ty.element() == want;
    }
    match ty.kind() {
        crate::ir::TyKind::Array => contains_ty(ty.element(), want),
        crate::ir::TyKind::Struct => ty.struct_fields().into_iter().any(|f| contains_ty(f, want)),
        _ => false,
    }
}

/// libm's spelling suffix for FROM (`""` for double, `"f"` for float); none for 16-bit types.
fn libm_suffix(t: Truncation) -> Option<&'static str> {
    match t.from {
        super::format::Format::F64 => Some(""),
        super::format::Format::F32 => Some("f"),
        _ => None,
    }
}

/// The libm base name of `name` in FROM's spelling (`sinf` is `sin` when FROM is float).
fn libm_base(name: &str, t: Truncation) -> Option<&str> {
    let suffix = libm_suffix(t)?;
    let base = name.strip_suffix(suffix)?;
    let known = LIBM_INTRINSICS.iter().any(|(l, _)| *l == base) || LIBM_FLOAT_ONLY.contains(&base);
    known.then_some(base)
}

fn is_libm(name: &str, t: Truncation) -> bool {
    libm_base(name, t).is_some()
}

fn libm_intrinsic(name: &str, t: Truncation) -> Option<&'static str> {
    let base = libm_base(name, t)?;
    LIBM_INTRINSICS
        .iter()
        .find(|(l, _)| *l == base)
        .map(|(_, i)| *i)
}

/// The `float` spelling of a libm function without an intrinsic, when TO is float.
fn libm_float_variant(name: &str, t: Truncation) -> Option<String> {
    let base = libm_base(name, t)?;
    (LIBM_FLOAT_ONLY.contains(&base) && t.to == super::format::Format::F32)
        .then(|| format!("{base}f"))
}
