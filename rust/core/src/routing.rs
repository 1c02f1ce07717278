//! Where a row goes at a node: the node's test, then its missing-value rule (surrogates, a
//! missing child, C4.5's fractions, or staying in the node). One routing for growth,
//! prediction, pruning and the exports' checks, next to the tree it reads; the values it reads
//! come through [`Values`], the data's own columns or what a strategy fills in.

use crate::data::{Column, Numbers};
use crate::tree::{NodeId, NodeKind, Side, SurrogateSet, Tree, NONE};

/// Reads feature values for routing and search: the data's own columns, or the values the
/// class-majority strategy fills in at fit (`split::placement::Filled`).
pub(crate) trait Values {
    /// Feature `f` of `row` as a number; NaN when missing or not numeric.
    fn number(&self, f: usize, row: usize) -> f64;
    /// Feature `f` of `row` as a category code; `None` when missing, unseen at fit, or not
    /// categorical.
    fn code(&self, f: usize, row: usize) -> Option<u32>;
    /// Feature `f`'s values as stored, when they are read as they are (no fills): a scan then
    /// indexes them directly instead of looking the column up per row.
    fn numeric_column(&self, _f: usize) -> Option<Numbers<'_>> {
        None
    }
}

impl Values for [Column<'_>] {
    #[inline]
    fn number(&self, f: usize, row: usize) -> f64 {
        match self.get(f) {
            Some(Column::Numeric(v)) => v.get(row).unwrap_or(f64::NAN), // missing past the end
            Some(Column::Sparse(c)) => c.value(row),
            _ => f64::NAN,
        }
    }

    #[inline]
    fn code(&self, f: usize, row: usize) -> Option<u32> {
        match self.get(f)? {
            Column::Categorical(c) => c.code(row),
            Column::Numeric(_) | Column::Sparse(_) => None,
        }
    }

    fn numeric_column(&self, f: usize) -> Option<Numbers<'_>> {
        match self.get(f)? {
            Column::Numeric(v) => Some(*v),
            Column::Categorical(_) | Column::Sparse(_) => None,
        }
    }
}

/// Which child a row goes to, or `None` when its value is missing (or the category unseen);
/// see [`send`] for what happens then.
#[inline]
pub(crate) fn route<V: Values + ?Sized>(
    kind: &NodeKind<'_>,
    values: &V,
    row: usize,
) -> Option<usize> {
    match *kind {
        NodeKind::Leaf => None,
        NodeKind::Numeric { feature, threshold } => {
            let x = values.number(feature, row);
            if x.is_nan() {
                None
            } else {
                Some(usize::from(x > threshold))
            }
        }
        NodeKind::Multiway { feature } => values.code(feature, row).map(|c| c as usize),
        NodeKind::Ordered { feature, threshold } => values
            .code(feature, row)
            .map(|c| usize::from(c > threshold)),
        NodeKind::Oblique {
            features,
            weights,
            threshold,
        } => linear_value(values, features, weights, row).map(|z| usize::from(z > threshold)),
        NodeKind::Subset { feature, sides } => {
            match sides.get(values.code(feature, row)? as usize)? {
                Side::Left => Some(0),
                Side::Right => Some(1),
                Side::Unseen => None,
            }
        }
    }
}

/// How a node routes a row whose tested value is missing: its surrogate splits, then its
/// missing child; with neither, the row follows every child with the fractions r̃_v (C4.5).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MissingRule<'t> {
    /// Index of the child among the node's children.
    pub child: Option<usize>,
    pub surrogates: SurrogateSet<'t>,
}

impl MissingRule<'_> {
    /// The child of a row missing the tested value: the first surrogate whose feature the
    /// row has and which gives a direction, else the missing child; `None`: every child.
    #[inline]
    pub(crate) fn route<V: Values + ?Sized>(&self, values: &V, row: usize) -> Option<usize> {
        let s = &self.surrogates;
        for (i, (&f, &t)) in s.feature.iter().zip(s.threshold).enumerate() {
            let f = f as usize;
            let outcome = if t.is_nan() {
                values.code(f, row).map(|c| c as usize)
            } else {
                let x = values.number(f, row);
                (!x.is_nan()).then(|| usize::from(x > t))
            };
            let child = outcome.and_then(|o| {
                let start = *s.map.get(i)? as usize;
                s.children.get(start.checked_add(o)?).copied()
            });
            if let Some(c) = child.filter(|&c| c != NONE) {
                return Some(c as usize);
            }
        }
        self.child
    }
}

/// The one routing rule of prediction, growth and pruning: the child a row takes at a node
/// (its test, else the node's missing-value rule, looked up only then), or `None` when it
/// follows every child with the fractions r̃_v.
#[inline]
pub(crate) fn send<'t, V: Values + ?Sized>(
    kind: &NodeKind<'_>,
    rule: impl FnOnce() -> MissingRule<'t>,
    values: &V,
    row: usize,
) -> Option<usize> {
    route(kind, values, row).or_else(|| rule().route(values, row))
}

/// Σ weights[i] · x[features[i]] of a row, or `None` if any term's value is missing. Search
/// and prediction both evaluate a linear test here, so they agree to the last bit.
#[inline]
pub(crate) fn linear_value<V: Values + ?Sized>(
    values: &V,
    features: &[u32],
    weights: &[f64],
    row: usize,
) -> Option<f64> {
    let mut z = 0.0;
    for (&f, &w) in features.iter().zip(weights) {
        let x = values.number(f as usize, row);
        if x.is_nan() {
            return None;
        }
        z += w * x;
    }
    Some(z)
}

impl Tree {
    /// The missing-value routing of a node: its surrogates and its missing child (index
    /// among its children).
    pub(crate) fn missing_rule(&self, node: NodeId) -> MissingRule<'_> {
        MissingRule {
            child: self.missing_child_index(node),
            surrogates: self.surrogate_set(node),
        }
    }
}
