//! A threshold scan's per-cut arithmetic with the criterion and the target fixed once per
//! scan ([`Kernel`]). Asked of the searcher at every cut, each impurity, side weight and row
//! added went through a match on the criterion, the costs, the layout and the target: a third
//! of the exact search's instructions. Each kernel calls the very functions the searcher
//! would ([`gini`], [`variance`], [`add_class`], ...), so the scores, hence the trees, are the
//! same bit for bit.
//!
//! Gini and squared error also bound a cut's decrease from sums of squares without a
//! division ([`Kernel::at_most`]): a scan skips the exact score of a cut that cannot beat its
//! best by more than noise, which no cut of a continuous feature but a few does.

use super::Searcher;
use crate::class_sums::sum_over_classes;
use crate::criterion::{gini, stats_weight, variance, Criterion, Measure};
use crate::data::{add_class, add_value, Layout, Target};
use crate::measures::entropy;

/// Relative slack of [`Kernel::at_most`]'s tests: far above the rounding of a score (some
/// 1e-15 of the node's impurity or noise scale), far below the 1e-9 a cut must win by
/// ([`crate::criterion::better`]).
pub(super) const BOUND_SLACK: f64 = 1e-11;

/// The sum of class weights a criterion's impurity needs besides their total, which a scan
/// of many classes follows row by row ([`super::running`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Figure {
    /// Σc²: w·Gini = w − Σc²/w.
    Squares,
    /// Σc·log2 c over the positive weights: w·Ent = w·log2 w − Σc·log2 c.
    CLogC,
}

/// The per-cut arithmetic of a scan (see the module's documentation).
pub(super) trait Kernel: Copy {
    /// Adds a row of search weight `w` and [`Target::label`] `label` to `stats`.
    fn add(self, stats: &mut [f64], label: u64, w: f64);
    /// [`Searcher::weight_of`].
    fn weight(self, stats: &[f64]) -> f64;
    /// [`Searcher::impurity`].
    fn impurity(self, stats: &[f64]) -> f64;
    /// Whether the decrease `base − wl/kw · I(left) − wr/kw · I(right)` of the sides `left`
    /// and `right` (weights `wl`, `wr`) of rows weighing `kw` and of impurity `base`, as the
    /// scan computes it, is certainly at most `bar`, the scan's best so far plus its noise
    /// tolerance less [`BOUND_SLACK`]; `false` when the kernel cannot tell without the
    /// impurities.
    #[inline(always)]
    fn at_most(
        self,
        _left: &[f64],
        _right: &[f64],
        _w: (f64, f64),
        _node: (f64, f64),
        _bar: f64,
    ) -> bool {
        false
    }
    /// The figure a side's weighted impurity follows from in O(1) a moved row
    /// ([`super::running`]); `None` for the kernels that keep none.
    #[inline(always)]
    fn figure(self) -> Option<Figure> {
        None
    }
}

/// The searcher's own arithmetic, for every criterion and target.
#[derive(Clone, Copy)]
pub(super) struct Any<'s, 'a, 'd>(pub(super) &'s Searcher<'a, 'd>);

impl Kernel for Any<'_, '_, '_> {
    #[inline(always)]
    fn add(self, stats: &mut [f64], label: u64, w: f64) {
        self.0
            .target
            .accumulate_label(stats, label, w, self.0.shift);
    }

    #[inline(always)]
    fn weight(self, stats: &[f64]) -> f64 {
        self.0.weight_of(stats)
    }

    #[inline(always)]
    fn impurity(self, stats: &[f64]) -> f64 {
        self.0.impurity(stats)
    }
}

/// One class variable under the Gini index, no costs.
#[derive(Clone, Copy)]
pub(super) struct Gini;

impl Kernel for Gini {
    #[inline(always)]
    fn add(self, stats: &mut [f64], label: u64, w: f64) {
        add_few(stats, label, w);
    }

    #[inline(always)]
    fn weight(self, stats: &[f64]) -> f64 {
        stats_weight(stats, false)
    }

    #[inline(always)]
    fn impurity(self, stats: &[f64]) -> f64 {
        gini(stats)
    }

    #[inline(always)]
    fn figure(self) -> Option<Figure> {
        Some(Figure::Squares)
    }

    /// `w/kw · Gini = (w − Σc²/w)/kw`, so the decrease is `base − (wl + wr)/kw + p/kw` with
    /// `p = Σl²/wl + Σr²/wr`, at most `bar` when `p ≤ q = kw(bar − base) + wl + wr`.
    #[inline(always)]
    fn at_most(
        self,
        left: &[f64],
        right: &[f64],
        (wl, wr): (f64, f64),
        (kw, base): (f64, f64),
        bar: f64,
    ) -> bool {
        let squares = |s: &[f64]| sum_over_classes(s, |c| c * c);
        proxy_at_most(
            squares(left),
            squares(right),
            (wl, wr),
            kw * (bar - base) + (wl + wr),
        )
    }
}

/// One class variable under the entropy (or gain ratio's gain).
#[derive(Clone, Copy)]
pub(super) struct Entropy;

impl Kernel for Entropy {
    #[inline(always)]
    fn add(self, stats: &mut [f64], label: u64, w: f64) {
        add_few(stats, label, w);
    }

    #[inline(always)]
    fn weight(self, stats: &[f64]) -> f64 {
        stats_weight(stats, false)
    }

    #[inline(always)]
    fn impurity(self, stats: &[f64]) -> f64 {
        entropy(stats)
    }

    #[inline(always)]
    fn figure(self) -> Option<Figure> {
        Some(Figure::CLogC)
    }
}

/// One real-valued output under squared error, around the searcher's centre `shift`.
#[derive(Clone, Copy)]
pub(super) struct Variance {
    pub(super) shift: f64,
}

impl Kernel for Variance {
    #[inline(always)]
    fn add(self, stats: &mut [f64], label: u64, w: f64) {
        add_value(stats, label, w, self.shift);
    }

    #[inline(always)]
    fn weight(self, stats: &[f64]) -> f64 {
        stats_weight(stats, true)
    }

    #[inline(always)]
    fn impurity(self, stats: &[f64]) -> f64 {
        variance(stats)
    }

    /// `w · variance = Σwy² − (Σwy)²/w` (the clamp at 0 only lowers the decrease), so the
    /// decrease is at most `base − (ssl + ssr)/kw + p/kw` with `p = sl²/wl + sr²/wr`.
    #[inline(always)]
    fn at_most(
        self,
        left: &[f64],
        right: &[f64],
        (wl, wr): (f64, f64),
        (kw, base): (f64, f64),
        bar: f64,
    ) -> bool {
        match (left, right) {
            ([_, sl, ssl], [_, sr, ssr]) => {
                proxy_at_most(sl * sl, sr * sr, (wl, wr), kw * (bar - base) + (ssl + ssr))
            }
            _ => false,
        }
    }
}

/// [`add_class`] by a select per class rather than an index by the row's label, for up to
/// four classes: the sums then stay in registers, where indexed each row's add waited on the
/// store of the row before whenever both were of one class (a fifth of a deep exact fit's
/// time, `perf annotate`). Adding 0 leaves a sum unchanged (no sum is ever −0: the weights
/// are positive), so the sums, hence the trees, are the same bits.
#[inline(always)]
fn add_few(stats: &mut [f64], label: u64, w: f64) {
    if stats.len() <= 4 {
        for (c, s) in stats.iter_mut().enumerate() {
            *s += if c as u64 == label { w } else { 0.0 };
        }
    } else {
        add_class(stats, label, w);
    }
}

/// Whether `a/wl + b/wr ≤ q` for positive `a`, `b`, `wl`, `wr`, with room for the rounding
/// of both sides, multiplied out (no division).
#[inline(always)]
fn proxy_at_most(a: f64, b: f64, (wl, wr): (f64, f64), q: f64) -> bool {
    let rhs = q * wl * wr;
    wl > 0.0 && wr > 0.0 && rhs.is_finite() && (a * wr + b * wl) * (1.0 + 1e-12) <= rhs
}

/// Which kernel computes a scan of `searcher` exactly as the searcher would.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Which {
    Gini,
    Entropy,
    Variance,
    Any,
}

impl Which {
    pub(super) fn of(searcher: &Searcher<'_, '_>) -> Which {
        let Measure {
            criterion,
            costs,
            layout,
            ..
        } = searcher.measure;
        match (criterion, costs, layout, searcher.target) {
            (Criterion::Gini, None, Layout::One, Target::Classes { .. }) => Which::Gini,
            (
                Criterion::Entropy | Criterion::GainRatio,
                None,
                Layout::One,
                Target::Classes { .. },
            ) => Which::Entropy,
            (
                Criterion::SquaredError | Criterion::FriedmanMse,
                _,
                Layout::One,
                Target::Values(_),
            ) => Which::Variance,
            _ => Which::Any,
        }
    }
}
