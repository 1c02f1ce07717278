//! Numeric columns sorted once per fit (SLIQ/SPRINT's pre-sorted attribute lists): each node
//! keeps, per numeric feature, the positions of its known rows in ascending value order, and
//! a split hands each child its share of those lists, order preserved, so no node sorts.
//!
//! Positions index the node's [`NodeRows`]. Children receive their rows in the parent's order
//! (see `partition` in the builder), so a stable hand-down keeps the lists ordered by
//! (value, position) — the order the per-node sort of [`Searcher::numeric`] used, which keeps
//! the trees bit-identical.

use rayon::prelude::*;

use super::NodeRows;
use crate::control::Control;
use crate::data::{Column, Dataset};

/// Nodes at least this large sort or hand down their features in parallel; below it, the
/// work per feature is too small to pay for the tasks.
const PARALLEL_ROWS: usize = 4096;

/// Per feature, the node's known rows in ascending value order; `None` for categorical
/// features and features no longer searched.
#[derive(Debug, Default)]
pub(crate) struct Sorted {
    lists: Vec<Option<Vec<u32>>>,
}

impl Sorted {
    /// The root's lists: every numeric feature's non-missing rows sorted by (value, row).
    /// `None` when the memory cannot be had (recorded in `control`) or `control` stopped.
    pub(crate) fn root(data: &Dataset<'_>, rows: &NodeRows, control: &Control) -> Option<Sorted> {
        let sort = |column: &Column<'_>| match column {
            // Sorting the root's columns is the longest stretch without a node: a stop is
            // noticed between columns.
            Column::Numeric(_) if control.stopped() => None,
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
                Some(Some(list))
            }
            Column::Categorical(_) => Some(None),
        };
        let lists = if rows.len() >= PARALLEL_ROWS {
            data.columns().par_iter().map(sort).collect::<Option<_>>()
        } else {
            data.columns().iter().map(sort).collect::<Option<_>>()
        };
        Some(Sorted { lists: lists? })
    }

    /// The known rows of numeric `feature` in ascending value order, if kept.
    pub(crate) fn list(&self, feature: usize) -> Option<&[u32]> {
        self.lists.get(feature)?.as_deref()
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
        let split = |(f, list): (usize, Option<Vec<u32>>)| -> Option<Vec<Option<Vec<u32>>>> {
            if control.stopped() {
                return None;
            }
            match list {
                Some(list) if usable.get(f).copied().unwrap_or(false) => Some(
                    routes
                        .split_list(&list, control)?
                        .into_iter()
                        .map(Some)
                        .collect(),
                ),
                _ => Some(vec![None; n_children]),
            }
        };
        let per_feature: Vec<Vec<Option<Vec<u32>>>> = if routes.n_rows() >= PARALLEL_ROWS {
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

    /// One sorted list split into the children's, order kept.
    fn split_list(&self, list: &[u32], control: &Control) -> Option<Vec<Vec<u32>>> {
        let n_children = self.counts.len();
        let mut out: Vec<Vec<u32>> = self
            .counts
            .iter()
            .map(|&n| control.vec(n as usize))
            .collect::<Option<_>>()?;
        for &i in list {
            let i = i as usize;
            let (Some(&child), Some(&at)) = (self.child.get(i), self.position.get(i)) else {
                continue;
            };
            if child != SPREAD {
                if let Some(dst) = out.get_mut(child as usize) {
                    dst.push(at);
                }
                continue;
            }
            let start = at as usize * n_children;
            let places = self.spread.get(start..start + n_children).unwrap_or(&[]);
            for (dst, &p) in out.iter_mut().zip(places) {
                if p != u32::MAX {
                    dst.push(p);
                }
            }
        }
        Some(out)
    }
}
