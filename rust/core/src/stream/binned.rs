//! A batch binned once and held where it lies ([`BinnedBatch`]): a Dask partition on its
//! worker. Every pass after the first grow pass reads it instead of the source, as the
//! LazyFrame fit reads its kept batches ([`super::KeptBatches`]), but nothing in it changes
//! between passes: each pass routes its rows from the root by their codes through the tree
//! grown so far ([`StreamFit::add_binned`]), so the pass's sums are a pure function of the
//! batch and the fit's frontier, and a scheduler that loses the batch recomputes it from the
//! source.

use std::time::Instant;

use super::coded::Coded;
use super::profile::Step;
use super::{order, Growing, StreamFit, Sums};
use crate::error::{CoreError, Result};
use crate::split::hist::Cuts;
use crate::split::NodeRows;
use crate::Sample;

/// A batch's rows of positive weight binned by a fit's cuts, with each bin's value range.
#[derive(Debug)]
pub struct BinnedBatch {
    coded: Coded,
    /// Per feature, a numeric feature's least and greatest value in each bin (the first grow
    /// pass widens the sums' ranges by them); `None` for a categorical one.
    ranges: Vec<Option<(Vec<f64>, Vec<f64>)>>,
    /// [`cuts_key`] of the cuts the batch was binned by: a batch binned by other cuts (another
    /// fit's) is refused rather than read with the wrong bins.
    key: u64,
}

/// A digest of the fit's cuts, the edges' bits folded by SplitMix64's finaliser.
fn cuts_key(cuts: &[Option<Cuts>]) -> u64 {
    let mut key = 0x5155_4552_4355_5321_u64; // "QUERCUS!"
    let mut mix = |x: u64| {
        key = (key ^ x).wrapping_add(0x9E37_79B9_7F4A_7C15);
        key = (key ^ (key >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        key = (key ^ (key >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        key ^= key >> 31;
    };
    for c in cuts {
        let Some(c) = c else {
            mix(u64::MAX);
            continue;
        };
        let (edges, min, max) = c.parts();
        mix(edges.len() as u64);
        edges.iter().for_each(|e| mix(e.to_bits()));
        for bound in [min, max] {
            mix(bound.map_or(u64::MAX, f64::to_bits));
        }
    }
    key
}

const MAGIC: u64 = 0x3148_4342_4e49_4251; // "QBINBCH1"

impl BinnedBatch {
    /// Rows held (the batch's rows of positive weight).
    pub fn len(&self) -> usize {
        self.coded.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held (the codes, categories, targets and weights).
    pub fn bytes(&self) -> usize {
        self.coded.bytes_without_nodes()
    }

    /// The batch as bytes, for moving it between processes ([`Self::from_bytes`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes() + 64);
        let put = |out: &mut Vec<u8>, x: u64| out.extend_from_slice(&x.to_le_bytes());
        put(&mut out, MAGIC);
        put(&mut out, self.key);
        put(&mut out, self.coded.len() as u64);
        put(&mut out, self.coded.has_missing.len() as u64);
        put(&mut out, u64::from(self.coded.has_classes()));
        for (f, range) in self.ranges.iter().enumerate() {
            let missing = self.coded.has_missing.get(f).copied().unwrap_or(false);
            put(&mut out, u64::from(missing));
            match range {
                None => put(&mut out, u64::MAX),
                Some((lo, hi)) => {
                    put(&mut out, lo.len() as u64);
                    for x in lo.iter().chain(hi) {
                        put(&mut out, x.to_bits());
                    }
                }
            }
        }
        self.coded.write_rows(&mut out);
        out
    }

    /// Reads [`Self::to_bytes`]'s output.
    pub fn from_bytes(bytes: &[u8]) -> Result<BinnedBatch> {
        let bad = || CoreError::InvalidParameter {
            name: "binned batch",
            reason: "the bytes are not a binned batch written by this version".into(),
        };
        let mut rest = bytes;
        let mut word = || -> Result<u64> {
            let (head, tail) = rest.split_first_chunk::<8>().ok_or_else(bad)?;
            rest = tail;
            Ok(u64::from_le_bytes(*head))
        };
        if word()? != MAGIC {
            return Err(bad());
        }
        let key = word()?;
        let n = usize::try_from(word()?).map_err(|_| bad())?;
        let n_features = usize::try_from(word()?).map_err(|_| bad())?;
        let classes = word()? != 0;
        let mut missing = Vec::new();
        let mut ranges = Vec::new();
        for _ in 0..n_features.min(bytes.len()) {
            missing.push(word()? != 0);
            let n_bins = word()?;
            if n_bins == u64::MAX {
                ranges.push(None);
                continue;
            }
            let n_bins = usize::try_from(n_bins).map_err(|_| bad())?;
            let floats = (0..2 * n_bins.min(bytes.len()))
                .map(|_| word().map(f64::from_bits))
                .collect::<Result<Vec<f64>>>()?;
            let (lo, hi) = floats.split_at(n_bins.min(floats.len()));
            ranges.push(Some((lo.to_vec(), hi.to_vec())));
        }
        if missing.len() != n_features {
            return Err(bad());
        }
        let categorical: Vec<bool> = ranges.iter().map(Option::is_none).collect();
        let coded = Coded::read_rows(rest, n, &missing, &categorical, classes).ok_or_else(bad)?;
        Ok(BinnedBatch { coded, ranges, key })
    }
}

impl StreamFit {
    /// Checks a batch and bins its rows of positive weight by the fit's cuts (during a grow
    /// pass, e.g. on a replica of the first one): what [`Self::add_binned`] reads on every
    /// later pass.
    pub fn bin(&self, batch: &Sample<'_, '_>) -> Result<BinnedBatch> {
        let g = self.growing("bin")?;
        let start = Instant::now();
        self.check(batch)?;
        self.profile.add(Step::Check, start);
        let kept = super::kept_rows(batch.weights);
        let mut coded = self.code(g, batch, &kept);
        // Every pass routes the rows from the root: no node is kept per row.
        coded.nodes = Vec::new();
        let ranges = (0..self.kinds.len())
            .map(|f| {
                coded.bins.column(f).map(|b| {
                    let (lo, hi) = b.lo_hi();
                    (lo.to_vec(), hi.to_vec())
                })
            })
            .collect();
        Ok(BinnedBatch {
            coded,
            ranges,
            key: cuts_key(&g.cuts),
        })
    }

    /// Adds a binned batch to the current pass's sums: its rows go from the root down the
    /// splits grown so far by their codes (as [`Self::add_kept`] moves kept rows on from
    /// their nodes), then add up as [`Self::add`] adds a batch's rows, in row order. Nodes
    /// whose histograms are derived (the larger child of a binary split) get none; on the first grow pass the batch's value
    /// ranges widen the sums'.
    pub fn add_binned(&self, sums: &mut Sums, batch: &BinnedBatch) -> Result<()> {
        let g = self.growing("add_binned")?;
        if sums.pass != self.pass {
            return Err(order("add_binned", "these sums belong to another pass"));
        }
        self.check_binned(g, batch)?;
        if !g.variance {
            for ((lo, hi), range) in sums
                .lo
                .iter_mut()
                .zip(sums.hi.iter_mut())
                .zip(&batch.ranges)
            {
                if let (Some((blo, bhi)), false) = (range, lo.is_empty()) {
                    super::widen(lo, hi, blo, bhi);
                }
            }
        }
        let mut parts = vec![NodeRows::default(); g.group.len()];
        self.route_binned(g, batch, |s, i, w| super::gather(&mut parts, s, i, w));
        self.accumulate(g, sums, &batch.coded, &parts, &g.derived);
        Ok(())
    }

    /// A binned batch's rows routed from the root to the nodes the pass serves: `add(served
    /// slot, row, weight)` for each node a row reaches.
    fn route_binned(&self, g: &Growing, batch: &BinnedBatch, add: impl FnMut(usize, usize, f64)) {
        let turns = self.turns(g);
        let bound = turns.bind(&batch.coded);
        let weights = &batch.coded.weights;
        self.route(g, |n, at, i| bound.step(at, n, i), weights, None, add);
    }

    /// Refuses a batch binned by another fit's cuts or of another shape.
    fn check_binned(&self, g: &Growing, batch: &BinnedBatch) -> Result<()> {
        let coded = &batch.coded;
        let shape_differs = batch.ranges.len() != self.kinds.len()
            || batch
                .ranges
                .iter()
                .zip(&g.cuts)
                .any(|(r, c)| r.is_some() != c.is_some())
            || coded.has_classes() != (self.n_classes > 0);
        if batch.key != cuts_key(&g.cuts) || shape_differs {
            return Err(CoreError::InvalidParameter {
                name: "binned batch",
                reason: "the batch was binned by another fit (other bin edges or columns)".into(),
            });
        }
        Ok(())
    }
}

impl Growing {
    /// Per feature, each bin's greatest training value (empty for categorical features):
    /// what routing a binned row reads for its value ([`CodedValues`]).
    pub(super) fn bin_tops(&self) -> Vec<&[f64]> {
        (0..self.cuts.len())
            .map(|f| self.bins.column(f).map_or(&[][..], |b| b.lo_hi().1))
            .collect()
    }
}
