//! Weighted medians and absolute deviations, the figures of the absolute-error criterion: of a
//! list of rows (a node's prediction and impurity), and of a set of ranked rows that grows
//! and shrinks during a threshold scan (a Fenwick tree, as scikit-learn 1.9's MAE criterion
//! keeps it: `sklearn/tree/_criterion.pyx`, `_utils.pyx`).

/// Cumulative weights this close to half the total (relative to it) are exactly half: the
/// median then lies between two values (see [`absolute_error`]). Far above the rounding of a
/// sum of weights, far below any difference of weights that matters.
const HALF_TOLERANCE: f64 = 1e-9;

/// The weighted median of `rows` (`(y, w)`, reordered by y) and their mean absolute deviation
/// from it, Σw·|y − m| / Σw; `None` for rows without weight.
///
/// The median is scikit-learn's (1.9): the least y at which the cumulative weight, in
/// ascending y, exceeds half the total; where it reaches exactly half at some y, the midpoint
/// of that y and the next. Any point between those two minimises the deviation, so the
/// deviation does not depend on the choice.
pub fn absolute_error(rows: &mut [(f64, f64)]) -> Option<(f64, f64)> {
    rows.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = rows.iter().map(|(_, w)| w).sum();
    if total <= 0.0 {
        return None;
    }
    let half = 0.5 * total;
    let mut cumulative = 0.0;
    let mut median = rows.last()?.0;
    for (i, &(y, w)) in rows.iter().enumerate() {
        cumulative += w;
        if (cumulative - half).abs() <= HALF_TOLERANCE * total {
            let next = rows.get(i + 1..)?.iter().find(|(_, w)| *w > 0.0);
            median = next.map_or(y, |&(up, _)| y / 2.0 + up / 2.0);
            break;
        }
        if cumulative > half {
            median = y;
            break;
        }
    }
    let deviation: f64 = rows.iter().map(|&(y, w)| w * (y - median).abs()).sum();
    Some((median, deviation / total))
}

/// Sums of weights and of weighted targets over ranks `0..n` of a node's sorted targets, in a
/// Fenwick tree: adding a row at its rank and finding where the cumulative weight crosses
/// half the total both take O(log n), so the absolute error of a changing set of rows is at
/// hand after each change. Changes made while [`Self::journal`] is on can be undone exactly.
#[derive(Debug, Default)]
pub(crate) struct Fenwick {
    /// 1-based: entry `i` sums the ranks `i − lowbit(i) .. i` (0-based, end excluded).
    w: Vec<f64>,
    wy: Vec<f64>,
    /// The highest power of two not above `n`, where the descent starts.
    top: usize,
    total_w: f64,
    total_wy: f64,
    /// Entries and totals as they were before each journaled change, to undo them.
    journal: Option<Vec<(u32, f64, f64)>>,
    saved_totals: (f64, f64),
}

impl Fenwick {
    /// An empty tree over ranks `0..n`, reusing this one's memory.
    pub(crate) fn reset(&mut self, n: usize) {
        self.w.clear();
        self.w.resize(n + 1, 0.0);
        self.wy.clear();
        self.wy.resize(n + 1, 0.0);
        self.top = if n == 0 { 0 } else { 1 << n.ilog2() };
        self.total_w = 0.0;
        self.total_wy = 0.0;
        self.journal = None;
    }

    /// Adds a row of weight `w` and target `y` at `rank`.
    #[inline]
    pub(crate) fn add(&mut self, rank: usize, y: f64, w: f64) {
        let wy = w * y;
        let mut i = rank + 1;
        while let (Some(a), Some(b)) = (self.w.get_mut(i), self.wy.get_mut(i)) {
            if let Some(journal) = self.journal.as_mut() {
                journal.push((i as u32, *a, *b));
            }
            *a += w;
            *b += wy;
            i += i & i.wrapping_neg();
        }
        self.total_w += w;
        self.total_wy += wy;
    }

    /// Starts recording changes so that [`Self::undo`] can take them back.
    pub(crate) fn journal(&mut self) {
        self.journal = Some(Vec::new());
        self.saved_totals = (self.total_w, self.total_wy);
    }

    /// Restores the tree as it was at [`Self::journal`], bit for bit, and stops recording.
    pub(crate) fn undo(&mut self) {
        if let Some(journal) = self.journal.take() {
            for &(i, a, b) in journal.iter().rev() {
                if let (Some(w), Some(wy)) =
                    (self.w.get_mut(i as usize), self.wy.get_mut(i as usize))
                {
                    *w = a;
                    *wy = b;
                }
            }
            (self.total_w, self.total_wy) = self.saved_totals;
        }
    }

    /// The rank of the rows' weighted median (the first rank where the cumulative weight
    /// passes half the total) and the sums of weight and weighted target below it.
    fn median_rank(&self) -> (usize, f64, f64) {
        self.rank_passing(0.5 * self.total_w)
    }

    /// The first rank where the cumulative weight passes `target`, and the sums of weight
    /// and weighted target below it.
    fn rank_passing(&self, target: f64) -> (usize, f64, f64) {
        let (mut pos, mut rest) = (0, target);
        let (mut w_below, mut wy_below) = (0.0, 0.0);
        let mut step = self.top;
        while step > 0 {
            if let (Some(&w), Some(&wy)) = (self.w.get(pos + step), self.wy.get(pos + step)) {
                if w <= rest {
                    pos += step;
                    rest -= w;
                    w_below += w;
                    wy_below += wy;
                }
            }
            step >>= 1;
        }
        (pos, w_below, wy_below)
    }

    /// The weighted median of the rows added, as a target value (`sorted` holds the targets
    /// by rank); the upper of the two middle values where the weight splits exactly in half.
    /// No rows: 0.0 (here and below), as for a node without weight.
    pub(crate) fn median(&self, sorted: &[f64]) -> f64 {
        let (rank, _, _) = self.median_rank();
        let last = sorted.len().saturating_sub(1);
        sorted.get(rank.min(last)).copied().unwrap_or(0.0)
    }

    /// The weighted median of the rows added as [`absolute_error`] gives it for a node's
    /// value: the midpoint of the two middle values where the cumulative weight reaches half
    /// the total (within [`HALF_TOLERANCE`]), where [`Self::median`] takes the upper one.
    /// Monotonic constraints compare the values the children will hold, so they need this one.
    pub(crate) fn node_median(&self, sorted: &[f64]) -> f64 {
        let (half, slack) = (0.5 * self.total_w, HALF_TOLERANCE * self.total_w);
        let (first, _, _) = self.rank_passing(half - slack);
        let (next, _, _) = self.rank_passing(half + slack);
        let y = sorted.get(first).copied().unwrap_or(0.0);
        match sorted.get(next) {
            Some(&up) if next != first => y / 2.0 + up / 2.0,
            _ => y,
        }
    }

    /// Σw·|y − m| over the rows added, m their weighted median: by the pinball identity
    /// (Σ_{y≥m} w·y − m·Σ_{y≥m} w) + (m·Σ_{y<m} w − Σ_{y<m} w·y), from the sums below m.
    pub(crate) fn absolute_error(&self, sorted: &[f64]) -> f64 {
        if self.total_w <= 0.0 {
            return 0.0;
        }
        let (rank, w_below, wy_below) = self.median_rank();
        let last = sorted.len().saturating_sub(1);
        let m = sorted.get(rank.min(last)).copied().unwrap_or(0.0);
        let above = (self.total_wy - wy_below) - m * (self.total_w - w_below);
        let below = m * w_below - wy_below;
        (above + below).max(0.0)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
    }

    /// A generator of numbers in [0, 1) from `state`.
    fn uniform(mut state: u64) -> impl FnMut() -> f64 {
        move || {
            state = crate::test_draws::step(state);
            (state >> 33) as f64 / (1u64 << 31) as f64
        }
    }

    /// Each row's rank by y (ties by position) and the targets by rank.
    fn ranked(rows: &[(f64, f64)]) -> (Vec<usize>, Vec<f64>) {
        let mut by_y: Vec<usize> = (0..rows.len()).collect();
        by_y.sort_by(|&a, &b| rows[a].0.total_cmp(&rows[b].0).then(a.cmp(&b)));
        let mut rank = vec![0; rows.len()];
        for (k, &i) in by_y.iter().enumerate() {
            rank[i] = k;
        }
        (rank, by_y.iter().map(|&i| rows[i].0).collect())
    }

    #[test]
    fn median_and_deviation_by_hand() {
        // scikit-learn's test_mae: y = 6, 7, 3, 4, 3 with weights 0.6, 0.3, 0.1, 1.0, 0.3.
        // Sorted: 3 (0.1), 3 (0.3), 4 (1.0), 6 (0.6), 7 (0.3); half of 2.3 is 1.15, first
        // passed at y = 4. Σw|y − 4| = 0.1 + 0.3 + 0 + 1.2 + 0.9 = 2.5.
        let mut rows = [(6.0, 0.6), (7.0, 0.3), (3.0, 0.1), (4.0, 1.0), (3.0, 0.3)];
        let (m, d) = absolute_error(&mut rows).unwrap();
        assert_eq!(m, 4.0);
        assert!(close(d, 2.5 / 2.3));
        // Unit weights 6, 3: half the weight (1) reached exactly at 3, so the midpoint 4.5;
        // deviation (1.5 + 1.5) / 2.
        assert_eq!(
            absolute_error(&mut [(6.0, 1.0), (3.0, 1.0)]),
            Some((4.5, 1.5))
        );
        // 3, 3, 4, 6, 7: the middle one; Σ|y − 4| = 1 + 1 + 0 + 2 + 3 = 7, / 5 = 1.4 exactly.
        let mut five = [(6.0, 1.0), (7.0, 1.0), (3.0, 1.0), (4.0, 1.0), (3.0, 1.0)];
        assert_eq!(absolute_error(&mut five), Some((4.0, 1.4)));
        // A tie on equal values: 1, 2, 2, 3 → half at the first 2, midpoint of 2 and 2.
        let mut tied = [(1.0, 1.0), (2.0, 1.0), (2.0, 1.0), (3.0, 1.0)];
        assert_eq!(absolute_error(&mut tied), Some((2.0, 0.5)));
        // Weights that halve exactly only in decimal: 0.1 + 0.2 against 0.3 → midpoint.
        let mut decimal = [(1.0, 0.1), (2.0, 0.2), (5.0, 0.3)];
        assert_eq!(absolute_error(&mut decimal).unwrap().0, 3.5);
        assert_eq!(absolute_error(&mut []), None);
    }

    /// The tree's deviation equals the direct sum and its node median the node's value for
    /// every prefix of random weighted rows, ties included, and undo restores it bit for bit.
    #[test]
    fn fenwick_matches_direct_sums() {
        let mut next = uniform(7);
        // Unit weights: exact halves, where the node median is a midpoint.
        let sizes = [1usize, 2, 3, 7, 64, 200];
        let cases = sizes
            .iter()
            .map(|&n| (n, false))
            .chain([(2, true), (50, true)]);
        for (n, unit) in cases {
            let rows: Vec<(f64, f64)> = (0..n)
                .map(|_| {
                    let y = (next() * 10.0).floor();
                    (y, if unit { 1.0 } else { 0.1 + next() })
                })
                .collect();
            let (rank, sorted) = ranked(&rows);
            let mut tree = Fenwick::default();
            tree.reset(n);
            for i in 0..n {
                tree.add(rank[i], rows[i].0, rows[i].1);
                let mut prefix = rows[..=i].to_vec();
                let w: f64 = prefix.iter().map(|r| r.1).sum();
                let (median, mad) = absolute_error(&mut prefix).unwrap();
                assert!(close(tree.absolute_error(&sorted), mad * w), "n {n}, i {i}");
                assert_eq!(tree.node_median(&sorted), median, "n {n}, i {i}");
            }
            let before = (
                tree.w.clone(),
                tree.wy.clone(),
                tree.absolute_error(&sorted),
            );
            tree.journal();
            tree.add(rank[0], rows[0].0, 3.0);
            tree.undo();
            assert_eq!((tree.w.clone(), tree.wy.clone()), (before.0, before.1));
            assert_eq!(tree.absolute_error(&sorted), before.2);
        }
    }

    #[test]
    fn median_rank_skips_empty_ranks() {
        // Ranks 0..4 hold 1, 2, 3, 4; only 2 and 4 added: half the weight is reached at 2, so
        // the descent stops at the next added rank, 4 (empty rank 2 skipped); Σ|y − 4| = 2.
        let sorted = [1.0, 2.0, 3.0, 4.0];
        let mut tree = Fenwick::default();
        tree.reset(4);
        tree.add(1, 2.0, 1.0);
        tree.add(3, 4.0, 1.0);
        assert_eq!(tree.median(&sorted), 4.0);
        assert_eq!(tree.absolute_error(&sorted), 2.0);
        // 2, 4, 4: the median is 4.
        tree.add(3, 4.0, 1.0);
        assert_eq!(tree.median(&sorted), 4.0);
        assert_eq!(tree.absolute_error(&sorted), 2.0);
    }
}
