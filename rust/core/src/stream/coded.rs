//! A batch as the passes after its binning read it: its rows of positive weight, each numeric
//! value as its u8 bin code, categories as codes, the targets and weights, and each row's
//! node in the tree grown so far. Spark MLlib keeps its rows so (binned `TreePoint`s and a
//! node-id cache), as does LightGBM (bins only): a pass then reads a byte per value and starts
//! each row where the last pass left it, instead of decoding the source and routing from the
//! root.

use crate::data::Target;
use crate::routing::Values;
use crate::split::hist::{Binned, Bins};

/// A kept category code that stands for a missing value (no category has it).
pub(crate) const NO_CATEGORY: u32 = u32::MAX;

/// The targets of a batch's rows.
#[derive(Debug)]
pub(crate) enum Labels {
    Classes(Vec<u32>),
    Values(Vec<f64>),
}

/// One batch's rows of positive weight, binned.
#[derive(Debug)]
pub(crate) struct Coded {
    /// The numeric features' codes (`n_bins` for a missing value); none for categorical ones.
    pub bins: Bins,
    /// Per feature, a categorical feature's codes ([`NO_CATEGORY`] when missing).
    pub cats: Vec<Option<Vec<u32>>>,
    pub labels: Labels,
    pub weights: Vec<f64>,
    /// Each row's node (an index into the fit's nodes): the deepest it reaches whole, with
    /// no fractional split (C4.5's weights) on the way.
    pub nodes: Vec<u32>,
    /// Per feature, whether some row misses its value (the others add no missing weight).
    pub has_missing: Vec<bool>,
}

impl Coded {
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// The targets as the split search reads them.
    pub fn target(&self, n_classes: usize) -> Target<'_> {
        match &self.labels {
            Labels::Classes(codes) => Target::Classes { codes, n_classes },
            Labels::Values(y) => Target::Values(y),
        }
    }

    /// Row `r`'s category of feature `f`, `None` when missing (or `f` is numeric).
    #[inline]
    pub fn category(&self, f: usize, r: usize) -> Option<u32> {
        let c = *self.cats.get(f)?.as_ref()?.get(r)?;
        (c != NO_CATEGORY).then_some(c)
    }

    /// Row `r`'s code of numeric feature `f`.
    #[inline]
    pub fn code(&self, f: usize, r: usize) -> Option<u8> {
        self.bins.column(f)?.codes().get(r).copied()
    }

    /// Whether the targets are classes (else real values).
    pub fn has_classes(&self) -> bool {
        matches!(self.labels, Labels::Classes(_))
    }

    /// Bytes held (what the memory budget counts).
    pub fn bytes(&self) -> usize {
        self.bytes_without_nodes() + 4 * self.len()
    }

    /// Bytes of the rows' codes, categories, targets and weights.
    pub fn bytes_without_nodes(&self) -> usize {
        let n = self.len();
        let numeric = self.has_missing.len() - self.cats.iter().flatten().count();
        let labels = if self.has_classes() { 4 } else { 8 };
        n * (numeric + 4 * self.cats.iter().flatten().count() + labels + 8)
    }

    /// The record [`Self::read`] reads back: the nodes first (a pass rewrites them in place),
    /// then [`Self::write_rows`].
    pub fn write(&self, out: &mut Vec<u8>) {
        out.clear();
        self.nodes
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        self.write_rows(out);
    }

    /// Appends the codes, categories, targets and weights, little-endian.
    pub fn write_rows(&self, out: &mut Vec<u8>) {
        for (f, cats) in self.cats.iter().enumerate() {
            match (cats, self.bins.column(f)) {
                (Some(c), _) => c
                    .iter()
                    .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
                (None, Some(b)) => out.extend_from_slice(b.codes()),
                (None, None) => {}
            }
        }
        match &self.labels {
            Labels::Classes(c) => c
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Labels::Values(y) => y
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        }
        self.weights
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
    }

    /// Reads [`Self::write`]'s record of `n` rows whose features `missing` says miss values;
    /// `shape` is a batch of the same fit (which features are categorical, whether targets
    /// are classes). `None` if the record is short.
    pub fn read(bytes: &[u8], n: usize, missing: &[bool], shape: &Coded) -> Option<Coded> {
        let (nodes, rows) = bytes.split_at_checked(4 * n)?;
        let categorical: Vec<bool> = shape.cats.iter().map(Option::is_some).collect();
        let mut coded = Coded::read_rows(rows, n, missing, &categorical, shape.has_classes())?;
        coded.nodes = words(nodes);
        Some(coded)
    }

    /// Reads [`Self::write_rows`]'s output of `n` rows (`categorical`: per feature; `classes`:
    /// whether the targets are classes), without the rows' nodes. `None` if the bytes are not
    /// exactly that.
    pub fn read_rows(
        bytes: &[u8],
        n: usize,
        has_missing: &[bool],
        categorical: &[bool],
        classes: bool,
    ) -> Option<Coded> {
        // Every row takes bytes (its weight at least): a larger count is not such a record,
        // and the lengths below cannot overflow.
        if n > bytes.len() {
            return None;
        }
        let mut rest = bytes;
        let mut take = |len: usize| -> Option<&[u8]> {
            let (head, tail) = rest.split_at_checked(len)?;
            rest = tail;
            Some(head)
        };
        let floats = |b: &[u8]| -> Vec<f64> {
            b.chunks_exact(8)
                .filter_map(|c| c.try_into().ok().map(f64::from_le_bytes))
                .collect()
        };
        let mut cats = Vec::with_capacity(categorical.len());
        let mut columns = Vec::with_capacity(categorical.len());
        for &c in categorical {
            if c {
                cats.push(Some(words(take(4 * n)?)));
                columns.push(None);
            } else {
                cats.push(None);
                columns.push(Some(Binned::coded(take(n)?.to_vec())));
            }
        }
        let labels = if classes {
            Labels::Classes(words(take(4 * n)?))
        } else {
            Labels::Values(floats(take(8 * n)?))
        };
        let weights = floats(take(8 * n)?);
        if !rest.is_empty() || has_missing.len() != categorical.len() {
            return None;
        }
        Some(Coded {
            bins: Bins::from_columns(columns),
            cats,
            labels,
            weights,
            nodes: Vec::new(),
            has_missing: has_missing.to_vec(),
        })
    }
}

/// Little-endian u32 words.
fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .filter_map(|c| c.try_into().ok().map(u32::from_le_bytes))
        .collect()
}

/// A kept batch as routing reads it: a numeric feature's value is the greatest training value
/// of its bin. No split threshold falls inside a bin's range of training values (it lies
/// between the ranges of two non-empty bins, [`Bins::threshold`]), so every row goes where its
/// value would send it.
pub(crate) struct CodedValues<'a> {
    pub coded: &'a Coded,
    /// Per feature, each bin's greatest training value (empty for categorical features).
    pub hi: &'a [&'a [f64]],
}

impl Values for CodedValues<'_> {
    #[inline]
    fn number(&self, f: usize, row: usize) -> f64 {
        let code = self.coded.code(f, row);
        match (code, self.hi.get(f)) {
            // The missing code is past the tops: NaN, a missing value.
            (Some(c), Some(hi)) => hi.get(usize::from(c)).copied().unwrap_or(f64::NAN),
            _ => f64::NAN,
        }
    }

    #[inline]
    fn code(&self, f: usize, row: usize) -> Option<u32> {
        self.coded.category(f, row)
    }
}
