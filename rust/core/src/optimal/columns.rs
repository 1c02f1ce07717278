//! The training columns as the optimal search reads them.
//!
//! A numeric or ordered categorical feature becomes an *ordering*: each row's rank among the
//! feature's distinct known values, so that every threshold test is "rank <= r" and every
//! midpoint of adjacent distinct values is a candidate (no binarisation). Under
//! `missing="learned"` a feature with missing values gives two orderings, the missing rows
//! ranked before every known value (they go left) and after (they go right): the learned
//! direction is then just one more choice of the search. A nominal feature keeps its codes
//! and is split by subsets of them, the missing rows counting as one more category.

use crate::control::Control;
use crate::data::{with_numbers, Column, Dataset};
use crate::error::{CoreError, Result};
use crate::split::hist::Bins;
use crate::split::numeric::midpoint;

/// Where the rows missing an ordering's feature are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MissingRank {
    /// No training row misses the feature.
    None,
    /// Ranked first (rank 0): every threshold sends them left.
    First,
    /// Ranked last: every threshold sends them right; the last threshold separates the
    /// known rows from the missing ones.
    Last,
}

/// A feature tested by thresholds.
#[derive(Debug)]
pub(crate) struct Ordering {
    pub feature: usize,
    pub missing_rank: MissingRank,
    pub scale: Scale,
    /// Each training row's rank.
    pub rank: Vec<u32>,
}

/// What an ordering's known ranks stand for.
#[derive(Debug)]
pub(crate) enum Scale {
    /// The distinct known values of a numeric feature, ascending.
    Values(Vec<f64>),
    /// The non-empty histogram bins of a numeric feature (`splitter="hist"`), ascending: each
    /// one's least and greatest training value. A threshold falls between two bins, as the
    /// histogram splitter places it.
    Bins { lo: Vec<f64>, hi: Vec<f64> },
    /// The codes of an ordered categorical feature with this many categories.
    Codes(u32),
}

/// How a threshold between two ranks is written in the tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Threshold {
    /// `x <= t` goes left; missing rows go left when `missing_left`.
    Numeric { t: f64, missing_left: bool },
    /// Category code `<= code` goes left.
    Ordered { code: u32, missing_left: bool },
    /// Every known value left, missing values right (`x is known`).
    KnownVsMissing,
}

impl Ordering {
    /// The known-value index a rank stands for (`None` for the missing rank).
    fn known(&self, rank: u32) -> Option<u32> {
        match self.missing_rank {
            MissingRank::First => rank.checked_sub(1),
            MissingRank::Last if rank == self.n_known() => None,
            _ => Some(rank),
        }
    }

    /// Number of known ranks.
    fn n_known(&self) -> u32 {
        match &self.scale {
            Scale::Values(v) => v.len() as u32,
            Scale::Bins { hi, .. } => hi.len() as u32,
            Scale::Codes(n) => *n,
        }
    }

    /// Whether the boundary after rank `left` only separates the missing rows from the known
    /// ones in a missing-first ordering: the missing-last ordering makes the same partition,
    /// so the search skips it here.
    #[inline]
    pub(crate) fn is_duplicate(&self, left: u32) -> bool {
        self.missing_rank == MissingRank::First && left == 0
    }

    /// The test between adjacent node ranks `left < right`: the midpoint of their values (the
    /// texts' rule, computed as every other search computes it), or of the bins' facing
    /// values.
    pub(crate) fn threshold(&self, left: u32, right: u32) -> Threshold {
        let missing_left = self.missing_rank == MissingRank::First;
        let (Some(a), b) = (self.known(left), self.known(right)) else {
            // `left` is the missing rank of a missing-first ordering: never asked (duplicate).
            return Threshold::KnownVsMissing;
        };
        let Some(b) = b else {
            return Threshold::KnownVsMissing;
        };
        // `a` and `b` are known ranks, below the scale's length: the defaults are never read.
        match &self.scale {
            Scale::Values(values) => {
                let lo = values.get(a as usize).copied().unwrap_or(0.0);
                let hi = values.get(b as usize).copied().unwrap_or(lo);
                Threshold::Numeric {
                    t: midpoint(lo, hi),
                    missing_left,
                }
            }
            Scale::Bins { lo, hi } => {
                let below = hi.get(a as usize).copied().unwrap_or(0.0);
                let above = lo.get(b as usize).copied().unwrap_or(below);
                Threshold::Numeric {
                    t: midpoint(below, above),
                    missing_left,
                }
            }
            Scale::Codes(_) => Threshold::Ordered {
                code: a,
                missing_left,
            },
        }
    }
}

/// A nominal feature, tested by subsets of its categories. Its *slots* are the categories
/// present in the training rows, then (if any row misses the feature) the missing rows as
/// one more: subsets are bit masks of slots.
#[derive(Debug)]
pub(crate) struct Nominal {
    pub feature: usize,
    pub n_categories: u32,
    /// Each slot's category code (the missing slot has none).
    pub categories: Vec<u32>,
    /// Each training row's slot.
    pub code: Vec<u32>,
    pub has_missing: bool,
}

impl Nominal {
    pub(crate) fn slots(&self) -> usize {
        self.categories.len() + usize::from(self.has_missing)
    }

    /// The missing slot, if any row misses the feature.
    pub(crate) fn missing_slot(&self) -> Option<u32> {
        self.has_missing.then_some(self.categories.len() as u32)
    }
}

/// Every test the search can make, by column.
#[derive(Debug, Default)]
pub(crate) struct Columns {
    pub orderings: Vec<Ordering>,
    pub nominals: Vec<Nominal>,
}

impl Columns {
    /// The columns of `data`. Features that cannot split (no two distinct known values, or
    /// ignored as all missing) give none. A feature with missing values gives both orderings
    /// (the caller allows missing values only with `missing="learned"`).
    /// `max_categories` bounds the categories a nominal feature may have (present in the
    /// training rows), since every subset of them is tried. With `bins`, numeric features are
    /// ranked by their histogram bins, so only the histogram splitter's thresholds are tried.
    pub(crate) fn new(
        data: &Dataset<'_>,
        max_categories: usize,
        bins: Option<&Bins>,
        control: &Control,
    ) -> Result<Columns> {
        let mut columns = Columns::default();
        for (feature, column) in data.columns().iter().enumerate() {
            control.check()?;
            let sparse = match column {
                Column::Sparse(c) => Some(c),
                _ => None,
            };
            if let Some(binned) = bins.and_then(|b| b.binned(feature, sparse)) {
                // The non-empty bins, ranked in order.
                let (lo, hi) = binned.ranges();
                let mut index = vec![None; hi.len()];
                let (mut kept_lo, mut kept_hi) = (Vec::new(), Vec::new());
                for (b, (&l, &h)) in lo.iter().zip(hi).enumerate() {
                    if l <= h {
                        if let Some(i) = index.get_mut(b) {
                            *i = Some(kept_hi.len() as u32);
                        }
                        kept_lo.push(l);
                        kept_hi.push(h);
                    }
                }
                let known = |r: usize| {
                    binned
                        .bin(r as u32)
                        .and_then(|b| index.get(b).copied().flatten())
                };
                let scale = || Scale::Bins {
                    lo: kept_lo.clone(),
                    hi: kept_hi.clone(),
                };
                columns.rank(feature, data.n_rows(), kept_hi.len(), known, scale, control)?;
                continue;
            }
            // A sparse column is read into rows here: the orderings below hold a rank per
            // row anyway (the optimal search is for data of a few thousand rows).
            let dense: Vec<f64>;
            let column = match column {
                Column::Sparse(c) => {
                    let mut values = control.vec(c.n_rows).ok_or_else(|| control.stop_reason())?;
                    values.extend((0..c.n_rows).map(|r| c.value(r)));
                    dense = values;
                    &Column::numeric(&dense)
                }
                other => other,
            };
            match column {
                Column::Numeric(v) => {
                    let mut values: Vec<f64> =
                        control.vec(v.len()).ok_or_else(|| control.stop_reason())?;
                    with_numbers!(v, |v| values.extend(v.iter().filter(|x| !x.is_nan())));
                    values.sort_unstable_by(f64::total_cmp);
                    values.dedup();
                    let known = |r: usize| {
                        let x = v.get(r).unwrap_or(f64::NAN); // r < v.len()
                        (!x.is_nan()).then(|| values.partition_point(|&k| k < x) as u32)
                    };
                    let scale = || Scale::Values(values.clone());
                    columns.rank(feature, v.len(), values.len(), known, scale, control)?;
                }
                // Read into rows above.
                Column::Sparse(_) => {}
                Column::Categorical(c) => {
                    let n = c.codes.len();
                    let has_missing = (0..n).any(|r| c.code(r).is_none());
                    let mut present = vec![false; c.n_categories as usize];
                    for r in 0..n {
                        if let Some(p) = c.code(r).and_then(|k| present.get_mut(k as usize)) {
                            *p = true;
                        }
                    }
                    let distinct = present.iter().filter(|&&p| p).count();
                    if distinct + usize::from(has_missing) < 2 {
                        continue;
                    }
                    if c.ordered {
                        let n_categories = c.n_categories;
                        let sides: &[MissingRank] = if has_missing {
                            &[MissingRank::First, MissingRank::Last]
                        } else {
                            &[MissingRank::None]
                        };
                        for &missing in sides {
                            let mut rank = control.vec(n).ok_or_else(|| control.stop_reason())?;
                            rank.extend((0..n).map(|r| match (c.code(r), missing) {
                                (Some(k), MissingRank::First) => k + 1,
                                (Some(k), _) => k,
                                (None, MissingRank::First) => 0,
                                (None, _) => n_categories,
                            }));
                            columns.orderings.push(Ordering {
                                feature,
                                missing_rank: missing,
                                scale: Scale::Codes(n_categories),
                                rank,
                            });
                        }
                    } else {
                        if distinct > max_categories {
                            return Err(CoreError::InvalidParameter {
                                name: "max_exhaustive_categories",
                                reason: format!(
                                    "column {feature} has {distinct} categories; algorithm=\"optimal\" \
                                     tries every subset of a nominal feature's categories, so it takes \
                                     at most max_exhaustive_categories = {max_categories} (raise it up \
                                     to 20, declare the column ordinal, or group its categories)"
                                ),
                            });
                        }
                        let categories: Vec<u32> = (0..c.n_categories)
                            .zip(&present)
                            .filter_map(|(k, &p)| p.then_some(k))
                            .collect();
                        let mut slot_of = vec![0u32; c.n_categories as usize];
                        for (slot, &k) in categories.iter().enumerate() {
                            if let Some(s) = slot_of.get_mut(k as usize) {
                                *s = slot as u32;
                            }
                        }
                        let missing_slot = categories.len() as u32;
                        let mut code = control.vec(n).ok_or_else(|| control.stop_reason())?;
                        code.extend((0..n).map(|r| {
                            c.code(r)
                                .and_then(|k| slot_of.get(k as usize).copied())
                                .unwrap_or(missing_slot) // a missing code
                        }));
                        columns.nominals.push(Nominal {
                            feature,
                            n_categories: c.n_categories,
                            categories,
                            code,
                            has_missing,
                        });
                    }
                }
            }
        }
        Ok(columns)
    }

    /// The orderings of numeric `feature` (`n_known` distinct known ranks; `known(r)`: row
    /// `r`'s, `None` when it misses the value): one, or both missing-value placements when
    /// a row misses it. None when no threshold can split it: it needs two distinct values, or
    /// one and missing rows (the known-versus-missing test).
    fn rank(
        &mut self,
        feature: usize,
        n_rows: usize,
        n_known: usize,
        known: impl Fn(usize) -> Option<u32>,
        scale: impl Fn() -> Scale,
        control: &Control,
    ) -> Result<()> {
        let has_missing = (0..n_rows).any(|r| known(r).is_none());
        if n_known < 2 && !(has_missing && n_known == 1) {
            return Ok(());
        }
        let sides: &[MissingRank] = if has_missing {
            &[MissingRank::First, MissingRank::Last]
        } else {
            &[MissingRank::None]
        };
        for &missing in sides {
            let (offset, missing_rank) = match missing {
                MissingRank::First => (1, 0),
                _ => (0, n_known as u32),
            };
            let mut rank = control.vec(n_rows).ok_or_else(|| control.stop_reason())?;
            let rank_of = |r| known(r).map_or(missing_rank, |k| k + offset); // missing: its rank
            rank.extend((0..n_rows).map(rank_of));
            self.orderings.push(Ordering {
                feature,
                missing_rank: missing,
                scale: scale(),
                rank,
            });
        }
        Ok(())
    }

    /// Number of columns: orderings first, then nominal features.
    pub(crate) fn len(&self) -> usize {
        self.orderings.len() + self.nominals.len()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::data::CategoricalColumn;

    #[test]
    fn ranks_and_midpoints() {
        let x = [3.0, 1.0, f64::NAN, 2.0, 3.0];
        let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
        let c = Columns::new(&data, 12, None, &Control::new()).unwrap();
        assert_eq!(c.orderings.len(), 2);
        let first = &c.orderings[0];
        assert_eq!(first.rank, vec![3, 1, 0, 2, 3]);
        assert!(first.is_duplicate(0));
        assert_eq!(
            first.threshold(1, 2),
            Threshold::Numeric {
                t: 1.5,
                missing_left: true
            }
        );
        let last = &c.orderings[1];
        assert_eq!(last.rank, vec![2, 0, 3, 1, 2]);
        assert_eq!(last.threshold(2, 3), Threshold::KnownVsMissing);
        assert_eq!(
            last.threshold(0, 2),
            Threshold::Numeric {
                t: 2.0,
                missing_left: false
            }
        );
    }

    #[test]
    fn a_midpoint_never_reaches_the_right_value() {
        let a = 1.0f64;
        let b = f64::from_bits(a.to_bits() + 1);
        let x = [a, b];
        let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
        let c = Columns::new(&data, 12, None, &Control::new()).unwrap();
        match c.orderings[0].threshold(0, 1) {
            Threshold::Numeric { t, .. } => assert!(a <= t && t < b),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn too_many_categories_is_an_error_naming_the_limit() {
        let codes: Vec<u32> = (0..30).collect();
        let data = Dataset::new(vec![Column::Categorical(CategoricalColumn {
            codes: &codes,
            missing_mask: None,
            n_categories: 30,
            ordered: false,
        })])
        .unwrap();
        let err = Columns::new(&data, 12, None, &Control::new()).unwrap_err();
        assert!(err.to_string().contains("max_exhaustive_categories"));
    }
}
