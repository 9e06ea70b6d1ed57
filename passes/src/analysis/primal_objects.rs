//! Objects only the primal uses: a stack slot (`alloca`) or a fresh heap block whose memory no
//! derivative can reach, so that it needs no shadow and the calls on it run in the primal only.
//!
//! Inlined library code builds objects that hold no data a derivative flows through: a string
//! stream's constructor, inlined from `-O1` on, stores vtable pointers, buffer pointers and
//! integers into a local stream object and hands its address to the library's constructors;
//! `new std::filebuf` is called through its vtable. Giving such an object a shadow makes every
//! call on it look like one that receives a derivative, and the library's calls have none to
//! give. Whether an object may receive a derivative is a question of dataflow, decided here from
//! what the activity fixed point knows so far ([`Facts`]) and never from the callees' names.
//!
//! **Guarantee.** [`primal_only`] answers true only when no derivative can enter the object's
//! memory: every address derived from it (through GEPs, casts, phis and selects, the pointers a
//! call returns, the local slots, clang's `-O0` spills, its address is stored in and reloaded
//! from, and the pointers loaded from it, whose memory's shadow would be found through the
//! object's: a Julia array's data) is inactive, and it is only
//! - loaded from (what it holds then has no derivative, since none entered it),
//! - stored into with inactive values,
//! - compared, or
//! - passed to calls that move no derivative into it: a callee without a derivative
//!   ([`Callee::Inactive`]: the rule table's primal-only rows, user-declared inactive functions,
//!   intrinsics that touch no floating point), or a rule or an unknown callee (a declaration
//!   without a rule, an indirect call) none of whose arguments carries a derivative, unless the
//!   rule allocates (`posix_memalign` stores a block with a shadow through it); or a function
//!   with a body none of whose arguments carries a derivative and which, with the bodies it
//!   calls, uses no global with a shadow: no derivative can enter it to be stored (a label
//!   `std::string` built with `operator+` and `std::to_string`). A user rule keeps the object
//!   active.
//!
//! An address turned into an integer is followed to the pointers made back from it
//! (`inttoptr`); stored as that integer into memory with a shadow, it keeps the object active,
//! since the pointer loaded back from there needs the object's shadow. Anything else (the
//! address stored into other memory with a shadow, returned) keeps the object active. The
//! answer shrinks as the activity set grows, so the fixed point stays monotone: an object first
//! found primal-only is asked again each round.
//!
//! What the object's contents are does not matter: a local `double` that only a
//! primal-only call writes (`stream >> d`, the value parsed from characters) holds no derivative,
//! and loading it gives a value without one.

use crate::ir::{Opcode, Val};
use crate::rules::Callee;
use std::collections::HashSet;

/// What the activity fixed point knows so far.
pub struct Facts<'a> {
    /// True when a value is active.
    pub active: &'a dyn Fn(Val) -> bool,
    /// True when argument `k` of a call passes a derivative into it.
    pub arg_carries: &'a dyn Fn(Val, usize, Val) -> bool,
    /// What a call calls.
    pub callee: &'a dyn Fn(Val) -> Callee,
    /// True when a function with a body, or one it calls, uses a global with a shadow.
    pub reaches_shadowed_global: &'a dyn Fn(Val) -> bool,
}

/// True when no derivative can reach the memory of `object` (an `alloca`, or the fresh block an
/// allocation call returns): see the module documentation.
pub fn primal_only(object: Val, facts: &Facts) -> bool {
    walk(object, facts) == Walk::Inactive
}

/// What a walk over an object's derived addresses found.
#[derive(PartialEq, Eq)]
enum Walk {
    Inactive,
    Active,
}

/// Walks the addresses derived from `object` and the pointers loaded from them.
fn walk(object: Val, facts: &Facts) -> Walk {
    let mut derived: HashSet<Val> = HashSet::from([object]);
    let mut slots: HashSet<Val> = HashSet::new();
    let mut work = vec![object];
    while let Some(d) = work.pop() {
        // A derived address with a shadow would want the object's.
        if d != object && (facts.active)(d) {
            return Walk::Active;
        }
        let mut fresh = Vec::new();
        for u in d.users() {
            match u.opcode() {
                Opcode::LLVMGetElementPtr if u.operand(0) == d => fresh.push(u),
                Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast | Opcode::LLVMPHI => fresh.push(u),
                Opcode::LLVMSelect if u.operand(0) != d => fresh.push(u),
                // A pointer the object holds: the memory it points to counts as the object's,
                // since its shadow would be read from the object's shadow (a Julia array's data
                // pointer, written through with derivatives; a `std::string`'s pointer to its
                // own buffer).
                Opcode::LLVMLoad if u.ty().is_ptr() => fresh.push(u),
                Opcode::LLVMLoad if u.ty().contains_ptr() => return Walk::Active,
                // An address turned into an integer (`str()` measures the text by subtracting
                // two buffer pointers; a buffer aligned by hand): the pointers made back from
                // it (`int_pointers` ties them to the object) are derived addresses too.
                // Stored as an integer into memory with a shadow (a `std::unique_ptr` moved
                // into a vector's buffer at -O2), the address is loaded back as a pointer from
                // that memory, whose shadow must then hold the object's shadow.
                Opcode::LLVMPtrToInt => {
                    let ints = integers_from(u);
                    let stored = ints.iter().flat_map(|i| i.users()).any(|s| {
                        s.opcode() == Opcode::LLVMStore
                            && ints.contains(&s.operand(0))
                            && (facts.active)(s.operand(1))
                    });
                    if stored {
                        return Walk::Active;
                    }
                    fresh.extend(pointers_made_from(&ints));
                }
                Opcode::LLVMLoad | Opcode::LLVMICmp => {}
                Opcode::LLVMStore if u.operand(0) != d => {
                    if (facts.active)(u.operand(0)) {
                        return Walk::Active;
                    }
                }
                // The address stored as a value: followed through a local slot only.
                Opcode::LLVMStore => {
                    let slot = u.operand(1);
                    // Into the object itself (a `std::string` pointing at its own buffer): the
                    // pointers loaded from it are followed anyway.
                    if derived.contains(&slot) || base(slot) == object {
                        continue;
                    }
                    if !is_slot(slot, facts) {
                        // Into other memory without a shadow: what is loaded back has none
                        // either, and the engine refuses to store a derivative through it.
                        if (facts.active)(slot) {
                            return Walk::Active;
                        }
                        continue;
                    }
                    if slots.insert(slot) {
                        for l in slot.users() {
                            if l.opcode() == Opcode::LLVMLoad {
                                fresh.push(l);
                            }
                        }
                    }
                }
                Opcode::LLVMCall | Opcode::LLVMInvoke => {
                    // Called, `d` is a function pointer loaded from the object (a vtable
                    // slot): like an argument, it moves nothing into the object.
                    let args = u.call_args();
                    if u.called_value() != d && !args.contains(&d) {
                        return Walk::Active;
                    }
                    match (facts.callee)(u) {
                        Callee::Inactive => {}
                        // An allocator that returns no pointer stores the fresh block, which
                        // has a shadow, through the pointer it is given (`posix_memalign(&p,
                        // ...)`); one that returns the block (`std::string::_M_create` on a
                        // string stream's buffer) is followed as its result below.
                        Callee::Rule(r) if r.effects.allocates && !u.ty().is_ptr() => {
                            return Walk::Active
                        }
                        Callee::Rule(_) | Callee::Unknown => {
                            if (0..args.len()).any(|k| (facts.arg_carries)(u, k, args[k])) {
                                return Walk::Active;
                            }
                        }
                        // A function with a body can store a derivative into the object only
                        // if one enters it: through an argument, or from a global with a shadow
                        // read in its body or the bodies it calls (a string's `operator+` and
                        // `std::to_string`, given a label and integers, cannot).
                        Callee::Defined(g) => {
                            if (facts.reaches_shadowed_global)(g)
                                || (0..args.len()).any(|k| (facts.arg_carries)(u, k, args[k]))
                            {
                                return Walk::Active;
                            }
                        }
                        Callee::User(_) => return Walk::Active,
                    }
                    // It may return the address it was given (`stream >> x` returns the stream).
                    if u.ty().contains_ptr() {
                        if !u.ty().is_ptr() {
                            return Walk::Active;
                        }
                        fresh.push(u);
                    }
                }
                _ => return Walk::Active,
            }
        }
        for v in fresh {
            if derived.insert(v) {
                work.push(v);
            }
        }
    }
    Walk::Inactive
}

/// The integers computed from integer `i` (a `ptrtoint`) through integer arithmetic, casts,
/// phis and selects, `i` included.
fn integers_from(i: Val) -> HashSet<Val> {
    let mut seen = HashSet::from([i]);
    let mut work = vec![i];
    while let Some(v) = work.pop() {
        for u in v.users() {
            let follow = matches!(
                u.opcode(),
                Opcode::LLVMAdd
                    | Opcode::LLVMSub
                    | Opcode::LLVMMul
                    | Opcode::LLVMAnd
                    | Opcode::LLVMOr
                    | Opcode::LLVMXor
                    | Opcode::LLVMShl
                    | Opcode::LLVMLShr
                    | Opcode::LLVMAShr
                    | Opcode::LLVMTrunc
                    | Opcode::LLVMZExt
                    | Opcode::LLVMSExt
                    | Opcode::LLVMPHI
                    | Opcode::LLVMSelect
            );
            if follow && seen.insert(u) {
                work.push(u);
            }
        }
    }
    seen
}

/// The `inttoptr`s made from `ints` ([`integers_from`]). Where else they go (memory without a
/// shadow, calls) a pointer made from them is tied to no object (`int_pointers`), has no
/// shadow, and the engine refuses to store a derivative through it.
fn pointers_made_from(ints: &HashSet<Val>) -> Vec<Val> {
    ints.iter()
        .flat_map(|i| i.users())
        .filter(|u| u.opcode() == Opcode::LLVMIntToPtr)
        .collect()
}

/// The object `p` addresses, through GEPs and casts.
fn base(mut p: Val) -> Val {
    while matches!(
        p.opcode(),
        Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast
    ) {
        p = p.operand(0);
    }
    p
}

/// True when `slot` is a local variable holding a pointer that is only loaded, stored into and
/// given to calls without a derivative (lifetime markers): clang's `-O0` spill of a pointer.
/// Its loads stand for the addresses stored there.
fn is_slot(slot: Val, facts: &Facts) -> bool {
    slot.opcode() == Opcode::LLVMAlloca
        && slot.users().into_iter().all(|u| match u.opcode() {
            Opcode::LLVMLoad => true,
            Opcode::LLVMStore => u.operand(1) == slot && u.operand(0) != slot,
            Opcode::LLVMCall => {
                u.called_value() != slot
                    && u.called_function().is_some_and(|f| f.intrinsic_id() != 0)
                    && matches!((facts.callee)(u), Callee::Inactive)
            }
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use crate::analysis::activity::forward_activity;
    use crate::ir::{parse_test_module, Module};
    use crate::rules::user::UserRules;
    use crate::vocab::Activity;
    use inkwell::context::Context;

    /// The names of the instructions of `@f` (one `double` parameter, active) that are active.
    fn active_names(ir: &str) -> Vec<String> {
        let ctx = Context::create();
        let module = parse_test_module(&ctx, ir);
        let m = Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        let rules = UserRules::default();
        let bits = |_: crate::ir::Val, _: crate::ir::Val| crate::signature::FloatBits::default();
        let set = forward_activity(f, &[Activity::Out], &rules, &bits);
        f.blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .filter(|&i| set.contains(i))
            .map(|i| i.name())
            .collect()
    }

    const DECLS: &str = "declare ptr @lib_create(ptr, ptr)\n\
                         declare void @lib_use(ptr, i64)\n\
                         declare ptr @_Znwm(i64)\n\
                         declare void @_ZdlPv(ptr)\n\
                         define void @user(ptr %p, double %v) {\n  store double %v, ptr %p\n  ret void\n}\n";

    #[test]
    fn library_object_holding_its_own_pointers_is_inactive() {
        // A string-like object: a pointer to its own buffer, a buffer from an unknown callee,
        // a virtual call through a pointer loaded from it; and a heap block deleted.
        let ir = format!(
            "{DECLS}define double @f(double %x) {{\n  %s = alloca [4 x i64]\n  \
             %cap = alloca i64\n  %buf = getelementptr i8, ptr %s, i64 16\n  \
             store ptr %buf, ptr %s\n  store i64 27, ptr %cap\n  \
             %h = call ptr @lib_create(ptr %s, ptr %cap)\n  store ptr %h, ptr %s\n  \
             %l = load ptr, ptr %s\n  %vt = load ptr, ptr %l\n  call void %vt(ptr %l)\n  \
             %n = call ptr @_Znwm(i64 8)\n  call void @lib_use(ptr %n, i64 1)\n  \
             call void @_ZdlPv(ptr %n)\n  %y = fmul double %x, %x\n  ret double %y\n}}"
        );
        assert_eq!(active_names(&ir), vec!["y".to_string()]);
    }

    #[test]
    fn objects_derivatives_can_reach_stay_active() {
        // Stored an active value; given to a user function (which may store one); given to an
        // unknown callee beside an active value; its address stored into active memory.
        let ir = format!(
            "{DECLS}declare void @lib_mix(ptr, double)\n\
             define double @f(double %x) {{\n  %a = alloca double\n  store double %x, ptr %a\n  \
             %b = alloca double\n  store double 1.0, ptr %b\n  call void @user(ptr %b, double %x)\n  \
             %c = alloca double\n  call void @lib_mix(ptr %c, double %x)\n  \
             %d = alloca double\n  %e = alloca ptr\n  store ptr %a, ptr %e\n  \
             store ptr %d, ptr %a\n  %y = fmul double %x, %x\n  ret double %y\n}}"
        );
        let names = active_names(&ir);
        for v in ["a", "b", "c", "d", "y"] {
            assert!(
                names.contains(&v.to_string()),
                "%{v} must be active: {names:?}"
            );
        }
    }

    #[test]
    fn a_library_object_whose_buffer_an_allocator_returns_is_inactive() {
        // A string stream's string: its buffer from `std::string::_M_create`, an allocation
        // rule that returns the block (unlike `posix_memalign`, it stores none through its
        // arguments), stored into the object itself.
        let create = crate::rules::all()
            .find(|r| {
                r.name
                    .ends_with("basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm")
            })
            .expect("the rule")
            .name;
        let ir = format!(
            "declare ptr @{create}(ptr, ptr, i64)
             define double @f(double %x) {{
  %s = alloca [4 x i64]
  %cap = alloca i64
               %buf = getelementptr i8, ptr %s, i64 16
  store ptr %buf, ptr %s
               store i64 40, ptr %cap
  %h = call ptr @{create}(ptr %s, ptr %cap, i64 0)
               store ptr %h, ptr %s
  %y = fmul double %x, %x
  ret double %y
}}"
        );
        assert_eq!(active_names(&ir), vec!["y".to_string()]);
    }

    #[test]
    fn a_slot_an_allocator_stores_a_block_into_stays_active() {
        // `posix_memalign(&p, ...)` stores a fresh block, which gets a shadow, into `p`.
        let ir = "declare i32 @posix_memalign(ptr, i64, i64)\n\
                  define double @f(double %x) {\n  %p = alloca ptr\n  \
                  %r = call i32 @posix_memalign(ptr %p, i64 8, i64 8)\n  %b = load ptr, ptr %p\n  \
                  store double %x, ptr %b\n  %y = load double, ptr %b\n  ret double %y\n}";
        let names = active_names(ir);
        assert!(names.contains(&"p".to_string()), "{names:?}");
        assert!(names.contains(&"b".to_string()), "{names:?}");
    }

    #[test]
    fn an_address_stored_as_an_integer_into_active_memory_stays_active() {
        // `std::unique_ptr` moved into a vector's buffer at -O2: `ptrtoint`, then an i64 store
        // into a block that holds derivatives. An address only measured (a length from two
        // pointers) keeps its object primal-only.
        let ir = format!(
            "{DECLS}define double @f(double %x) {{\n  %buf = call ptr @_Znwm(i64 16)\n  \
             store double %x, ptr %buf\n  %o = call ptr @_Znwm(i64 16)\n  \
             store double 1.0, ptr %o\n  %i = ptrtoint ptr %o to i64\n  \
             %slot = getelementptr i8, ptr %buf, i64 8\n  store i64 %i, ptr %slot\n  \
             %q = call ptr @_Znwm(i64 16)\n  %j = ptrtoint ptr %q to i64\n  \
             %e = getelementptr i8, ptr %q, i64 8\n  %k = ptrtoint ptr %e to i64\n  \
             %len = sub i64 %k, %j\n  call void @lib_use(ptr null, i64 %len)\n  \
             %y = fmul double %x, %x\n  ret double %y\n}}"
        );
        let names = active_names(&ir);
        assert!(names.contains(&"o".to_string()), "{names:?}");
        assert!(!names.contains(&"q".to_string()), "{names:?}");
    }

    #[test]
    fn a_block_aligned_by_hand_stays_active() {
        // `(uintptr_t)raw + 63 & ~63`: the pointer made back from the integer is stored into.
        let ir = format!(
            "{DECLS}define double @f(double %x) {{\n  %raw = call ptr @_Znwm(i64 72)\n  \
             %i = ptrtoint ptr %raw to i64\n  %a = add i64 %i, 63\n  %b = and i64 %a, -64\n  \
             %p = inttoptr i64 %b to ptr\n  store double %x, ptr %p\n  \
             %y = load double, ptr %p\n  ret double %y\n}}"
        );
        let names = active_names(&ir);
        assert!(names.contains(&"raw".to_string()), "{names:?}");
        assert!(names.contains(&"p".to_string()), "{names:?}");
    }

    #[test]
    fn an_object_and_what_reads_into_it_are_inactive_together() {
        // `stream >> v`: a rule-less callee given the stream and a fresh variable; neither
        // holds a derivative, so neither needs a shadow (the least fixed point).
        let ir = format!(
            "{DECLS}declare ptr @extract(ptr, ptr)\n\
             define double @f(double %x) {{\n  %s = alloca [8 x i64]\n  %v = alloca double\n  \
             %r = call ptr @extract(ptr %s, ptr %v)\n  %w = load double, ptr %v\n  \
             %y = fmul double %x, %w\n  ret double %y\n}}"
        );
        assert_eq!(active_names(&ir), vec!["y".to_string()]);
    }
}
