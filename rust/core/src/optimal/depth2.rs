//! The specialised depth-two step (MurTree's and ConTree's key idea): with one split fixed at
//! a node, the best depth-one tree of each of its two sides is found in a single sweep over
//! the node's sorted columns ([`super::depth1::stumps`]), instead of solving two
//! subproblems. So a depth-two subproblem costs one such sweep per root split the interval
//! search evaluates, and never materialises its children.

use super::depth1::{stumps, Sides};
use super::intervals::{Evaluated, Hint, Incumbent};
use super::loss::Loss;
use super::node::mark;
use super::search::Sub;
use super::solution::{Sol, Test};

/// Evaluates `test` at the root of `sub`'s trees (depth two, at most 3 or 4 leaves):
/// offers the best such tree to `inc` and returns its bounds. `hint` bounds the two parts
/// (and their columns) from the evaluated neighbours; `margin`, how far the next candidates
/// are, is how far above the targets the columns' bounds are proven (at most one row's
/// move cost). `side` is scratch of
/// one byte per training row.
pub(crate) fn evaluate<L: Loss>(
    sub: &Sub<'_, '_, L>,
    test: Test,
    margin: f64,
    hint: &Hint,
    inc: &mut Incumbent,
    side: &mut [u8],
) -> Evaluated {
    let (ctx, node, loss, leaves) = (sub.ctx, sub.node, sub.loss, sub.leaves);
    let alpha = ctx.alpha;
    let allocations = if leaves >= 4 { 1 } else { 2 };
    let known = hint.total(allocations, alpha);
    if inc.rules_out(known) {
        return Evaluated {
            left: (0..allocations)
                .map(|i| hint.part(false, i, alpha))
                .collect(),
            right: (0..allocations)
                .map(|i| hint.part(true, i, alpha))
                .collect(),
            score: known,
            columns: hint.columns.clone(),
        };
    }
    mark(node, ctx.columns, test, side);
    let sides = Sides::two(loss, node, side);
    // Proving a column's bound above the target costs a score at every boundary while the
    // errors descend; past one row's move cost it did not pay (breast cancer at depth
    // three: 3.2x the boundaries scored for the same rows swept).
    let per_row = sides.moves.iter().sum::<f64>() / node.len().max(1) as f64;
    let margin = margin.min(per_row);
    // A side's stump need only beat the bound less what the other side costs at least (its
    // leaf's penalty, or what the neighbours prove of it).
    let u = inc.bound();
    let (other_l, other_r) = if leaves >= 4 {
        (hint.part(true, 0, alpha), hint.part(false, 0, alpha))
    } else {
        (hint.part(true, 0, alpha), hint.part(false, 1, alpha))
    };
    let ([left, right], columns) = stumps(
        ctx,
        node,
        loss,
        &sides,
        [u - other_l, u - other_r],
        &hint.columns,
        margin,
    );
    let (bl, br) = (left.bound(alpha), right.bound(alpha));
    let (leaf_l, leaf_r) = (left.leaf + alpha, right.leaf + alpha);
    let (cl, tl) = left.best(alpha);
    let (cr, tr) = right.best(alpha);
    let tree = |t: Option<Test>| t.map_or_else(Sol::leaf, Sol::stump);
    if leaves >= 4 {
        inc.offer(cl + cr, || Sol::split(test, &tree(tl), &tree(tr)));
        Evaluated {
            left: vec![bl],
            right: vec![br],
            score: bl + br,
            columns,
        }
    } else {
        // Three leaves: a stump on one side, a leaf on the other.
        inc.offer(cl + leaf_r, || Sol::split(test, &tree(tl), &Sol::leaf()));
        inc.offer(leaf_l + cr, || Sol::split(test, &Sol::leaf(), &tree(tr)));
        Evaluated {
            left: vec![bl, leaf_l],
            right: vec![leaf_r, br],
            score: (bl + leaf_r).min(leaf_l + br),
            columns,
        }
    }
}
