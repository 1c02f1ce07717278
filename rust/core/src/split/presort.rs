//! Numeric columns sorted once per fit (SLIQ/SPRINT's pre-sorted attribute lists): each node
//! keeps, per numeric feature, the positions of its known rows in ascending value order, and
//! a split hands each child its share of those lists, order preserved, so no node sorts.
//!
//! Positions index the node's [`NodeRows`]. Children receive their rows in the parent's order
//! (see `partition` in the builder), so a stable hand-down keeps the lists ordered by
//! (value, position) — the order the per-node sort of [`Searcher::numeric`] used, which keeps
//! the trees bit-identical.
//!
//! Each entry of a dense list also says, in its top bit ([`NEW_VALUE`]), whether its value is above the previous entry's: a scan then finds its
//! cuts without reading the column at the node's rows, which are scattered over the data set
//! (that random read was most of the exact search's time). A hand-down keeps the bit
//! right: a child's entry is above its predecessor there when some entry of the parent's
//! list between them (it included) was above its own predecessor.
//!
//! A sparse column lists only its stored values ([`Entry`]; see [`super::sparse`]): in value
//! order for the exact search, in position order for the histogram search, which then counts
//! a node's stored values without reading its other rows.

use rayon::prelude::*;

use super::sparse::{by_value, entries_at, Entry};
use super::NodeRows;
use crate::control::Control;
use crate::data::{with_numbers, Column, Dataset, Float};

/// Nodes at least this large sort or hand down their features in parallel; below it, the
/// work per feature is too small to pay for the tasks.
const PARALLEL_ROWS: usize = 4096;

/// Columns of at least this many rows are sorted one at a time, each sort's passes split over
/// the pool's threads ([`sorted_list`]): sorted side by side, every thread's keys and their
/// copy (16 bytes a row for float32, 32 for float64) were live at once on top of the lists
/// already made, the peak of an exact fit (2M x 20 float32: 61 of 245 MiB).
const ONE_AT_A_TIME_ROWS: usize = 1 << 18;

/// Set in a dense list's entry whose value is above the previous entry's (see the module's
/// documentation); the other bits are the position. Lists are kept for fits of fewer rows
/// than this ([`presorts`]).
pub(crate) const NEW_VALUE: u32 = 1 << 31;

/// The position in the node's rows of a dense list's entry.
#[inline]
pub(crate) fn position(entry: u32) -> usize {
    (entry & !NEW_VALUE) as usize
}

/// Whether a fit of `n_rows` rows can keep sorted lists (their positions leave the top bit
/// free for [`NEW_VALUE`]); a larger one sorts at each node, to the same trees.
pub(crate) fn presorts(n_rows: usize) -> bool {
    n_rows < NEW_VALUE as usize
}

/// One feature's list at a node.
#[derive(Debug, Clone, Default)]
enum List {
    /// Nothing kept: a categorical feature, one no longer searched, or a dense one in the
    /// histogram search.
    #[default]
    None,
    /// A dense numeric feature's known rows (positions, flagged with [`NEW_VALUE`]) in
    /// ascending value order.
    Rows(Vec<u32>),
    /// A sparse feature: its stored values are in the node's [`Stored`].
    Stored,
}

/// The sparse features' stored values at a node (see [`Order`]), feature after feature in
/// one buffer, as a CSC matrix of the node's rows: a split costs the node's stored values
/// and two buffers per child, however many features are sparse (wide sparse data have tens
/// of thousands, most with no stored value at a deep node).
#[derive(Debug, Default)]
struct Stored {
    entries: Vec<Entry>,
    /// Feature `f`'s entries are `entries[starts[f]..starts[f + 1]]`; empty when no
    /// feature is sparse.
    starts: Vec<usize>,
}

impl Stored {
    fn of(&self, feature: usize) -> &[Entry] {
        match (self.starts.get(feature), self.starts.get(feature + 1)) {
            (Some(&a), Some(&b)) => self.entries.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }
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
    stored: Stored,
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
        // A large root sorts its columns one at a time, each on every thread.
        let one_at_a_time = rows.len() >= ONE_AT_A_TIME_ROWS;
        let parts = if one_at_a_time {
            rayon::current_num_threads()
        } else {
            1
        };
        let sort = |column: &Column<'_>| match column {
            // Sorting the root's columns is the longest stretch without a node: a stop is
            // noticed between columns.
            Column::Numeric(_) | Column::Sparse(_) if control.stopped() => None,
            Column::Numeric(_) if order == Order::Position => Some(List::None),
            Column::Numeric(values) => with_numbers!(values, |values| {
                let value = |i: u32| values.value(*rows.rows.get(i as usize)? as usize);
                Some(List::Rows(sorted_list(rows.len(), value, parts, control)?))
            }),
            Column::Sparse(_) => Some(List::Stored),
            Column::Categorical(_) => Some(List::None),
        };
        let stored = |column: &Column<'_>| match column {
            Column::Sparse(_) if control.stopped() => None,
            Column::Sparse(c) => {
                let entries = entries_at(c, rows, Some(control))?;
                Some(match order {
                    Order::Value => by_value(c, entries),
                    Order::Position => entries,
                })
            }
            _ => Some(Vec::new()),
        };
        let (lists, per_feature): (Option<Vec<List>>, Option<Vec<Vec<Entry>>>) =
            if rows.len() >= PARALLEL_ROWS {
                let columns = data.columns();
                rayon::join(
                    || match one_at_a_time {
                        true => columns.iter().map(sort).collect(),
                        false => columns.par_iter().map(sort).collect(),
                    },
                    || columns.par_iter().map(stored).collect(),
                )
            } else {
                let columns = data.columns().iter();
                (
                    columns.clone().map(sort).collect(),
                    columns.map(stored).collect(),
                )
            };
        let per_feature = per_feature?;
        let mut stored = Stored::default();
        if data
            .columns()
            .iter()
            .any(|c| matches!(c, Column::Sparse(_)))
        {
            stored.entries = control.vec(per_feature.iter().map(Vec::len).sum())?;
            stored.starts = control.vec(per_feature.len() + 1)?;
            for entries in per_feature {
                stored.starts.push(stored.entries.len());
                stored.entries.extend(entries);
            }
            stored.starts.push(stored.entries.len());
        }
        Some(Sorted {
            lists: lists?,
            stored,
        })
    }

    /// The known rows of dense numeric `feature` in ascending value order, if kept, each
    /// flagged with [`NEW_VALUE`] where its value is above the previous one's.
    pub(crate) fn list(&self, feature: usize) -> Option<&[u32]> {
        match self.lists.get(feature)? {
            List::Rows(list) => Some(list),
            _ => None,
        }
    }

    /// The stored values of sparse `feature` at the node, if kept.
    pub(crate) fn stored(&self, feature: usize) -> Option<&[Entry]> {
        match self.lists.get(feature)? {
            List::Stored => Some(self.stored.of(feature)),
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
                List::Stored => vec![List::Stored; n_children],
                List::None => vec![List::None; n_children],
            })
        };
        let kept = |f: usize| {
            usable.get(f).copied().unwrap_or(false)
                && matches!(self.lists.get(f), Some(List::Stored))
        };
        let stored = routes.split_stored(&self.stored, kept, control)?;
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
        let mut children: Vec<Sorted> = stored
            .into_iter()
            .map(|stored| Sorted {
                lists: Vec::with_capacity(per_feature.len()),
                stored,
            })
            .collect();
        for lists in per_feature {
            for (child, list) in children.iter_mut().zip(lists) {
                child.lists.push(list);
            }
        }
        Some(children)
    }
}

/// The list of positions `0..n` whose `value` is known, in ascending (value, position)
/// order, each flagged with [`NEW_VALUE`] where its value is above the previous one's.
///
/// A least-significant-digit radix sort, a byte a pass, of the values' bits mapped so that
/// integer order is [`f64::total_cmp`]'s ([`OrderKey`]): stable, so equal values keep their
/// positions' order. A pass whose byte every value shares moves nothing and is skipped.
/// A float32 column sorts its own 32-bit keys, half the memory and passes of its float64
/// copy's (which has its low 29 bits zero), in the same order: the conversion is exact and
/// keeps order. Several times faster than a comparison sort on the root's columns, which
/// this sorts once per fit. Missing values (and positions `value` has none for) are sorted
/// as NaN, to the ends (`total_cmp` puts negative NaNs first, positive ones last), and left
/// out of the list. Every step is cut in `parts` parts run side by side (1: on this thread).
/// `None` when the memory cannot be had (recorded in `control`).
fn sorted_list<T: OrderKey>(
    n: usize,
    value: impl Fn(u32) -> Option<T> + Sync,
    parts: usize,
    control: &Control,
) -> Option<Vec<u32>> {
    let mut keys: Vec<(T::Key, u32)> = control.vec(n)?;
    let key = |i: u32| (value(i).unwrap_or(T::NAN).order_key(), i);
    if parts > 1 {
        keys.par_extend((0..n as u32).into_par_iter().map(key));
    } else {
        keys.extend((0..n as u32).map(key));
    }
    radix_sort(
        &mut keys,
        |&(key, _)| key.into(),
        std::mem::size_of::<T::Key>(),
        parts,
        Some(control),
    )?;
    let missing = |&(key, _): &(T::Key, u32)| T::of_key(key).into().is_nan();
    let first = keys.iter().position(|k| !missing(k)).unwrap_or(keys.len());
    let last = keys
        .iter()
        .rposition(|k| !missing(k))
        .map_or(first, |l| l + 1);
    let known = keys.get(first..last).unwrap_or_default();
    let mut list = control.vec(known.len())?;
    // -0.0 and +0.0 are one value, as the scans compare them.
    let entry = |k: usize| {
        let x: f64 = known
            .get(k)
            .map_or(f64::NAN, |&(key, _)| T::of_key(key).into());
        let previous = k
            .checked_sub(1)
            .and_then(|p| known.get(p))
            .map_or(f64::NEG_INFINITY, |&(key, _)| T::of_key(key).into());
        let i = known.get(k).map_or(0, |&(_, i)| i);
        i | if x > previous { NEW_VALUE } else { 0 }
    };
    if parts > 1 {
        list.par_extend((0..known.len()).into_par_iter().map(entry));
    } else {
        list.extend((0..known.len()).map(entry));
    }
    Some(list)
}

/// Sorts `items` stably by `key`, of which the low `bytes` bytes may differ: least
/// significant digit first, a byte a pass; a pass whose byte every key shares moves nothing
/// and is skipped. With `parts` > 1 each pass is cut in that many parts, counted and moved
/// side by side, each into its own share of every digit's place. `None` when the memory
/// cannot be had (recorded in `control`).
pub(super) fn radix_sort<I: Copy + Default + Send + Sync>(
    items: &mut Vec<I>,
    key: impl Fn(&I) -> u64 + Sync,
    bytes: usize,
    parts: usize,
    control: Option<&Control>,
) -> Option<()> {
    let mut counts = [[0usize; 256]; 8];
    for item in items.iter() {
        let key = key(item);
        for (byte, count) in counts.iter_mut().take(bytes).enumerate() {
            if let Some(c) = count.get_mut(digit(key, byte)) {
                *c += 1;
            }
        }
    }
    let mut moved: Vec<I> = match control {
        Some(c) => c.filled(items.len(), I::default())?,
        None => vec![I::default(); items.len()],
    };
    let chunk = items.len().div_ceil(parts.max(1)).max(1);
    for (byte, count) in counts.iter().take(bytes).enumerate() {
        if count.contains(&items.len()) {
            continue;
        }
        if parts > 1 {
            pass_in_parts(items, &mut moved, |item| digit(key(item), byte), chunk);
        } else {
            let mut next = [0usize; 256];
            let mut start = 0;
            for (next, &c) in next.iter_mut().zip(count) {
                *next = start;
                start += c;
            }
            for item in items.iter() {
                if let Some(at) = next.get_mut(digit(key(item), byte)) {
                    if let Some(slot) = moved.get_mut(*at) {
                        *slot = *item;
                    }
                    *at += 1;
                }
            }
        }
        std::mem::swap(items, &mut moved);
    }
    Some(())
}

/// One pass of [`radix_sort`] cut in parts of `chunk` items: each part counts its digits,
/// then moves its items, in order, into its own share of each digit's place in `moved`
/// (after the shares of the parts before it), so the pass is as stable as one on a thread.
fn pass_in_parts<I: Copy + Send + Sync>(
    items: &[I],
    moved: &mut [I],
    digit: impl Fn(&I) -> usize + Sync,
    chunk: usize,
) {
    let counts: Vec<[usize; 256]> = items
        .par_chunks(chunk)
        .map(|part| {
            let mut count = [0usize; 256];
            for item in part {
                if let Some(c) = count.get_mut(digit(item)) {
                    *c += 1;
                }
            }
            count
        })
        .collect();
    // Each part's places, digit by digit: `moved` cut in order (digit, then part).
    let mut places: Vec<Vec<&mut [I]>> = counts.iter().map(|_| Vec::with_capacity(256)).collect();
    let mut rest = moved;
    for d in 0..256 {
        for (count, place) in counts.iter().zip(places.iter_mut()) {
            let n = count.get(d).copied().unwrap_or(0).min(rest.len());
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(n);
            place.push(head);
            rest = tail;
        }
    }
    items
        .par_chunks(chunk)
        .zip(places.par_iter_mut())
        .for_each(|(part, place)| {
            let mut at = [0usize; 256];
            for item in part {
                let d = digit(item);
                if let (Some(slots), Some(at)) = (place.get_mut(d), at.get_mut(d)) {
                    if let Some(slot) = slots.get_mut(*at) {
                        *slot = *item;
                    }
                    *at += 1;
                }
            }
        });
}

/// A number type's bits as an unsigned integer ordered as `total_cmp` orders the numbers:
/// negative values' bits inverted, positive ones' sign bit set.
pub(super) trait OrderKey: Float {
    type Key: Copy + Default + Into<u64> + Send + Sync;
    /// A missing value.
    const NAN: Self;
    fn order_key(self) -> Self::Key;
    fn of_key(key: Self::Key) -> Self;
}

impl OrderKey for f64 {
    type Key = u64;
    const NAN: f64 = f64::NAN;

    #[inline]
    fn order_key(self) -> u64 {
        let bits = self.to_bits();
        if bits >> 63 == 1 {
            !bits
        } else {
            bits | 1 << 63
        }
    }

    #[inline]
    fn of_key(key: u64) -> f64 {
        f64::from_bits(if key >> 63 == 1 {
            key & !(1 << 63)
        } else {
            !key
        })
    }
}

impl OrderKey for f32 {
    type Key = u32;
    const NAN: f32 = f32::NAN;

    #[inline]
    fn order_key(self) -> u32 {
        let bits = self.to_bits();
        if bits >> 31 == 1 {
            !bits
        } else {
            bits | 1 << 31
        }
    }

    #[inline]
    fn of_key(key: u32) -> f32 {
        f32::from_bits(if key >> 31 == 1 {
            key & !(1 << 31)
        } else {
            !key
        })
    }
}

/// Byte `byte` (0: the lowest) of `key`.
#[inline]
fn digit(key: u64, byte: usize) -> usize {
    ((key >> (8 * byte)) & 0xff) as usize
}

/// Marks a row sent to every child with r̃_v > 0 (C4.5's fractional rows).
const SPREAD: u32 = u32::MAX;

/// Set in a [`Went::Pair`] entry of a row that went to the second child.
const SECOND: u32 = 1 << 31;

/// A [`Went::Pair`] entry's child (0 or 1) and position there.
#[inline]
fn pair_place(w: u32) -> (usize, u32) {
    (usize::from(w & SECOND != 0), w & !SECOND)
}

/// Where each row of a node went when it split: its child and position there, or, for a row
/// spread over the children, its position in each of them.
#[derive(Debug, Default)]
pub(crate) struct Routes {
    /// Per parent row, where it went; read at random by a hand-down.
    went: Went,
    /// Per spread row, its position in each child (`u32::MAX` where it did not go).
    spread: Vec<u32>,
    /// Rows each child received so far.
    counts: Vec<u32>,
    /// The parent's rows, for which [`Self::prepare`] makes room.
    n_rows: usize,
}

/// Per parent row, where it went.
#[derive(Debug)]
enum Went {
    /// A binary split without spread rows (every CART split): the row's position in its
    /// child, with [`SECOND`] set for the second child. 4 bytes a row where the general form
    /// takes 8: the root's routes are held beside every sorted list at the fit's peak.
    Pair(Vec<u32>),
    /// The child index, or [`SPREAD`]; and the position in the child, or the spread row's
    /// index in `spread`.
    Any(Vec<(u32, u32)>),
}

impl Default for Went {
    fn default() -> Self {
        Went::Any(Vec::new())
    }
}

impl Routes {
    /// The routes of `n_rows` parent rows split over `n_children`; [`Self::prepare`] makes
    /// their room.
    pub(crate) fn new(n_rows: usize, n_children: usize) -> Routes {
        Routes {
            went: Went::default(),
            spread: Vec::new(),
            counts: vec![0; n_children],
            n_rows,
        }
    }

    /// Room for every parent row's route, once the split has counted whether any row is
    /// spread. `None` when the memory cannot be had (recorded in `control`).
    pub(crate) fn prepare(&mut self, spread: bool, control: &Control) -> Option<()> {
        self.went = if self.counts.len() == 2 && !spread && self.n_rows < SECOND as usize {
            Went::Pair(control.vec(self.n_rows)?)
        } else {
            Went::Any(control.vec(self.n_rows)?)
        };
        Some(())
    }

    fn n_rows(&self) -> usize {
        match &self.went {
            Went::Pair(went) => went.len(),
            Went::Any(went) => went.len(),
        }
    }

    /// Records the next parent row, sent to `child` alone.
    pub(crate) fn went_to(&mut self, child: usize) {
        let at = self.counts.get_mut(child).map_or(u32::MAX, |n| {
            *n += 1;
            *n - 1
        });
        match &mut self.went {
            Went::Pair(went) => went.push(at | if child == 1 { SECOND } else { 0 }),
            Went::Any(went) => went.push((child as u32, at)),
        }
    }

    /// Records the next parent row, sent to every child `c` with `takes(c)` (never for
    /// [`Went::Pair`], prepared for splits without such rows).
    pub(crate) fn spread_over(&mut self, takes: impl Fn(usize) -> bool) {
        let n_children = self.counts.len();
        if let Went::Any(went) = &mut self.went {
            went.push((SPREAD, (self.spread.len() / n_children.max(1)) as u32));
        }
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
    /// Calls `to(child, position)` for each child the row at parent position `i` went to,
    /// with its position there.
    #[inline]
    fn targets(&self, i: u32, mut to: impl FnMut(usize, u32)) {
        let i = i as usize;
        let went = match &self.went {
            Went::Pair(went) => {
                if let Some(&w) = went.get(i) {
                    let (c, at) = pair_place(w);
                    to(c, at);
                }
                return;
            }
            Went::Any(went) => went,
        };
        let Some(&(child, at)) = went.get(i) else {
            return;
        };
        if child != SPREAD {
            to(child as usize, at);
            return;
        }
        let n_children = self.counts.len();
        let start = at as usize * n_children;
        let places = self.spread.get(start..start + n_children).unwrap_or(&[]);
        for (c, &p) in places.iter().enumerate() {
            if p != u32::MAX {
                to(c, p);
            }
        }
    }

    /// The stored values of the features where `kept(f)` split into the children's, order
    /// kept; the other features' are left empty.
    fn split_stored(
        &self,
        stored: &Stored,
        kept: impl Fn(usize) -> bool,
        control: &Control,
    ) -> Option<Vec<Stored>> {
        let n_children = self.counts.len();
        if stored.starts.is_empty() {
            return Some((0..n_children).map(|_| Stored::default()).collect());
        }
        let n_features = stored.starts.len() - 1;
        let mut counts = vec![0usize; n_children];
        for f in (0..n_features).filter(|&f| kept(f)) {
            for e in stored.of(f) {
                self.targets(e.pos, |c, _| {
                    if let Some(n) = counts.get_mut(c) {
                        *n += 1;
                    }
                });
            }
        }
        let mut out: Vec<Stored> = counts
            .iter()
            .map(|&n| {
                Some(Stored {
                    entries: control.vec(n)?,
                    starts: control.vec(n_features + 1)?,
                })
            })
            .collect::<Option<_>>()?;
        for f in 0..n_features {
            for child in out.iter_mut() {
                child.starts.push(child.entries.len());
            }
            if !kept(f) {
                continue;
            }
            for &e in stored.of(f) {
                self.targets(e.pos, |c, at| {
                    if let Some(child) = out.get_mut(c) {
                        child.entries.push(Entry { pos: at, ..e });
                    }
                });
            }
        }
        for child in out.iter_mut() {
            child.starts.push(child.entries.len());
        }
        Some(out)
    }

    /// One sorted list split into the children's, order kept, with each entry's
    /// [`NEW_VALUE`] flag: set where the parent's list crossed a new value since the child's
    /// previous entry (`crossed` counts those crossings; `seen[c]`, the count at child `c`'s
    /// last entry).
    fn split_list(&self, list: &[u32], control: &Control) -> Option<Vec<Vec<u32>>> {
        if let (Went::Pair(went), [n0, n1]) = (&self.went, self.counts.as_slice()) {
            return split_pair(went, list, [*n0 as usize, *n1 as usize], control);
        }
        let mut out: Vec<Vec<u32>> = self
            .counts
            .iter()
            .map(|&n| control.vec(n as usize))
            .collect::<Option<_>>()?;
        let mut seen = vec![0usize; out.len()];
        let mut crossed = 0usize;
        for &e in list {
            crossed += usize::from(e & NEW_VALUE != 0);
            self.targets(e & !NEW_VALUE, |c, at| {
                if let (Some(dst), Some(s)) = (out.get_mut(c), seen.get_mut(c)) {
                    let new = if *s != crossed { NEW_VALUE } else { 0 };
                    *s = crossed;
                    dst.push(at | new);
                }
            });
        }
        Some(out)
    }
}

/// [`Routes::split_list`] for a binary split without spread rows (`counts` rows went to
/// each child, `went` says where, [`Went::Pair`]), every split of CART: the children's lists, their lengths and last
/// crossings sit in arrays of two that stay in registers, where the general loop pushed
/// through a vector of vectors; the hand-downs were a fifth of an exact fit.
fn split_pair(
    went: &[u32],
    list: &[u32],
    counts: [usize; 2],
    control: &Control,
) -> Option<Vec<Vec<u32>>> {
    let [n_left, n_right] = counts;
    let mut left = control.filled(n_left, 0u32)?;
    let mut right = control.filled(n_right, 0u32)?;
    let mut len = [0usize; 2];
    {
        let mut out: [&mut [u32]; 2] = [&mut left, &mut right];
        let mut seen = [0usize; 2];
        let mut crossed = 0usize;
        for &e in list {
            crossed += usize::from(e & NEW_VALUE != 0);
            let Some(&w) = went.get(position(e)) else {
                continue;
            };
            let (c, at) = pair_place(w);
            if let (Some(dst), Some(n), Some(s)) = (out.get_mut(c), len.get_mut(c), seen.get_mut(c))
            {
                if let Some(slot) = dst.get_mut(*n) {
                    *slot = at | if *s != crossed { NEW_VALUE } else { 0 };
                    *s = crossed;
                    *n += 1;
                }
            }
        }
    }
    let [len_left, len_right] = len;
    left.truncate(len_left);
    right.truncate(len_right);
    Some(vec![left, right])
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// The radix sort lists exactly what the comparison sort by (value, position) did:
    /// signed zeros, infinities, subnormals, NaNs (left out), ties and float32-like values.
    #[test]
    fn radix_sort_is_the_comparison_sort() {
        let mut state = 7u64;
        let mut next = || {
            state = crate::test_draws::step(state);
            state >> 11
        };
        let specials = [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::MIN_POSITIVE / 4.0,
            -f64::MIN_POSITIVE / 4.0,
            1.5,
            -1.5,
        ];
        for n in [0usize, 1, 2, 17, 300, 5000] {
            let values: Vec<f64> = (0..n)
                .map(|_| match next() % 4 {
                    0 => specials[(next() % specials.len() as u64) as usize],
                    1 => (next() % 7) as f64 - 3.0,
                    2 => f64::from(f32::from_bits(next() as u32)),
                    _ => f64::from_bits(next() << 11 ^ next()),
                })
                .collect();
            let control = Control::new();
            let got = sorted_list(n, |i| values.get(i as usize).copied(), 1, &control).unwrap();
            // Cut in parts, the sort lists the same.
            for parts in [2, 3, 7] {
                let cut = sorted_list(n, |i| values.get(i as usize).copied(), parts, &control);
                assert_eq!(cut.as_ref(), Some(&got), "n = {n}, {parts} parts");
            }
            let mut known: Vec<(f64, u32)> = (0..n as u32)
                .map(|i| (values[i as usize], i))
                .filter(|(x, _)| !x.is_nan())
                .collect();
            known.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let mut previous = f64::NEG_INFINITY;
            let want: Vec<u32> = known
                .into_iter()
                .map(|(x, i)| {
                    let new = if x > previous { NEW_VALUE } else { 0 };
                    previous = x;
                    i | new
                })
                .collect();
            assert_eq!(got, want, "n = {n}");
            // A float32 column sorts its own keys to the list of its float64 copy.
            let narrow: Vec<f32> = values.iter().map(|&x| x as f32).collect();
            let wide: Vec<f64> = narrow.iter().map(|&x| f64::from(x)).collect();
            let of_narrow = sorted_list(n, |i| narrow.get(i as usize).copied(), 1, &control);
            let of_wide = sorted_list(n, |i| wide.get(i as usize).copied(), 2, &control);
            assert_eq!(of_narrow, of_wide, "float32, n = {n}");
        }
    }
}
