//! What a tree was grown with ([`TreeMeta`]) and what the optimal search proved of it
//! ([`Optimality`]): the records a tree carries beside its nodes.

use crate::criterion::Criterion;
use crate::data::FeatureKind;
use crate::params::{Conventions, MissingStrategy, Splitter};

/// What a tree was grown with: its outputs and features and the rules its nodes were made
/// and are read by. One record, so that every producer of a tree (growth, the subtrees grown
/// apart, the streamed and optimal fits, pruning, model files) carries it whole: a tree is
/// written from one ([`super::Writer::new`]) or from another tree ([`super::Writer::like`]),
/// never field by field, and none of them can drop what another reads (a pruned histogram tree used to
/// report the exact search).
#[derive(Debug, Clone, PartialEq)]
pub struct TreeMeta {
    pub criterion: Criterion,
    pub kinds: Vec<FeatureKind>,
    /// The classes of each output (0 for a real-valued one): one entry for a 1-D target,
    /// several for a multi-output tree, all classes or all real.
    pub outputs: Vec<usize>,
    /// The missing-value strategy the tree was grown with.
    pub missing: MissingStrategy,
    /// The conventions the tree was grown with: how its nodes' labels (and prediction) break
    /// ties between classes ([`Conventions`]).
    pub conventions: Conventions,
    /// The threshold search that grew the tree (`Auto` resolved) and, for `Hist`, its bins
    /// per feature (0 for `Exact`).
    pub splitter: Splitter,
    pub max_bins: u32,
}

impl TreeMeta {
    /// The record of a tree of `outputs` over features `kinds` grown with `criterion`, under
    /// the texts' conventions with C4.5's fractions, searched exactly (the fields a producer
    /// does not set are these defaults).
    pub fn new(criterion: Criterion, kinds: Vec<FeatureKind>, outputs: Vec<usize>) -> TreeMeta {
        TreeMeta {
            criterion,
            kinds,
            outputs,
            missing: MissingStrategy::Fractional,
            conventions: Conventions::Texts,
            splitter: Splitter::Exact,
            max_bins: 0,
        }
    }
}

/// What `algorithm="optimal"` proved of the tree it grew ([`crate::grow_optimal`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Optimality {
    /// The tree's objective: its training error (misclassification cost, or squared error)
    /// per unit of training weight, plus `ccp_alpha` per leaf.
    pub objective: f64,
    /// No tree within the fit's depth and leaf budgets has a smaller objective. Equal to
    /// `objective` when the search finished: the tree is then proven optimal.
    pub lower_bound: f64,
}

impl Optimality {
    pub fn proven(&self) -> bool {
        self.lower_bound >= self.objective
    }

    /// (objective − lower bound) / objective, as MIP solvers report it; 0 when proven.
    pub fn gap(&self) -> f64 {
        if self.proven() || self.objective <= 0.0 {
            0.0
        } else {
            (self.objective - self.lower_bound) / self.objective
        }
    }
}
