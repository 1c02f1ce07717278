//! quercus-core: decision trees the way the literature defines them.
//!
//! ID3, C4.5 and CART growth ([`grow`]) over borrowed columns ([`Dataset`]), with C4.5's
//! fractional handling of missing values at fit and at predict (or another
//! [`MissingStrategy`]: majority branch, class majority, a separate branch, learned directions,
//! surrogate splits), stored in an arena ([`Tree`]); provably optimal shallow trees by
//! branch and bound ([`grow_optimal`]). No Python here: the bindings crate converts types
//! and nothing else.

// User input reaches every library path, so no indexing that could panic (workspace lints
// already deny unwrap, expect and panic). Tests index freely.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

mod batch;
mod blocks;
mod builder;
mod class_sums;
mod control;
pub mod criterion;
pub mod data;
mod draws;
pub mod error;
mod labels;
pub mod measures;
pub mod median;
pub mod model_io;
mod optimal;
pub mod params;
mod predict;
pub mod prune;
mod routing;
mod scores;
mod split;
mod spread;
mod stream;
mod subtrees;
#[cfg(test)]
mod test_draws;
mod threads;
pub mod tree;

pub use batch::{
    Codes, Csr, Frame, FrameColumn, Matrix, Offsets, Order, PredictRows, Predictor, Real, Strings,
    Text, TextLookup, Validity,
};
pub use builder::{check_poisson_target, grow, grow_controlled, grow_with};
pub use control::Control;
pub use criterion::Criterion;
pub use data::{
    CategoricalColumn, Column, Dataset, FeatureKind, Float, Numbers, Sample, SparseColumn, Strided,
    Target,
};
pub use error::{CoreError, Result};
pub use model_io::Model;
pub use optimal::{grow_optimal, MAX_DEPTH as MAX_OPTIMAL_DEPTH};
pub use params::{
    CategoricalSplit, CategoryLimits, Conventions, MissingStrategy, Splitter, TreeParams,
};
pub use scores::{split_scores, NoSplit};
pub use spread::NodeSpread;
pub use stream::{BinnedBatch, KeptBatches, Pass, Sketch, StreamFit, Sums};
pub use tree::{
    FeatureScore, NodeId, NodeKind, Optimality, Side, SplitTag, Surrogate, Tree, TreeMeta,
};
