//! The rows that reached a node and their weights.
//!
//! Most fits weigh every row the same (no `sample_weight`, no C4.5 fragments), and a node's
//! rows then keep one weight for all of them instead of 8 bytes a row: at the root of an
//! exact fit that list was a tenth of the data's size, held twice (parent and children)
//! while the root's sorted lists are handed down, the fit's peak of memory.

use crate::control::Control;

/// A node's rows, each with its (possibly fractional) weight.
#[derive(Debug, Default, Clone)]
pub(crate) struct NodeRows {
    pub rows: Vec<u32>,
    weights: Weights,
}

#[derive(Debug, Clone)]
enum Weights {
    /// Every row weighs this.
    Same(f64),
    /// Row `i` weighs `[i]`.
    Each(Vec<f64>),
}

impl Default for Weights {
    fn default() -> Self {
        Weights::Each(Vec::new())
    }
}

impl NodeRows {
    /// `rows`, each weighing `weight`.
    pub fn same(rows: Vec<u32>, weight: f64) -> NodeRows {
        NodeRows {
            rows,
            weights: Weights::Same(weight),
        }
    }

    /// `rows`, row `i` weighing `weights[i]` (as many of them as rows).
    pub fn each(rows: Vec<u32>, weights: Vec<f64>) -> NodeRows {
        debug_assert_eq!(rows.len(), weights.len());
        NodeRows {
            rows,
            weights: Weights::Each(weights),
        }
    }

    /// Rows `0..weights.len()` with their weights, kept as one when all are the same (to the
    /// bit). `None` when the memory cannot be had (recorded in `control`).
    pub fn all(weights: &[f64], control: &Control) -> Option<NodeRows> {
        let n = weights.len();
        let mut rows = control.vec(n)?;
        rows.extend(0..n as u32);
        Some(match weights.first() {
            Some(&w) if weights.iter().all(|x| x.to_bits() == w.to_bits()) => {
                NodeRows::same(rows, w)
            }
            _ => {
                let mut each = control.vec(n)?;
                each.extend_from_slice(weights);
                NodeRows::each(rows, each)
            }
        })
    }

    /// Room for `n` rows: weighing `same` each, or (`None`) each its own.
    /// `None` when the memory cannot be had (recorded in `control`).
    pub fn with_room(n: usize, same: Option<f64>, control: &Control) -> Option<NodeRows> {
        let weights = match same {
            Some(w) => Weights::Same(w),
            None => Weights::Each(control.vec(n)?),
        };
        Some(NodeRows {
            rows: control.vec(n)?,
            weights,
        })
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The weight every row has, when they were given one ([`NodeRows::same`]).
    pub fn same_weight(&self) -> Option<f64> {
        match self.weights {
            Weights::Same(w) => Some(w),
            Weights::Each(_) => None,
        }
    }

    /// The weight of the node's `i`th row.
    #[inline]
    pub fn weight(&self, i: usize) -> Option<f64> {
        match &self.weights {
            Weights::Same(w) => self.rows.get(i).map(|_| *w),
            Weights::Each(each) => each.get(i).copied(),
        }
    }

    /// The rows (as indices) with their weights, in the node's order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (same, each): (f64, &[f64]) = match &self.weights {
            Weights::Same(w) => (*w, &[]),
            Weights::Each(each) => (0.0, each),
        };
        self.rows
            .iter()
            .enumerate()
            .map(move |(i, &r)| (r as usize, each.get(i).copied().unwrap_or(same)))
    }

    /// Whether every row's weight passes `test`.
    pub fn all_weights(&self, test: impl Fn(f64) -> bool) -> bool {
        match &self.weights {
            Weights::Same(w) => self.rows.is_empty() || test(*w),
            Weights::Each(each) => each.iter().all(|&w| test(w)),
        }
    }

    /// Adds row `r` of weight `w`; rows given one weight ([`NodeRows::same`]) keep it when
    /// `w` is that weight, and otherwise each take their own from now on.
    pub fn push(&mut self, r: u32, w: f64) {
        match &mut self.weights {
            Weights::Same(s) if s.to_bits() == w.to_bits() => {}
            Weights::Same(s) => {
                let mut each = Vec::with_capacity(self.rows.capacity());
                each.resize(self.rows.len(), *s);
                each.push(w);
                self.weights = Weights::Each(each);
            }
            Weights::Each(each) => each.push(w),
        }
        self.rows.push(r);
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn one_weight_for_all_reads_as_each_rows_own() {
        let control = Control::new();
        let same = NodeRows::all(&[2.0; 4], &control).expect("memory");
        assert_eq!(same.same_weight(), Some(2.0));
        let mixed = NodeRows::all(&[2.0, 2.0, 0.5, 2.0], &control).expect("memory");
        assert_eq!(mixed.same_weight(), None);
        let rows: Vec<(usize, f64)> = same.iter().collect();
        assert_eq!(rows, vec![(0, 2.0), (1, 2.0), (2, 2.0), (3, 2.0)]);
        assert_eq!(same.weight(3), Some(2.0));
        assert_eq!(same.weight(4), None);
        assert_eq!(mixed.weight(2), Some(0.5));
        assert_eq!(mixed.iter().map(|(_, w)| w).sum::<f64>(), 6.5);
        assert!(same.all_weights(|w| w == 2.0));
        assert!(!mixed.all_weights(|w| w == 2.0));
        // -0.0 and +0.0 are different weights to the bit: kept apart.
        assert_eq!(
            NodeRows::all(&[0.0, -0.0], &control)
                .expect("memory")
                .same_weight(),
            None
        );
    }

    #[test]
    fn a_different_weight_pushed_gives_every_row_its_own() {
        let mut node = NodeRows::same(vec![4, 7], 1.0);
        node.push(9, 1.0);
        assert_eq!(node.same_weight(), Some(1.0));
        node.push(11, 0.25);
        assert_eq!(node.same_weight(), None);
        let rows: Vec<(usize, f64)> = node.iter().collect();
        assert_eq!(rows, vec![(4, 1.0), (7, 1.0), (9, 1.0), (11, 0.25)]);
        let mut fresh = NodeRows::default();
        fresh.push(3, 0.5);
        assert_eq!(fresh.iter().collect::<Vec<_>>(), vec![(3, 0.5)]);
    }
}
