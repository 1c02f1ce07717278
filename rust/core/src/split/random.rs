//! Random tests (`splitter="random"`): extremely randomised trees (Geurts, Ernst & Wehenkel
//! 2006) as scikit-learn's `RandomSplitter` grows them (`_splitter.pyx`,
//! `node_split_random`). Each searched feature gets one test drawn at random, and the node
//! keeps the best of those by the criterion, so a test costs one pass over the node's rows
//! and nothing is sorted or binned.
//!
//! - Numeric: `x <= t` with `t` uniform between the node's least and greatest known value
//!   (the least when the draw rounds to the greatest, so the greatest goes right).
//! - Ordinal (binary splits): `code <= c` with `c` drawn the same way over the present codes.
//! - Nominal (binary splits): each present category sent left or right by a fair coin, drawn
//!   again until both sides have one: a uniformly random non-trivial subset.
//! - Multiway splits have nothing to draw: the feature splits by category as the best
//!   search would split it.
//! - Missing rows: strategies that place them (`learned`, `separate`) put them on a side drawn
//!   by a fair coin, as scikit-learn does; the others score the known rows as everywhere.
//!
//! A feature whose known values are all equal (or that has none) gives no test, as
//! scikit-learn counts it constant. C4.5's numeric gain correction does not apply: no
//! threshold was chosen among others.

use super::categorical::{sides_of, Categories};
use super::*;
use crate::sampling::{coin, uniform_threshold, Stream};

impl Searcher<'_, '_> {
    /// The random test of `feature` at the node, drawn from `rng`; `None` if the feature is
    /// constant there or the test breaks a size rule or the feature's monotonic constraint.
    pub(super) fn random_test<V: Values + ?Sized>(
        &self,
        feature: usize,
        node: &NodeRows,
        node_weight: f64,
        values: &V,
        rng: &mut Stream,
    ) -> Option<Candidate> {
        let candidate = match self.data.columns().get(feature)? {
            Column::Numeric(_) => self.random_numeric(feature, node, node_weight, values, rng)?,
            Column::Categorical(col) => {
                let codes: Vec<Option<u32>> = node
                    .rows
                    .iter()
                    .map(|&r| values.code(feature, r as usize))
                    .collect();
                let cats = self.per_category(&codes, col.n_categories as usize, node);
                match (self.categorical_split, col.ordered) {
                    (CategoricalSplit::Multiway, _) => {
                        return self.multiway(feature, &cats, node_weight)
                    }
                    (CategoricalSplit::Binary, true) => {
                        self.random_ordered(feature, &cats, node_weight, rng)?
                    }
                    (CategoricalSplit::Binary, false) => {
                        self.random_subset(feature, &cats, node_weight, rng)?
                    }
                }
            }
        };
        match candidate.children.as_slice() {
            [left, right] if self.monotone(self.constraint(feature), left, right) => {
                Some(candidate)
            }
            _ => None,
        }
    }

    /// The side the node's missing rows take: a coin for the strategies that place them,
    /// `None` (left out of the score) for the others or when there are none.
    fn random_side(&self, n_missing: usize, rng: &mut Stream) -> Option<usize> {
        (self.places_missing() && n_missing > 0).then(|| usize::from(!coin(rng)))
    }

    fn random_numeric<V: Values + ?Sized>(
        &self,
        feature: usize,
        node: &NodeRows,
        node_weight: f64,
        values: &V,
        rng: &mut Stream,
    ) -> Option<Candidate> {
        let (mut lo, mut hi, mut n_missing) = (f64::INFINITY, f64::NEG_INFINITY, 0);
        for &r in &node.rows {
            let x = values.number(feature, r as usize);
            if x.is_nan() {
                n_missing += 1;
            } else {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
        if hi <= lo {
            return None; // no known value, or all equal
        }
        let threshold = uniform_threshold(rng, lo, hi);
        let side = self.random_side(n_missing, rng);
        let mut children = [self.zero_stats(), self.zero_stats()];
        let mut counts = [0usize; 2];
        let mut missing = self.zero_stats();
        for (r, w) in node.iter() {
            let x = values.number(feature, r);
            let stats = if x.is_nan() {
                &mut missing
            } else {
                let c = usize::from(x > threshold);
                if let Some(n) = counts.get_mut(c) {
                    *n += 1;
                }
                match children.get_mut(c) {
                    Some(s) => s,
                    None => continue,
                }
            };
            self.accumulate(stats, r, w);
        }
        let [left, right] = &children;
        let known = sum(left, right);
        let (scored, rows) = match side {
            Some(s) => {
                if let (Some(c), Some(k)) = (children.get_mut(s), counts.get_mut(s)) {
                    add_into(c, &missing);
                    *k += n_missing;
                }
                let rows = MissingRows::Placed {
                    child: s,
                    known_weight: self.weight_of(&known),
                };
                (sum(&known, &missing), rows)
            }
            None => (known, MissingRows::Left),
        };
        let part = Partition {
            children: &children,
            counts: &counts,
        };
        let rule = SplitRule::Numeric { threshold };
        self.finish(feature, rule, &scored, &part, node_weight, rows)
    }

    fn random_ordered(
        &self,
        feature: usize,
        cats: &Categories,
        node_weight: f64,
        rng: &mut Stream,
    ) -> Option<Candidate> {
        let present = cats.present();
        let (&lo, &hi) = (present.first()?, present.last()?);
        if hi <= lo {
            return None;
        }
        // A threshold drawn over the codes' range, floored to a code: lo <= c < hi.
        let c = uniform_threshold(rng, lo as f64, hi as f64).floor() as usize;
        let side = self.random_side(cats.n_missing, rng);
        let rule = SplitRule::Ordered {
            threshold: c as u32,
        };
        self.two_way_candidate(feature, rule, |k| k <= c, cats, node_weight, side)
    }

    fn random_subset(
        &self,
        feature: usize,
        cats: &Categories,
        node_weight: f64,
        rng: &mut Stream,
    ) -> Option<Candidate> {
        let present = cats.present();
        if present.len() < 2 {
            return None;
        }
        let left = loop {
            let left: Vec<bool> = present.iter().map(|_| coin(rng)).collect();
            // At least one category on each side (probability >= 1/2 per draw).
            if left.contains(&true) && left.contains(&false) {
                break left;
            }
        };
        let sides = sides_of(cats.stats.len(), &present, |i| {
            left.get(i).copied().unwrap_or(false)
        });
        let side = self.random_side(cats.n_missing, rng);
        self.subset_candidate(feature, sides, side, cats, node_weight)
    }
}
