//! [`Ty`]: a handle on an LLVM type, with the questions differentiation asks of types.

use super::{sys, take_message, Val};
use sys::core as c;
use sys::LLVMTypeKind as K;

/// An LLVM type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ty(pub(super) sys::prelude::LLVMTypeRef);

/// The shapes of type that differentiation distinguishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TyKind {
    /// `void`
    Void,
    /// Any floating-point scalar (`half`, `float`, `double`, `x86_fp80`, `fp128`, ...).
    Float,
    /// An integer of any width.
    Int,
    /// A pointer.
    Ptr,
    /// A fixed or scalable vector.
    Vector,
    /// A literal or named struct.
    Struct,
    /// An array.
    Array,
    /// A function type.
    Function,
    /// Labels, metadata, tokens, target types: never differentiated.
    Other,
}

impl Ty {
    /// The coarse kind of this type.
    pub fn kind(self) -> TyKind {
        match unsafe { c::LLVMGetTypeKind(self.0) } {
            K::LLVMVoidTypeKind => TyKind::Void,
            K::LLVMHalfTypeKind
            | K::LLVMBFloatTypeKind
            | K::LLVMFloatTypeKind
            | K::LLVMDoubleTypeKind
            | K::LLVMX86_FP80TypeKind
            | K::LLVMFP128TypeKind
            | K::LLVMPPC_FP128TypeKind => TyKind::Float,
            K::LLVMIntegerTypeKind => TyKind::Int,
            K::LLVMPointerTypeKind => TyKind::Ptr,
            K::LLVMVectorTypeKind | K::LLVMScalableVectorTypeKind => TyKind::Vector,
            K::LLVMStructTypeKind => TyKind::Struct,
            K::LLVMArrayTypeKind => TyKind::Array,
            K::LLVMFunctionTypeKind => TyKind::Function,
            _ => TyKind::Other,
        }
    }

    /// True for floating-point scalars.
    pub fn is_float(self) -> bool {
        self.kind() == TyKind::Float
    }
    /// True for integers.
    pub fn is_int(self) -> bool {
        self.kind() == TyKind::Int
    }
    /// True for pointers.
    pub fn is_ptr(self) -> bool {
        self.kind() == TyKind::Ptr
    }
    /// True for pointers and vectors of pointers (a gather's or scatter's addresses).
    pub fn is_ptr_or_ptr_vector(self) -> bool {
        self.is_ptr() || (self.is_vector() && self.element().is_ptr())
    }
    /// True for scalable vectors (`<vscale x 2 x double>`), whose size is not a constant.
    pub fn is_scalable_vector(self) -> bool {
        unsafe { c::LLVMGetTypeKind(self.0) == K::LLVMScalableVectorTypeKind }
    }
    /// True for `void`.
    pub fn is_void(self) -> bool {
        self.kind() == TyKind::Void
    }
    /// True for vectors.
    pub fn is_vector(self) -> bool {
        self.kind() == TyKind::Vector
    }

    /// The scalar type: the element type of a vector, else the type itself.
    pub fn scalar(self) -> Ty {
        if self.is_vector() {
            self.element()
        } else {
            self
        }
    }

    /// True for floating-point scalars and vectors of them.
    pub fn is_fp_or_fp_vector(self) -> bool {
        self.scalar().is_float()
    }

    /// Element type of a vector or array.
    pub fn element(self) -> Ty {
        Ty(unsafe { c::LLVMGetElementType(self.0) })
    }

    /// Number of elements of a (fixed) vector.
    pub fn vector_len(self) -> u32 {
        unsafe { c::LLVMGetVectorSize(self.0) }
    }

    /// Number of elements of an array.
    pub fn array_len(self) -> u64 {
        unsafe { c::LLVMGetArrayLength2(self.0) }
    }

    /// Field types of a struct.
    pub fn struct_fields(self) -> Vec<Ty> {
        let n = unsafe { c::LLVMCountStructElementTypes(self.0) };
        (0..n)
            .map(|i| Ty(unsafe { c::LLVMStructGetTypeAtIndex(self.0, i) }))
            .collect()
    }

    /// True when a value of this type can carry a derivative: a floating-point scalar, a
    /// pointer (through its shadow), or a vector/struct/array containing one.
    pub fn carries_derivative(self) -> bool {
        match self.kind() {
            TyKind::Float | TyKind::Ptr => true,
            TyKind::Vector => self.element().carries_derivative(),
            TyKind::Array => self.element().carries_derivative(),
            TyKind::Struct => self.struct_fields().into_iter().any(Ty::carries_derivative),
            _ => false,
        }
    }

    /// True when this type holds floating-point data somewhere (not counting pointers).
    pub fn contains_float(self) -> bool {
        match self.kind() {
            TyKind::Float => true,
            TyKind::Vector | TyKind::Array => self.element().contains_float(),
            TyKind::Struct => self.struct_fields().into_iter().any(Ty::contains_float),
            _ => false,
        }
    }

    /// True when this type holds a pointer somewhere.
    pub fn contains_ptr(self) -> bool {
        match self.kind() {
            TyKind::Ptr => true,
            TyKind::Vector | TyKind::Array => self.element().contains_ptr(),
            TyKind::Struct => self.struct_fields().into_iter().any(Ty::contains_ptr),
            _ => false,
        }
    }

    /// The all-zero constant of this type (`0.0`, `null`, `zeroinitializer`, ...).
    pub fn zero(self) -> Val {
        Val(unsafe { c::LLVMConstNull(self.0) })
    }

    /// The additive identity of floating-point addition for this type: `-0.0` in every float
    /// (`x + -0.0` is `x` for every `x`, so LLVM folds it away; `x + 0.0` turns `-0.0` into
    /// `0.0` and stays), zero elsewhere.
    pub fn neg_zero(self) -> Val {
        match self.kind() {
            TyKind::Float => self.float_const(-0.0),
            TyKind::Vector if self.is_fp_or_fp_vector() => self.float_const(-0.0),
            TyKind::Struct => {
                let parts: Vec<Val> = self.struct_fields().iter().map(|f| f.neg_zero()).collect();
                Val::const_aggregate(self, &parts)
            }
            TyKind::Array => {
                let e = self.element().neg_zero();
                Val::const_aggregate(self, &vec![e; self.array_len() as usize])
            }
            _ => self.zero(),
        }
    }

    /// `undef` of this type.
    pub fn undef(self) -> Val {
        Val(unsafe { c::LLVMGetUndef(self.0) })
    }

    /// `poison` of this type.
    pub fn poison(self) -> Val {
        Val(unsafe { c::LLVMGetPoison(self.0) })
    }

    /// A floating-point constant (or splat vector of it) of this type.
    pub fn float_const(self, x: f64) -> Val {
        let s = Val(unsafe { c::LLVMConstReal(self.scalar().0, x) });
        if self.is_vector() {
            let elems = vec![s.0; self.vector_len() as usize];
            Val(unsafe { c::LLVMConstVector(elems.as_ptr() as *mut _, elems.len() as u32) })
        } else {
            s
        }
    }

    /// An integer constant of this (integer) type.
    pub fn int_const(self, x: u64) -> Val {
        Val(unsafe { c::LLVMConstInt(self.0, x, 0) })
    }

    /// Bit width of an integer type. Panics for any other type (LLVM would read another
    /// type's storage as an integer type's).
    pub fn int_width(self) -> u32 {
        assert!(self.is_int(), "int_width of a non-integer type");
        // SAFETY: an integer type, as LLVMGetIntTypeWidth requires.
        unsafe { c::LLVMGetIntTypeWidth(self.0) }
    }

    /// Return type of a function type.
    pub fn return_type(self) -> Ty {
        Ty(unsafe { c::LLVMGetReturnType(self.0) })
    }

    /// Parameter types of a function type.
    pub fn param_types(self) -> Vec<Ty> {
        let n = unsafe { c::LLVMCountParamTypes(self.0) } as usize;
        let mut out = vec![std::ptr::null_mut(); n];
        unsafe { c::LLVMGetParamTypes(self.0, out.as_mut_ptr()) };
        out.into_iter().map(Ty).collect()
    }

    /// True for a variadic function type.
    pub fn is_var_arg(self) -> bool {
        unsafe { c::LLVMIsFunctionVarArg(self.0) != 0 }
    }

    /// A function type `ret (params...)`.
    pub fn function(ret: Ty, params: &[Ty], var_arg: bool) -> Ty {
        let mut p: Vec<_> = params.iter().map(|t| t.0).collect();
        Ty(unsafe { c::LLVMFunctionType(ret.0, p.as_mut_ptr(), p.len() as u32, var_arg as i32) })
    }

    /// A literal struct `{ fields... }` in `ctx`.
    pub fn literal_struct(ctx: sys::prelude::LLVMContextRef, fields: &[Ty]) -> Ty {
        let mut f: Vec<_> = fields.iter().map(|t| t.0).collect();
        Ty(unsafe { c::LLVMStructTypeInContext(ctx, f.as_mut_ptr(), f.len() as u32, 0) })
    }

    /// `iN` in `ctx`.
    pub fn int(ctx: sys::prelude::LLVMContextRef, bits: u32) -> Ty {
        Ty(unsafe { c::LLVMIntTypeInContext(ctx, bits) })
    }

    /// `ptr` (address space 0) in `ctx`.
    pub fn ptr(ctx: sys::prelude::LLVMContextRef) -> Ty {
        Ty(unsafe { c::LLVMPointerTypeInContext(ctx, 0) })
    }

    /// `void` in `ctx`.
    pub fn void(ctx: sys::prelude::LLVMContextRef) -> Ty {
        Ty(unsafe { c::LLVMVoidTypeInContext(ctx) })
    }

    /// `float` in `ctx`.
    pub fn float(ctx: sys::prelude::LLVMContextRef) -> Ty {
        Ty(unsafe { c::LLVMFloatTypeInContext(ctx) })
    }

    /// `half` (C `_Float16`) in `ctx`.
    pub fn half(ctx: sys::prelude::LLVMContextRef) -> Ty {
        Ty(unsafe { c::LLVMHalfTypeInContext(ctx) })
    }

    /// `bfloat` (C `__bf16`) in `ctx`.
    pub fn bfloat(ctx: sys::prelude::LLVMContextRef) -> Ty {
        Ty(unsafe { c::LLVMBFloatTypeInContext(ctx) })
    }

    /// `x86_fp80` (C `long double` on x86-64) in `ctx`.
    pub fn x86_fp80(ctx: sys::prelude::LLVMContextRef) -> Ty {
        Ty(unsafe { c::LLVMX86FP80TypeInContext(ctx) })
    }

    /// `[n x elem]`.
    pub fn array(elem: Ty, n: u64) -> Ty {
        Ty(unsafe { c::LLVMArrayType2(elem.0, n) })
    }

    /// `<n x elem>`.
    pub fn vector(elem: Ty, n: u32) -> Ty {
        Ty(unsafe { c::LLVMVectorType(elem.0, n) })
    }

    /// `double` in `ctx`.
    pub fn double(ctx: sys::prelude::LLVMContextRef) -> Ty {
        Ty(unsafe { c::LLVMDoubleTypeInContext(ctx) })
    }

    /// The type's context.
    pub fn context(self) -> sys::prelude::LLVMContextRef {
        unsafe { c::LLVMGetTypeContext(self.0) }
    }

    /// The type printed as IR (`double`, `<4 x float>`, ...).
    pub fn print(self) -> String {
        take_message(unsafe { c::LLVMPrintTypeToString(self.0) })
    }
}

impl Ty {
    /// The type as LLVM spells it in overloaded intrinsic names (`f64`, `f32`, `v4f64`, `i32`),
    /// for naming per-type helper functions; other types fall back to their printed form.
    pub fn mangled(self) -> String {
        match unsafe { c::LLVMGetTypeKind(self.0) } {
            K::LLVMHalfTypeKind => "f16".into(),
            K::LLVMBFloatTypeKind => "bf16".into(),
            K::LLVMFloatTypeKind => "f32".into(),
            K::LLVMDoubleTypeKind => "f64".into(),
            K::LLVMX86_FP80TypeKind => "f80".into(),
            K::LLVMFP128TypeKind => "f128".into(),
            K::LLVMPPC_FP128TypeKind => "ppcf128".into(),
            K::LLVMIntegerTypeKind => format!("i{}", self.int_width()),
            K::LLVMVectorTypeKind => format!("v{}{}", self.vector_len(), self.element().mangled()),
            K::LLVMScalableVectorTypeKind => {
                format!("nxv{}{}", self.vector_len(), self.element().mangled())
            }
            _ => self.print(),
        }
    }
}
