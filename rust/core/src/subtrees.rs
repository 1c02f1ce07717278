//! Subtrees grown apart and put back. On more than one thread, a depth-first fit grows the
//! subtrees of its smaller nodes each in a tree of its own, side by side on the pool, rather
//! than one node after another with only the two children of each split searched together
//! (which left one of two threads idle for most of a deep tree's small nodes). The pieces
//! are then copied into one tree in the order the one-thread growth makes its nodes: that
//! growth finishes a node's subtree before it returns to the nodes waiting below it, so the
//! order is a function of the tree's shape alone, and the tree is the same to the bit on
//! any number of threads (node ids, score and mask tables included).

use crate::control::Control;
use crate::tree::{NodeId, NodeKind, SplitTag, Tree, NONE};

impl Tree {
    /// Gives `at` the figures `from` has in `src`, which growth writes when it makes a node
    /// (its depth, weight, rows, impurity, labels, value and recorded scores).
    fn copy_figures(&mut self, at: NodeId, src: &Tree, from: NodeId, control: &Control) {
        let (i, j) = (at.index(), from.index());
        for (dst, src) in [
            (&mut self.weight, &src.weight),
            (&mut self.n_rows, &src.n_rows),
            (&mut self.impurity, &src.impurity),
        ] {
            copy_one(dst, i, src, j);
        }
        copy_one(&mut self.depth, i, &src.depth, j);
        let k = self.n_outputs();
        copy_span(&mut self.label, i * k, &src.label, j * k, k);
        let w = self.value_width();
        copy_span(&mut self.value, i * w, &src.value, j * w, w);
        if let Some(scores) = src.node_scores(from) {
            if control.reserve(&mut self.scores, scores.len()).is_some() {
                let offset = self.scores.len() as u32;
                self.scores.extend_from_slice(scores);
                copy_one(&mut self.score_offset, i, &[offset], 0);
            }
        }
    }

    /// Splits `at` as `from` is split in `src` (its test, its missing-value rule, and its
    /// children with their figures), as growth's `split_node` would; `None` when the memory
    /// cannot be had. Returns the new children, in order.
    fn copy_split(
        &mut self,
        at: NodeId,
        src: &Tree,
        from: NodeId,
        control: &Control,
    ) -> Option<Vec<NodeId>> {
        let (i, j) = (at.index(), from.index());
        if let Some((features, weights)) = src.linear_terms(from) {
            control.reserve(&mut self.linear_features, features.len())?;
            control.reserve(&mut self.linear_weights, weights.len())?;
            self.set_linear_terms(at, features, weights);
        }
        if let NodeKind::Subset { sides, .. } = src.kind(from) {
            control.reserve(&mut self.sides, sides.len())?;
            copy_one(&mut self.subset_offset, i, &[self.sides.len() as u32], 0);
            self.sides.extend_from_slice(sides);
        }
        copy_one(&mut self.tag, i, &src.tag, j);
        copy_one(&mut self.feature, i, &src.feature, j);
        copy_one(&mut self.threshold, i, &src.threshold, j);
        let old: Vec<NodeId> = src.children(from).collect();
        self.reserve_nodes(old.len(), control)?;
        let children: Vec<NodeId> = old
            .iter()
            .map(|&c| self.push_node(Some(at), src.branch_fraction(c)))
            .collect();
        copy_one(
            &mut self.first_child,
            i,
            &[children.first().map_or(NONE, |c| c.0)],
            0,
        );
        copy_one(&mut self.n_children, i, &[children.len() as u32], 0);
        let rule = src.missing_rule(from);
        self.set_missing_rule(at, rule.child, &rule.surrogates, src.missing_weight(from));
        for (&new, &old) in children.iter().zip(&old) {
            self.copy_figures(new, src, old, control);
        }
        Some(children)
    }
}

/// A tree whose one node is a copy of `node` of `tree`: where that node's subtree is grown
/// apart. `None` when the memory cannot be had.
pub(crate) fn root_copy(tree: &Tree, node: NodeId, control: &Control) -> Option<Tree> {
    let mut apart = tree.like();
    apart.reserve_nodes(1, control)?;
    let root = apart.push_node(None, tree.branch_fraction(node));
    apart.copy_figures(root, tree, node, control);
    Some(apart)
}

/// `upper` with each node of `apart` split as the root of the tree beside it (grown from
/// [`root_copy`]), numbered as one thread's depth-first growth numbers them: a node's
/// children when it is split, then its first child's subtree before its second's. `None`
/// when the memory cannot be had, or the fit was stopped meanwhile.
pub(crate) fn assemble(upper: &Tree, apart: &[(NodeId, Tree)], control: &Control) -> Option<Tree> {
    // Each upper node grown apart: which tree holds its split.
    let mut grown = vec![NONE; upper.n_nodes()];
    for (k, (node, _)) in apart.iter().enumerate() {
        *grown.get_mut(node.index())? = k as u32;
    }
    let trees: Vec<&Tree> = std::iter::once(upper)
        .chain(apart.iter().map(|(_, t)| t))
        .collect();
    let mut out = upper.like();
    let n: usize = trees.iter().map(|t| t.n_nodes()).sum();
    out.reserve_nodes(n, control)?;
    let root = out.push_node(None, upper.branch_fraction(NodeId::ROOT));
    out.copy_figures(root, upper, NodeId::ROOT, control);
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
        let children = out.copy_split(at, src, node, control)?;
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

fn copy_one<T: Copy>(dst: &mut [T], i: usize, src: &[T], j: usize) {
    if let (Some(d), Some(&s)) = (dst.get_mut(i), src.get(j)) {
        *d = s;
    }
}

fn copy_span<T: Copy>(dst: &mut [T], i: usize, src: &[T], j: usize, n: usize) {
    if let (Some(d), Some(s)) = (dst.get_mut(i..i + n), src.get(j..j + n)) {
        d.copy_from_slice(s);
    }
}
