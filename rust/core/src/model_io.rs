//! The versioned binary model format, specified in `docs/model-format.md`.
//!
//! A file is a fixed header (magic bytes, format version, total length), the arena of a
//! [`Tree`] as flat fixed-width little-endian arrays, an opaque metadata blob (the Python layer
//! stores feature names, category lists and class labels there, once), extension records that
//! readers skip, and a CRC-32 of everything before it. The layout is independent of the
//! in-memory one: a field added to `Tree` changes no old file (scikit-learn's pickles broke
//! every old model when its node struct grew; treelite's specified format is the model here).
//!
//! Loading trusts nothing. Every declared size is checked against the bytes that remain
//! *before* anything is allocated, so memory stays proportional to the input; then the arena
//! becomes a tree through the tree's writer, which checks it as a whole (indices in range,
//! every child numbered after its parent and claimed by exactly one parent, depths
//! consistent, numbers finite) in one linear pass, whatever the build. A
//! damaged or hostile input yields [`CoreError::CorruptModel`] or
//! [`CoreError::UnsupportedVersion`]: never a panic, an unbounded allocation or a hang.

use crate::criterion::Criterion;
use crate::data::FeatureKind;
use crate::error::{CoreError, Result};
use crate::params::{Conventions, MissingStrategy, Splitter, MAX_BINS};
use crate::tree::{self, Arena, FeatureScore, Optimality, Side, SplitTag, Tree, TreeMeta, NONE};

/// The first eight bytes of every model file. As in PNG: a non-ASCII first byte, the name, and
/// CR LF / Ctrl-Z / LF, so text-mode transfers that rewrite line ends are detected.
pub const MAGIC: [u8; 8] = [0x89, b'Q', b'R', b'C', b'\r', b'\n', 0x1A, b'\n'];

/// The newest version this build writes; it reads every version from 1 up to this one. A
/// file takes the oldest version that can hold its tree: version 2 only adds several outputs
/// (multi-output trees), so a single-output tree is written as version 1, byte for byte.
pub const FORMAT_VERSION: u32 = 2;
const OLDEST_READABLE: u32 = 1;
/// The first version with the outputs block (several outputs per tree).
const MULTI_OUTPUT_VERSION: u32 = 2;

/// Magic, version (u32) and total length (u64).
const HEADER_LEN: usize = MAGIC.len() + 4 + 8;
/// The CRC-32 trailer.
const TRAILER_LEN: usize = 4;
/// Bytes per node in the fixed node columns (tag u8; feature, first_child, n_children,
/// subset_offset, linear_offset, linear_len, missing_child, surrogate_offset, surrogate_len,
/// parent, depth, label, score_offset u32; threshold, branch_fraction, missing_weight, weight,
/// n_rows, impurity f64).
const NODE_COLUMN_BYTES: usize = 1 + 13 * 4 + 6 * 8;
/// Bytes per feature record: kind u8 and n_categories u32.
const FEATURE_BYTES: usize = 1 + 4;
/// Bytes per recorded score: five f64.
const SCORE_BYTES: usize = 5 * 8;
/// Longest criterion or missing-value strategy name accepted.
const MAX_NAME: usize = 64;
/// Extension record tag of the splitter that grew the tree (name, then bins per feature u32).
const EXT_SPLITTER: u32 = 1;
/// Extension record tag of what the optimal search proved (objective, lower bound: two f64).
const EXT_OPTIMALITY: u32 = 2;
/// Extension record tag of the conventions the tree was grown with (a name).
const EXT_CONVENTIONS: u32 = 3;
/// Extension record tag of the training rows that reached each node (one u64 per node).
const EXT_SAMPLES: u32 = 4;
/// Extension record tag of each surrogate split's adjusted agreement (one f64 each).
const EXT_ADJUSTED: u32 = 5;
/// Every NaN is written with this bit pattern, so equal models give equal bytes.
const CANONICAL_NAN: u64 = 0x7FF8_0000_0000_0000;

/// A decoded model file: the tree and the metadata blob stored with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub tree: Tree,
    /// Opaque to the core; the Python layer stores UTF-8 JSON here.
    pub metadata: Vec<u8>,
}

impl Tree {
    /// The tree in the model format, with an empty metadata blob.
    pub fn to_bytes(&self) -> Vec<u8> {
        write(self, &[])
    }

    /// A tree from the model format, ignoring its metadata; see [`read`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Tree> {
        read(bytes).map(|m| m.tree)
    }
}

// ---------------------------------------------------------------------------------------------
// Writing.

/// The model file of `tree` with `metadata` as its metadata blob. The same tree and metadata
/// always give the same bytes (NaNs are written canonically).
pub fn write(tree: &Tree, metadata: &[u8]) -> Vec<u8> {
    // Every field by name, with no `..`: a field added to the record or the arena fails to
    // compile here until the format says how it is stored (or that it is not).
    let TreeMeta {
        criterion,
        kinds,
        outputs,
        missing,
        conventions,
        splitter,
        max_bins,
    } = tree.meta();
    let Arena {
        tag,
        feature,
        threshold,
        first_child,
        n_children,
        branch_fraction,
        subset_offset,
        sides,
        linear_offset,
        linear_len,
        linear_features,
        linear_weights,
        missing_child,
        surrogate_offset,
        surrogate_len,
        surrogate_feature,
        surrogate_threshold,
        surrogate_agreement,
        surrogate_adjusted,
        surrogate_map,
        surrogate_children,
        parent,
        depth,
        weight,
        n_rows,
        n_samples,
        impurity,
        label,
        value,
        score_offset,
        scores,
        missing_weight,
    } = tree.arena();
    let optimality = tree.optimality();
    let n_nodes = tag.len();
    let width = tree.value_width();
    let several = outputs.len() > 1;
    let version = if several {
        MULTI_OUTPUT_VERSION
    } else {
        OLDEST_READABLE
    };
    let mut w = Encoder::with_capacity(
        HEADER_LEN
            + 64
            + kinds.len() * FEATURE_BYTES
            + 4 * outputs.len()
            + n_nodes * (NODE_COLUMN_BYTES + 8 * width + 4 * (outputs.len() - 1))
            + sides.len()
            + linear_features.len() * 12
            + surrogate_feature.len() * 24
            + surrogate_children.len() * 4
            + scores.len() * SCORE_BYTES
            + metadata.len()
            + TRAILER_LEN,
    );
    w.bytes(&MAGIC);
    w.u32(version);
    w.u64(0); // total length, patched below

    w.count(kinds.len());
    w.count(tree.n_classes());
    w.count(n_nodes);
    w.count(sides.len());
    w.count(scores.len());
    w.count(linear_features.len());
    w.count(surrogate_feature.len());
    w.count(surrogate_children.len());
    w.name(criterion.name());
    w.name(missing.name());

    for kind in kinds {
        let (code, n_categories) = match *kind {
            FeatureKind::Numeric => (0, 0),
            FeatureKind::Categorical {
                n_categories,
                ordered: false,
            } => (1, n_categories),
            FeatureKind::Categorical {
                n_categories,
                ordered: true,
            } => (2, n_categories),
        };
        w.u8(code);
        w.u32(n_categories);
    }
    // Version 2: the outputs block.
    if several {
        w.count(outputs.len());
        outputs.iter().for_each(|&n| w.count(n));
    }

    tag.iter().for_each(|&t| w.u8(t as u8));
    feature.iter().for_each(|&x| w.u32(x));
    threshold.iter().for_each(|&x| w.f64(x));
    first_child.iter().for_each(|&x| w.u32(x));
    n_children.iter().for_each(|&x| w.u32(x));
    branch_fraction.iter().for_each(|&x| w.f64(x));
    subset_offset.iter().for_each(|&x| w.u32(x));
    linear_offset.iter().for_each(|&x| w.u32(x));
    linear_len.iter().for_each(|&x| w.u32(x));
    missing_child.iter().for_each(|&x| w.u32(x));
    surrogate_offset.iter().for_each(|&x| w.u32(x));
    surrogate_len.iter().for_each(|&x| w.u32(x));
    missing_weight.iter().for_each(|&x| w.f64(x));
    parent.iter().for_each(|&x| w.u32(x));
    depth.iter().for_each(|&x| w.u32(x));
    weight.iter().for_each(|&x| w.f64(x));
    n_rows.iter().for_each(|&x| w.f64(x));
    impurity.iter().for_each(|&x| w.f64(x));
    label.iter().for_each(|&x| w.u32(x));
    score_offset.iter().for_each(|&x| w.u32(x));
    value.iter().for_each(|&x| w.f64(x));
    sides.iter().for_each(|&s| w.u8(s as u8));
    linear_features.iter().for_each(|&x| w.u32(x));
    linear_weights.iter().for_each(|&x| w.f64(x));
    surrogate_feature.iter().for_each(|&x| w.u32(x));
    surrogate_threshold.iter().for_each(|&x| w.f64(x));
    surrogate_agreement.iter().for_each(|&x| w.f64(x));
    surrogate_map.iter().for_each(|&x| w.u32(x));
    surrogate_children.iter().for_each(|&x| w.u32(x));
    for s in scores {
        for x in [s.score, s.gain, s.iv, s.threshold, s.rho] {
            w.f64(x);
        }
    }

    w.u64(metadata.len() as u64);
    w.bytes(metadata);
    // Extension records: the splitter (tag 1), written for histogram and random trees only,
    // so exact trees keep the bytes quercus 0.1.0 wrote; what the optimal search proved (tag 2),
    // written for its trees only; the conventions (tag 3), written for J48's only; the rows
    // that reached each node (tag 4), written only where they are not the size rules' count
    // (sample weights, or C4.5's fractions of rows), which a reader takes for them otherwise;
    // the surrogates' adjusted agreements (tag 5), written where the tree has surrogates.
    let searched = *splitter != Splitter::Exact;
    let j48 = *conventions == Conventions::J48;
    let counted = n_samples.iter().zip(n_rows).any(|(&k, &n)| k as f64 != n);
    let adjusted = !surrogate_adjusted.is_empty();
    w.u32(
        u32::from(searched)
            + u32::from(optimality.is_some())
            + u32::from(j48)
            + u32::from(counted)
            + u32::from(adjusted),
    );
    if searched {
        w.u32(EXT_SPLITTER);
        let name = splitter.name();
        w.u64((1 + name.len() + 4) as u64);
        w.name(name);
        w.u32(*max_bins);
    }
    if let Some(o) = optimality {
        w.u32(EXT_OPTIMALITY);
        w.u64(16);
        w.f64(o.objective);
        w.f64(o.lower_bound);
    }
    if j48 {
        w.u32(EXT_CONVENTIONS);
        let name = conventions.name();
        w.u64((1 + name.len()) as u64);
        w.name(name);
    }
    if counted {
        w.u32(EXT_SAMPLES);
        w.u64((n_samples.len() * 8) as u64);
        n_samples.iter().for_each(|&k| w.u64(k));
    }
    if adjusted {
        w.u32(EXT_ADJUSTED);
        w.u64((surrogate_adjusted.len() * 8) as u64);
        surrogate_adjusted.iter().for_each(|&x| w.f64(x));
    }

    let total = (w.out.len() + TRAILER_LEN) as u64;
    if let Some(slot) = w.out.get_mut(MAGIC.len() + 4..HEADER_LEN) {
        slot.copy_from_slice(&total.to_le_bytes());
    }
    let crc = crc32(&w.out);
    w.u32(crc);
    w.out
}

/// The bytes of a model file as they are written.
struct Encoder {
    out: Vec<u8>,
}

impl Encoder {
    fn with_capacity(n: usize) -> Self {
        Encoder {
            out: Vec::with_capacity(n),
        }
    }

    fn bytes(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }

    fn u8(&mut self, x: u8) {
        self.out.push(x);
    }

    fn u32(&mut self, x: u32) {
        self.bytes(&x.to_le_bytes());
    }

    fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }

    fn f64(&mut self, x: f64) {
        self.u64(if x.is_nan() {
            CANONICAL_NAN
        } else {
            x.to_bits()
        });
    }

    /// A name as a length byte and its ASCII bytes.
    fn name(&mut self, name: &str) {
        let bytes = name.as_bytes();
        let bytes = bytes.get(..MAX_NAME).unwrap_or(bytes);
        self.u8(bytes.len() as u8);
        self.bytes(bytes);
    }

    /// A count as u32. Arena indices are u32, so every count of a real tree fits; a count
    /// that did not would be written as u32::MAX and the file refused on load, never misread.
    fn count(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
}

// ---------------------------------------------------------------------------------------------
// Reading.

fn corrupt(reason: impl Into<String>) -> CoreError {
    CoreError::CorruptModel {
        reason: reason.into(),
    }
}

/// Decodes and validates a model file (see the module documentation for what is checked).
pub fn read(bytes: &[u8]) -> Result<Model> {
    let version = check_envelope(bytes)?;
    let (body, _) = bytes
        .split_last_chunk::<TRAILER_LEN>()
        .ok_or_else(|| corrupt("the input is shorter than its checksum"))?;
    let mut r = Reader {
        bytes: body,
        pos: HEADER_LEN,
    };

    let n_features = r.u32("the number of features")? as usize;
    let n_classes = r.u32("the number of classes")? as usize;
    let n_nodes_u32 = r.u32("the number of nodes")?;
    let n_sides = r.u32("the length of the subset masks")? as usize;
    let n_scores = r.u32("the number of recorded scores")? as usize;
    let n_linear = r.u32("the number of linear terms")? as usize;
    let n_surrogates = r.u32("the number of surrogate splits")? as usize;
    let n_surrogate_children = r.u32("the length of the surrogate child maps")? as usize;
    if n_nodes_u32 == 0 {
        return Err(corrupt("the tree has no nodes"));
    }
    if n_nodes_u32 == NONE {
        return Err(corrupt(format!(
            "the tree declares {n_nodes_u32} nodes, more than a tree can index"
        )));
    }
    let n_nodes = n_nodes_u32 as usize;

    let name = r.name("the criterion")?;
    let criterion = Criterion::parse(name).map_err(|_| {
        corrupt(format!(
            "unknown criterion {name:?} (written by a newer quercus?)"
        ))
    })?;
    let name = r.name("the missing-value strategy")?;
    let missing = MissingStrategy::parse(name).map_err(|_| {
        corrupt(format!(
            "unknown missing-value strategy {name:?} (written by a newer quercus?)"
        ))
    })?;

    let kinds = r.array(
        n_features,
        "the feature kinds",
        |[code, a, b, c, d]: [u8; FEATURE_BYTES]| (code, u32::from_le_bytes([a, b, c, d])),
    )?;
    let kinds = kinds
        .into_iter()
        .enumerate()
        .map(|(j, (code, n_categories))| match (code, n_categories) {
            (0, 0) => Ok(FeatureKind::Numeric),
            (0, n) => Err(corrupt(format!(
                "feature {j} is numeric but declares {n} categories"
            ))),
            (1 | 2, n) => Ok(FeatureKind::Categorical {
                n_categories: n,
                ordered: code == 2,
            }),
            (other, _) => Err(corrupt(format!(
                "feature {j} has unknown kind code {other}"
            ))),
        })
        .collect::<Result<Vec<_>>>()?;
    let outputs = if version >= MULTI_OUTPUT_VERSION {
        read_outputs(&mut r, n_classes)?
    } else {
        vec![n_classes]
    };
    let n_outputs = outputs.len();

    // The node columns, then the value rows: their total is checked before the first is
    // allocated, so a huge declared node count fails without allocating anything.
    let width = if n_classes == 0 { n_outputs } else { n_classes };
    let node_bytes = width
        .checked_mul(8)
        .and_then(|v| v.checked_add(NODE_COLUMN_BYTES))
        .and_then(|v| v.checked_add(4 * (n_outputs - 1)))
        .and_then(|per_node| per_node.checked_mul(n_nodes));
    match node_bytes {
        Some(n) if n <= r.remaining() => {}
        _ => {
            return Err(corrupt(format!(
                "truncated: {n_nodes} nodes with {width} values each need more than the {} \
                 bytes that remain at offset {}",
                r.remaining(),
                r.pos
            )))
        }
    }
    let tags = r.array(n_nodes, "the node tags", |[t]| t)?;
    let tag = tags
        .into_iter()
        .enumerate()
        .map(|(i, t)| split_tag(t).ok_or_else(|| corrupt(format!("node {i} has unknown tag {t}"))))
        .collect::<Result<Vec<_>>>()?;
    let feature = r.array(n_nodes, "the node features", u32::from_le_bytes)?;
    let threshold = r.array(n_nodes, "the node thresholds", f64::from_le_bytes)?;
    let first_child = r.array(n_nodes, "the first children", u32::from_le_bytes)?;
    let n_children = r.array(n_nodes, "the numbers of children", u32::from_le_bytes)?;
    let branch_fraction = r.array(n_nodes, "the branch fractions", f64::from_le_bytes)?;
    let subset_offset = r.array(n_nodes, "the subset offsets", u32::from_le_bytes)?;
    let linear_offset = r.array(n_nodes, "the linear-term offsets", u32::from_le_bytes)?;
    let linear_len = r.array(n_nodes, "the linear-term counts", u32::from_le_bytes)?;
    let missing_child = r.array(n_nodes, "the missing-value children", u32::from_le_bytes)?;
    let surrogate_offset = r.array(n_nodes, "the surrogate offsets", u32::from_le_bytes)?;
    let surrogate_len = r.array(n_nodes, "the surrogate counts", u32::from_le_bytes)?;
    let missing_weight = r.array(n_nodes, "the missing weights", f64::from_le_bytes)?;
    let parent = r.array(n_nodes, "the parents", u32::from_le_bytes)?;
    let depth = r.array(n_nodes, "the depths", u32::from_le_bytes)?;
    let weight = r.array(n_nodes, "the node weights", f64::from_le_bytes)?;
    let n_rows = r.array(n_nodes, "the node row counts", f64::from_le_bytes)?;
    let impurity = r.array(n_nodes, "the impurities", f64::from_le_bytes)?;
    let n_labels = n_nodes
        .checked_mul(n_outputs)
        .ok_or_else(|| corrupt("the node labels overflow"))?;
    let label = r.array(n_labels, "the labels", u32::from_le_bytes)?;
    let score_offset = r.array(n_nodes, "the score offsets", u32::from_le_bytes)?;
    let n_values = n_nodes
        .checked_mul(width)
        .ok_or_else(|| corrupt("the node values overflow"))?;
    let value = r.array(n_values, "the node values", f64::from_le_bytes)?;

    let sides = r.array(n_sides, "the subset masks", |[s]| s)?;
    let sides = sides
        .into_iter()
        .enumerate()
        .map(|(k, s)| match s {
            0 => Ok(Side::Right),
            1 => Ok(Side::Left),
            2 => Ok(Side::Unseen),
            other => Err(corrupt(format!(
                "subset mask entry {k} is {other}; expected 0, 1 or 2"
            ))),
        })
        .collect::<Result<Vec<_>>>()?;
    let linear_features = r.array(n_linear, "the linear-term features", u32::from_le_bytes)?;
    let linear_weights = r.array(n_linear, "the linear-term weights", f64::from_le_bytes)?;
    let surrogate_feature = r.array(n_surrogates, "the surrogate features", u32::from_le_bytes)?;
    let surrogate_threshold =
        r.array(n_surrogates, "the surrogate thresholds", f64::from_le_bytes)?;
    let surrogate_agreement =
        r.array(n_surrogates, "the surrogate agreements", f64::from_le_bytes)?;
    let surrogate_map = r.array(n_surrogates, "the surrogate child maps", u32::from_le_bytes)?;
    let surrogate_children = r.array(
        n_surrogate_children,
        "the surrogate children",
        u32::from_le_bytes,
    )?;
    // Five f64 per score (SCORE_BYTES).
    let n_floats = n_scores
        .checked_mul(SCORE_BYTES / 8)
        .ok_or_else(|| corrupt("the recorded scores overflow the address space"))?;
    let floats = r.array(n_floats, "the recorded scores", f64::from_le_bytes)?;
    let (scores, _) = floats.as_chunks::<{ SCORE_BYTES / 8 }>();
    let scores = scores
        .iter()
        .map(|&[score, gain, iv, threshold, rho]| FeatureScore {
            score,
            gain,
            iv,
            threshold,
            rho,
        })
        .collect();

    let metadata_len = r.u64("the metadata length")?;
    // A length past this machine's address space is more than the file holds: `take` refuses it.
    let metadata_len = usize::try_from(metadata_len).unwrap_or(usize::MAX);
    let metadata = r.take(metadata_len, "the metadata")?.to_vec();

    // Extension records: (tag u32, length u64, bytes). Version 1 defines none; a reader skips
    // the ones it does not know, so later versions can add optional data without breaking it.
    let n_extensions = r.u32("the number of extension records")?;
    let (mut splitter, mut max_bins) = (Splitter::Exact, 0);
    let mut conventions = Conventions::Texts;
    let mut optimality = None;
    let mut n_samples = None;
    let mut surrogate_adjusted = None;
    for k in 0..n_extensions {
        let tag = r.u32("an extension tag")?;
        let len = r.u64("an extension length")?;
        let bytes = r.take(
            usize::try_from(len).unwrap_or(usize::MAX), // refused by `take`, as above
            &format!("extension record {k}"),
        )?;
        if tag == EXT_SPLITTER {
            (splitter, max_bins) = read_splitter(bytes)?;
        } else if tag == EXT_OPTIMALITY {
            optimality = Some(read_optimality(bytes)?);
        } else if tag == EXT_CONVENTIONS {
            conventions = read_conventions(bytes)?;
        } else if tag == EXT_SAMPLES {
            n_samples = Some(read_samples(bytes, n_nodes)?);
        } else if tag == EXT_ADJUSTED {
            surrogate_adjusted = Some(read_adjusted(bytes, surrogate_feature.len())?);
        }
    }
    if r.remaining() > 0 {
        return Err(corrupt(format!(
            "{} unexpected bytes after the extension records at offset {}",
            r.remaining(),
            r.pos
        )));
    }

    let meta = TreeMeta {
        criterion,
        kinds,
        outputs,
        missing,
        conventions,
        splitter,
        max_bins,
    };
    let arena = Arena {
        tag,
        feature,
        threshold,
        first_child,
        n_children,
        branch_fraction,
        subset_offset,
        sides,
        linear_offset,
        linear_len,
        linear_features,
        linear_weights,
        missing_child,
        surrogate_offset,
        surrogate_len,
        surrogate_feature,
        surrogate_threshold,
        surrogate_agreement,
        // No record 5 (a file written before it): unknown.
        surrogate_adjusted: surrogate_adjusted.unwrap_or_else(|| vec![f64::NAN; n_surrogates]),
        surrogate_map,
        surrogate_children,
        parent,
        depth,
        weight,
        // No record 4: the size rules' count is the row count (module documentation).
        n_samples: n_samples.unwrap_or_else(|| n_rows.iter().map(|&n| counted_rows(n)).collect()),
        n_rows,
        impurity,
        label,
        value,
        score_offset,
        scores,
        missing_weight,
    };
    let tree = tree::Writer::from_arena(meta, arena, optimality).finish()?;
    Ok(Model { tree, metadata })
}

/// The sample counts extension record: one u64 per node, and nothing else.
fn read_samples(bytes: &[u8], n_nodes: usize) -> Result<Vec<u64>> {
    if bytes.len() != n_nodes.saturating_mul(8) {
        return Err(corrupt(format!(
            "the sample counts record holds {} bytes, not 8 for each of {n_nodes} nodes",
            bytes.len()
        )));
    }
    let (counts, _) = bytes.as_chunks::<8>();
    Ok(counts.iter().map(|&c| u64::from_le_bytes(c)).collect())
}

/// The adjusted agreements extension record: one f64 per surrogate split, and nothing else.
fn read_adjusted(bytes: &[u8], n_surrogates: usize) -> Result<Vec<f64>> {
    if bytes.len() != n_surrogates.saturating_mul(8) {
        return Err(corrupt(format!(
            "the adjusted agreements record holds {} bytes, not 8 for each of {n_surrogates} \
             surrogate splits",
            bytes.len()
        )));
    }
    let (values, _) = bytes.as_chunks::<8>();
    Ok(values.iter().map(|&v| f64::from_le_bytes(v)).collect())
}

/// A node's rows when the file records none: the size rules' count, exact for a file written
/// since the record exists (it is written whenever the two differ); for an older file of
/// weighted rows, the nearest count, at least 1 for a node any weight reached.
fn counted_rows(n_rows: f64) -> u64 {
    match n_rows.round() {
        _ if n_rows <= 0.0 => 0,
        k if k < 1.0 => 1,
        k => k as u64,
    }
}

/// The conventions extension record: a name [`Conventions::parse`] knows, and nothing else.
fn read_conventions(bytes: &[u8]) -> Result<Conventions> {
    let mut r = Reader { bytes, pos: 0 };
    let name = r.name("the conventions")?;
    let conventions = Conventions::parse(name).map_err(|_| {
        corrupt(format!(
            "unknown conventions {name:?} in the conventions record (written by a newer quercus?)"
        ))
    })?;
    if r.remaining() > 0 {
        return Err(corrupt(format!(
            "the conventions record has {} extra bytes",
            r.remaining()
        )));
    }
    Ok(conventions)
}

/// The outputs block of version 2: at least two outputs, each with its classes (0 for a
/// real-valued one), adding up to the header's `n_classes`.
fn read_outputs(r: &mut Reader<'_>, n_classes: usize) -> Result<Vec<usize>> {
    let n = r.u32("the number of outputs")? as usize;
    if n < 2 {
        return Err(corrupt(format!(
            "the outputs block declares {n} outputs; a file with one output is version 1"
        )));
    }
    let outputs: Vec<usize> = r
        .array(n, "the outputs' classes", u32::from_le_bytes)?
        .into_iter()
        .map(|k| k as usize)
        .collect();
    let total = outputs.iter().try_fold(0usize, |t, &k| t.checked_add(k));
    if total != Some(n_classes) {
        return Err(corrupt(format!(
            "the outputs' classes {outputs:?} do not add up to the {n_classes} classes declared"
        )));
    }
    Ok(outputs)
}

/// The splitter extension record: `Exact` or `Random` with 0 bins, or `Hist` with 2 to
/// [`MAX_BINS`] bins.
fn read_splitter(bytes: &[u8]) -> Result<(Splitter, u32)> {
    let mut r = Reader { bytes, pos: 0 };
    let name = r.name("the splitter")?;
    let splitter = match Splitter::parse(name) {
        Ok(s @ (Splitter::Exact | Splitter::Hist | Splitter::Random)) if s.name() == name => s,
        _ => {
            return Err(corrupt(format!(
                "unknown splitter {name:?} in the splitter record"
            )))
        }
    };
    let max_bins = r.u32("the splitter's bins")?;
    let bins_ok = match splitter {
        Splitter::Hist => (2..=MAX_BINS as u32).contains(&max_bins),
        _ => max_bins == 0,
    };
    if !bins_ok || r.remaining() > 0 {
        return Err(corrupt(format!(
            "the splitter record is malformed ({name}, {max_bins} bins, {} extra bytes)",
            r.remaining()
        )));
    }
    Ok((splitter, max_bins))
}

/// The optimality record: a finite objective ≥ 0 and a lower bound between 0 and it.
fn read_optimality(bytes: &[u8]) -> Result<Optimality> {
    let mut r = Reader { bytes, pos: 0 };
    let objective = r.f64("the optimality record")?;
    let lower_bound = r.f64("the optimality record")?;
    if r.remaining() > 0 || !(objective.is_finite() && (0.0..=objective).contains(&lower_bound)) {
        return Err(corrupt(format!(
            "the optimality record is malformed (objective {objective}, lower bound \
             {lower_bound}, {} extra bytes)",
            r.remaining()
        )));
    }
    Ok(Optimality {
        objective,
        lower_bound,
    })
}

/// Magic, version, declared length and checksum, in that order, so a file of another kind, of
/// a newer version, truncated or damaged is named as such before its contents are looked at.
/// Returns the format version.
fn check_envelope(bytes: &[u8]) -> Result<u32> {
    if bytes.is_empty() {
        return Err(corrupt("not a quercus model: the input is empty"));
    }
    // An input shorter than the magic is compared on its length.
    let magic = bytes.get(..MAGIC.len()).unwrap_or(bytes);
    if magic != MAGIC.get(..magic.len()).unwrap_or(&MAGIC) {
        return Err(corrupt(
            "not a quercus model: it does not start with the magic bytes 89 51 52 43 0D 0A 1A 0A",
        ));
    }
    let mut r = Reader { bytes, pos: 0 };
    r.take(MAGIC.len(), "the magic bytes")?;
    let version = r.u32("the format version")?;
    if !(OLDEST_READABLE..=FORMAT_VERSION).contains(&version) {
        return Err(CoreError::UnsupportedVersion {
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    let declared = r.u64("the total length")?;
    if declared != bytes.len() as u64 {
        return Err(corrupt(if declared > bytes.len() as u64 {
            format!(
                "truncated: the header declares {declared} bytes but only {} are present",
                bytes.len()
            )
        } else {
            format!(
                "the header declares {declared} bytes but {} are present",
                bytes.len()
            )
        }));
    }
    let (body, trailer) = match bytes.split_last_chunk::<TRAILER_LEN>() {
        Some(parts) if bytes.len() >= HEADER_LEN + TRAILER_LEN => parts,
        _ => {
            return Err(corrupt(format!(
                "the header declares {declared} bytes, fewer than a header and a checksum"
            )))
        }
    };
    let stored = u32::from_le_bytes(*trailer);
    let computed = crc32(body);
    if stored != computed {
        return Err(corrupt(format!(
            "checksum mismatch: the file is damaged (stored CRC-32 {stored:#010x}, computed \
             {computed:#010x})"
        )));
    }
    Ok(version)
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    /// The bytes not read yet (none once `pos` is past the end).
    fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.pos..).unwrap_or(&[])
    }

    fn truncated(&self, n: usize, what: &str) -> CoreError {
        corrupt(format!(
            "truncated: {what} needs {n} bytes at offset {}, but only {} remain",
            self.pos,
            self.remaining()
        ))
    }

    /// The next `n` bytes, or an error naming `what` if fewer remain. Nothing is allocated.
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let out = self
            .rest()
            .get(..n)
            .ok_or_else(|| self.truncated(n, what))?;
        self.pos += n;
        Ok(out)
    }

    /// [`Self::take`] of `W` bytes, as an array.
    fn take_array<const W: usize>(&mut self, what: &str) -> Result<[u8; W]> {
        let out = *self
            .rest()
            .first_chunk::<W>()
            .ok_or_else(|| self.truncated(W, what))?;
        self.pos += W;
        Ok(out)
    }

    /// `count` items of `W` bytes each. The byte count is checked against the input before
    /// the vector is allocated, so a huge declared count costs nothing.
    fn array<const W: usize, T>(
        &mut self,
        count: usize,
        what: &str,
        item: impl Fn([u8; W]) -> T,
    ) -> Result<Vec<T>> {
        let n = count.checked_mul(W).ok_or_else(|| {
            corrupt(format!(
                "{what}: {count} items of {W} bytes overflow the address space"
            ))
        })?;
        let (items, _) = self.take(n, what)?.as_chunks::<W>();
        Ok(items.iter().map(|&c| item(c)).collect())
    }

    /// A length byte (1 to [`MAX_NAME`]) and that many bytes of UTF-8.
    fn name(&mut self, what: &str) -> Result<&'a str> {
        let len = self.u8(&format!("the length of {what}'s name"))? as usize;
        if len == 0 || len > MAX_NAME {
            return Err(corrupt(format!(
                "{what}'s name has length {len}; expected 1 to {MAX_NAME}"
            )));
        }
        let bytes = self.take(len, &format!("{what}'s name"))?;
        std::str::from_utf8(bytes).map_err(|_| corrupt(format!("{what}'s name is not UTF-8")))
    }

    fn u8(&mut self, what: &str) -> Result<u8> {
        self.take_array(what).map(|[b]| b)
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        self.take_array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        self.take_array(what).map(u64::from_le_bytes)
    }

    fn f64(&mut self, what: &str) -> Result<f64> {
        self.take_array(what).map(f64::from_le_bytes)
    }
}

fn split_tag(t: u8) -> Option<SplitTag> {
    Some(match t {
        0 => SplitTag::Leaf,
        1 => SplitTag::Numeric,
        2 => SplitTag::Multiway,
        3 => SplitTag::Subset,
        4 => SplitTag::Ordered,
        5 => SplitTag::Oblique,
        _ => return None,
    })
}

/// CRC-32 (IEEE 802.3, as zlib's `crc32` and Python's `zlib.crc32`) of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::data::{Column, Dataset, Target};
    use crate::params::{CategoricalSplit, TreeParams};

    /// A fixed-width field, or an array of them, that the input cuts short is refused
    /// naming the field: no missing byte is read as 0.
    #[test]
    fn a_field_cut_short_is_refused_naming_it() {
        let mut r = Reader {
            bytes: &[1, 2, 3],
            pos: 1,
        };
        assert_eq!(
            r.u32("the number of nodes"),
            Err(CoreError::CorruptModel {
                reason: "truncated: the number of nodes needs 4 bytes at offset 1, but only 2 \
                         remain"
                    .into()
            })
        );
        let mut r = Reader {
            bytes: &[0; 7],
            pos: 0,
        };
        assert!(matches!(
            r.array(2, "the depths", u32::from_le_bytes),
            Err(CoreError::CorruptModel { .. })
        ));
        let mut r = Reader {
            bytes: &[1, 0, 0, 0, 2, 0, 0, 0],
            pos: 0,
        };
        assert_eq!(r.array(2, "the depths", u32::from_le_bytes), Ok(vec![1, 2]));
    }

    #[test]
    fn crc_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    /// Raw field equality, NaN-aware (the derived `PartialEq` says NaN ≠ NaN).
    fn same_f64(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
    }

    #[test]
    fn surrogates_keep_their_adjusted_agreement_through_a_file() {
        // x splits the classes; z agrees with it but for one row, so it stands in for x.
        let x = [1.0, 2.0, 3.0, f64::NAN, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        let z = [1.0, 2.0, 3.0, 4.0, 5.0, 9.0, 7.0, 8.0, 6.0, 10.0];
        let data = Dataset::new(vec![Column::numeric(&x), Column::numeric(&z)]).expect("data");
        let y = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1];
        let target = Target::Classes {
            codes: &y,
            n_classes: 2,
        };
        let params = TreeParams {
            missing: MissingStrategy::Surrogate,
            max_depth: Some(1),
            ..TreeParams::default()
        };
        let tree = crate::grow(&data, &target, &[1.0; 10], &params).expect("fit");
        let adjusted = &tree.arena().surrogate_adjusted;
        assert_eq!(adjusted.len(), 1);
        let back = read(&write(&tree, b"{}")).expect("read");
        assert!(same_f64(&back.tree.arena().surrogate_adjusted, adjusted));
        assert!(adjusted[0] > 0.0 && adjusted[0] <= 1.0);
    }

    #[test]
    fn every_field_survives_a_round_trip() {
        let x = [1.0, 2.0, f64::NAN, 4.0, 5.0, 6.0];
        let codes = [0, 1, 2, 0, 1, 2];
        let missing = [false, false, false, true, false, false];
        let data = Dataset::new(vec![
            Column::numeric(&x),
            Column::Categorical(crate::data::CategoricalColumn {
                codes: &codes,
                missing_mask: Some(&missing),
                n_categories: 3,
                ordered: false,
            }),
        ])
        .expect("data");
        let y = [0, 0, 1, 1, 0, 1];
        let target = Target::Classes {
            codes: &y,
            n_classes: 2,
        };
        let params = TreeParams {
            criterion: Criterion::Gini,
            categorical_split: CategoricalSplit::Binary,
            missing: MissingStrategy::Surrogate,
            ..TreeParams::default()
        };
        let tree = crate::grow(&data, &target, &[1.0; 6], &params).expect("fit");
        let bytes = write(&tree, b"{}");
        let back = read(&bytes).expect("read");
        assert_eq!(back.metadata, b"{}");
        let b = &back.tree;
        let (ba, ta) = (b.arena(), tree.arena());
        assert_eq!(b.meta().criterion, tree.meta().criterion);
        assert_eq!(b.meta().kinds, tree.meta().kinds);
        assert_eq!(b.meta().outputs, tree.meta().outputs);
        assert_eq!(ba.tag, ta.tag);
        assert_eq!(ba.feature, ta.feature);
        assert!(same_f64(&ba.threshold, &ta.threshold));
        assert_eq!(ba.first_child, ta.first_child);
        assert_eq!(ba.n_children, ta.n_children);
        assert!(same_f64(&ba.branch_fraction, &ta.branch_fraction));
        assert_eq!(ba.subset_offset, ta.subset_offset);
        assert_eq!(ba.sides, ta.sides);
        assert_eq!(ba.parent, ta.parent);
        assert_eq!(ba.depth, ta.depth);
        assert!(same_f64(&ba.weight, &ta.weight));
        assert!(same_f64(&ba.n_rows, &ta.n_rows));
        assert_eq!(ba.n_samples, ta.n_samples);
        assert!(same_f64(&ba.impurity, &ta.impurity));
        assert_eq!(ba.label, ta.label);
        assert!(same_f64(&ba.value, &ta.value));
        assert_eq!(ba.score_offset, ta.score_offset);
        assert_eq!(b.meta().missing, tree.meta().missing);
        assert_eq!(ba.missing_child, ta.missing_child);
        assert_eq!(ba.surrogate_offset, ta.surrogate_offset);
        assert_eq!(ba.surrogate_len, ta.surrogate_len);
        assert_eq!(ba.surrogate_feature, ta.surrogate_feature);
        assert!(same_f64(&ba.surrogate_threshold, &ta.surrogate_threshold));
        assert!(same_f64(&ba.surrogate_agreement, &ta.surrogate_agreement));
        assert!(same_f64(&ba.surrogate_adjusted, &ta.surrogate_adjusted));
        assert_eq!(ba.surrogate_map, ta.surrogate_map);
        assert_eq!(ba.surrogate_children, ta.surrogate_children);
        assert!(same_f64(&ba.missing_weight, &ta.missing_weight));
        assert_eq!(ba.linear_offset, ta.linear_offset);
        assert_eq!(ba.linear_len, ta.linear_len);
        assert_eq!(ba.linear_features, ta.linear_features);
        assert!(same_f64(&ba.linear_weights, &ta.linear_weights));
        let flat = |s: &[FeatureScore]| -> Vec<f64> {
            s.iter()
                .flat_map(|s| [s.score, s.gain, s.iv, s.threshold, s.rho])
                .collect()
        };
        assert!(same_f64(&flat(&ba.scores), &flat(&ta.scores)));
        assert_eq!(write(b, b"{}"), bytes);
    }

    /// A random tree records its splitter; the record names only what can have run.
    #[test]
    fn random_trees_record_their_splitter() {
        let x: Vec<f64> = (0..40).map(|i| f64::from(i % 13)).collect();
        let y: Vec<u32> = (0..40).map(|i| u32::from(i % 13 > 6)).collect();
        let data = Dataset::new(vec![Column::numeric(&x)]).expect("data");
        let target = Target::Classes {
            codes: &y,
            n_classes: 2,
        };
        let params = TreeParams {
            splitter: Splitter::Random,
            random_state: 3,
            ..TreeParams::default()
        };
        let tree = crate::grow(&data, &target, &[1.0; 40], &params).expect("fit");
        assert_eq!(tree.splitter(), (Splitter::Random, 0));
        let bytes = write(&tree, b"{}");
        let back = read(&bytes).expect("read");
        assert_eq!(back.tree.splitter(), (Splitter::Random, 0));
        assert_eq!(write(&back.tree, b"{}"), bytes);
        for (name, bins) in [("best", 0u32), ("auto", 0), ("random", 8), ("hist", 0)] {
            let mut record = vec![name.len() as u8];
            record.extend_from_slice(name.as_bytes());
            record.extend_from_slice(&bins.to_le_bytes());
            assert!(read_splitter(&record).is_err(), "{name} {bins}");
        }
    }

    /// Weighted rows: the rows each node holds are recorded (they are not the size rules'
    /// count) and read back; a record of the wrong length is refused by name.
    #[test]
    fn weighted_rows_record_their_counts() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let data = Dataset::new(vec![Column::numeric(&x)]).expect("data");
        let y = [0, 0, 0, 1, 1, 1];
        let target = Target::Classes {
            codes: &y,
            n_classes: 2,
        };
        let weights = [1.0, 1.0, 1.0, 1.0, 1.0, 0.01];
        let tree = crate::grow(&data, &target, &weights, &TreeParams::default()).expect("fit");
        let counts: Vec<u64> = (0..3)
            .map(|i| tree.n_samples(crate::tree::NodeId(i)))
            .collect();
        assert_eq!(counts, [6, 3, 3]);
        let bytes = write(&tree, b"{}");
        let back = read(&bytes).expect("read");
        assert_eq!(back.tree.arena().n_samples, tree.arena().n_samples);
        assert_eq!(write(&back.tree, b"{}"), bytes);
        assert!(read_samples(&[0; 16], 3).is_err());
        assert_eq!(read_samples(&[0; 24], 3).ok(), Some(vec![0; 3]));
    }
}
