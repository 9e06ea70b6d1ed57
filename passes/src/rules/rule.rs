//! What a rule is: the row type of the table ([`Rule`]), how it differentiates ([`RuleKind`],
//! [`Reverse`]), what its callee does to memory ([`Effects`]), and which inputs a rule's
//! partials read ([`partials_read_for`]). The vocabulary every file of `rules/` shares; it
//! depends on nothing in `rules/` but [`super::calls`], so each area's file can name it without
//! depending on the table that assembles them all (`rules/mod.rs`).

use super::calls::{CustomReverse, ForwardRule};
use crate::ir::{Builder, Val};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The area a rule belongs to (its file under `rules/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Area {
    /// `rules/math.rs`, `rules/outputs.rs`
    Math,
    /// `rules/vector.rs`
    Vector,
    /// `rules/complex.rs`
    Complex,
    /// `rules/memory.rs`
    Memory,
    /// `rules/alloc.rs`
    Alloc,
    /// `rules/julia.rs`
    Julia,
    /// `rules/blas/` (one file per BLAS level)
    Blas,
    /// `rules/inactive.rs`
    Inactive,
    /// `rules/openmp.rs`
    OpenMp,
    /// `rules/sort.rs`
    Sort,
    /// `rules/fortran.rs`
    Fortran,
    /// `rules/rbtree.rs`
    Tree,
    /// `rules/list.rs`
    List,
}

/// Partial derivatives of a scalar function: given the builder, the primal arguments and the
/// primal result, one partial per argument (`None` where the argument is not differentiable,
/// e.g. an integer exponent, or the partial is identically zero).
pub type Partials = fn(&mut Builder, &[Val], Val) -> Vec<Option<Val>>;

/// The reverse half of a hand-written rule: which adjoint the reverse sweep emits. (Math rules
/// need none: their partials give both modes.)
#[derive(Clone, Copy, Debug)]
pub enum Reverse {
    /// Hand-written: the rule emits both sweeps (copies, reductions, allocations, BLAS, ...).
    Custom(&'static CustomReverse),
    /// `free` and its kin: the shadow stays alive for the adjoint sweep, which releases it at
    /// the allocation.
    Free,
    /// Not available in reverse mode yet; the message says why.
    #[allow(dead_code)] // No built-in rule lacks its reverse half today; user rules may.
    NotYet(&'static str),
}

/// How a rule differentiates.
#[derive(Clone, Copy)]
pub enum RuleKind {
    /// Declarative scalar math: the partials generate every mode.
    Math(Partials),
    /// No derivative: the call runs in the primal only.
    Inactive,
    /// A hand-written rule: its forward half and its reverse half.
    Forward(ForwardRule, Reverse),
}

/// One primitive rule.
pub struct Rule {
    /// Canonical name (the libm or intrinsic name).
    pub name: &'static str,
    /// Further names it matches (intrinsic spellings, C++/runtime aliases).
    pub aliases: &'static [&'static str],
    /// True when the libm `f` (float) and `l` (long double) suffixed names match too.
    pub libm_variants: bool,
    /// Its area.
    pub area: Area,
    /// How it differentiates.
    pub kind: RuleKind,
    /// What the callee does to memory.
    pub effects: Effects,
}

/// What a rule's callee does besides computing its result: memory it reads or writes through
/// its arguments, whether it allocates or frees, and what else it touches. Reverse mode replays
/// loads only across calls that write nothing. The analyses read a callee's semantics from
/// here alone (never from the rule's [`Area`] or its name).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    /// Reads memory through its arguments.
    pub reads: bool,
    /// Writes memory through its arguments.
    pub writes: bool,
    /// Returns (or stores) fresh memory.
    pub allocates: bool,
    /// Releases memory.
    pub frees: bool,
    /// What a writing callee writes besides the memory its pointer arguments point to.
    pub hidden: Hidden,
    /// The fresh memory it returns belongs to a garbage collector (Julia): the program never
    /// frees it, and it is not a heap block of its own.
    pub collected: bool,
    /// It may keep its pointer arguments beyond the call (a stream keeps the buffer it was
    /// given), so what they point to escapes.
    pub captures: bool,
    /// It synchronises the threads of a parallel region (the OpenMP runtime), so its adjoint
    /// may touch memory other threads share.
    pub synchronises: bool,
    /// The one pointer argument it writes through, and how many bytes, when it writes through
    /// no other (copies, sets, masked stores); `None`: any pointer argument it is given.
    pub writes_arg: Option<ArgBytes>,
    /// The one pointer argument it reads through, likewise (a copy's source, masked loads).
    pub reads_arg: Option<ArgBytes>,
    /// It changes nothing a load can observe and keeps none of its operands (LLVM's lifetime
    /// markers, assumptions, prefetches, debug and alias-scope bookkeeping): analyses of memory
    /// may ignore the call.
    pub inert: bool,
    /// It starts or ends the lifetime of the object its last argument points to (LLVM's
    /// lifetime markers): it writes no value there, and what it ends is never read again.
    pub lifetime: bool,
    /// Its pointer arguments receive floats of its first argument's type (libm's `modf`,
    /// `sincos`): what the type analysis learns from a call.
    pub float_outputs: bool,
    /// For a routine that reads whole arrays and writes at most one, at positions that depend
    /// on the call (BLAS, through CBLAS or the Fortran interface): finds them. The callee then
    /// writes through its output array alone, none of its other pointer arguments, and the
    /// overwrite analysis may prove its input arrays unchanged until the adjoint, which then
    /// reads them in place (`analysis/overwrite/arrays.rs`).
    pub arrays: Option<FindArrays>,
}

/// The arrays of a call to a routine with [`Effects::arrays`]: the positions of the input
/// arrays its adjoint may read, and of the array it writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayArgs {
    /// Input arrays the adjoint may need (a copy, unless it can read them in place).
    pub inputs: Vec<usize>,
    /// The array the routine writes, if any.
    pub output: Option<usize>,
}

/// Finds a call's [`ArrayArgs`] (`None` when the call is not one the rule knows how to read).
pub type ArrayArgsOf = fn(Val) -> Option<ArrayArgs>;

/// An [`ArrayArgsOf`] in [`Effects`], compared by address (effects are compared to tell pure
/// functions apart; two rows share a finder only when one family of routines shares it).
#[derive(Clone, Copy, Debug)]
pub struct FindArrays(ArrayArgsOf);

impl PartialEq for FindArrays {
    fn eq(&self, other: &FindArrays) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for FindArrays {}

/// The bytes a callee accesses through one of its pointer arguments ([`Effects::writes_arg`],
/// [`Effects::reads_arg`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgBytes {
    /// The position of the pointer argument (a vector of pointers: each lane one access).
    pub arg: u8,
    /// How many bytes, from the address.
    pub bytes: Extent,
}

/// How many bytes a callee accesses through a pointer argument ([`ArgBytes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    /// The count argument `k` holds (`memset(p, c, n)`).
    CountIn(u8),
    /// The size of the vector argument `k` holds (`Some(k)`) or the call returns (`None`); one
    /// lane's element per access when the pointer argument is a vector of pointers (masked
    /// loads and stores, gathers and scatters).
    VectorOf(Option<u8>),
}

/// State a callee writes that no pointer argument reaches ([`Effects::hidden`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Hidden {
    /// Nothing: it writes through its pointer arguments only (copies, BLAS, masked stores).
    None,
    /// The named global, where the module names it (libm's `signgam`, written by `lgamma`):
    /// code can reach it only through the global itself.
    Global(&'static str),
    /// Anything (I/O state, runtime state): unknown, so assumed.
    #[default]
    Anything,
}

impl Effects {
    /// A pure function of its arguments.
    pub const NONE: Effects = Effects {
        reads: false,
        writes: false,
        allocates: false,
        frees: false,
        hidden: Hidden::Anything,
        collected: false,
        captures: false,
        synchronises: false,
        writes_arg: None,
        reads_arg: None,
        inert: false,
        lifetime: false,
        float_outputs: false,
        arrays: None,
    };

    /// True when the callee touches memory at all (reads, writes, allocates or frees).
    pub const fn touches_memory(self) -> bool {
        self.reads || self.writes || self.allocates || self.frees
    }

    /// These effects, writing `hidden` besides the pointer arguments.
    pub const fn hiding(self, hidden: Hidden) -> Effects {
        Effects { hidden, ..self }
    }

    /// These effects, the fresh memory owned by a garbage collector.
    pub const fn collected(self) -> Effects {
        Effects {
            collected: true,
            ..self
        }
    }

    /// These effects, keeping pointer arguments beyond the call.
    pub const fn capturing(self) -> Effects {
        Effects {
            captures: true,
            ..self
        }
    }

    /// These effects, synchronising threads.
    pub const fn synchronising(self) -> Effects {
        Effects {
            synchronises: true,
            ..self
        }
    }

    /// These effects, writing through pointer argument `arg` only, `bytes` of it.
    pub const fn writing_arg(self, arg: u8, bytes: Extent) -> Effects {
        Effects {
            writes_arg: Some(ArgBytes { arg, bytes }),
            ..self
        }
    }

    /// These effects, reading through pointer argument `arg` only, `bytes` of it.
    pub const fn reading_arg(self, arg: u8, bytes: Extent) -> Effects {
        Effects {
            reads_arg: Some(ArgBytes { arg, bytes }),
            ..self
        }
    }

    /// These effects, observable by no load and keeping no operand.
    pub const fn inert(self) -> Effects {
        Effects {
            inert: true,
            ..self
        }
    }

    /// These effects, marking the lifetime of the object the last argument points to.
    pub const fn lifetime(self) -> Effects {
        Effects {
            lifetime: true,
            ..self
        }
    }

    /// These effects, writing floats of the first argument's type through the pointers.
    pub const fn writing_floats(self) -> Effects {
        Effects {
            float_outputs: true,
            ..self
        }
    }

    /// These effects, reading and writing the arrays `find` finds.
    pub const fn with_arrays(self, find: ArrayArgsOf) -> Effects {
        Effects {
            arrays: Some(FindArrays(find)),
            ..self
        }
    }

    /// The arrays call `call` reads and writes, for a routine with array effects.
    pub fn array_args(&self, call: Val) -> Option<ArrayArgs> {
        self.arrays.and_then(|FindArrays(find)| find(call))
    }

    /// True for a callee that returns a fresh heap block and does nothing else: no reads,
    /// writes or frees, and the block is the program's to free (not a garbage collector's).
    pub const fn only_allocates(self) -> bool {
        self.allocates && !self.reads && !self.writes && !self.frees && !self.collected
    }

    /// True for a callee that releases the block its first argument points to and does
    /// nothing else.
    pub const fn only_frees(self) -> bool {
        self.frees && !self.reads && !self.writes && !self.allocates
    }
    /// Reads only.
    pub const READS: Effects = Effects {
        reads: true,
        ..Effects::NONE
    };
    /// Reads and writes (copies, sets, BLAS updates, I/O into buffers).
    pub const READS_WRITES: Effects = Effects {
        reads: true,
        writes: true,
        ..Effects::NONE
    };
    /// Writes only (`memset`).
    pub const WRITES: Effects = Effects {
        writes: true,
        ..Effects::NONE
    };
    /// An allocator.
    pub const ALLOCATES: Effects = Effects {
        allocates: true,
        ..Effects::NONE
    };
    /// A deallocator.
    pub const FREES: Effects = Effects {
        frees: true,
        ..Effects::NONE
    };
}

impl Rule {
    /// Every callee name this rule matches (intrinsics also match with overload suffixes).
    pub fn names(&self) -> Vec<String> {
        let mut out = vec![self.name.to_string()];
        if self.libm_variants {
            out.push(format!("{}f", self.name));
            out.push(format!("{}l", self.name));
        }
        out.extend(self.aliases.iter().map(|s| s.to_string()));
        out
    }
}

/// Which inputs each partial of `partials` reads, for a call or instruction of function type
/// `fty`: per partial, one flag per argument and then one for the result. Found by building the
/// partials once on placeholder values and following each partial's operands back to them, so
/// reverse mode tapes only what the partials of the active operands need (`fmul`'s adjoint for
/// `a` needs only `b`; `fmuladd` needs neither its addend nor its result). Cached per `key`
/// (rule name) and types.
fn partial_inputs(key: &str, partials: Partials, fty: crate::ir::Ty) -> Vec<Vec<bool>> {
    use std::sync::Mutex;
    static CACHE: OnceLock<Mutex<HashMap<String, Vec<Vec<bool>>>>> = OnceLock::new();
    let key = format!("{key} {}", fty.print());
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(v) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return v;
    }
    let ctx = fty.context();
    let scratch = crate::ir::Module::scratch(ctx);
    let m = scratch.0;
    let mut params = fty.param_types();
    params.push(fty.return_type());
    let f = m.add_function(
        "probe",
        crate::ir::Ty::function(crate::ir::Ty::void(ctx), &params, false),
    );
    let mut b = Builder::new(m);
    b.position_at_end(f.append_block("entry"));
    let ps = f.params();
    let (args, result) = ps.split_at(ps.len() - 1);
    let produced = partials(&mut b, args, result[0]);
    b.ret_void();
    let reads: Vec<Vec<bool>> = produced
        .iter()
        .map(|p| {
            let mut read = vec![false; ps.len()];
            let mut stack: Vec<Val> = p.iter().copied().collect();
            let mut seen = std::collections::HashSet::new();
            while let Some(v) = stack.pop() {
                if !seen.insert(v) {
                    continue;
                }
                if let Some(k) = ps.iter().position(|&q| q == v) {
                    read[k] = true;
                } else if v.is_instruction() {
                    stack.extend(v.operands());
                }
            }
            read
        })
        .collect();
    drop(b);
    drop(scratch);
    if let Ok(mut c) = cache.lock() {
        c.insert(key, reads.clone());
    }
    reads
}

/// Which inputs the partials of the `active` operands read: one flag per operand, then one for
/// the result. `partials` of `key` (a rule name), for function type `fty`.
pub fn partials_read_for(
    key: &str,
    partials: Partials,
    fty: crate::ir::Ty,
    active: &[bool],
) -> Vec<bool> {
    let per_partial = partial_inputs(key, partials, fty);
    let n = fty.param_types().len() + 1;
    let mut read = vec![false; n];
    for (k, r) in per_partial.iter().enumerate() {
        if active.get(k).copied().unwrap_or(false) {
            for (x, &y) in read.iter_mut().zip(r) {
                *x |= y;
            }
        }
    }
    read
}

/// Which inputs a math rule's partials read at `call` when the arguments marked `active` carry
/// derivatives (see [`partials_read_for`]).
pub fn partials_read(rule: &'static Rule, call: Val, active: &[bool]) -> Vec<bool> {
    let RuleKind::Math(partials) = rule.kind else {
        return Vec::new();
    };
    partials_read_for(rule.name, partials, call.call_function_type(), active)
}
