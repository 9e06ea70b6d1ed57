//! Control-flow order: the blocks reachable from the entry, in reverse post-order, so every
//! value is visited after its definition (phis aside). Unreachable blocks are never visited.

use crate::ir::{Block, Val};
use std::collections::HashSet;

/// Blocks of `f` reachable from its entry, in reverse post-order.
pub fn reverse_post_order(f: Val) -> Vec<Block> {
    let entry = f.entry_block();
    let mut seen = HashSet::from([entry]);
    let mut post = Vec::new();
    // Iterative DFS: (block, successors, next successor index).
    let mut stack = vec![(entry, entry.successors(), 0usize)];
    while let Some((b, succs, i)) = stack.last_mut() {
        if *i < succs.len() {
            let s = succs[*i];
            *i += 1;
            if seen.insert(s) {
                let ss = s.successors();
                stack.push((s, ss, 0));
            }
        } else {
            post.push(*b);
            stack.pop();
        }
    }
    post.reverse();
    post
}
