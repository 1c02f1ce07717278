//! Sparse numeric columns ([`SparseColumn`], a CSC matrix's columns) in the exact search.
//!
//! A node lists only a sparse feature's stored values ([`Entry`]), sorted once per fit and
//! handed down as the dense lists are ([`super::presort`]); the rows holding a zero form one
//! block between the negative and the positive values, which no threshold splits (scikit-learn's
//! sparse splitter places its zeros the same way). The scan then walks the stored values and
//! the zero block as one item, so a node costs its stored values, not its rows.
//!
//! The trees equal the dense fit of `X.toarray()` byte for byte. The zero block's statistics
//! are the node's minus the stored values' only where that subtraction is exact: class
//! weights that are whole numbers (unit or integer sample weights) summing below 2^53, where
//! every order of summation gives the same bits. Elsewhere (regression, fractional weights)
//! the dense scan's sums depend on their order, so the zero rows are read one by one, in the
//! dense order: that node then costs its rows, as the dense search does, and never a dense
//! copy of the column.

use super::kernel::Kernel;
use super::sweep::{Known, Sweep};
use super::{Candidate, NodeRows, Searcher};
use crate::control::Control;
use crate::data::{Column, SparseColumn, Target};

/// A stored value of a sparse column at a node: the row's position among the node's rows,
/// and the value's index among the column's stored values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) pos: u32,
    pub(crate) at: u32,
}

/// ⌈log2(n + 1)⌉: the steps of a binary search among `n` items.
fn steps(n: usize) -> usize {
    (usize::BITS - n.leading_zeros()) as usize
}

/// The stored values of `column` at the node's rows, in position order. The node's rows
/// ascend (the root's are every row in order and splits keep the order), so the cheapest of
/// three walks finds them: each node row searched among the stored rows, each stored row
/// among the node's, or both merged (scikit-learn's sparse splitter also picks between the
/// first two). `None` when the memory cannot be had (recorded in `control`).
pub(crate) fn entries_at(
    column: &SparseColumn<'_>,
    node: &NodeRows,
    control: Option<&Control>,
) -> Option<Vec<Entry>> {
    let (n, nnz) = (node.len(), column.rows.len());
    let mut out = match control {
        Some(c) => c.vec(n.min(nnz))?,
        None => Vec::with_capacity(n.min(nnz)),
    };
    let entry = |pos: usize, at: usize| Entry {
        pos: pos as u32,
        at: at as u32,
    };
    // Every row of the data, ascending: each row is its own position.
    if n == column.n_rows {
        out.extend(
            column
                .rows
                .iter()
                .enumerate()
                .map(|(at, &r)| entry(r as usize, at)),
        );
        return Some(out);
    }
    let by_node = n * steps(nnz);
    let by_column = nnz * steps(n);
    if by_node <= by_column && by_node <= n + nnz {
        for (pos, r) in node.rows.iter().enumerate() {
            if let Ok(at) = column.rows.binary_search(r) {
                out.push(entry(pos, at));
            }
        }
    } else if by_column <= n + nnz {
        for (at, r) in column.rows.iter().enumerate() {
            if let Ok(pos) = node.rows.binary_search(r) {
                out.push(entry(pos, at));
            }
        }
    } else {
        let (mut pos, mut at) = (0, 0);
        while let (Some(a), Some(b)) = (node.rows.get(pos), column.rows.get(at)) {
            match a.cmp(b) {
                std::cmp::Ordering::Less => pos += 1,
                std::cmp::Ordering::Greater => at += 1,
                std::cmp::Ordering::Equal => {
                    out.push(entry(pos, at));
                    pos += 1;
                    at += 1;
                }
            }
        }
    }
    Some(out)
}

/// `entries` as the exact search lists them: ascending (value, position) in `total_cmp`'s
/// order, the dense sort's, without the stored zeros, which are zeros like the others
/// (a stored −0.0 too: see [`SparseColumn`]).
pub(crate) fn by_value(column: &SparseColumn<'_>, mut entries: Vec<Entry>) -> Vec<Entry> {
    // Entries point at stored values: the 0.0 is never read.
    let value = |e: &Entry| column.values.get(e.at as usize).copied().unwrap_or(0.0);
    entries.retain(|e| value(e) != 0.0);
    entries.sort_unstable_by(|a, b| value(a).total_cmp(&value(b)).then(a.pos.cmp(&b.pos)));
    entries
}

/// A node's stored values in ascending order with the zero block as one item at
/// `zero_at`, holding `n_zero` rows whose statistics are `zero`.
struct Gapped<'k> {
    known: &'k [Known],
    zero_at: usize,
    zero: &'k [f64],
    n_zero: usize,
}

impl Gapped<'_> {
    /// The value of item `i`.
    fn x(&self, i: usize) -> Option<f64> {
        match i.cmp(&self.zero_at) {
            std::cmp::Ordering::Less => self.known.get(i).map(|k| k.x),
            std::cmp::Ordering::Equal => Some(0.0),
            std::cmp::Ordering::Greater => self.known.get(i - 1).map(|k| k.x),
        }
    }
}

impl Sweep for Gapped<'_> {
    fn len(&self) -> usize {
        self.known.len() + 1
    }

    #[inline]
    fn add<K: Kernel>(&self, kernel: K, i: usize, stats: &mut [f64], sign: f64) -> usize {
        match i.cmp(&self.zero_at) {
            std::cmp::Ordering::Less => self.known.add(kernel, i, stats, sign),
            std::cmp::Ordering::Equal => {
                for (s, z) in stats.iter_mut().zip(self.zero) {
                    *s += sign * z;
                }
                self.n_zero
            }
            std::cmp::Ordering::Greater => self.known.add(kernel, i - 1, stats, sign),
        }
    }

    fn cut_after(&self, i: usize, gap: f64) -> bool {
        match (self.x(i), self.x(i + 1)) {
            (Some(a), Some(b)) => b > a + gap,
            _ => false,
        }
    }

    fn row(&self, i: usize) -> Option<(u64, f64)> {
        match i.cmp(&self.zero_at) {
            std::cmp::Ordering::Less => self.known.row(i),
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Greater => self.known.row(i - 1),
        }
    }

    const ROWS: bool = true;
}

impl Searcher<'_, '_> {
    /// The node's class weights when every sum of them is exact, so that the zero block's
    /// may be taken by subtraction (see the module's notes); `None` for a regression target,
    /// fractional weights, or data with no sparse column.
    pub(crate) fn exact_counts(&self, node: &NodeRows) -> Option<Vec<f64>> {
        const EXACT: f64 = (1u64 << f64::MANTISSA_DIGITS) as f64;
        let sparse = self
            .data
            .columns()
            .iter()
            .any(|c| matches!(c, Column::Sparse(_)));
        if !sparse || !matches!(self.target, Target::Classes { .. }) {
            return None;
        }
        if !node.all_weights(|w| w.fract() == 0.0) {
            return None;
        }
        let mut total = self.zero_stats();
        for (r, w) in node.iter() {
            self.target.accumulate(&mut total, r, w);
        }
        (self.weight_of(&total) <= EXACT).then_some(total)
    }

    /// `x <= t` of a sparse numeric feature by the rules of [`Self::numeric`], the same
    /// candidate it finds on the dense column. `stored` lists the node's stored values as
    /// [`by_value`] orders them; `exact` is [`Self::exact_counts`].
    pub(super) fn numeric_sparse(
        &self,
        feature: usize,
        column: &SparseColumn<'_>,
        stored: &[Entry],
        node: &NodeRows,
        node_weight: f64,
        exact: Option<&[f64]>,
    ) -> Option<Candidate> {
        // Every value zero: nothing to cut (as a constant dense column), and most features
        // of a deep node's wide sparse data.
        if stored.is_empty() {
            return None;
        }
        let gather = |e: &Entry| -> Option<Known> {
            let i = e.pos as usize;
            let (&r, w) = (node.rows.get(i)?, node.weight(i)?);
            Some(Known {
                x: *column.values.get(e.at as usize)?,
                w,
                label: self.target.label(r as usize),
            })
        };
        let mut known = self.vec(stored.len())?;
        known.extend(stored.iter().filter_map(gather));
        let zero_at = known.partition_point(|k| k.x < 0.0);
        let n_zero = node.len().saturating_sub(known.len());
        let missing = self.zero_stats();
        if let (Some(whole), true) = (exact, n_zero > 0) {
            if node.len() < 2 {
                return None;
            }
            let mut zero = whole.to_vec();
            for k in &known {
                self.target.accumulate_label(&mut zero, k.label, -k.w, 0.0);
            }
            let items = Gapped {
                known: &known,
                zero_at,
                zero: &zero,
                n_zero,
            };
            let sign = self.constraint(feature);
            let scan = self.sweep(&items, node.len(), &missing, 0, node_weight, sign)?;
            let threshold = self.threshold(
                feature,
                items.x(scan.at.checked_sub(1)?)?,
                items.x(scan.at)?,
            );
            return self.numeric_candidate(feature, threshold, &items, scan, &missing, node_weight);
        }
        // Sums whose bits depend on their order: the zero rows, in position order, spliced in
        // where the dense sort puts them.
        let mut taken: Vec<u32> = self.vec(stored.len())?;
        taken.extend(stored.iter().map(|e| e.pos));
        taken.sort_unstable();
        let mut all = self.vec(node.len())?;
        let (below, above) = known.split_at(zero_at);
        all.extend_from_slice(below);
        let mut next = taken.iter().peekable();
        for (i, (r, w)) in node.iter().enumerate() {
            if next.next_if_eq(&&(i as u32)).is_none() {
                all.push(Known {
                    x: 0.0,
                    w,
                    label: self.target.label(r),
                });
            }
        }
        all.extend_from_slice(above);
        self.numeric_known(
            feature,
            all.as_slice(),
            |k| all.get(k).map(|k| k.x),
            missing,
            0,
            node_weight,
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use crate::batch::{Csr, Matrix, Order};
    use crate::builder::grow_with;
    use crate::criterion::Criterion;
    use crate::data::{Column, Dataset, Sample, SparseColumn, Target};
    use crate::error::CoreError;
    use crate::params::{MissingStrategy, Splitter, TreeParams};
    use crate::tree::Tree;

    /// SplitMix64: reproducible data with no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        fn pick<T: Copy>(&mut self, items: &[T]) -> T {
            items[self.below(items.len() as u64) as usize]
        }
    }

    /// The same numbers as CSC columns (with explicit zeros, both signs) and as the dense
    /// columns SciPy's `toarray()` makes of them (a stored −0.0 becomes +0.0).
    struct Table {
        dense: Vec<Vec<f64>>,
        rows: Vec<Vec<u32>>,
        values: Vec<Vec<f64>>,
    }

    impl Table {
        fn random(rng: &mut Rng, n: usize, k: usize, density: u64) -> Table {
            let mut t = Table {
                dense: Vec::new(),
                rows: Vec::new(),
                values: Vec::new(),
            };
            for _ in 0..k {
                let scale = rng.pick(&[1.0, 0.25, -3.0, 1e-3]);
                let (mut dense, mut rows, mut values) = (Vec::new(), Vec::new(), Vec::new());
                for r in 0..n {
                    let x = if rng.below(100) < density {
                        // Mostly non-zero; some stored zeros of either sign.
                        let x = match rng.below(12) {
                            0 => 0.0,
                            1 => -0.0,
                            _ => (rng.below(9) as f64 - 3.0) * scale,
                        };
                        rows.push(r as u32);
                        values.push(x);
                        x + 0.0
                    } else {
                        0.0
                    };
                    dense.push(x);
                }
                t.dense.push(dense);
                t.rows.push(rows);
                t.values.push(values);
            }
            t
        }

        fn dense(&self) -> Dataset<'_> {
            Dataset::new(self.dense.iter().map(|c| Column::numeric(c)).collect()).unwrap()
        }

        fn sparse(&self) -> Dataset<'_> {
            let n = self.dense[0].len();
            let columns = self
                .rows
                .iter()
                .zip(&self.values)
                .map(|(rows, values)| {
                    Column::Sparse(SparseColumn {
                        rows,
                        values,
                        n_rows: n,
                    })
                })
                .collect();
            Dataset::new(columns).unwrap()
        }

        /// The rows as CSR arrays: (indptr, indices, values).
        fn csr(&self) -> (Vec<u64>, Vec<u32>, Vec<f64>) {
            let n = self.dense[0].len();
            let mut cells: Vec<(u32, u32, f64)> = Vec::new();
            for (f, (rows, values)) in self.rows.iter().zip(&self.values).enumerate() {
                cells.extend(rows.iter().zip(values).map(|(&r, &x)| (r, f as u32, x)));
            }
            cells.sort_by_key(|&(r, f, _)| (r, f));
            let mut indptr = vec![0u64; n + 1];
            for &(r, _, _) in &cells {
                indptr[r as usize + 1] += 1;
            }
            for i in 0..n {
                indptr[i + 1] += indptr[i];
            }
            let indices = cells.iter().map(|c| c.1).collect();
            let values = cells.iter().map(|c| c.2).collect();
            (indptr, indices, values)
        }

        fn row_major(&self) -> Vec<f64> {
            let n = self.dense[0].len();
            (0..n)
                .flat_map(|r| self.dense.iter().map(move |c| c[r]))
                .collect()
        }
    }

    fn fit(data: &Dataset<'_>, target: &Target<'_>, weights: &[f64], p: &TreeParams) -> Tree {
        let sample = Sample {
            data,
            target,
            weights,
        };
        grow_with(&sample, p, None).unwrap()
    }

    /// Sparse columns grow, byte for byte, the tree their dense copies grow, and predict the
    /// same from CSR rows as from the dense matrix: both searches, both targets, unit,
    /// integer, fractional and zero weights, every missing-value strategy (their plans and
    /// surrogates are still made), best-first growth, oblique splits.
    #[test]
    fn sparse_columns_grow_the_dense_tree() {
        let strategies = [
            MissingStrategy::Fractional,
            MissingStrategy::MajorityBranch,
            MissingStrategy::ClassMajority,
            MissingStrategy::Separate,
            MissingStrategy::Learned,
            MissingStrategy::Surrogate,
        ];
        let mut compared = 0;
        for seed in 0..120u64 {
            let mut g = Rng(seed);
            let n = 5 + g.below(250) as usize;
            let k = 1 + g.below(5) as usize;
            let density = g.pick(&[3, 10, 30, 60, 100]);
            let table = Table::random(&mut g, n, k, density);
            let (dense, sparse) = (table.dense(), table.sparse());
            let classes: Vec<u32> = (0..n)
                .map(|r| {
                    let signal = u32::from(table.dense[0][r] > 0.0);
                    if g.below(4) == 0 {
                        g.below(3) as u32
                    } else {
                        signal
                    }
                })
                .collect();
            let y: Vec<f64> = (0..n)
                .map(|r| table.dense[0][r] * 2.0 + g.below(100) as f64 / 7.0)
                .collect();
            let weights: Vec<f64> = match seed % 4 {
                0 => vec![1.0; n],
                1 => (0..n).map(|_| g.below(4) as f64).collect(),
                2 => (0..n).map(|_| 0.5 + g.below(5) as f64 / 3.0).collect(),
                _ => (0..n).map(|_| 1.0 + g.below(3) as f64).collect(),
            };
            if weights.iter().all(|&w| w == 0.0) {
                continue;
            }
            let targets = [
                (
                    Target::Classes {
                        codes: &classes,
                        n_classes: 3,
                    },
                    g.pick(&[Criterion::Gini, Criterion::Entropy, Criterion::GainRatio]),
                ),
                (Target::Values(&y), Criterion::SquaredError),
            ];
            for (target, criterion) in &targets {
                let missing = strategies[(seed as usize / 2) % strategies.len()];
                let splitter = if missing == MissingStrategy::ClassMajority || seed % 3 == 0 {
                    Splitter::Exact
                } else {
                    g.pick(&[Splitter::Exact, Splitter::Hist])
                };
                let params = TreeParams {
                    criterion: *criterion,
                    missing,
                    splitter,
                    max_bins: g.pick(&[4, 16, 255]) as usize,
                    max_leaf_nodes: (seed % 5 == 0).then_some(7),
                    min_samples_leaf: g.pick(&[1, 1, 3]) as usize,
                    max_depth: g.pick(&[None, Some(3)]),
                    oblique: seed % 11 == 0,
                    numeric_gain_correction: seed % 7 == 0,
                    ..TreeParams::default()
                };
                let a = fit(&dense, target, &weights, &params);
                let b = fit(&sparse, target, &weights, &params);
                let what = format!("seed {seed}, {criterion:?}, {missing:?}, {splitter:?}");
                assert_eq!(a.to_bytes(), b.to_bytes(), "{what}");
                let (indptr, indices, values) = table.csr();
                let csr = Csr::new(&indptr, &indices, &values, k).unwrap();
                let rows = table.row_major();
                let matrix = Matrix::new(&rows, n, k, Order::RowMajor).unwrap();
                let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
                if target.stats_width() == 3 {
                    let want = bits(a.predict_value(matrix).unwrap());
                    assert_eq!(bits(a.predict_value(csr).unwrap()), want, "{what}");
                    assert_eq!(bits(a.predict_value(&sparse).unwrap()), want, "{what}");
                } else {
                    let want = bits(a.predict_proba(matrix).unwrap());
                    assert_eq!(bits(a.predict_proba(csr).unwrap()), want, "{what}");
                    assert_eq!(bits(a.predict_proba(&sparse).unwrap()), want, "{what}");
                }
                assert_eq!(a.apply(csr).unwrap(), a.apply(matrix).unwrap(), "{what}");
                assert_eq!(
                    a.decision_path(&sparse).unwrap(),
                    a.decision_path(&dense).unwrap()
                );
                compared += 1;
            }
        }
        assert!(compared > 200);
    }

    /// `split_scores` searches without sorted lists (each node looks its stored values up):
    /// the same figures as dense, in both the exact-sum and the row-by-row way.
    #[test]
    fn unsorted_search_matches_dense() {
        for seed in 0..30u64 {
            let mut g = Rng(seed + 1000);
            let n = 3 + g.below(200) as usize;
            let density = g.pick(&[5, 40]);
            let table = Table::random(&mut g, n, 3, density);
            let classes: Vec<u32> = (0..n).map(|_| g.below(2) as u32).collect();
            let weights: Vec<f64> = (0..n)
                .map(|_| {
                    if seed % 2 == 0 {
                        1.0
                    } else {
                        0.3 + g.below(3) as f64
                    }
                })
                .collect();
            let target = Target::Classes {
                codes: &classes,
                n_classes: 2,
            };
            let scores = |data: &Dataset<'_>| {
                crate::split_scores(
                    data,
                    &target,
                    &weights,
                    Criterion::Entropy,
                    crate::params::CategoricalSplit::Binary,
                )
                .unwrap()
                .iter()
                .map(|s| s.map(|s| [s.score, s.gain, s.threshold].map(f64::to_bits)))
                .collect::<Vec<_>>()
            };
            assert_eq!(
                scores(&table.dense()),
                scores(&table.sparse()),
                "seed {seed}"
            );
        }
    }

    /// Columns longer than the binning sample: the sampled quantile edges (and so the
    /// histogram tree) of a sparse column are those of the column dense.
    #[test]
    fn long_sparse_columns_bin_as_dense() {
        let mut g = Rng(7);
        let n = 210_000;
        let table = Table::random(&mut g, n, 2, 20);
        let classes: Vec<u32> = (0..n)
            .map(|r| {
                u32::from(table.dense[0][r] + table.dense[1][r] > 0.5) ^ u32::from(g.below(5) == 0)
            })
            .collect();
        let target = Target::Classes {
            codes: &classes,
            n_classes: 2,
        };
        let params = TreeParams {
            splitter: Splitter::Hist,
            max_bins: 16,
            max_depth: Some(4),
            ..TreeParams::default()
        };
        let weights = vec![1.0; n];
        let a = fit(&table.dense(), &target, &weights, &params);
        let b = fit(&table.sparse(), &target, &weights, &params);
        assert!(a.n_nodes() > 3);
        assert_eq!(a.to_bytes(), b.to_bytes());
    }

    #[test]
    fn bad_sparse_input_is_refused() {
        let bad = |rows: &[u32], values: &[f64], n_rows: usize| {
            Dataset::new(vec![Column::Sparse(SparseColumn {
                rows,
                values,
                n_rows,
            })])
            .err()
        };
        assert!(matches!(
            bad(&[2, 1], &[1.0, 2.0], 3),
            Some(CoreError::InvalidSparse { .. })
        ));
        assert!(matches!(
            bad(&[1, 1], &[1.0, 2.0], 3),
            Some(CoreError::InvalidSparse { .. })
        ));
        assert!(matches!(
            bad(&[3], &[1.0], 3),
            Some(CoreError::InvalidSparse { .. })
        ));
        assert!(matches!(
            bad(&[0], &[1.0, 2.0], 3),
            Some(CoreError::InvalidSparse { .. })
        ));
        let (rows, values, classes) = ([1u32, 2], [f64::NAN, 1.0], [0u32, 1, 0]);
        let data = Dataset::new(vec![Column::Sparse(SparseColumn {
            rows: &rows,
            values: &values,
            n_rows: 3,
        })])
        .unwrap();
        let target = Target::Classes {
            codes: &classes,
            n_classes: 2,
        };
        let sample = Sample {
            data: &data,
            target: &target,
            weights: &[1.0; 3],
        };
        let err = grow_with(&sample, &TreeParams::default(), None).unwrap_err();
        assert_eq!(err, CoreError::SparseMissing { column: 0, row: 1 });
        let infinite = [1.0, f64::INFINITY];
        let data = Dataset::new(vec![Column::Sparse(SparseColumn {
            rows: &rows,
            values: &infinite,
            n_rows: 3,
        })])
        .unwrap();
        let sample = Sample {
            data: &data,
            ..sample
        };
        let err = grow_with(&sample, &TreeParams::default(), None).unwrap_err();
        assert_eq!(err, CoreError::InfiniteFeature { column: 0, row: 2 });
        let csr = |indptr: &[u64], indices: &[u32], n: usize| {
            Csr::new(indptr, indices, &[1.0, 2.0][..indices.len()], n).err()
        };
        assert!(csr(&[0, 2], &[1, 0], 2).is_some()); // not ascending
        assert!(csr(&[0, 1], &[5], 2).is_some()); // column out of range
        assert!(csr(&[0, 1], &[0, 1], 2).is_some()); // pointers short of the values
        assert!(csr(&[1, 1], &[0], 2).is_some()); // pointers not from 0
        assert!(csr(&[0, 2, 1], &[0, 1], 2).is_some()); // decreasing
        assert!(csr(&[0, 1, 2], &[0, 1], 2).is_none());
    }
}
