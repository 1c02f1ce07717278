//! Growth parameters, validated once into a type the builder can trust.

use crate::criterion::Criterion;
use crate::data::{Column, Dataset};
use crate::error::{CoreError, Result};

/// How categorical features split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CategoricalSplit {
    /// One child per category; the feature is not tested again below (text 000 Algorithm 4.1).
    Multiway,
    /// Two children by a subset of categories (CART); ordered categories by threshold.
    Binary,
}

impl CategoricalSplit {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "multiway" => Ok(CategoricalSplit::Multiway),
            "binary" => Ok(CategoricalSplit::Binary),
            other => Err(CoreError::InvalidParameter {
                name: "categorical_split",
                reason: format!("unknown value {other:?}; expected \"multiway\" or \"binary\""),
            }),
        }
    }
}

/// How a row whose tested value is missing is handled, at fit and at predict (text 001
/// "Handling Missing Values", text 004 §2.6, text 000 §4.4.2; scikit-learn, XGBoost, rpart).
///
/// Every strategy scores a candidate on the rows whose value is known unless it places the
/// missing rows itself (learned, separate) or fills their values in (class majority). Growth
/// records, per node, the child a missing value goes to at predict (`Tree::missing_child`):
/// unset for the fractional strategy, which follows every branch with the fractions r̃_v.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissingStrategy {
    /// C4.5 (text 000 §4.4.2, text 001 approach 3): candidates scored on the known rows × ρ;
    /// a missing row follows every child with its weight × r̃_v, at fit and at predict.
    #[default]
    Fractional,
    /// Text 001 approach 1: scored as C4.5 scores; a missing row follows the child that
    /// received the most known training weight, at fit and at predict.
    MajorityBranch,
    /// Text 001 approach 2 / text 004 "class mean": at fit a missing value is read, at each
    /// node, as the most common value (numeric: the weighted mean) among the node's rows of
    /// the same class (regression: of all the node's rows); at predict, where the class is
    /// unknown, as the node's most common value (mean) over all its rows.
    ClassMajority,
    /// Text 004: missing is a value of its own: an extra child of a multiway split (k + 1
    /// children); for a binary split, the side the criterion prefers (as `Learned`).
    Separate,
    /// scikit-learn / XGBoost: each binary split tries the missing rows on either side
    /// during its threshold (subset) scan and keeps the better; a multiway split, the best
    /// child. A node that saw no missing row sends them to its heaviest child.
    Learned,
    /// rpart: scored as C4.5 scores; each split stores up to `max_surrogates` surrogate
    /// splits on other features, ranked by agreement with it; a missing row uses the first
    /// surrogate whose feature it has, else the majority branch.
    Surrogate,
}

/// Every missing-value strategy with its name, in the order error messages list them.
const MISSING_NAMES: [(MissingStrategy, &str); 6] = [
    (MissingStrategy::Fractional, "fractional"),
    (MissingStrategy::MajorityBranch, "majority_branch"),
    (MissingStrategy::ClassMajority, "class_majority"),
    (MissingStrategy::Separate, "separate"),
    (MissingStrategy::Learned, "learned"),
    (MissingStrategy::Surrogate, "surrogate"),
];

impl MissingStrategy {
    pub fn parse(name: &str) -> Result<Self> {
        MISSING_NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(m, _)| *m)
            .ok_or_else(|| {
                let known: Vec<String> = MISSING_NAMES
                    .iter()
                    .map(|(_, n)| format!("{n:?}"))
                    .collect();
                invalid(
                    "missing",
                    format!(
                        "unknown value {name:?}; expected one of {}",
                        known.join(", ")
                    ),
                )
            })
    }

    /// The table names every strategy, so its default is never read (nor `code`'s).
    pub fn name(&self) -> &'static str {
        MISSING_NAMES
            .iter()
            .find(|(m, _)| m == self)
            .map_or("fractional", |(_, n)| n)
    }

    /// The strategy's code in the model format (its position in the name table).
    pub fn code(&self) -> u8 {
        MISSING_NAMES
            .iter()
            .position(|(m, _)| m == self)
            .unwrap_or(0) as u8
    }

    pub fn from_code(code: u8) -> Option<Self> {
        MISSING_NAMES.get(code as usize).map(|(m, _)| *m)
    }
}

/// Which source settles the details a description of C4.5 leaves open: where a numeric
/// threshold lies, when two scores tie, how C4.5's average-gain rule and MINOBJS read. The
/// texts (and CART, scikit-learn) state the rules exactly; C4.5 release 8 and Weka's J48,
/// which the experiments people cite ran, code them with the tolerances listed here
/// (J48 3.6: `C45Split`, `C45ModelSelection`, `Distribution`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Conventions {
    /// Thresholds at midpoints of adjacent distinct values (text 000 §4.4.1); scores equal up
    /// to relative noise (1e-9) tie, the lowest column wins; every candidate counts in the
    /// average gain; a class tie goes to the parent's class, then the first class; the
    /// numeric gain correction counts every cut, log2(N − 1) (Quinlan 1996's formula).
    #[default]
    Texts,
    /// C4.5 release 8 as J48 codes it: a threshold is the largest training value (of the
    /// whole training set) not above the midpoint; values less than 1e-5 apart are one
    /// value; a cut must beat the best so far by 1e-6 of gain; the gain correction counts the
    /// cuts tried (both sides at least MINSPLIT), log2(tries)/|D|, and needs what remains to
    /// exceed 1e-6; the average-gain rule admits gains down to average − 1e-3, leaves out of
    /// the average the categorical features with at least 0.3 × (training rows) categories
    /// (unless every feature is such), and takes the first ratio that beats the best by
    /// 1e-6 (a ratio ≤ 1e-6 is no split); a node within 1e-6 of pure is a leaf; a leaf
    /// predicts the first class that beats the previous by 1e-6.
    J48,
}

impl Conventions {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "texts" => Ok(Conventions::Texts),
            "j48" => Ok(Conventions::J48),
            other => Err(invalid(
                "conventions",
                format!("unknown value {other:?}; expected \"texts\" or \"j48\""),
            )),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Conventions::Texts => "texts",
            Conventions::J48 => "j48",
        }
    }
}

/// How split thresholds are searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Splitter {
    /// Every midpoint of adjacent distinct values (the texts' rule), over columns sorted once
    /// per fit.
    Exact,
    /// Columns binned once into at most `max_bins` quantile bins; thresholds at bin edges;
    /// per-node histograms, the larger child's by subtraction (LightGBM's scheme).
    Hist,
    /// Exact below [`AUTO_HIST_ROWS`] training rows, histogram from there on; scikit-learn's
    /// name for it, `"best"`, parses to it too.
    #[default]
    Auto,
    /// Extremely randomised trees (Geurts et al. 2006; scikit-learn's `RandomSplitter`): per
    /// searched feature one random test (a threshold drawn uniformly between the node's least
    /// and greatest value, a random subset of the present categories), the best of those
    /// kept.
    Random,
}

/// Training rows from which `Splitter::Auto` bins the columns. Below it the exact search is
/// cheap and returns the texts' thresholds; above it the histogram search is several times
/// faster at equal accuracy (bench/compare.py).
pub const AUTO_HIST_ROWS: usize = 200_000;

const SPLITTER_NAMES: [(Splitter, &str); 5] = [
    (Splitter::Exact, "exact"),
    (Splitter::Hist, "hist"),
    (Splitter::Auto, "auto"),
    (Splitter::Auto, "best"),
    (Splitter::Random, "random"),
];

impl Splitter {
    pub fn parse(name: &str) -> Result<Self> {
        SPLITTER_NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(s, _)| *s)
            .ok_or_else(|| {
                invalid(
                    "splitter",
                    format!(
                        "unknown value {name:?}; expected \"best\", \"random\", \"exact\", \"hist\" or \"auto\""
                    ),
                )
            })
    }

    /// The table names every splitter, so its default is never read.
    pub fn name(&self) -> &'static str {
        SPLITTER_NAMES
            .iter()
            .find(|(s, _)| s == self)
            .map_or("exact", |(_, n)| n)
    }

    /// The splitter a fit on `n_rows` rows uses: `Auto` resolved.
    pub fn resolve(self, n_rows: usize) -> Splitter {
        match self {
            Splitter::Auto if n_rows >= AUTO_HIST_ROWS => Splitter::Hist,
            Splitter::Auto => Splitter::Exact,
            other => other,
        }
    }
}

/// Most bins a histogram feature may have: bin codes are `u8`, and one code is kept for
/// missing values.
pub const MAX_BINS: usize = 255;

/// Most threads a fit may start: beyond the cores, threads only cost memory.
pub const MAX_JOBS: usize = 1024;

/// Most surrogate splits a node may store.
pub const MAX_SURROGATES: usize = 64;

/// Parameters of tree growth. Build with [`TreeParams::new`] (or a struct literal over
/// [`TreeParams::default`]); [`crate::grow`] checks them again with [`TreeParams::validate`].
#[derive(Debug, Clone, PartialEq)]
pub struct TreeParams {
    pub criterion: Criterion,
    pub categorical_split: CategoricalSplit,
    /// The root has depth 0; `None` grows until Algorithm 4.1 stops.
    pub max_depth: Option<usize>,
    /// A node with fewer rows is a leaf. Rows are counted by weight, in units of the lightest
    /// training row's (a C4.5 fragment as the fraction it carries, as C4.5 counts cases); at
    /// the defaults of the texts' conventions with C4.5's fractions only the splits that cut
    /// rows are held to it ([`TreeParams::sizes_bound_cuts_only`]).
    pub min_samples_split: usize,
    /// Every non-empty child of a split must receive at least this many rows (counted as for
    /// `min_samples_split`, C4.5's spread missing rows included by their share).
    pub min_samples_leaf: usize,
    /// Multi-class subset splits enumerate every partition up to this many present categories,
    /// and order categories by a heuristic beyond it.
    pub max_exhaustive_categories: usize,
    /// Grow best-first (largest weighted impurity decrease first) up to this many leaves.
    pub max_leaf_nodes: Option<usize>,
    /// Every non-empty child must hold at least this share of the total training weight.
    pub min_weight_fraction_leaf: f64,
    /// A split is made only if its gain (ρ × impurity decrease) is at least this.
    pub min_gain: f64,
    /// scikit-learn's rule: a split is made only if its impurity decrease weighted by the
    /// node's share of the training weight, N_t/N · (I − N_tL/N_t · I_L − N_tR/N_t · I_R),
    /// is at least this (up to f64's epsilon, as scikit-learn compares it).
    pub min_impurity_decrease: f64,
    /// Likelihood-ratio (G²) stop, text 002 §3.5: a split is made only if the independence of
    /// branch and class is rejected at this p-value. Classification only.
    pub max_p_value: Option<f64>,
    /// C4.5's MINOBJS: at least two branches must receive this much known training weight,
    /// and (release 8) each side of a numeric test MINSPLIT = 0.1 × known weight / classes,
    /// clamped to [MINOBJS, 25], from a node of at least 2 × MINSPLIT known rows.
    pub min_objects: f64,
    /// C4.5 release 8: a numeric test's gain is reduced by log2(cuts)/|D| (Quinlan 1996,
    /// "Improved use of continuous attributes in C4.5"); which cuts count is a matter of
    /// [`Conventions`].
    pub numeric_gain_correction: bool,
    /// Where thresholds lie, how ties break and how C4.5's rules read ([`Conventions`]).
    pub conventions: Conventions,
    /// Misclassification costs, row-major `n_classes × n_classes` (row = true class, column =
    /// predicted): leaves predict the class of least expected cost and the Gini index becomes
    /// Σ_{k≠k'} L_kk' p_k p_k' (text 004 eq. 8), or with `altered_priors` the criterion is
    /// computed on altered class weights.
    pub cost_matrix: Option<Vec<f64>>,
    /// With a cost matrix: split on altered priors instead of the cost-weighted Gini index,
    /// as rpart does (Breiman et al. 1984 §4.4; rpart's `gini.c`): while searching, class k's
    /// weight is multiplied by Σ_j L_kj, its total cost of being misclassified, under any
    /// criterion; leaves still predict the class of least expected cost.
    pub altered_priors: bool,
    /// Per-class factors the caller already multiplied into the row weights (scikit-learn's
    /// `class_weight`, rpart's priors as π_k / f_k). They re-weight the criterion and the
    /// leaves, not the rows: the size rules (`min_samples_split`, `min_samples_leaf`) and the
    /// surrogates' agreement count the rows without them, as rpart and scikit-learn count
    /// rows. `None`: no such factors.
    pub class_weights: Option<Vec<f64>>,
    /// Also search multivariate tests `Σ w_i · x_i <= t` over the numeric features; the best
    /// axis-parallel split stays a candidate, so a node's split never scores worse.
    pub oblique: bool,
    /// How missing values are handled at fit and at predict.
    pub missing: MissingStrategy,
    /// Surrogate splits kept per node with [`MissingStrategy::Surrogate`] (rpart's
    /// `maxsurrogate`, default 5); 0 leaves only the majority branch.
    pub max_surrogates: usize,
    /// Exact or histogram threshold search (see [`Splitter`]).
    pub splitter: Splitter,
    /// Bins per numeric feature for the histogram search, 2 to [`MAX_BINS`].
    pub max_bins: usize,
    /// Threads that search features (and predict row blocks) in parallel; `None` uses every
    /// core. Trees do not depend on it.
    pub n_jobs: Option<usize>,
    /// Features searched per node, drawn at random without replacement (scikit-learn's
    /// `max_features`); `None` (or at least the number of features) searches every feature
    /// and draws nothing. When none of the drawn features gives a valid split, further ones
    /// are drawn and searched one at a time until one does or none is left.
    pub max_features: Option<usize>,
    /// Seed of every random choice (`max_features`, [`Splitter::Random`]). A fit that asks
    /// for no randomness never reads it.
    pub random_state: u64,
    /// scikit-learn's `monotonic_cst`: per feature 1 (the prediction may only rise with the
    /// feature), -1 (only fall) or 0 (free). Regression, and binary classification on the
    /// probability of the second class; numeric and ordinal features only. A constrained
    /// classification tree's node values are class probabilities, as scikit-learn's, not
    /// class weights (so C4.5's error-based pruning, which counts errors in them, does not
    /// apply to it).
    pub monotonic_cst: Option<Vec<i8>>,
    /// LightGBM's regularisers of subset splits of nominal categories ([`CategoryLimits`]);
    /// all off by default, which is the texts' CART.
    pub category_limits: CategoryLimits,
    /// With [`MissingStrategy::Surrogate`]: the case weights, one per row of the data (rows
    /// of weight 0 included), that rpart's class shares and altered priors are computed from
    /// when they are not the fit's own. rpart's cross-validation computes them once, on every
    /// row, and keeps them for each fold's tree, whose ties between splits follow their bits
    /// (`xval.c` does not call `giniinit` again). Given, the fit is such a fold, whose cuts
    /// of ordered categories place the levels a node lacks as rpart's C code does (see
    /// `split::rpart`). `None`: the fit's weights.
    pub prior_weights: Option<Vec<f64>>,
    /// J48 -R (`PruneableClassifierTree`): the rows of weight 0 are the pruning set J48
    /// holds out of its data. They grow nothing, as any row of weight 0, but J48's model
    /// selection keeps the whole data (`C45ModelSelection`'s `allData`): its thresholds move
    /// down to their values too, and its many-values rule counts them. Only under
    /// [`Conventions::J48`].
    pub j48_pruning_set: bool,
    /// rpart's class priors as given, in class order, when `class_weights` are their
    /// π_k / f_k: rpart's arithmetic (ties between splits, `split::rpart`) rebuilds its
    /// altered priors from them to the bit, which the factors cannot give back. `None`: the
    /// class shares.
    pub priors: Option<Vec<f64>>,
}

/// LightGBM's regularisers of a nominal feature's subset split (its `max_cat_threshold`,
/// `cat_smooth`, `cat_l2` and `min_data_per_group`; `feature_histogram.hpp`,
/// `FindBestThresholdCategoricalInner`), carried over to impurity criteria. They apply where
/// categories are put in an order and the split is a prefix of it (two classes, regression,
/// and more classes beyond `max_exhaustive_categories`). Many categories, each with few rows,
/// let the exact subset search fit noise; these trade that for fewer, better supported groups.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CategoryLimits {
    /// At most this many categories on the side that is searched, which is tried from both
    /// ends of the order, as LightGBM does (`None`: one end, any number).
    pub max_threshold: Option<usize>,
    /// Each category's share (or mean) is smoothed toward the node's by this many rows before
    /// ordering, `(s + m·p) / (n + m)`: LightGBM's gradient ratio `G / (H + cat_smooth)` is
    /// this order for a first boosting round. Categories of fewer rows than this always stay
    /// with the other side, as in LightGBM.
    pub smooth: f64,
    /// Each side of a candidate is scored as if it also held this many rows distributed as
    /// the node's (LightGBM's extra L2 term on categorical leaves shrinks them toward the
    /// parent in the same way); it only picks the feature's subset, whose figures are then
    /// its own.
    pub l2: f64,
    /// Candidates are scored only once the categories added since the last one scored hold
    /// at least this many rows, and while the other side holds that many.
    pub min_group: usize,
}

impl CategoryLimits {
    /// No regulariser: CART's exact subset search.
    pub const NONE: CategoryLimits = CategoryLimits {
        max_threshold: None,
        smooth: 0.0,
        l2: 0.0,
        min_group: 1,
    };

    /// Whether any regulariser is on.
    pub fn any(&self) -> bool {
        *self != Self::NONE
    }

    fn validate(&self) -> Result<()> {
        if self.max_threshold == Some(0) {
            return Err(invalid(
                "max_cat_threshold",
                "must be at least 1 (or None for no limit)".into(),
            ));
        }
        for (name, x) in [("cat_smooth", self.smooth), ("cat_l2", self.l2)] {
            if !(x.is_finite() && x >= 0.0) {
                return Err(invalid(
                    name,
                    format!("must be a finite number at least 0, got {x}"),
                ));
            }
        }
        if self.min_group < 1 {
            return Err(invalid(
                "min_data_per_group",
                format!("must be at least 1, got {}", self.min_group),
            ));
        }
        Ok(())
    }
}

impl Default for CategoryLimits {
    fn default() -> Self {
        Self::NONE
    }
}

fn invalid(name: &'static str, reason: String) -> CoreError {
    CoreError::InvalidParameter { name, reason }
}

impl TreeParams {
    /// Whether the size rules bound only the splits that cut rows into C4.5 fragments: the
    /// texts' conventions with C4.5's fractions at the default sizes (`min_samples_split` 2,
    /// `min_samples_leaf` 1). Algorithm 4.1 with the weights of text 000 §4.4.2 has no size
    /// rule (Fig 4.8 splits a node of 1.47 rows' weight into children of 0.47 and 1), but
    /// cutting rows without bound grows without end on numeric data with missing values (1.1
    /// million leaves from 900 rows at 30% missing), so a split that cuts rows still needs a
    /// node of two rows' weight and children of one row's weight each ([`Searcher`]'s least
    /// child): a row is cut only into branches that hold a row's worth. Set either size
    /// higher and every split counts rows by weight.
    ///
    /// [`Searcher`]: crate::split::Searcher
    pub fn sizes_bound_cuts_only(&self) -> bool {
        self.conventions == Conventions::Texts
            && self.missing == MissingStrategy::Fractional
            && self.min_samples_split <= 2
            && self.min_samples_leaf <= 1
    }

    /// The common parameters; the others keep their defaults.
    pub fn new(
        criterion: Criterion,
        categorical_split: CategoricalSplit,
        max_depth: Option<usize>,
        min_samples_split: usize,
        min_samples_leaf: usize,
        max_exhaustive_categories: usize,
    ) -> Result<Self> {
        let params = TreeParams {
            criterion,
            categorical_split,
            max_depth,
            min_samples_split,
            min_samples_leaf,
            max_exhaustive_categories,
            ..TreeParams::default()
        };
        params.validate()?;
        Ok(params)
    }

    /// Checks every parameter on its own (see [`Self::validate_for`] for the target-bound ones).
    pub fn validate(&self) -> Result<()> {
        self.category_limits.validate()?;
        if self.max_depth == Some(0) {
            return Err(invalid(
                "max_depth",
                "must be at least 1 (or None for no limit)".into(),
            ));
        }
        if self.min_samples_split < 2 {
            return Err(invalid(
                "min_samples_split",
                format!("must be at least 2, got {}", self.min_samples_split),
            ));
        }
        if self.min_samples_leaf < 1 {
            return Err(invalid(
                "min_samples_leaf",
                format!("must be at least 1, got {}", self.min_samples_leaf),
            ));
        }
        if !(2..=20).contains(&self.max_exhaustive_categories) {
            return Err(invalid(
                "max_exhaustive_categories",
                format!(
                    "must be between 2 and 20 (2^(k-1) partitions are enumerated), got {}",
                    self.max_exhaustive_categories
                ),
            ));
        }
        if let Some(n) = self.max_leaf_nodes.filter(|&n| n < 2) {
            return Err(invalid(
                "max_leaf_nodes",
                format!("must be at least 2, got {n}"),
            ));
        }
        if !(0.0..=0.5).contains(&self.min_weight_fraction_leaf) {
            return Err(invalid(
                "min_weight_fraction_leaf",
                format!("must be in [0, 0.5], got {}", self.min_weight_fraction_leaf),
            ));
        }
        if !(self.min_gain.is_finite() && self.min_gain >= 0.0) {
            return Err(invalid(
                "min_gain",
                format!("must be finite and >= 0, got {}", self.min_gain),
            ));
        }
        if let Some(p) = self.max_p_value.filter(|p| !(*p > 0.0 && *p <= 1.0)) {
            return Err(invalid(
                "max_p_value",
                format!("must be in (0, 1], got {p}"),
            ));
        }
        if !(self.min_objects.is_finite() && self.min_objects >= 0.0) {
            return Err(invalid(
                "min_objects",
                format!("must be finite and >= 0, got {}", self.min_objects),
            ));
        }
        if self.max_surrogates > MAX_SURROGATES {
            return Err(invalid(
                "max_surrogates",
                format!(
                    "must be between 0 and {MAX_SURROGATES}, got {}",
                    self.max_surrogates
                ),
            ));
        }
        if !(2..=MAX_BINS).contains(&self.max_bins) {
            return Err(invalid(
                "max_bins",
                format!("must be between 2 and {MAX_BINS}, got {}", self.max_bins),
            ));
        }
        if !(self.min_impurity_decrease.is_finite() && self.min_impurity_decrease >= 0.0) {
            return Err(invalid(
                "min_impurity_decrease",
                format!(
                    "must be finite and >= 0, got {}",
                    self.min_impurity_decrease
                ),
            ));
        }
        if self.max_features == Some(0) {
            return Err(invalid(
                "max_features",
                "must be at least 1 (or None for every feature)".into(),
            ));
        }
        if let Some(c) = self
            .monotonic_cst
            .iter()
            .flatten()
            .find(|c| !(-1..=1).contains(*c))
        {
            return Err(invalid(
                "monotonic_cst",
                format!("must hold -1, 0 or 1 per feature, got {c}"),
            ));
        }
        if let Some(n) = self.n_jobs.filter(|n| !(1..=MAX_JOBS).contains(n)) {
            return Err(invalid(
                "n_jobs",
                format!("must be between 1 and {MAX_JOBS} (or None for every core), got {n}"),
            ));
        }
        Ok(())
    }

    /// Whether fitting `n_features` features asks for random choices: features drawn per
    /// node, or random tests.
    pub(crate) fn draws(&self, n_features: usize) -> bool {
        self.splitter == Splitter::Random || self.max_features.is_some_and(|k| k < n_features)
    }

    /// Checks the parameters that depend on the data: `n_classes` is 0 for regression.
    pub(crate) fn validate_for(&self, data: &Dataset<'_>, n_classes: usize) -> Result<()> {
        if n_classes == 0 && self.max_p_value.is_some() {
            return Err(invalid(
                "max_p_value",
                "the G² test needs class counts; it does not apply to regression".into(),
            ));
        }
        if n_classes == 0 && self.conventions == Conventions::J48 {
            return Err(invalid(
                "conventions",
                "\"j48\" is J48's, a classifier's: its purity, MINSPLIT and class ties need \
                 class weights; regression takes \"texts\""
                    .into(),
            ));
        }
        if let Some(costs) = &self.cost_matrix {
            if n_classes == 0 {
                return Err(invalid(
                    "cost_matrix",
                    "regression has no classes to cost".into(),
                ));
            }
            if costs.len() != n_classes * n_classes {
                return Err(invalid(
                    "cost_matrix",
                    format!(
                        "must be {n_classes} x {n_classes} (one row and column per class), got {} entries",
                        costs.len()
                    ),
                ));
            }
            if let Some(c) = costs.iter().find(|c| !(c.is_finite() && **c >= 0.0)) {
                return Err(invalid(
                    "cost_matrix",
                    format!("costs must be finite and >= 0, got {c}"),
                ));
            }
            if self.altered_priors {
                let zero_row = costs
                    .chunks(n_classes.max(1))
                    .position(|row| row.iter().sum::<f64>() <= 0.0);
                if let Some(k) = zero_row {
                    return Err(invalid(
                        "cost_matrix",
                        format!(
                            "row {k} is all zeros: altered priors weight class {k} by its costs, \
                             so each class needs a positive cost of being misclassified"
                        ),
                    ));
                }
            }
        }
        if let Some(factors) = &self.class_weights {
            if n_classes == 0 {
                return Err(invalid(
                    "class_weights",
                    "regression has no classes to weight".into(),
                ));
            }
            if factors.len() != n_classes {
                return Err(invalid(
                    "class_weights",
                    format!(
                        "must hold one factor per class ({n_classes}), got {}",
                        factors.len()
                    ),
                ));
            }
            if let Some(f) = factors.iter().find(|f| !(f.is_finite() && **f > 0.0)) {
                return Err(invalid(
                    "class_weights",
                    format!("factors must be finite and > 0, got {f}"),
                ));
            }
        }
        if self.oblique && self.draws(data.n_features()) {
            return Err(invalid(
                "splits",
                "oblique tests combine every numeric feature, so they cannot be searched \
                 feature by feature: use axis-parallel splits with max_features or the \
                 random splitter"
                    .into(),
            ));
        }
        if let Some(cst) = &self.monotonic_cst {
            self.validate_monotonic(cst, data, n_classes)?;
        }
        Ok(())
    }

    /// Monotonic constraints hold only where every split on a constrained feature orders its
    /// two children along the feature and a row's path follows its own values.
    fn validate_monotonic(&self, cst: &[i8], data: &Dataset<'_>, n_classes: usize) -> Result<()> {
        let refuse = |reason: String| Err(invalid("monotonic_cst", reason));
        if cst.len() != data.n_features() {
            return refuse(format!(
                "has {} entries but the data has {} features",
                cst.len(),
                data.n_features()
            ));
        }
        if !cst.iter().any(|&c| c != 0) {
            return Ok(());
        }
        if n_classes > 2 {
            return refuse(format!(
                "constraints are defined for regression and binary classification; the \
                 target has {n_classes} classes"
            ));
        }
        if self.oblique {
            return refuse(
                "oblique tests mix features, so no split orders its children along one; \
                 use axis-parallel splits"
                    .into(),
            );
        }
        if self.missing == MissingStrategy::Surrogate {
            return refuse(
                "surrogate splits may route a row against a constrained feature's order; \
                 choose another missing-value strategy"
                    .into(),
            );
        }
        for (j, (&c, column)) in cst.iter().zip(data.columns()).enumerate() {
            let Column::Categorical(col) = column else {
                continue;
            };
            if c == 0 {
                continue;
            }
            if !col.ordered {
                return refuse(format!(
                    "feature {j} is a nominal categorical feature: its categories have no \
                     order to be monotonic in (declare it ordinal, or constrain it with 0)"
                ));
            }
            if self.categorical_split == CategoricalSplit::Multiway {
                return refuse(format!(
                    "feature {j} is ordinal, but categorical_split=\"multiway\" splits it by \
                     category; use \"binary\" to split it by threshold"
                ));
            }
        }
        Ok(())
    }
}

impl Default for TreeParams {
    /// CART defaults: Gini, binary splits, grown fully, no pre-pruning, unit costs.
    fn default() -> Self {
        TreeParams {
            criterion: Criterion::Gini,
            categorical_split: CategoricalSplit::Binary,
            max_depth: None,
            min_samples_split: 2,
            min_samples_leaf: 1,
            max_exhaustive_categories: 12,
            max_leaf_nodes: None,
            min_weight_fraction_leaf: 0.0,
            min_gain: 0.0,
            min_impurity_decrease: 0.0,
            max_p_value: None,
            min_objects: 0.0,
            numeric_gain_correction: false,
            conventions: Conventions::Texts,
            cost_matrix: None,
            altered_priors: false,
            class_weights: None,
            oblique: false,
            missing: MissingStrategy::Fractional,
            max_surrogates: 5,
            splitter: Splitter::Auto,
            max_bins: MAX_BINS,
            n_jobs: None,
            max_features: None,
            random_state: 0,
            monotonic_cst: None,
            category_limits: CategoryLimits::NONE,
            prior_weights: None,
            j48_pruning_set: false,
            priors: None,
        }
    }
}
