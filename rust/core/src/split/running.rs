//! Running figures of a class scan's two sides, so that a cut costs the row moved, not the
//! classes (quercus issue 38).
//!
//! A threshold scan over C classes read both sides' C class weights at every cut (their
//! totals, the Gini bound's sums of squares, the entropies): O(C) a cut, cubic in C for a
//! chain of end cuts (two rows per class, sorted). Each side's weight `w` and one figure `f`
//! (Σc² for Gini, Σc·log2 c for entropy) change in O(1) when a row moves, and give the
//! side's weighted impurity: w·Gini = w − Σc²/w, w·Ent = w·log2 w − Σc·log2 c.
//!
//! The running sums round differently from the scan's own arithmetic (which sums the class
//! weights afresh), so they only ever *skip* a cut, and only where a bound on every rounding
//! involved, theirs and the exact score's, proves the exact score could not have replaced
//! the best ([`crate::criterion::least_better`]) or that a side is too small as the exact
//! sum would tell. Every other cut is scored exactly as before: the trees are the same bits.
//! The bounds are the textbook ones (Higham 2002, ch. 3-4): a sum of n terms is within
//! (n − 1)u·Σ|terms| of the true sum, each running update within u of its result, and a
//! libm log2 within a few ulps (counted generously).

use super::kernel::{Figure, Kernel};
use super::sweep::Sweep;
use crate::class_sums::each_class_weight;

/// The unit roundoff of f64.
const U: f64 = f64::EPSILON / 2.0;

impl Figure {
    /// A class weight's term of the figure and a bound on its rounding error.
    #[inline(always)]
    fn term(self, c: f64) -> (f64, f64) {
        match self {
            Figure::Squares => {
                let t = c * c;
                (t, U * t)
            }
            // The entropy skips weights that are not positive (rounding residues of a side
            // that lost its class): so does the figure.
            Figure::CLogC if c > 0.0 => {
                let t = c * c.log2();
                (t, 8.0 * U * (t.abs() + c))
            }
            Figure::CLogC => (0.0, 0.0),
        }
    }

    /// A side's weighted impurity `w·I` from its weight and figure, and a bound on how far
    /// it moves when `w` is off by up to `w_err` and the figure by up to `f_err` (its
    /// derivatives' largest values over that box), plus its own rounding; `None` when the
    /// side may weigh nothing.
    #[inline(always)]
    fn weighted(self, side: &Side) -> Option<(f64, f64)> {
        let Side { w, w_err, f, f_err } = *side;
        let low = w - w_err;
        if low.is_nan() || low <= 0.0 {
            return None;
        }
        Some(match self {
            // ∂/∂w = 1 + Σc²/w², ∂/∂Σc² = −1/w.
            Figure::Squares => {
                let v = w - f / w;
                let moved = w_err * (1.0 + (f + f_err) / (low * low)) + f_err / low;
                (v, moved + 2.0 * U * (w + f / w))
            }
            // ∂/∂w = log2 w + 1/ln 2, ∂/∂Σc·log2 c = −1.
            Figure::CLogC => {
                let wlw = w * w.log2();
                let slope = low.log2().abs().max((w + w_err).log2().abs()) + 1.5;
                (
                    wlw - f,
                    w_err * slope + f_err + 8.0 * U * (wlw.abs() + f.abs() + w),
                )
            }
        })
    }

    /// A bound on how far the scan's exact decrease (each side's impurity from its `width`
    /// class weights, summed afresh) is from the decrease of the same weights in exact
    /// arithmetic, when the sides weigh `share` times the node's known weight and the node's
    /// impurity is `base`: the relative error of a side's total and of its shares is below
    /// width·u, that of a sum of its terms too, and an impurity is at most 1 (Gini) or
    /// log2(width) (entropy).
    fn exact_error(self, width: usize, share: f64, base: f64) -> f64 {
        let n = width as f64;
        let largest = match self {
            Figure::Squares => 1.0,
            Figure::CLogC => n.log2().max(0.0) + 1.5,
        };
        (8.0 * n + 16.0) * U * (largest + base.abs()) * share.max(1.0)
    }
}

/// One side's running weight and figure, each with a bound on its distance from the same
/// sum of the side's class weights (as they stand, rounded) in exact arithmetic.
#[derive(Debug, Clone, Copy, Default)]
struct Side {
    w: f64,
    w_err: f64,
    f: f64,
    f_err: f64,
}

impl Side {
    /// The side summed afresh from its class weights.
    fn of(figure: Figure, stats: &[f64]) -> Side {
        let (mut w, mut w_abs, mut f, mut f_terms, mut f_abs) = (0.0, 0.0, 0.0, 0.0, 0.0);
        // A class of weight 0 adds nothing to any of the sums.
        each_class_weight(stats, |c| {
            let (t, e) = figure.term(c);
            w += c;
            w_abs += c.abs();
            f += t;
            f_terms += e;
            f_abs += t.abs();
        });
        let n = stats.len() as f64;
        Side {
            w,
            w_err: n * U * w_abs,
            f,
            f_err: f_terms + n * U * f_abs,
        }
    }

    /// A row of weight `w` moved in (`w` > 0) or out (`w` < 0), its class's weight going
    /// from `old` to `new` (rounded: the bound takes the rounding in).
    #[inline(always)]
    fn moved(&mut self, figure: Figure, old: f64, new: f64, w: f64) {
        self.w += w;
        self.w_err += U * (self.w.abs() + new.abs());
        let ((tn, en), (to, eo)) = (figure.term(new), figure.term(old));
        let d = tn - to;
        self.f += d;
        self.f_err += en + eo + U * (d.abs() + self.f.abs());
    }

    fn error(&self) -> f64 {
        self.w_err + self.f_err
    }
}

/// What the running figures prove of a cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// A side holds less than the least a side must (the exact sums would say so too).
    TooSmall,
    /// Both sides hold enough, and the exact decrease cannot replace the best.
    Beaten,
}

/// A scan's running figures (see the module's documentation).
#[derive(Debug, Clone)]
pub(super) struct Running {
    figure: Figure,
    width: usize,
    left: Side,
    right: Side,
    /// The sides' errors when last summed afresh: past twice that, they are summed again
    /// before a cut is left to the exact arithmetic for their sake alone.
    fresh: f64,
}

impl Running {
    /// The figures of sides `left` and `right`.
    pub(super) fn new(figure: Figure, left: &[f64], right: &[f64]) -> Running {
        let mut running = Running {
            figure,
            width: left.len(),
            left: Side::default(),
            right: Side::default(),
            fresh: 0.0,
        };
        running.anchor(left, right);
        running
    }

    /// Sums both sides afresh.
    fn anchor(&mut self, left: &[f64], right: &[f64]) {
        self.left = Side::of(self.figure, left);
        self.right = Side::of(self.figure, right);
        self.fresh = self.left.error() + self.right.error();
    }

    /// Moves item `i` of `items` from `right` to `left` as the scan does (with `kernel`),
    /// the figures following: in O(1) for a row, afresh for a block of rows.
    #[inline(always)]
    pub(super) fn shift<S: Sweep + ?Sized, K: Kernel>(
        &mut self,
        kernel: K,
        items: &S,
        i: usize,
        left: &mut [f64],
        right: &mut [f64],
    ) {
        let row = items.row(i).and_then(|(label, w)| {
            let c = usize::try_from(label).ok()?;
            Some((c, w, *left.get(c)?, *right.get(c)?))
        });
        items.add(kernel, i, left, 1.0);
        items.add(kernel, i, right, -1.0);
        match row {
            Some((c, w, l_old, r_old)) => {
                // `c` was found in both above: the old values are never read.
                let (l_new, r_new) = (
                    left.get(c).copied().unwrap_or(l_old),
                    right.get(c).copied().unwrap_or(r_old),
                );
                self.left.moved(self.figure, l_old, l_new, w);
                self.right.moved(self.figure, r_old, r_new, -w);
            }
            None => self.anchor(left, right),
        }
    }

    /// What the figures prove of the cut between `left` and `right`, the node's known rows
    /// weighing `kw` with impurity `base`: whether a side holds less than `least` (the
    /// exact test `w >= least`), else whether the exact decrease is at most `limit` (when
    /// there is a best to beat, [`crate::criterion::least_better`] of it); `None` when the
    /// exact arithmetic must tell. Sums both sides afresh once when only their accumulated
    /// rounding stood in the way.
    pub(super) fn verdict(
        &mut self,
        left: &[f64],
        right: &[f64],
        least: f64,
        (kw, base): (f64, f64),
        limit: Option<f64>,
    ) -> Option<Verdict> {
        match self.judge(least, (kw, base), limit) {
            Err(true) if self.left.error() + self.right.error() > 2.0 * self.fresh => {
                self.anchor(left, right);
                self.judge(least, (kw, base), limit).ok()
            }
            v => v.ok(),
        }
    }

    /// [`Self::verdict`] from the figures as they stand: `Err(blurred)` when it cannot tell,
    /// `blurred` if it could have without the rounding bounds.
    fn judge(
        &self,
        least: f64,
        (kw, base): (f64, f64),
        limit: Option<f64>,
    ) -> Result<Verdict, bool> {
        // The exact test sums a side's class weights afresh: within width·u of their true
        // sum, counting rounding residues below 0 at up to the node's weight.
        let n = self.width as f64 + 2.0;
        let sure = |s: &Side| {
            let err = s.w_err + n * U * (s.w.abs() + s.w_err + kw.abs());
            if s.w - err >= least {
                Some(true)
            } else if s.w + err < least {
                Some(false)
            } else {
                None
            }
        };
        match (sure(&self.left), sure(&self.right)) {
            (Some(false), _) | (_, Some(false)) => return Ok(Verdict::TooSmall),
            (Some(true), Some(true)) => {}
            _ => return Err(true),
        }
        let Some(limit) = limit else {
            return Err(false);
        };
        let (Some((l, l_err)), Some((r, r_err))) = (
            self.figure.weighted(&self.left),
            self.figure.weighted(&self.right),
        ) else {
            return Err(false);
        };
        if kw.is_nan() || kw <= 0.0 {
            return Err(false);
        }
        let decrease = base - (l + r) / kw;
        let share = (self.left.w + self.right.w) / kw;
        let rounding = 4.0 * U * (base.abs() + (l.abs() + r.abs()) / kw + limit.abs());
        let err = (l_err + r_err) / kw * (1.0 + 4.0 * U)
            + rounding
            + self.figure.exact_error(self.width, share, base);
        if decrease + err <= limit {
            Ok(Verdict::Beaten)
        } else {
            Err(decrease + rounding <= limit)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::criterion::gini;
    use crate::measures::entropy;

    fn weighted_exact(figure: Figure, stats: &[f64]) -> f64 {
        let w: f64 = stats.iter().sum();
        w * match figure {
            Figure::Squares => gini(stats),
            Figure::CLogC => entropy(stats),
        }
    }

    /// Rows moved one by one with fractional weights: each side's weighted impurity from the
    /// running figures stays within its bound of the impurity from the class weights.
    #[test]
    fn running_figures_stay_within_their_bounds() {
        let mut state = 11u64;
        let mut next = |n: u64| {
            state = crate::test_draws::step(state);
            (state >> 33) % n
        };
        for figure in [Figure::Squares, Figure::CLogC] {
            for width in [9, 40, 300] {
                let rows: Vec<(usize, f64)> = (0..2000)
                    .map(|_| (next(width as u64) as usize, (1 + next(1000)) as f64 / 37.0))
                    .collect();
                let mut total = vec![0.0; width];
                for &(c, w) in &rows {
                    total[c] += w;
                }
                let mut left = vec![0.0; width];
                let mut right = total.clone();
                let mut running = Running::new(figure, &left, &right);
                for &(c, w) in &rows[..rows.len() - 1] {
                    let (l_old, r_old) = (left[c], right[c]);
                    left[c] += w;
                    right[c] -= w;
                    running.left.moved(figure, l_old, left[c], w);
                    running.right.moved(figure, r_old, right[c], -w);
                    for (side, stats) in [(&running.left, &left), (&running.right, &right)] {
                        let (v, err) = figure.weighted(side).unwrap();
                        let exact = weighted_exact(figure, stats);
                        let slack = figure.exact_error(width, 1.0, 0.0) * total.iter().sum::<f64>();
                        assert!((v - exact).abs() <= err + slack, "{figure:?} {width}");
                    }
                }
            }
        }
    }

    /// The bound proves a cut beaten only below the limit, and leaves a cut near it to the
    /// exact arithmetic.
    #[test]
    fn verdicts_by_hand() {
        // Sides (3, 1) and (1, 3) of (4, 4): Gini decrease 0.5 − 0.375 = 0.125.
        let (left, right) = ([3.0, 1.0], [1.0, 3.0]);
        let mut running = Running::new(Figure::Squares, &left, &right);
        let node = (8.0, 0.5);
        let v = |r: &mut Running, least, limit| r.verdict(&left, &right, least, node, limit);
        assert_eq!(v(&mut running, 1.0, Some(0.2)), Some(Verdict::Beaten));
        assert_eq!(v(&mut running, 1.0, Some(0.125)), None);
        assert_eq!(v(&mut running, 1.0, Some(0.1)), None);
        assert_eq!(v(&mut running, 1.0, None), None);
        assert_eq!(v(&mut running, 5.0, Some(0.2)), Some(Verdict::TooSmall));
        assert_eq!(v(&mut running, 4.0, Some(0.2)), None);
        // Entropy: 1 − (0.8113 + 0.8113)/2 = 0.1887.
        let running = Running::new(Figure::CLogC, &left, &right);
        let node = (8.0, 1.0);
        let v = |limit| running.clone().verdict(&left, &right, 1.0, node, limit);
        assert_eq!(v(Some(0.19)), Some(Verdict::Beaten));
        assert_eq!(v(Some(0.1887)), None);
    }
}
