//! What a node is made of: its id, its test ([`NodeKind`], stored as a [`SplitTag`] and
//! fields), the scores recorded when it was searched, its surrogate splits, and what training
//! left in it ([`Summary`]). The types the arena's readers and its writer exchange.

use crate::data::FeatureKind;

/// Index of a node in a [`super::Tree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

impl NodeId {
    pub const ROOT: NodeId = NodeId(0);

    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where a category goes in a subset split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Side {
    /// Child 1.
    Right = 0,
    /// Child 0.
    Left = 1,
    /// Absent from the node's training rows: routed like a missing value.
    Unseen = 2,
}

/// The test a node applies, as stored in the arena's `tag` vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SplitTag {
    Leaf = 0,
    /// `x <= threshold` → child 0.
    Numeric = 1,
    /// Child `k` holds category code `k`.
    Multiway = 2,
    /// Category side from the node's subset mask.
    Subset = 3,
    /// Ordered category `code <= threshold` → child 0.
    Ordered = 4,
    /// Linear test `Σ w_i · x_i <= threshold` → child 0.
    Oblique = 5,
}

/// A borrowed view of one node's test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NodeKind<'t> {
    Leaf,
    Numeric {
        feature: usize,
        threshold: f64,
    },
    Multiway {
        feature: usize,
    },
    Subset {
        feature: usize,
        sides: &'t [Side],
    },
    Ordered {
        feature: usize,
        threshold: u32,
    },
    /// `Σ weights[i] · x[features[i]] <= threshold` → child 0 (text 000 §4.5).
    Oblique {
        features: &'t [u32],
        weights: &'t [f64],
        threshold: f64,
    },
}

/// Per-feature candidate scores recorded when a node was searched (see [`crate::scores`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeatureScore {
    /// The criterion's own figure (gain, gain ratio, or weighted child impurity).
    pub score: f64,
    /// ρ × impurity decrease: what the search maximises.
    pub gain: f64,
    /// Split information, with the missing share as its own outcome (C4.5).
    pub iv: f64,
    /// Best numeric midpoint, or ordered-category code; NaN otherwise.
    pub threshold: f64,
    /// Share of the node's weight with the feature known.
    pub rho: f64,
}

impl FeatureScore {
    pub const NONE: FeatureScore = FeatureScore {
        score: f64::NAN,
        gain: f64::NAN,
        iv: f64::NAN,
        threshold: f64::NAN,
        rho: f64::NAN,
    };
}

/// One surrogate split of a node (rpart): a test on another feature that mimics the node's
/// own test, used when a row misses the tested value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surrogate<'t> {
    pub feature: usize,
    /// `x <= threshold` for a numeric feature; NaN for a categorical one.
    pub threshold: f64,
    /// Share of the node's training weight with the tested value known that the surrogate
    /// sends where the node's test does (a row missing the surrogate's feature disagrees).
    pub agreement: f64,
    /// rpart's adjusted agreement: how much of the way from the majority child's share to
    /// all the surrogate goes, (agreement − m) / (1 − m); NaN where a model file predates it.
    pub adjusted: f64,
    /// The child of each outcome: `[x <= t, x > t]` for a numeric feature, one entry per
    /// category for a categorical one; `u32::MAX` where the surrogate gives no direction (a
    /// category absent from the node's rows).
    pub children: &'t [u32],
}

/// Surrogate splits side by side: `feature[i]`, `threshold[i]`, `agreement[i]`,
/// `adjusted[i]` and the child map `children[map[i]..]` (2 entries, or one per category)
/// describe surrogate `i`. The
/// tree's view covers one node's range; the builder's, the splits it is about to store.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SurrogateSet<'t> {
    pub feature: &'t [u32],
    pub threshold: &'t [f64],
    pub agreement: &'t [f64],
    pub adjusted: &'t [f64],
    pub map: &'t [u32],
    pub children: &'t [u32],
}

impl<'t> SurrogateSet<'t> {
    pub fn len(&self) -> usize {
        self.feature.len()
    }

    /// Surrogate `i`, its child map `width` entries long (2, or the feature's categories).
    pub fn get(&self, i: usize, kinds: &[FeatureKind]) -> Option<Surrogate<'t>> {
        let feature = *self.feature.get(i)? as usize;
        let width = match kinds.get(feature)? {
            FeatureKind::Numeric => 2,
            FeatureKind::Categorical { n_categories, .. } => *n_categories as usize,
        };
        let start = *self.map.get(i)? as usize;
        Some(Surrogate {
            feature,
            threshold: *self.threshold.get(i)?,
            agreement: *self.agreement.get(i)?,
            adjusted: self.adjusted.get(i).copied().unwrap_or(f64::NAN),
            children: self.children.get(start..start.checked_add(width)?)?,
        })
    }
}

/// What training left in a node: how much of it reached the node, its impurity and its
/// prediction. Read from a tree with [`super::Tree::summary`] and written, whole, with
/// [`super::Writer::set_summary`], so a copy of a node cannot leave a figure behind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Summary<'t> {
    /// Training weight that reached the node, fractional fragments included.
    pub weight: f64,
    /// Training rows that reached the node, each counted by how much of a row it is.
    pub n_rows: f64,
    /// Training rows of positive weight that reached the node, each counted once
    /// ([`super::Tree::n_samples`]).
    pub n_samples: u64,
    pub impurity: f64,
    /// Class weights, or the mean of each output ([`super::Tree::value`]).
    pub value: &'t [f64],
    /// The node's class of each output (0 for a real-valued one).
    pub labels: &'t [u32],
}
