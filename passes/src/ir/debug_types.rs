//! Source-level types from debug information (`-g`): what a variable bound to a value was
//! declared as (`double *x`, `double x[2]`, a struct), read from the function's `#dbg_value` /
//! `#dbg_declare` records. Only what the type analysis compares is kept: floating-point
//! fields, pointers and their pointees, arrays and struct members at their offsets.

use super::{sys, take_message, Val};
use sys::core as c;
use sys::debuginfo as di;
use sys::prelude::LLVMMetadataRef;

/// A declared type, reduced to its floats and pointers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiType {
    /// A floating-point type of this many bytes (`float`, `double`, `long double`).
    Float(u64),
    /// A pointer (or reference) to a value of the inner type, when that type is known.
    Pointer(Option<Box<DiType>>),
    /// `count` elements of the inner type, `stride` bytes apart.
    Array(Box<DiType>, u64, u64),
    /// Members at byte offsets.
    Struct(Vec<(u64, DiType)>),
    /// An integer of this many bytes (`int`, `unsigned long`, `char`, `bool`): what a
    /// reference to one reads is integer data.
    Integer(u64),
    /// Anything else (enums, unions, functions): nothing to compare.
    Other,
}

/// What a variable record says about a value: `Declare` describes the memory the value points
/// to (`#dbg_declare(ptr %x, ...)` on an alloca), `Value` the value itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiBinding {
    /// The value is the variable's address: the type is the pointee's.
    Declare(DiType),
    /// The value is the variable's value.
    Value(DiType),
}

const TAG_ARRAY: u16 = 0x01;
const TAG_CLASS: u16 = 0x02;
const TAG_MEMBER: u16 = 0x0d;
const TAG_POINTER: u16 = 0x0f;
const TAG_REFERENCE: u16 = 0x10;
const TAG_STRUCT: u16 = 0x13;
const TAG_TYPEDEF: u16 = 0x16;
const TAG_INHERITANCE: u16 = 0x1c;
const TAG_BASE: u16 = 0x24;
const TAG_CONST: u16 = 0x26;
const TAG_VOLATILE: u16 = 0x35;
const TAG_RESTRICT: u16 = 0x37;
const TAG_RVALUE_REFERENCE: u16 = 0x42;
const TAG_ATOMIC: u16 = 0x47;

/// Operands of LLVM's type nodes: every `DIType` has five (file, scope, name, size, offset);
/// derived and composite types' base type follows, then a composite type's elements.
const BASE_TYPE: usize = 5;
const ELEMENTS: usize = 6;
/// A `DILocalVariable`'s name (after its scope) and type (after scope, name and file).
const VARIABLE_NAME: usize = 1;
const VARIABLE_TYPE: usize = 3;

/// Pointers followed and aggregates entered at most this deep (recursive structs).
const MAX_NEST: usize = 6;
/// Members and elements described at most (a huge array is its first elements).
const MAX_PARTS: u64 = 512;

/// The declared types of the variables `f`'s debug records bind to `v`, when the record's
/// expression is empty (no fragments or dereferences).
pub fn bindings_of(f: Val, v: Val) -> Vec<DiBinding> {
    let mut out = Vec::new();
    for b in f.blocks() {
        for i in b.instructions() {
            // SAFETY: `i` is an instruction of a live function; records are owned by it.
            let mut rec = unsafe { c::LLVMGetFirstDbgRecord(i.0) };
            while !rec.is_null() {
                if let Some(binding) = unsafe { binding(rec, v) } {
                    out.push(binding);
                }
                rec = unsafe { c::LLVMGetNextDbgRecord(rec) };
            }
        }
    }
    out
}

/// The source name of a variable `f`'s debug records bind to `v` (`rowptr` for the parameter
/// `const int *rowptr`), for messages; `None` without debug information.
pub fn variable_name(f: Val, v: Val) -> Option<String> {
    use sys::LLVMDbgRecordKind::*;
    for b in f.blocks() {
        for i in b.instructions() {
            // SAFETY: `i` is an instruction of a live function; records are owned by it.
            let mut rec = unsafe { c::LLVMGetFirstDbgRecord(i.0) };
            while !rec.is_null() {
                // SAFETY: `rec` is a live record of `i`; the variable and its name are
                // metadata nodes of the same context as `v`.
                unsafe {
                    let kind = c::LLVMDbgRecordGetKind(rec);
                    if matches!(kind, LLVMDbgRecordDeclare | LLVMDbgRecordValue)
                        && c::LLVMDbgVariableRecordGetValue(rec, 0) == v.0
                    {
                        let var = c::LLVMDbgVariableRecordGetVariable(rec);
                        if !var.is_null()
                            && matches!(
                                di::LLVMGetMetadataKind(var),
                                di::LLVMMetadataKind::LLVMDILocalVariableMetadataKind
                            )
                        {
                            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(v.0));
                            if let Some(name) = operand(ctx, var, VARIABLE_NAME) {
                                let mut len = 0;
                                let raw =
                                    c::LLVMGetMDString(c::LLVMMetadataAsValue(ctx, name), &mut len);
                                if !raw.is_null() && len > 0 {
                                    return Some(super::string_from(raw, len as usize));
                                }
                            }
                        }
                    }
                    rec = c::LLVMGetNextDbgRecord(rec);
                }
            }
        }
    }
    None
}

/// The binding `rec` makes for `v`, if it is a variable record of `v` with an empty expression.
unsafe fn binding(rec: sys::prelude::LLVMDbgRecordRef, v: Val) -> Option<DiBinding> {
    use sys::LLVMDbgRecordKind::*;
    let kind = c::LLVMDbgRecordGetKind(rec);
    if !matches!(kind, LLVMDbgRecordDeclare | LLVMDbgRecordValue) {
        return None;
    }
    if c::LLVMDbgVariableRecordGetValue(rec, 0) != v.0 {
        return None;
    }
    if !take_message(c::LLVMPrintDbgRecordToString(rec)).contains("!DIExpression()") {
        return None;
    }
    let var = c::LLVMDbgVariableRecordGetVariable(rec);
    if var.is_null()
        || !matches!(
            di::LLVMGetMetadataKind(var),
            di::LLVMMetadataKind::LLVMDILocalVariableMetadataKind
        )
    {
        return None;
    }
    let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(v.0));
    let ty = operand(ctx, var, VARIABLE_TYPE)?;
    let t = read(ctx, ty, 0);
    Some(match kind {
        LLVMDbgRecordDeclare => DiBinding::Declare(t),
        _ => DiBinding::Value(t),
    })
}

/// True when basic type `md` is encoded as an integer (`DW_ATE_signed`, `_unsigned`, their
/// `_char` kinds, `_boolean`, `_UTF`); the C API has no getter for the encoding, so it is read
/// from the node's printed form.
unsafe fn integer_encoding(ctx: sys::prelude::LLVMContextRef, md: LLVMMetadataRef) -> bool {
    let printed = take_message(c::LLVMPrintValueToString(c::LLVMMetadataAsValue(ctx, md)));
    [
        "DW_ATE_signed",
        "DW_ATE_unsigned",
        "DW_ATE_boolean",
        "DW_ATE_UTF",
    ]
    .iter()
    .any(|e| printed.contains(&format!("encoding: {e}")))
}

/// Operand `k` of the metadata node `md`, when present.
unsafe fn operand(
    ctx: sys::prelude::LLVMContextRef,
    md: LLVMMetadataRef,
    k: usize,
) -> Option<LLVMMetadataRef> {
    if md.is_null() {
        return None;
    }
    let node = c::LLVMMetadataAsValue(ctx, md);
    let n = c::LLVMGetMDNodeNumOperands(node) as usize;
    if k >= n {
        return None;
    }
    let mut ops = vec![std::ptr::null_mut(); n];
    c::LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
    let op = ops[k];
    (!op.is_null()).then(|| c::LLVMValueAsMetadata(op))
}

/// The operands of a tuple node (a composite type's elements).
unsafe fn tuple(ctx: sys::prelude::LLVMContextRef, md: LLVMMetadataRef) -> Vec<LLVMMetadataRef> {
    let node = c::LLVMMetadataAsValue(ctx, md);
    let n = c::LLVMGetMDNodeNumOperands(node) as usize;
    let mut ops = vec![std::ptr::null_mut(); n];
    if n > 0 {
        c::LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
    }
    ops.into_iter()
        .filter(|o| !o.is_null())
        .map(|o| c::LLVMValueAsMetadata(o))
        .collect()
}

/// The type `md` describes.
unsafe fn read(ctx: sys::prelude::LLVMContextRef, md: LLVMMetadataRef, depth: usize) -> DiType {
    use di::LLVMMetadataKind::*;
    if md.is_null() || depth > MAX_NEST {
        return DiType::Other;
    }
    if !matches!(
        di::LLVMGetMetadataKind(md),
        LLVMDIBasicTypeMetadataKind
            | LLVMDIDerivedTypeMetadataKind
            | LLVMDICompositeTypeMetadataKind
    ) {
        return DiType::Other;
    }
    let base = |k| operand(ctx, md, k);
    match di::LLVMGetDINodeTag(md) {
        TAG_BASE => {
            let mut len = 0;
            let name = super::string_from(di::LLVMDITypeGetName(md, &mut len), len);
            let bytes = di::LLVMDITypeGetSizeInBits(md) / 8;
            match name.as_str() {
                "float" | "double" | "long double" => DiType::Float(bytes),
                _ if integer_encoding(ctx, md) => DiType::Integer(bytes),
                _ => DiType::Other,
            }
        }
        TAG_TYPEDEF | TAG_CONST | TAG_VOLATILE | TAG_RESTRICT | TAG_ATOMIC => {
            base(BASE_TYPE).map_or(DiType::Other, |b| read(ctx, b, depth + 1))
        }
        TAG_POINTER | TAG_REFERENCE | TAG_RVALUE_REFERENCE => {
            DiType::Pointer(base(BASE_TYPE).map(|b| Box::new(read(ctx, b, depth + 1))))
        }
        TAG_ARRAY => {
            let Some(e) = base(BASE_TYPE) else {
                return DiType::Other;
            };
            let stride = di::LLVMDITypeGetSizeInBits(e) / 8;
            let total = di::LLVMDITypeGetSizeInBits(md) / 8;
            if stride == 0 {
                return DiType::Other;
            }
            let count = (total / stride).min(MAX_PARTS);
            DiType::Array(Box::new(read(ctx, e, depth + 1)), count, stride)
        }
        TAG_STRUCT | TAG_CLASS => {
            let Some(elements) = base(ELEMENTS) else {
                return DiType::Other;
            };
            let mut members = Vec::new();
            for m in tuple(ctx, elements).into_iter().take(MAX_PARTS as usize) {
                if !matches!(di::LLVMGetMetadataKind(m), LLVMDIDerivedTypeMetadataKind) {
                    continue;
                }
                let tag = di::LLVMGetDINodeTag(m);
                // Static members have no offset in the object; they are declarations.
                let is_static =
                    di::LLVMDITypeGetFlags(m) & sys::debuginfo::LLVMDIFlagStaticMember != 0;
                if !(tag == TAG_MEMBER || tag == TAG_INHERITANCE) || is_static {
                    continue;
                }
                let bits = di::LLVMDITypeGetOffsetInBits(m);
                if !bits.is_multiple_of(8) {
                    continue;
                }
                let t =
                    operand(ctx, m, BASE_TYPE).map_or(DiType::Other, |b| read(ctx, b, depth + 1));
                members.push((bits / 8, t));
            }
            DiType::Struct(members)
        }
        _ => DiType::Other,
    }
}
