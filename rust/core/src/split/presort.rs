//! Numeric columns sorted once per fit (SLIQ/SPRINT's pre-sorted attribute lists): each node
//! keeps, per numeric feature, the positions of its known rows in ascending value order, and
//! a split hands each child its share of those lists, order preserved, so no node sorts.
//!
//! Positions index the node's [`NodeRows`]. Children receive their rows in the parent's order
//! (see `partition` in the builder), so a stable hand-down keeps the lists ordered by
//! (value, position) — the order the per-node sort of [`Searcher::numeric`] used, which keeps
//! the trees bit-identical.
//!
//! A sparse column lists only its stored values ([`Entry`]; see [`super::sparse`]): in value
//! order for the exact search, in position order for the histogram search, which then counts
//! a node's stored values without reading its other rows.

use rayon::prelude::*;

use super::sparse::{by_value, entries_at, Entry};
use super::NodeRows;
use crate::control::Control;
use crate::data::{Column, Dataset};

/// Nodes at least this large sort or hand down their features in parallel; below it, the
/// work per feature is too small to pay for the tasks.
const PARALLEL_ROWS: usize = 4096;

/// One feature's list at a node.
#[derive(Debug, Clone, Default)]
enum List {
    /// Nothing kept: a categorical feature, one no longer searched, or a dense one in the
    /// histogram search.
    #[default]
    None,
    /// A dense numeric feature's known rows (positions) in ascending value order.
    Rows(Vec<u32>),
    /// A sparse feature's stored values at the node (see [`Order`]).
    Stored(Vec<Entry>),
}

/// How the lists of a fit are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// Ascending value (the exact search); a sparse feature's stored +0.0 values are left
    /// out, with the implicit zeros they equal.
    Value,
    /// Ascending position, sparse features only (the histogram search).
    Position,
}

/// Per feature, the node's known rows in ascending value order (or a sparse feature's
/// stored values); nothing for categorical features and features no longer searched.
#[derive(Debug, Default)]
pub(crate) struct Sorted {
    lists: Vec<List>,
}

impl Sorted {
    /// The root's lists: every numeric feature's non-missing rows sorted by (value, row), or
    /// with [`Order::Position`] only the sparse features' stored values.
    /// `None` when the memory cannot be had (recorded in `control`) or `control` stopped.
    pub(crate) fn root(
        data: &Dataset<'_>,
        rows: &NodeRows,
        order: Order,
        control: &Control,
    ) -> Option<Sorted> {
        let sort = |column: &Column<'_>| match column {
            // Sorting the root's columns is the longest stretch without a node: a stop is
            // noticed between columns.
            Column::Numeric(_) | Column::Sparse(_) if control.stopped() => None,
            Column::Numeric(_) if order == Order::Position => Some(List::None),
            Column::Numeric(values) => {
                let value = |i: u32| {
                    rows.rows
                        .get(i as usize)
                        .and_then(|&r| values.get(r as usize))
                        .copied()
                        .unwrap_or(f64::NAN)
                };
                let mut known: Vec<(f64, u32)> = control.vec(rows.len())?;
                known.extend(
                    (0..rows.len() as u32)
                        .map(|i| (value(i), i))
                        .filter(|(x, _)| !x.is_nan()),
                );
                known.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let mut list = control.vec(known.len())?;
                list.extend(known.into_iter().map(|(_, i)| i));
                Some(List::Rows(list))
            }
            Column::Sparse(c) => {
                let entries = entries_at(c, rows, Some(control))?;
                Some(List::Stored(match order {
                    Order::Value => by_value(c, entries),
                    Order::Position => entries,
                }))
            }
            Column::Categorical(_) => Some(List::None),
        };
        let lists = if rows.len() >= PARALLEL_ROWS {
            data.columns().par_iter().map(sort).collect::<Option<_>>()
        } else {
            data.columns().iter().map(sort).collect::<Option<_>>()
        };
        Some(Sorted { lists: lists? })
    }

    /// The known rows of dense numeric `feature` in ascending value order, if kept.
    pub(crate) fn list(&self, feature: usize) -> Option<&[u32]> {
        match self.lists.get(feature)? {
            List::Rows(list) => Some(list),
            _ => None,
        }
    }

    /// The stored values of sparse `feature` at the node, if kept.
    pub(crate) fn stored(&self, feature: usize) -> Option<&[Entry]> {
        match self.lists.get(feature)? {
            List::Stored(list) => Some(list),
            _ => None,
        }
    }

    /// Whether any list is kept (a split then records where its rows went).
    pub(crate) fn is_empty(&self) -> bool {
        self.lists.iter().all(|l| matches!(l, List::None))
    }

    /// Each child's lists, from where `routes` says each of this node's rows went. Each of
    /// the node's lists is freed once split, so the node's and its children's lists are
    /// never all held at once (at the root that is the size of the data in `u32`s).
    /// `None` when the memory cannot be had (recorded in `control`) or `control` stopped.
    pub(crate) fn hand_down(
        self,
        routes: &Routes,
        usable: &[bool],
        control: &Control,
    ) -> Option<Vec<Sorted>> {
        let n_children = routes.counts.len();
        let split = |(f, list): (usize, List)| -> Option<Vec<List>> {
            if control.stopped() {
                return None;
            }
            if !usable.get(f).copied().unwrap_or(false) {
                return Some(vec![List::None; n_children]);
            }
            Some(match list {
                List::Rows(list) => routes
                    .split_list(&list, control)?
                    .into_iter()
                    .map(List::Rows)
                    .collect(),
                List::Stored(list) => routes
                    .split_list(&list, control)?
                    .into_iter()
                    .map(List::Stored)
                    .collect(),
                List::None => vec![List::None; n_children],
            })
        };
        let per_feature: Vec<Vec<List>> = if routes.n_rows() >= PARALLEL_ROWS {
            self.lists
                .into_par_iter()
                .enumerate()
                .map(split)
                .collect::<Option<_>>()?
        } else {
            self.lists
                .into_iter()
                .enumerate()
                .map(split)
                .collect::<Option<_>>()?
        };
        let mut children: Vec<Sorted> = (0..n_children).map(|_| Sorted::default()).collect();
        for lists in per_feature {
            for (child, list) in children.iter_mut().zip(lists) {
                child.lists.push(list);
            }
        }
        Some(children)
    }
}

/// An item of a list that names a row of the node by its position, so that a split can
/// renumber it for the child it went to.
pub(crate) trait Placed: Copy {
    fn position(&self) -> u32;
    /// The same item at position `at`.
    fn at(self, at: u32) -> Self;
}

impl Placed for u32 {
    fn position(&self) -> u32 {
        *self
    }

    fn at(self, at: u32) -> Self {
        at
    }
}

/// Marks a row sent to every child with r̃_v > 0 (C4.5's fractional rows).
const SPREAD: u32 = u32::MAX;

/// Where each row of a node went when it split: its child and position there, or, for a row
/// spread over the children, its position in each of them.
#[derive(Debug, Default)]
pub(crate) struct Routes {
    /// Per parent row: the child index, or [`SPREAD`].
    child: Vec<u32>,
    /// Per parent row: the position in its child, or the spread row's index in `spread`.
    position: Vec<u32>,
    /// Per spread row, its position in each child (`u32::MAX` where it did not go).
    spread: Vec<u32>,
    /// Rows each child received so far.
    counts: Vec<u32>,
}

impl Routes {
    /// `None` when the memory cannot be had (recorded in `control`).
    pub(crate) fn new(n_rows: usize, n_children: usize, control: &Control) -> Option<Routes> {
        Some(Routes {
            child: control.vec(n_rows)?,
            position: control.vec(n_rows)?,
            spread: Vec::new(),
            counts: vec![0; n_children],
        })
    }

    fn n_rows(&self) -> usize {
        self.child.len()
    }

    /// Records the next parent row, sent to `child` alone.
    pub(crate) fn went_to(&mut self, child: usize) {
        let at = self.counts.get_mut(child).map_or(u32::MAX, |n| {
            *n += 1;
            *n - 1
        });
        self.child.push(child as u32);
        self.position.push(at);
    }

    /// Records the next parent row, sent to every child `c` with `takes(c)`.
    pub(crate) fn spread_over(&mut self, takes: impl Fn(usize) -> bool) {
        self.child.push(SPREAD);
        let n_children = self.counts.len();
        self.position
            .push((self.spread.len() / n_children.max(1)) as u32);
        for (c, n) in self.counts.iter_mut().enumerate() {
            if takes(c) {
                self.spread.push(*n);
                *n += 1;
            } else {
                self.spread.push(u32::MAX);
            }
        }
    }

    /// One list split into the children's, order kept.
    fn split_list<T: Placed>(&self, list: &[T], control: &Control) -> Option<Vec<Vec<T>>> {
        let n_children = self.counts.len();
        let mut out: Vec<Vec<T>> = self
            .counts
            .iter()
            .map(|&n| control.vec(n as usize))
            .collect::<Option<_>>()?;
        for &item in list {
            let i = item.position() as usize;
            let (Some(&child), Some(&at)) = (self.child.get(i), self.position.get(i)) else {
                continue;
            };
            if child != SPREAD {
                if let Some(dst) = out.get_mut(child as usize) {
                    dst.push(item.at(at));
                }
                continue;
            }
            let start = at as usize * n_children;
            let places = self.spread.get(start..start + n_children).unwrap_or(&[]);
            for (dst, &p) in out.iter_mut().zip(places) {
                if p != u32::MAX {
                    dst.push(item.at(p));
                }
            }
        }
        Some(out)
    }
}
