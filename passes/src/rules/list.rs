//! libstdc++'s doubly linked lists (`std::list`): the out-of-line node functions of
//! `src/c++98/list.cc` that the inline templates call (`push_back`/`insert` hook a node in,
//! `erase` unhooks one, `splice`/`sort`/`merge` transfer runs of nodes, `reverse` and `swap`),
//! which live in `libstdc++.so` and so have no body in the module.
//!
//! As for red-black trees ([`super::rbtree`]), the shadow of a list is a list of shadow nodes of
//! the same shape: every node comes from `operator new` (whose shadow is a fresh node), the
//! values the inline code stores into nodes are mirrored by the ordinary store rules, and these
//! rules relink the shadow nodes as the primal ones are relinked, by calling the same function
//! on the shadow pointers. They only move pointers (the list's size, an integer in its header,
//! is kept by the inline code and read from the primal), so there is no adjoint work: in
//! reverse mode the augmented sweep does what forward mode does.
//!
//! All of a call's nodes have shadows or none has: a list whose header has a shadow and whose
//! nodes do not (or the reverse) could not keep the primal's shape, and is an error.

use super::calls::ForwardCall;
use super::rbtree::{callee, shadows, SAME_ON_SHADOW};
use super::rule::{Area, Effects, Reverse, Rule, RuleKind};
use crate::diag::{Error, Result};
use crate::ir::Val;

macro_rules! list {
    ($name:literal, $mangled:literal) => {
        Rule {
            name: $name,
            aliases: &[$mangled],
            libm_variants: false,
            area: Area::List,
            kind: RuleKind::Forward(same_on_shadows, Reverse::Custom(&SAME_ON_SHADOW)),
            effects: Effects::READS_WRITES,
        }
    };
}

/// The list node rules: named as in C++, matched by their Itanium-mangled names.
pub static RULES: &[Rule] = &[
    list!(
        "std::__detail::_List_node_base::_M_hook",
        "_ZNSt8__detail15_List_node_base7_M_hookEPS0_"
    ),
    list!(
        "std::__detail::_List_node_base::_M_unhook",
        "_ZNSt8__detail15_List_node_base9_M_unhookEv"
    ),
    list!(
        "std::__detail::_List_node_base::_M_transfer",
        "_ZNSt8__detail15_List_node_base11_M_transferEPS0_S1_"
    ),
    list!(
        "std::__detail::_List_node_base::_M_reverse",
        "_ZNSt8__detail15_List_node_base10_M_reverseEv"
    ),
    list!(
        "std::__detail::_List_node_base::swap",
        "_ZNSt8__detail15_List_node_base4swapERS0_S1_"
    ),
];

/// The same call on the shadows of all its nodes (every argument is a node pointer); nothing
/// when none has a shadow.
fn same_on_shadows(c: &mut ForwardCall) -> Result<Option<Val>> {
    if !c.args.iter().all(|a| a.ty().is_ptr()) || !c.call.ty().is_void() {
        return Err(Error::at(
            c.src,
            "a call to libstdc++'s list node function does not have the arguments of its declaration in <bits/stl_list.h>",
        ));
    }
    let all: Vec<usize> = (0..c.args.len()).collect();
    let Some(s) = shadows(c, &all, "the list's nodes", "std::list")? else {
        return Ok(None);
    };
    let f = callee(c)?;
    c.b.call_function(f, &s);
    Ok(None)
}
