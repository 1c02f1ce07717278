//! Numeric features: `x <= t` at midpoints of adjacent distinct known values, with the
//! missing rows placed on either side when the strategy learns a direction.

use super::kernel::{self, Any, Kernel, Which, BOUND_SLACK};
use super::presort::{position, NEW_VALUE};
use super::running::{Running, Verdict};
use super::sweep::{Known, Sweep};
use super::*;
use crate::criterion::least_better;

/// A node row's search weight and [`crate::data::Target::label`], gathered once per node for
/// all its numeric features ([`Searcher::facts`]): each feature's gather then reads this
/// node-sized table, not the data set's weights, class weights and targets at random rows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fact {
    w: f64,
    label: u64,
}

impl Fact {
    /// A row of no weight: adds nothing to a scan's sums.
    const NOTHING: Fact = Fact { w: 0.0, label: 0 };
}

/// The [`Fact`]s of a node's rows, in the node's order. When every row has the same search
/// weight (unit weights without class factors, the usual fit), that weight is kept once and
/// the labels alone, in 32 bits where every label fits (class codes, row numbers): a quarter
/// of the bytes of the pairs, in this table and in each feature's gathered copy
/// ([`Steps`]), which at a large node were most of an exact search's memory besides the
/// sorted lists (2M rows: 30 MiB each). The scans add the same weight to the same sums, so
/// the trees are the same.
pub(crate) enum Facts {
    Weighted(Vec<Fact>),
    Narrow { w: f64, labels: Vec<u32> },
    Wide { w: f64, labels: Vec<u64> },
}

impl Facts {
    fn len(&self) -> usize {
        match self {
            Facts::Weighted(facts) => facts.len(),
            Facts::Narrow { labels, .. } => labels.len(),
            Facts::Wide { labels, .. } => labels.len(),
        }
    }

    /// Row `i`'s (search weight, label).
    #[inline]
    fn get(&self, i: usize) -> Option<(f64, u64)> {
        match self {
            Facts::Weighted(facts) => facts.get(i).map(|f| (f.w, f.label)),
            Facts::Narrow { w, labels } => labels.get(i).map(|&l| (*w, u64::from(l))),
            Facts::Wide { w, labels } => labels.get(i).map(|&l| (*w, l)),
        }
    }
}

/// A sorted list's rows' labels and weights, gathered in list order ([`Steps`]).
pub(super) trait Gathered {
    fn len(&self) -> usize;
    /// Item `i`'s (label, search weight).
    fn row(&self, i: usize) -> Option<(u64, f64)>;
}

impl Gathered for Vec<Fact> {
    fn len(&self) -> usize {
        <[Fact]>::len(self)
    }

    #[inline(always)]
    fn row(&self, i: usize) -> Option<(u64, f64)> {
        self.get(i).map(|k| (k.label, k.w))
    }
}

/// The labels of rows that all weigh `w`.
pub(super) struct Uniform<L> {
    w: f64,
    labels: Vec<L>,
}

impl<L: Copy + Into<u64>> Gathered for Uniform<L> {
    fn len(&self) -> usize {
        self.labels.len()
    }

    #[inline(always)]
    fn row(&self, i: usize) -> Option<(u64, f64)> {
        self.labels.get(i).map(|&l| (l.into(), self.w))
    }
}

/// The known rows of a sorted list as its scan reads them ([`super::presort`]): each one's
/// label and weight ([`Facts`]), gathered in list order, and no value: the list's own
/// entries say whether a row is above the previous one (a cut) and, at the chosen cut,
/// which rows hold its two values. Cuts between values that differ by any amount only (no
/// J48 gap, or one no two values of the feature are as close as:
/// [`j48::TrainingValues::spaced`]). The list is not copied into the gathered rows: at a
/// large node the gathered rows of the features searched at once are most of the search's
/// memory.
pub(super) struct Steps<'l, G> {
    facts: G,
    list: &'l [u32],
}

impl<G: Gathered> Sweep for Steps<'_, G> {
    fn len(&self) -> usize {
        self.facts.len()
    }

    #[inline(always)]
    fn add<K: Kernel>(&self, kernel: K, i: usize, stats: &mut [f64], sign: f64) -> usize {
        if let Some((label, w)) = self.facts.row(i) {
            kernel.add(stats, label, sign * w);
        }
        1
    }

    #[inline]
    fn cut_after(&self, i: usize, _gap: f64) -> bool {
        self.list.get(i + 1).is_some_and(|&e| e & NEW_VALUE != 0)
    }

    #[inline(always)]
    fn row(&self, i: usize) -> Option<(u64, f64)> {
        self.facts.row(i)
    }

    const ROWS: bool = true;
}

/// `table`'s item (node order) of each entry of `list`, in list order; `nothing` where a
/// position is outside the table (never: a list's positions index the node's rows).
fn gather_list<T: Copy>(table: &[T], list: &[u32], mut out: Vec<T>, nothing: T) -> Vec<T> {
    // A map of known length extends without a capacity test a row.
    out.extend(
        list.iter()
            .map(|&e| table.get(position(e)).copied().unwrap_or(nothing)),
    );
    out
}

/// A scan's running sums: a `Vec` of any width, or an array whose length the compiler
/// knows, so that the loops over a side's sums unroll.
pub(super) trait Sums: Clone + AsRef<[f64]> + AsMut<[f64]> {
    /// Sums of any width (a `Vec`), the only ones wide enough for the running figures: an
    /// array's scan then compiles without them (its arrays are at most 8 wide).
    const ANY_WIDTH: bool;
    fn zeros(width: usize) -> Self;
}

impl Sums for Vec<f64> {
    const ANY_WIDTH: bool = true;
    fn zeros(width: usize) -> Self {
        vec![0.0; width]
    }
}

impl<const K: usize> Sums for [f64; K] {
    const ANY_WIDTH: bool = false;
    fn zeros(_: usize) -> Self {
        [0.0; K]
    }
}

/// Where a scan cuts: `at` items go left (all of them: every known row left, the missing
/// rows right), with the missing rows on `side` when the strategy places them; the figures
/// the candidate is completed from.
pub(super) struct Scan {
    pub(super) at: usize,
    side: Option<usize>,
    cuts: Cuts,
    total: Vec<f64>,
    /// The sums of the `at` items left and their rows: the candidate's left side.
    left: Vec<f64>,
    rows_left: usize,
    n: usize,
    n_missing: usize,
}

/// The threshold between adjacent values `lo < hi`, computed as scikit-learn does (`lo/2 +
/// hi/2` cannot overflow); if rounding lands on `hi`, `lo`, so that `x <= t` still separates
/// them.
pub(crate) fn midpoint(lo: f64, hi: f64) -> f64 {
    let t = lo / 2.0 + hi / 2.0;
    if t >= hi || !t.is_finite() {
        lo
    } else {
        t
    }
}

/// rpart's threshold between adjacent values `lo < hi`, as a `x <= t` test: rpart sends
/// `x < (lo + hi) / 2` left (its `gini.c`, `choose_surg.c`, `branch.c`), so a value exactly at
/// the midpoint (integer data, at predict time) goes right; the largest float below that
/// midpoint makes quercus's `x <= t` the same test. `lo` if rounding leaves nothing between.
pub(super) fn rpart_threshold(lo: f64, hi: f64) -> f64 {
    let t = ((lo + hi) / 2.0).next_down();
    if t >= lo && t < hi && t.is_finite() {
        t
    } else {
        lo
    }
}

impl Searcher<'_, '_> {
    /// The [`Facts`] of the node's rows, in the node's order.
    pub(super) fn facts(&self, node: &NodeRows) -> Option<Facts> {
        let weight = |(r, w): (usize, f64)| self.search_weight(r, w);
        let first = node.iter().next().map(weight);
        let uniform =
            first.filter(|&w0| node.iter().all(|row| weight(row).to_bits() == w0.to_bits()));
        let label = |&r: &u32| self.target.label(r as usize);
        Some(match uniform {
            // A single real-valued output's label is its value's 64 bits; every other
            // label is a class code or a row number, which fit in 32.
            Some(w) if matches!(self.target, Target::Values(_)) => {
                let mut labels = self.vec(node.len())?;
                labels.extend(node.rows.iter().map(label));
                Facts::Wide { w, labels }
            }
            Some(w) => {
                let mut labels = self.vec(node.len())?;
                labels.extend(node.rows.iter().map(|r| label(r) as u32));
                Facts::Narrow { w, labels }
            }
            None => {
                let mut facts = self.vec(node.len())?;
                facts.extend(node.iter().map(|row| Fact {
                    w: weight(row),
                    label: self.target.label(row.0),
                }));
                Facts::Weighted(facts)
            }
        })
    }

    /// Adds to `stats`, in the node's order, the [`Fact`]s of the node's rows that `list`
    /// (its known rows) leaves out, the rows missing the feature; returns how many. Found by
    /// their positions, in node-sized memory: reading the value at each row hopped over the
    /// whole column, most of a deep node's numeric search.
    fn add_unlisted(&self, list: &[u32], facts: &Facts, stats: &mut [f64]) -> Option<usize> {
        let mut listed: Vec<bool> = self.vec(facts.len())?;
        listed.resize(facts.len(), false);
        for &e in list {
            if let Some(l) = listed.get_mut(position(e)) {
                *l = true;
            }
        }
        let mut n = 0;
        let mut add = |label: u64, w: f64| {
            n += 1;
            Any(self).add(stats, label, w);
        };
        match facts {
            Facts::Weighted(facts) => {
                for (f, _) in facts.iter().zip(&listed).filter(|(_, &l)| !l) {
                    add(f.label, f.w);
                }
            }
            Facts::Narrow { w, labels } => {
                for (&l, _) in labels.iter().zip(&listed).filter(|(_, &l)| !l) {
                    add(u64::from(l), *w);
                }
            }
            Facts::Wide { w, labels } => {
                for (&l, _) in labels.iter().zip(&listed).filter(|(_, &l)| !l) {
                    add(l, *w);
                }
            }
        }
        Some(n)
    }

    /// `x <= t` at midpoints of adjacent distinct known values (text 000 §4.4.1). The
    /// threshold is chosen by impurity decrease, as C4.5 chooses it by gain before the ratio.
    /// `value(row)` reads the feature (NaN = missing); oblique search passes a projection.
    /// `sorted` lists the node's known rows in ascending order when the fit keeps them
    /// ([`super::presort`]); without it the known rows are sorted here. Absolute error scans
    /// its own way ([`super::absolute`]), from the node's `ranks` if given. `facts` are the
    /// node's [`Fact`]s, if gathered.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn numeric(
        &self,
        feature: usize,
        value: impl Fn(usize) -> f64,
        node: &NodeRows,
        node_weight: f64,
        sorted: Option<&[u32]>,
        ranks: Option<&Ranks>,
        facts: Option<&Facts>,
    ) -> Option<Candidate> {
        if !self.criterion.is_additive() {
            return self.absolute_numeric(feature, value, node, node_weight, sorted, ranks);
        }
        let mut n_missing = 0;
        let mut missing = self.zero_stats();
        let mut tally_missing = |i: usize, x: f64| {
            if x.is_nan() {
                n_missing += 1;
                self.add_row(&mut missing, node, i);
            }
        };
        let gather = |i: usize| -> Option<Known> {
            let r = *node.rows.get(i)? as usize;
            let (w, label) = match facts {
                Some(facts) => facts.get(i)?,
                None => (self.search_weight(r, node.weight(i)?), self.target.label(r)),
            };
            Some(Known {
                x: value(r),
                w,
                label,
            })
        };
        match sorted {
            Some(list) => {
                if list.len() < node.len() {
                    match facts {
                        Some(facts) => {
                            n_missing = self.add_unlisted(list, facts, &mut missing)?;
                        }
                        None => {
                            for (i, &r) in node.rows.iter().enumerate() {
                                tally_missing(i, value(r as usize));
                            }
                        }
                    }
                }
                // Cuts at every change of value, the list's flags: J48's 1e-5 gap makes a
                // difference only on a feature with values closer than that.
                let flags_cut = self.conventions.same_value_gap() == 0.0
                    || self.training_values.is_some_and(|v| v.spaced(feature));
                if let (Some(facts), true) = (facts, flags_cut) {
                    let x_at = |k: usize| {
                        let entry = list.get(k)?;
                        node.rows.get(position(*entry)).map(|&r| value(r as usize))
                    };
                    // One search over whichever gathered form the facts take.
                    macro_rules! known {
                        ($searcher:expr, $facts:expr) => {
                            $searcher.numeric_known(
                                feature,
                                &Steps {
                                    facts: $facts,
                                    list,
                                },
                                x_at,
                                missing,
                                n_missing,
                                node_weight,
                            )
                        };
                    }
                    return match facts {
                        Facts::Weighted(table) => {
                            let facts =
                                gather_list(table, list, self.vec(list.len())?, Fact::NOTHING);
                            known!(self, facts)
                        }
                        Facts::Narrow { w, labels } => {
                            let labels = gather_list(labels, list, self.vec(list.len())?, 0);
                            known!(self, Uniform { w: *w, labels })
                        }
                        Facts::Wide { w, labels } => {
                            let labels = gather_list(labels, list, self.vec(list.len())?, 0);
                            known!(self, Uniform { w: *w, labels })
                        }
                    };
                }
                let mut known = self.vec(list.len())?;
                known.extend(list.iter().filter_map(|&e| gather(position(e))));
                self.numeric_known(
                    feature,
                    known.as_slice(),
                    |k| known.get(k).map(|k| k.x),
                    missing,
                    n_missing,
                    node_weight,
                )
            }
            None => {
                let mut order = self.vec(node.len())?;
                for (i, &r) in node.rows.iter().enumerate() {
                    let x = value(r as usize);
                    tally_missing(i, x);
                    if !x.is_nan() {
                        order.push((x, i));
                    }
                }
                order.sort_unstable_by(|a: &(f64, usize), b| {
                    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
                });
                let mut known = self.vec(order.len())?;
                known.extend(order.into_iter().filter_map(|(_, i)| gather(i)));
                self.numeric_known(
                    feature,
                    known.as_slice(),
                    |k| known.get(k).map(|k| k.x),
                    missing,
                    n_missing,
                    node_weight,
                )
            }
        }
    }

    /// [`Self::numeric`] once the node's known rows are gathered in ascending order;
    /// `x_at(k)` is the value of the `k`-th.
    pub(super) fn numeric_known<S: Sweep + ?Sized>(
        &self,
        feature: usize,
        items: &S,
        x_at: impl Fn(usize) -> Option<f64>,
        missing_stats: Vec<f64>,
        n_missing: usize,
        node_weight: f64,
    ) -> Option<Candidate> {
        if items.len() < 2 && n_missing == 0 {
            return None;
        }
        let sign = self.constraint(feature);
        let scan = self.sweep(
            items,
            items.len(),
            &missing_stats,
            n_missing,
            node_weight,
            sign,
        )?;
        let threshold = match x_at(scan.at) {
            Some(hi) => self.threshold(feature, x_at(scan.at.checked_sub(1)?)?, hi),
            None => KNOWN_VS_MISSING,
        };
        self.numeric_candidate(feature, threshold, items, scan, &missing_stats, node_weight)
    }

    /// The threshold of a cut between adjacent values `lo < hi` of `feature`: their midpoint
    /// (the texts), J48's largest training value not above the midpoint (`usize::MAX`, an
    /// oblique projection, keeps the midpoint: its values are no training values), or
    /// rpart's with `missing="surrogate"` (see [`rpart_threshold`]). J48's conventions come
    /// first, an oblique projection's midpoint included: a training value sends every
    /// training value the side the cut does, so rpart's adjustment (for a value exactly at
    /// the midpoint) has nothing left to decide, and a projection's midpoint stays the one
    /// the other strategies cut at (another branch's row can project exactly onto it).
    pub(super) fn threshold(&self, feature: usize, lo: f64, hi: f64) -> f64 {
        let cut = midpoint(lo, hi);
        if let (Conventions::J48, Some(values)) = (self.conventions, self.training_values) {
            match self.data.columns().get(feature) {
                Some(Column::Numeric(x)) => {
                    return with_numbers!(x, |x| values.at_or_below(feature, x.iter(), cut, lo))
                }
                Some(Column::Sparse(c)) => {
                    return values.at_or_below(feature, (0..c.n_rows).map(|r| c.value(r)), cut, lo)
                }
                _ => {}
            }
        }
        if self.missing == MissingStrategy::Surrogate && self.conventions != Conventions::J48 {
            rpart_threshold(lo, hi)
        } else {
            cut
        }
    }

    /// The best cut of `items` (in ascending value order, `n` rows in all): C4.5's and
    /// CART's scan with the missing rows left out, or, when the strategy places them, each
    /// cut tried with them on the left and on the right, and every known row left with the
    /// missing ones right (scikit-learn's, LightGBM's and XGBoost's learned direction). The
    /// first of equal cuts wins, the missing rows on the right before the left
    /// ([`prefer_missing_right`]). A cut whose sides break the feature's monotonic constraint
    /// `sign` (0: none) is no candidate ([`Searcher::monotone`]).
    pub(super) fn sweep<S: Sweep + ?Sized>(
        &self,
        items: &S,
        n: usize,
        missing_stats: &[f64],
        n_missing: usize,
        node_weight: f64,
        sign: i8,
    ) -> Option<Scan> {
        // The criterion and target are resolved here, once per scan ([`kernel`]). Classes
        // and single-output regression keep their sums in arrays, whose known length lets
        // the per-cut sums and impurities unroll; the arithmetic is the same, so are the
        // trees.
        let scan = (items, n, missing_stats, n_missing, node_weight, sign);
        let width = self.target.stats_width();
        match Which::of(self) {
            Which::Gini => match width {
                2 => self.sweep_in::<S, _, [f64; 2]>(kernel::Gini, scan),
                3 => self.sweep_in::<S, _, [f64; 3]>(kernel::Gini, scan),
                4 => self.sweep_in::<S, _, [f64; 4]>(kernel::Gini, scan),
                5 => self.sweep_in::<S, _, [f64; 5]>(kernel::Gini, scan),
                6 => self.sweep_in::<S, _, [f64; 6]>(kernel::Gini, scan),
                7 => self.sweep_in::<S, _, [f64; 7]>(kernel::Gini, scan),
                8 => self.sweep_in::<S, _, [f64; 8]>(kernel::Gini, scan),
                _ => self.sweep_in::<S, _, Vec<f64>>(kernel::Gini, scan),
            },
            Which::Entropy => match width {
                2 => self.sweep_in::<S, _, [f64; 2]>(kernel::Entropy, scan),
                3 => self.sweep_in::<S, _, [f64; 3]>(kernel::Entropy, scan),
                _ => self.sweep_in::<S, _, Vec<f64>>(kernel::Entropy, scan),
            },
            Which::Variance => {
                let variance = kernel::Variance { shift: self.shift };
                self.sweep_in::<S, _, [f64; 3]>(variance, scan)
            }
            Which::Any => match width {
                2 => self.sweep_in::<S, _, [f64; 2]>(Any(self), scan),
                3 => self.sweep_in::<S, _, [f64; 3]>(Any(self), scan),
                _ => self.sweep_in::<S, _, Vec<f64>>(Any(self), scan),
            },
        }
    }

    /// [`Self::sweep`] with `kernel`'s arithmetic and its sums in `B`s.
    #[allow(clippy::type_complexity)]
    fn sweep_in<S: Sweep + ?Sized, K: Kernel, B: Sums>(
        &self,
        k: K,
        (items, n, missing, n_missing, node_weight, sign): (&S, usize, &[f64], usize, f64, i8),
    ) -> Option<Scan> {
        let width = self.target.stats_width();
        let mut total = B::zeros(width);
        for i in 0..items.len() {
            items.add(k, i, total.as_mut(), 1.0);
        }
        let place = self.places_missing() && n_missing > 0;
        let mut all = total.clone();
        if place {
            add_into(all.as_mut(), missing);
        }
        let scale = self.noise_scale(all.as_ref());
        // The placed scans' whole: its weight and impurity, the same at every cut, and the
        // least each of its sides holds.
        let whole = (k.weight(all.as_ref()), k.impurity(all.as_ref()));
        let least_placed = self.least_side(whole.0, node_weight);
        let base = k.impurity(total.as_ref());
        let impurity_decrease = self.criterion.is_impurity_decrease();
        let kw = k.weight(total.as_ref());
        let j48 = self.conventions == Conventions::J48;
        // C4.5's MINSPLIT on both sides. (C4.5 also asks the node for 2 × MINSPLIT known
        // rows, counted: with unit weights both sides' weights imply it, and counting rows
        // would make a row given twice differ from the row with weight 2.)
        let min_split = self.min_split(kw);
        let least = self
            .least_side(kw, node_weight)
            .with_weight(self.least_objects(min_split));
        let constrained = sign != 0;
        let mut left = B::zeros(width);
        let mut right = total.clone();
        let mut with = B::zeros(width);
        let mut cuts = Cuts {
            distinct: 1,
            tried: 0,
        };
        let gap = self.conventions.same_value_gap();
        let mut best = Best {
            right: None,
            left: None,
            bar: [f64::NEG_INFINITY; 2],
            scale,
            // J48 compares gains, ρ × decrease, with ρ its known share (`1 − unknownRate`).
            j48: j48.then_some(kw / node_weight),
            slack: (impurity_decrease && !j48)
                .then_some(BOUND_SLACK * (base.abs().max(whole.1.abs()) + scale.abs())),
        };
        // Many classes: the sides' figures follow the rows moved, and prove most cuts
        // beaten without reading their classes ([`super::running`]). Where the class
        // factors, the constraints or the placed missing rows need the sums, and for J48's
        // comparisons, the scan reads them at every cut as before.
        let mut running = match k.figure() {
            Some(figure)
                if B::ANY_WIDTH
                    && S::ROWS
                    && width >= RUNNING_WIDTH
                    && best.slack.is_some()
                    && !place
                    && !constrained
                    && self.scales.is_none() =>
            {
                Some(Running::new(figure, left.as_ref(), right.as_ref()))
            }
            _ => None,
        };
        for i in 0..items.len().saturating_sub(1) {
            match running.as_mut() {
                Some(run) => run.shift(k, items, i, left.as_mut(), right.as_mut()),
                None => {
                    items.add(k, i, left.as_mut(), 1.0);
                    items.add(k, i, right.as_mut(), -1.0);
                }
            }
            if !items.cut_after(i, gap) {
                continue;
            }
            cuts.distinct += 1;
            if place {
                for side in 0..2 {
                    let (l, r) = if side == 0 {
                        copy_sum(with.as_mut(), left.as_ref(), missing);
                        (with.as_ref(), right.as_ref())
                    } else {
                        copy_sum(with.as_mut(), right.as_ref(), missing);
                        (left.as_ref(), with.as_ref())
                    };
                    if constrained && !self.monotone(sign, l, r) {
                        continue;
                    }
                    let bar = best.bar(Some(side));
                    if let Some(dec) =
                        self.two_sides_of(k, all.as_ref(), whole, l, r, least_placed, bar)
                    {
                        best.offer(dec, i + 1, Some(side));
                    }
                }
                continue;
            }
            if let Some(run) = running.as_mut() {
                let node = (kw, base);
                match run.verdict(
                    left.as_ref(),
                    right.as_ref(),
                    least.plain(),
                    node,
                    best.limit(),
                ) {
                    Some(Verdict::TooSmall) => continue,
                    Some(Verdict::Beaten) => {
                        cuts.tried += 1;
                        continue;
                    }
                    None => {}
                }
            }
            let (left, right) = (left.as_ref(), right.as_ref());
            let (wl, wr) = (k.weight(left), k.weight(right));
            if !self.holds(left, wl, least)
                || !self.holds(right, wr, least)
                || (constrained && !self.monotone(sign, left, right))
            {
                continue;
            }
            cuts.tried += 1;
            let dec = if impurity_decrease {
                if k.at_most(left, right, (wl, wr), (kw, base), best.bar(None)) {
                    continue;
                }
                base - wl / kw * k.impurity(left) - wr / kw * k.impurity(right)
            } else {
                self.assess(total.as_ref(), &[left, right]).0
            };
            best.offer(dec, i + 1, None);
        }
        if place && items.len() > 0 && self.monotone(sign, total.as_ref(), missing) {
            let bar = best.bar(Some(1));
            let (t, m) = (total.as_ref(), missing);
            if let Some(dec) = self.two_sides_of(k, all.as_ref(), whole, t, m, least_placed, bar) {
                best.offer(dec, items.len(), Some(1));
            }
        }
        let (_, (at, side)) = prefer_missing_right(best.left, best.right, scale)?;
        // The winner's left side, added again in the scan's order with the scan's kernel
        // (the same sums, to the bit): adding it with the searcher's general arithmetic
        // was 5% of the instructions of an exact fit on the flights.
        let mut left = B::zeros(width);
        let rows_left = (0..at).map(|i| items.add(k, i, left.as_mut(), 1.0)).sum();
        Some(Scan {
            at,
            side,
            cuts,
            total: total.as_ref().to_vec(),
            left: left.as_ref().to_vec(),
            rows_left,
            n,
            n_missing,
        })
    }

    /// The candidate of a numeric `feature` cut as `scan` says, at `threshold`.
    pub(super) fn numeric_candidate<S: Sweep + ?Sized>(
        &self,
        feature: usize,
        threshold: f64,
        items: &S,
        scan: Scan,
        missing_stats: &[f64],
        node_weight: f64,
    ) -> Option<Candidate> {
        let Scan {
            at,
            side,
            cuts,
            total,
            left: l,
            rows_left: p,
            n,
            n_missing,
        } = scan;
        // Every known row left: the right side is exactly empty, not the rounding residue of
        // `total − left`.
        let r: Vec<f64> = if at == items.len() {
            self.zero_stats()
        } else {
            total.iter().zip(&l).map(|(t, a)| t - a).collect()
        };
        let mut children = [l, r];
        let mut counts = [p, n - p];
        let (scored, rows) = match side {
            Some(side) => {
                if let (Some(c), Some(k)) = (children.get_mut(side), counts.get_mut(side)) {
                    add_into(c, missing_stats);
                    *k += n_missing;
                }
                let known_weight = self.weight_of(&total);
                let all = sum(&total, missing_stats);
                (
                    all,
                    MissingRows::Placed {
                        child: side,
                        known_weight,
                    },
                )
            }
            None => (total, MissingRows::Left),
        };
        let part = Partition {
            children: &children,
            counts: &counts,
            impurities: None,
        };
        let candidate = self.finish(
            feature,
            SplitRule::Numeric { threshold },
            &scored,
            &part,
            node_weight,
            rows,
        )?;
        self.correct_numeric_gain(candidate, cuts, node_weight)
    }

    /// The quality of dividing the rows `all` into `left` and `right`, all of them scored
    /// (the missing ones placed on a side); `None` if a side is too small.
    pub(super) fn two_sides(
        &self,
        all: &[f64],
        left: &[f64],
        right: &[f64],
        node_weight: f64,
    ) -> Option<f64> {
        let whole = (self.weight_of(all), self.impurity(all));
        let least = self.least_side(whole.0, node_weight);
        self.two_sides_of(Any(self), all, whole, left, right, least, f64::NEG_INFINITY)
    }

    /// [`Self::two_sides`] with `kernel`'s arithmetic, `all`'s weight and impurity and the
    /// least a side holds given (a scan computes them once); also `None` when the quality is
    /// certainly at most `bar` ([`Kernel::at_most`]).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn two_sides_of<K: Kernel>(
        &self,
        k: K,
        all: &[f64],
        (aw, impurity): (f64, f64),
        left: &[f64],
        right: &[f64],
        least: Least,
        bar: f64,
    ) -> Option<f64> {
        let (wl, wr) = (k.weight(left), k.weight(right));
        if !self.holds(left, wl, least) || !self.holds(right, wr, least) {
            return None;
        }
        Some(if self.criterion.is_impurity_decrease() {
            if k.at_most(left, right, (wl, wr), (aw, impurity), bar) {
                return None;
            }
            impurity - wl / aw * k.impurity(left) - wr / aw * k.impurity(right)
        } else {
            self.assess(all, &[left, right]).0
        })
    }

    #[inline]
    pub(super) fn add_row(&self, stats: &mut [f64], node: &NodeRows, i: usize) {
        if let (Some(&r), Some(w)) = (node.rows.get(i), node.weight(i)) {
            self.accumulate(stats, r as usize, w);
        }
    }
}

/// From this many classes on, a scan follows its sides' figures row by row
/// ([`super::running`]) rather than reading every class at every cut.
const RUNNING_WIDTH: usize = 9;

/// The threshold of the split that sends every known value left and the missing ones right:
/// `x <= +∞` holds for every value a tree is given (infinities are refused).
pub(crate) const KNOWN_VS_MISSING: f64 = f64::INFINITY;

/// A scan's best cuts so far, with the missing rows on the right (or not placed) and on the
/// left, each `(decrease, (cut, side))`, and the bar below which a cut certainly does not win
/// ([`Kernel::at_most`]).
struct Best {
    right: Option<(f64, (usize, Option<usize>))>,
    left: Option<(f64, (usize, Option<usize>))>,
    /// Per side (right or not placed, left): the best's decrease plus the noise it must be
    /// beaten by, less `slack`; −∞ while there is no best, or without `slack`.
    bar: [f64; 2],
    scale: f64,
    /// J48's known share ρ, when J48 compares gains (ρ × decrease) its own way.
    j48: Option<f64>,
    /// What [`Kernel::at_most`]'s bars leave for the rounding of a score (`None`: no bars,
    /// for J48 and the criteria that are no impurity decrease).
    slack: Option<f64>,
}

impl Best {
    fn slot(side: Option<usize>) -> usize {
        usize::from(side == Some(0))
    }

    /// What a cut with the missing rows not placed must exceed to replace the best of its
    /// side (by [`improves`]); `None` while there is none.
    fn limit(&self) -> Option<f64> {
        self.right.map(|(b, _)| least_better(b, self.scale))
    }

    #[inline(always)]
    fn bar(&self, side: Option<usize>) -> f64 {
        self.bar
            .get(Self::slot(side))
            .copied()
            .unwrap_or(f64::NEG_INFINITY)
    }

    /// Keeps the cut at `at` (missing rows on `side`) of decrease `dec` if it beats the best
    /// of its side: J48's first cut whose gain beats the best so far (from 0) by 1e-6; the
    /// texts' [`improves`].
    fn offer(&mut self, dec: f64, at: usize, side: Option<usize>) {
        let slot = Self::slot(side);
        let best = if slot == 1 {
            &mut self.left
        } else {
            &mut self.right
        };
        let wins = match self.j48 {
            Some(rho) => (dec - best.map_or(0.0, |(b, _)| b)) * rho > j48::SMALL,
            None => improves(dec, best.map(|(b, _)| b), self.scale),
        };
        if !wins {
            return;
        }
        *best = Some((dec, (at, side)));
        if let (Some(slack), Some(bar)) = (self.slack, self.bar.get_mut(slot)) {
            // A later cut wins only above this ([`better`]'s tolerance at the least).
            *bar = least_better(dec, self.scale) - slack;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::params::TreeParams;

    /// The specialised kernels, with their bounds that skip cuts (and, from
    /// [`RUNNING_WIDTH`] classes on, their running figures), choose the very cut the
    /// searcher's own arithmetic chooses (the scan before kernels): random rows with ties in
    /// value and in score, fractional weights, missing rows placed or left out, Gini,
    /// entropy and squared error.
    #[test]
    fn kernels_choose_the_general_scans_cut() {
        let mut state = 3u64;
        let mut next = |n: u64| {
            state = crate::test_draws::step(state);
            (state >> 33) % n
        };
        let column = vec![0.0; 1];
        let data = Dataset::new(vec![Column::numeric(&column)]).unwrap();
        for case in 0..400u64 {
            let n = 2 + next(300) as usize;
            let n_classes = [2, 3, 4, 5, 9, 17, 60][(case % 7) as usize];
            let distinct = [2, 5, 50, 1000][(case % 4) as usize];
            let mut x: Vec<f64> = (0..n).map(|_| next(distinct) as f64).collect();
            x.sort_by(f64::total_cmp);
            let weights: Vec<f64> = (0..n)
                .map(|_| match case % 3 {
                    0 => 1.0,
                    1 => 0.5 * (1 + next(4)) as f64,
                    _ => (1 + next(1000)) as f64 / 97.0,
                })
                .collect();
            let classes: Vec<u32> = (0..n).map(|_| next(n_classes as u64) as u32).collect();
            let ys: Vec<f64> = (0..n).map(|_| next(20) as f64 * 0.25 - 1.0).collect();
            let missing_strategy = if case % 2 == 0 {
                MissingStrategy::Learned
            } else {
                MissingStrategy::Fractional
            };
            let class_target = Target::Classes {
                codes: &classes,
                n_classes,
            };
            let value_target = Target::Values(&ys);
            for (criterion, target) in [
                (Criterion::Gini, &class_target),
                (Criterion::Entropy, &class_target),
                (Criterion::SquaredError, &value_target),
            ] {
                let params = TreeParams {
                    criterion,
                    missing: missing_strategy,
                    min_samples_leaf: 1 + (case % 3) as usize,
                    ..TreeParams::default()
                };
                let total: f64 = weights.iter().sum();
                let searcher = Searcher::new(&data, target, &params, total).centred_on(0.5);
                let items: Vec<Known> = (0..n)
                    .map(|i| Known {
                        x: x[i],
                        w: weights[i],
                        label: target.label(i),
                    })
                    .collect();
                let n_missing = (case % 5) as usize;
                let mut missing = searcher.zero_stats();
                for i in 0..n_missing {
                    searcher.accumulate(&mut missing, i % n, 0.5 + i as f64);
                }
                let node_weight = total + missing.iter().take(1).sum::<f64>().max(1.0);
                let scan = (
                    items.as_slice(),
                    n,
                    missing.as_slice(),
                    n_missing,
                    node_weight,
                    0i8,
                );
                let general = searcher.sweep_in::<_, _, Vec<f64>>(Any(&searcher), scan);
                let fast = searcher.sweep(items.as_slice(), n, &missing, n_missing, node_weight, 0);
                let key = |s: &Option<Scan>| s.as_ref().map(|s| (s.at, s.side, s.cuts.tried));
                assert_eq!(key(&fast), key(&general), "case {case}, {criterion:?}");
            }
        }
    }

    /// Many classes, two rows each (issue 38's data: every cut between pairs ties under
    /// Gini), side by side or scattered, with unit, fractional and wildly spread weights:
    /// the running figures' scan chooses the general scan's cut, its left side to the bit.
    #[test]
    fn running_figures_choose_the_general_scans_cut() {
        let mut state = 5u64;
        let mut next = |n: u64| {
            state = crate::test_draws::step(state);
            (state >> 33) % n
        };
        let column = vec![0.0; 1];
        let data = Dataset::new(vec![Column::numeric(&column)]).unwrap();
        for case in 0..60u64 {
            let n_classes = [9, 40, 150, 400][(case % 4) as usize];
            let n = 2 * n_classes;
            let mut classes: Vec<u32> = (0..n).map(|i| (i / 2) as u32).collect();
            if case % 2 == 1 {
                for i in (1..n).rev() {
                    classes.swap(i, next(i as u64 + 1) as usize);
                }
            }
            let weights: Vec<f64> = (0..n)
                .map(|_| match case % 3 {
                    0 => 1.0,
                    1 => (1 + next(1000)) as f64 / 97.0,
                    _ => 10f64.powi(next(13) as i32 - 6),
                })
                .collect();
            let target = Target::Classes {
                codes: &classes,
                n_classes,
            };
            for criterion in [Criterion::Gini, Criterion::Entropy, Criterion::GainRatio] {
                let params = TreeParams {
                    criterion,
                    min_samples_leaf: 1 + (case % 5) as usize,
                    ..TreeParams::default()
                };
                let total: f64 = weights.iter().sum();
                let searcher = Searcher::new(&data, &target, &params, total);
                // Positions on a line, some shared (no cut between equal values).
                let items: Vec<Known> = (0..n)
                    .map(|i| Known {
                        x: if case % 5 == 4 {
                            (i / 3) as f64
                        } else {
                            i as f64
                        },
                        w: weights[i],
                        label: target.label(i),
                    })
                    .collect();
                let scan = (items.as_slice(), n, &[][..], 0, total, 0i8);
                let general = searcher.sweep_in::<_, _, Vec<f64>>(Any(&searcher), scan);
                let fast = searcher.sweep(items.as_slice(), n, &[], 0, total, 0);
                let key = |s: &Option<Scan>| {
                    s.as_ref()
                        .map(|s| (s.at, s.cuts.tried, s.cuts.distinct, s.left.clone()))
                };
                assert_eq!(key(&fast), key(&general), "case {case}, {criterion:?}");
            }
        }
    }
}
