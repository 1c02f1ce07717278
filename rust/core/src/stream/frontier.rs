//! What a pass's [`StreamFit::add`] reads of a fit, as bytes: the bin edges and value
//! ranges, the splits grown so far (to route rows) and the open nodes the pass serves. Another process (a Dask
//! worker) rebuilds from them a replica that adds its batches to the pass's sums, so that
//! tasks are pure functions of their inputs and a lost one can be recomputed anywhere.

use super::{Growing, Grown, StreamFit};
use crate::error::{CoreError, Result};
use crate::split::hist::{Binned, Bins, Cuts};
use crate::split::placement::Plan;
use crate::split::{Candidate, SplitRule};
use crate::tree::{FeatureScore, NodeId, Side, TreeMeta, Writer};

/// Little-endian u64 words, as [`super::Sketch::to_bytes`] writes.
#[derive(Default)]
struct Words(Vec<u8>);

impl Words {
    fn put(&mut self, x: u64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }

    fn float(&mut self, x: f64) {
        self.put(x.to_bits());
    }

    fn floats(&mut self, xs: &[f64]) {
        self.put(xs.len() as u64);
        xs.iter().for_each(|&x| self.float(x));
    }

    fn option(&mut self, x: Option<f64>) {
        self.put(u64::from(x.is_some()));
        self.float(x.unwrap_or(0.0));
    }
}

struct Reader<'a> {
    words: std::slice::ChunksExact<'a, u8>,
}

impl Reader<'_> {
    fn next(&mut self) -> Result<u64> {
        self.words
            .next()
            .and_then(|w| w.try_into().ok())
            .map(u64::from_le_bytes)
            .ok_or_else(bad)
    }

    fn index(&mut self) -> Result<usize> {
        usize::try_from(self.next()?).map_err(|_| bad())
    }

    fn float(&mut self) -> Result<f64> {
        Ok(f64::from_bits(self.next()?))
    }

    fn floats(&mut self) -> Result<Vec<f64>> {
        let n = self.index()?;
        (0..n).map(|_| self.float()).collect()
    }

    fn option(&mut self) -> Result<Option<f64>> {
        let present = self.next()? != 0;
        let x = self.float()?;
        Ok(present.then_some(x))
    }
}

fn bad() -> CoreError {
    CoreError::InvalidParameter {
        name: "frontier",
        reason: "these bytes are not a frontier of this fit (StreamFit.frontier)".into(),
    }
}

const NUMERIC: u64 = 0;
const MULTIWAY: u64 = 1;
const SUBSET: u64 = 2;
const ORDERED: u64 = 3;

impl StreamFit {
    /// What [`Self::add`] reads during the current pass, as bytes for [`Self::resume`].
    pub fn frontier(&self) -> Result<Vec<u8>> {
        let g = self.growing("frontier")?;
        let mut w = Words::default();
        w.put(self.pass);
        w.put(u64::from(g.variance));
        w.float(g.total_weight);
        w.float(g.unit);
        w.float(g.shift);
        w.put(g.cuts.len() as u64);
        for c in &g.cuts {
            w.put(u64::from(c.is_some()));
            if let Some(c) = c {
                let (edges, min, max) = c.parts();
                w.floats(edges);
                w.option(min);
                w.option(max);
            }
        }
        // The bins' value ranges (found by the first grow pass): binned rows are routed by
        // their bin's greatest value.
        for f in 0..g.cuts.len() {
            let (lo, hi) = g.bins.column(f).map(|b| b.lo_hi()).unwrap_or_default();
            w.floats(lo);
            w.floats(hi);
        }
        w.put(g.nodes.len() as u64);
        for n in &g.nodes {
            w.put(n.usable.len() as u64);
            n.usable.iter().for_each(|&u| w.put(u64::from(u)));
            w.put(u64::from(n.stats.is_some()));
            w.floats(n.stats.as_deref().unwrap_or_default());
            w.put(n.children.len() as u64);
            n.children.iter().for_each(|&c| w.put(c as u64));
            match &n.split {
                Some(s) if !n.children.is_empty() => {
                    w.put(1);
                    write_split(&mut w, s)?;
                }
                _ => w.put(0),
            }
        }
        w.put(g.group.len() as u64);
        g.group.iter().for_each(|&i| w.put(i as u64));
        w.put(g.derived.len() as u64);
        g.derived.iter().for_each(|&d| w.put(u64::from(d)));
        Ok(w.0)
    }

    /// Takes the state [`Self::frontier`] sent, in a fit made with the same arguments: the
    /// result adds batches to the pass's sums ([`Self::sums`], [`Self::add`]) and does
    /// nothing else (it holds no histograms to decide splits from).
    pub fn resume(&mut self, bytes: &[u8]) -> Result<()> {
        if !bytes.len().is_multiple_of(8) {
            return Err(bad());
        }
        let mut r = Reader {
            words: bytes.chunks_exact(8),
        };
        let pass = r.next()?;
        let variance = r.next()? != 0;
        let (total_weight, unit, shift) = (r.float()?, r.float()?, r.float()?);
        let n_columns = r.index()?;
        if n_columns != self.kinds.len() {
            return Err(bad());
        }
        let mut cuts = Vec::with_capacity(n_columns);
        for _ in 0..n_columns {
            cuts.push(match r.next()? {
                0 => None,
                _ => {
                    let edges = r.floats()?;
                    Some(Cuts::from_parts(edges, r.option()?, r.option()?))
                }
            });
        }
        let mut ranges = Vec::with_capacity(n_columns);
        for c in &cuts {
            let (lo, hi) = (r.floats()?, r.floats()?);
            let bins = c.as_ref().map_or(0, Cuts::n_bins);
            if lo.len() != hi.len() || (c.is_some() && lo.len() != bins) {
                return Err(bad());
            }
            ranges.push(c.as_ref().map(|_| Binned::ranges(lo, hi)));
        }
        let n_nodes = r.index()?;
        let mut nodes = Vec::new();
        for i in 0..n_nodes {
            let n_usable = r.index()?;
            let usable = (0..n_usable)
                .map(|_| r.next().map(|u| u != 0))
                .collect::<Result<Vec<bool>>>()?;
            let has_stats = r.next()? != 0;
            let stats = r.floats()?;
            let n_children = r.index()?;
            let children = (0..n_children)
                .map(|_| r.index())
                .collect::<Result<Vec<usize>>>()?;
            let split = match r.next()? {
                0 => None,
                _ => Some(read_split(&mut r)?),
            };
            let id = NodeId(u32::try_from(i).map_err(|_| bad())?);
            let mut node = Grown::new(id, usable, None);
            node.stats = has_stats.then_some(stats);
            node.children = children;
            node.split = split;
            nodes.push(node);
        }
        let n_group = r.index()?;
        let group = (0..n_group)
            .map(|_| r.index())
            .collect::<Result<Vec<usize>>>()?;
        let n_derived = r.index()?;
        let derived = (0..n_derived)
            .map(|_| r.next().map(|d| d != 0))
            .collect::<Result<Vec<bool>>>()?;
        let shape = n_derived == 0 || n_derived == group.len();
        if r.words.next().is_some() || group.iter().any(|&i| i >= nodes.len()) || !shape {
            return Err(bad());
        }
        let bins = Bins::from_columns(ranges);
        self.pass = pass;
        self.state = Some(Growing {
            cuts,
            bins,
            total_weight,
            unit,
            shift,
            draft: Writer::new(TreeMeta::new(
                self.params.criterion,
                self.kinds.clone(),
                vec![self.n_classes],
            )),
            nodes,
            open: Vec::new(),
            group,
            variance,
            derived,
            replica: true,
        });
        Ok(())
    }
}

/// A split's routing: its test and where missing values go (C4.5's fractions, or a child).
fn write_split(w: &mut Words, s: &Candidate) -> Result<()> {
    w.put(s.feature as u64);
    match &s.rule {
        SplitRule::Numeric { threshold } => {
            w.put(NUMERIC);
            w.float(*threshold);
        }
        SplitRule::Multiway { n_children } => {
            w.put(MULTIWAY);
            w.put(*n_children as u64);
        }
        SplitRule::Subset { sides } => {
            w.put(SUBSET);
            w.put(sides.len() as u64);
            sides.iter().for_each(|&side| w.put(side as u64));
        }
        SplitRule::Ordered { threshold } => {
            w.put(ORDERED);
            w.put(u64::from(*threshold));
        }
        // Refused by `StreamFit::new`.
        SplitRule::Oblique { .. } => return Err(bad()),
    }
    w.floats(&s.fractions);
    w.put(u64::from(s.missing_plan.child.is_some()));
    w.put(s.missing_plan.child.unwrap_or(0) as u64);
    Ok(())
}

fn read_split(r: &mut Reader<'_>) -> Result<Candidate> {
    let feature = r.index()?;
    let rule = match r.next()? {
        NUMERIC => SplitRule::Numeric {
            threshold: r.float()?,
        },
        MULTIWAY => SplitRule::Multiway {
            n_children: r.index()?,
        },
        SUBSET => {
            let n = r.index()?;
            let sides = (0..n)
                .map(|_| match r.next()? {
                    0 => Ok(Side::Right),
                    1 => Ok(Side::Left),
                    2 => Ok(Side::Unseen),
                    _ => Err(bad()),
                })
                .collect::<Result<Vec<Side>>>()?;
            SplitRule::Subset { sides }
        }
        ORDERED => SplitRule::Ordered {
            threshold: u32::try_from(r.next()?).map_err(|_| bad())?,
        },
        _ => return Err(bad()),
    };
    let fractions = r.floats()?;
    let has_child = r.next()? != 0;
    let child = r.index()?;
    Ok(Candidate {
        feature,
        rule,
        // Routing reads neither the scores nor the children's statistics.
        score: FeatureScore {
            score: 0.0,
            gain: 0.0,
            iv: 0.0,
            threshold: f64::NAN,
            rho: 0.0,
        },
        fractions,
        children: Vec::new(),
        placed: None,
        missing_plan: Plan {
            child: has_child.then_some(child),
            ..Plan::default()
        },
    })
}
