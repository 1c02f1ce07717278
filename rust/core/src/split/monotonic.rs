//! Monotonic constraints, as scikit-learn defines them (`monotonic_cst`; `_splitter.pyx`,
//! `_criterion.pyx` `check_monotonicity` / `middle_value` / `clip_node_value`, `_tree.pyx`).
//!
//! Each node carries bounds on its value (regression: the mean; classification: the first
//! class's probability). A split on a constrained feature is a candidate only if both
//! children's values lie within the node's bounds and are ordered as the constraint says;
//! the children then inherit the bounds cut at the midpoint of their two values (the left
//! child below it for an increasing constraint), and every node's value is clipped to its
//! bounds. Two rows that differ only in a constrained feature part at a split on it, where
//! every leaf of one side is bounded by the midpoint the other side's leaves are bounded
//! from, so predictions are monotonic in that feature.
//!
//! Classification, like scikit-learn, constrains the probability of the first class with
//! the constraint's sign flipped, which is the constraint on the second (positive) class's
//! probability; the second class's probability is then one minus the first's.

use super::Searcher;
use crate::data::Target;

/// The range a node's value must stay in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bounds {
    pub lower: f64,
    pub upper: f64,
}

impl Bounds {
    /// No constraint.
    pub(crate) const NONE: Bounds = Bounds {
        lower: f64::NEG_INFINITY,
        upper: f64::INFINITY,
    };

    /// The bounds of a split's two children: the node's own, or, on a feature constrained
    /// with `sign` (as [`Searcher::constraint`] gives it), cut at `middle`.
    pub(crate) fn children(self, sign: i8, middle: f64) -> [Bounds; 2] {
        let below = Bounds {
            lower: self.lower,
            upper: middle,
        };
        let above = Bounds {
            lower: middle,
            upper: self.upper,
        };
        match sign {
            1 => [below, above],
            -1 => [above, below],
            _ => [self, self],
        }
    }

    /// `value` clipped to the bounds (`lower` first, as scikit-learn's `clip_node_value`).
    pub(crate) fn clip(self, value: f64) -> f64 {
        if value < self.lower {
            self.lower
        } else if value > self.upper {
            self.upper
        } else {
            value
        }
    }
}

/// The value a constraint applies to, from a node's (uncentred) statistics: the mean of y, or
/// the first class's share.
pub(crate) fn value_of(stats: &[f64], target: &Target<'_>) -> f64 {
    match (target, stats) {
        (Target::Values(_), [w, sum, ..]) => sum / w,
        (_, [first, ..]) => first / stats.iter().sum::<f64>(),
        _ => f64::NAN,
    }
}

impl Searcher<'_, '_> {
    /// The constraint on feature `f` in the terms the value is kept in: its given sign for
    /// regression, the opposite for classification (the value is the first class's
    /// probability); 0 for a free feature, an oblique projection or no constraints at all.
    pub(crate) fn constraint(&self, f: usize) -> i8 {
        let given = self.monotonic.and_then(|c| c.get(f)).copied().unwrap_or(0); // free: 0
        if self.regression() {
            given
        } else {
            -given
        }
    }

    /// The value a constraint applies to, from a side's statistics: the first class's share
    /// (classification) or the mean of y (regression, its centring undone).
    pub(crate) fn monotone_value(&self, stats: &[f64]) -> f64 {
        // Statistics of a target's width (w, Σwy, … or a class's weight first): the 0.0s are
        // never read. (Matched on their shape instead, this, inlined through `monotone` into
        // the scan's per-cut loop, cost the exact fit 2 % more instructions, unconstrained.)
        let w = self.weight_of(stats);
        let first = stats.first().copied().unwrap_or(0.0);
        if self.regression() {
            stats.get(1).copied().unwrap_or(0.0) / first + self.shift
        } else {
            first / w
        }
    }

    /// scikit-learn's `check_monotonicity`: both children within the node's bounds, and
    /// ordered as `sign` says (left ≤ right for 1, ≥ for -1). Always true for `sign` 0.
    #[inline]
    pub(crate) fn monotone(&self, sign: i8, left: &[f64], right: &[f64]) -> bool {
        sign == 0
            || self.monotone_values(sign, self.monotone_value(left), self.monotone_value(right))
    }

    /// [`Self::monotone`] of the two children's values themselves (absolute error's medians,
    /// which no statistics give), for a constrained feature (`sign` ±1).
    #[inline]
    pub(crate) fn monotone_values(&self, sign: i8, l: f64, r: f64) -> bool {
        let Bounds { lower, upper } = self.bounds;
        l >= lower && r >= lower && l <= upper && r <= upper && (l - r) * f64::from(sign) <= 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_share_the_midpoint() {
        let b = Bounds {
            lower: 0.1,
            upper: 0.9,
        };
        let [l, r] = b.children(1, 0.4);
        assert_eq!((l.lower, l.upper, r.lower, r.upper), (0.1, 0.4, 0.4, 0.9));
        let [l, r] = b.children(-1, 0.4);
        assert_eq!((l.lower, l.upper, r.lower, r.upper), (0.4, 0.9, 0.1, 0.4));
        assert_eq!(b.children(0, 0.4), [b, b]);
        assert_eq!(b.clip(0.0), 0.1);
        assert_eq!(b.clip(1.0), 0.9);
        assert_eq!(b.clip(0.5), 0.5);
        assert_eq!(Bounds::NONE.clip(-1e300), -1e300);
    }
}
