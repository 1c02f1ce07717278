//! What the optimal search minimises at a leaf, and how much one row can change it.
//!
//! A leaf's error is the weighted misclassification cost of predicting its best class (with a
//! cost matrix when given: the class of least expected cost) or its weighted squared error
//! around its mean. Every bound of the search rests on two facts about the optimum `OPT(S)` of
//! a row set over trees of a fixed shape: it never drops when rows are added (restrict the
//! better tree to the smaller set), and adding a row `r` raises it by at most
//! [`Loss::move_cost`] (put the row in the leaf it reaches). So moving the rows `M` between
//! the two sides of a split changes the split's optimum by at most Σ_{r∈M} move_cost(r)
//! (MurTree's similarity bound, ConTree's neighbourhood pruning).

use crate::error::{CoreError, Result};

/// A leaf's error and its statistics. `Copy`: a value is a few references and numbers.
pub(crate) trait Loss: Copy + Send + Sync {
    /// Numbers per statistics vector.
    fn width(&self) -> usize;
    /// Adds a row to `stats`.
    fn add(&self, stats: &mut [f64], row: u32);
    /// The error of a leaf holding `stats`.
    fn err(&self, stats: &[f64]) -> f64;
    /// The error of a leaf holding `total − part`.
    fn err_rest(&self, total: &[f64], part: &[f64]) -> f64;
    /// The most row `row` changes the optimum of a set of this node's rows it joins or leaves.
    fn move_cost(&self, row: u32) -> f64;
    /// Whether every row's move cost is 1 (unit weights, no costs): scans then count rows.
    fn unit_moves(&self) -> bool {
        false
    }
    /// Unit weights and no costs: each training row's class, all a row adds to its leaf's
    /// statistics (one to its class's count), so that scans can read it from a byte.
    fn counted_classes(&self) -> Option<&[u32]> {
        None
    }
    /// Whether a row's statistics are the same at every node, so that the counts of one
    /// node's rows can be updated into another's (regression centres them on the node's).
    fn shared_stats(&self) -> bool {
        true
    }
    /// This loss as the node holding `rows` measures it (regression centres and bounds its
    /// targets on the node's).
    fn at(&self, rows: &[u32]) -> Self;
    /// The squared error of a leaf holding `stats`: for classes the weighted Gini impurity
    /// W·(1 − Σ p²), the squared error of their one-hot codes; for regression the error
    /// itself. It only orders a node's columns (see [`super::depth1::squared_by_column`]),
    /// never bounds anything.
    fn squared(&self, stats: &[f64]) -> f64;
    /// A lower bound on the error of any tree of at most `leaves` leaves over a node with
    /// statistics `total`.
    fn floor(&self, total: &[f64], leaves: usize) -> f64;
    /// The best split of a nominal feature into two non-empty sets of slots, from each
    /// slot's statistics (`slots`, [`Self::width`] numbers per slot) and their `total`: its
    /// error and the mask of the slots sent left. `None` when fewer than two slots hold rows.
    fn best_subset(&self, slots: &[f64], total: &[f64]) -> Option<(f64, u64)>;
    /// Classification: the number of classes, each row's cost per predicted class given by
    /// [`Loss::cost_as`]. 0 for regression, whose error is not a sum of such costs.
    fn classes(&self) -> usize {
        0
    }
    /// What `row` costs predicted as `class`: its weight times the cost matrix's entry (1
    /// for a wrong class without one), so that a leaf's error is the least over classes of
    /// its rows' sum.
    fn cost_as(&self, _row: u32, _class: usize) -> f64 {
        0.0
    }
    /// Statistics of `rows`.
    fn stats(&self, rows: impl Iterator<Item = u32>) -> Vec<f64> {
        let mut s = vec![0.0; self.width()];
        rows.for_each(|r| self.add(&mut s, r));
        s
    }
}

/// Classification: weighted misclassification, or cost with a cost matrix. [`ClassLoss::new`]
/// checks that the tables fit the classes and each other, statistics are `n_classes` wide,
/// and the search adds only rows of the sample: so the reads below never take their
/// defaults (stated once, not checked per row).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClassLoss<'a> {
    labels: &'a [u32],
    weights: &'a [f64],
    n_classes: usize,
    /// Row-major `n_classes²`: row = true class, column = predicted.
    costs: Option<&'a [f64]>,
    /// Per class, the largest cost of predicting it wrongly (1 without costs).
    worst: &'a [f64],
    /// Every weight is 1: counts are added without reading the weights.
    unit: bool,
}

impl<'a> ClassLoss<'a> {
    /// `worst` must be [`ClassLoss::worst_costs`] of the same classes and costs. An error if
    /// the tables do not fit: a weight per label, every label a class, a cost matrix of
    /// `n_classes²` entries and a worst cost per class (the fit's validation makes them so).
    pub(crate) fn new(
        labels: &'a [u32],
        weights: &'a [f64],
        n_classes: usize,
        costs: Option<&'a [f64]>,
        worst: &'a [f64],
    ) -> Result<Self> {
        let fits = |what: &str, expected: usize, got: usize| {
            (expected == got)
                .then_some(())
                .ok_or(CoreError::ShapeMismatch {
                    what: what.into(),
                    expected,
                    got,
                })
        };
        fits("sample_weight", labels.len(), weights.len())?;
        fits("the worst costs", n_classes, worst.len())?;
        if let Some(c) = costs {
            fits("cost_matrix", n_classes.saturating_mul(n_classes), c.len())?;
        }
        if let Some((row, &code)) = labels
            .iter()
            .enumerate()
            .find(|(_, &c)| c as usize >= n_classes)
        {
            return Err(CoreError::ClassOutOfRange {
                row,
                code,
                n_classes,
            });
        }
        Ok(ClassLoss {
            labels,
            weights,
            n_classes,
            costs,
            worst,
            unit: weights.iter().all(|&w| w == 1.0),
        })
    }

    /// Per class, the largest cost of a wrong prediction.
    pub(crate) fn worst_costs(n_classes: usize, costs: Option<&[f64]>) -> Vec<f64> {
        match costs {
            Some(c) => c
                .chunks_exact(n_classes.max(1))
                .take(n_classes)
                .map(|row| row.iter().copied().fold(0.0, f64::max))
                .collect(),
            None => vec![1.0; n_classes],
        }
    }

    #[inline]
    fn weight(&self, row: u32) -> f64 {
        if self.unit {
            1.0
        } else {
            self.weights.get(row as usize).copied().unwrap_or(0.0)
        }
    }

    /// min over predicted classes j of Σ_y count(y) · cost(y, j), for the class counts
    /// `counts`.
    #[inline]
    fn least_cost(&self, costs: &[f64], counts: impl Iterator<Item = f64> + Clone) -> f64 {
        let k = self.n_classes;
        (0..k)
            .map(|j| {
                // Column j of the k × k matrix.
                counts
                    .clone()
                    .zip(costs.iter().skip(j).step_by(k))
                    .map(|(count, c)| count * c)
                    .sum::<f64>()
            })
            .fold(f64::INFINITY, f64::min)
    }
}

/// A leaf's misclassified weight from its class weights: their sum less the largest (at
/// least 0). Two classes get a fixed-size array, so the scans' many boundary scores run no
/// loop; the comparison is NaN-unaware, as weights are never NaN.
#[inline]
fn misclassified(counts: impl Iterator<Item = f64>) -> f64 {
    let (sum, max) = counts.fold((0.0, 0.0f64), |(s, m), c| {
        (s + c, if c > m { c } else { m })
    });
    sum - max
}

impl Loss for ClassLoss<'_> {
    #[inline]
    fn width(&self) -> usize {
        self.n_classes
    }

    #[inline]
    fn add(&self, stats: &mut [f64], row: u32) {
        let w = self.weight(row);
        if let Some(s) = self
            .labels
            .get(row as usize)
            .and_then(|&c| stats.get_mut(c as usize))
        {
            *s += w;
        }
    }

    #[inline]
    fn err(&self, stats: &[f64]) -> f64 {
        match self.costs {
            None => match *stats {
                [a, b] => misclassified([a, b].into_iter()),
                _ => misclassified(stats.iter().copied()),
            },
            Some(costs) => self.least_cost(costs, stats.iter().copied()),
        }
    }

    #[inline]
    fn err_rest(&self, total: &[f64], part: &[f64]) -> f64 {
        match self.costs {
            None => match (total, part) {
                (&[t0, t1], &[p0, p1]) => misclassified([t0 - p0, t1 - p1].into_iter()),
                _ => misclassified(total.iter().zip(part).map(|(&t, &p)| t - p)),
            },
            Some(costs) => self.least_cost(costs, total.iter().zip(part).map(|(t, p)| t - p)),
        }
    }

    #[inline]
    fn move_cost(&self, row: u32) -> f64 {
        let worst = self
            .labels
            .get(row as usize)
            .and_then(|&c| self.worst.get(c as usize))
            .copied()
            .unwrap_or(1.0);
        self.weight(row) * worst
    }

    fn squared(&self, stats: &[f64]) -> f64 {
        let w: f64 = stats.iter().sum();
        if w > 0.0 {
            w - stats.iter().map(|s| s * s).sum::<f64>() / w
        } else {
            0.0
        }
    }

    fn unit_moves(&self) -> bool {
        self.unit && self.costs.is_none()
    }

    fn counted_classes(&self) -> Option<&[u32]> {
        self.unit_moves().then_some(self.labels)
    }

    fn classes(&self) -> usize {
        self.n_classes
    }

    #[inline]
    fn cost_as(&self, row: u32, class: usize) -> f64 {
        let y = self.labels.get(row as usize).copied().unwrap_or(0) as usize;
        let cost = match self.costs {
            Some(c) => c.get(y * self.n_classes + class).copied().unwrap_or(0.0),
            None => f64::from(u8::from(y != class)),
        };
        self.weight(row) * cost
    }

    fn at(&self, _: &[u32]) -> Self {
        *self
    }

    /// For two predicted classes `a` ≠ `b`, each slot goes to the side whose class costs it
    /// less; the best pair gives the optimal partition (a partition predicting one class on
    /// both sides is no better than the leaf, which the search compares with anyway).
    /// Allocates nothing: counting calls it for every subset of a nominal root.
    fn best_subset(&self, slots: &[f64], _: &[f64]) -> Option<(f64, u64)> {
        let k = self.n_classes;
        let held = |s: &[f64]| s.iter().any(|&x| x > 0.0);
        if k < 2 || slots.chunks(k).filter(|s| held(s)).take(2).count() < 2 {
            return None;
        }
        // The error of a slot's rows `s` if predicted as class j.
        let cost = |s: &[f64], j: usize| match self.costs {
            None => s.iter().sum::<f64>() - s.get(j).copied().unwrap_or(0.0),
            Some(costs) => s
                .iter()
                .zip(costs.iter().skip(j).step_by(k))
                .map(|(x, c)| x * c)
                .sum(),
        };
        let mut best: Option<(f64, u64)> = None;
        for a in 0..k {
            for b in a + 1..k {
                let (mut err, mut mask, mut right) = (0.0, 0u64, false);
                for (slot, s) in slots.chunks(k).enumerate().filter(|(_, s)| held(s)) {
                    let (ca, cb) = (cost(s, a), cost(s, b));
                    if ca <= cb {
                        err += ca;
                        mask |= 1u64 << slot;
                    } else {
                        err += cb;
                        right = true;
                    }
                }
                if right && mask != 0 && best.is_none_or(|(e, _)| err < e) {
                    best = Some((err, mask));
                }
            }
        }
        best
    }

    /// Without costs, a tree of `leaves` leaves predicts at most that many classes: every row
    /// of the others is misclassified.
    fn floor(&self, total: &[f64], leaves: usize) -> f64 {
        if self.costs.is_some() || leaves >= total.len() {
            return 0.0;
        }
        let mut sorted = total.to_vec();
        sorted.sort_unstable_by(|a, b| b.total_cmp(a));
        sorted.iter().skip(leaves).sum()
    }
}

/// Regression: the weighted squared error Σ w (y − ȳ)² of a leaf. [`SquaredLoss::new`]
/// checks a weight per target, and the search adds only rows of the sample: so `yw` never
/// takes its defaults.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SquaredLoss<'a> {
    y: &'a [f64],
    weights: &'a [f64],
    /// Targets are summed as `y − shift` (the node's mean) so that Σwy² − (Σwy)²/Σw keeps its
    /// digits however far the mean is from zero.
    shift: f64,
    /// The node's least and greatest target: every leaf mean of its rows lies between.
    lo: f64,
    hi: f64,
}

impl<'a> SquaredLoss<'a> {
    /// An error unless there is a weight per target.
    pub(crate) fn new(y: &'a [f64], weights: &'a [f64]) -> Result<Self> {
        if y.len() != weights.len() {
            return Err(CoreError::ShapeMismatch {
                what: "sample_weight".into(),
                expected: y.len(),
                got: weights.len(),
            });
        }
        Ok(SquaredLoss {
            y,
            weights,
            shift: 0.0,
            lo: f64::NEG_INFINITY,
            hi: f64::INFINITY,
        })
    }

    #[inline]
    fn yw(&self, row: u32) -> (f64, f64) {
        let r = row as usize;
        (
            self.y.get(r).copied().unwrap_or(0.0),
            self.weights.get(r).copied().unwrap_or(0.0),
        )
    }
}

/// Σw(y−c)² − (Σw(y−c))²/Σw from `[Σw, Σw(y−c), Σw(y−c)²]`, clamped at 0 against rounding.
#[inline]
fn sse(w: f64, s: f64, ss: f64) -> f64 {
    if w > 0.0 {
        (ss - s * s / w).max(0.0)
    } else {
        0.0
    }
}

impl Loss for SquaredLoss<'_> {
    #[inline]
    fn width(&self) -> usize {
        3
    }

    #[inline]
    fn add(&self, stats: &mut [f64], row: u32) {
        let (y, w) = self.yw(row);
        if let [sw, s, ss] = stats {
            let d = y - self.shift;
            *sw += w;
            *s += w * d;
            *ss += w * d * d;
        }
    }

    #[inline]
    fn err(&self, stats: &[f64]) -> f64 {
        match stats {
            [w, s, ss] => sse(*w, *s, *ss),
            _ => 0.0,
        }
    }

    #[inline]
    fn err_rest(&self, total: &[f64], part: &[f64]) -> f64 {
        match (total, part) {
            ([w, s, ss], [pw, ps, pss]) => sse(w - pw, s - ps, ss - pss),
            _ => 0.0,
        }
    }

    /// A row joining a leaf of weight W and mean μ adds w·W/(W+w)·(y−μ)² ≤ w·(y−μ)², and μ
    /// lies within the node's targets.
    #[inline]
    fn move_cost(&self, row: u32) -> f64 {
        let (y, w) = self.yw(row);
        let d = (y - self.lo).max(self.hi - y);
        w * d * d
    }

    fn squared(&self, stats: &[f64]) -> f64 {
        self.err(stats)
    }

    fn shared_stats(&self) -> bool {
        false
    }

    fn at(&self, rows: &[u32]) -> Self {
        let (mut sw, mut swy) = (0.0, 0.0);
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &r in rows {
            let (y, w) = self.yw(r);
            sw += w;
            swy += w * y;
            lo = lo.min(y);
            hi = hi.max(y);
        }
        SquaredLoss {
            shift: if sw > 0.0 { swy / sw } else { 0.0 },
            lo,
            hi,
            ..*self
        }
    }

    fn floor(&self, _: &[f64], _: usize) -> f64 {
        0.0
    }

    /// Slots sorted by mean target: the best two-set partition is a prefix of that order
    /// (Fisher 1958; Breiman et al. 1984, §9.4).
    fn best_subset(&self, slots: &[f64], total: &[f64]) -> Option<(f64, u64)> {
        let mut present: Vec<(usize, [f64; 3])> = slots
            .chunks(3)
            .enumerate()
            .filter_map(|(i, s)| match s {
                [w, sy, ss] if *w > 0.0 => Some((i, [*w, *sy, *ss])),
                _ => None,
            })
            .collect();
        if present.len() < 2 {
            return None;
        }
        present.sort_by(|(i, a), (j, b)| (a[1] / a[0]).total_cmp(&(b[1] / b[0])).then(i.cmp(j)));
        let mut prefix = [0.0; 3];
        let mut mask = 0u64;
        let mut best: Option<(f64, u64)> = None;
        for (slot, s) in present.iter().take(present.len() - 1) {
            for (p, x) in prefix.iter_mut().zip(s) {
                *p += x;
            }
            mask |= 1u64 << slot;
            let err = self.err(&prefix) + self.err_rest(total, &prefix);
            if best.is_none_or(|(e, _)| err < e) {
                best = Some((err, mask));
            }
        }
        best
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn misclassification_and_costs() {
        let labels = [0, 1, 1, 2];
        let w = [1.0; 4];
        let worst = ClassLoss::worst_costs(3, None);
        let l = ClassLoss::new(&labels, &w, 3, None, &worst).unwrap();
        let s = l.stats([0u32, 1, 2, 3].into_iter());
        assert_eq!(s, vec![1.0, 2.0, 1.0]);
        assert_eq!(l.err(&s), 2.0);
        assert_eq!(l.err_rest(&s, &[1.0, 0.0, 0.0]), 1.0);
        assert_eq!(l.floor(&s, 1), 2.0);
        assert_eq!(l.floor(&s, 2), 1.0);
        let costs = [0.0, 5.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0];
        let worst = ClassLoss::worst_costs(3, Some(&costs));
        assert_eq!(worst, vec![5.0, 1.0, 1.0]);
        let l = ClassLoss::new(&labels, &w, 3, Some(&costs), &worst).unwrap();
        // Predicting 0 costs 2 · 1 + 1 · 1, predicting 2 costs 1 + 2 · 1, predicting 1 costs 6.
        assert_eq!(l.err(&s), 3.0);
        assert_eq!(l.move_cost(0), 5.0);
    }

    #[test]
    fn squared_error_is_centred() {
        let y = [1e9 + 1.0, 1e9 + 3.0, 1e9 + 5.0];
        let w = [1.0, 1.0, 2.0];
        let l = SquaredLoss::new(&y, &w).unwrap().at(&[0, 1, 2]);
        let s = l.stats(0..3u32);
        // mean 1e9 + 3.5: 6.25 + 0.25 + 2 · 2.25
        assert!((l.err(&s) - 11.0).abs() < 1e-9);
        let part = l.stats([0u32].into_iter());
        assert!((l.err_rest(&s, &part) - 8.0 / 3.0).abs() < 1e-9);
        assert_eq!(l.move_cost(0), 16.0);
    }

    /// Tables that do not fit are refused where the loss is made, rather than read later as
    /// a class 0, a weight 0 or a cost 0.
    #[test]
    fn tables_that_do_not_fit_are_errors() {
        let worst = ClassLoss::worst_costs(2, None);
        assert_eq!(
            ClassLoss::new(&[0, 2, 1], &[1.0; 3], 2, None, &worst).err(),
            Some(CoreError::ClassOutOfRange {
                row: 1,
                code: 2,
                n_classes: 2
            })
        );
        let short = ClassLoss::new(&[0, 1, 1], &[1.0; 2], 2, None, &worst).err();
        assert!(matches!(
            short,
            Some(CoreError::ShapeMismatch {
                expected: 3,
                got: 2,
                ..
            })
        ));
        let costs = [0.0, 1.0, 1.0];
        let cut = ClassLoss::new(&[0, 1], &[1.0; 2], 2, Some(&costs), &worst).err();
        assert!(matches!(
            cut,
            Some(CoreError::ShapeMismatch {
                expected: 4,
                got: 3,
                ..
            })
        ));
        let cut = ClassLoss::new(&[0, 1], &[1.0; 2], 2, None, &worst[..1]).err();
        assert!(matches!(
            cut,
            Some(CoreError::ShapeMismatch {
                expected: 2,
                got: 1,
                ..
            })
        ));
        let short = SquaredLoss::new(&[1.0, 2.0], &[1.0]).err();
        assert!(matches!(
            short,
            Some(CoreError::ShapeMismatch {
                expected: 2,
                got: 1,
                ..
            })
        ));
    }
}
