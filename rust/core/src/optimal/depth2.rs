//! The specialised depth-two step (MurTree's and ConTree's key idea): with one split fixed at
//! a node, the best depth-one tree of each of its two sides is found in a single sweep over
//! the node's sorted columns ([`super::depth1::stumps`]), instead of solving two
//! subproblems. So a depth-two subproblem costs one such sweep per root split the interval
//! search evaluates, and never materialises its children.

use super::depth1::{stumps, Sides};
use super::intervals::{Evaluated, Incumbent};
use super::loss::Loss;
use super::node::{mark, Node};
use super::search::Ctx;
use super::solution::{Sol, Test};

/// Evaluates `test` at the root of a tree of depth two with at most `leaves` (3 or 4)
/// leaves: offers the best such tree to `inc` and returns its bounds. `side` is scratch of
/// one byte per training row.
pub(crate) fn evaluate<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    loss: &L,
    test: Test,
    leaves: usize,
    inc: &mut Incumbent,
    side: &mut [u8],
) -> Evaluated {
    let alpha = ctx.alpha;
    mark(node, ctx.columns, test, side);
    let sides = Sides::two(loss, node, side);
    // Each side costs at least one leaf's penalty.
    let cap = inc.bound() - alpha;
    let [left, right] = stumps(ctx, node, loss, &sides, [cap, cap]);
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
        }
    } else {
        // Three leaves: a stump on one side, a leaf on the other.
        inc.offer(cl + leaf_r, || Sol::split(test, &tree(tl), &Sol::leaf()));
        inc.offer(leaf_l + cr, || Sol::split(test, &Sol::leaf(), &tree(tr)));
        Evaluated {
            left: vec![bl, leaf_l],
            right: vec![leaf_r, br],
            score: (bl + leaf_r).min(leaf_l + br),
        }
    }
}
