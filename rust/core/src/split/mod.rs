//! Split search: the best candidate test of each feature at a node, and the choice among them.
//!
//! Missing values follow C4.5 (text 000 §4.4.2): a candidate is scored on the rows whose value
//! is known (D̃), its gain is multiplied by ρ = w(D̃)/w(D), and each child remembers
//! r̃_v = w(D̃_v)/w(D̃), the fraction of a missing row's weight it receives.

use crate::control::Control;
use crate::criterion::{better, split_information, Criterion, Measure};
use crate::data::{with_numbers, Column, Dataset, Target};
use crate::draws::Draws;
use crate::params::{CategoricalSplit, CategoryLimits, Conventions, MissingStrategy, TreeParams};
use crate::routing::Values;
use crate::tree::{FeatureScore, NodeId, Side};

mod absolute;
mod binning;
pub(crate) mod byte_codes;
mod categorical;
mod fill;
pub(crate) mod hist;
pub(crate) mod j48;
mod kernel;
pub(crate) mod monotonic;
mod node_rows;
pub(crate) mod numeric;
mod oblique;
pub(crate) mod placement;
pub(crate) mod presort;
mod random;
pub(crate) mod rpart;
mod running;
pub(crate) mod scales;
pub(crate) mod sparse;
mod sweep;

use absolute::Ranks;
use byte_codes::{code_at, ByteCodes};
pub(crate) use categorical::Categories;
use hist::{Bins, Histograms};
use j48::TrainingValues;
use monotonic::Bounds;
pub(crate) use node_rows::NodeRows;
use numeric::Facts;
use presort::Sorted;
use rayon::prelude::*;
use scales::ClassScales;

/// Nodes with at least this many rows search their features in parallel.
const PARALLEL_ROWS: usize = 2048;

/// What a node's search reuses instead of sorting its rows afresh.
#[derive(Clone, Copy)]
pub(crate) enum Prepared<'b> {
    /// Nothing: each numeric feature's known rows are sorted at the node.
    Unsorted,
    /// The node's rows sorted once per fit and handed down ([`presort`]).
    Sorted(&'b Sorted),
    /// The node's histograms over the fit's bins ([`hist`]).
    Hist {
        bins: &'b Bins,
        hist: &'b Histograms,
    },
    /// Histograms and per-category sums added up batch by batch (`crate::stream`): the node
    /// has no rows at hand. `cats` per feature, `None` for numeric or unusable ones.
    Summed {
        bins: &'b Bins,
        hist: &'b Histograms,
        cats: &'b [Option<Categories>],
    },
}

/// The test a candidate applies.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SplitRule {
    Numeric {
        threshold: f64,
    },
    /// Σ weights[i] · x[features[i]] <= threshold → child 0 (a multivariate test).
    Oblique {
        features: Vec<u32>,
        weights: Vec<f64>,
        threshold: f64,
    },
    Multiway {
        n_children: usize,
    },
    Subset {
        sides: Vec<Side>,
    },
    Ordered {
        threshold: u32,
    },
}

/// The best split of one feature at one node.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub feature: usize,
    pub rule: SplitRule,
    pub score: FeatureScore,
    /// r̃_v for each child: its share of the known weight.
    pub fractions: Vec<f64>,
    /// Statistics of each child's known rows (for the G² test); with `placed`, the missing
    /// rows are in their child's.
    pub children: Vec<Vec<f64>>,
    /// The child the search put the node's missing rows in (learned, separate); `None` when
    /// they were left out of the score (C4.5's known rows × ρ) or there were none.
    pub placed: Option<usize>,
    /// Where missing values go, decided once the split is chosen ([`placement::plan`]).
    pub missing_plan: placement::Plan,
}

impl Candidate {
    /// The test the candidate applies, as the arena will store it.
    pub(crate) fn kind(&self) -> crate::tree::NodeKind<'_> {
        use crate::tree::NodeKind;
        let feature = self.feature;
        match &self.rule {
            SplitRule::Numeric { threshold } => NodeKind::Numeric {
                feature,
                threshold: *threshold,
            },
            SplitRule::Multiway { .. } => NodeKind::Multiway { feature },
            SplitRule::Oblique {
                features,
                weights,
                threshold,
            } => NodeKind::Oblique {
                features,
                weights,
                threshold: *threshold,
            },
            SplitRule::Subset { sides } => NodeKind::Subset { feature, sides },
            SplitRule::Ordered { threshold } => NodeKind::Ordered {
                feature,
                threshold: *threshold,
            },
        }
    }
}

/// Everything a search needs besides the node's rows.
#[derive(Clone, Copy)]
pub(crate) struct Searcher<'a, 'd> {
    pub data: &'a Dataset<'d>,
    pub target: &'a Target<'d>,
    pub criterion: Criterion,
    measure: Measure<'a>,
    pub categorical_split: CategoricalSplit,
    pub min_samples_leaf: usize,
    /// Rows a unit of training weight counts as in the size rules ([`Self::rows_of`]).
    rows_per_weight: f64,
    /// `min_samples_leaf` as a weight: the least a side may hold (with the tolerance of
    /// [`holds_rows`]), so the threshold scan compares one number per side.
    min_leaf_size: f64,
    /// `Some(least node weight)` where the size rules bound only the splits that cut rows
    /// into C4.5 fragments ([`TreeParams::sizes_bound_cuts_only`]): the least weight a node
    /// must hold for such a split (`min_samples_split` rows' worth).
    cut_bound: Option<f64>,
    /// Class factors between the rows' weights and the search's ([`scales`]); `None`: none.
    scales: Option<&'a ClassScales>,
    /// Least total weight (missing fractions included) of a non-empty child.
    min_weight_leaf: f64,
    /// C4.5's MINOBJS: known weight of at least two branches (both, for a binary split).
    min_objects: f64,
    numeric_gain_correction: bool,
    pub conventions: Conventions,
    /// The training values thresholds move down to ([`Conventions::J48`]).
    training_values: Option<&'a TrainingValues>,
    /// The categorical columns' codes a byte per row, which the searches count categories
    /// and growth routes rows from ([`byte_codes`]); `None`: from the columns.
    pub byte_codes: Option<&'a ByteCodes>,
    pub max_exhaustive_categories: usize,
    /// LightGBM's regularisers of subset splits ([`crate::params::CategoryLimits`]).
    pub category_limits: CategoryLimits,
    /// Regression targets are centred on this value (the node's mean) while searching.
    shift: f64,
    pub missing: MissingStrategy,
    /// A fold of rpart's cross-validation (grown with the whole data's `prior_weights`): see
    /// [`placement::Plan::stored`].
    pub xval_fold: bool,
    /// The fit's control: stops the search and guards its large buffers (`None`: neither).
    control: Option<&'a Control>,
    /// Monotonic constraints per feature, as given (see [`monotonic`]); `None`: none.
    monotonic: Option<&'a [i8]>,
    /// The range a constrained node's children's values must stay in.
    bounds: Bounds,
    /// Random tests (`splitter="random"`): the fit's draws and the node searched.
    random: Option<(&'a Draws, NodeId)>,
}

/// Known-row statistics of each child of a candidate.
struct Partition<'s> {
    children: &'s [Vec<f64>],
    counts: &'s [usize],
    /// The impurities, when the statistics cannot give them (absolute error: computed from
    /// the rows); `None`: from `children`.
    impurities: Option<&'s Impurities>,
}

/// Impurities of a candidate's scored rows and of each child, computed from the rows.
#[derive(Debug, Clone, Default)]
struct Impurities {
    scored: f64,
    children: Vec<f64>,
}

/// What a candidate's score did with the rows missing its value.
#[derive(Debug, Clone, Copy)]
enum MissingRows {
    /// They were left out of the score: C4.5's known rows × ρ.
    Left,
    /// They were scored in child `child` (learned, separate); the known rows weigh
    /// `known_weight`.
    Placed { child: usize, known_weight: f64 },
}

impl<'a, 'd> Searcher<'a, 'd> {
    /// `total_weight` is the training weight of the whole data set, which
    /// `min_weight_fraction_leaf` refers to.
    pub fn new(
        data: &'a Dataset<'d>,
        target: &'a Target<'d>,
        params: &'a TreeParams,
        total_weight: f64,
    ) -> Searcher<'a, 'd> {
        Searcher {
            data,
            target,
            criterion: params.criterion,
            measure: Measure::new(
                params.criterion,
                // Altered priors put the costs in the class weights instead (see `scales`).
                params
                    .cost_matrix
                    .as_deref()
                    .filter(|_| !params.altered_priors),
                target.layout(),
            ),
            categorical_split: params.categorical_split,
            min_samples_leaf: params.min_samples_leaf,
            rows_per_weight: 1.0,
            min_leaf_size: least_weight(params.min_samples_leaf, 1.0),
            cut_bound: params
                .sizes_bound_cuts_only()
                .then(|| least_weight(params.min_samples_split, 1.0)),
            scales: None,
            min_weight_leaf: params.min_weight_fraction_leaf * total_weight,
            min_objects: params.min_objects,
            numeric_gain_correction: params.numeric_gain_correction,
            conventions: params.conventions,
            training_values: None,
            byte_codes: None,
            max_exhaustive_categories: params.max_exhaustive_categories,
            category_limits: params.category_limits,
            shift: 0.0,
            missing: params.missing,
            xval_fold: params.prior_weights.is_some(),
            control: None,
            monotonic: params
                .monotonic_cst
                .as_deref()
                .filter(|c| c.iter().any(|&x| x != 0)),
            bounds: Bounds::NONE,
            random: None,
        }
    }

    /// This searcher with no size rule (rows, weight, MINOBJS, the cut bound): whether a
    /// feature has a split at all, to tell why it had none ([`crate::scores`]).
    pub(crate) fn without_size_rules(self) -> Searcher<'a, 'd> {
        Searcher {
            min_leaf_size: 0.0,
            cut_bound: None,
            min_weight_leaf: 0.0,
            min_objects: 0.0,
            ..self
        }
    }

    /// This searcher checking constrained features' splits against `bounds` (a node's).
    pub(crate) fn bounded(self, bounds: Bounds) -> Searcher<'a, 'd> {
        Searcher { bounds, ..self }
    }

    /// Whether some feature is monotonically constrained.
    pub(crate) fn is_constrained(&self) -> bool {
        self.monotonic.is_some()
    }

    /// w·I(D) − Σ_c w_c·I(D_c) for a split whose children have these statistics, D being
    /// the rows the split scored (their sum): scikit-learn's weighted impurity decrease
    /// before its division by the total training weight.
    pub(crate) fn weighted_decrease(&self, children: &[Vec<f64>]) -> f64 {
        let mut all = self.zero_stats();
        for c in children {
            add_into(&mut all, c);
        }
        let parts: f64 = children
            .iter()
            .map(|c| self.weight_of(c) * self.impurity(c))
            .sum();
        self.weight_of(&all) * self.impurity(&all) - parts
    }

    /// This searcher drawing one random test per feature at `node` from `draws`.
    pub(crate) fn randomised(self, draws: &'a Draws, node: NodeId) -> Searcher<'a, 'd> {
        Searcher {
            random: Some((draws, node)),
            ..self
        }
    }

    /// This searcher stopping when `control` says so, its large buffers reserved through it.
    pub(crate) fn controlled(self, control: &'a Control) -> Searcher<'a, 'd> {
        Searcher {
            control: Some(control),
            ..self
        }
    }

    /// This searcher moving thresholds down to training values ([`Conventions::J48`]).
    pub(crate) fn with_training_values(self, values: &'a TrainingValues) -> Searcher<'a, 'd> {
        Searcher {
            training_values: Some(values),
            ..self
        }
    }

    /// This searcher counting categories from `codes` ([`byte_codes`]).
    pub(crate) fn with_byte_codes(self, codes: &'a ByteCodes) -> Searcher<'a, 'd> {
        Searcher {
            byte_codes: Some(codes),
            ..self
        }
    }

    /// Whether the fit was stopped (cancelled, out of time, out of memory).
    pub(crate) fn stopped(&self) -> bool {
        self.control.is_some_and(Control::stopped)
    }

    /// An empty vector with room for `n` items; `None` when the memory cannot be had (the
    /// fit then stops with an error, see [`Control::reserve`]).
    pub(crate) fn vec<T>(&self, n: usize) -> Option<Vec<T>> {
        match self.control {
            Some(c) => c.vec(n),
            None => Some(Vec::with_capacity(n)),
        }
    }

    /// This searcher reading class weights through `scales` (see [`scales`]).
    pub(crate) fn scaled(self, scales: Option<&'a ClassScales>) -> Searcher<'a, 'd> {
        Searcher { scales, ..self }
    }

    /// Whether class factors come between the rows' weights and the search's.
    pub(crate) fn has_scales(&self) -> bool {
        self.scales.is_some()
    }

    /// The weight row `row`, carrying `w`, has in the search (altered priors applied). Rows
    /// are the target's, here and in [`Self::row_weight`]: the class 0 is never read.
    #[inline]
    pub(crate) fn search_weight(&self, row: usize, w: f64) -> f64 {
        match (self.scales, self.target) {
            (Some(s), Target::Classes { codes, .. }) => {
                s.search_weight(codes.get(row).copied().unwrap_or(0) as usize, w)
            }
            _ => w,
        }
    }

    /// The row weight the size rules count for `w` of row `row`: its class weight removed.
    pub(crate) fn row_weight(&self, row: usize, w: f64) -> f64 {
        match (self.scales, self.target) {
            (Some(s), Target::Classes { codes, .. }) => {
                s.row_weight(codes.get(row).copied().unwrap_or(0) as usize, w)
            }
            _ => w,
        }
    }

    /// The caller's weight of statistics gathered in the search.
    fn plain_weight(&self, stats: &[f64]) -> f64 {
        match self.scales {
            Some(s) if !self.regression() => s.weight(stats),
            _ => self.weight_of(stats),
        }
    }

    /// Whether a side with statistics `stats` (search weight `w`) holds `least`.
    #[inline]
    fn holds(&self, stats: &[f64], w: f64, least: Least) -> bool {
        match self.scales {
            Some(s) if !self.regression() => {
                s.rows(stats) >= least.rows && s.weight(stats) >= least.weight
            }
            _ => w >= least.plain(),
        }
    }

    /// This searcher counting rows in units of `unit`, the lightest positive training weight
    /// (see [`Self::rows_of`]).
    pub(crate) fn counting_rows_in(self, unit: f64) -> Searcher<'a, 'd> {
        let rows_per_weight = if unit > 0.0 { 1.0 / unit } else { 1.0 };
        Searcher {
            rows_per_weight,
            min_leaf_size: least_weight(self.min_samples_leaf, rows_per_weight),
            cut_bound: self
                .cut_bound
                .map(|w| w * self.rows_per_weight / rows_per_weight),
            ..self
        }
    }

    /// The rows `weight` counts as in the size rules (`min_samples_split`,
    /// `min_samples_leaf`). C4.5 and Weka's J48 count a node's cases by weight, a fragment of a
    /// row with a missing value counting as the fraction it carries (Quinlan 1993, ch. 3);
    /// counting fragments as whole rows let fractions of rows split without end. Weight is
    /// measured in units of the lightest training row's, so unit weights count rows as C4.5
    /// and scikit-learn do, rescaling every weight changes no tree, and a row given twice
    /// counts as that row once with weight 2.
    #[inline]
    pub(crate) fn rows_of(&self, weight: f64) -> f64 {
        weight * self.rows_per_weight
    }

    /// The node impurity under this search's criterion (and costs).
    #[inline(always)]
    pub fn impurity(&self, stats: &[f64]) -> f64 {
        self.measure.impurity(stats)
    }

    /// The impurity of a node whose rows carry the class weights `stats` (the caller's
    /// weights), as the search weighs them.
    pub(crate) fn node_impurity(&self, stats: &[f64]) -> f64 {
        match self.scales {
            Some(s) if !self.regression() => self.impurity(&s.searched(stats)),
            _ => self.impurity(stats),
        }
    }

    /// The least a child may receive at a node whose scored rows weigh `kw` of its
    /// `node_weight`: enough rows (`min_samples_leaf`, counted by weight) and enough weight
    /// (`min_weight_fraction_leaf`), both with the child's share of the missing rows when
    /// C4.5 spreads them (a child of share `w / kw` then holds `w / kw × node_weight`); the
    /// other strategies send a missing row to one child, so only what was scored counts in
    /// advance.
    ///
    /// Where the size rules bound only the cuts ([`Self::cut_bound`]), a split that cuts no
    /// row needs children that are merely non-empty (Algorithm 4.1), and one that cuts rows a
    /// node of `min_samples_split` rows' weight besides.
    #[inline]
    fn least_child(&self, kw: f64, node_weight: f64) -> Least {
        // J48 counts a child's rows, a fragment of a row as one: with one row a child, any
        // side of a cut holds it ([`Self::finish`] counts the rows of the others).
        let scored = kw / node_weight; // 1 where no row misses the feature
        let rows = if self.conventions == Conventions::J48 && self.min_samples_leaf <= 1 {
            0.0
        } else if self.missing == MissingStrategy::Fractional {
            match self.cut_bound {
                Some(_) if !cuts_rows(scored) => 0.0,
                Some(least) if node_weight < least => f64::INFINITY,
                _ => self.min_leaf_size * scored,
            }
        } else {
            self.min_leaf_size
        };
        Least {
            rows,
            weight: self.min_weight_leaf * scored,
        }
    }

    /// [`Self::least_child`] for each side of a binary split, where C4.5 also asks for
    /// `min_objects` of known weight on both.
    #[inline]
    fn least_side(&self, kw: f64, node_weight: f64) -> Least {
        self.least_child(kw, node_weight)
            .with_weight(self.least_objects(self.min_objects))
    }

    /// The least weight that holds `objects` (MINOBJS, MINSPLIT): exactly that, or with J48's
    /// `Utils.grOrEq` slack of 1e-6.
    #[inline]
    fn least_objects(&self, objects: f64) -> f64 {
        match self.conventions {
            Conventions::Texts => objects,
            Conventions::J48 if objects > 0.0 => objects - j48::SMALL,
            Conventions::J48 => 0.0,
        }
    }

    /// C4.5's MINSPLIT at a node whose rows known for a numeric feature weigh `kw`
    /// ([`j48::min_split`]). The texts' reading has none without MINOBJS (ID3 and CART
    /// have no such rule); J48 keeps its 10% share per class with MINOBJS 0 too. Regression
    /// has no classes to share it by.
    fn min_split(&self, kw: f64) -> f64 {
        if self.regression() || (self.min_objects <= 0.0 && self.conventions == Conventions::Texts)
        {
            return 0.0;
        }
        j48::min_split(kw, self.target.stats_width(), self.min_objects)
    }

    /// Whether the search places the missing rows on a side itself (and scores all rows).
    fn places_missing(&self) -> bool {
        matches!(
            self.missing,
            MissingStrategy::Learned | MissingStrategy::Separate
        )
    }

    fn regression(&self) -> bool {
        self.criterion.is_regression()
    }

    #[inline]
    fn accumulate(&self, stats: &mut [f64], row: usize, w: f64) {
        let w = self.search_weight(row, w);
        self.target.accumulate_around(stats, row, w, self.shift);
    }

    pub(crate) fn zero_stats(&self) -> Vec<f64> {
        vec![0.0; self.target.stats_width()]
    }

    #[inline(always)]
    pub(crate) fn weight_of(&self, stats: &[f64]) -> f64 {
        self.measure.weight(stats)
    }

    /// The magnitude rounding noise in scores at a node with statistics `stats` is relative
    /// to (see [`Criterion::noise_scale`]).
    fn noise_scale(&self, stats: &[f64]) -> f64 {
        self.measure.noise_scale(stats)
    }

    /// Best candidate of every feature (`None` where a feature cannot separate the rows or is
    /// excluded by `usable`).
    /// Also returns the node's noise scale for comparing the candidates (see [`choose`]).
    ///
    /// `fill` (class majority) supplies the values of the node's missing cells.
    pub fn candidates(
        &self,
        node: &NodeRows,
        usable: &[bool],
        fill: Option<&placement::Fill>,
        prepared: Prepared<'_>,
    ) -> (Vec<Option<Candidate>>, f64) {
        let at = self.at_node(node, fill, prepared);
        (at.features(usable), at.scale)
    }

    /// The search of one node, set up once for any number of its features.
    ///
    /// Regression targets are centred on the node's mean, except with histograms, whose sums
    /// were accumulated around the searcher's own shift (see [`Self::centred_on`]). Absolute
    /// error ranks the node's targets once for all its features' scans.
    pub(crate) fn at_node<'n>(
        &self,
        node: &'n NodeRows,
        fill: Option<&'n placement::Fill>,
        prepared: Prepared<'n>,
    ) -> NodeSearch<'n, 'a, 'd> {
        let mut total = self.zero_stats();
        for (r, w) in node.iter() {
            self.target
                .accumulate(&mut total, r, self.search_weight(r, w));
        }
        // Class counts do not move with the centre: only regression sums are taken again.
        let centred = self.centred_for(&total, prepared);
        let centred_total = (centred.shift != 0.0).then(|| {
            let mut sums = self.zero_stats();
            for (r, w) in node.iter() {
                centred.accumulate(&mut sums, r, w);
            }
            sums
        });
        self.at_node_from(total, centred_total, node, fill, prepared)
    }

    /// This searcher as a node of statistics `total` (uncentred) searches: centred on its
    /// mean, or on the fit's centre with histograms.
    fn centred_for(&self, total: &[f64], prepared: Prepared<'_>) -> Searcher<'a, 'd> {
        match prepared {
            Prepared::Hist { .. } | Prepared::Summed { .. } => *self,
            // A regression node's mean, Σwy / w (a class node's shift is dropped by
            // `centred_on`, so the 0.0 of a one-class node is never used).
            _ => self.centred_on(total.get(1).copied().unwrap_or(0.0) / self.weight_of(total)),
        }
        .with_node_sum(total)
    }

    /// [`Self::at_node`] given the node's statistics `total` (as `Target::accumulate` sums
    /// them) and, when the search centres regression targets, the same sums around the centre
    /// (`centred_total`). With [`Prepared::Summed`], `node` may be empty.
    pub(crate) fn at_node_from<'n>(
        &self,
        total: Vec<f64>,
        centred_total: Option<Vec<f64>>,
        node: &'n NodeRows,
        fill: Option<&'n placement::Fill>,
        prepared: Prepared<'n>,
    ) -> NodeSearch<'n, 'a, 'd> {
        let node_weight = self.weight_of(&total);
        let centred = self.centred_for(&total, prepared);
        let centred_total = match centred_total {
            Some(sums) if centred.shift != 0.0 => sums,
            _ => total,
        };
        // Out of memory for the ranks: no split here, and the fit stops at its next check.
        let (ranks, starved) = if self.criterion.is_additive() {
            (None, false)
        } else {
            let ranks = centred.ranks(node);
            let starved = ranks.is_none();
            (ranks, starved)
        };
        let exact = match prepared {
            Prepared::Hist { .. } => None,
            _ => self.exact_counts(node),
        };
        // Gathered once for every sorted numeric scan of the node (the class-majority
        // fills and absolute error read rows their own way).
        let dense = || {
            self.data
                .columns()
                .iter()
                .any(|c| matches!(c, Column::Numeric(_)))
        };
        let facts = match prepared {
            Prepared::Sorted(_) if fill.is_none() && ranks.is_none() && dense() => {
                centred.facts(node)
            }
            _ => None,
        };
        NodeSearch {
            centred,
            node,
            node_weight,
            scale: self.noise_scale(&centred_total),
            total: centred_total,
            fill,
            prepared,
            ranks,
            starved,
            exact,
            facts,
        }
    }

    /// This searcher at a node of statistics `total` (uncentred), for the Poisson deviance's
    /// test of children whose targets sum to 0 ([`Measure::at_node_sum`]).
    pub(crate) fn with_node_sum(&self, total: &[f64]) -> Searcher<'a, 'd> {
        // A regression node's Σwy (its statistics are w, Σwy, Σwy², …); a class node has none.
        let sum = match (self.regression(), total) {
            (true, [_, sum, ..]) => *sum,
            _ => 0.0,
        };
        Searcher {
            measure: self.measure.at_node_sum(sum),
            ..*self
        }
    }

    /// This searcher with regression targets taken as `y − shift` (classes, and several
    /// outputs, are unaffected: see [`Target::accumulate_around`]).
    pub(crate) fn centred_on(&self, shift: f64) -> Searcher<'a, 'd> {
        let single = self.target.n_outputs() == 1;
        Searcher {
            shift: if self.criterion.centres_targets() && single {
                shift
            } else {
                0.0
            },
            ..*self
        }
    }

    /// `facts`: what the node search computed once for all its features ([`NodeFacts`]).
    fn best_of_feature<V: Values + ?Sized>(
        &self,
        feature: usize,
        node: &NodeRows,
        node_weight: f64,
        values: &V,
        prepared: Prepared<'_>,
        facts: NodeFacts<'_>,
    ) -> Option<Candidate> {
        let NodeFacts {
            ranks,
            exact,
            facts,
            bytes,
        } = facts;
        match self.data.columns().get(feature)? {
            // A sparse column holds no missing value, so class-majority fills never apply.
            Column::Sparse(col) => match (prepared, ranks) {
                (Prepared::Hist { bins, .. }, Some(ranks)) => {
                    self.absolute_hist(feature, bins, node, node_weight, ranks)
                }
                // Absolute error scans rows, which summed histograms do not have.
                (Prepared::Summed { .. }, Some(_)) => None,
                // Absolute error reads the column row by row, as a dense one.
                (_, Some(ranks)) => self.absolute_numeric(
                    feature,
                    |r| col.value(r),
                    node,
                    node_weight,
                    None,
                    Some(ranks),
                ),
                (Prepared::Hist { bins, hist } | Prepared::Summed { bins, hist, .. }, None) => {
                    self.numeric_hist(feature, bins, hist, node_weight)
                }
                (Prepared::Sorted(sorted), None) => {
                    let stored = sorted.stored(feature)?;
                    self.numeric_sparse(feature, col, stored, node, node_weight, exact)
                }
                (Prepared::Unsorted, None) => {
                    let stored =
                        sparse::by_value(col, sparse::entries_at(col, node, self.control)?);
                    self.numeric_sparse(feature, col, &stored, node, node_weight, exact)
                }
            },
            Column::Numeric(_) => match (prepared, ranks) {
                (Prepared::Hist { bins, .. }, Some(ranks)) => {
                    self.absolute_hist(feature, bins, node, node_weight, ranks)
                }
                (Prepared::Hist { bins, hist } | Prepared::Summed { bins, hist, .. }, None) => {
                    self.numeric_hist(feature, bins, hist, node_weight)
                }
                // Absolute error scans rows, which summed histograms do not have.
                (Prepared::Summed { .. }, Some(_)) => None,
                (Prepared::Sorted(sorted), _) => {
                    let list = sorted.list(feature);
                    match values.numeric_column(feature) {
                        Some(column) => with_numbers!(column, |v| self.numeric(
                            feature,
                            |r| v.at(r),
                            node,
                            node_weight,
                            list,
                            ranks,
                            facts
                        )),
                        None => self.numeric(
                            feature,
                            |r| values.number(feature, r),
                            node,
                            node_weight,
                            list,
                            ranks,
                            facts,
                        ),
                    }
                }
                (Prepared::Unsorted, _) => match values.numeric_column(feature) {
                    Some(column) => with_numbers!(column, |v| self.numeric(
                        feature,
                        |r| v.at(r),
                        node,
                        node_weight,
                        None,
                        ranks,
                        None
                    )),
                    None => self.numeric(
                        feature,
                        |r| values.number(feature, r),
                        node,
                        node_weight,
                        None,
                        ranks,
                        None,
                    ),
                },
            },
            Column::Categorical(col) => {
                let code_of = |&r: &u32| values.code(feature, r as usize);
                if let Some(ranks) = ranks {
                    let codes: Vec<Option<u32>> = node.rows.iter().map(code_of).collect();
                    let kind = (col.n_categories as usize, col.ordered);
                    return self.absolute_categorical(
                        feature,
                        &codes,
                        kind,
                        node,
                        node_weight,
                        ranks,
                    );
                }
                let counted = match prepared {
                    Prepared::Summed { cats, .. } => Some(cats.get(feature)?.as_ref()?),
                    Prepared::Hist { hist, .. } => hist.categories(feature),
                    _ => None,
                };
                let owned;
                let cats = match counted {
                    Some(cats) => cats,
                    None => {
                        let k = col.n_categories as usize;
                        owned = match bytes {
                            Some(b) => {
                                let codes = node.rows.iter().map(|&r| code_at(b, r as usize));
                                self.per_category(codes, k, node)
                            }
                            None => self.per_category(node.rows.iter().map(code_of), k, node),
                        };
                        &owned
                    }
                };
                match (self.categorical_split, col.ordered) {
                    (CategoricalSplit::Multiway, _) => self.multiway(feature, cats, node_weight),
                    (CategoricalSplit::Binary, true) => self.ordered(feature, cats, node_weight),
                    (CategoricalSplit::Binary, false) => self.subset(feature, cats, node_weight),
                }
            }
        }
    }

    /// Scores a partition of the known rows: (its quality on D̃, the weighted child impurity).
    /// The quality is the impurity decrease, or the criterion's own formula (text 002 §3).
    fn decrease(&self, known: &[f64], part: &Partition<'_>) -> (f64, f64) {
        if let Some(imp) = part.impurities {
            let known_w = self.weight_of(known);
            let child_imp: f64 = part
                .children
                .iter()
                .zip(&imp.children)
                .map(|(c, i)| {
                    let w = self.weight_of(c);
                    if w > 0.0 {
                        w / known_w * i
                    } else {
                        0.0
                    }
                })
                .sum();
            return (imp.scored - child_imp, child_imp);
        }
        let children: Vec<&[f64]> = part.children.iter().map(Vec::as_slice).collect();
        self.assess(known, &children)
    }

    fn assess(&self, known: &[f64], children: &[&[f64]]) -> (f64, f64) {
        let known_w = self.weight_of(known);
        let child_imp: f64 = children
            .iter()
            .map(|c| {
                let w = self.weight_of(c);
                if w > 0.0 {
                    w / known_w * self.impurity(c)
                } else {
                    0.0
                }
            })
            .sum();
        let base = self.impurity(known);
        let quality = self
            .criterion
            .partition_quality(known, children, base, child_imp);
        (quality, child_imp)
    }

    /// Completes a candidate's figures once its rule is chosen.
    fn finish(
        &self,
        feature: usize,
        rule: SplitRule,
        known: &[f64],
        part: &Partition<'_>,
        node_weight: f64,
        missing: MissingRows,
    ) -> Option<Candidate> {
        let placed = match missing {
            MissingRows::Left => None,
            MissingRows::Placed {
                child,
                known_weight,
            } => Some((child, known_weight)),
        };
        let known_w = self.weight_of(known);
        if known_w <= 0.0 || node_weight <= 0.0 {
            return None;
        }
        let weights: Vec<f64> = part.children.iter().map(|c| self.weight_of(c)).collect();
        // Every child that receives rows must hold enough of them and enough weight; at
        // least two must hold min_objects of known weight (C4.5). J48 counts a child's rows
        // as its instances, a fragment of a row as one (its only size rule is MINOBJS).
        let least = self.least_child(known_w, node_weight);
        let plain: Vec<f64> = part.children.iter().map(|c| self.plain_weight(c)).collect();
        let too_small = match self.conventions {
            Conventions::Texts => part
                .counts
                .iter()
                .zip(part.children)
                .zip(&weights)
                .any(|((&c, stats), &w)| c > 0 && !self.holds(stats, w, least)),
            Conventions::J48 => part
                .counts
                .iter()
                .zip(&plain)
                .any(|(&c, &w)| c > 0 && (c < self.min_samples_leaf || w < least.weight)),
        };
        let least_objects = self.least_objects(self.min_objects);
        let big_enough = plain
            .iter()
            .filter(|&&w| w > 0.0 && w >= least_objects)
            .count();
        if too_small || big_enough < 2 {
            return None;
        }
        let (decrease, child_imp) = self.decrease(known, part);
        // A Poisson child predicting 0 makes the deviance infinite: no split.
        if !decrease.is_finite() {
            return None;
        }
        // Placed missing rows are scored with the known ones: no ρ, and no missing outcome in
        // the split information (it is inside its child's weight).
        let (gain, rho, missing_w) = match placed {
            None => {
                let rho = known_w / node_weight;
                (rho * decrease, rho, (node_weight - known_w).max(0.0))
            }
            Some((_, known_weight)) => (decrease, known_weight / node_weight, 0.0),
        };
        let iv = split_information(
            weights
                .iter()
                .map(|w| w / node_weight)
                .chain(std::iter::once(missing_w / node_weight)),
        );
        let score = match self.criterion {
            // G² = 2 ln 2 · |S| · InformationGain (text 002 §3.5).
            Criterion::LikelihoodRatio => 2.0 * std::f64::consts::LN_2 * node_weight * gain,
            // w_L·w_R/(w_L + w_R)·(ȳ_L − ȳ_R)², the scored rows' weight times their variance
            // reduction (for more children, the between-children sum of squares).
            // Several outputs: the mean of their improvements, which picks the squared error's
            // split (scikit-learn 1.9 maps "friedman_mse" to "squared_error" for this reason).
            Criterion::FriedmanMse => known_w * decrease,
            Criterion::Entropy => gain,
            Criterion::GainRatio => {
                if iv > 0.0 {
                    gain / iv
                } else {
                    0.0
                }
            }
            _ if self.criterion.reports_child_impurity() => child_imp,
            _ => gain,
        };
        let threshold = match &rule {
            SplitRule::Numeric { threshold } | SplitRule::Oblique { threshold, .. } => *threshold,
            SplitRule::Ordered { threshold } => f64::from(*threshold),
            _ => f64::NAN,
        };
        Some(Candidate {
            feature,
            rule,
            score: FeatureScore {
                score,
                gain,
                iv,
                threshold,
                rho,
            },
            // Shares of the caller's weight, whatever the search weighed.
            fractions: {
                let known = if self.scales.is_some() {
                    plain.iter().sum::<f64>()
                } else {
                    known_w
                };
                plain.iter().map(|w| w / known).collect()
            },
            children: part.children.to_vec(),
            placed: placed.map(|(child, _)| child),
            missing_plan: placement::Plan::default(),
        })
    }

    /// C4.5 release 8: a numeric test chosen among `cuts` candidate thresholds pays
    /// log2(cuts)/|D| of gain; a test left with no positive gain (J48: none above 1e-6) is
    /// dropped. The texts' reading (Quinlan 1996) counts every cut between distinct values,
    /// J48's (and `contin.c`'s) the cuts it tried, those leaving MINSPLIT on both sides.
    fn correct_numeric_gain(
        &self,
        mut c: Candidate,
        cuts: Cuts,
        node_weight: f64,
    ) -> Option<Candidate> {
        if !self.numeric_gain_correction {
            return Some(c);
        }
        let (count, least) = match self.conventions {
            Conventions::Texts => (cuts.distinct.saturating_sub(1), 0.0),
            Conventions::J48 => (cuts.tried, j48::SMALL),
        };
        c.score.gain -= (count.max(1) as f64).log2() / node_weight;
        if c.score.gain <= least {
            return None;
        }
        c.score.score = match self.criterion {
            Criterion::Entropy => c.score.gain,
            Criterion::GainRatio if c.score.iv > 0.0 => c.score.gain / c.score.iv,
            _ => c.score.score,
        };
        Some(c)
    }
}

/// The search of one node ([`Searcher::at_node`]).
pub(crate) struct NodeSearch<'n, 'a, 'd> {
    /// The searcher centred on the node (regression).
    centred: Searcher<'a, 'd>,
    node: &'n NodeRows,
    node_weight: f64,
    /// The noise scale its candidates are compared at ([`choose`]).
    pub scale: f64,
    /// The statistics of all the node's rows (centred as `centred` centres them).
    total: Vec<f64>,
    fill: Option<&'n placement::Fill>,
    prepared: Prepared<'n>,
    /// The node's ranked targets, for absolute error's scans (`None` for the criteria of
    /// sums).
    ranks: Option<Ranks>,
    /// Absolute error's ranks could not be had (out of memory): the node finds no split.
    starved: bool,
    /// The node's class weights when their sums are exact ([`Searcher::exact_counts`]).
    exact: Option<Vec<f64>>,
    /// The node's rows' weights and labels for the sorted numeric scans (`None`: read from
    /// the data set).
    facts: Option<Facts>,
}

/// What a node's search computed once for all its features' scans.
#[derive(Clone, Copy, Default)]
pub(crate) struct NodeFacts<'n> {
    /// The node's ranked targets, for absolute error's scans (`None` for the criteria of
    /// sums).
    ranks: Option<&'n Ranks>,
    /// The node's class weights when their sums are exact, for sparse columns' zero blocks.
    exact: Option<&'n [f64]>,
    /// The node's [`Facts`], for the sorted numeric scans.
    facts: Option<&'n Facts>,
    /// The feature's [`byte_codes`], when it has them and its values are read as stored
    /// (no class-majority fills).
    bytes: Option<&'n [u8]>,
}

impl NodeSearch<'_, '_, '_> {
    /// The best candidate of feature `f` (`None` if it cannot separate the rows).
    pub(crate) fn feature(&self, f: usize) -> Option<Candidate> {
        let s = &self.centred;
        if s.stopped() || self.starved {
            return None;
        }
        let columns = s.data.columns();
        match self.fill {
            Some(fill) => self.search(f, &fill.reader(columns, s.target)),
            None => self.search(f, columns),
        }
    }

    /// Feature `f`'s best candidate, or its random test (`splitter="random"`).
    fn search<V: Values + ?Sized>(&self, f: usize, values: &V) -> Option<Candidate> {
        let s = &self.centred;
        match s.random {
            Some((draws, at)) => {
                let mut rng = draws.feature_stream(at, f);
                s.random_test(
                    f,
                    self.node,
                    (self.node_weight, &self.total),
                    self.ranks.as_ref(),
                    values,
                    &mut rng,
                )
            }
            None => s.best_of_feature(
                f,
                self.node,
                self.node_weight,
                values,
                self.prepared,
                NodeFacts {
                    ranks: self.ranks.as_ref(),
                    exact: self.exact.as_deref(),
                    facts: self.facts.as_ref(),
                    bytes: match self.fill {
                        Some(_) => None,
                        None => s.byte_codes.and_then(|b| b.column(f)),
                    },
                },
            ),
        }
    }

    /// The best candidate of every feature `f` with `search[f]` (`None` elsewhere), in
    /// parallel on a large node.
    pub(crate) fn features(&self, search: &[bool]) -> Vec<Option<Candidate>> {
        let n = self.centred.data.n_features();
        let one = |f: usize| {
            // A feature without a flag is not searched (`None`, as the doc says).
            if search.get(f).copied().unwrap_or(false) {
                self.feature(f)
            } else {
                None
            }
        };
        // Class-majority fills are read through a reader that is not shared across threads.
        if self.fill.is_none() && self.node.len() >= PARALLEL_ROWS {
            (0..n).into_par_iter().map(one).collect()
        } else {
            (0..n).map(one).collect()
        }
    }
}

/// How many thresholds a numeric scan had to choose from: `distinct` values (each cut between
/// two), of which `tried` cuts left enough rows on both sides.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cuts {
    pub distinct: usize,
    pub tried: usize,
}

/// Whether `rows` (from [`Searcher::rows_of`]) make at least `least` rows. Weights of C4.5
/// fragments are sums in an order that depends on the search (sorted rows, bins), so they are
/// compared with a tolerance far below any fraction of a row that matters.
pub(crate) fn holds_rows(rows: f64, least: usize) -> bool {
    rows >= least as f64 - 1e-9 * (1.0 + rows.abs())
}

/// What a child must hold: row weight (`min_samples_leaf`, class weights removed) and the
/// caller's weight (`min_weight_fraction_leaf`, C4.5's `min_objects`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Least {
    rows: f64,
    weight: f64,
}

impl Least {
    /// The one weight a child must hold when no class factors scale the search.
    pub(super) fn plain(self) -> f64 {
        self.rows.max(self.weight)
    }

    /// This with at least `weight` of the caller's weight (MINOBJS, MINSPLIT).
    pub(super) fn with_weight(self, weight: f64) -> Least {
        Least {
            weight: self.weight.max(weight),
            ..self
        }
    }
}

/// Whether a split whose scored rows are this share of its node's weight cuts rows into
/// C4.5 fragments: some of the node's weight misses the feature, beyond the rounding of
/// summing the same weights in two orders.
#[inline]
fn cuts_rows(scored: f64) -> bool {
    scored < 1.0 - 1e-9
}

/// The least weight that [`holds_rows`] `least` rows at `rows_per_weight`.
fn least_weight(least: usize, rows_per_weight: f64) -> f64 {
    (least as f64 * (1.0 - 1e-9) - 1e-9) / rows_per_weight
}

/// Whether a split scoring `quality` replaces the best so far: by more than noise (see
/// [`better`]), and the first one only if it is a number (a Poisson child predicting 0 makes
/// a split −∞, never to be chosen).
#[inline]
fn improves(quality: f64, best: Option<f64>, scale: f64) -> bool {
    match best {
        None => quality > f64::NEG_INFINITY,
        // `quality > b` first: it rejects most cuts before `better`'s tolerance is paid.
        Some(b) => quality > b && better(quality, b, scale),
    }
}

/// The better of the best split with the missing rows on the left and the best with them on
/// the right (or not placed), each `(quality, split)`: the left one only if better by more
/// than noise. scikit-learn searches with the missing rows on the right first (every known
/// value left against the missing ones last), then on the left, keeping the first of equals
/// (`sklearn/tree/_splitter.pyx`, `node_split_best`), so among equal splits this is its.
fn prefer_missing_right<T>(
    left: Option<(f64, T)>,
    right: Option<(f64, T)>,
    scale: f64,
) -> Option<(f64, T)> {
    match (left, right) {
        (Some(l), Some(r)) => Some(if better(l.0, r.0, scale) { l } else { r }),
        (l, r) => r.or(l),
    }
}

/// `a + b`, element by element.
fn sum(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

/// `a += b`, element by element.
fn add_into(a: &mut [f64], b: &[f64]) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
}

/// `dst = a + b`, element by element.
fn copy_sum(dst: &mut [f64], a: &[f64], b: &[f64]) {
    for ((d, x), y) in dst.iter_mut().zip(a).zip(b) {
        *d = x + y;
    }
}

/// `x` rounded to 12 significant digits.
fn round_significant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(11 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// Index of the winning candidate. Gain ratio follows C4.5: the best ratio among candidates
/// whose gain is at least the average gain (Quinlan 1993). Other criteria maximise
/// ρ × decrease. Ties go to the lowest feature index.
pub(crate) fn choose(
    criterion: Criterion,
    candidates: &[Option<Candidate>],
    scale: f64,
) -> Option<usize> {
    let valid: Vec<(usize, &Candidate)> = candidates
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.as_ref().map(|c| (i, c)))
        .collect();
    if valid.is_empty() {
        return None;
    }
    let mut best: Option<(usize, &Candidate)> = None;
    if criterion == Criterion::GainRatio {
        let average = valid.iter().map(|(_, c)| c.score.gain).sum::<f64>() / valid.len() as f64;
        for &(i, c) in &valid {
            let eligible = !better(average, c.score.gain, scale);
            if eligible && best.is_none_or(|(_, b)| better(c.score.score, b.score.score, 0.0)) {
                best = Some((i, c));
            }
        }
    } else {
        for &(i, c) in &valid {
            if best.is_none_or(|(_, b)| better(c.score.gain, b.score.gain, scale)) {
                best = Some((i, c));
            }
        }
    }
    best.map(|(i, _)| i)
}
