//! Subtrees grown apart and put back. On more than one thread, a depth-first fit grows the
//! subtrees of its smaller nodes each in a tree of its own, side by side on the pool, rather
//! than one node after another with only the two children of each split searched together
//! (which left one of two threads idle for most of a deep tree's small nodes). The pieces
//! are then copied into one tree in the order the one-thread growth makes its nodes: that
//! growth finishes a node's subtree before it returns to the nodes waiting below it, so the
//! order is a function of the tree's shape alone, and the tree is the same to the bit on
//! any number of threads (node ids, score and mask tables included).

use crate::control::Control;
use crate::tree::{NodeId, SplitTag, Tree, Writer, NONE};

/// Gives `at` of `out` the figures `from` has in `src`, which growth writes when it makes a
/// node (its summary and recorded scores).
fn copy_figures(out: &mut Writer, at: NodeId, src: &Tree, from: NodeId, control: &Control) {
    out.set_summary(at, &src.summary(from));
    if let Some(scores) = src.node_scores(from) {
        if out.reserve_scores(scores.len(), control).is_some() {
            out.set_scores(at, scores);
        }
    }
}

/// Splits `at` of `out` as `from` is split in `src` (its test, its missing-value rule, and
/// its children with their figures), as growth's `split_node` would; `None` when the memory
/// cannot be had. Returns the new children, in order.
fn copy_split(
    out: &mut Writer,
    at: NodeId,
    src: &Tree,
    from: NodeId,
    control: &Control,
) -> Option<Vec<NodeId>> {
    out.reserve_test(&src.kind(from), control)?;
    let old: Vec<NodeId> = src.children(from).collect();
    out.reserve_nodes(old.len(), control)?;
    let children = out.split_like(at, src, from, old.iter().map(|&c| src.branch_fraction(c)));
    let rule = src.missing_rule(from);
    out.set_missing_rule(at, rule.child, &rule.surrogates, src.missing_weight(from));
    for (&new, &old) in children.iter().zip(&old) {
        copy_figures(out, new, src, old, control);
    }
    Some(children)
}

/// A tree whose one node is a copy of `node` of `tree`, at its depth there: where that
/// node's subtree is grown apart. `None` when the memory cannot be had.
pub(crate) fn root_copy(tree: &Tree, node: NodeId, control: &Control) -> Option<Writer> {
    let mut apart = Writer::like(tree);
    apart.reserve_nodes(1, control)?;
    let root = apart.detached_root(tree.branch_fraction(node), tree.depth(node) as u32);
    copy_figures(&mut apart, root, tree, node, control);
    Some(apart)
}

/// `upper` with each node of `apart` split as the root of the tree beside it (grown from
/// [`root_copy`]), numbered as one thread's depth-first growth numbers them: a node's
/// children when it is split, then its first child's subtree before its second's. `None`
/// when the memory cannot be had, or the fit was stopped meanwhile.
pub(crate) fn assemble(
    upper: &Tree,
    apart: &[(NodeId, Writer)],
    control: &Control,
) -> Option<Writer> {
    // Each upper node grown apart: which tree holds its split.
    let mut grown = vec![NONE; upper.n_nodes()];
    for (k, (node, _)) in apart.iter().enumerate() {
        *grown.get_mut(node.index())? = k as u32;
    }
    let trees: Vec<&Tree> = std::iter::once(upper)
        .chain(apart.iter().map(|(_, t)| &**t))
        .collect();
    let mut out = Writer::like(upper);
    let n: usize = trees.iter().map(|t| t.n_nodes()).sum();
    out.reserve_nodes(n, control)?;
    let root = out.root(upper.branch_fraction(NodeId::ROOT));
    copy_figures(&mut out, root, upper, NodeId::ROOT, control);
    // (node in `out`, tree index, node there): nodes whose split is still to copy.
    let mut stack = vec![(root, 0usize, NodeId::ROOT)];
    while let Some((at, t, node)) = stack.pop() {
        let (t, node) = match grown.get(node.index()) {
            Some(&k) if t == 0 && k != NONE => (k as usize + 1, NodeId::ROOT),
            _ => (t, node),
        };
        let src = *trees.get(t)?;
        if src.tag(node) == SplitTag::Leaf {
            continue;
        }
        let children = copy_split(&mut out, at, src, node, control)?;
        let old: Vec<NodeId> = src.children(node).collect();
        stack.extend(
            children
                .into_iter()
                .zip(old)
                .rev()
                .map(|(new, old)| (new, t, old)),
        );
    }
    // A node's scores left out for want of memory stop the fit, as growth's next check would.
    (!control.stopped()).then_some(out)
}
