//! Solved subproblems, keyed by their row set (MurTree's dataset caching): the same rows
//! reached by different paths (`a` then `b`, or `b` then `a`) are solved once.
//!
//! A row set is named by two independent 64-bit sums of random per-row keys (a sum, so that
//! a child's hash is the parent's minus its sibling's): two different sets collide with
//! probability about 2⁻¹²⁸, far below any hardware error rate, so the cache stores no row
//! lists. An entry keeps the best lower bound proven for the set at a depth and leaf budget
//! and the best tree found, which is optimal once its cost meets the bound.
//!
//! A cache may be opened as a layer over another ([`Cache::layer`]): it reads through to the
//! other, which nobody writes meanwhile, and keeps what it learns to itself until it is
//! absorbed. The root's columns searched side by side each work in a layer, so what one
//! learns reaches the others only where the search order says, whatever the threads.

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

impl Known {
    /// Learns `other` as well: the larger bound and the cheaper tree (the one known first
    /// on a tie).
    fn learn(&mut self, other: Known) {
        self.lower = self.lower.max(other.lower);
        if let Some((cost, sol)) = other.best {
            if self.best.as_ref().is_none_or(|(c, _)| cost < *c) {
                self.best = Some((cost, sol));
            }
        }
    }
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

/// The cache of one fit, or a layer of it. A mutex, not a map per thread: a layer has one
/// search thread (other threads work inside its subproblems' scans), and its base is only
/// read meanwhile, so neither is contended much.
#[derive(Debug, Default)]
pub(crate) struct Cache<'b> {
    map: Mutex<HashMap<Key, Known>>,
    /// What this layer reads through to.
    base: Option<&'b Cache<'b>>,
}

impl Cache<'_> {
    /// A layer over this cache, which must not be written until the layer is absorbed.
    pub(crate) fn layer(&self) -> Cache<'_> {
        Cache {
            map: Mutex::default(),
            base: Some(self),
        }
    }

    /// Learns what `layer` (opened over this cache) learned.
    pub(crate) fn absorb(&self, layer: Cache<'_>) {
        let learned = layer
            .map
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        for (key, known) in learned {
            self.put_key(key, known);
        }
    }

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
        self.get_key(&Self::key(set, rows, depth, leaves))
    }

    /// What this layer learned of `key`, over what its base knows.
    fn get_key(&self, key: &Key) -> Option<Known> {
        let below = self.base.and_then(|b| b.get_key(key));
        // Poisoned only by a panic, which the core does not raise: go on rather than panic too.
        let map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        let own = map.get(key).cloned();
        match (below, own) {
            (Some(mut below), Some(own)) => {
                below.learn(own);
                Some(below)
            }
            (below, own) => own.or(below),
        }
    }

    /// Records a bound and a tree: the larger bound and the cheaper tree are kept. Nothing is
    /// recorded once the cache is full or its memory cannot be had.
    pub(crate) fn put(&self, set: SetHash, rows: usize, depth: usize, leaves: usize, known: Known) {
        self.put_key(Self::key(set, rows, depth, leaves), known);
    }

    fn put_key(&self, key: Key, known: Known) {
        // Poisoned only by a panic, which the core does not raise: go on rather than panic too.
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(old) = map.get_mut(&key) {
            old.learn(known);
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

    #[test]
    fn a_layer_reads_through_and_keeps_to_itself_until_absorbed() {
        let known = |lower: f64, cost: f64| Known {
            lower,
            best: Some((cost, Arc::new(Sol::leaf()))),
        };
        let c = Cache::default();
        let (a, b) = (RowKeys.of(0..4), RowKeys.of(4..8));
        c.put(a, 4, 2, 4, known(1.0, 3.0));
        let layer = c.layer();
        layer.put(a, 4, 2, 4, known(2.0, 5.0));
        layer.put(b, 4, 2, 4, known(0.5, 0.5));
        let k = layer.get(a, 4, 2, 4).unwrap();
        assert_eq!((k.lower, k.best.unwrap().0), (2.0, 3.0));
        assert!(c.get(b, 4, 2, 4).is_none());
        assert_eq!(c.get(a, 4, 2, 4).unwrap().lower, 1.0);
        c.absorb(layer);
        assert_eq!(c.get(a, 4, 2, 4).unwrap().lower, 2.0);
        assert_eq!(c.get(b, 4, 2, 4).unwrap().best.unwrap().0, 0.5);
        assert_eq!(c.len(), 2);
    }
}
