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
//! scikit-learn counts it constant, unless missing rows are placed: then it splits the known
//! rows from the missing ones. C4.5's numeric gain correction does not apply: no threshold
//! was chosen among others.

use super::absolute::Ranks;
use super::categorical::{canonical, sides_of, Categories};
use super::*;
use crate::draws::{coin, uniform_threshold, Stream};

impl Searcher<'_, '_> {
    /// The random test of `feature` at the node, drawn from `rng`; `None` if the feature is
    /// constant there or the test breaks a size rule or the feature's monotonic constraint.
    /// `total` holds the statistics of all the node's rows; `ranks` its ranked targets under
    /// absolute error, whose test is then scored from the sides' medians.
    pub(super) fn random_test<V: Values + ?Sized>(
        &self,
        feature: usize,
        node: &NodeRows,
        (node_weight, total): (f64, &[f64]),
        ranks: Option<&Ranks>,
        values: &V,
        rng: &mut Stream,
    ) -> Option<Candidate> {
        let at = (node_weight, total, ranks);
        let candidate = match self.data.columns().get(feature)? {
            Column::Sparse(col) => self.random_numeric(feature, node, at, |r| col.value(r), rng)?,
            Column::Numeric(_) => match values.numeric_column(feature) {
                Some(column) => {
                    with_numbers!(column, |v| self.random_numeric(
                        feature,
                        node,
                        at,
                        |r| v.at(r),
                        rng
                    )?)
                }
                None => {
                    let x = |r: usize| values.number(feature, r);
                    self.random_numeric(feature, node, at, x, rng)?
                }
            },
            Column::Categorical(col) => {
                let codes: Vec<Option<u32>> = node
                    .rows
                    .iter()
                    .map(|&r| values.code(feature, r as usize))
                    .collect();
                let cats =
                    self.per_category(codes.iter().copied(), col.n_categories as usize, node);
                match (self.categorical_split, col.ordered) {
                    (CategoricalSplit::Multiway, _) => {
                        return self.multiway(feature, &cats, node_weight)
                    }
                    (CategoricalSplit::Binary, true) => {
                        let (c, side) = self.random_ordered(&cats, rng)?;
                        let rule = SplitRule::Ordered {
                            threshold: c as u32,
                        };
                        match ranks {
                            Some(ranks) => {
                                let left = |i: usize| {
                                    codes.get(i).copied().flatten().map(|k| k as usize <= c)
                                };
                                self.absolute_drawn(
                                    feature,
                                    rule,
                                    node,
                                    left,
                                    side,
                                    (node_weight, ranks),
                                )?
                            }
                            None => self.two_way_candidate(
                                feature,
                                rule,
                                |k| k <= c,
                                &cats,
                                node_weight,
                                side,
                            )?,
                        }
                    }
                    (CategoricalSplit::Binary, false) => {
                        let (sides, side) = self.random_subset(&cats, rng)?;
                        match ranks {
                            Some(ranks) => {
                                let (sides, side) = canonical(sides, side);
                                let left = |i: usize| {
                                    let code = codes.get(i).copied().flatten()?;
                                    Some(sides.get(code as usize) == Some(&Side::Left))
                                };
                                let rule = SplitRule::Subset {
                                    sides: sides.clone(),
                                };
                                self.absolute_drawn(
                                    feature,
                                    rule,
                                    node,
                                    left,
                                    side,
                                    (node_weight, ranks),
                                )?
                            }
                            None => {
                                self.subset_candidate(feature, sides, side, &cats, node_weight)?
                            }
                        }
                    }
                }
            }
        };
        // Absolute error's drawn tests checked their medians already.
        match candidate.children.as_slice() {
            [left, right]
                if ranks.is_some() || self.monotone(self.constraint(feature), left, right) =>
            {
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

    /// `value(row)` reads the feature (NaN = missing).
    fn random_numeric(
        &self,
        feature: usize,
        node: &NodeRows,
        (node_weight, total, ranks): (f64, &[f64], Option<&Ranks>),
        value: impl Fn(usize) -> f64,
        rng: &mut Stream,
    ) -> Option<Candidate> {
        // The feature's values gathered once, so the partition reads them in order.
        let mut xs: Vec<f64> = self.vec(node.len())?;
        let (mut lo, mut hi, mut n_missing) = (f64::INFINITY, f64::NEG_INFINITY, 0);
        for &r in &node.rows {
            let x = value(r as usize);
            // Plain comparisons (x is not NaN there): no NaN fix-ups on the carried minimum.
            if x.is_nan() {
                n_missing += 1;
            } else {
                lo = if x < lo { x } else { lo };
                hi = if x > hi { x } else { hi };
            }
            xs.push(x);
        }
        let (threshold, side) = if lo < hi {
            (
                uniform_threshold(rng, lo, hi),
                self.random_side(n_missing, rng),
            )
        } else if lo == hi && self.places_missing() && n_missing > 0 {
            // One known value, and missing rows the search places: their only partition,
            // known values left and missing right (scikit-learn draws the side and, when it
            // draws left, finds no split).
            (lo, Some(1))
        } else {
            return None; // no known value, or all equal with nothing to set apart
        };
        let rule = SplitRule::Numeric { threshold };
        if let Some(ranks) = ranks {
            let left = |i: usize| xs.get(i).filter(|x| !x.is_nan()).map(|&x| x <= threshold);
            return self.absolute_drawn(feature, rule, node, left, side, (node_weight, ranks));
        }
        // The side with fewer rows is summed, the other is the rest (as scikit-learn's
        // criterion updates from the nearer end): half the reads of the targets, which the
        // rows reach out of order.
        let n_left = xs.iter().filter(|&&x| x <= threshold).count();
        let n_known = xs.len() - n_missing;
        let small = usize::from(n_left > n_known - n_left);
        let mut summed = self.zero_stats();
        let mut missing = self.zero_stats();
        for ((r, w), &x) in node.iter().zip(&xs) {
            if x.is_nan() {
                self.accumulate(&mut missing, r, w);
            } else if usize::from(x > threshold) == small {
                self.accumulate(&mut summed, r, w);
            }
        }
        let rest: Vec<f64> = total
            .iter()
            .zip(&missing)
            .zip(&summed)
            .map(|((t, m), s)| t - m - s)
            .collect();
        let (mut children, mut counts) = if small == 0 {
            ([summed, rest], [n_left, n_known - n_left])
        } else {
            ([rest, summed], [n_left, n_known - n_left])
        };
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
            impurities: None,
        };
        self.finish(feature, rule, &scored, &part, node_weight, rows)
    }

    /// An ordinal test `code <= c` drawn over the present codes' range (floored to a code:
    /// lo <= c < hi), and the side of the missing rows.
    fn random_ordered(
        &self,
        cats: &Categories,
        rng: &mut Stream,
    ) -> Option<(usize, Option<usize>)> {
        let present = cats.present();
        let (&lo, &hi) = (present.first()?, present.last()?);
        if hi <= lo {
            return None;
        }
        let c = uniform_threshold(rng, lo as f64, hi as f64).floor() as usize;
        Some((c, self.random_side(cats.n_missing, rng)))
    }

    /// A uniformly random non-trivial subset of the present categories sent left, and the
    /// side of the missing rows.
    fn random_subset(
        &self,
        cats: &Categories,
        rng: &mut Stream,
    ) -> Option<(Vec<Side>, Option<usize>)> {
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
        // One coin per present category, read at their positions: the default is never read.
        let sides = sides_of(cats.len(), &present, |i| {
            left.get(i).copied().unwrap_or(false)
        });
        Some((sides, self.random_side(cats.n_missing, rng)))
    }
}
