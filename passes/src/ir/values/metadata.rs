//! Metadata on values: TBAA access types and struct layouts, loop metadata, and stripping
//! metadata from copied instructions.

use super::*;

impl Val {
    /// The name of the access type in an instruction's TBAA tag (`double`, `int`, `any
    /// pointer`, ...), when it has one.
    pub fn tbaa_access_type(self) -> Option<String> {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let k = "tbaa";
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            let tag = c::LLVMGetMetadata(self.0, kind);
            if tag.is_null() || c::LLVMGetMDNodeNumOperands(tag) < 2 {
                return None;
            }
            let mut ops = vec![std::ptr::null_mut(); c::LLVMGetMDNodeNumOperands(tag) as usize];
            c::LLVMGetMDNodeOperands(tag, ops.as_mut_ptr());
            let access = ops[1];
            if access.is_null() || c::LLVMGetMDNodeNumOperands(access) < 1 {
                return None;
            }
            let mut aops = vec![std::ptr::null_mut(); c::LLVMGetMDNodeNumOperands(access) as usize];
            c::LLVMGetMDNodeOperands(access, aops.as_mut_ptr());
            // The usual format names the type first (`!{!"float", !parent, i64 0}`); the new
            // struct-path format (`-Xclang -new-struct-path-tbaa`) third, after its parent and
            // size (`!{!parent, i64 4, !"float"}`).
            let mut len = 0u32;
            let s = c::LLVMGetMDString(aops[0], &mut len);
            if !s.is_null() {
                return Some(string_from(s, len as usize));
            }
            let s = match aops.get(2) {
                Some(&name) if !name.is_null() => c::LLVMGetMDString(name, &mut len),
                _ => return None,
            };
            (!s.is_null()).then(|| string_from(s, len as usize))
        }
    }
    /// The fields a `memcpy` with `!tbaa.struct` metadata copies, as (offset, size, name of
    /// the TBAA access type), when it has that metadata in the usual format.
    pub fn tbaa_struct_fields(self) -> Option<Vec<(u64, u64, String)>> {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let k = "tbaa.struct";
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            let node = c::LLVMGetMetadata(self.0, kind);
            if node.is_null() {
                return None;
            }
            let ops = md_operands(node);
            if !ops.len().is_multiple_of(3) {
                return None;
            }
            let mut out = Vec::new();
            for f in ops.chunks(3) {
                let int = |v: sys::prelude::LLVMValueRef| {
                    (!v.is_null() && !c::LLVMIsAConstantInt(v).is_null())
                        .then(|| c::LLVMConstIntGetZExtValue(v))
                };
                let (off, size) = (int(f[0])?, int(f[1])?);
                if f[2].is_null() || c::LLVMIsAMDNode(f[2]).is_null() {
                    return None;
                }
                let tag = md_operands(f[2]);
                let access = *tag.get(1)?;
                if access.is_null() || c::LLVMIsAMDNode(access).is_null() {
                    return None;
                }
                let name = *md_operands(access).first()?;
                let mut len = 0u32;
                let s = if name.is_null() {
                    std::ptr::null()
                } else {
                    c::LLVMGetMDString(name, &mut len)
                };
                if s.is_null() {
                    return None;
                }
                out.push((off, size, string_from(s, len as usize)));
            }
            Some(out)
        }
    }
    /// The chain of TBAA type nodes of an instruction's access type, from the access type up
    /// to the root (node identities), when its tag is a struct-path tag over scalar type nodes
    /// in the classic format (`!{!"double", !parent, i64 0}`); `None` otherwise.
    pub fn tbaa_access_chain(self) -> Option<Vec<usize>> {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let k = "tbaa";
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            let tag = c::LLVMGetMetadata(self.0, kind);
            if tag.is_null() {
                return None;
            }
            let ops = md_operands(tag);
            // A struct-path tag: `!{base type, access type, offset, ...}`.
            if ops.len() < 3 || ops[0].is_null() || c::LLVMIsAMDNode(ops[0]).is_null() {
                return None;
            }
            let mut node = ops[1];
            let mut chain = Vec::new();
            for _ in 0..64 {
                if node.is_null() || c::LLVMIsAMDNode(node).is_null() {
                    return None;
                }
                let n = md_operands(node);
                let mut len = 0u32;
                if n.is_empty() || n[0].is_null() || c::LLVMGetMDString(n[0], &mut len).is_null() {
                    return None;
                }
                chain.push(node as usize);
                if n.len() < 2 {
                    return Some(chain);
                }
                node = n[1];
            }
            None
        }
    }

    /// Attaches a scalar TBAA tag of access type `name` (a child of clang's `omnipotent char`
    /// under the `Simple C/C++ TBAA` root) to load or store `self`.
    pub fn set_tbaa_scalar(self, name: &str) {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let string = |t: &str| c::LLVMMDStringInContext2(ctx, t.as_ptr() as *const _, t.len());
            let node = |ops: &mut [sys::prelude::LLVMMetadataRef]| {
                c::LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len())
            };
            let zero =
                c::LLVMValueAsMetadata(c::LLVMConstInt(c::LLVMInt64TypeInContext(ctx), 0, 0));
            let root = node(&mut [string("Simple C/C++ TBAA")]);
            let char_ty = node(&mut [string("omnipotent char"), root, zero]);
            let ty = node(&mut [string(name), char_ty, zero]);
            let tag = node(&mut [ty, ty, zero]);
            let k = "tbaa";
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            c::LLVMSetMetadata(self.0, kind, c::LLVMMetadataAsValue(ctx, tag));
        }
    }
    /// Attaches loop metadata `!llvm.loop !{self-ref, !{!"llvm.loop.vectorize.enable", i1
    /// false}}` to branch `self`, the back edge of a loop, so the loop vectoriser leaves the
    /// loop to the SLP vectoriser.
    pub fn set_loop_no_vectorize(self) {
        self.set_loop_id(None, true, false);
    }
    /// True when instruction `self` (a loop's back edge) carries a loop ID (`!llvm.loop`).
    pub fn has_loop_id(self) -> bool {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let k = "llvm.loop";
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            !c::LLVMGetMetadata(self.0, kind).is_null()
        }
    }
    /// Gives branch `self` the loop properties (`!llvm.loop`) of branch `from`, under a loop ID
    /// of its own (a new self-referential node with `from`'s other operands): what the host's
    /// pipeline recorded about the loop (`llvm.loop.unroll.disable` on a remainder it made,
    /// `llvm.loop.isvectorized`, `mustprogress`, user pragmas) holds for the loop's copy too;
    /// with `no_unroll`, the copy is also `llvm.loop.unroll.disable`.
    pub fn copy_loop_metadata(self, from: Val, no_unroll: bool) {
        self.set_loop_id(Some(from), false, no_unroll);
    }
    /// Attaches to branch `self` (a loop's back edge) a new loop ID holding the properties of
    /// `from`'s loop ID (if any), with `no_vectorize` `llvm.loop.vectorize.enable false`
    /// (replacing any vectorize hint of `from`'s) and with `no_unroll`
    /// `llvm.loop.unroll.disable` (replacing any unroll hint). Attaches nothing when there is
    /// nothing to say.
    pub fn set_loop_id(self, from: Option<Val>, no_vectorize: bool, no_unroll: bool) {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let kind_name = "llvm.loop";
            let kind = c::LLVMGetMDKindIDInContext(
                ctx,
                kind_name.as_ptr() as *const _,
                kind_name.len() as u32,
            );
            let key = "llvm.loop.vectorize.enable";
            // A loop ID refers to itself: build it around a temporary, then replace that.
            let temp = sys::debuginfo::LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
            let mut ops = vec![temp];
            if let Some(from) = from {
                let node = c::LLVMGetMetadata(from.0, kind);
                // The first operand of a loop ID is the ID itself.
                let inherited = if node.is_null() {
                    Vec::new()
                } else {
                    md_operands(node).into_iter().skip(1).collect()
                };
                for op in inherited {
                    if op.is_null() {
                        continue;
                    }
                    let name = md_first_string(op);
                    let name = name.as_deref().unwrap_or("");
                    if (no_vectorize && name == key)
                        || (no_unroll && name.starts_with("llvm.loop.unroll."))
                    {
                        continue;
                    }
                    ops.push(c::LLVMValueAsMetadata(op));
                }
            }
            if no_unroll {
                let k = "llvm.loop.unroll.disable";
                let mut hint = [c::LLVMMDStringInContext2(
                    ctx,
                    k.as_ptr() as *const _,
                    k.len(),
                )];
                ops.push(c::LLVMMDNodeInContext2(ctx, hint.as_mut_ptr(), 1));
            }
            if no_vectorize {
                let name = c::LLVMMDStringInContext2(ctx, key.as_ptr() as *const _, key.len());
                let i1 = c::LLVMInt1TypeInContext(ctx);
                let off = c::LLVMValueAsMetadata(c::LLVMConstInt(i1, 0, 0));
                let mut hint_ops = [name, off];
                ops.push(c::LLVMMDNodeInContext2(ctx, hint_ops.as_mut_ptr(), 2));
            }
            if ops.len() == 1 {
                sys::debuginfo::LLVMDisposeTemporaryMDNode(temp);
                return;
            }
            let id = c::LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len());
            sys::debuginfo::LLVMMetadataReplaceAllUsesWith(temp, id);
            c::LLVMSetMetadata(self.0, kind, c::LLVMMetadataAsValue(ctx, id));
        }
    }

    /// Removes every metadata attachment other than TBAA (and the debug location).
    pub fn strip_metadata_except_tbaa(self) {
        unsafe {
            let mut n = 0usize;
            let entries = c::LLVMInstructionGetAllMetadataOtherThanDebugLoc(self.0, &mut n);
            let tbaa = {
                let k = "tbaa";
                let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
                c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32)
            };
            let mut kinds = Vec::with_capacity(n);
            for i in 0..n {
                kinds.push(c::LLVMValueMetadataEntriesGetKind(entries, i as u32));
            }
            if !entries.is_null() {
                c::LLVMDisposeValueMetadataEntries(entries);
            }
            for k in kinds {
                if k != tbaa {
                    c::LLVMSetMetadata(self.0, k, std::ptr::null_mut());
                }
            }
            sys::debuginfo::LLVMInstructionSetDebugLoc(self.0, std::ptr::null_mut());
        }
    }
}

/// The string a metadata node starts with (`!{!"llvm.loop.unroll.disable"}`), if it does.
unsafe fn md_first_string(node: sys::prelude::LLVMValueRef) -> Option<String> {
    if c::LLVMIsAMDNode(node).is_null() {
        return None;
    }
    let first = *md_operands(node).first()?;
    if first.is_null() {
        return None;
    }
    let mut len = 0u32;
    let s = c::LLVMGetMDString(first, &mut len);
    (!s.is_null()).then(|| string_from(s, len as usize))
}

impl Val {
    /// The operands of a global's metadata node of kind `kind` (`!enzyme_shadow !{ptr @s}` on
    /// a global variable gives `[@s]`); `None` without such metadata.
    pub fn global_md_operands(self, kind: &str) -> Option<Vec<Val>> {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let want =
                c::LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const _, kind.len() as u32);
            let mut n = 0usize;
            let all = c::LLVMGlobalCopyAllMetadata(self.0, &mut n);
            if all.is_null() {
                return None;
            }
            let mut out = None;
            for k in 0..n as u32 {
                if c::LLVMValueMetadataEntriesGetKind(all, k) == want {
                    let node =
                        c::LLVMMetadataAsValue(ctx, c::LLVMValueMetadataEntriesGetMetadata(all, k));
                    out = Some(
                        md_operands(node)
                            .into_iter()
                            .filter(|v| !v.is_null())
                            .map(Val)
                            .collect(),
                    );
                }
            }
            c::LLVMDisposeValueMetadataEntries(all);
            out
        }
    }
}

/// The operands of a metadata node (as values).
unsafe fn md_operands(node: sys::prelude::LLVMValueRef) -> Vec<sys::prelude::LLVMValueRef> {
    let n = c::LLVMGetMDNodeNumOperands(node) as usize;
    let mut ops = vec![std::ptr::null_mut(); n];
    if n > 0 {
        c::LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
    }
    ops
}

/// A scope of scoped-noalias metadata (LangRef: "`noalias` and `alias.scope` metadata").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AliasScope(sys::prelude::LLVMMetadataRef);

/// New scopes named `names` in a new domain named `domain`, in the context of `near`. Each node
/// refers to itself, as clang's and the inliner's do: such nodes are distinct, so two domains
/// made here never merge, and the inliner clones them for every copy it inlines (its
/// `ScopedAliasMetadataDeepCloner`), so what they say holds within one call of the function
/// they are attached in, never between two calls inlined side by side.
pub fn new_alias_scopes(near: Val, domain: &str, names: &[&str]) -> Vec<AliasScope> {
    unsafe {
        let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(near.0));
        let string = |t: &str| c::LLVMMDStringInContext2(ctx, t.as_ptr() as *const _, t.len());
        let self_referring = |mut rest: Vec<sys::prelude::LLVMMetadataRef>| {
            let temp = sys::debuginfo::LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
            rest.insert(0, temp);
            let node = c::LLVMMDNodeInContext2(ctx, rest.as_mut_ptr(), rest.len());
            sys::debuginfo::LLVMMetadataReplaceAllUsesWith(temp, node);
            node
        };
        let d = self_referring(vec![string(domain)]);
        names
            .iter()
            .map(|n| AliasScope(self_referring(vec![d, string(n)])))
            .collect()
    }
}

impl Val {
    /// True when instruction `self` has `!alias.scope` or `!noalias` metadata.
    pub fn has_alias_scopes(self) -> bool {
        ["alias.scope", "noalias"].iter().any(|k| unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            !c::LLVMGetMetadata(self.0, kind).is_null()
        })
    }

    /// The scopes of `self`'s `!alias.scope` and of its `!noalias` (empty without them).
    pub fn alias_scopes(self) -> (Vec<AliasScope>, Vec<AliasScope>) {
        let list = |k: &str| unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            let node = c::LLVMGetMetadata(self.0, kind);
            if node.is_null() {
                return Vec::new();
            }
            md_operands(node)
                .into_iter()
                .filter(|o| !o.is_null())
                .map(|o| AliasScope(c::LLVMValueAsMetadata(o)))
                .collect()
        };
        (list("alias.scope"), list("noalias"))
    }

    /// Attaches `!alias.scope` (the scopes `self`, a load or store, accesses) and `!noalias`
    /// (the scopes whose accesses it never overlaps), replacing any it had.
    pub fn set_alias_scopes(self, scopes: &[AliasScope], noalias: &[AliasScope]) {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            for (k, list) in [("alias.scope", scopes), ("noalias", noalias)] {
                let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
                let mut ops: Vec<_> = list.iter().map(|s| s.0).collect();
                let node = c::LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len());
                c::LLVMSetMetadata(self.0, kind, c::LLVMMetadataAsValue(ctx, node));
            }
        }
    }
}

impl Val {
    /// Attaches `!KIND !{!"TEXT"}` to instruction `self` (`None`: removes the attachment).
    pub fn set_string_md(self, kind: &str, text: Option<&str>) {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let k = c::LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const _, kind.len() as u32);
            let node = match text {
                Some(t) => {
                    let mut s = [c::LLVMMDStringInContext2(
                        ctx,
                        t.as_ptr() as *const _,
                        t.len(),
                    )];
                    let n = c::LLVMMDNodeInContext2(ctx, s.as_mut_ptr(), 1);
                    c::LLVMMetadataAsValue(ctx, n)
                }
                None => std::ptr::null_mut(),
            };
            c::LLVMSetMetadata(self.0, k, node);
        }
    }

    /// The text of instruction `self`'s `!KIND !{!"TEXT"}` attachment, if it has one.
    pub fn string_md(self, kind: &str) -> Option<String> {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let k = c::LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const _, kind.len() as u32);
            let node = c::LLVMGetMetadata(self.0, k);
            if node.is_null() {
                return None;
            }
            md_first_string(node)
        }
    }
}
