//! The derived-function cache and the per-module differentiation [`Session`].
//!
//! One derived function exists per (function, mode, activity). It is declared, and entered in the
//! cache, before its body is built, so recursive and mutually recursive calls find it and
//! terminate (Mooncake's lazy derived rules). Bodies are built from the worklist this cache
//! keeps ([`Session::next_job`], drained by [`crate::derive`]), never by Rust recursion, so deep
//! call chains cannot overflow the stack.

use crate::analysis::overwrite::CallerWrites;
use crate::diag::Result;
use crate::ir::{Module, Val};
use crate::options::Options;
use crate::rules::user::UserRules;
use crate::vocab::{Activity, Mode};
use std::collections::{HashMap, HashSet};

/// Identifies one derived function.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// The primal function.
    pub function: Val,
    /// Forward or reverse.
    pub mode: Mode,
    /// Activity of each parameter.
    pub activity: Vec<Activity>,
    /// Reverse mode: what the caller may write between the augmented sweep and the adjoint
    /// (nothing: loads may be replayed instead of taped; only some TBAA types: loads of other
    /// types may).
    pub caller_writes: CallerWrites,
    /// Forward mode: how many tangents one call carries (batched forward mode,
    /// `enzyme_width`); 1 otherwise.
    pub width: u32,
    /// The type context the function's values are analysed in (0, or a call site's own for a
    /// helper its callers pass differently typed memory, [`crate::analysis::types`]).
    pub ctx: u32,
    /// The set of global shadows the derived code uses (`api::shadow_sets`: one per context
    /// of Enzyme's global-shadow API and width); 0 in a program with one set.
    pub shadows: u32,
}

/// The functions derived for one key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Derived {
    /// Forward mode: one function returning primal and tangent.
    Forward(Val),
    /// Reverse mode: the augmented forward sweep and the adjoint sweep, sharing a tape.
    Reverse {
        /// `augfwd.f`: runs the primal, keeps shadows, pushes what the adjoint needs.
        augmented: Val,
        /// `adjoint.f`: pops the tape and accumulates adjoints.
        adjoint: Val,
    },
}

/// A derived function declared but not yet given a body.
#[derive(Clone, Debug)]
pub struct Job {
    /// What to derive.
    pub key: Key,
    /// The declared derived function(s) to fill in.
    pub derived: Derived,
}

impl Derived {
    /// The function that stands for the pair: the forward derivative, or the augmented sweep.
    pub fn primary(self) -> Val {
        match self {
            Derived::Forward(f) => f,
            Derived::Reverse { augmented, .. } => augmented,
        }
    }
}

/// State shared by everything differentiated in one module.
pub struct Session {
    /// The module being transformed.
    pub module: Module,
    /// The user's options.
    pub opts: Options,
    /// The user's rules for this module (inactive functions, registrations, ...).
    pub rules: UserRules,
    cache: HashMap<Key, Derived>,
    pending: Vec<Job>,
    zero_shadows: HashMap<Val, Val>,
    /// Lines for `--print-activity` / `--print-types`, in generation order.
    pub report: Vec<String>,
    /// The module's type analysis, computed on first use (most requests never need it).
    types: std::cell::OnceCell<crate::analysis::types::TypeResults>,
    /// The type context of the derived function being built ([`Session::set_context`]).
    ctx: u32,
    /// The derivative requests not yet lowered, as calls of the functions they differentiate
    /// (their view of memory is part of the type analysis).
    requests: Vec<crate::analysis::types::RequestSite>,
    /// What calls to rules say about types (set by [`Session::set_type_seed`]).
    type_seed: fn(Val) -> crate::analysis::types::CallSeed,
    /// The functions with a body before differentiation began: the type analysis covers these
    /// only (derived functions and tape helpers move shadows and bytes, which say nothing about
    /// the program's types).
    primal_functions: Vec<Val>,
    /// The functions that may run on several threads at once (OpenMP regions), found on first
    /// use.
    parallel: std::cell::OnceCell<HashSet<Val>>,
    /// The personality function of the first function with exception handling, if any: the
    /// module may unwind through derived code only when it has one.
    personality: Option<Val>,
    /// `__enzyme_batch`: the batched function of each (function, lane-varying parameters,
    /// width), declared before its body is built ([`crate::batch`]).
    batched: HashMap<(Val, Vec<bool>, u32), Val>,
    /// The typed caller contexts seen so far ([`CallerWrites::Typed`]), numbered for the
    /// names of the functions derived for them.
    typed_contexts: HashMap<Vec<Vec<usize>>, usize>,
    /// Batched functions declared whose bodies are still to be built: (source, batched,
    /// lane-varying parameters, width).
    batch_pending: Vec<BatchJob>,
    /// The functions that did not look optimised before canonicalisation
    /// ([`crate::untouched::unoptimised`]); every other one came out of the host's pipeline.
    unoptimised: HashSet<Val>,
    /// Who asked for which derived function ([`crate::derive`]'s candidates left out).
    pub(crate) requests_graph: Requesters,
    /// The set of global shadows `rules.global_shadows` holds now ([`Key::shadows`]).
    shadow_set: u32,
}

/// A batched function declared but not yet given a body ([`crate::batch`]).
#[derive(Clone, Debug)]
pub struct BatchJob {
    /// The function run on several argument sets.
    pub function: Val,
    /// The declared batched function to fill in.
    pub batched: Val,
    /// Per parameter: whether it receives one value per lane.
    pub varies: Vec<bool>,
    /// The number of lanes.
    pub width: u32,
}

impl Session {
    /// A fresh session over `module` with the user's `rules` for it.
    pub fn new(module: Module, opts: &Options, rules: UserRules) -> Session {
        Session {
            module,
            opts: opts.clone(),
            rules,
            cache: HashMap::new(),
            pending: Vec::new(),
            zero_shadows: HashMap::new(),
            report: Vec::new(),
            types: std::cell::OnceCell::new(),
            ctx: 0,
            requests: Vec::new(),
            type_seed: crate::analysis::types::no_seed,
            primal_functions: module
                .functions()
                .into_iter()
                .filter(|f| !f.is_declaration())
                .collect(),
            parallel: std::cell::OnceCell::new(),
            batched: HashMap::new(),
            typed_contexts: HashMap::new(),
            batch_pending: Vec::new(),
            requests_graph: Default::default(),
            shadow_set: 0,
            personality: module.functions().into_iter().find_map(|f| f.personality()),
            unoptimised: HashSet::new(),
        }
    }

    /// Records the functions that did not look optimised before canonicalisation.
    pub fn set_unoptimised(&mut self, unoptimised: HashSet<Val>) {
        self.unoptimised = unoptimised;
    }

    /// True when function `f` came out of the host's optimisation pipeline (it looked
    /// optimised before canonicalisation), so its loops were unrolled as the host saw fit.
    pub fn host_optimised(&self, f: Val) -> bool {
        !self.unoptimised.contains(&f)
    }

    /// The personality function of the module's exception handling (that of its first function
    /// with one), or `None` when no function handles exceptions (C, `-fno-exceptions`): then no
    /// exception is expected to unwind through derived code, and none of the bookkeeping for
    /// one is emitted ([`crate::tape::owned`]).
    pub fn personality(&self) -> Option<Val> {
        self.personality
    }

    /// Which bytes hold floats, for every value of the module ([`crate::analysis::types`]), in
    /// the type context of the derived function being built.
    pub fn types(&self) -> crate::analysis::types::TypeInfo<'_> {
        self.types
            .get_or_init(|| {
                crate::analysis::types::analyze(
                    self.module,
                    &self.primal_functions,
                    self.type_seed,
                    self.requests.clone(),
                )
            })
            .view(self.ctx)
    }

    /// Makes the derived functions declared from now on use the global shadows `shadows`
    /// (global name to shadow, lane 0) and `lanes` (lanes 1, ...), set number `set`: derived
    /// functions of different sets are different functions.
    pub fn use_shadow_set(
        &mut self,
        set: u32,
        shadows: HashMap<String, Val>,
        lanes: Vec<HashMap<String, Val>>,
    ) {
        self.shadow_set = set;
        self.rules.global_shadows = shadows;
        self.rules.global_shadow_lanes = lanes;
    }

    /// The type context of the derived function being built.
    pub fn context(&self) -> u32 {
        self.ctx
    }

    /// Sets the type context the following queries answer in (that of the job being built).
    pub fn set_context(&mut self, ctx: u32) {
        self.ctx = ctx;
    }

    /// The type context the callee of `call` (in the function being built) is analysed in:
    /// the key its derived function must be declared with.
    pub fn callee_context(&self, call: Val) -> u32 {
        match call.called_function() {
            Some(g) if !g.is_declaration() && self.primal_functions.contains(&g) => {
                self.types().callee_context(call)
            }
            _ => 0,
        }
    }

    /// The float types `f`'s integer parameters and return value carry as bits in type
    /// context `ctx` (the shape of its derived signatures). The type analysis runs only for a
    /// function with a body and an integer parameter or return value.
    pub fn float_bits_of(&self, f: Val, ctx: u32) -> crate::signature::FloatBits {
        let fty = f.function_type();
        let ints = fty.param_types().iter().any(|t| t.is_int()) || fty.return_type().is_int();
        if f.is_declaration() || !ints || !self.primal_functions.contains(&f) {
            return Default::default();
        }
        let (info, m) = (self.types().in_context(ctx), self.module);
        let params = f
            .params()
            .into_iter()
            .map(|p| crate::analysis::types::float_bits(info, m, p))
            .collect();
        let ret = crate::analysis::types::returned_float_bits(info, m, f);
        crate::signature::FloatBits { params, ret }
    }

    /// What the type analysis knows of `arg`, captured by value by a parallel region, and of
    /// `param`, the outlined function `f`'s parameter receiving it
    /// ([`crate::openmp::captured_float`]).
    pub fn capture_bits(&self, arg: Val, param: Val) -> crate::openmp::CaptureBits {
        use crate::analysis::types::{float_bits, Kind};
        let (info, m) = (self.types(), self.module);
        let callee = param.parent_function().and_then(|f| {
            let k = f.params().iter().position(|&q| q == param)?;
            self.float_bits_of(f, 0).param(k)
        });
        let partly_float = [arg, param]
            .iter()
            .any(|&v| matches!(info.kind(m, v), Some(Kind::Float(_))));
        crate::openmp::CaptureBits {
            caller: float_bits(info, m, arg),
            callee,
            partly_float,
        }
    }

    /// The forward activity of `f` (in the current type context) for `activity`, calls passing
    /// float bits through integers included ([`crate::analysis::activity::forward_activity`]).
    pub fn activity(&self, f: Val, activity: &[Activity]) -> crate::analysis::activity::ActiveSet {
        let bits = |call: Val, g: Val| self.float_bits_of(g, self.callee_context(call));
        crate::analysis::activity::forward_activity(f, activity, &self.rules, &bits)
    }

    /// The requests to lower, as calls of the functions they differentiate (before the type
    /// analysis first runs).
    pub fn set_requests(&mut self, requests: Vec<crate::analysis::types::RequestSite>) {
        self.requests = requests;
    }

    /// True when `call` is a request the type analysis sees as a call ([`Session::set_requests`]).
    pub fn has_request(&self, call: Val) -> bool {
        self.requests.iter().any(|s| s.call == call)
    }

    /// Forgets a lowered request (its call has gone): an analysis that has not
    /// run yet must not see it.
    pub fn forget_request(&mut self, call: Val) {
        self.requests.retain(|s| s.call != call);
    }

    /// How the type analysis reads calls to rules (the rule table's [`crate::rules::type_seed`];
    /// the cache itself does not depend on the rules).
    pub fn set_type_seed(&mut self, seed: fn(Val) -> crate::analysis::types::CallSeed) {
        self.type_seed = seed;
    }

    /// True when `f` may run on several threads at once: its adjoint adds into shared shadow
    /// memory atomically ([`crate::openmp::parallel_functions`]).
    pub fn runs_in_parallel(&self, f: Val) -> bool {
        self.parallel
            .get_or_init(|| crate::openmp::parallel_functions(self.module))
            .contains(&f)
    }

    /// The keys of every derived function created so far.
    pub fn keys(&self) -> impl Iterator<Item = &Key> {
        self.cache.keys()
    }

    /// The augmented forward sweeps derived in this session.
    pub fn augmented_functions(&self) -> Vec<Val> {
        self.cache
            .values()
            .filter_map(|d| match d {
                Derived::Reverse { augmented, .. } => Some(*augmented),
                Derived::Forward(_) => None,
            })
            .collect()
    }

    /// The forward-mode functions derived so far.
    pub fn forward_functions(&self) -> Vec<Val> {
        self.cache
            .values()
            .filter_map(|d| match d {
                Derived::Forward(f) => Some(*f),
                Derived::Reverse { .. } => None,
            })
            .collect()
    }

    /// Number of derived (and batched) functions created so far.
    pub fn derived_count(&self) -> usize {
        self.cache.len() + self.batched.len()
    }

    /// The next declared derived function whose body is still to be built.
    pub fn next_job(&mut self) -> Option<Job> {
        self.pending.pop()
    }

    /// Declares (or finds) the reverse-mode pair of `f`; bodies are built later.
    /// `memory_stable`: the caller writes nothing between the two sweeps (else anything).
    pub fn declare_reverse(
        &mut self,
        f: Val,
        activity: &[Activity],
        memory_stable: bool,
        ctx: u32,
    ) -> Result<(Val, Val)> {
        self.declare_reverse_for(f, activity, CallerWrites::stable(memory_stable), ctx)
    }

    /// Declares (or finds) the reverse-mode pair of `f` for a caller that may write
    /// `caller_writes` between the two sweeps; bodies are built later.
    pub fn declare_reverse_for(
        &mut self,
        f: Val,
        activity: &[Activity],
        caller_writes: CallerWrites,
        ctx: u32,
    ) -> Result<(Val, Val)> {
        let n = self.typed_contexts.len();
        let suffix = caller_writes.name_suffix(|| match &caller_writes {
            CallerWrites::Typed(t) => *self.typed_contexts.entry(t.clone()).or_insert(n),
            _ => n,
        });
        let key = Key {
            function: f,
            mode: Mode::Reverse,
            activity: activity.to_vec(),
            caller_writes,
            width: 1,
            ctx,
            shadows: self.shadow_set,
        };
        if let Some(&Derived::Reverse { augmented, adjoint }) = self.cache.get(&key) {
            self.requests_graph.asks_for(augmented);
            return Ok((augmented, adjoint));
        }
        let bits = self.float_bits_of(f, ctx);
        let (augmented, adjoint) =
            crate::signature::declare_reverse(self.module, f, activity, &suffix, &bits, ctx)?;
        let derived = Derived::Reverse { augmented, adjoint };
        self.requests_graph.asks_for(augmented);
        self.cache.insert(key.clone(), derived);
        self.pending.push(Job { key, derived });
        Ok((augmented, adjoint))
    }

    /// Declares (or finds) the forward derivative of `f`; its body is built later.
    pub fn declare_forward(&mut self, f: Val, activity: &[Activity], ctx: u32) -> Result<Val> {
        self.declare_forward_wide(f, activity, 1, ctx)
    }

    /// Declares (or finds) the forward derivative of `f` carrying `width` tangents per call.
    pub fn declare_forward_wide(
        &mut self,
        f: Val,
        activity: &[Activity],
        width: u32,
        ctx: u32,
    ) -> Result<Val> {
        let key = Key {
            function: f,
            mode: Mode::Forward,
            activity: activity.to_vec(),
            caller_writes: CallerWrites::Anything,
            width,
            ctx,
            shadows: self.shadow_set,
        };
        if let Some(&Derived::Forward(d)) = self.cache.get(&key) {
            self.requests_graph.asks_for(d);
            return Ok(d);
        }
        let bits = self.float_bits_of(f, ctx);
        let derived =
            crate::signature::declare_forward(self.module, f, activity, width, &bits, ctx)?;
        self.requests_graph.asks_for(derived);
        self.cache.insert(key.clone(), Derived::Forward(derived));
        self.pending.push(Job {
            key,
            derived: Derived::Forward(derived),
        });
        Ok(derived)
    }

    /// The batched function of `f` already declared for these lane-varying parameters and
    /// width, if any.
    pub fn batched(&self, f: Val, varies: &[bool], width: u32) -> Option<Val> {
        self.batched.get(&(f, varies.to_vec(), width)).copied()
    }

    /// Records `batched`, just declared, as the batched function of `f` and queues its body.
    pub fn add_batched(&mut self, f: Val, varies: &[bool], width: u32, batched: Val) {
        self.batched.insert((f, varies.to_vec(), width), batched);
        self.batch_pending.push(BatchJob {
            function: f,
            batched,
            varies: varies.to_vec(),
            width,
        });
    }

    /// The next batched function whose body is still to be built.
    pub fn next_batch_job(&mut self) -> Option<BatchJob> {
        self.batch_pending.pop()
    }

    /// A zero-filled internal constant with the type of constant global `g`: the shadow of
    /// read-only data, needed where a pointer may point either to it or to differentiable memory.
    pub fn zero_shadow_of_constant(&mut self, g: Val) -> Val {
        if let Some(&s) = self.zero_shadows.get(&g) {
            return s;
        }
        let ty = g.global_value_type();
        let s = self
            .module
            .add_global(ty, &format!("{}.zero_shadow", g.name()));
        s.set_initializer(ty.zero());
        s.set_global_constant(true);
        s.set_internal();
        s.set_alignment(g.alignment());
        self.zero_shadows.insert(g, s);
        s
    }
}

impl crate::rules::RuleEnv for Session {
    fn module(&self) -> Module {
        self.module
    }

    fn rule_name(&self, call: Val) -> Option<&'static str> {
        match crate::rules::classify(call, &self.rules) {
            crate::rules::Callee::Rule(rule) => Some(rule.name),
            _ => None,
        }
    }

    fn is_inactive_memory(&self, p: Val) -> bool {
        crate::rules::user::is_inactive_memory(p, &self.rules)
    }

    fn types(&self) -> crate::analysis::types::TypeInfo<'_> {
        Session::types(self)
    }

    fn zero_shadow_of_constant(&mut self, g: Val) -> Val {
        Session::zero_shadow_of_constant(self, g)
    }
}

/// Which derived functions asked for which (by their [`Derived::primary`] functions), and
/// whether through a dispatcher over guessed candidates ([`crate::derive`] leaves out the body of a
/// derived function only guessed candidates reach).
#[derive(Default)]
pub struct Requesters {
    /// The derived function whose body is being built, and whether it is such a dispatcher's
    /// (`None`: a request is asking).
    pub(crate) building: Option<(Val, bool)>,
    /// (asker, asked, through a dispatcher over guessed candidates); `None` asks for a request.
    edges: HashSet<(Option<Val>, Val, bool)>,
    /// Derived functions whose body is a run-time error, and why.
    pub(crate) left_out: Vec<(Val, crate::diag::Error)>,
}

impl Requesters {
    /// Records that the function being built (or a request) asks for derived function `d`.
    pub fn asks_for(&mut self, d: Val) {
        let edge = match self.building {
            Some((from, open)) => (Some(from), d, open),
            None => (None, d, false),
        };
        self.edges.insert(edge);
    }

    /// True when `d` is reached from a request other than through a dispatcher over guessed
    /// candidates.
    pub(crate) fn reached_plainly(&self, d: Val) -> bool {
        let mut seen: HashSet<Val> = HashSet::new();
        let mut stack: Vec<Val> = self
            .edges
            .iter()
            .filter(|(from, _, _)| from.is_none())
            .map(|&(_, to, _)| to)
            .collect();
        while let Some(v) = stack.pop() {
            if v == d {
                return true;
            }
            if !seen.insert(v) {
                continue;
            }
            stack.extend(
                self.edges
                    .iter()
                    .filter(|&&(from, _, open)| from == Some(v) && !open)
                    .map(|&(_, to, _)| to),
            );
        }
        false
    }

    /// The error of a function left out that something has since reached plainly.
    pub(crate) fn check(&self) -> Result<()> {
        match self.left_out.iter().find(|(d, _)| self.reached_plainly(*d)) {
            Some((_, e)) => Err(e.clone()),
            None => Ok(()),
        }
    }
}
