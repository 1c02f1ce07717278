//! The compact layout a batch walks: each test in a 16-byte node, nodes in depth-first order,
//! the categorical tests' bitsets and children tables beside them, and each leaf's answer.
//! [`descend`] steps [`LANES`](super::LANES) rows through it together, with selects instead of
//! branches.

use std::hint::select_unpredictable;

use super::{Output, Read};
use crate::data::FeatureKind;
use crate::tree::{NodeId, NodeKind, Side, SplitTag, Tree, NONE};

/// A node as the hot loop reads it, test and children in 16 bytes. Nodes are in depth-first
/// order, so child 0 follows its parent (often in the same cache line): a row that passes the
/// test goes to the next node, one that fails it to `right`. The top two bits of `feature`
/// say what `test` holds (the rest is the feature):
/// - [`NUMERIC`]: the bits of `threshold` in `x <= threshold`: a float64, or for float32
///   input ([`Flat::narrow`]) the largest float32 at most the threshold in the low half (a
///   float32 is at most one exactly when it is at most the other: no value is widened);
/// - [`ORDERED`]: `threshold` in `code <= threshold` (ordered categories);
/// - [`SUBSET`]: where the node's bitsets start in [`Flat::left`] (low half) and the number
///   of categories (high half): child 0 holds the codes whose bit is set;
/// - [`MULTIWAY`]: where the node's children, one per code, start in [`Flat::children`]
///   (low half) and how many there are (high half); `right` is unused.
///
/// A row missing the tested value (NaN, a missing code, or a category the node's training
/// rows lacked) goes to [`Flat::missing`]. A numeric node whose missing values go to a child
/// says which in its own bits, so the walk tests a NaN without a branch or a second load: NaN
/// fails `x <= threshold` (right), and [`NAN_LEFT`] turns it to child 0. A subset node whose
/// missing values go to a child says which in its bitset (see [`Flat::left`]). Every other
/// node (a leaf, or a test the general routing does) is [`Node::stay`]: every row stays there.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct Node {
    test: u64,
    feature: u32,
    right: u32,
}

const KIND_SHIFT: u32 = 30;
/// A numeric node's flag (below the kind): a NaN goes to child 0.
const NAN_LEFT: u32 = 1 << 29;
const FEATURE_MASK: u32 = NAN_LEFT - 1;
/// The kinds: numeric and subset nodes' are even (see [`Flat::step`]).
const NUMERIC: u32 = 0;
const ORDERED: u32 = 1;
const SUBSET: u32 = 2;
const MULTIWAY: u32 = 3;

/// What subset nodes a layout holds, as [`Flat::step`]'s `SUBSETS` parameter: none; only
/// nodes whose missing values (and unseen categories) go to a child, which [`Flat::left`]
/// alone routes; or some that stop them, which [`Flat::seen`] routes too. [`MIXED`]: subset
/// nodes of either kind beside ordered or multiway nodes, the only layout whose step first
/// asks which kind of node it meets (the others' every node is numeric or subset).
/// [`NUMERIC_ONLY`]: no categorical node at all, so the step never asks either (the test of
/// the node's kind, and the categorical code behind it, kept the lanes' loop from being
/// unrolled: 37 instructions a step on a fully grown numeric tree).
pub(super) const NO_SUBSETS: u8 = 0;
pub(super) const TWO_WAY: u8 = 1;
pub(super) const THREE_WAY: u8 = 2;
pub(super) const MIXED: u8 = 3;
pub(super) const NUMERIC_ONLY: u8 = 4;

/// How a walk treats NaN, as [`Flat::step`]'s `NANS` parameter: the lanes' rows hold no NaN
/// in a numeric feature (the numeric test alone, the common case); a NaN goes where the
/// node's [`NAN_LEFT`] bit says (right where no node stops a NaN); or a NaN first takes the
/// node's missing direction (some node stops it: [`Flat::nan_stops`]).
pub(super) const NO_NAN: u8 = 0;
pub(super) const NAN_FOLDED: u8 = 1;
pub(super) const NAN_STOPS: u8 = 2;

/// A stay node's test: as a float64, a NaN; its low half as a float32, −∞. Either fails
/// every number and NaN.
const NEVER: u64 = 0xfff0_0000_ff80_0000;

impl Node {
    /// The node at position `at` that keeps every row: its threshold fails every number and
    /// NaN ([`NEVER`]), and `right` is the node itself.
    fn stay(at: u32) -> Node {
        Node {
            test: NEVER,
            feature: 0,
            right: at,
        }
    }

    /// A node of `kind` on `feature`, unless the feature's index needs the kind's bits or
    /// a child is not in the layout.
    fn new(kind: u32, feature: usize, test: u64, right: u32) -> Option<Node> {
        let feature = u32::try_from(feature).ok().filter(|&f| f <= FEATURE_MASK)?;
        (right != NONE).then_some(Node {
            test,
            feature: feature | kind << KIND_SHIFT,
            right,
        })
    }

    /// The position and length the low and high halves of a table node's `test` hold.
    #[inline]
    fn span(self) -> (usize, u32) {
        (
            (self.test & u64::from(u32::MAX)) as usize,
            (self.test >> 32) as u32,
        )
    }
}

/// The words of a subset node's bitset over `count` categories: one bit per category, and
/// one more for the missing code (any code past the categories reads it).
fn subset_words(count: u32) -> usize {
    (count as usize + 1).div_ceil(64)
}

/// The compact layout of a tree and each leaf's answer.
pub(super) struct Flat<T> {
    nodes: Vec<Node>,
    /// Where a row missing a node's tested value goes: the child the node's missing-value
    /// rule always picks (a missing child and no surrogates), else the node itself, where
    /// the row stops for the general routing (surrogates, C4.5's fractions).
    missing_next: Vec<u32>,
    /// Whether a numeric node stops the rows missing its value (a rule with no single
    /// child: surrogates, C4.5's fractions): only then do the walks look for NaN first.
    pub(super) nan_stops: bool,
    /// Subset nodes' bitsets, [`subset_words`] each: the categories that go to child 0. Where
    /// the node's missing values go to a child, so do its unseen categories and the missing
    /// code: their bits say which, and one load routes every row. A power of two of words
    /// (padded with zeros), so that a numeric node's threshold bits, read as a subset node's
    /// span by the branch-free step, index a word too.
    left: Vec<u64>,
    /// The same words of the categories each subset node saw (every bit set where the
    /// missing values go to a child): any other category is routed as missing. Read only by
    /// a layout with [`THREE_WAY`] subsets.
    seen: Vec<u64>,
    /// [`Flat::step`]'s `SUBSETS` for this layout.
    subsets: u8,
    /// Whether numeric thresholds are float32s, for a reader of float32 values
    /// ([`Read::NARROW`]; a walk with another reader stops at the root).
    narrow: bool,
    /// Whether some node is ordered or multiway (then a layout with subsets is [`MIXED`]).
    tables: bool,
    /// Multiway nodes' children by code.
    children: Vec<u32>,
    pub(super) leaf: Vec<bool>,
    /// The arena id of each node, and the position of each arena node.
    pub(super) ids: Vec<NodeId>,
    pub(super) position: Vec<u32>,
    /// The most steps a walk takes: the depth of the deepest node.
    depth: usize,
    /// Whether a compact node tests feature `f`: a staged reader copies only those columns
    /// (a [`Node::stay`] reads feature 0 too, but what it reads does not matter).
    pub(super) tests: Vec<bool>,
    /// `width` items per node; a leaf's are what the general walk writes for a row that
    /// reaches it alone.
    pub(super) answers: Vec<T>,
}

impl<T: Copy + Default> Flat<T> {
    pub(super) fn new<O: Output<Item = T>>(tree: &Tree, output: &O, narrow: bool) -> Self {
        let n = tree.n_nodes();
        let mut ids = Vec::with_capacity(n);
        let mut position = vec![NONE; n];
        let mut depth = 0;
        let mut stack = vec![(NodeId::ROOT, 0)];
        while let Some((id, d)) = stack.pop() {
            if let Some(p) = position.get_mut(id.index()) {
                *p = ids.len() as u32;
            }
            ids.push(id);
            depth = depth.max(d);
            stack.extend(tree.children(id).rev().map(|c| (c, d + 1)));
        }
        let mut flat = Flat {
            nodes: Vec::with_capacity(n),
            missing_next: Vec::with_capacity(n),
            nan_stops: false,
            left: Vec::new(),
            seen: Vec::new(),
            subsets: NO_SUBSETS,
            narrow,
            tables: false,
            children: Vec::new(),
            leaf: ids
                .iter()
                .map(|&id| tree.tag(id) == SplitTag::Leaf)
                .collect(),
            ids,
            position,
            depth,
            tests: vec![false; tree.meta().kinds.len()],
            answers: Vec::new(),
        };
        for i in 0..flat.ids.len() {
            let here = i as u32;
            let Some(&id) = flat.ids.get(i) else { break };
            let rule = tree.missing_rule(id);
            // The child the node's rule always sends a missing value to (NONE: no such one).
            let to = match rule.child {
                Some(k) if rule.surrogates.feature.is_empty() => flat.child(tree, id, k),
                _ => NONE,
            };
            let node = flat.compact(tree, id, here, to);
            let missing = if node.is_some() && to != NONE {
                to
            } else {
                here
            };
            if let Some(t) =
                node.and_then(|n| flat.tests.get_mut((n.feature & FEATURE_MASK) as usize))
            {
                *t = true;
            }
            let node = match node {
                Some(mut node) if node.feature >> KIND_SHIFT == NUMERIC => {
                    if missing == here.wrapping_add(1) {
                        node.feature |= NAN_LEFT;
                    }
                    flat.nan_stops |= missing == here;
                    node
                }
                Some(node) => {
                    flat.tables |= node.feature >> KIND_SHIFT & 1 == 1;
                    node
                }
                None => Node::stay(here),
            };
            flat.nodes.push(node);
            flat.missing_next.push(missing);
        }
        flat.subsets = match (flat.tables, flat.subsets) {
            (false, NO_SUBSETS) => NUMERIC_ONLY,
            (true, NO_SUBSETS) => NO_SUBSETS,
            (true, _) => MIXED,
            (false, subsets) => subsets,
        };
        let words = flat.left.len().next_power_of_two();
        flat.left.resize(words, 0);
        flat.seen.resize(words, 0);
        let width = output.width(tree);
        let mut answers = vec![T::default(); n * width];
        let mut scratch = vec![0.0; tree.n_classes()];
        for ((dst, &is_leaf), &id) in answers.chunks_mut(width).zip(&flat.leaf).zip(&flat.ids) {
            if is_leaf {
                output.write(&[(id, 1.0)], dst, &mut scratch);
            }
        }
        flat.answers = answers;
        flat
    }

    /// [`Flat::step`]'s `SUBSETS` for this layout.
    #[cfg(test)]
    pub(super) fn subsets(&self) -> u8 {
        self.subsets
    }

    /// The position of child `k` of arena node `id` (NONE if it has none).
    fn child(&self, tree: &Tree, id: NodeId, k: usize) -> u32 {
        let child = tree.children(id).nth(k);
        child
            .and_then(|c| self.position.get(c.index()))
            .copied()
            .unwrap_or(NONE)
    }

    /// The compact node of arena node `id` at position `here` whose missing values go to
    /// position `to` (NONE: the general routing sends them), its bitsets or children table
    /// appended; `None` when the general routing must do its test.
    fn compact(&mut self, tree: &Tree, id: NodeId, here: u32, to: u32) -> Option<Node> {
        let categorical = |f: usize| {
            matches!(
                tree.meta().kinds.get(f),
                Some(FeatureKind::Categorical { .. })
            )
        };
        let two = tree.children(id).count() == 2;
        let right = self.child(tree, id, 1);
        match tree.kind(id) {
            // A NaN threshold (no fitted tree has one) sends every row left: general
            // routing's business.
            NodeKind::Numeric { feature, threshold }
                if tree.meta().kinds.get(feature) == Some(&FeatureKind::Numeric)
                    && two
                    && !threshold.is_nan() =>
            {
                let test = if self.narrow {
                    u64::from(narrow_threshold(threshold).to_bits())
                } else {
                    threshold.to_bits()
                };
                Node::new(NUMERIC, feature, test, right)
            }
            NodeKind::Ordered { feature, threshold } if categorical(feature) && two => {
                Node::new(ORDERED, feature, u64::from(threshold), right)
            }
            NodeKind::Subset { feature, sides } if categorical(feature) && two => {
                let node = Node::new(SUBSET, feature, 0, right)?;
                let start = self.left.len();
                let offset = u32::try_from(start).ok()?;
                let count = u32::try_from(sides.len()).ok()?;
                let words = subset_words(count);
                // Where the missing values go to a child, every code is routed by its bit.
                let folded = to != NONE;
                let unseen_left = folded && to == here.wrapping_add(1);
                // A word at a time, by comparisons rather than a branch on each side (a coin
                // toss): a column of thousands of categories is split by many nodes, and each
                // call lays them out again.
                let (is_left, is_unseen) = (Side::Left as u64, Side::Unseen as u64);
                let unseen_bit = u64::from(unseen_left);
                for chunk in sides.chunks(64) {
                    let (mut left, mut seen) = (0u64, 0u64);
                    for (b, &side) in chunk.iter().enumerate() {
                        let v = side as u64;
                        let unseen = u64::from(v == is_unseen);
                        left |= (u64::from(v == is_left) | (unseen & unseen_bit)) << b;
                        seen |= (unseen ^ 1) << b;
                    }
                    self.left.push(left);
                    self.seen.push(if folded { u64::MAX } else { seen });
                }
                // The missing code's bit (in a word of its own after a multiple of 64).
                self.left.resize(start + words, 0);
                self.seen
                    .resize(start + words, if folded { u64::MAX } else { 0 });
                if let Some(word) = self.left.get_mut(start + count as usize / 64) {
                    *word |= u64::from(unseen_left) << (count % 64);
                }
                self.subsets = self.subsets.max(if folded { TWO_WAY } else { THREE_WAY });
                Some(Node {
                    test: u64::from(offset) | u64::from(count) << 32,
                    ..node
                })
            }
            NodeKind::Multiway { feature } if categorical(feature) => {
                let count = tree.children(id).count();
                let offset = u32::try_from(self.children.len()).ok()?;
                let children: Vec<u32> = (0..count).map(|k| self.child(tree, id, k)).collect();
                if children.contains(&NONE) {
                    return None;
                }
                self.children.extend(children);
                let test = u64::from(offset) | (count as u64) << 32;
                Node::new(MULTIWAY, feature, test, 0)
            }
            _ => None,
        }
    }

    /// The answer of the node at `at` if it is a leaf, where answers are one item each (only
    /// then: `at` indexes them).
    #[inline]
    pub(super) fn leaf_answer(&self, at: u32) -> Option<T> {
        let i = at as usize;
        if self.leaf.get(i) == Some(&true) {
            self.answers.get(i).copied()
        } else {
            None
        }
    }

    /// Where a row missing the value node `at` tests goes (`missing_next` has every node's:
    /// the default, staying, is never read).
    #[inline]
    fn missing_of(&self, at: u32) -> u32 {
        self.missing_next.get(at as usize).copied().unwrap_or(at)
    }

    /// Where categorical node `node` (at `at`) sends a row of category `code`, the branchy
    /// way (a tree with ordered or multiway nodes).
    #[inline]
    fn categorical(&self, node: Node, at: u32, code: u32) -> u32 {
        let (offset, count) = node.span();
        match node.feature >> KIND_SHIFT {
            ORDERED => {
                select_unpredictable(u64::from(code) <= node.test, at.wrapping_add(1), node.right)
            }
            SUBSET => self.subset::<THREE_WAY>(node, at, code),
            // A code with no child stays: the general routing spreads it (as it would).
            _ if code < count => self
                .children
                .get(offset + code as usize)
                .copied()
                .unwrap_or(at), // code < count: the node's table has it
            _ => at,
        }
    }

    /// Whether numeric node `node` sends `row`'s value of feature `f` to child 0 (a NaN:
    /// where its [`NAN_LEFT`] bit says, unless `NANS` says there is none), and whether the
    /// value is NaN.
    #[inline]
    fn numeric_left<R: Read, const NANS: u8>(
        node: Node,
        src: &R,
        row: usize,
        f: usize,
    ) -> (bool, bool) {
        let (below, nan) = if R::NARROW {
            let x = src.x32(row, f);
            (x <= f32::from_bits(node.test as u32), x.is_nan())
        } else {
            let x = src.x(row, f);
            (x <= f64::from_bits(node.test), x.is_nan())
        };
        if NANS == NO_NAN {
            return (below, nan);
        }
        let nan_left = node.feature & NAN_LEFT != 0;
        (below | (nan_left & nan), nan)
    }

    /// The word of `node`'s bitsets that holds category `code`, and the bit: any code past
    /// the node's categories ([`u32::MAX`] for a missing one among them) reads the missing
    /// code's bit. `node` may be a numeric node (its threshold's bits read as a span): the
    /// index then stays in the padded words, and the bit does not matter.
    #[inline]
    fn word(&self, node: Node, code: u32) -> (usize, u64) {
        let (offset, count) = node.span();
        // A select: for a numeric node `code` and `count` are bits of a number and a
        // threshold, and a branch on them would be a coin toss.
        let c = code.min(count);
        let mask = self.left.len().wrapping_sub(1);
        ((offset + c as usize / 64) & mask, 1u64 << (c % 64))
    }

    /// Where subset node `node` (at `at`) sends a row of category `code`, by selects: with
    /// [`THREE_WAY`] subsets, a category the node did not see goes to its missing child.
    #[inline]
    fn subset<const SUBSETS: u8>(&self, node: Node, at: u32, code: u32) -> u32 {
        let (w, bit) = self.word(node, code);
        let left = self.left.get(w).is_some_and(|word| word & bit != 0);
        let side = select_unpredictable(left, at.wrapping_add(1), node.right);
        if SUBSETS == THREE_WAY {
            let seen = self.seen.get(w).is_some_and(|word| word & bit != 0);
            select_unpredictable(seen, side, self.missing_of(at))
        } else {
            side
        }
    }

    /// Where the row at node `at` goes next (`at` itself: it stops there), by a select, not
    /// a branch: which way a row goes is a coin toss to the branch predictor. A NaN tested by
    /// a numeric node goes the way its [`NAN_LEFT`] bit says, which is right only where the
    /// node's missing values go to a child: with [`NAN_STOPS`] (rows with NaN, and a node
    /// that stops them: [`Flat::nan_stops`]), a NaN first takes the node's missing direction;
    /// with [`NO_NAN`] (no row has one) the walk does not look for NaN at all.
    ///
    /// With `SUBSETS` (a tree with subset nodes), a numeric or a subset node is stepped
    /// without a branch on which it is: both of its tests are computed (the one of the other
    /// kind reads a value or bitset word that does not matter) and the node's kind selects.
    /// Which kind of node a row meets next is as much a coin toss as which way it goes, and
    /// a mispredicted branch costs more than the second test.
    #[inline]
    fn step<R: Read, const NANS: u8, const SUBSETS: u8>(
        &self,
        src: &R,
        row: usize,
        at: u32,
    ) -> u32 {
        // No walk reaches a position past the nodes. With subsets, a branch out rather than
        // a stand-in node keeps the hot path from building one at every step (7 fewer
        // instructions a step on a categorical tree); without, the stand-in compiles to
        // fewer (3 a step on a numeric tree with NaN).
        let node = match self.nodes.get(at as usize) {
            Some(&node) => node,
            None if SUBSETS != NO_SUBSETS && SUBSETS != NUMERIC_ONLY => return at,
            None => Node::stay(at),
        };
        let f = (node.feature & FEATURE_MASK) as usize;
        let kind = node.feature >> KIND_SHIFT;
        // Only a [`MIXED`] layout asks which kind of node this is (one branch, the same way
        // at most nodes): even kinds are numeric or subset nodes.
        if SUBSETS == TWO_WAY || SUBSETS == THREE_WAY || (SUBSETS == MIXED && kind & 1 == 0) {
            let numeric = kind == NUMERIC;
            let (by_number, nan) = Self::numeric_left::<R, NANS>(node, src, row, f);
            if NANS == NAN_STOPS && numeric && nan {
                return self.missing_of(at);
            }
            let code = src.code_or_missing(row, f);
            if SUBSETS == TWO_WAY {
                let (w, bit) = self.word(node, code);
                let subset_left = self.left.get(w).is_some_and(|word| word & bit != 0);
                let left = select_unpredictable(numeric, by_number, subset_left);
                return select_unpredictable(left, at.wrapping_add(1), node.right);
            }
            let by_number = select_unpredictable(by_number, at.wrapping_add(1), node.right);
            let by_subset = self.subset::<THREE_WAY>(node, at, code);
            return select_unpredictable(numeric, by_number, by_subset);
        }
        if SUBSETS == NUMERIC_ONLY || kind == NUMERIC {
            let (left, nan) = Self::numeric_left::<R, NANS>(node, src, row, f);
            if NANS == NAN_STOPS && nan {
                return self.missing_of(at);
            }
            select_unpredictable(left, at.wrapping_add(1), node.right)
        } else {
            match src.code_at(row, f) {
                Some(code) => self.categorical(node, at, code),
                None => self.missing_of(at),
            }
        }
    }
}

/// Where each of the rows `first..first + N` stops, from the nodes `at`: a leaf, a node of
/// another kind, or (with [`NAN_STOPS`], for rows missing some numeric value) a node whose
/// missing value needs the general routing. `NANS` says how the rows' NaN are walked (see
/// [`Flat::step`]). The lanes step in lockstep until none moves, or for as many steps as the
/// deepest walk takes. The rows are consecutive, so a lane's row is its index (no load);
/// rows past the ones wanted (a short group's spare lanes) are walked too, on whatever the
/// reader gives for them, and their stops ignored.
#[inline]
pub(super) fn descend<T: Copy + Default, R: Read, const N: usize, const NANS: u8>(
    flat: &Flat<T>,
    src: &R,
    first: usize,
    at: [u32; N],
) -> [u32; N] {
    // A layout of the other width's thresholds: every row stops where it is, for the
    // general routing (no caller builds one).
    if flat.narrow != R::NARROW {
        return at;
    }
    match flat.subsets {
        NUMERIC_ONLY => descend_apart::<T, R, N, NANS, NUMERIC_ONLY>(flat, src, first, at),
        NO_SUBSETS => descend_apart::<T, R, N, NANS, NO_SUBSETS>(flat, src, first, at),
        TWO_WAY => descend_by::<T, R, N, NANS, TWO_WAY>(flat, src, first, at),
        THREE_WAY => descend_by::<T, R, N, NANS, THREE_WAY>(flat, src, first, at),
        _ => descend_by::<T, R, N, NANS, MIXED>(flat, src, first, at),
    }
}

/// [`descend`] on a layout without subsets, never inlined: inlined into [`descend`] beside
/// the subset layouts' loops, the numeric one took 6% more instructions (callgrind,
/// predict_cells.py's numeric cell); the subset layouts' loops are the faster inlined.
#[inline(never)]
fn descend_apart<T: Copy + Default, R: Read, const N: usize, const NANS: u8, const SUBSETS: u8>(
    flat: &Flat<T>,
    src: &R,
    first: usize,
    at: [u32; N],
) -> [u32; N] {
    descend_by::<T, R, N, NANS, SUBSETS>(flat, src, first, at)
}

/// [`descend`] by [`Flat::step`] with `SUBSETS`.
#[inline]
fn descend_by<T: Copy + Default, R: Read, const N: usize, const NANS: u8, const SUBSETS: u8>(
    flat: &Flat<T>,
    src: &R,
    first: usize,
    mut at: [u32; N],
) -> [u32; N] {
    // Every step goes one level deeper: after `depth` steps no row moves. Whether one did
    // is asked every other step (a row that stopped stays, so the spare step is harmless),
    // which saves the test's instructions on every other one (a fully grown tree's rows
    // take some thirty steps).
    for _ in 0..flat.depth.div_ceil(2) {
        for (l, a) in at.iter_mut().enumerate() {
            *a = flat.step::<R, NANS, SUBSETS>(src, first + l, *a);
        }
        let mut moved = 0;
        for (l, a) in at.iter_mut().enumerate() {
            let next = flat.step::<R, NANS, SUBSETS>(src, first + l, *a);
            moved |= next ^ *a;
            *a = next;
        }
        if moved == 0 {
            break;
        }
    }
    at
}

/// The largest float32 at most `threshold`: a float32 `x` has `x <= threshold` exactly when
/// `x <= narrow_threshold(threshold)`.
fn narrow_threshold(threshold: f64) -> f32 {
    let near = threshold as f32; // the nearest, or ±∞ past the largest float32
    if f64::from(near) > threshold {
        near.next_down()
    } else {
        near
    }
}
