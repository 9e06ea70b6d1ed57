//! What a hand-written rule sees at a call site, in each mode: [`ForwardCall`] for the forward
//! half, [`AugmentCall`] and [`AdjointCall`] for the two sweeps of a [`CustomReverse`] half.
//!
//! A custom reverse half owns the call in the augmented forward sweep (it emits the primal call,
//! or a replacement, and any shadow) and may save one pointer-sized value for the adjoint sweep,
//! which the tape carries. The contract that keeps tape pushes and pops paired lives in
//! `reverse/needs.rs`: the rule's [`CustomNeeds`] say statically what is taped.
//!
//! A rule sees the engine only through [`RuleEnv`]: the module, what the user's rules say
//! about a call or a pointer, the type analysis and the shadows of constant data. It never names the session, the derived-function
//! cache or the visitors (checked by `crate::layers`' tests), so `rules/` sits below the engine.

use crate::analysis::types::TypeInfo;
use crate::diag::Result;
use crate::ir::{Builder, Module, Val};

/// What the engine lends a rule at a call site: the narrow view of the differentiation session
/// a rule may use. Implemented by the session (`crate::cache`).
pub trait RuleEnv {
    /// The module being transformed.
    fn module(&self) -> Module;
    /// The name of the built-in rule call `call` is differentiated by (the user's registrations
    /// and inactive declarations considered), if any.
    fn rule_name(&self, call: Val) -> Option<&'static str>;
    /// True when the user declared the memory `p` points into inactive
    /// (`crate::rules::user::is_inactive_memory`).
    fn is_inactive_memory(&self, p: Val) -> bool;
    /// Which bytes hold floats, in the type context of the derived function being built.
    fn types(&self) -> TypeInfo<'_>;
    /// A zero-filled internal constant with the type of constant global `g` (one per `g`): the
    /// shadow of read-only data.
    fn zero_shadow_of_constant(&mut self, g: Val) -> Val;
}

/// What a forward rule sees at a call site. The primal call has already been emitted.
pub struct ForwardCall<'a> {
    /// Emits the tangent code (positioned after the primal call).
    pub b: &'a mut Builder,
    /// The engine's view for rules (for shadows of constant data and the like).
    pub env: &'a mut dyn RuleEnv,
    /// The call in the user's function (for error locations).
    pub src: Val,
    /// The primal call in the derived function.
    pub call: Val,
    /// The primal arguments, as passed to `call`.
    pub args: Vec<Val>,
    /// Tangent (or shadow, for pointers) of each argument; `None` = zero / no shadow.
    pub tangents: Vec<Option<Val>>,
}

/// A hand-written forward rule: returns the tangent (or shadow) of the call's result.
pub type ForwardRule = fn(&mut ForwardCall) -> Result<Option<Val>>;

/// What the augmented forward sweep sees at a call with a custom reverse half. Nothing has been
/// emitted for the call yet.
pub struct AugmentCall<'a> {
    /// Positioned where the call belongs in the augmented sweep.
    pub b: &'a mut Builder,
    /// The engine's view for rules.
    pub env: &'a mut dyn RuleEnv,
    /// The call in the user's function.
    pub src: Val,
    /// The primal arguments.
    pub args: Vec<Val>,
    /// The shadow of each active pointer argument; `None` for everything else.
    pub shadows: Vec<Option<Val>>,
    /// The rule's forward half, for rules whose shadow is built the same way in both modes.
    pub forward: ForwardRule,
    /// Per argument: true for a pointer whose memory is provably unchanged until the call's
    /// adjoint runs (the overwrite analysis), which the adjoint may then read in place rather
    /// than from a copy.
    pub in_place: Vec<bool>,
}

impl AugmentCall<'_> {
    /// Emits the primal call itself (the source call with the primal arguments).
    pub fn primal_call(&mut self) -> Val {
        let c = self.src.clone_instruction();
        for (k, &a) in self.args.iter().enumerate() {
            c.set_operand(k as u32, a);
        }
        self.b.insert(c);
        c.strip_metadata_except_tbaa();
        if !c.ty().is_void() {
            c.set_name(&self.src.name());
        }
        c
    }

    /// Runs the rule's forward half after primal call `call`, for the shadow of its result.
    pub fn forward_shadow(&mut self, call: Val) -> Result<Option<Val>> {
        let mut fc = ForwardCall {
            b: self.b,
            env: &mut *self.env,
            src: self.src,
            call,
            args: self.args.clone(),
            tangents: self.shadows.clone(),
        };
        (self.forward)(&mut fc)
    }
}

/// The augmented half of rules whose shadows hold adjoints the forward sweep leaves alone
/// (masked memory access, reductions, complex arithmetic): just the primal call, with what
/// the adjoint reads taped per the rule's [`CustomNeeds`].
pub fn primal_only(c: &mut AugmentCall) -> Result<Augmented> {
    let call = c.primal_call();
    Ok(Augmented {
        result: (!call.ty().is_void()).then_some(call),
        shadow: None,
        saved: None,
    })
}

/// What the augmented sweep produced for a call with a custom reverse half.
pub struct Augmented {
    /// The primal result (`None` for `void`).
    pub result: Option<Val>,
    /// The shadow of a pointer result.
    pub shadow: Option<Val>,
    /// The one value saved for the adjoint (when [`CustomNeeds::saved`]).
    pub saved: Option<Val>,
}

/// What the adjoint sweep sees at a call with a custom reverse half.
pub struct AdjointCall<'a> {
    /// Positioned at the call's mirrored place in the adjoint sweep.
    pub b: &'a mut Builder,
    /// The engine's view for rules.
    pub env: &'a mut dyn RuleEnv,
    /// The call in the user's function.
    pub src: Val,
    /// The primal arguments (those in [`CustomNeeds::args`]; poison otherwise).
    pub args: Vec<Val>,
    /// The shadow of each active pointer argument (those in [`CustomNeeds::args`]).
    pub shadows: Vec<Option<Val>>,
    /// Which arguments carry derivatives.
    pub active: Vec<bool>,
    /// The primal result (when [`CustomNeeds::result`]).
    pub result: Option<Val>,
    /// The adjoint of a floating-point result, if it has one.
    pub d_result: Option<Val>,
    /// The value the augmented sweep saved.
    pub saved: Option<Val>,
    /// Nothing reads the shadow bytes this call wrote again in the adjoint sweep
    /// ([`crate::analysis::dead_shadow`]): its adjoint need not clear them.
    pub zeroing_dead: bool,
    /// Per argument: true for a pointer whose shadow other threads may add into while this
    /// adjoint runs (the function runs on several threads at once, in an OpenMP region, and
    /// the memory is not private to the thread). Only rules whose effects say they read and
    /// write whole arrays ([`crate::rules::Effects::arrays`]) are differentiated there; they add
    /// into such shadows atomically.
    pub shared: Vec<bool>,
}

/// The adjoints of the call's floating-point scalar arguments (`None`: zero or not active);
/// adjoints of memory go straight to shadow memory.
pub type ArgAdjoints = Vec<Option<Val>>;

/// Which of a call's arguments the adjoint half reads (primal values, and the shadows of active
/// pointers among them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgNeeds {
    /// None.
    None,
    /// All of them.
    All,
    /// These positions; negative ones count from the end (`-1` is the last argument).
    Positions(&'static [i32]),
}

impl ArgNeeds {
    /// Whether argument `k` of `n` is needed.
    pub fn includes(self, k: usize, n: usize) -> bool {
        match self {
            ArgNeeds::None => false,
            ArgNeeds::All => true,
            ArgNeeds::Positions(ps) => ps.iter().any(|&p| {
                let at = if p < 0 { n as i64 + p as i64 } else { p as i64 };
                at == k as i64
            }),
        }
    }
}

/// What a custom reverse half needs carried from the augmented sweep to the adjoint sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CustomNeeds {
    /// The primal arguments (and shadows of active pointers among them) the adjoint reads.
    pub args: ArgNeeds,
    /// The primal result.
    pub result: bool,
    /// The value the augment half returns in [`Augmented::saved`].
    pub saved: bool,
    /// Pointer arguments whose shadows (when active) the adjoint reads, but not their primal
    /// values: asking for a primal pointer keeps the block it points into alive and reachable
    /// from the tape (a scatter's adjoint reads only the shadow lanes).
    pub shadows_only: ArgNeeds,
}

/// A hand-written reverse half: its augmented-sweep and adjoint-sweep builders.
#[derive(Clone, Copy, Debug)]
pub struct CustomReverse {
    /// Emits the call (and shadows, and what the adjoint needs saved) in the augmented sweep.
    pub augment: fn(&mut AugmentCall) -> Result<Augmented>,
    /// Emits the adjoint; returns the adjoints of scalar arguments.
    pub adjoint: fn(&mut AdjointCall) -> Result<ArgAdjoints>,
    /// What is taped between them.
    pub needs: CustomNeeds,
}
