//! Categorical features: multiway splits, ordered thresholds and CART subset splits.

use super::*;
use crate::criterion::stats_weight;

impl Searcher<'_, '_> {
    /// Per-category statistics and row counts of the known rows; `codes` yields the code of
    /// each of the node's rows, in order.
    pub(super) fn per_category(
        &self,
        codes: impl Iterator<Item = Option<u32>>,
        k: usize,
        node: &NodeRows,
    ) -> Categories {
        let mut cats = Categories::empty(self, k);
        match (*self.target, self.counts_categories(node)) {
            (Target::Classes { codes: classes, .. }, true) => {
                cats.count_classes(codes, &node.rows, classes);
            }
            _ => self.add_coded(&mut cats, codes, node),
        }
        cats
    }

    /// Whether [`Self::per_category`] counts the node's rows as integers (classes, rows of
    /// weight 1, no class factors): sums that subtract without a rounding residue.
    fn counts_categories(&self, node: &NodeRows) -> bool {
        matches!(self.target, Target::Classes { .. })
            && !self.has_scales()
            && node.all_weights(|w| w == 1.0)
    }

    /// Each usable categorical feature's [`Self::per_category`] sums at the node, counted
    /// with its histograms so that a split's larger child takes them by subtraction
    /// ([`Categories::subtract`]); empty when the rows are not counted as integers, `None`
    /// for a numeric or unusable feature. The search counts a feature without sums itself.
    pub(crate) fn category_counts(
        &self,
        node: &NodeRows,
        usable: &[bool],
    ) -> Vec<Option<Categories>> {
        if !self.counts_categories(node) {
            return Vec::new();
        }
        let columns = self.data.columns();
        let count = |(f, column): (usize, &Column<'_>)| match column {
            Column::Categorical(col) if usable.get(f) == Some(&true) => {
                let codes = node.rows.iter().map(|&r| columns.code(f, r as usize));
                Some(self.per_category(codes, col.n_categories as usize, node))
            }
            _ => None,
        };
        if node.len() >= PARALLEL_ROWS {
            columns.par_iter().enumerate().map(count).collect()
        } else {
            columns.iter().enumerate().map(count).collect()
        }
    }

    /// Adds the rows of `node` (whose codes are `codes`) to `cats`: a fit that sees its rows
    /// batch by batch adds each batch to the same sums, in the same order.
    pub(crate) fn add_to_categories(
        &self,
        cats: &mut Categories,
        codes: &[Option<u32>],
        node: &NodeRows,
    ) {
        self.add_coded(cats, codes.iter().copied(), node);
    }

    fn add_coded(
        &self,
        cats: &mut Categories,
        codes: impl Iterator<Item = Option<u32>>,
        node: &NodeRows,
    ) {
        let width = cats.width;
        for (code, (r, w)) in codes.zip(node.iter()) {
            let slot = code.and_then(|c| {
                let c = c as usize;
                let s = cats.stats.get_mut(c * width..(c + 1) * width)?;
                Some((s, cats.counts.get_mut(c)?))
            });
            match slot {
                Some((s, n)) => {
                    self.accumulate(s, r, w);
                    *n += 1;
                }
                None => {
                    cats.n_missing += 1;
                    self.accumulate(&mut cats.missing_stats, r, w);
                }
            }
        }
    }

    /// One child per category (text 000 Algorithm 4.1); needs two categories present.
    /// Missing rows: left out (C4.5), in the best child (learned) or in a child of their own
    /// after the categories' (separate).
    pub(super) fn multiway(
        &self,
        feature: usize,
        cats: &Categories,
        node_weight: f64,
    ) -> Option<Candidate> {
        let present = cats.present();
        // (J48 with MINOBJS 0 counts such a feature as a split of gain 0: `j48::choose`.)
        if present.len() < 2 {
            return None;
        }
        let k = cats.len();
        let mut children = cats.each().map(<[f64]>::to_vec).collect::<Vec<_>>();
        if !self.places_missing() || cats.n_missing == 0 {
            let part = Partition {
                children: &children,
                counts: &cats.counts,
                impurities: None,
            };
            let rule = SplitRule::Multiway { n_children: k };
            let rows = MissingRows::Left;
            return self.finish(feature, rule, &cats.known(), &part, node_weight, rows);
        }
        let known = cats.known();
        let all = sum(&known, &cats.missing_stats);
        let mut counts = cats.counts.clone();
        let child = if self.missing == MissingStrategy::Separate {
            children.push(cats.missing_stats.clone());
            counts.push(cats.n_missing);
            k
        } else {
            // The child whose known rows the missing ones join best.
            let scale = self.noise_scale(&all);
            let mut best: Option<(usize, f64)> = None;
            for &c in &present {
                let mut trial = children.clone();
                if let Some(s) = trial.get_mut(c) {
                    add_into(s, &cats.missing_stats);
                }
                let (dec, _) =
                    self.assess(&all, &trial.iter().map(Vec::as_slice).collect::<Vec<_>>());
                if improves(dec, best.map(|(_, b)| b), scale) {
                    best = Some((c, dec));
                }
            }
            let (c, _) = best?;
            if let (Some(s), Some(n)) = (children.get_mut(c), counts.get_mut(c)) {
                add_into(s, &cats.missing_stats);
                *n += cats.n_missing;
            }
            c
        };
        let part = Partition {
            children: &children,
            counts: &counts,
            impurities: None,
        };
        let rule = SplitRule::Multiway {
            n_children: children.len(),
        };
        let rows = MissingRows::Placed {
            child,
            known_weight: self.weight_of(&known),
        };
        self.finish(feature, rule, &all, &part, node_weight, rows)
    }

    /// Ordered categories: `code <= k` between adjacent present codes, like a numeric feature.
    pub(super) fn ordered(
        &self,
        feature: usize,
        cats: &Categories,
        node_weight: f64,
    ) -> Option<Candidate> {
        let present = cats.present();
        let sign = self.constraint(feature);
        let (best, _, side) = self.best_two_way(
            cats,
            node_weight,
            present.len(),
            Fill::Grow,
            sign,
            |p, add| {
                present.get(p - 1).into_iter().for_each(|&c| add(c));
            },
        )?;
        // `best` counts the present categories sent left (at least one).
        let threshold = *present.get(best.checked_sub(1)?)?;
        let rule = SplitRule::Ordered {
            threshold: threshold as u32,
        };
        self.two_way_candidate(feature, rule, |c| c <= threshold, cats, node_weight, side)
    }

    /// CART subset split of unordered categories. Two classes and regression: categories
    /// sorted by class-1 share or mean give the optimal split among prefixes (Breiman et al.
    /// 1984, §9.4). More classes, or several outputs: every partition up to
    /// `max_exhaustive_categories` present categories; beyond, a heuristic order (by the share
    /// of the node's majority class; with several outputs, by the first output's).
    pub(super) fn subset(
        &self,
        feature: usize,
        cats: &Categories,
        node_weight: f64,
    ) -> Option<Candidate> {
        if self.conventions == Conventions::J48 && !self.regression() {
            return self.one_against_rest(feature, cats, node_weight);
        }
        let present = cats.present();
        let prefixes_optimal =
            self.target.n_outputs() == 1 && (self.regression() || self.target.stats_width() <= 2);
        let (sides, side) = if !prefixes_optimal && present.len() <= self.max_exhaustive_categories
        {
            // rpart's order (`graycode.c`): the subsets of the present categories below the
            // last code, in reflected Gray-code order (each step moves one category), the
            // last code always right; so that equal scores pick rpart's subset.
            let last = cats.len().saturating_sub(1);
            let movable: Vec<usize> = present.iter().copied().filter(|&c| c < last).collect();
            let n_masks = (1usize << movable.len()) - 1;
            let gray = |m: usize| m ^ (m >> 1);
            let (best, _, side) =
                self.best_two_way(cats, node_weight, n_masks + 1, Fill::Fresh, 0, |m, add| {
                    let mask = gray(m);
                    for (i, &c) in movable.iter().enumerate() {
                        if mask >> i & 1 == 1 {
                            add(c);
                        }
                    }
                })?;
            let mask = gray(best);
            let left: Vec<usize> = (0..movable.len())
                .filter(|&i| mask >> i & 1 == 1)
                .filter_map(|i| movable.get(i).copied())
                .collect();
            (
                sides_of(cats.len(), &present, |i| {
                    present.get(i).is_some_and(|c| left.contains(c))
                }),
                side,
            )
        } else if self.category_limits.any() {
            return self.limited_subset(feature, cats, present, node_weight);
        } else {
            let order = self.category_order(cats, present);
            let (best, _, side) =
                self.best_two_way(cats, node_weight, order.len(), Fill::Grow, 0, |p, add| {
                    order.get(p - 1).into_iter().for_each(|&c| add(c));
                })?;
            (sides_of(cats.len(), &order, |i| i < best), side)
        };
        self.subset_candidate(feature, sides, side, cats, node_weight)
    }

    /// J48's binary split of a nominal attribute (`-B`, Weka's `BinC45Split`): one category
    /// against all the others, child 0 holding it; every category not tested, seen at the
    /// node or not, goes to child 1. The categories are tried in code order, each whose two
    /// sides hold MINOBJS; category 0 is taken if it qualifies, a later one if its ratio beats
    /// the taken one's by more than 1e-6 (from 0). Where some category qualifies but none is
    /// taken, the attribute still counts in J48's average gain, with gain 0 (its candidate
    /// can never be chosen).
    fn one_against_rest(
        &self,
        feature: usize,
        cats: &Categories,
        node_weight: f64,
    ) -> Option<Candidate> {
        let k = cats.len();
        let mut qualified: Option<Candidate> = None;
        let mut taken: Option<Candidate> = None;
        for category in 0..k {
            let mut sides = vec![Side::Right; k];
            if let Some(side) = sides.get_mut(category) {
                *side = Side::Left;
            }
            let rule = SplitRule::Subset { sides };
            let Some(candidate) =
                self.two_way_candidate(feature, rule, |c| c == category, cats, node_weight, None)
            else {
                continue;
            };
            let ratio = candidate.score.score;
            let best = taken.as_ref().map_or(0.0, |t| t.score.score);
            if category == 0 || ratio - best > j48::SMALL {
                taken = Some(candidate);
            } else if qualified.is_none() {
                qualified = Some(candidate);
            }
        }
        taken.or_else(|| {
            qualified.map(|mut c| {
                c.score.score = 0.0;
                c.score.gain = 0.0;
                c
            })
        })
    }

    /// The candidate sending each category to its side in `sides`, the missing rows to
    /// `side` when the search placed them.
    pub(super) fn subset_candidate(
        &self,
        feature: usize,
        sides: Vec<Side>,
        side: Option<usize>,
        cats: &Categories,
        node_weight: f64,
    ) -> Option<Candidate> {
        let (sides, side) = canonical(sides, side);
        let in_left = |c: usize| sides.get(c) == Some(&Side::Left);
        let rule = SplitRule::Subset {
            sides: sides.clone(),
        };
        self.two_way_candidate(feature, rule, in_left, cats, node_weight, side)
    }

    /// [`Self::subset`] under LightGBM's regularisers ([`crate::params::CategoryLimits`]): the categories of
    /// at least `smooth` rows in their smoothed order, the others always on the right; the
    /// prefixes of at most `max_threshold` categories from either end (one end without it)
    /// whose groups and sides hold `min_group` rows, scored with `l2` rows of the node's
    /// distribution added to each side. The missing rows, when placed, are tried right
    /// then left.
    fn limited_subset(
        &self,
        feature: usize,
        cats: &Categories,
        present: Vec<usize>,
        node_weight: f64,
    ) -> Option<Candidate> {
        let limits = self.category_limits;
        let rows = |c: usize| cats.counts.get(c).copied().unwrap_or(0); // c is present: never read
        let (sortable, rare): (Vec<usize>, Vec<usize>) = present
            .into_iter()
            .partition(|&c| rows(c) as f64 >= limits.smooth);
        let order = self.smoothed_order(cats, sortable, limits.smooth);
        let used = order.len();
        // Every sortable category on the left is a split only when some rare one is right.
        let most = if rare.is_empty() {
            used.saturating_sub(1)
        } else {
            used
        };
        let (most, ends) = match limits.max_threshold {
            Some(m) => (most.min(m).min(used.div_ceil(2)), 2),
            None => (most, 1),
        };
        let known = cats.known();
        let known_w = self.weight_of(&known);
        let known_rows: usize = cats.counts.iter().sum();
        let least = self.least_side(known_w, node_weight);
        let place = self.places_missing() && cats.n_missing > 0;
        let all = sum(&known, &cats.missing_stats);
        let scale = self.noise_scale(if place { &all } else { &known });
        let pseudo: Vec<f64> = if limits.l2 > 0.0 && known_w > 0.0 {
            known.iter().map(|x| x * limits.l2 / known_w).collect()
        } else {
            self.zero_stats()
        };
        let score = |l: &[f64], r: &[f64]| -> f64 {
            let (l, r) = (sum(l, &pseudo), sum(r, &pseudo));
            self.assess(&sum(&l, &r), &[&l, &r]).0
        };
        // (score, (end of the order, categories left, side of the missing rows)).
        type Prefix = (usize, usize, Option<usize>);
        let mut best: Option<(f64, Prefix)> = None;
        for end in 0..ends {
            let at = |t: usize| {
                if end == 0 {
                    order.get(t)
                } else {
                    order.get(used - 1 - t)
                }
            };
            let mut left = self.zero_stats();
            let (mut left_rows, mut group) = (0, 0);
            for t in 1..=most {
                let Some(&c) = at(t - 1) else { break };
                if let Some(s) = cats.stat(c) {
                    add_into(&mut left, s);
                }
                left_rows += rows(c);
                group += rows(c);
                let right: Vec<f64> = known.iter().zip(&left).map(|(k, l)| k - l).collect();
                if known_rows - left_rows < limits.min_group {
                    break;
                }
                if group < limits.min_group {
                    continue;
                }
                let sides: &[Option<usize>] = if place { &[Some(1), Some(0)] } else { &[None] };
                let mut scored = false;
                for &side in sides {
                    let (mut l, mut r) = (left.clone(), right.clone());
                    match side {
                        Some(0) => add_into(&mut l, &cats.missing_stats),
                        Some(_) => add_into(&mut r, &cats.missing_stats),
                        None => {}
                    }
                    let (wl, wr) = (self.weight_of(&l), self.weight_of(&r));
                    if !self.holds(&l, wl, least) || !self.holds(&r, wr, least) {
                        continue;
                    }
                    scored = true;
                    let q = score(&l, &r);
                    if improves(q, best.map(|(b, _)| b), scale) {
                        best = Some((q, (end, t, side)));
                    }
                }
                if scored {
                    group = 0;
                }
            }
        }
        let (_, (end, t, side)) = best?;
        let mut listed = order;
        if end == 1 {
            listed.reverse();
        }
        listed.extend(rare);
        let sides = sides_of(cats.len(), &listed, |i| i < t);
        self.subset_candidate(feature, sides, side, cats, node_weight)
    }

    /// Categories in [`Self::category_order`]'s order of keys smoothed toward the node's by
    /// `smooth` rows' weight, `(s + m·p) / (w + m)` (no smoothing: that order exactly).
    fn smoothed_order(&self, cats: &Categories, order: Vec<usize>, smooth: f64) -> Vec<usize> {
        if smooth == 0.0 {
            return self.category_order(cats, order);
        }
        let layout = self.target.layout();
        let regression = self.regression();
        let known = cats.known();
        let first = layout.first_output(&known);
        let part = self.order_part(first);
        // `order` holds categories of `cats` and `part` indexes an output's statistics (as in
        // [`Self::category_order`]): the defaults are never read.
        let node_key = first.get(part).copied().unwrap_or(0.0) / stats_weight(first, regression);
        let key = |c: usize| -> f64 {
            let s = cats.stat(c).unwrap_or(&[]);
            let s = layout.first_output(s);
            let w = stats_weight(s, regression);
            (s.get(part).copied().unwrap_or(0.0) + smooth * node_key) / (w + smooth)
        };
        sorted_by_key(order, key)
    }

    /// The statistic categories are ordered by: y's sum (regression), class 0 (two classes),
    /// or the node's majority class.
    fn order_part(&self, first: &[f64]) -> usize {
        if self.regression() {
            1
        } else if first.len() == 2 {
            0
        } else {
            crate::labels::majority(first, None) as usize
        }
    }

    /// Present categories sorted by class-0 share (two classes), mean (regression) or share of
    /// the node's majority class (the heuristic beyond exhaustive search), ascending: the
    /// orders of rpart's `gini.c` and `anova.c` (equal keys by code), so that equal scores
    /// pick rpart's subset. With several outputs, the first output's.
    fn category_order(&self, cats: &Categories, order: Vec<usize>) -> Vec<usize> {
        let layout = self.target.layout();
        let regression = self.regression();
        let known = cats.known();
        let first = layout.first_output(&known);
        let part = self.order_part(first);
        // `order` holds categories of `cats` and `part` indexes an output's statistics
        // ([`Self::order_part`]): the defaults are never read.
        let key = |c: usize| -> f64 {
            let s = cats.stat(c).unwrap_or(&[]);
            let s = layout.first_output(s);
            s.get(part).copied().unwrap_or(0.0) / stats_weight(s, regression)
        };
        // Keys rounded to 12 significant digits: categories whose shares differ only by
        // rounding noise sort by code, so the split does not depend on summation order.
        sorted_by_key(order, |c| round_significant(key(c)))
    }

    /// The best of `n - 1` two-way candidates `1..n`: `fill(i, add)` calls `add(c)` for each
    /// category `c` that candidate `i` sends left (with [`Fill::Grow`], only those it adds to
    /// candidate `i - 1`'s). Returns the winner, its decrease and, when the search places the
    /// missing rows (learned, separate), their side; the first of equals wins (the missing rows on the right before the left,
    /// [`prefer_missing_right`]). Placing
    /// strategies also try candidate `n`: every present category left, the missing rows right.
    /// Candidates that break the monotonic constraint `sign` (0: none) are skipped.
    #[allow(clippy::too_many_arguments)]
    fn best_two_way(
        &self,
        cats: &Categories,
        node_weight: f64,
        n: usize,
        mode: Fill,
        sign: i8,
        fill: impl Fn(usize, &mut dyn FnMut(usize)),
    ) -> Option<(usize, f64, Option<usize>)> {
        let known = cats.known();
        let known_w = self.weight_of(&known);
        let least = self.least_side(known_w, node_weight);
        let place = self.places_missing() && cats.n_missing > 0;
        let all = sum(&known, &cats.missing_stats);
        let scale = self.noise_scale(if place { &all } else { &known });
        // (decrease, (candidate, side)): the missing rows right or not placed, and left.
        let mut best: Option<(f64, (usize, Option<usize>))> = None;
        let mut best_left: Option<(f64, (usize, Option<usize>))> = None;
        let mut left = self.zero_stats();
        let mut with = self.zero_stats();
        // Refilled for each candidate: one buffer, not an allocation per candidate (a
        // feature of thousands of categories has as many candidates at every node).
        let mut right = self.zero_stats();
        let last = if place { n } else { n.saturating_sub(1) };
        for i in 1..=last {
            if mode == Fill::Fresh {
                left.iter_mut().for_each(|l| *l = 0.0);
            }
            fill(i, &mut |c| {
                if let Some(s) = cats.stat(c) {
                    left.iter_mut().zip(s).for_each(|(l, x)| *l += x);
                }
            });
            // Candidate `n` sends every known row left: its right side is exactly empty.
            if i == n {
                right.iter_mut().for_each(|r| *r = 0.0);
            } else {
                right
                    .iter_mut()
                    .zip(known.iter().zip(&left))
                    .for_each(|(r, (t, l))| *r = t - l);
            }
            if place {
                for side in 0..2 {
                    let (l, r) = if side == 0 {
                        copy_sum(&mut with, &left, &cats.missing_stats);
                        (&with, &right)
                    } else {
                        copy_sum(&mut with, &right, &cats.missing_stats);
                        (&left, &with)
                    };
                    if !self.monotone(sign, l, r) {
                        continue;
                    }
                    let slot = if side == 0 { &mut best_left } else { &mut best };
                    if let Some(dec) = self.two_sides(&all, l, r, node_weight) {
                        if improves(dec, slot.map(|(b, _)| b), scale) {
                            *slot = Some((dec, (i, Some(side))));
                        }
                    }
                }
                continue;
            }
            let (wl, wr) = (self.weight_of(&left), self.weight_of(&right));
            if !self.holds(&left, wl, least)
                || !self.holds(&right, wr, least)
                || !self.monotone(sign, &left, &right)
            {
                continue;
            }
            let (dec, _) = self.assess(&known, &[&left, &right]);
            if improves(dec, best.map(|(b, _)| b), scale) {
                best = Some((dec, (i, None)));
            }
        }
        prefer_missing_right(best_left, best, scale).map(|(dec, (i, side))| (i, dec, side))
    }

    /// A two-child candidate from per-category statistics and the side of each category.
    pub(super) fn two_way_candidate(
        &self,
        feature: usize,
        rule: SplitRule,
        in_left: impl Fn(usize) -> bool,
        cats: &Categories,
        node_weight: f64,
        side: Option<usize>,
    ) -> Option<Candidate> {
        let width = self.target.stats_width();
        let mut children = [vec![0.0; width], vec![0.0; width]];
        let mut counts = [0usize; 2];
        for (c, (s, n)) in cats.each().zip(&cats.counts).enumerate() {
            let side = usize::from(!in_left(c));
            if let (Some(child), Some(slot)) = (children.get_mut(side), counts.get_mut(side)) {
                child.iter_mut().zip(s).for_each(|(a, x)| *a += x);
                *slot += n;
            }
        }
        let known = cats.known();
        let (scored, rows) = match side {
            Some(side) => {
                if let (Some(c), Some(n)) = (children.get_mut(side), counts.get_mut(side)) {
                    add_into(c, &cats.missing_stats);
                    *n += cats.n_missing;
                }
                let rows = MissingRows::Placed {
                    child: side,
                    known_weight: self.weight_of(&known),
                };
                (sum(&known, &cats.missing_stats), rows)
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
}

/// How [`Searcher::best_two_way`] builds each candidate's left side.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// Each candidate extends the previous one (prefixes of an order).
    Grow,
    /// Each candidate is built from nothing (subset masks).
    Fresh,
}

/// Known-row statistics of a categorical feature at a node.
#[derive(Debug, Clone)]
pub(crate) struct Categories {
    /// Statistics of each category's known rows, `width` numbers per category, in one
    /// buffer: a feature of thousands of categories is summed at every node, and a vector
    /// per category was the histogram fit's main cost on such data (its allocations).
    stats: Vec<f64>,
    width: usize,
    /// Known rows of each category.
    counts: Vec<usize>,
    /// Rows whose value is missing (or an unseen category).
    pub(super) n_missing: usize,
    /// Statistics of those rows.
    missing_stats: Vec<f64>,
}

impl Categories {
    /// No rows yet, for `k` categories.
    pub(crate) fn empty(searcher: &Searcher<'_, '_>, k: usize) -> Categories {
        let width = searcher.target.stats_width();
        Categories {
            stats: vec![0.0; k * width],
            width,
            counts: vec![0; k],
            n_missing: 0,
            missing_stats: searcher.zero_stats(),
        }
    }

    /// Rows of each category, then the missing rows: by the codes a split's routing table
    /// reads (`stream::turns`).
    pub(crate) fn rows_by_code(&self) -> Vec<f64> {
        let known = self.counts.iter().map(|&n| n as f64);
        known.chain([self.n_missing as f64]).collect()
    }

    /// The sums as numbers, for sending between processes (see [`Self::read_from`]).
    pub(crate) fn write_to(&self, out: &mut Vec<f64>) {
        for (s, &n) in self.each().zip(&self.counts) {
            out.extend_from_slice(s);
            out.push(n as f64);
        }
        out.extend_from_slice(&self.missing_stats);
        out.push(self.n_missing as f64);
    }

    /// Reads what [`Self::write_to`] wrote into `self`'s shape; `None` when too short.
    pub(crate) fn read_from(&mut self, input: &mut impl Iterator<Item = f64>) -> Option<()> {
        let width = self.width.max(1);
        for (s, n) in self
            .stats
            .chunks_exact_mut(width)
            .zip(self.counts.iter_mut())
        {
            for x in s.iter_mut() {
                *x = input.next()?;
            }
            *n = input.next()? as usize;
        }
        for x in self.missing_stats.iter_mut() {
            *x = input.next()?;
        }
        self.n_missing = input.next()? as usize;
        Some(())
    }

    /// Adds `other`'s sums (the rows of another partition) to `self`'s.
    pub(crate) fn merge(&mut self, other: &Categories) {
        self.stats
            .iter_mut()
            .zip(&other.stats)
            .for_each(|(a, b)| *a += b);
        self.counts
            .iter_mut()
            .zip(&other.counts)
            .for_each(|(n, m)| *n += m);
        self.missing_stats
            .iter_mut()
            .zip(&other.missing_stats)
            .for_each(|(a, b)| *a += b);
        self.n_missing += other.n_missing;
    }

    /// The categories with known rows at the node, ascending.
    pub(super) fn present(&self) -> Vec<usize> {
        (0..self.counts.len())
            .filter(|&c| self.counts.get(c).is_some_and(|&n| n > 0))
            .collect()
    }

    /// Adds rows of weight 1 (no class factors) of classes `classes[r]`, counted as integers:
    /// the sums of ones [`Searcher::add_to_categories`] adds, to the bit, without a float add
    /// and a weight per row (a node's categorical sums are taken once per feature).
    fn count_classes(
        &mut self,
        codes: impl Iterator<Item = Option<u32>>,
        rows: &[u32],
        classes: &[u32],
    ) {
        let width = self.width;
        let k = self.counts.len();
        let mut counts = vec![0u32; self.stats.len() + width];
        let mut missing = 0usize;
        for (code, &r) in codes.zip(rows) {
            let (slot, known) = match code.map(|c| c as usize).filter(|&c| c < k) {
                Some(c) => (c, true),
                None => (k, false),
            };
            if known {
                if let Some(n) = self.counts.get_mut(slot) {
                    *n += 1;
                }
            } else {
                missing += 1;
            }
            // Rows are the target's, so `width` (no class: not counted) is never read.
            let class = classes.get(r as usize).map_or(width, |&c| c as usize);
            if class < width {
                if let Some(n) = counts.get_mut(slot * width + class) {
                    *n += 1;
                }
            }
        }
        self.n_missing += missing;
        let (known, absent) = counts.split_at(self.stats.len());
        for (s, &n) in self.stats.iter_mut().zip(known) {
            *s += f64::from(n);
        }
        for (s, &n) in self.missing_stats.iter_mut().zip(absent) {
            *s += f64::from(n);
        }
    }

    /// `self` (a parent's) less `child`'s sums, in place: the sibling's when each of the
    /// parent's rows went to one child. Exact for the integer counts
    /// [`Searcher::category_counts`] keeps; `None` when the two are not of one shape.
    pub(crate) fn subtract(mut self, child: &Categories) -> Option<Categories> {
        let same = self.width == child.width
            && self.stats.len() == child.stats.len()
            && self.counts.len() == child.counts.len()
            && self.missing_stats.len() == child.missing_stats.len();
        if !same {
            return None;
        }
        let pairs = self.stats.iter_mut().zip(&child.stats);
        for (s, c) in pairs.chain(self.missing_stats.iter_mut().zip(&child.missing_stats)) {
            *s -= c;
        }
        for (n, c) in self.counts.iter_mut().zip(&child.counts) {
            *n = n.checked_sub(*c)?;
        }
        self.n_missing = self.n_missing.checked_sub(child.n_missing)?;
        Some(self)
    }

    /// Bytes held (a node's histograms are kept within a memory budget).
    pub(crate) fn bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + std::mem::size_of_val(self.stats.as_slice())
            + std::mem::size_of_val(self.counts.as_slice())
            + std::mem::size_of_val(self.missing_stats.as_slice())
    }

    /// How many categories the feature has.
    pub(super) fn len(&self) -> usize {
        self.counts.len()
    }

    /// The statistics of category `c`'s known rows.
    pub(super) fn stat(&self, c: usize) -> Option<&[f64]> {
        self.stats.get(c * self.width..(c + 1) * self.width)
    }

    /// Every category's statistics, by code.
    fn each(&self) -> std::slice::ChunksExact<'_, f64> {
        self.stats.chunks_exact(self.width.max(1))
    }

    fn known(&self) -> Vec<f64> {
        let mut total = vec![0.0; self.width];
        for s in self.each() {
            total.iter_mut().zip(s).for_each(|(t, x)| *t += x);
        }
        total
    }
}

/// `categories` sorted by `key`, equal keys by code. Each key is computed once: a key sums a
/// category's statistics, and with thousands of categories of thousands of classes, keys
/// recomputed in every comparison were the fit's whole cost.
fn sorted_by_key(categories: Vec<usize>, key: impl Fn(usize) -> f64) -> Vec<usize> {
    let mut keyed: Vec<(f64, usize)> = categories.into_iter().map(|c| (key(c), c)).collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    keyed.into_iter().map(|(_, c)| c).collect()
}

/// A subset split and its mirror image are the same test: the side holding the lowest present
/// code is always child 0 (`side`, where the missing rows go, mirrored with it), so the tree
/// never depends on which one a scan met first (row order, or noise in tied shares).
pub(super) fn canonical(sides: Vec<Side>, side: Option<usize>) -> (Vec<Side>, Option<usize>) {
    if sides.iter().find(|s| **s != Side::Unseen) != Some(&Side::Right) {
        return (sides, side);
    }
    let mirrored = sides
        .iter()
        .map(|s| match s {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
            Side::Unseen => Side::Unseen,
        })
        .collect();
    (mirrored, side.map(|s| 1 - s))
}

/// A subset mask: `listed[i]` goes left where `in_left(i)`, right otherwise; categories not
/// listed (absent from the node) are `Unseen`.
pub(super) fn sides_of(k: usize, listed: &[usize], in_left: impl Fn(usize) -> bool) -> Vec<Side> {
    let mut sides = vec![Side::Unseen; k];
    for (i, &c) in listed.iter().enumerate() {
        if let Some(s) = sides.get_mut(c) {
            *s = if in_left(i) { Side::Left } else { Side::Right };
        }
    }
    sides
}
