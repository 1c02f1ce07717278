//! The grown tree renumbered as the in-memory fit numbers it: its growth replayed over the
//! decisions recorded level by level. `builder::grow_searching` pops nodes from a stack
//! (depth-first, first child first) or a heap (best-first by weighted gain, the lower id
//! first among equals, up to `max_leaf_nodes` leaves) and numbers children as it splits.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::Grown;
use crate::builder::{split_node, summarise};
use crate::data::FeatureKind;
use crate::error::Result;
use crate::params::{Splitter, TreeParams};
use crate::split::Searcher;
use crate::tree::{NodeId, Tree, TreeMeta, Writer};

/// A node waiting in the best-first heap: the builder's order (`builder::Ranked`).
struct Ranked {
    priority: f64,
    id: NodeId,
    grown: usize,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority
            .total_cmp(&other.priority)
            .then(other.id.cmp(&self.id))
    }
}

pub(super) fn replay(
    params: &TreeParams,
    kinds: &[FeatureKind],
    n_classes: usize,
    nodes: &[Grown],
    searcher: &Searcher<'_, '_>,
) -> Result<Tree> {
    let mut tree = Writer::new(TreeMeta {
        missing: params.missing,
        conventions: params.conventions,
        splitter: Splitter::Hist,
        max_bins: params.max_bins as u32,
        ..TreeMeta::new(params.criterion, kinds.to_vec(), vec![n_classes])
    });
    let put = |tree: &mut Writer, id: NodeId, g: &Grown| {
        summarise(
            tree,
            id,
            g.stats.as_deref(),
            g.figures(params),
            searcher,
            params,
        );
    };
    let Some(root) = nodes.first() else {
        return tree.finish();
    };
    let id = tree.root(1.0);
    put(&mut tree, id, root);
    let best_first = params.max_leaf_nodes.is_some();
    let mut stack: Vec<(NodeId, usize)> = Vec::new();
    let mut heap: BinaryHeap<Ranked> = BinaryHeap::new();
    let priority = |tree: &Tree, id: NodeId, g: &Grown| {
        g.split
            .as_ref()
            .map_or(f64::NEG_INFINITY, |s| s.score.gain * tree.weight(id))
    };
    if best_first {
        heap.push(Ranked {
            priority: priority(&tree, id, root),
            id,
            grown: 0,
        });
    } else {
        stack.push((id, 0));
    }
    let mut n_leaves = 1;
    loop {
        let next = if best_first {
            heap.pop().map(|r| (r.id, r.grown))
        } else {
            stack.pop()
        };
        let Some((id, i)) = next else {
            break;
        };
        let Some(g) = nodes.get(i) else {
            continue;
        };
        let Some(split) = &g.split else {
            continue;
        };
        let n_children = split.fractions.len();
        if params
            .max_leaf_nodes
            .is_some_and(|max| n_leaves + n_children - 1 > max)
        {
            continue;
        }
        let children = split_node(&mut tree, id, split);
        n_leaves += n_children - 1;
        let pairs: Vec<(NodeId, usize)> = children.into_iter().zip(g.children.clone()).collect();
        for &(c, k) in &pairs {
            if let Some(child) = nodes.get(k) {
                put(&mut tree, c, child);
            }
        }
        if best_first {
            for (c, k) in pairs {
                if let Some(child) = nodes.get(k) {
                    heap.push(Ranked {
                        priority: priority(&tree, c, child),
                        id: c,
                        grown: k,
                    });
                }
            }
        } else {
            stack.extend(pairs.into_iter().rev());
        }
    }
    tree.finish()
}
