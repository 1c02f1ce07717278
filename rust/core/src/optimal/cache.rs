//! Solved subproblems, keyed by their row set (MurTree's dataset caching): the same rows
//! reached by different paths (`a` then `b`, or `b` then `a`) are solved once.
//!
//! A row set is named by two independent 64-bit sums of random per-row keys (a sum, so that
//! a child's hash is the parent's minus its sibling's): two different sets collide with
//! probability about 2⁻¹²⁸, far below any hardware error rate, so the cache stores no row
//! lists. An entry keeps the best lower bound proven for the set at a depth and leaf budget
//! and the best tree found, which is optimal once its cost meets the bound.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::solution::Sol;

/// The hash of a row set: two wrapping sums of per-row keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct SetHash(u64, u64);

impl SetHash {
    /// The hash of this set without the rows hashed in `part` (a subset).
    pub(crate) fn minus(self, part: SetHash) -> SetHash {
        SetHash(self.0.wrapping_sub(part.0), self.1.wrapping_sub(part.1))
    }
}

/// SplitMix64's finaliser (Steele, Lea & Flood 2014): a bijection of u64 that spreads
/// consecutive inputs over the whole range.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The per-row keys whose sums hash row sets. Computed from the row id, so nothing is
/// stored.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RowKeys;

impl RowKeys {
    #[inline]
    fn key(row: u32) -> (u64, u64) {
        let r = u64::from(row);
        (
            mix(r.wrapping_add(0x9E37_79B9_7F4A_7C15)),
            mix(r ^ 0xD1B5_4A32_D192_ED03).rotate_left(17) ^ 0x2545_F491_4F6C_DD1D,
        )
    }

    pub(crate) fn of(&self, rows: impl Iterator<Item = u32>) -> SetHash {
        rows.fold(SetHash(0, 0), |SetHash(a, b), r| {
            let (x, y) = Self::key(r);
            SetHash(a.wrapping_add(x), b.wrapping_add(y))
        })
    }
}

/// What is known of a subproblem.
#[derive(Debug, Clone)]
pub(crate) struct Known {
    /// No tree of the set at this depth and leaf budget costs less.
    pub lower: f64,
    /// The best tree found and its cost (≥ `lower`; equal once solved).
    pub best: Option<(f64, Arc<Sol>)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    set: SetHash,
    rows: u32,
    depth: u8,
    leaves: u16,
}

/// Entries kept at most: beyond it new subproblems are solved without being remembered
/// (each entry is a few dozen bytes and a small tree).
const MAX_ENTRIES: usize = 1 << 22;

/// The cache of one fit. A mutex, not a map per thread: only the search thread uses it
/// (threads work inside one subproblem's scans), so it is never contended.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    map: Mutex<HashMap<Key, Known>>,
}

impl Cache {
    fn key(set: SetHash, rows: usize, depth: usize, leaves: usize) -> Key {
        Key {
            set,
            rows: rows as u32,
            depth: depth as u8,
            leaves: leaves as u16,
        }
    }

    pub(crate) fn get(
        &self,
        set: SetHash,
        rows: usize,
        depth: usize,
        leaves: usize,
    ) -> Option<Known> {
        // Poisoned only by a panic, which the core does not raise: go on rather than panic too.
        let map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(&Self::key(set, rows, depth, leaves)).cloned()
    }

    /// Records a bound and a tree: the larger bound and the cheaper tree are kept. Nothing is
    /// recorded once the cache is full or its memory cannot be had.
    pub(crate) fn put(&self, set: SetHash, rows: usize, depth: usize, leaves: usize, known: Known) {
        // Poisoned only by a panic, which the core does not raise: go on rather than panic too.
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        let key = Self::key(set, rows, depth, leaves);
        if let Some(old) = map.get_mut(&key) {
            old.lower = old.lower.max(known.lower);
            if let Some((cost, sol)) = known.best {
                if old.best.as_ref().is_none_or(|(c, _)| cost < *c) {
                    old.best = Some((cost, sol));
                }
            }
            return;
        }
        if map.len() >= MAX_ENTRIES || map.try_reserve(1).is_err() {
            return;
        }
        map.insert(key, known);
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map.lock().map_or(0, |m| m.len())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn hashes_of_parts_add_up() {
        let k = RowKeys;
        let all = k.of(0..10);
        let left = k.of([1u32, 3, 5].into_iter());
        let right = k.of([0u32, 2, 4, 6, 7, 8, 9].into_iter());
        assert_eq!(all.minus(left), right);
        assert_ne!(left, right);
        assert_ne!(k.of([1u32, 2].into_iter()), k.of([0u32, 3].into_iter()));
    }

    #[test]
    fn the_cache_keeps_the_best_of_what_it_is_told() {
        let c = Cache::default();
        let h = RowKeys.of(0..4);
        c.put(
            h,
            4,
            2,
            4,
            Known {
                lower: 1.0,
                best: Some((3.0, Arc::new(Sol::leaf()))),
            },
        );
        c.put(
            h,
            4,
            2,
            4,
            Known {
                lower: 2.0,
                best: Some((5.0, Arc::new(Sol::leaf()))),
            },
        );
        let k = c.get(h, 4, 2, 4).unwrap();
        assert_eq!(k.lower, 2.0);
        assert_eq!(k.best.unwrap().0, 3.0);
        assert!(c.get(h, 4, 3, 4).is_none());
        assert_eq!(c.len(), 1);
    }
}
