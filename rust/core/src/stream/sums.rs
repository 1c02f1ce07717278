//! What one pass over the data adds up for the nodes it serves: per node the statistics of
//! its rows, its histograms and per-category sums, and the weight of rows missing each
//! feature. Sums are additive, so partitions add theirs up anywhere (Dask); a fit that adds
//! its batches in row order into the same sums performs, number for number, the in-memory
//! fit's additions, hence the same tree.

use crate::split::Categories;

/// The sums of one node over the rows a pass has seen so far.
#[derive(Debug, Clone)]
pub(crate) struct NodeSums {
    /// `Target::accumulate` over the rows (class weights, or Σw, Σwy, Σwy²).
    pub stats: Vec<f64>,
    /// The same around the fit's centre (regression histograms are centred on the root's
    /// mean); empty for classification.
    pub centred: Vec<f64>,
    /// Rows (a row spread over several children counts in each).
    pub rows: f64,
    /// Per feature, the weight of the rows whose value is missing (summed from +0.0).
    pub missing_weight: Vec<f64>,
    /// Histograms of the numeric features, laid out by `Histograms::layout`.
    pub hist: Vec<f64>,
    /// Per feature, the per-category sums of a usable categorical feature.
    pub cats: Vec<Option<Categories>>,
    /// Σw(y − mean)² for the variance pass of a regression fit.
    pub squares: f64,
}

impl NodeSums {
    fn write_to(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(&self.stats);
        out.extend_from_slice(&self.centred);
        out.push(self.rows);
        out.extend_from_slice(&self.missing_weight);
        out.extend_from_slice(&self.hist);
        for c in self.cats.iter().flatten() {
            c.write_to(out);
        }
        out.push(self.squares);
    }

    fn read_from(&mut self, input: &mut impl Iterator<Item = f64>) -> Option<()> {
        for x in self
            .stats
            .iter_mut()
            .chain(self.centred.iter_mut())
            .chain(std::iter::once(&mut self.rows))
            .chain(self.missing_weight.iter_mut())
            .chain(self.hist.iter_mut())
        {
            *x = input.next()?;
        }
        for c in self.cats.iter_mut().flatten() {
            c.read_from(input)?;
        }
        self.squares = input.next()?;
        Some(())
    }

    fn merge(&mut self, other: &NodeSums) {
        let add = |a: &mut [f64], b: &[f64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        add(&mut self.stats, &other.stats);
        add(&mut self.centred, &other.centred);
        self.rows += other.rows;
        add(&mut self.missing_weight, &other.missing_weight);
        add(&mut self.hist, &other.hist);
        for (a, b) in self.cats.iter_mut().zip(&other.cats) {
            if let (Some(a), Some(b)) = (a, b) {
                a.merge(b);
            }
        }
        self.squares += other.squares;
    }
}

/// Everything one pass adds up: the sums of each node it serves and, on the first pass, each
/// numeric feature's least and greatest value per bin.
#[derive(Debug, Clone)]
pub struct Sums {
    pub(crate) nodes: Vec<NodeSums>,
    /// Per feature (empty for categorical ones or after the first pass).
    pub(crate) lo: Vec<Vec<f64>>,
    pub(crate) hi: Vec<Vec<f64>>,
    /// Which pass of the fit these sums belong to, so that sums of another pass are refused.
    pub(crate) pass: u64,
}

impl Sums {
    /// Adds `other` (the same pass over other rows): sums add, value ranges widen. The result
    /// does not depend on the order of merging when every sum is exact (class counts with
    /// integer weights); otherwise it may differ from a batch-by-batch fit in the last bits.
    pub fn merge(&mut self, other: &Sums) -> crate::Result<()> {
        if self.pass != other.pass || self.nodes.len() != other.nodes.len() {
            return Err(crate::CoreError::InvalidParameter {
                name: "sums",
                reason: format!(
                    "sums of pass {} cannot be merged with sums of pass {}",
                    self.pass, other.pass
                ),
            });
        }
        for (a, b) in self.nodes.iter_mut().zip(&other.nodes) {
            a.merge(b);
        }
        let ranges = self.lo.iter_mut().zip(self.hi.iter_mut());
        for ((lo, hi), (other_lo, other_hi)) in ranges.zip(other.lo.iter().zip(&other.hi)) {
            super::widen(lo, hi, other_lo, other_hi);
        }
        Ok(())
    }

    /// Whether every node sum is a whole number below 2^53 (class counts under whole
    /// weights): such sums add exactly, so merging them in any order (a tree reduction)
    /// gives the bits of the in-memory fit's row-order sums. Value ranges (min and max)
    /// merge exactly anyway.
    pub fn is_exact(&self) -> bool {
        const LIMIT: f64 = (1u64 << 53) as f64;
        let mut values = Vec::new();
        for n in &self.nodes {
            values.clear();
            n.write_to(&mut values);
            if !values.iter().all(|x| x.fract() == 0.0 && x.abs() < LIMIT) {
                return false;
            }
        }
        true
    }

    /// The sums as one flat vector (the pass number first), for sending between processes;
    /// [`crate::StreamFit::sums_from`] reads it back.
    pub fn to_vec(&self) -> Vec<f64> {
        let mut out = vec![self.pass as f64];
        for n in &self.nodes {
            n.write_to(&mut out);
        }
        for v in self.lo.iter().chain(&self.hi) {
            out.extend_from_slice(v);
        }
        out
    }

    /// Reads [`Self::to_vec`]'s output into `self`'s shape.
    pub(crate) fn read(&mut self, values: &[f64]) -> Option<()> {
        let mut input = values.iter().copied();
        if input.next()? != self.pass as f64 {
            return None;
        }
        for n in &mut self.nodes {
            n.read_from(&mut input)?;
        }
        for v in self.lo.iter_mut().chain(self.hi.iter_mut()) {
            for x in v.iter_mut() {
                *x = input.next()?;
            }
        }
        input.next().is_none().then_some(())
    }
}

/// Builds empty node sums of the right shape.
pub(crate) fn empty_node(
    width: usize,
    centred: bool,
    n_features: usize,
    hist_len: usize,
    cats: Vec<Option<Categories>>,
) -> NodeSums {
    NodeSums {
        stats: vec![0.0; width],
        centred: if centred {
            vec![0.0; width]
        } else {
            Vec::new()
        },
        rows: 0.0,
        missing_weight: vec![0.0; n_features],
        hist: vec![0.0; hist_len],
        cats,
        squares: -0.0,
    }
}
