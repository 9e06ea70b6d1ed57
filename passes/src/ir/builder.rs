//! [`Builder`]: emits instructions at an insertion point, with the fast-math flags of the
//! primal instruction being differentiated applied to every floating-point operation it creates.

use super::{cstr, sys, Block, Module, Ty, Val};
use sys::core as c;
pub use sys::{LLVMIntPredicate as IntPred, LLVMRealPredicate as RealPred};

/// An instruction builder bound to one module.
pub struct Builder {
    raw: sys::prelude::LLVMBuilderRef,
    module: Module,
    fast_math: u32,
    /// The instruction new ones go before; `None` at the end of the block (LLVM's C API
    /// cannot tell).
    insert_before: Option<Val>,
}

impl Drop for Builder {
    fn drop(&mut self) {
        unsafe { c::LLVMDisposeBuilder(self.raw) }
    }
}

const NO_NAME: *const std::os::raw::c_char = c"".as_ptr();

impl Builder {
    /// A builder emitting into `module`'s context.
    pub fn new(module: Module) -> Builder {
        Builder {
            raw: unsafe { c::LLVMCreateBuilderInContext(module.context()) },
            module,
            fast_math: 0,
            insert_before: None,
        }
    }

    /// The module this builder emits into.
    pub fn module(&self) -> Module {
        self.module
    }

    /// Emits at the end of `b` from now on.
    pub fn position_at_end(&mut self, b: Block) {
        self.insert_before = None;
        unsafe { c::LLVMPositionBuilderAtEnd(self.raw, b.0) }
    }
    /// Emits before `inst` from now on.
    pub fn position_before(&mut self, inst: Val) {
        self.insert_before = Some(inst);
        unsafe { c::LLVMPositionBuilderBefore(self.raw, inst.0) }
    }
    /// The instruction new instructions go before, `None` when they go at the end of
    /// [`Builder::current_block`].
    pub fn insertion_point(&self) -> Option<Val> {
        self.insert_before
    }
    /// The block being emitted into.
    pub fn current_block(&self) -> Block {
        Block(unsafe { c::LLVMGetInsertBlock(self.raw) })
    }
    /// Inserts a detached instruction (from [`Val::clone_instruction`]) at the insertion point.
    pub fn insert(&mut self, inst: Val) {
        unsafe { c::LLVMInsertIntoBuilder(self.raw, inst.0) }
    }

    /// Fast-math flags applied to floating-point instructions emitted from now on; copy them
    /// from the primal instruction being differentiated so reductions stay vectorisable.
    pub fn set_fast_math_from(&mut self, primal: Val) {
        self.fast_math = unsafe {
            if c::LLVMCanValueUseFastMathFlags(primal.0) != 0 {
                c::LLVMGetFastMathFlags(primal.0)
            } else {
                0
            }
        };
    }
    /// Fast-math flags `flags` on floating-point instructions emitted from now on.
    pub fn set_fast_math(&mut self, flags: u32) {
        self.fast_math = flags;
    }
    /// Emits floating-point instructions without fast-math flags from now on.
    pub fn clear_fast_math(&mut self) {
        self.fast_math = 0;
    }
    fn fmf(&self, v: Val) -> Val {
        unsafe {
            if self.fast_math != 0 && c::LLVMCanValueUseFastMathFlags(v.0) != 0 {
                c::LLVMSetFastMathFlags(v.0, self.fast_math);
            }
        }
        v
    }

    // ----- arithmetic -----

    /// `a + b` (floating point).
    pub fn fadd(&mut self, a: Val, b: Val) -> Val {
        self.fmf(Val(unsafe {
            c::LLVMBuildFAdd(self.raw, a.0, b.0, NO_NAME)
        }))
    }
    /// `a - b` (floating point).
    pub fn fsub(&mut self, a: Val, b: Val) -> Val {
        self.fmf(Val(unsafe {
            c::LLVMBuildFSub(self.raw, a.0, b.0, NO_NAME)
        }))
    }
    /// `a * b` (floating point).
    pub fn fmul(&mut self, a: Val, b: Val) -> Val {
        self.fmf(Val(unsafe {
            c::LLVMBuildFMul(self.raw, a.0, b.0, NO_NAME)
        }))
    }
    /// `a / b` (floating point).
    pub fn fdiv(&mut self, a: Val, b: Val) -> Val {
        self.fmf(Val(unsafe {
            c::LLVMBuildFDiv(self.raw, a.0, b.0, NO_NAME)
        }))
    }
    /// `-a` (floating point).
    pub fn fneg(&mut self, a: Val) -> Val {
        self.fmf(Val(unsafe { c::LLVMBuildFNeg(self.raw, a.0, NO_NAME) }))
    }
    /// `i`, a floating-point arithmetic instruction (`fadd`, `fsub`, `fmul`, `fdiv`, `frem`,
    /// `fneg`), rebuilt here without the fast-math flags `drop`: LLVM's C API can add flags to
    /// an instruction but not take them off. The name, debug location and uses move to the new
    /// instruction and `i` is erased. Returns `i` itself when it is no such instruction or
    /// carries none of `drop`.
    pub fn rebuilt_without_flags(&mut self, i: Val, drop: u32) -> Val {
        use super::Opcode::*;
        let flags = i.fast_math_flags();
        if flags & drop == 0 {
            return i;
        }
        let new = match i.opcode() {
            op @ (LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem) => unsafe {
                c::LLVMBuildBinOp(self.raw, op, i.operand(0).0, i.operand(1).0, NO_NAME)
            },
            LLVMFNeg => unsafe { c::LLVMBuildFNeg(self.raw, i.operand(0).0, NO_NAME) },
            _ => return i,
        };
        let new = Val(new);
        // A new instruction has no flags, so adding sets them.
        new.add_fast_math_flags(flags & !drop);
        new.copy_debug_location(i);
        let name = i.name();
        i.set_name("");
        new.set_name(&name);
        i.replace_all_uses_with(new);
        i.erase();
        new
    }
    /// `a * k` for a constant `k`.
    pub fn fmul_const(&mut self, a: Val, k: f64) -> Val {
        let kc = a.ty().float_const(k);
        self.fmul(a, kc)
    }
    /// An arbitrary binary operator.
    pub fn binop(&mut self, op: super::Opcode, a: Val, b: Val) -> Val {
        self.fmf(Val(unsafe {
            c::LLVMBuildBinOp(self.raw, op, a.0, b.0, NO_NAME)
        }))
    }
    /// Floating-point comparison.
    pub fn fcmp(&mut self, p: RealPred, a: Val, b: Val) -> Val {
        Val(unsafe { c::LLVMBuildFCmp(self.raw, p, a.0, b.0, NO_NAME) })
    }
    /// Integer comparison.
    pub fn icmp(&mut self, p: IntPred, a: Val, b: Val) -> Val {
        Val(unsafe { c::LLVMBuildICmp(self.raw, p, a.0, b.0, NO_NAME) })
    }
    /// `c ? a : b`.
    pub fn select(&mut self, cond: Val, a: Val, b: Val) -> Val {
        self.fmf(Val(unsafe {
            c::LLVMBuildSelect(self.raw, cond.0, a.0, b.0, NO_NAME)
        }))
    }
    /// `freeze v`: an arbitrary but fixed value where `v` is poison or undef.
    pub fn freeze(&mut self, v: Val) -> Val {
        Val(unsafe { c::LLVMBuildFreeze(self.raw, v.0, NO_NAME) })
    }
    /// Any cast.
    pub fn cast(&mut self, op: super::Opcode, v: Val, to: Ty) -> Val {
        Val(unsafe { c::LLVMBuildCast(self.raw, op, v.0, to.0, NO_NAME) })
    }
    /// Integer multiply.
    pub fn mul(&mut self, a: Val, b: Val) -> Val {
        Val(unsafe { c::LLVMBuildMul(self.raw, a.0, b.0, NO_NAME) })
    }
    /// Integer add.
    pub fn add(&mut self, a: Val, b: Val) -> Val {
        Val(unsafe { c::LLVMBuildAdd(self.raw, a.0, b.0, NO_NAME) })
    }
    /// Integer subtract.
    pub fn sub(&mut self, a: Val, b: Val) -> Val {
        Val(unsafe { c::LLVMBuildSub(self.raw, a.0, b.0, NO_NAME) })
    }
    /// Zero-extends or truncates an integer to `to`.
    pub fn zext_or_trunc(&mut self, v: Val, to: Ty) -> Val {
        Val(unsafe { c::LLVMBuildIntCast2(self.raw, v.0, to.0, 0, NO_NAME) })
    }
    /// Sign-extends or truncates an integer to `to`.
    pub fn sext_or_trunc(&mut self, v: Val, to: Ty) -> Val {
        let from = v.ty().int_width();
        let target = to.int_width();
        if from == target {
            v
        } else if from < target {
            Val(unsafe { c::LLVMBuildSExt(self.raw, v.0, to.0, NO_NAME) })
        } else {
            Val(unsafe { c::LLVMBuildTrunc(self.raw, v.0, to.0, NO_NAME) })
        }
    }
    /// Converts between floating-point types (extension or truncation).
    pub fn fp_cast(&mut self, v: Val, to: Ty) -> Val {
        Val(unsafe { c::LLVMBuildFPCast(self.raw, v.0, to.0, NO_NAME) })
    }
    /// Signed integer to floating point.
    pub fn si_to_fp(&mut self, v: Val, to: Ty) -> Val {
        Val(unsafe { c::LLVMBuildSIToFP(self.raw, v.0, to.0, NO_NAME) })
    }

    // ----- aggregates and vectors -----

    /// `extractvalue agg, idx`.
    pub fn extract_value(&mut self, agg: Val, idx: u32) -> Val {
        Val(unsafe { c::LLVMBuildExtractValue(self.raw, agg.0, idx, NO_NAME) })
    }
    /// `insertvalue agg, v, idx`.
    pub fn insert_value(&mut self, agg: Val, v: Val, idx: u32) -> Val {
        Val(unsafe { c::LLVMBuildInsertValue(self.raw, agg.0, v.0, idx, NO_NAME) })
    }
    /// `extractelement vec, idx`.
    pub fn extract_element(&mut self, vec: Val, idx: Val) -> Val {
        Val(unsafe { c::LLVMBuildExtractElement(self.raw, vec.0, idx.0, NO_NAME) })
    }
    /// `insertelement vec, v, idx`.
    pub fn insert_element(&mut self, vec: Val, v: Val, idx: Val) -> Val {
        Val(unsafe { c::LLVMBuildInsertElement(self.raw, vec.0, v.0, idx.0, NO_NAME) })
    }
    /// `extractelement vec, i` with a constant index.
    pub fn extract_lane(&mut self, vec: Val, i: u32) -> Val {
        let idx = Ty::int(self.module.context(), 32).int_const(i as u64);
        self.extract_element(vec, idx)
    }

    /// `v` in each of `n` lanes (`insertelement` then a zero-mask `shufflevector`, the form
    /// instruction selection recognises as a broadcast). Constants fold to a constant vector.
    pub fn splat(&mut self, v: Val, n: u32) -> Val {
        let vty = Ty::vector(v.ty(), n);
        let i32t = Ty::int(self.module.context(), 32);
        let one = self.insert_element(vty.poison(), v, i32t.zero());
        let mask = Ty::vector(i32t, n).zero();
        Val(unsafe { c::LLVMBuildShuffleVector(self.raw, one.0, vty.poison().0, mask.0, NO_NAME) })
    }

    /// `shufflevector a, b, mask` (every lane defined).
    pub fn shuffle(&mut self, a: Val, b: Val, mask: &[u32]) -> Val {
        let i32t = Ty::int(self.module.context(), 32);
        let lanes: Vec<Val> = mask.iter().map(|&m| i32t.int_const(m as u64)).collect();
        let mask = Val::const_aggregate(Ty::vector(i32t, mask.len() as u32), &lanes);
        Val(unsafe { c::LLVMBuildShuffleVector(self.raw, a.0, b.0, mask.0, NO_NAME) })
    }

    // ----- memory -----

    /// `alloca ty` at the insertion point.
    pub fn alloca(&mut self, ty: Ty, name: &str) -> Val {
        let n = cstr(name);
        Val(unsafe { c::LLVMBuildAlloca(self.raw, ty.0, n.as_ptr()) })
    }
    /// `alloca ty, count`.
    pub fn array_alloca(&mut self, ty: Ty, count: Val, name: &str) -> Val {
        let n = cstr(name);
        Val(unsafe { c::LLVMBuildArrayAlloca(self.raw, ty.0, count.0, n.as_ptr()) })
    }
    /// `load ty, ptr` with the given alignment (0 = ABI).
    pub fn load(&mut self, ty: Ty, ptr: Val, align: u32) -> Val {
        let v = Val(unsafe { c::LLVMBuildLoad2(self.raw, ty.0, ptr.0, NO_NAME) });
        if align != 0 {
            v.set_alignment(align);
        }
        v
    }
    /// `store v, ptr` with the given alignment (0 = ABI).
    pub fn store(&mut self, v: Val, ptr: Val, align: u32) -> Val {
        let s = Val(unsafe { c::LLVMBuildStore(self.raw, v.0, ptr.0) });
        if align != 0 {
            s.set_alignment(align);
        }
        s
    }
    /// `getelementptr [inbounds] ty, ptr, indices`.
    pub fn gep(&mut self, ty: Ty, ptr: Val, indices: &[Val], inbounds: bool) -> Val {
        let mut idx: Vec<_> = indices.iter().map(|v| v.0).collect();
        Val(unsafe {
            if inbounds {
                c::LLVMBuildInBoundsGEP2(
                    self.raw,
                    ty.0,
                    ptr.0,
                    idx.as_mut_ptr(),
                    idx.len() as u32,
                    NO_NAME,
                )
            } else {
                c::LLVMBuildGEP2(
                    self.raw,
                    ty.0,
                    ptr.0,
                    idx.as_mut_ptr(),
                    idx.len() as u32,
                    NO_NAME,
                )
            }
        })
    }
    /// `memset(dst, 0, len)` with `len` an integer value.
    pub fn memset_zero(&mut self, dst: Val, len: Val, align: u32) -> Val {
        let i8t = Ty::int(self.module.context(), 8);
        Val(unsafe { c::LLVMBuildMemSet(self.raw, dst.0, i8t.zero().0, len.0, align) })
    }
    /// `memcpy(dst, src, len)`.
    pub fn memcpy(&mut self, dst: Val, dst_align: u32, src: Val, src_align: u32, len: Val) -> Val {
        Val(unsafe { c::LLVMBuildMemCpy(self.raw, dst.0, dst_align, src.0, src_align, len.0) })
    }
    /// `memmove(dst, src, len)`.
    pub fn memmove(&mut self, dst: Val, dst_align: u32, src: Val, src_align: u32, len: Val) -> Val {
        Val(unsafe { c::LLVMBuildMemMove(self.raw, dst.0, dst_align, src.0, src_align, len.0) })
    }

    // ----- calls and control flow -----

    /// `call fn_ty callee(args)`.
    pub fn call(&mut self, fn_ty: Ty, callee: Val, args: &[Val]) -> Val {
        let mut a: Vec<_> = args.iter().map(|v| v.0).collect();
        let v = Val(unsafe {
            c::LLVMBuildCall2(
                self.raw,
                fn_ty.0,
                callee.0,
                a.as_mut_ptr(),
                a.len() as u32,
                NO_NAME,
            )
        });
        self.fmf(v)
    }
    /// `invoke fn_ty callee(args) to normal unwind unwind`.
    pub fn invoke(
        &mut self,
        fn_ty: Ty,
        callee: Val,
        args: &[Val],
        normal: Block,
        unwind: Block,
    ) -> Val {
        let mut a: Vec<_> = args.iter().map(|v| v.0).collect();
        Val(unsafe {
            c::LLVMBuildInvoke2(
                self.raw,
                fn_ty.0,
                callee.0,
                a.as_mut_ptr(),
                a.len() as u32,
                normal.0,
                unwind.0,
                NO_NAME,
            )
        })
    }
    /// `landingpad ty cleanup` with `personality` (set on the function too, as LLVM requires):
    /// a landing pad that catches nothing and only runs cleanup code before `resume`.
    pub fn landing_pad_cleanup(&mut self, ty: Ty, personality: Val) -> Val {
        let lp = unsafe { c::LLVMBuildLandingPad(self.raw, ty.0, personality.0, 0, NO_NAME) };
        unsafe { c::LLVMSetCleanup(lp, 1) };
        Val(lp)
    }
    /// `resume exn`.
    pub fn resume(&mut self, exn: Val) -> Val {
        Val(unsafe { c::LLVMBuildResume(self.raw, exn.0) })
    }
    /// A call of function `callee` with `args`, made as call or invoke `like` is: an `invoke`
    /// with its normal and unwind destinations when `like` is one (a call redirected to
    /// another callee).
    pub fn call_like(&mut self, like: Val, callee: Val, args: &[Val]) -> Val {
        if like.is_invoke() {
            let (normal, unwind) = (like.normal_dest(), like.unwind_dest());
            self.invoke(callee.function_type(), callee, args, normal, unwind)
        } else {
            self.call_function(callee, args)
        }
    }
    /// Calls a function value directly.
    pub fn call_function(&mut self, f: Val, args: &[Val]) -> Val {
        self.call(f.function_type(), f, args)
    }
    /// Calls the intrinsic `name` (e.g. `llvm.cos`) overloaded on `overloads`.
    /// Returns `None` when no such intrinsic exists.
    pub fn intrinsic(&mut self, name: &str, overloads: &[Ty], args: &[Val]) -> Option<Val> {
        let decl = intrinsic_declaration(self.module, name, overloads)?;
        Some(self.call_function(decl, args))
    }
    /// Adds `arcp` to floating-point instruction `v` (other values pass through): LLVM may then
    /// compute a division by `x` as a multiplication by `1 / x`, hoisting the reciprocal out of
    /// a loop when `x` does not change in it.
    pub fn allow_reciprocal(&self, v: Val) -> Val {
        unsafe {
            if v.is_instruction() && c::LLVMCanValueUseFastMathFlags(v.0) != 0 {
                let flags = c::LLVMGetFastMathFlags(v.0) | sys::LLVMFastMathAllowReciprocal;
                c::LLVMSetFastMathFlags(v.0, flags);
            }
        }
        v
    }
    /// The sum of the lanes of float vector `v`, in any order (`llvm.vector.reduce.fadd` with
    /// `reassoc`, starting from `-0.0`): for sums whose order the program does not fix, such as
    /// an adjoint gathered from several lanes. Code generation sums it as a tree (log2 of the
    /// lanes in steps), where an ordered sum is one dependent addition per lane.
    pub fn sum_lanes_any_order(&mut self, v: Val) -> Val {
        let elem = v.ty().element();
        let start = elem.neg_zero();
        let sum = self
            .intrinsic("llvm.vector.reduce.fadd", &[v.ty()], &[start, v])
            .expect("llvm.vector.reduce.fadd exists for every float vector type");
        unsafe {
            let flags = c::LLVMGetFastMathFlags(sum.0) | sys::LLVMFastMathAllowReassoc;
            c::LLVMSetFastMathFlags(sum.0, flags);
        }
        sum
    }
    /// Calls the intrinsic `name` overloaded on the type of its first argument, for the unary
    /// and binary math intrinsics whose only overload is their value type.
    pub fn math(&mut self, name: &str, args: &[Val]) -> Val {
        let ty = args[0].ty();
        match self.intrinsic(name, &[ty], args) {
            Some(v) => v,
            // Every name passed here is a real overloaded LLVM intrinsic; an unknown one is a
            // programming error in a rule table, caught by the rule tests.
            None => panic!("unknown math intrinsic {name}"),
        }
    }
    /// `atomicrmw fadd ptr, v monotonic`: adds `v` to memory other threads may update too
    /// (OpenMP reductions, adjoints accumulated by parallel threads). Relaxed ordering suffices:
    /// the sums are only read after the region's join.
    pub fn atomic_fadd(&mut self, ptr: Val, v: Val) -> Val {
        Val(unsafe {
            c::LLVMBuildAtomicRMW(
                self.raw,
                sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd,
                ptr.0,
                v.0,
                sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
                0,
            )
        })
    }
    /// `atomicrmw add ptr, v seq_cst` (`sub` when `sub`): a counter threads hand on to each
    /// other (the turns of reversed OpenMP critical sections), ordering what they did before.
    pub fn atomic_int_add(&mut self, ptr: Val, v: Val, sub: bool) -> Val {
        let op = if sub {
            sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpSub
        } else {
            sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpAdd
        };
        Val(unsafe {
            c::LLVMBuildAtomicRMW(
                self.raw,
                op,
                ptr.0,
                v.0,
                sys::LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent,
                0,
            )
        })
    }
    /// `load atomic ty, ptr seq_cst, align 8`: a counter another thread hands on
    /// ([`Builder::atomic_int_add`]).
    pub fn load_seq_cst(&mut self, ty: Ty, ptr: Val) -> Val {
        let v = self.load(ty, ptr, 8);
        unsafe {
            c::LLVMSetOrdering(
                v.0,
                sys::LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent,
            )
        };
        v
    }
    /// `load atomic ty, ptr monotonic, align 8`: a value other threads may store at the same time.
    pub fn load_relaxed(&mut self, ty: Ty, ptr: Val) -> Val {
        let v = self.load(ty, ptr, 8);
        unsafe { c::LLVMSetOrdering(v.0, sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic) };
        v
    }
    /// `store atomic v, ptr monotonic, align 8`.
    pub fn store_relaxed(&mut self, v: Val, ptr: Val) -> Val {
        let s = self.store(v, ptr, 8);
        unsafe { c::LLVMSetOrdering(s.0, sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic) };
        s
    }
    /// `phi ty` (incoming edges added later).
    pub fn phi(&mut self, ty: Ty) -> Val {
        Val(unsafe { c::LLVMBuildPhi(self.raw, ty.0, NO_NAME) })
    }
    /// `ret v`.
    pub fn ret(&mut self, v: Val) -> Val {
        Val(unsafe { c::LLVMBuildRet(self.raw, v.0) })
    }
    /// `ret void`.
    pub fn ret_void(&mut self) -> Val {
        Val(unsafe { c::LLVMBuildRetVoid(self.raw) })
    }
    /// `br label %b`.
    pub fn br(&mut self, b: Block) -> Val {
        Val(unsafe { c::LLVMBuildBr(self.raw, b.0) })
    }
    /// `br i1 %c, label %t, label %f`.
    pub fn cond_br(&mut self, cond: Val, t: Block, f: Block) -> Val {
        Val(unsafe { c::LLVMBuildCondBr(self.raw, cond.0, t.0, f.0) })
    }
    /// `switch` on `v` (cases added with [`Builder::add_case`]).
    pub fn switch(&mut self, v: Val, default: Block, cases: u32) -> Val {
        Val(unsafe { c::LLVMBuildSwitch(self.raw, v.0, default.0, cases) })
    }
    /// Adds `case on: dest` to a switch.
    pub fn add_case(&mut self, switch: Val, on: Val, dest: Block) {
        unsafe { c::LLVMAddCase(switch.0, on.0, dest.0) }
    }
    /// `unreachable`.
    pub fn unreachable(&mut self) -> Val {
        Val(unsafe { c::LLVMBuildUnreachable(self.raw) })
    }
}

/// The declaration of intrinsic `name` overloaded on `overloads`, if it exists.
pub fn intrinsic_declaration(module: Module, name: &str, overloads: &[Ty]) -> Option<Val> {
    let id = unsafe { c::LLVMLookupIntrinsicID(name.as_ptr() as *const _, name.len()) };
    if id == 0 {
        return None;
    }
    let mut tys: Vec<_> = overloads.iter().map(|t| t.0).collect();
    let f = unsafe { c::LLVMGetIntrinsicDeclaration(module.0, id, tys.as_mut_ptr(), tys.len()) };
    (!f.is_null()).then_some(Val(f))
}

impl Builder {
    /// Calls the libm function `base` in the precision of its floating-point operand (`j0` for
    /// `double`, `j0f` for `float`, `j0l` otherwise), declaring it if the module lacks it. For a
    /// vector operand libm has no entry point, so it is called once per lane; scalar operands
    /// (such as `jn`'s order) are passed unchanged to every lane.
    pub fn call_libm(&mut self, base: &str, args: &[Val]) -> Val {
        let ty = args
            .iter()
            .map(|a| a.ty())
            .find(|t| t.is_fp_or_fp_vector())
            .unwrap_or_else(|| panic!("libm call {base} without a floating-point operand"));
        if !ty.is_vector() {
            return self.call_libm_scalar(base, ty, args);
        }
        let mut out = ty.poison();
        for lane in 0..ty.vector_len() {
            let lane_args: Vec<Val> = args
                .iter()
                .map(|&a| {
                    if a.ty().is_vector() {
                        self.extract_lane(a, lane)
                    } else {
                        a
                    }
                })
                .collect();
            let v = self.call_libm_scalar(base, ty.element(), &lane_args);
            let idx = Ty::int(self.module.context(), 32).int_const(lane as u64);
            out = self.insert_element(out, v, idx);
        }
        out
    }

    fn call_libm_scalar(&mut self, base: &str, ty: Ty, args: &[Val]) -> Val {
        let ctx = self.module.context();
        let suffix = if ty == Ty::double(ctx) {
            ""
        } else if ty == Ty(unsafe { c::LLVMFloatTypeInContext(ctx) }) {
            "f"
        } else {
            "l"
        };
        let params: Vec<Ty> = args.iter().map(|a| a.ty()).collect();
        let f = self
            .module
            .get_or_add_function(&format!("{base}{suffix}"), Ty::function(ty, &params, false));
        self.call_function(f, args)
    }
}

/// The integer predicate true exactly when `p` is false.
pub fn inverse_pred(p: IntPred) -> IntPred {
    use IntPred::*;
    match p {
        LLVMIntEQ => LLVMIntNE,
        LLVMIntNE => LLVMIntEQ,
        LLVMIntSLT => LLVMIntSGE,
        LLVMIntSGE => LLVMIntSLT,
        LLVMIntSLE => LLVMIntSGT,
        LLVMIntSGT => LLVMIntSLE,
        LLVMIntULT => LLVMIntUGE,
        LLVMIntUGE => LLVMIntULT,
        LLVMIntULE => LLVMIntUGT,
        LLVMIntUGT => LLVMIntULE,
    }
}

/// The predicate of `y p x` for `x p y` (operands swapped).
pub fn swapped_pred(p: IntPred) -> IntPred {
    use IntPred::*;
    match p {
        LLVMIntSLT => LLVMIntSGT,
        LLVMIntSGT => LLVMIntSLT,
        LLVMIntSLE => LLVMIntSGE,
        LLVMIntSGE => LLVMIntSLE,
        LLVMIntULT => LLVMIntUGT,
        LLVMIntUGT => LLVMIntULT,
        LLVMIntULE => LLVMIntUGE,
        LLVMIntUGE => LLVMIntULE,
        eq_or_ne => eq_or_ne,
    }
}
