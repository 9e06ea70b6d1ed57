//! Unit tests of the type analysis (whole modules through [`super::analyze`]).

use super::*;
use crate::ir::{parse_test_module, Module, Val};

const D: Kind = Kind::Float(FloatKind::Double);

fn with_module(ir: &str, check: impl FnOnce(Module, TypeInfo)) {
    let ctx = inkwell::context::Context::create();
    let llm = parse_test_module(&ctx, ir);
    let m = Module(llm.as_mut_ptr());
    let funcs: Vec<Val> = m
        .functions()
        .into_iter()
        .filter(|f| !f.is_declaration())
        .collect();
    let results = analyze(m, &funcs, crate::rules::type_seed, Vec::new());
    let info = results.view(0);
    assert!(info.converged);
    check(m, info);
}

#[test]
fn pointer_walks_settle_on_a_period() {
    // `for (p = x; p != end; ++p)`, the step passing through a second phi as after
    // `push_back`'s reallocation path: the analysis settles (`with_module` asserts it)
    // with a period of 8 instead of climbing 8 bytes a round to its offset bound.
    with_module(
        r#"
        define double @walk(ptr %x, ptr %end, i1 %c) {
        entry:
          br label %loop
        loop:
          %p = phi ptr [ %x, %entry ], [ %next, %latch ]
          %s = phi double [ 0.0, %entry ], [ %t, %latch ]
          %v = load double, ptr %p
          %t = fadd double %s, %v
          %q = getelementptr inbounds i8, ptr %p, i64 8
          br i1 %c, label %side, label %latch
        side:
          br label %latch
        latch:
          %next = phi ptr [ %q, %loop ], [ %q, %side ]
          %done = icmp eq ptr %next, %end
          br i1 %done, label %exit, label %loop
        exit:
          ret double %t
        }
        "#,
        |m, info| {
            let walk = m.function("walk").unwrap();
            let t = info.pointee(m, walk.params()[0]);
            assert_eq!(t.stride, Some(8), "{t}");
            assert_eq!(t.get(0), Some(D), "{t}");
        },
    );
}

#[test]
fn a_choice_between_fields_of_one_node_settles() {
    // A red-black tree's insertion walk (libstdc++ at -O1): `link = left ? &n->left :
    // &n->right`, then `*link` is the next node. The choice's view passed back to each
    // field moved the node's layout 8 bytes at a time every round (never settling); the
    // choice now only learns from the fields.
    with_module(
        r#"
        define double @walk(ptr %root, i1 %c) {
        entry:
          br label %loop
        loop:
          %n = phi ptr [ %root, %entry ], [ %next, %loop ]
          %l = getelementptr inbounds i8, ptr %n, i64 16
          %r = getelementptr inbounds i8, ptr %n, i64 24
          %link = select i1 %c, ptr %l, ptr %r
          %next = load ptr, ptr %link
          %done = icmp eq ptr %next, null
          br i1 %done, label %exit, label %loop
        exit:
          %colour = load i32, ptr %n
          %v.at = getelementptr inbounds i8, ptr %n, i64 40
          %v = load double, ptr %v.at
          ret double %v
        }
        "#,
        |m, info| {
            let walk = m.function("walk").unwrap();
            let t = info.pointee(m, walk.params()[0]);
            assert_eq!(t.get(40), Some(D), "{t}");
            assert!(t.at.keys().all(|&o| o < 48), "{t}");
        },
    );
}

#[test]
fn field_addresses_through_one_reference_parameter_settle() {
    // libstdc++ at -O0: `begin()` and `end()` pass `&_M_start` and `&_M_finish` (offsets 0
    // and 8 of a vector) to the same `__normal_iterator(const T *&)`, whose parameter sees
    // both. Each field's view taken back to the vector at the field's own offset moved the
    // vector's pointers 8 bytes up every round (never settling); a field address speaks
    // only for the struct it addresses, whose pointers stay where they are.
    with_module(
        r#"
        %Vec = type { ptr, ptr, ptr }
        define void @iter(ptr %out, ptr %ref) {
          %v = load ptr, ptr %ref
          store ptr %v, ptr %out
          ret void
        }
        define double @f(ptr %vec) {
          %a = alloca ptr
          %s = getelementptr inbounds %Vec, ptr %vec, i32 0, i32 0
          call void @iter(ptr %a, ptr %s)
          %e = getelementptr inbounds %Vec, ptr %vec, i32 0, i32 1
          call void @iter(ptr %a, ptr %e)
          %d = load ptr, ptr %a
          %x = load double, ptr %d
          ret double %x
        }
        "#,
        |m, info| {
            let f = m.function("f").unwrap();
            let t = info.pointee(m, f.params()[0]);
            for o in [0, 8, 16] {
                assert_eq!(t.get(o), Some(Kind::Pointer), "{t}");
            }
            assert!(t.at.keys().all(|&o| o < 24), "{t}");
        },
    );
}

#[test]
fn a_parameter_returned_to_callers_at_different_offsets_settles() {
    // Eigen at -O0: `derived()` returns its parameter and is called on an expression and
    // on its member 8 bytes in. Each caller got back what the other passed, so the
    // expression held what it holds 8 bytes up, one step more every round, all pointers
    // (no conflict to split on): the analysis climbed to its offset bound and never
    // settled. Call sites of a context whose parameters still climb after many rounds get
    // contexts of their own.
    with_module(
        r#"
        define ptr @derived(ptr %p) {
          ret ptr %p
        }
        define double @f(ptr %e) {
          %a = call ptr @derived(ptr %e)
          %m = getelementptr inbounds i8, ptr %e, i64 8
          %b = call ptr @derived(ptr %m)
          %l = load ptr, ptr %a
          %r = load ptr, ptr %b
          %x = load double, ptr %l
          %y = load double, ptr %r
          %n = getelementptr inbounds i8, ptr %e, i64 16
          %k = load i64, ptr %n
          %kf = sitofp i64 %k to double
          %s = fadd double %x, %y
          %t = fadd double %s, %kf
          ret double %t
        }
        "#,
        |m, info| {
            let f = m.function("f").unwrap();
            let t = info.pointee(m, f.params()[0]);
            assert_eq!(t.get(0), Some(Kind::Pointer), "{t}");
            assert_eq!(t.get(8), Some(Kind::Pointer), "{t}");
            assert_eq!(t.get(16), Some(Kind::Integer), "{t}");
            assert!(t.at.keys().all(|&o| o < 24), "{t}");
        },
    );
}

#[test]
fn empty_members_at_neighbouring_bytes_settle() {
    // Eigen's `MapBase` at -O0 constructs its two empty `variable_if_dynamic` members at
    // bytes 8 and 9 of itself through one constructor: its parameter saw the object at two
    // offsets a byte apart, conflicted, and passed the conflict back to both, a byte
    // further each round. The two call sites get contexts of their own once the climb
    // shows, and the object keeps its double.
    with_module(
        r#"
        define void @empty_ctor(ptr %this, i64 %v) {
          ret void
        }
        define double @f(ptr %o) {
          %r = getelementptr inbounds i8, ptr %o, i64 8
          call void @empty_ctor(ptr %r, i64 1)
          %c = getelementptr inbounds i8, ptr %o, i64 9
          call void @empty_ctor(ptr %c, i64 2)
          %p = load ptr, ptr %o
          %x = load double, ptr %p
          %q = getelementptr inbounds i8, ptr %o, i64 16
          %y = load double, ptr %q
          %s = fadd double %x, %y
          ret double %s
        }
        "#,
        |m, info| {
            let f = m.function("f").unwrap();
            let t = info.pointee(m, f.params()[0]);
            assert_eq!(t.get(0), Some(Kind::Pointer), "{t}");
            assert_eq!(t.get(16), Some(Kind::Float(FloatKind::Double)), "{t}");
            assert!(!t.has_conflict(), "{t}");
        },
    );
}

#[test]
fn type_info_lends_no_layout_to_where_its_address_is_stored() {
    // A std::function manager stores the functor's type_info or the functor's address in
    // the same slot: the type_info's two pointers must not become the functor's layout.
    with_module(
        r#"
        @_ZTI3Fun = constant { ptr, ptr } zeroinitializer
        define void @manager(ptr %dest, ptr %functor, i1 %info) {
          br i1 %info, label %a, label %b
        a:
          store ptr @_ZTI3Fun, ptr %dest
          ret void
        b:
          store ptr %functor, ptr %dest
          ret void
        }
        "#,
        |m, info| {
            let manager = m.function("manager").unwrap();
            let functor = info.pointee(m, manager.params()[1]);
            assert!(functor.is_unknown(), "{functor}");
        },
    );
}

#[test]
fn open_dispatchers_pass_no_types_to_or_from_candidates() {
    // One candidate reads doubles, the caller's memory holds a pointer: neither learns
    // from the other through a dispatcher over guessed candidates.
    with_module(
        r#"
        define double @reads_doubles(ptr %x) {
          %v = load double, ptr %x
          ret double %v
        }
        define double @dispatch(ptr %a, ptr %fp) "umbra-dispatch-open" {
          %r = call double @reads_doubles(ptr %a)
          ret double %r
        }
        define double @caller(ptr %obj, ptr %fp, ptr %q) {
          store ptr %q, ptr %obj
          %r = call double @dispatch(ptr %obj, ptr %fp)
          ret double %r
        }
        "#,
        |m, info| {
            let cand = m.function("reads_doubles").unwrap();
            let t = info.pointee(m, cand.params()[0]);
            assert_eq!(t.get(0), Some(D), "{t}");
            let caller = m.function("caller").unwrap();
            let t = info.pointee(m, caller.params()[0]);
            assert_eq!(t.get(0), Some(Kind::Pointer), "{t}");
        },
    );
}

#[test]
fn pointer_parameters_learn_from_callers() {
    // The helper only memcpys: what it moves comes from the caller's accesses.
    with_module(
        r#"
        %Item = type { double, i32, [3 x double], ptr }
        declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
        define internal void @copy(ptr %d, ptr %s, i64 %n) {
          call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
          ret void
        }
        define double @use(ptr %in, i64 %i) {
          %t = alloca [3 x %Item]
          call void @copy(ptr %t, ptr %in, i64 144)
          %p = getelementptr inbounds %Item, ptr %t, i64 %i, i32 2, i64 1
          %v = load double, ptr %p
          ret double %v
        }
        "#,
        |m, info| {
            let copy = m.function("copy").unwrap();
            let s = info.pointee(m, copy.params()[1]);
            assert_eq!(s.get(0), Some(D), "{s}");
            assert_eq!(s.get(8), Some(Kind::Integer), "{s}");
            assert_eq!(s.get(48 + 24), Some(D), "{s}");
            assert_eq!(s.get(96 + 40), Some(Kind::Pointer), "{s}");
        },
    );
}

#[test]
fn call_sites_passing_different_types_get_contexts_of_their_own() {
    // Merged, the helper's parameters would conflict (a double and a pointer at 0); each
    // call site gets its own context, whose trees are its caller's, and whose length
    // parameter is the constant that call passes.
    with_module(
        r#"
        %View = type { ptr, i32 }
        declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
        define internal void @copy(ptr %d, ptr %s, i64 %n) {
          call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
          ret void
        }
        define double @f(ptr %x) {
          %t = alloca [2 x double]
          call void @copy(ptr %t, ptr %x, i64 16)
          %v = alloca %View
          store ptr %t, ptr %v
          %w = alloca %View
          call void @copy(ptr %w, ptr %v, i64 12)
          %a = load double, ptr %t
          ret double %a
        }
        "#,
        |m, info| {
            let copy = m.function("copy").unwrap();
            assert_eq!(info.contexts_of(copy), 2);
            let f = m.function("f").unwrap();
            let calls: Vec<Val> = f
                .entry_block()
                .instructions()
                .into_iter()
                .filter(|i| i.is_call())
                .collect();
            assert_eq!(info.callee_context(calls[0]), 0);
            assert_eq!(info.callee_context(calls[1]), 1);
            let d = copy.params()[0];
            let doubles = info.pointee(m, d);
            assert_eq!(doubles.get(8), Some(D), "{doubles}");
            let view = info.in_context(1).pointee(m, d);
            assert_eq!(view.get(0), Some(Kind::Pointer), "{view}");
            assert!(!view.has_conflict() && !doubles.has_conflict());
            let n = copy.params()[2];
            assert_eq!(info.in_context(1).constant_argument(n), Some(12));
            assert_eq!(info.constant_argument(n), Some(16));
            assert_eq!(
                info.constant_argument(f.params()[0]),
                None,
                "f is visible outside"
            );
        },
    );
}

#[test]
fn requests_are_call_sites_of_the_function_they_differentiate() {
    // The caller's bytes, filled from a global of doubles, type the helper's parameters in
    // a context of the request's own (the helper's other caller passes a struct), whose
    // length is the request's constant; the caller's trees are its own (the view flows one
    // way).
    let ctx = inkwell::context::Context::create();
    let llm = parse_test_module(
        &ctx,
        r#"
        %View = type { ptr, i32 }
        @init = private constant [2 x double] [double 1.5, double 2.5]
        declare void @__enzyme_autodiff(ptr, ...)
        declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
        define internal void @copy(ptr %d, ptr %s, i64 %n) {
          call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
          ret void
        }
        define void @use(ptr %v) {
          %w = alloca %View
          call void @copy(ptr %w, ptr %v, i64 16)
          ret void
        }
        define void @caller(ptr %dx) {
          %x = alloca [16 x i8]
          call void @llvm.memcpy.p0.p0.i64(ptr %x, ptr @init, i64 16, i1 false)
          %y = alloca [16 x i8]
          call void (ptr, ...) @__enzyme_autodiff(ptr @copy, ptr %y, ptr %x, ptr %dx, i64 16)
          ret void
        }
        "#,
    );
    let m = Module(llm.as_mut_ptr());
    let funcs: Vec<Val> = m
        .functions()
        .into_iter()
        .filter(|f| !f.is_declaration())
        .collect();
    let (copy, caller) = (m.function("copy").unwrap(), m.function("caller").unwrap());
    let body = caller.entry_block().instructions();
    let (x, y, call) = (body[0], body[2], body[3]);
    let site = RequestSite {
        call,
        function: copy,
        args: vec![
            RequestArg {
                param: 0,
                primal: y,
                shadow: None,
            },
            RequestArg {
                param: 1,
                primal: x,
                shadow: Some(caller.params()[0]),
            },
        ],
        constants: vec![(2, 16)],
    };
    let results = analyze(m, &funcs, crate::rules::type_seed, vec![site]);
    let info = results.view(0);
    assert!(info.converged);
    assert_eq!(info.contexts_of(copy), 2);
    let k = info.callee_context(call);
    assert_eq!(k, 1, "the struct's call site came first");
    let own = info.in_context(k);
    let [d, s, n] = copy.params()[..] else {
        unreachable!()
    };
    assert_eq!(own.pointee(m, s).get(8), Some(D), "{}", own.pointee(m, s));
    assert_eq!(own.pointee(m, d).get(0), Some(D), "copied from the source");
    assert_eq!(own.constant_argument(n), Some(16));
    assert_eq!(info.pointee(m, d).get(0), Some(Kind::Pointer));
    // The caller's unfilled bytes learn nothing from the function.
    assert!(info.pointee(m, y).is_unknown(), "{}", info.pointee(m, y));
    assert!(check_request(info, m, call, "__enzyme_autodiff").is_ok());
}

#[test]
fn integers_carrying_float_bits_are_floats() {
    with_module(
        r#"
        define internal double @scaled(i64 %u) {
          %d = bitcast i64 %u to double
          %r = fmul double %d, 2.0
          ret double %r
        }
        define double @f(double %x) {
          %b = bitcast double %x to i64
          %a = and i64 %b, 9223372036854775807
          %r = call double @scaled(i64 %a)
          ret double %r
        }
        "#,
        |m, info| {
            let f = m.function("f").unwrap();
            let a = f.entry_block().instructions()[1];
            assert_eq!(info.kind(m, a), Some(D));
            let scaled = m.function("scaled").unwrap();
            assert_eq!(info.kind(m, scaled.params()[0]), Some(D));
        },
    );
}

#[test]
fn byte_offsets_repeat_only_by_known_multiples() {
    // -O2 indexes an array of 16-byte {double, ptr} as `p + i * 16`; a bare byte walk
    // (`p + k`) says nothing about what repeats and must not fold everything together.
    with_module(
        r#"
        define double @f(ptr %p, i64 %i, i64 %k) {
          %o = mul i64 %i, 16
          %e = getelementptr inbounds i8, ptr %p, i64 %o
          %v = load double, ptr %e
          %f = getelementptr inbounds i8, ptr %e, i64 8
          %q = load ptr, ptr %f
          %b = getelementptr inbounds i8, ptr %p, i64 %k
          %c = load i8, ptr %b
          ret double %v
        }
        "#,
        |m, info| {
            let f = m.function("f").unwrap();
            let t = info.pointee(m, f.params()[0]);
            assert_eq!(t.stride, Some(16), "{t}");
            assert_eq!(t.get(32), Some(D), "{t}");
            assert_eq!(t.get(40), Some(Kind::Pointer), "{t}");
        },
    );
}

#[test]
fn a_counted_index_into_a_member_array_stays_in_it() {
    // -O1 reads `b[i].v[k]` for k < 3 as `gep double, ptr, k` (also as byte offsets
    // `k << 3`): the loop bounds k, so the doubles are v's, not every 8 bytes of the
    // element (which would put one over `id` and `pad` at 8 and 12).
    with_module(
        r#"
        %Body = type { double, i32, float, [3 x double] }
        define double @f(ptr %b, i64 %i) {
        entry:
          %e = getelementptr inbounds %Body, ptr %b, i64 %i
          %id = getelementptr inbounds i8, ptr %e, i64 8
          %n = load i32, ptr %id
          %v = getelementptr inbounds i8, ptr %e, i64 16
          br label %loop
        loop:
          %k = phi i64 [ 0, %entry ], [ %k1, %loop ]
          %s = phi double [ 0.0, %entry ], [ %s2, %loop ]
          %p = getelementptr inbounds double, ptr %v, i64 %k
          %x = load double, ptr %p
          %o = shl nuw nsw i64 %k, 3
          %q = getelementptr inbounds i8, ptr %v, i64 %o
          %y = load double, ptr %q
          %s1 = fadd double %s, %x
          %s2 = fadd double %s1, %y
          %k1 = add nuw nsw i64 %k, 1
          %done = icmp eq i64 %k1, 3
          br i1 %done, label %exit, label %loop
        exit:
          ret double %s2
        }
        "#,
        |m, info| {
            let f = m.function("f").unwrap();
            let t = info.pointee(m, f.params()[0]);
            assert_eq!(t.stride, Some(40), "{t}");
            assert_eq!(t.get(8), Some(Kind::Integer), "{t}");
            for o in [16, 24, 32] {
                assert_eq!(t.get(o), Some(D), "{t}");
            }
        },
    );
}

#[test]
fn packed_floats_are_a_vector() {
    with_module(
        r#"
        define float @f(ptr %p) {
          %i = load i64, ptr %p
          %v = bitcast i64 %i to <2 x float>
          %a = extractelement <2 x float> %v, i32 0
          ret float %a
        }
        define i64 @g(ptr %p) {
          %i = load i64, ptr %p
          ret i64 %i
        }
        "#,
        |m, info| {
            let f = m.function("f").unwrap();
            let i = f.entry_block().instructions()[0];
            let t = float_bits(info, m, i).map(|t| t.print());
            assert_eq!(t.as_deref(), Some("<2 x float>"));
            let g = m.function("g").unwrap();
            let j = g.entry_block().instructions()[0];
            assert!(
                float_bits(info, m, j).is_none(),
                "nothing says it holds floats"
            );
        },
    );
}

#[test]
fn packed_integers_keep_bytes_at_their_offsets() {
    // -O2 passes a {float, float} as an i64 built with zext, shl and or, and the callee
    // unpacks it with lshr and trunc: both halves are floats, and so is the whole.
    with_module(
        r#"
        define internal float @sum(i64 %u) {
          %lo = trunc i64 %u to i32
          %a = bitcast i32 %lo to float
          %sh = lshr i64 %u, 32
          %hi = trunc i64 %sh to i32
          %b = bitcast i32 %hi to float
          %r = fadd float %a, %b
          ret float %r
        }
        define float @f(float %x, float %y) {
          %xi = bitcast float %x to i32
          %yi = bitcast float %y to i32
          %yz = zext i32 %yi to i64
          %ys = shl i64 %yz, 32
          %xz = zext i32 %xi to i64
          %p = or disjoint i64 %ys, %xz
          %r = call float @sum(i64 %p)
          ret float %r
        }
        define i64 @g(i64 %n) {
          %s = shl i64 %n, 3
          %o = or i64 %s, 1
          ret i64 %o
        }
        "#,
        |m, info| {
            let f = m.function("f").unwrap();
            let p = f.entry_block().instructions()[5];
            let t = float_bits(info, m, p).map(|t| t.print());
            assert_eq!(t.as_deref(), Some("<2 x float>"), "{}", info.tree(m, p));
            let sum = m.function("sum").unwrap();
            let u = sum.params()[0];
            assert_eq!(float_bits(info, m, u).map(|t| t.print()), t);
            let g = m.function("g").unwrap();
            let o = g.entry_block().instructions()[1];
            assert_eq!(
                info.kind(m, o),
                Some(Kind::Integer),
                "shifts by bits, not bytes"
            );
            assert!(returned_float_bits(info, m, g).is_none());
        },
    );
}

#[test]
fn integer_returns_carrying_floats() {
    with_module(
        r#"
        define internal i64 @bits(double %x) {
          %u = bitcast double %x to i64
          ret i64 %u
        }
        define internal i64 @count(i64 %n) {
          %m = add i64 %n, 1
          ret i64 %m
        }
        define double @f(double %x) {
          %u = call i64 @bits(double %x)
          %n = call i64 @count(i64 3)
          %d = bitcast i64 %u to double
          ret double %d
        }
        "#,
        |m, info| {
            let bits = m.function("bits").unwrap();
            let t = returned_float_bits(info, m, bits).map(|t| t.print());
            assert_eq!(t.as_deref(), Some("double"));
            let count = m.function("count").unwrap();
            assert!(returned_float_bits(info, m, count).is_none());
        },
    );
}

#[test]
fn unions_read_as_integers_hold_floats() {
    with_module(
        r#"
        %union.anon = type { double }
        define double @f(double %x) {
          %u = alloca %union.anon
          store double %x, ptr %u
          %i = load i64, ptr %u
          %c = and i64 %i, 9223372036854775807
          store i64 %c, ptr %u
          %r = load double, ptr %u
          ret double %r
        }
        "#,
        |m, info| {
            let f = m.function("f").unwrap();
            let i = f.entry_block().instructions()[2];
            assert_eq!(info.kind(m, i), Some(D));
        },
    );
}

/// Eigen's `DefaultDevice::memcpy(dst, src, n)` at -O0 with TBAA: a helper whose pointers
/// nothing in it accesses, called with `float *`s loaded from structs (TBAA `p1 float`, here in
/// the new struct-path format of `-Xclang -new-struct-path-tbaa`) and a length `size * 4`.
const COPY_HELPER: &str = r#"
    %struct.E = type { ptr, i64 }
    define void @copy(ptr %d, ptr %s, i64 %n) {
      call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
      ret void
    }
    define void @eval(ptr %e, ptr %dest) {
      %src = load ptr, ptr %e, !tbaa !4
      %dp = getelementptr inbounds %struct.E, ptr %e, i32 0, i32 1
      %size = load i64, ptr %dp, !tbaa !6
      %bytes = mul i64 %size, 4
      call void @copy(ptr %dest, ptr %src, i64 %bytes)
      ret void
    }
    define void @eval16(ptr %d, ptr %s) {
      call void @copy(ptr %d, ptr %s, i64 16)
      ret void
    }
    declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
    !0 = !{!"root"}
    !1 = !{!0, i64 1, !"omnipotent char"}
    !2 = !{!1, i64 8, !"any pointer"}
    !3 = !{!2, i64 8, !"p1 float"}
    !4 = !{!5, !3, i64 0, i64 8}
    !5 = !{!1, i64 16, !"E", !3, i64 0, i64 8, !7, i64 8, i64 8}
    !6 = !{!5, !7, i64 8, i64 8}
    !7 = !{!1, i64 8, !"long"}
"#;

#[test]
fn pointer_tbaa_says_the_pointee_starts_with_a_float() {
    with_module(COPY_HELPER, |m, info| {
        let eval = m.function("eval").unwrap();
        let src = eval.entry_block().instructions()[0];
        assert_eq!(src.tbaa_access_type().as_deref(), Some("p1 float"));
        let t = info.pointee(m, src);
        assert_eq!(t.get(0), Some(Kind::Float(FloatKind::Float)), "{t}");
        // ... and the helper's source parameter, through the call.
        let copy = m.function("copy").unwrap();
        let t = info.pointee(m, copy.params()[1]);
        assert_eq!(t.get(0), Some(Kind::Float(FloatKind::Float)), "{t}");
        // The new format's integer types are read too.
        let size = eval.entry_block().instructions()[2];
        assert_eq!(size.tbaa_access_type().as_deref(), Some("long"));
    });
}

#[test]
fn a_length_parameter_is_a_multiple_of_what_every_call_passes() {
    with_module(COPY_HELPER, |m, _| {
        let copy = m.function("copy").unwrap();
        // `size * 4` and 16: multiples of 4.
        assert_eq!(length_multiplier(copy.params()[2]), 4);
        // A choice between a multiple of 4 and 0 (a null buffer's length) after inlining.
        let ir = r#"
            define void @f(ptr %d, ptr %s, i64 %k, i1 %c) {
            entry:
              %bytes = shl i64 %k, 2
              br i1 %c, label %some, label %none
            some:
              br label %copy
            none:
              br label %copy
            copy:
              %n = phi i64 [ %bytes, %some ], [ 0, %none ]
              call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
              ret void
            }
            declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
        "#;
        with_module(ir, |m, _| {
            let f = m.function("f").unwrap();
            let n = f.blocks()[3].instructions()[0];
            assert_eq!(length_multiplier(n), 4);
        });
        // A parameter of a function whose address is taken: unknown callers.
        let ir = r#"
            define void @copy(ptr %d, ptr %s, i64 %n) {
              call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
              ret void
            }
            define void @eval(ptr %d, ptr %s, i64 %k) {
              %bytes = mul i64 %k, 8
              call void @copy(ptr %d, ptr %s, i64 %bytes)
              ret void
            }
            @table = global ptr @copy
            declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
        "#;
        with_module(ir, |m, _| {
            let copy = m.function("copy").unwrap();
            assert_eq!(length_multiplier(copy.params()[2]), 1);
        });
    });
}

#[test]
fn the_first_of_a_few_elements_keeps_what_its_pointer_points_to() {
    // Rows of a matrix (`std::vector<std::vector<double>>` with 4 rows, -O1): row pointers
    // loaded at a bounded index, doubles stored through them. What the first row holds reaches
    // the matrix itself, so a callee given the matrix knows its rows hold doubles.
    with_module(
        r#"
        %row = type { ptr, ptr, ptr }
        define void @fill(ptr %A, double %x) {
        entry:
          br label %outer
        outer:
          %i = phi i64 [ 0, %entry ], [ %i1, %outer ]
          %slot = getelementptr inbounds %row, ptr %A, i64 %i
          %r = load ptr, ptr %slot
          %e = getelementptr inbounds double, ptr %r, i64 %i
          store double %x, ptr %e
          %i1 = add nuw nsw i64 %i, 1
          %done = icmp eq i64 %i1, 4
          br i1 %done, label %exit, label %outer
        exit:
          ret void
        }
        "#,
        |m, info| {
            let fill = m.function("fill").unwrap();
            let rows = info.pointee(m, fill.params()[0]);
            assert_eq!(rows.get(0), Some(Kind::Pointer), "{rows}");
            let first = rows.pointee();
            assert_eq!(first.get(0), Some(D), "{rows}");
            assert_eq!(first.get(24), Some(D), "{rows}");
        },
    );
}

#[test]
fn an_integer_narrower_than_a_float_carries_none_of_it() {
    // A `std::variant<double, int>`'s storage: a double stored at offset 0, and an `int`
    // copied there from an `int &` (read as `int`: no byte copy). The int is not half of the
    // double: the memory it came from stays free of doubles.
    with_module(
        r#"
        define void @store_int(ptr %storage, ptr %i) {
        entry:
          %v = load i32, ptr %i, !tbaa !1
          store i32 %v, ptr %storage
          ret void
        }
        define void @store_double(ptr %storage, double %d) {
        entry:
          store double %d, ptr %storage
          ret void
        }
        define void @both(ptr %storage, ptr %i, double %d) {
        entry:
          call void @store_double(ptr %storage, double %d)
          call void @store_int(ptr %storage, ptr %i)
          ret void
        }
        !0 = !{!"int", !2, i64 0}
        !1 = !{!0, !0, i64 0}
        !2 = !{!"omnipotent char", !3, i64 0}
        !3 = !{!"Simple C/C++ TBAA"}
        "#,
        |m, info| {
            let f = m.function("both").unwrap();
            let storage = info.pointee(m, f.params()[0]);
            assert_eq!(storage.get(0), Some(D), "{storage}");
            let int = info.pointee(m, f.params()[1]);
            assert_ne!(int.get(0), Some(D), "{int}");
        },
    );
}
