//! A subproblem's rows: the row ids, and per ordering the rows in rank order (SLIQ's
//! presorted lists, handed down stably when a node splits, so no node sorts), with the hash
//! of the row set that keys the cache.

use rayon::prelude::*;

use super::cache::{RowKeys, SetHash};
use super::columns::Columns;
use super::solution::Test;
use crate::control::Control;

/// One row in an ordering's list: the row and its rank there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub row: u32,
    pub rank: u32,
}

/// Rows times orderings from which a split hands its lists down on several threads.
const PARALLEL_ENTRIES: usize = 1 << 16;

/// The rows of a subproblem.
#[derive(Debug)]
pub(crate) struct Node {
    /// Ascending row ids.
    pub rows: Vec<u32>,
    /// `orderings × rows.len()` entries: ordering `o`'s list at `o * len ..`.
    lists: Vec<Entry>,
    pub hash: SetHash,
}

impl Node {
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// Ordering `o`'s rows in (rank, row) order; none for a node made without its lists
    /// ([`Node::split`]'s `lists`).
    pub(crate) fn list(&self, o: usize) -> &[Entry] {
        let n = self.rows.len();
        self.lists.get(o * n..(o + 1) * n).unwrap_or(&[])
    }

    /// Every training row, each ordering sorted once. `None` when the memory cannot be had
    /// (recorded in `control`) or `control` stopped.
    pub(crate) fn root(
        columns: &Columns,
        n_rows: usize,
        keys: &RowKeys,
        control: &Control,
    ) -> Option<Node> {
        let mut rows = control.vec(n_rows)?;
        rows.extend(0..n_rows as u32);
        let mut lists = control.vec(n_rows.saturating_mul(columns.orderings.len()))?;
        lists.resize(n_rows * columns.orderings.len(), Entry { row: 0, rank: 0 });
        if n_rows > 0 {
            lists
                .par_chunks_mut(n_rows)
                .zip(&columns.orderings)
                .try_for_each(|(list, ordering)| {
                    if control.stopped() {
                        return None;
                    }
                    for (slot, (row, &rank)) in
                        list.iter_mut().zip(ordering.rank.iter().enumerate())
                    {
                        *slot = Entry {
                            row: row as u32,
                            rank,
                        };
                    }
                    list.sort_unstable_by_key(|e| (u64::from(e.rank) << 32) | u64::from(e.row));
                    Some(())
                })?;
        }
        let hash = keys.of(rows.iter().copied());
        Some(Node { rows, lists, hash })
    }

    /// The two children of `test`, their lists in this node's order (`lists`; else rows
    /// only, for subproblems that never read the lists: binary features' depth-two counts).
    /// `side` is scratch of one byte per training row. `None` when the memory cannot be had
    /// (recorded in `control`).
    pub(crate) fn split(
        &self,
        columns: &Columns,
        test: Test,
        lists: bool,
        side: &mut [u8],
        keys: &RowKeys,
        control: &Control,
    ) -> Option<(Node, Node)> {
        mark(self, columns, test, side);
        let goes_left = |r: u32| side.get(r as usize).copied().unwrap_or(0) == 0; // side: every row
        let n_left = self.rows.iter().filter(|&&r| goes_left(r)).count();
        let n_right = self.len() - n_left;
        let mut left_rows = control.vec(n_left)?;
        let mut right_rows = control.vec(n_right)?;
        for &r in &self.rows {
            if goes_left(r) {
                left_rows.push(r);
            } else {
                right_rows.push(r);
            }
        }
        let n_orderings = if lists { columns.orderings.len() } else { 0 };
        let mut left = control.vec(n_left * n_orderings)?;
        left.resize(n_left * n_orderings, Entry { row: 0, rank: 0 });
        let mut right = control.vec(n_right * n_orderings)?;
        right.resize(n_right * n_orderings, Entry { row: 0, rank: 0 });
        let hand_down = |((list, l), r): ((&[Entry], &mut [Entry]), &mut [Entry])| {
            let (mut i, mut j) = (0, 0);
            for &e in list {
                if goes_left(e.row) {
                    if let Some(slot) = l.get_mut(i) {
                        *slot = e;
                    }
                    i += 1;
                } else {
                    if let Some(slot) = r.get_mut(j) {
                        *slot = e;
                    }
                    j += 1;
                }
            }
        };
        if n_left > 0 && n_right > 0 {
            let lists = self.lists.chunks(self.len());
            if self.lists.len() >= PARALLEL_ENTRIES {
                lists
                    .collect::<Vec<_>>()
                    .into_par_iter()
                    .zip(left.par_chunks_mut(n_left))
                    .zip(right.par_chunks_mut(n_right))
                    .for_each(hand_down);
            } else {
                lists
                    .zip(left.chunks_mut(n_left))
                    .zip(right.chunks_mut(n_right))
                    .for_each(hand_down);
            }
        }
        let left_hash = keys.of(left_rows.iter().copied());
        let right_hash = self.hash.minus(left_hash);
        Some((
            Node {
                rows: left_rows,
                lists: left,
                hash: left_hash,
            },
            Node {
                rows: right_rows,
                lists: right,
                hash: right_hash,
            },
        ))
    }
}

/// Sets `side[r]` to 0 for the node's rows `test` sends left and 1 for the others.
pub(crate) fn mark(node: &Node, columns: &Columns, test: Test, side: &mut [u8]) {
    match test {
        Test::Threshold { column, left, .. } => {
            for e in node.list(column as usize) {
                if let Some(s) = side.get_mut(e.row as usize) {
                    *s = u8::from(e.rank > left);
                }
            }
        }
        Test::Subset { nominal, left } => {
            let Some(n) = columns.nominals.get(nominal as usize) else {
                return;
            };
            for &r in &node.rows {
                let code = n.code.get(r as usize).copied().unwrap_or(0); // a training row
                let to_left = code < 64 && (left >> code) & 1 == 1;
                if let Some(s) = side.get_mut(r as usize) {
                    *s = u8::from(!to_left);
                }
            }
        }
    }
}
