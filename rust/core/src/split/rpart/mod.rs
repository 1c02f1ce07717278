//! rpart's own arithmetic, to choose among splits that score the same as rpart chooses
//! (`missing="surrogate"`, the rpart-compatible mode).
//!
//! Two splits can score the same in exact arithmetic: two columns that cut the node's rows
//! into one partition (CO2's `Treatment` and a subset of its `Plant`), or two thresholds of
//! one column with the same improvement. rpart keeps the first variable of the largest
//! improvement (`bsplit.c`, `insert_split.c`) and, within a variable, the first cut of the
//! largest (`anova.c`, `gini.c`); "largest" is decided by its floating-point sums, which run
//! in an order of their own: a column's rows in the order of rpart's sort of the whole column
//! (`mysort.c`, a quicksort that is not stable, missing values sorted as 0), a categorical
//! column's in row order. quercus's own sums (sorted lists, centred targets) cannot tell such
//! splits apart, so the candidates quercus finds within [`TIED`] of the best are scored again
//! here, row by row as rpart scores them, and rpart's pick is kept.
//!
//! This is rpart's arithmetic, not its code: the same operations in the same order, for the
//! fits whose arithmetic can be followed to the bit (see [`Rpart::new`]). rpart's
//! cross-validation keeps the whole data's sort and altered priors (`aprior`) for each fold's
//! tree; a fold fit here is given every row (the fold's others at weight 0) and the whole
//! data's weights ([`TreeParams::prior_weights`]) to compute them alike.

use super::{Candidate, MissingRows, NodeRows, Partition, Searcher, SplitRule};
use crate::criterion::Criterion;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::data::{CategoricalColumn, Column, Dataset, Target};
use crate::params::{
    CategoricalSplit, CategoryLimits, Conventions, MissingStrategy, Splitter, TreeParams,
};
use crate::tree::Side;

mod scans;
use scans::{anova_categories, anova_numeric, gini_categories, gini_numeric};

/// Candidates whose gain is within this relative distance of the best are rescored as rpart
/// scores them: far above the rounding of two orders of summation, far below the gaps between
/// genuinely different splits.
const TIED: f64 = 1e-7;

/// What rpart computes once on the whole data and keeps for every fold's tree: each numeric
/// column's rows in the order of its sort of the whole column, and each class's share of the
/// case weights.
pub(crate) struct RpartOrder {
    /// Per feature, each row's position in rpart's sort (a missing value sorted as 0); empty
    /// for a categorical feature, whose rows rpart keeps in row order.
    ranks: Vec<Vec<u32>>,
    /// Each class's share of the case weights (`giniinit`'s `freq`); empty for a target
    /// other than one class variable.
    shares: Vec<f64>,
}

impl RpartOrder {
    /// The order of every row of `data`, rows of weight 0 included (rpart sorts them too, and
    /// its cross-validation keeps the whole data's order for each fold's rows), and the class
    /// shares of `target` under the case weights of `weights` (one per row, `class_factors`
    /// folded in: see [`case_weight`]).
    pub(crate) fn of(
        data: &Dataset<'_>,
        target: &Target<'_>,
        weights: &[f64],
        class_factors: &[f64],
    ) -> RpartOrder {
        let n = data.n_rows();
        let ranks = data
            .columns()
            .iter()
            .map(|column| {
                let value: Box<dyn Fn(usize) -> f64> = match column {
                    // Rows of the data: the NaN is never read (nor in `number`).
                    Column::Numeric(v) => Box::new(move |r| v.get(r).unwrap_or(f64::NAN)),
                    Column::Sparse(c) => Box::new(move |r| c.value(r)),
                    // rpart takes an ordered factor as its level numbers.
                    Column::Categorical(c) if c.ordered => Box::new(move |r| ordinal(c, r)),
                    Column::Categorical(_) => return Vec::new(),
                };
                let mut x: Vec<f64> = (0..n)
                    .map(&value)
                    .map(|v| if v.is_finite() { v } else { 0.0 })
                    .collect();
                let mut rows: Vec<u32> = (0..n as u32).collect();
                quicksort(&mut x, &mut rows);
                let mut rank = vec![0u32; n];
                for (position, &r) in rows.iter().enumerate() {
                    if let Some(slot) = rank.get_mut(r as usize) {
                        *slot = position as u32;
                    }
                }
                rank
            })
            .collect();
        RpartOrder {
            ranks,
            shares: class_shares(
                target,
                &(weights.iter().enumerate())
                    .map(|(r, &w)| case_weight(class_factors, target, r, w))
                    .collect::<Vec<_>>(),
            ),
        }
    }

    /// The order of the rows of positive weight, renumbered as [`crate::data::KeptRows`] keeps
    /// them (their relative order unchanged).
    pub(crate) fn kept(self, weights: &[f64]) -> RpartOrder {
        let keep = |r: usize| weights.get(r).is_some_and(|&w| w > 0.0);
        let ranks = self
            .ranks
            .into_iter()
            .map(|rank| {
                rank.into_iter()
                    .enumerate()
                    .filter(|&(r, _)| keep(r))
                    .map(|(_, p)| p)
                    .collect()
            })
            .collect();
        RpartOrder {
            ranks,
            shares: self.shares,
        }
    }

    /// `rows` in rpart's order for feature `f`.
    fn arrange(&self, f: usize, rows: &mut [usize]) {
        match self.ranks.get(f).filter(|r| !r.is_empty()) {
            // A rank per row of the data: the default is never read.
            Some(rank) => rows.sort_by_key(|&r| rank.get(r).copied().unwrap_or(u32::MAX)),
            None => rows.sort_unstable(),
        }
    }
}

/// Each class's share of `weights`, summed in row order as `giniinit` sums them (a row of
/// weight 0 adds nothing, so the rows a fit drops leave the bits alike); empty unless the
/// target is one class variable.
fn class_shares(target: &Target<'_>, weights: &[f64]) -> Vec<f64> {
    let Target::Classes { codes, n_classes } = target else {
        return Vec::new();
    };
    let mut freq = vec![0.0; *n_classes];
    let mut total = 0.0;
    for (&c, &w) in codes.iter().zip(weights) {
        if let Some(f) = freq.get_mut(c as usize) {
            *f += w;
        }
        total += w;
    }
    freq.iter_mut().for_each(|f| *f /= total);
    freq
}

/// rpart's quicksort of `x` carrying `rows` (`mysort.c`'s algorithm: insertion sort below 11
/// items, else a median-of-three partition that swaps only strictly misordered pairs). Not
/// stable, and rpart's sums follow its order, so it is reproduced rather than replaced by a
/// stable sort. Explicit stack; each range is sorted as rpart sorts it whatever the order in
/// which ranges are taken, since they do not overlap.
fn quicksort(x: &mut [f64], rows: &mut [u32]) {
    let mut ranges = vec![(0usize, x.len().saturating_sub(1))];
    while let Some((mut start, mut stop)) = ranges.pop() {
        while start < stop {
            if stop - start < 11 {
                insertion_sort(x, rows, start, stop);
                break;
            }
            let (mut i, mut j) = (start, stop);
            let median = median_of_three(x, start, stop);
            while i < j {
                while x.get(i).is_some_and(|&v| v < median) {
                    i += 1;
                }
                while x.get(j).is_some_and(|&v| v > median) {
                    j -= 1;
                }
                if i < j {
                    if x.get(i) > x.get(j) {
                        x.swap(i, j);
                        rows.swap(i, j);
                    }
                    i += 1;
                    j -= 1;
                }
            }
            while i > start && x.get(i).is_some_and(|&v| v >= median) {
                i -= 1;
            }
            while j < stop && x.get(j).is_some_and(|&v| v <= median) {
                j += 1;
            }
            // The shorter part is set aside, the longer one continues (as rpart recurs on the
            // shorter one and loops on the other).
            if i - start < stop - j {
                if i > start {
                    ranges.push((start, i));
                }
                start = j;
            } else {
                if stop > j {
                    ranges.push((j, stop));
                }
                stop = i;
            }
        }
    }
}

fn insertion_sort(x: &mut [f64], rows: &mut [u32], start: usize, stop: usize) {
    for i in start + 1..=stop {
        let (Some(&v), Some(&r)) = (x.get(i), rows.get(i)) else {
            return;
        };
        let mut j = i;
        while j > start && x.get(j - 1).is_some_and(|&u| u > v) {
            x.swap(j, j - 1);
            rows.swap(j, j - 1);
            j -= 1;
        }
        if let (Some(a), Some(b)) = (x.get_mut(j), rows.get_mut(j)) {
            *a = v;
            *b = r;
        }
    }
}

/// The median of the first, middle and last of `x[start..=stop]`, as rpart picks it.
fn median_of_three(x: &[f64], start: usize, stop: usize) -> f64 {
    // `start..=stop` lies in `x` (the caller's partition): the 0.0 is never read.
    let at = |k: usize| x.get(k).copied().unwrap_or(0.0);
    let (a, m, b) = (at(start), at((start + stop) / 2), at(stop));
    if a >= m {
        if b > m {
            // m is the smallest
            if a > b {
                b
            } else {
                a
            }
        } else {
            m
        }
    } else if b < m {
        if a > b {
            a
        } else {
            b
        }
    } else {
        m
    }
}

/// Which of rpart's split functions applies.
enum Method {
    /// `anova.c`: squared error.
    Anova,
    /// `gini.c`: the Gini index (p(1 − p)) or information (−p ln p) on altered priors.
    Classes { aprior: Vec<f64>, information: bool },
}

/// rpart's order and arithmetic for one fit.
pub(crate) struct Rpart {
    order: RpartOrder,
    method: Method,
    /// The largest improvement of a node's pick so far, as f64 bits (`rp.iscale`); nodes
    /// may be searched on several threads.
    iscale: AtomicU64,
    /// A fold of rpart's cross-validation (given the whole data's weights), grown by its C
    /// code alone.
    fold: bool,
    /// The class weights folded into the rows' weights (rpart's priors as π_k / f_k), which
    /// its sums leave out; empty: none.
    class_factors: Vec<f64>,
}

/// A cut as rpart makes it: between two adjacent values of a numeric column, or a set of
/// categories sent left.
#[derive(Debug, Clone, PartialEq)]
enum Cut {
    Between(f64, f64),
    Left(Vec<bool>),
}

impl Rpart {
    /// rpart's arithmetic for a fit of `params` on `target` searched by `splitter`, with
    /// `order` and class shares (see [`RpartOrder::of`]); `None` unless the fit is rpart's
    /// and its arithmetic
    /// can be followed: `missing="surrogate"`, the exact search, binary splits, and the Gini
    /// index or entropy on one class variable, or the squared error on one real target.
    /// Class weights are followed only as rpart's priors given in `priors` (from which its
    /// altered priors are rebuilt as `giniinit` builds them), and a cost matrix only as its
    /// loss matrix (`altered_priors`); other class weights and costs keep quercus's choice.
    pub(crate) fn new(
        params: &TreeParams,
        splitter: Splitter,
        target: &Target<'_>,
        order: RpartOrder,
    ) -> Option<Rpart> {
        let rpart_like = params.missing == MissingStrategy::Surrogate
            && params.conventions == Conventions::Texts
            && splitter == Splitter::Exact
            && params.categorical_split == CategoricalSplit::Binary
            && !params.oblique
            && (params.class_weights.is_none() || params.priors.is_some())
            && (params.cost_matrix.is_none() || params.altered_priors)
            && params.category_limits == CategoryLimits::NONE
            && params.monotonic_cst.is_none();
        if !rpart_like {
            return None;
        }
        let method = match (target, params.criterion) {
            (Target::Values(_), Criterion::SquaredError) => Method::Anova,
            (Target::Classes { n_classes, .. }, Criterion::Gini | Criterion::Entropy) => {
                let k = *n_classes;
                // giniinit: each class's share of the case weights, the priors (rpart's
                // default: those shares, computed alike in R), the losses (row: the true
                // class; unit by default).
                let freq = &order.shares;
                let prior = match &params.priors {
                    Some(p) if p.len() == k => p,
                    Some(_) => return None,
                    None => freq,
                };
                let loss = |i: usize, j: usize| match &params.cost_matrix {
                    Some(costs) => costs.get(i * k + j).copied().unwrap_or(0.0),
                    None => f64::from(u8::from(i != j)),
                };
                let mut aprior = vec![0.0; k];
                let mut sum = 0.0;
                for ((i, a), &p) in aprior.iter_mut().enumerate().zip(prior) {
                    for j in 0..k {
                        sum += loss(i, j) * p;
                        *a += loss(i, j) * p;
                    }
                }
                for (a, &f) in aprior.iter_mut().zip(freq) {
                    if f > 0.0 {
                        *a /= sum * f;
                    }
                }
                Method::Classes {
                    aprior,
                    information: params.criterion == Criterion::Entropy,
                }
            }
            _ => return None,
        };
        Some(Rpart {
            order,
            method,
            iscale: AtomicU64::new(0),
            fold: params.prior_weights.is_some(),
            class_factors: params.class_weights.clone().unwrap_or_default(),
        })
    }

    /// The candidate rpart would choose at the node of `rows` among those within [`TIED`] of
    /// `chosen` (quercus's pick), rescored with rpart's arithmetic: the first feature of the
    /// largest improvement, at rpart's cut. A feature whose cut differs from its candidate's
    /// gets a new candidate at rpart's cut. `root`: whether the node is the root, whose risk
    /// rpart sums in row order (other nodes' in the first column's order).
    pub(crate) fn choose(
        &self,
        searcher: &Searcher<'_, '_>,
        rows: &NodeRows,
        root: bool,
        node_weight: f64,
        candidates: &mut [Option<Candidate>],
        chosen: Option<usize>,
    ) -> Option<usize> {
        let best = candidates.get(chosen?)?.as_ref()?.score.gain;
        let tied: Vec<usize> = candidates
            .iter()
            .enumerate()
            .filter_map(|(f, c)| {
                let gain = c.as_ref()?.score.gain;
                (best - gain <= TIED * best.abs()).then_some(f)
            })
            .collect();
        // rpart's splits are thresholds (an ordered factor's on its level numbers) and
        // subsets: a tie with another kind is left to quercus's rule.
        let rpart_kind = |f: &usize| {
            candidates
                .get(*f)
                .and_then(Option::as_ref)
                .is_some_and(|c| {
                    matches!(
                        c.rule,
                        SplitRule::Numeric { .. }
                            | SplitRule::Subset { .. }
                            | SplitRule::Ordered { .. }
                    )
                })
        };
        let scored = |f: &usize| rpart_kind(f) && self.enumerable(searcher, rows, *f);
        let risk = match self.method {
            Method::Anova => self.anova_risk(searcher, rows, root),
            Method::Classes { .. } => 1.0,
        };
        // bsplit.c keeps a split only if its improvement exceeds 1e-10 of the largest seen
        // in the fit so far, and its scans offer none that does not lower the impurity
        // (`None`): a split that leaves the impurity as it was, up to rounding, is no split.
        // The pick's decides, the tied ones' being within 1e-7 of it.
        let mut picked = None;
        if let Some(pick) = chosen.filter(scored) {
            match self.scan(searcher, rows, pick, risk) {
                Some((improve, cut)) if self.worth(improve) => picked = Some((pick, improve, cut)),
                _ => return None,
            }
        }
        if !tied.iter().all(scored) {
            return chosen;
        }
        let mut winner: Option<(usize, f64, Cut)> = None;
        for f in tied {
            // The pick was scanned above.
            let scanned = match picked.take_if(|(p, _, _)| *p == f) {
                Some((_, improve, cut)) => Some((improve, cut)),
                None => self.scan(searcher, rows, f, risk),
            };
            let Some((improve, cut)) = scanned else {
                continue;
            };
            // insert_split: a later variable displaces an earlier one only if larger.
            if winner.as_ref().is_none_or(|(_, w, _)| improve > *w) {
                winner = Some((f, improve, cut));
            }
        }
        let Some((f, _, cut)) = winner else {
            return chosen;
        };
        let slot = candidates.get_mut(f)?;
        if !slot.as_ref().is_some_and(|c| same_cut(c, &cut)) {
            let rebuilt = self.candidate_at(searcher, rows, f, &cut, node_weight);
            if rebuilt.is_none() {
                return chosen;
            }
            *slot = rebuilt;
        }
        // An ordered factor's cut between level numbers `lo` and `hi` as rpart places the
        // levels the node lacks: its C code sends those below the midpoint left, which is
        // what its cross-validation's folds do; its R code then keeps the fitted tree's cut
        // as the levels up to ⌊(lo + hi) / 2⌋ (`rpart.R`), which `predict.rpart` reads.
        if let (Some(c), &Cut::Between(lo, hi)) = (slot.as_mut(), &cut) {
            if let SplitRule::Ordered { threshold } = &mut c.rule {
                let mid = (lo + hi) / 2.0;
                let last = if self.fold {
                    mid.ceil() - 1.0
                } else {
                    mid.floor()
                };
                *threshold = (last as u32).saturating_sub(1); // level numbers count from 1
                c.score.threshold = f64::from(*threshold);
            }
        }
        Some(f)
    }

    /// Whether rpart keeps a split of improvement `improve` (`bsplit.c`): above 1e-10 of the
    /// largest improvement seen so far, this one included.
    fn worth(&self, improve: f64) -> bool {
        // Non-negative floats order as their bits.
        let before = self
            .iscale
            .fetch_max(improve.max(0.0).to_bits(), Ordering::Relaxed);
        improve > 1e-10 * f64::from_bits(before).max(improve)
    }

    /// Whether rpart's scan of feature `f` at the node is one quercus also makes: a
    /// categorical feature of more classes than two is scanned over every subset of its
    /// present categories (2^(k−1)), which quercus does up to `max_exhaustive_categories`
    /// and replaces beyond by an ordering; such ties are left to quercus's rule.
    fn enumerable(&self, searcher: &Searcher<'_, '_>, rows: &NodeRows, f: usize) -> bool {
        let Method::Classes { aprior, .. } = &self.method else {
            return true;
        };
        let Some(Column::Categorical(c)) = searcher.data.columns().get(f) else {
            return true;
        };
        if aprior.len() <= 2 || c.ordered {
            return true;
        }
        let mut present = vec![false; c.n_categories as usize];
        for (r, _) in rows.iter() {
            if let Some(p) = c.code(r).and_then(|k| present.get_mut(k as usize)) {
                *p = true;
            }
        }
        present.iter().filter(|&&p| p).count() <= searcher.max_exhaustive_categories
    }

    /// rpart's risk of the node (`anovass`): the weighted sum of squares about the mean, the
    /// rows summed in row order at the root, else in the first column's order.
    fn anova_risk(&self, searcher: &Searcher<'_, '_>, rows: &NodeRows, root: bool) -> f64 {
        let Target::Values(y) = searcher.target else {
            return 1.0;
        };
        let mut order: Vec<usize> = rows.iter().map(|(r, _)| r).collect();
        if root {
            order.sort_unstable();
        } else {
            self.order.arrange(0, &mut order);
        }
        let weight_of = weights_by_row(&self.class_factors, searcher, rows);
        // Rows are the target's: the 0.0 is never read.
        let (mut sum, mut twt) = (0.0, 0.0);
        for &r in &order {
            let w = weight_of(r);
            sum += y.get(r).copied().unwrap_or(0.0) * w;
            twt += w;
        }
        let mean = sum / twt;
        let mut ss = 0.0;
        for &r in &order {
            let d = y.get(r).copied().unwrap_or(0.0) - mean;
            ss += d * d * weight_of(r);
        }
        ss
    }

    /// rpart's improvement and cut of feature `f` at the node of `rows` (`None`: no cut).
    fn scan(
        &self,
        searcher: &Searcher<'_, '_>,
        rows: &NodeRows,
        f: usize,
        risk: f64,
    ) -> Option<(f64, Cut)> {
        let column = searcher.data.columns().get(f)?;
        let weight_of = weights_by_row(&self.class_factors, searcher, rows);
        // bsplit: the node's rows that know the value, of positive weight, in rpart's order.
        let mut order: Vec<usize> = rows
            .iter()
            .filter(|&(r, w)| w > 0.0 && known(column, r))
            .map(|(r, _)| r)
            .collect();
        self.order.arrange(f, &mut order);
        let wt: Vec<f64> = order.iter().map(|&r| weight_of(r)).collect();
        let edge = searcher.min_samples_leaf;
        match column {
            Column::Categorical(c) if !c.ordered => {
                let codes: Vec<usize> = order
                    .iter()
                    .map(|&r| c.code(r).map_or(0, |k| k as usize)) // known: never read
                    .collect();
                let k = c.n_categories as usize;
                let left = match &self.method {
                    Method::Anova => {
                        anova_categories(&values(searcher, &order)?, &codes, &wt, k, edge)
                    }
                    Method::Classes {
                        aprior,
                        information,
                    } => gini_categories(
                        &classes(searcher, &order)?,
                        &codes,
                        &wt,
                        k,
                        edge,
                        aprior,
                        *information,
                    ),
                };
                let (best, left) = left?;
                Some((self.improvement(best, risk), Cut::Left(left)))
            }
            _ => {
                let x: Vec<f64> = order.iter().map(|&r| number(column, r)).collect();
                if x.first() == x.last() {
                    return None;
                }
                let (best, at) = match &self.method {
                    Method::Anova => anova_numeric(&values(searcher, &order)?, &x, &wt, edge),
                    Method::Classes {
                        aprior,
                        information,
                    } => gini_numeric(
                        &classes(searcher, &order)?,
                        &x,
                        &wt,
                        edge,
                        aprior,
                        *information,
                    ),
                }?;
                let (lo, hi) = (*x.get(at)?, *x.get(at + 1)?);
                Some((self.improvement(best, risk), Cut::Between(lo, hi)))
            }
        }
    }

    /// rpart's `improve` from a scan's best: anova divides by the node's risk; gini's scan
    /// already returns `total_ss − best`.
    fn improvement(&self, best: f64, risk: f64) -> f64 {
        match self.method {
            Method::Anova => best / risk,
            Method::Classes { .. } => best,
        }
    }

    /// The candidate of feature `f` cut at `cut`, its figures from the node's rows.
    fn candidate_at(
        &self,
        searcher: &Searcher<'_, '_>,
        rows: &NodeRows,
        f: usize,
        cut: &Cut,
        node_weight: f64,
    ) -> Option<Candidate> {
        let column = searcher.data.columns().get(f)?;
        match (cut, column) {
            // An ordered column cut elsewhere than its candidate: left to quercus's pick.
            (Cut::Between(..), Column::Categorical(_)) => None,
            (Cut::Left(left), Column::Categorical(c)) => {
                let sides: Vec<Side> = left
                    .iter()
                    .enumerate()
                    .map(|(k, &l)| {
                        let present = rows.iter().any(|(r, _)| c.code(r) == Some(k as u32));
                        match (present, l) {
                            (false, _) => Side::Unseen,
                            (true, true) => Side::Left,
                            (true, false) => Side::Right,
                        }
                    })
                    .collect();
                let codes = rows.iter().map(|(r, _)| c.code(r));
                let cats = searcher.per_category(codes, c.n_categories as usize, rows);
                searcher.subset_candidate(f, sides, None, &cats, node_weight)
            }
            (&Cut::Between(lo, hi), _) => {
                // A regression's sums centred on the node's mean, as its search centres them.
                let centred;
                let searcher = match searcher.target {
                    Target::Values(y) => {
                        // Rows are the target's: the 0.0 is never read.
                        let (wy, w) = rows.iter().fold((0.0, 0.0), |(wy, tw), (r, w)| {
                            (wy + w * y.get(r).copied().unwrap_or(0.0), tw + w)
                        });
                        centred = searcher.centred_on(wy / w);
                        &centred
                    }
                    _ => searcher,
                };
                let threshold = searcher.threshold(f, lo, hi);
                let mut children = [searcher.zero_stats(), searcher.zero_stats()];
                let mut counts = [0usize; 2];
                for (r, w) in rows.iter() {
                    let x = number(column, r);
                    if x.is_nan() {
                        continue;
                    }
                    let side = usize::from(x > threshold);
                    if let (Some(s), Some(n)) = (children.get_mut(side), counts.get_mut(side)) {
                        searcher.accumulate(s, r, w);
                        *n += 1;
                    }
                }
                let [left, right] = &children;
                let known: Vec<f64> = left.iter().zip(right).map(|(a, b)| a + b).collect();
                let part = Partition {
                    children: &children,
                    counts: &counts,
                    impurities: None,
                };
                let rule = SplitRule::Numeric { threshold };
                searcher.finish(f, rule, &known, &part, node_weight, MissingRows::Left)
            }
            _ => None,
        }
    }
}

/// Whether candidate `c` cuts the node's known rows as `cut` does.
fn same_cut(c: &Candidate, cut: &Cut) -> bool {
    match (&c.rule, cut) {
        (SplitRule::Numeric { threshold }, &Cut::Between(lo, hi)) => {
            lo <= *threshold && *threshold < hi
        }
        // The last level on the left, by its number.
        (SplitRule::Ordered { threshold }, &Cut::Between(lo, hi)) => {
            let number = f64::from(*threshold) + 1.0;
            lo <= number && number < hi
        }
        (SplitRule::Subset { sides }, Cut::Left(left)) => {
            // The same partition, whichever side each group is called.
            let pairs = sides.iter().zip(left).filter(|(s, _)| **s != Side::Unseen);
            let same = pairs.clone().all(|(s, &l)| (*s == Side::Left) == l);
            let mirrored = pairs.clone().all(|(s, &l)| (*s == Side::Left) != l);
            same || mirrored
        }
        _ => false,
    }
}

/// Each row's case weight at the node (class factors removed): the weights rpart sums.
fn weights_by_row<'r>(
    class_factors: &[f64],
    searcher: &'r Searcher<'_, '_>,
    rows: &'r NodeRows,
) -> impl Fn(usize) -> f64 + 'r {
    let mut by_row: Vec<(usize, f64)> = rows
        .iter()
        .map(|(r, w)| (r, case_weight(class_factors, searcher.target, r, w)))
        .collect();
    by_row.sort_unstable_by_key(|&(r, _)| r);
    move |r| match by_row.binary_search_by_key(&r, |&(row, _)| row) {
        Ok(i) => by_row.get(i).map_or(0.0, |&(_, w)| w), // found there: never read
        Err(_) => 0.0,                                   // a row not at the node
    }
}

/// Row `r`'s case weight, the weight rpart sums: `w` with its class's factor divided out
/// (`class_factors`: rpart's priors as π_k / f_k, folded into the rows' weights), which gives
/// a unit weight back exactly; `w` itself without factors or without classes.
pub(crate) fn case_weight(class_factors: &[f64], target: &Target<'_>, r: usize, w: f64) -> f64 {
    let Target::Classes { codes, .. } = target else {
        return w;
    };
    match codes.get(r).and_then(|&c| class_factors.get(c as usize)) {
        Some(&f) if f > 0.0 => w / f,
        _ => w,
    }
}

/// The mean class index of class weights `stats` (Σ_j j·w_j / Σ_j w_j; 0 without weight):
/// what rpart orders a split's two sides by (`gini.c`'s `lmean`, `rmean`), lower on the left.
pub(crate) fn class_index_mean(stats: &[f64]) -> f64 {
    let total: f64 = stats.iter().sum();
    if total > 0.0 {
        stats
            .iter()
            .enumerate()
            .map(|(j, x)| j as f64 * x)
            .sum::<f64>()
            / total
    } else {
        0.0
    }
}

fn known(column: &Column<'_>, r: usize) -> bool {
    match column {
        Column::Categorical(c) => c.code(r).is_some(),
        _ => !number(column, r).is_nan(),
    }
}

fn number(column: &Column<'_>, r: usize) -> f64 {
    match column {
        Column::Numeric(v) => v.get(r).unwrap_or(f64::NAN),
        Column::Sparse(c) => c.value(r),
        Column::Categorical(c) if c.ordered => ordinal(c, r),
        Column::Categorical(_) => f64::NAN,
    }
}

/// An ordered category's number as R gives an ordered factor's level (from 1); NaN where
/// missing.
fn ordinal(c: &CategoricalColumn<'_>, r: usize) -> f64 {
    c.code(r).map_or(f64::NAN, |k| f64::from(k) + 1.0)
}

fn values(searcher: &Searcher<'_, '_>, order: &[usize]) -> Option<Vec<f64>> {
    let Target::Values(y) = searcher.target else {
        return None;
    };
    order.iter().map(|&r| y.get(r).copied()).collect()
}

fn classes(searcher: &Searcher<'_, '_>, order: &[usize]) -> Option<Vec<usize>> {
    let Target::Classes { codes, .. } = searcher.target else {
        return None;
    };
    order
        .iter()
        .map(|&r| codes.get(r).map(|&c| c as usize))
        .collect()
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn quicksort_sorts_and_carries_rows() {
        let mut x = vec![
            3.0, 1.0, 2.0, 3.0, 0.0, 5.0, 1.0, 2.0, 9.0, 4.0, 4.0, 1.0, 7.0, 3.0, 2.0, 0.0,
        ];
        let original = x.clone();
        let mut rows: Vec<u32> = (0..x.len() as u32).collect();
        quicksort(&mut x, &mut rows);
        assert!(x.windows(2).all(|w| w[0] <= w[1]));
        for (v, &r) in x.iter().zip(&rows) {
            assert_eq!(*v, original[r as usize]);
        }
        let mut seen = rows.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..x.len() as u32).collect::<Vec<_>>());
    }

    #[test]
    fn class_shares_skip_rows_of_weight_zero_bit_for_bit() {
        let codes = [0u32, 1, 2, 1, 0, 2, 2, 1, 0, 1];
        let weights = [0.1, 0.7, 1.3, 0.2, 0.9, 1.1, 0.3, 0.6, 0.4, 0.8];
        let target = Target::Classes {
            codes: &codes,
            n_classes: 3,
        };
        let mut held = weights;
        held[3] = 0.0;
        held[6] = 0.0;
        let kept_codes = [0u32, 1, 2, 0, 2, 1, 0, 1];
        let kept_weights = [0.1, 0.7, 1.3, 0.9, 1.1, 0.6, 0.4, 0.8];
        let kept = Target::Classes {
            codes: &kept_codes,
            n_classes: 3,
        };
        let shares = class_shares(&target, &held);
        assert_eq!(shares, class_shares(&kept, &kept_weights)); // exactly: the same sums
        assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert_ne!(shares, class_shares(&target, &weights));
        assert!(class_shares(&Target::Values(&weights), &weights).is_empty());
    }

    #[test]
    fn prior_weights_of_another_length_are_refused() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let codes = [0u32, 0, 1, 1];
        let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
        let target = Target::Classes {
            codes: &codes,
            n_classes: 2,
        };
        let params = TreeParams {
            missing: MissingStrategy::Surrogate,
            prior_weights: Some(vec![1.0; 3]),
            ..TreeParams::default()
        };
        let err = crate::builder::grow(&data, &target, &[1.0; 4], &params).unwrap_err();
        assert!(err.to_string().contains("prior_weights"), "{err}");
        let params = TreeParams {
            prior_weights: Some(vec![1.0; 4]),
            ..params
        };
        assert!(crate::builder::grow(&data, &target, &[1.0, 1.0, 0.0, 1.0], &params).is_ok());
    }
}
