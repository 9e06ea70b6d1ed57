//! The type-tree lattice: for one value, which kind of data each byte offset of the value holds,
//! and for pointers, the same for the memory they point to. Pure data, so the merge rules can
//! be tested without LLVM.

use std::collections::BTreeMap;
use std::fmt;

/// Offsets at or beyond this are dropped: trees must stay finite for the fixed point to end
/// (a pointer bumped in a loop would otherwise grow its offsets forever).
pub const MAX_OFFSET: u64 = 1 << 12;
/// Widening ([`Tree::widen_level`]) applies only to levels reaching this far.
pub const WIDEN_MIN_EXTENT: u64 = 128;
/// Pointee trees nest at most this deep (recursive structures such as linked lists).
pub const MAX_DEPTH: usize = 4;

/// A floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatKind {
    /// `half`
    Half,
    /// `bfloat`
    BFloat,
    /// `float`
    Float,
    /// `double`
    Double,
    /// `x86_fp80`
    X86Fp80,
    /// `fp128` / `ppc_fp128`
    Fp128,
}

impl FloatKind {
    /// Bytes the format occupies in memory (its store size).
    pub fn size(self) -> u64 {
        match self {
            FloatKind::Half | FloatKind::BFloat => 2,
            FloatKind::Float => 4,
            FloatKind::Double => 8,
            FloatKind::X86Fp80 => 10,
            FloatKind::Fp128 => 16,
        }
    }

    /// The LLVM spelling.
    pub fn name(self) -> &'static str {
        match self {
            FloatKind::Half => "half",
            FloatKind::BFloat => "bfloat",
            FloatKind::Float => "float",
            FloatKind::Double => "double",
            FloatKind::X86Fp80 => "x86_fp80",
            FloatKind::Fp128 => "fp128",
        }
    }
}

/// What the bytes starting at one offset hold. "Unknown" is the absence of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Seen only through accesses that say nothing (a memset, an `i8` copy): any kind fits.
    Anything,
    /// Integer data (or bytes read as an integer, until a float access says otherwise).
    Integer,
    /// A pointer.
    Pointer,
    /// Floating-point data of this format.
    Float(FloatKind),
    /// The rest of a float of this format that starts before this offset, seen through a
    /// pointer into its middle (`(char *)x + 4` on a double); the bytes up to the next entry
    /// may belong to it. Byte-wise copies must not move such bytes (they cannot move the float
    /// whole).
    FloatTail(FloatKind),
    /// Accessed as two incompatible kinds (a pointer and a float, a float and a double): the
    /// analysis cannot say, and differentiation must not guess.
    Conflict,
}

impl Kind {
    /// The least upper bound. Floats win over integers: integers that carry float bits (a
    /// `double` memcpy'd into a `uint64_t`, a union) are floats for differentiation.
    pub fn join(self, other: Kind) -> Kind {
        use Kind::*;
        match (self, other) {
            (a, b) if a == b => a,
            (Anything, x) | (x, Anything) => x,
            (Conflict, _) | (_, Conflict) => Conflict,
            (Integer, Float(k)) | (Float(k), Integer) => Float(k),
            (Integer, FloatTail(k)) | (FloatTail(k), Integer) => FloatTail(k),
            (Integer, Pointer) | (Pointer, Integer) => Pointer,
            _ => Conflict,
        }
    }

    /// True when the bytes may hold floating-point data the analysis cannot rule out.
    pub fn may_be_float(self) -> bool {
        matches!(self, Kind::Float(_) | Kind::FloatTail(_) | Kind::Conflict)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Kind::Anything => write!(f, "anything"),
            Kind::Integer => write!(f, "integer"),
            Kind::Pointer => write!(f, "pointer"),
            Kind::Float(k) => write!(f, "{}", k.name()),
            Kind::FloatTail(k) => write!(f, "{} tail", k.name()),
            Kind::Conflict => write!(f, "conflict"),
        }
    }
}

/// The type tree of a value: the kind at each byte offset of the value itself and, for a
/// pointer, the tree of the memory it points to. With a `stride`, the pattern repeats every
/// `stride` bytes (an array indexed by a variable) and offsets are below the stride.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    /// Offset of each scalar's first byte → its kind.
    pub at: BTreeMap<u64, Kind>,
    /// The pattern repeats every so many bytes.
    pub stride: Option<u64>,
    /// What the pointer stored at offset 0 of this value points to.
    pub pointee: Option<Box<Tree>>,
}

impl Tree {
    /// A tree of the given kinds at the given offsets (for tests).
    #[cfg(test)]
    pub fn of_entries(entries: &[(u64, Kind)]) -> Tree {
        let mut t = Tree::default();
        for &(o, k) in entries {
            t.at.insert(o, k);
        }
        t
    }

    /// One kind at offset 0.
    pub fn scalar(k: Kind) -> Tree {
        let mut t = Tree::default();
        t.at.insert(0, k);
        t
    }

    /// A pointer to memory described by `pointee`.
    pub fn pointer_to(pointee: Tree) -> Tree {
        let mut t = Tree::scalar(Kind::Pointer);
        t.pointee = Some(Box::new(pointee));
        t
    }

    /// True when nothing is known.
    pub fn is_unknown(&self) -> bool {
        self.at.is_empty() && self.pointee.as_ref().is_none_or(|p| p.is_unknown())
    }

    /// The kind at `off` (folded into the stride), if known.
    pub fn get(&self, off: u64) -> Option<Kind> {
        let off = self.stride.map_or(off, |s| off % s);
        self.at.get(&off).copied()
    }

    /// The pointee tree, or an empty one.
    pub fn pointee(&self) -> Tree {
        self.pointee.as_deref().cloned().unwrap_or_default()
    }

    /// Merges `other` into `self`; true when `self` changed.
    pub fn merge(&mut self, other: &Tree) -> bool {
        self.merge_at_depth(other, 0)
    }

    // Reports a change step by step instead of comparing with a copy taken first: every step
    // only adds to the tree (or re-describes it with a coarser period), so any step that
    // changed something leaves the result different. The copy of the whole subtree, at every
    // depth of every merge, was most of the type analysis's time.
    fn merge_at_depth(&mut self, other: &Tree, depth: usize) -> bool {
        let mut changed = false;
        // Align the repetition: the coarser of two compatible strides keeps both patterns.
        let aligned;
        let other = match (self.stride, other.stride) {
            (None, None) => other,
            (Some(a), Some(b)) if a == b => other,
            // A tree that gave up on a common period (below) stays at exact offsets: taking a
            // period from the next contribution, then giving it up again at the one after,
            // would change it on every round and the analysis would never settle
            // (simple_mlp: 200 rounds, 6 s, and then no answer at all). Everything known
            // conflicts there, so what it takes in conflicts too, and it only grows.
            (None, Some(_)) if self.gave_up_period() => {
                let mut e = other.exact();
                e.at.values_mut().for_each(|k| *k = Kind::Conflict);
                aligned = e;
                &aligned
            }
            (a, b) => {
                let s = match (a, b) {
                    (Some(a), Some(b)) => lcm(a, b),
                    (Some(a), None) => a,
                    (None, Some(b)) => b,
                    (None, None) => unreachable!(),
                };
                if s > MAX_OFFSET {
                    // No common period the analysis can represent: everything known conflicts.
                    let mut c = Tree::default();
                    for &o in self.at.keys().chain(other.at.keys()) {
                        c.at.insert(o % s.max(1), Kind::Conflict);
                    }
                    let at: BTreeMap<u64, Kind> =
                        c.at.into_iter().filter(|&(o, _)| o < MAX_OFFSET).collect();
                    let changed = at != self.at || self.stride.is_some();
                    self.at = at;
                    self.stride = None;
                    return changed;
                }
                if self.stride != Some(s) {
                    let mine = self.with_stride(s);
                    if mine != *self {
                        changed = true;
                        *self = mine;
                    }
                }
                aligned = other.with_stride(s);
                &aligned
            }
        };
        for (&o, &k) in &other.at {
            match self.at.entry(o) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(k);
                    changed = true;
                }
                std::collections::btree_map::Entry::Occupied(mut e) => {
                    let joined = e.get().join(k);
                    if joined != *e.get() {
                        e.insert(joined);
                        changed = true;
                    }
                }
            }
        }
        if let Some(p) = &other.pointee {
            if depth + 1 < MAX_DEPTH {
                if self.pointee.is_none() {
                    changed = true;
                }
                changed |= self
                    .pointee
                    .get_or_insert_with(Default::default)
                    .merge_at_depth(p, depth + 1);
            }
        }
        changed
    }

    /// True for the result of giving up on a common period: exact offsets, all conflicts.
    fn gave_up_period(&self) -> bool {
        self.stride.is_none()
            && !self.at.is_empty()
            && self.at.values().all(|&k| k == Kind::Conflict)
    }

    /// The same data at exact offsets (below [`MAX_OFFSET`]), its period spelled out.
    fn exact(&self) -> Tree {
        let Some(s) = self.stride.filter(|&s| s > 0) else {
            return self.clone();
        };
        let mut at = BTreeMap::new();
        for rep in 0..MAX_OFFSET.div_ceil(s) {
            for (&o, &k) in &self.at {
                if rep * s + o < MAX_OFFSET {
                    at.insert(rep * s + o, k);
                }
            }
        }
        Tree {
            at,
            stride: None,
            pointee: self.pointee.clone(),
        }
    }

    /// The same data, described with period `s` (a multiple of the current stride, if any).
    fn with_stride(&self, s: u64) -> Tree {
        let mut at = BTreeMap::new();
        match self.stride {
            Some(old) => {
                for rep in 0..s / old {
                    for (&o, &k) in &self.at {
                        at.insert(rep * old + o, k);
                    }
                }
            }
            None => {
                for (&o, &k) in &self.at {
                    let e = at.entry(o % s).or_insert(k);
                    *e = e.join(k);
                }
            }
        }
        Tree {
            at,
            stride: Some(s),
            pointee: self.pointee.clone(),
        }
    }

    /// The tree seen from `delta` bytes further on (a GEP's result from its base): offsets
    /// shift down, and those before the new start are dropped (unless the tree repeats).
    pub fn shift_down(&self, delta: u64) -> Tree {
        let at = match self.stride {
            Some(s) => self
                .at
                .iter()
                .map(|(&o, &k)| ((o + s - delta % s) % s, k))
                .collect(),
            None => self
                .at
                .iter()
                .filter(|&(&o, _)| o >= delta)
                .map(|(&o, &k)| (o - delta, k))
                .collect(),
        };
        Tree {
            at,
            stride: self.stride,
            pointee: None,
        }
    }

    /// The tree seen from a pointer `delta` bytes further on ([`Tree::shift_down`]), which
    /// also records when that pointer lands inside a float of an exact tree (or inside the
    /// rest of one): a [`Kind::FloatTail`] at offset 0, since the bytes before the next entry
    /// are part of a float the view does not start at.
    pub fn view_from(&self, delta: u64) -> Tree {
        let mut t = self.shift_down(delta);
        if self.stride.is_some() || delta == 0 || self.at.contains_key(&delta) {
            return t;
        }
        let tail = match self.at.range(..delta).next_back() {
            Some((&o, &Kind::Float(k))) if o + k.size() > delta => Some(k),
            Some((_, &Kind::FloatTail(k))) => Some(k),
            _ => None,
        };
        if let Some(k) = tail {
            let old = t.at.get(&0).copied();
            let kind = old.map_or(Kind::FloatTail(k), |o| o.join(Kind::FloatTail(k)));
            t.at.insert(0, kind);
        }
        t
    }

    /// What `self` and `other` agree on: the scalars at the same offsets with the same kinds,
    /// and the pointee when both have the same. What a pointer that is one of several places
    /// sees for certain.
    pub fn common(&self, other: &Tree) -> Tree {
        let mut t = Tree::default();
        for (o, k) in &self.at {
            if other.at.get(o) == Some(k) {
                t.at.insert(*o, *k);
            }
        }
        if self.stride == other.stride {
            t.stride = self.stride;
        }
        if self.pointee == other.pointee {
            t.pointee = self.pointee.clone();
        }
        t
    }

    /// The tree seen from `delta` bytes before (a GEP's base from its result).
    pub fn shift_up(&self, delta: u64) -> Tree {
        let at = match self.stride {
            Some(s) => self
                .at
                .iter()
                .map(|(&o, &k)| ((o + delta) % s, k))
                .collect(),
            None => self
                .at
                .iter()
                .map(|(&o, &k)| (o + delta, k))
                .filter(|&(o, _)| o < MAX_OFFSET)
                .collect(),
        };
        Tree {
            at,
            stride: self.stride,
            pointee: None,
        }
    }

    /// Only the entries in `[0, len)` (the bytes a load, store or copy touches).
    pub fn prefix(&self, len: u64) -> Tree {
        if self.stride.is_some() && len >= MAX_OFFSET {
            // An unbounded stretch of a repeating pattern is the pattern itself.
            return self.clone();
        }
        let mut t = Tree::default();
        match self.stride {
            Some(s) => {
                for rep in 0..len.div_ceil(s).min(MAX_OFFSET / s.max(1) + 1) {
                    for (&o, &k) in &self.at {
                        if rep * s + o < len.min(MAX_OFFSET) {
                            t.at.insert(rep * s + o, k);
                        }
                    }
                }
            }
            None => t.at = self.at.range(..len).map(|(&o, &k)| (o, k)).collect(),
        }
        if len > 0 {
            t.pointee = self.pointee.clone();
        }
        t
    }

    /// The same data repeated every `s` bytes (an array indexed by a variable).
    pub fn repeated(&self, s: u64) -> Tree {
        if s == 0 || s > MAX_OFFSET {
            return Tree::default();
        }
        let mut t = Tree::default().with_stride(s);
        let folded = self.with_stride(s);
        t.merge(&folded);
        t.pointee = None;
        t
    }

    /// The same data described as repeating every `s` bytes, when the exact offsets known
    /// already repeat so (a copy of `n * s` bytes, whose reads elsewhere were unrolled): every
    /// entry has the kind of the entries at the same place of every other period (the same
    /// kind, not a join: an integer and a float `s` bytes apart are two layouts, not one
    /// element's), no float runs past the end of its period, and no entry starts inside a
    /// float or pointer of another period. `None` otherwise, and for a tree that repeats
    /// already (its own period says what repeats).
    pub fn periodic(&self, s: u64) -> Option<Tree> {
        if self.stride.is_some() || s == 0 || s > MAX_OFFSET {
            return None;
        }
        let mut at: BTreeMap<u64, Kind> = BTreeMap::new();
        for (&o, &k) in &self.at {
            match k {
                Kind::Float(f) if o % s + f.size() > s => return None,
                Kind::FloatTail(_) | Kind::Conflict => return None,
                _ => {}
            }
            let e = at.entry(o % s).or_insert(k);
            match (*e, k) {
                (a, b) if a == b => {}
                (Kind::Anything, b) => *e = b,
                (_, Kind::Anything) => {}
                _ => return None,
            }
        }
        let overlaps = at.iter().any(|(&o, &k)| {
            let size = match k {
                Kind::Float(f) => f.size(),
                Kind::Pointer => 8,
                _ => return false,
            };
            at.range(o + 1..o + size).next().is_some()
        });
        (!overlaps).then(|| Tree {
            at,
            stride: Some(s),
            pointee: self.pointee.clone(),
        })
    }

    /// How many entries this tree and the trees it points to hold.
    pub fn size(&self) -> usize {
        self.at.len() + self.pointee.as_deref().map_or(0, Tree::size)
    }

    /// The highest offset each level says anything about: this tree's own, then the tree it
    /// points to, and so on ([`Tree::widen_level`] folds one of them).
    pub fn level_extents(&self) -> Vec<u64> {
        let mut out = Vec::new();
        let mut t = Some(self);
        while let Some(level) = t {
            out.push(level.at.last_key_value().map_or(0, |(&o, _)| o));
            t = level.pointee.as_deref();
        }
        out
    }

    /// Widening, for a level (`depth` pointers down from this tree) whose extent has grown by
    /// the same `step` round after round (a pointer taken to be also a pointer `step` bytes
    /// further into its own memory: a control block and the object inside it, which a virtual
    /// destructor's candidates confused; a `std::deque`'s node pointer stepped through its
    /// map): the level is folded to period `step`, the limit the climb was heading to. Folding
    /// joins the kinds of each period, so what the analysis answers stays an
    /// over-approximation. Returns true when something changed.
    pub fn widen_level(&mut self, depth: usize, step: u64) -> bool {
        let mut t = self;
        for _ in 0..depth {
            match t.pointee.as_deref_mut() {
                Some(p) => t = p,
                None => return false,
            }
        }
        if t.stride.is_some() || step == 0 {
            return false;
        }
        *t = t.with_stride(step);
        true
    }

    /// True when some byte, here or in memory this tree points to, conflicts.
    pub fn has_conflict(&self) -> bool {
        self.at.values().any(|&k| k == Kind::Conflict)
            || self.pointee.as_ref().is_some_and(|p| p.has_conflict())
    }

    /// Every float in `[0, len)` as `(offset, format)`, and whether some byte conflicts.
    pub fn floats_in(&self, len: u64) -> (Vec<(u64, FloatKind)>, bool) {
        let p = self.prefix(len);
        let mut fl = Vec::new();
        let mut conflict = false;
        for (&o, &k) in &p.at {
            match k {
                Kind::Float(f) => fl.push((o, f)),
                Kind::Conflict => conflict = true,
                _ => {}
            }
        }
        (fl, conflict)
    }
}

impl fmt::Display for Tree {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{{")?;
        for (n, (o, k)) in self.at.iter().enumerate() {
            if n > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{o}: {k}")?;
        }
        if let Some(s) = self.stride {
            write!(f, " every {s}")?;
        }
        if let Some(p) = &self.pointee {
            if !p.is_unknown() {
                write!(f, " -> {p}")?;
            }
        }
        write!(f, "}}")
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    if a == 0 || b == 0 {
        a.max(b)
    } else {
        a / gcd(a, b) * b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: Kind = Kind::Float(FloatKind::Double);
    const F: Kind = Kind::Float(FloatKind::Float);

    fn tree(entries: &[(u64, Kind)]) -> Tree {
        Tree::of_entries(entries)
    }

    #[test]
    fn join_floats_win_over_integers() {
        assert_eq!(Kind::Integer.join(D), D);
        assert_eq!(D.join(Kind::Integer), D);
        assert_eq!(Kind::Anything.join(D), D);
        assert_eq!(D.join(F), Kind::Conflict);
        assert_eq!(Kind::Pointer.join(D), Kind::Conflict);
        assert_eq!(Kind::Pointer.join(Kind::Integer), Kind::Pointer);
        assert_eq!(Kind::Conflict.join(Kind::Anything), Kind::Conflict);
    }

    #[test]
    fn merge_is_idempotent_and_reports_change() {
        let mut a = tree(&[(0, D), (8, Kind::Integer)]);
        let b = tree(&[(8, D), (16, Kind::Pointer)]);
        assert!(a.merge(&b));
        assert_eq!(a, tree(&[(0, D), (8, D), (16, Kind::Pointer)]));
        assert!(!a.merge(&b));
        assert!(!a.merge(&a.clone()));
    }

    #[test]
    fn a_given_up_period_stays_given_up() {
        let strided = |s: u64| {
            let mut t = Tree::scalar(Kind::Float(FloatKind::Double));
            t.stride = Some(s);
            t
        };
        let mut t = Tree::scalar(Kind::Float(FloatKind::Double));
        t.merge(&strided(2048));
        // No period covers 2048 and 3072 below MAX_OFFSET: give up.
        t.merge(&strided(3072));
        assert_eq!(t.stride, None);
        // The same contributions again only add conflicts, once: the analysis settles.
        t.merge(&strided(2048));
        t.merge(&strided(3072));
        let settled = t.clone();
        assert!(!t.merge(&strided(2048)));
        assert!(!t.merge(&strided(3072)));
        assert_eq!(t, settled);
        assert!(t.at.values().all(|&k| k == Kind::Conflict));
    }

    #[test]
    fn offsets_shift_and_prefix() {
        let t = tree(&[(0, D), (8, Kind::Integer), (16, D), (40, Kind::Pointer)]);
        assert_eq!(t.shift_down(16), tree(&[(0, D), (24, Kind::Pointer)]));
        assert_eq!(
            t.shift_down(16).shift_up(16),
            tree(&[(16, D), (40, Kind::Pointer)])
        );
        assert_eq!(t.prefix(16), tree(&[(0, D), (8, Kind::Integer)]));
        let far = tree(&[(0, D)]).shift_up(MAX_OFFSET);
        assert!(far.at.is_empty(), "offsets past the bound are dropped");
    }

    #[test]
    fn a_view_into_the_middle_of_a_float_starts_with_its_tail() {
        let t = tree(&[(0, D), (8, D), (16, Kind::Integer)]);
        let tail = Kind::FloatTail(FloatKind::Double);
        assert_eq!(
            t.view_from(4),
            tree(&[(0, tail), (4, D), (12, Kind::Integer)])
        );
        assert_eq!(t.view_from(8), t.shift_down(8), "at a float's start");
        assert_eq!(t.view_from(20), t.shift_down(20), "past the integer");
        // Further into the tail: still inside it, as far as the view can tell.
        assert_eq!(
            t.view_from(4).view_from(2),
            tree(&[(0, tail), (2, D), (10, Kind::Integer)])
        );
        // The tail wins over integer accesses (float bits read as an integer) but conflicts
        // with a float starting there.
        assert_eq!(tail.join(Kind::Integer), tail);
        assert_eq!(tail.join(D), Kind::Conflict);
    }

    #[test]
    fn strided_arrays_of_structs() {
        // struct { double w; int count; double v[3]; ptr scale; } is 48 bytes.
        let elem = tree(&[
            (0, D),
            (8, Kind::Integer),
            (16, D),
            (24, D),
            (32, D),
            (40, Kind::Pointer),
        ]);
        let arr = elem.repeated(48);
        assert_eq!(arr.get(96 + 24), Some(D));
        assert_eq!(arr.get(48 + 40), Some(Kind::Pointer));
        assert_eq!(arr.get(48 + 8), Some(Kind::Integer));
        // A field seen through a GEP into the second element lands at its folded offset.
        let mut a = Tree::default().repeated(48);
        a.merge(&tree(&[(48 + 16, D)]));
        assert_eq!(a.get(16), Some(D));
        let (fl, conflict) = arr.floats_in(96);
        assert!(!conflict);
        assert_eq!(fl.len(), 8);
        assert_eq!(fl[4], (48, FloatKind::Double));
        // Looking 16 bytes into an element wraps around the period.
        assert_eq!(arr.shift_down(16).get(48 - 16), Some(D));
        assert_eq!(arr.shift_down(16).get(24), Some(Kind::Pointer));
    }

    #[test]
    fn exact_offsets_that_repeat_are_a_period() {
        let elem = [
            (0, D),
            (8, Kind::Integer),
            (16, D),
            (24, D),
            (32, D),
            (40, Kind::Pointer),
        ];
        let mut three = Tree::default();
        for rep in 0..3 {
            for &(o, k) in &elem {
                three.at.insert(rep * 48 + o, k);
            }
        }
        let p = three
            .periodic(48)
            .expect("the unrolled array repeats every 48");
        assert_eq!(p, tree(&elem).repeated(48));
        // Not every 16 bytes: a double and an integer 16 bytes apart (a join would let the
        // float win, and call the integer a float).
        assert!(three.periodic(16).is_none());
        // A float running into the next period, an entry inside another period's float.
        assert!(tree(&[(0, D)]).periodic(4).is_none());
        assert!(tree(&[(0, D), (52, Kind::Integer)]).periodic(48).is_none());
        // A pointer in one period where another has a double.
        assert!(tree(&[(0, D), (48, Kind::Pointer)]).periodic(48).is_none());
        // Already repeating: its own period answers.
        assert!(tree(&elem).repeated(48).periodic(48).is_none());
    }

    #[test]
    fn strides_merge_at_their_common_period() {
        let mut a = tree(&[(0, D)]).repeated(8);
        let b = tree(&[(0, D), (8, D), (16, Kind::Integer)]).repeated(24);
        a.merge(&b);
        assert_eq!(a.stride, Some(24));
        assert_eq!(
            a.get(16),
            Some(D),
            "the 8-byte doubles cover offset 16: floats win"
        );
    }

    #[test]
    fn pointers_to_pointers() {
        let inner = Tree::pointer_to(tree(&[(0, D)]));
        let mut outer = Tree::pointer_to(inner.clone());
        assert_eq!(outer.pointee().pointee().get(0), Some(D));
        let other = Tree::pointer_to(Tree::pointer_to(tree(&[(8, Kind::Integer)])));
        assert!(outer.merge(&other));
        let pp = outer.pointee().pointee();
        assert_eq!(pp.get(0), Some(D));
        assert_eq!(pp.get(8), Some(Kind::Integer));
        assert_eq!(
            outer.to_string(),
            "{0: pointer -> {0: pointer -> {0: double, 8: integer}}}"
        );
    }

    #[test]
    fn recursion_is_bounded() {
        // struct node { double v; struct node *next; }: merging the tree into its own pointee
        // over and over must stop changing.
        let mut node = tree(&[(0, D), (8, Kind::Pointer)]);
        let mut rounds = 0;
        loop {
            let mut p = Tree::pointer_to(node.clone());
            p.at.clear();
            let mut next = node.clone();
            next.pointee = p.pointee;
            if !node.merge(&next) {
                break;
            }
            rounds += 1;
            assert!(rounds < 10, "the depth bound ends the fixed point");
        }
        let mut depth = 0;
        let mut t = Some(Box::new(node));
        while let Some(n) = t {
            depth += 1;
            t = n.pointee;
        }
        assert!(depth <= MAX_DEPTH);
    }

    #[test]
    fn widening_folds_the_climbing_level_to_its_step() {
        // A control block taken to be also the object 16 bytes into it: its header repeats
        // every 16 bytes, the object's double rides on top. Widened with step 16, the level
        // that reaches the top folds (the double joins the header's integer: floats win);
        // the pointer to it, which does not climb, keeps its exact offsets.
        let mut block = Tree::default();
        for k in 0..12u64 {
            block.at.insert(16 * k, Kind::Pointer);
            block.at.insert(16 * k + 8, Kind::Integer);
        }
        block.at.insert(16 * 12 + 8, D);
        let mut holder = Tree::pointer_to(block);
        holder.at.insert(40, Kind::Integer);
        assert_eq!(holder.level_extents(), vec![40, 200]);
        assert!(holder.widen_level(1, 16));
        assert_eq!(holder.stride, None);
        assert_eq!(holder.get(40), Some(Kind::Integer));
        let folded = holder.pointee.as_deref().expect("pointee");
        assert_eq!(folded.stride, Some(16));
        assert_eq!(folded.get(0), Some(Kind::Pointer));
        assert_eq!(folded.get(8), Some(D));
        // The limit: merging the tree seen 16 bytes on changes nothing any more.
        let mut limit = folded.clone();
        assert!(!limit.merge(&folded.shift_up(16)));
    }

    #[test]
    fn widening_folds_a_level_below_a_bigger_one() {
        // A std::deque's node pointer: it points into the map of node pointers, which climbs
        // 8 bytes at a time, and each node holds 64 doubles, so the whole tree's extent (512)
        // hides the map's climb. Only the map's level folds, to period 8.
        let mut node = Tree::default();
        for k in 0..64u64 {
            node.at.insert(8 * k, D);
        }
        let mut map = Tree::pointer_to(node);
        for k in 1..21u64 {
            map.at.insert(8 * k, Kind::Pointer);
        }
        let mut holder = Tree::pointer_to(map);
        assert_eq!(holder.level_extents(), vec![0, 160, 504]);
        assert!(holder.widen_level(1, 8));
        let map = holder.pointee.as_deref().expect("map");
        assert_eq!(map.stride, Some(8));
        assert_eq!(map.get(0), Some(Kind::Pointer));
        let node = map.pointee.as_deref().expect("node");
        assert_eq!((node.stride, node.get(504)), (None, Some(D)));
        // Folded once, a level stays so.
        assert!(!holder.widen_level(1, 8));
        assert!(!holder.widen_level(3, 8));
    }
}
