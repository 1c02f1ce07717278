//! Routing binned rows by table lookup. A binned row's value of a feature is one of few codes
//! (a numeric feature's bin, a category, or missing), and a split sends every row of a code
//! the same way, so each split node's turn for each code is worked out once per pass, by the
//! routing rule itself ([`step`] on a one-value row), and a row then takes a lookup per level
//! instead of the rule's evaluation. Passes that route every row from the root (a Dask
//! partition's) or from its node (the LazyFrame fit's kept batches) read the same tables.

use super::coded::{Coded, CodedValues, NO_CATEGORY};
use super::{step, Growing, Grown, Move};
use crate::routing::Values;

/// The turn of a code that a split spreads over its children (C4.5's fractions).
const SPREAD: u32 = u32::MAX;
/// The turn of a code that a split sends nowhere.
const STOP: u32 = u32::MAX - 1;

/// Where a node's split sends each code of its feature: a child node, [`SPREAD`] or
/// [`STOP`].
struct Table {
    feature: usize,
    categorical: bool,
    /// By code: a numeric feature's bins then its missing code; a categorical feature's
    /// categories then missing.
    to: Vec<u32>,
}

/// One row whose only value is feature `f`'s: what a table entry is worked out from.
struct One {
    f: usize,
    number: f64,
    code: Option<u32>,
}

impl Values for One {
    fn number(&self, f: usize, _row: usize) -> f64 {
        if f == self.f {
            self.number
        } else {
            f64::NAN
        }
    }

    fn code(&self, f: usize, _row: usize) -> Option<u32> {
        self.code.filter(|_| f == self.f)
    }
}

/// Per node of a fit, its split's table (none for nodes not split, or whose rule reads more
/// than the tested feature: those are routed by the rule).
pub(super) struct Turns<'g> {
    tables: Vec<Option<Table>>,
    /// Each numeric feature's bins' greatest training values (the fallback's values).
    hi: Vec<&'g [f64]>,
}

/// Categories a table is made for at most (larger multiway splits are routed by the rule).
const MAX_CATEGORIES: u32 = 1 << 16;

impl<'g> Turns<'g> {
    /// The tables of `g`'s split nodes, for rows binned by `g`'s cuts.
    pub fn new(g: &'g Growing, n_categories: impl Fn(usize) -> Option<u32>) -> Turns<'g> {
        let hi = g.bin_tops();
        let table = |n: &Grown| -> Option<Table> {
            let split = n.split.as_ref().filter(|_| !n.children.is_empty())?;
            if split.missing_plan.surrogates.set().len() > 0 {
                return None;
            }
            let f = split.feature;
            let turn = |number: f64, code: Option<u32>| match step(n, &One { f, number, code }, 0) {
                Move::To(child) => u32::try_from(child).unwrap_or(STOP), // node ids fit u32
                Move::Spread(..) => SPREAD,
                Move::Stop => STOP,
            };
            let to: Vec<u32> = match n_categories(f) {
                Some(k) if k <= MAX_CATEGORIES => (0..k)
                    .map(|c| turn(f64::NAN, Some(c)))
                    .chain([turn(f64::NAN, None)])
                    .collect(),
                Some(_) => return None,
                None => hi
                    .get(f)?
                    .iter()
                    .map(|&x| turn(x, None))
                    .chain([turn(f64::NAN, None)])
                    .collect(),
            };
            Some(Table {
                feature: f,
                categorical: n_categories(f).is_some(),
                to,
            })
        };
        Turns {
            tables: g.nodes.iter().map(table).collect(),
            hi,
        }
    }

    /// The tables read with `coded`'s columns.
    pub fn bind<'a>(&'a self, coded: &'a Coded) -> Bound<'a> {
        let column = |t: &'a Table| -> Option<Codes<'a>> {
            if t.categorical {
                coded.cats.get(t.feature)?.as_deref().map(Codes::Categories)
            } else {
                coded.bins.column(t.feature).map(|b| Codes::Bins(b.codes()))
            }
        };
        let tables = self
            .tables
            .iter()
            .map(|t| {
                let t = t.as_ref()?;
                Some((column(t)?, t.to.as_slice()))
            })
            .collect();
        Bound {
            tables,
            values: CodedValues {
                coded,
                hi: &self.hi,
            },
        }
    }
}

impl Turns<'_> {
    /// The rows each node `g`'s pass serves will get, foreseen from its parent's rows by
    /// code (`Grown::code_rows`) and the parent's table: the rows a count would find, as
    /// the parent's sums counted them. NaN where they cannot be foreseen (the root, a split
    /// without a table, a code with rows that the split spreads over its children).
    pub fn foreseen_rows(&self, g: &Growing) -> Vec<f64> {
        let foreseen = |i: usize| -> Option<f64> {
            let p = g.nodes.get(i)?.parent?;
            let rows = &g.nodes.get(p)?.code_rows;
            let table = self.tables.get(p)?.as_ref()?;
            if rows.len() != table.to.len() {
                return None;
            }
            let mut n = 0.0;
            for (&to, &r) in table.to.iter().zip(rows) {
                if to == SPREAD && r > 0.0 {
                    return None;
                }
                if usize::try_from(to).is_ok_and(|to| to == i) {
                    n += r;
                }
            }
            Some(n)
        };
        g.group
            .iter()
            .map(|&i| foreseen(i).unwrap_or(f64::NAN))
            .collect()
    }
}

/// A feature's codes in a batch.
enum Codes<'a> {
    Bins(&'a [u8]),
    Categories(&'a [u32]),
}

/// [`Turns`] over one batch's columns.
pub(super) struct Bound<'a> {
    /// Per node, the tested feature's codes and the node's turns.
    tables: Vec<Option<(Codes<'a>, &'a [u32])>>,
    /// The batch as the rule reads it, for the nodes without a table.
    values: CodedValues<'a>,
}

impl Bound<'_> {
    /// Where node `at` (`n`) sends row `r`.
    #[inline]
    pub fn step<'n>(&self, at: usize, n: &'n Grown, r: usize) -> Move<'n> {
        let Some(Some((codes, to))) = self.tables.get(at) else {
            return step(n, &self.values, r);
        };
        let missing = to.len().saturating_sub(1);
        let code = match codes {
            // `r` is a row of the batch the codes are of: `missing` is for its missing code.
            Codes::Bins(c) => c.get(r).map_or(missing, |&c| usize::from(c)),
            Codes::Categories(c) => match c.get(r) {
                Some(&NO_CATEGORY) | None => missing,
                Some(&c) => c as usize,
            },
        };
        match to.get(code).copied().unwrap_or(STOP) {
            // a code the table has no turn for
            STOP => Move::Stop,
            SPREAD => match n.split.as_ref() {
                Some(split) => Move::Spread(&n.children, &split.fractions),
                None => Move::Stop,
            },
            child => Move::To(child as usize),
        }
    }
}
