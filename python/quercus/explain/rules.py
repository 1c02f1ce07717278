"""A fitted tree as a list of IF-THEN rules: conditions as data, rule post-pruning, and the
rule list rendered as text, as a Polars expression and as SQL.

Each root-to-leaf path is a conjunction of tests and the tree the disjunction of its paths.
Written out as rules they can be read, pruned one precondition at a time (which a tree cannot:
removing a test from a tree removes it from every path below it; Mitchell 1997, section
3.7.1.2) and evaluated where quercus is not installed, as a query in Polars or a database.

Semantics, shared by `RuleSet.predict`, `RuleSet.to_polars` and `RuleSet.to_sql`: the rules
are tried in order and the first one whose conditions all hold gives the prediction; a row no
rule covers gets the default. A missing value (null, or NaN in a numeric column) satisfies no
condition on its feature, and neither does a category not seen at fit, so such a row falls
through to a later rule or to the default, where the tree would spread it over every branch
(C4.5's fractions). The same holds for a category a CART subset node never saw while growing:
it belongs to neither side of that node.

A tree grown with another `missing=` strategy sends a missing value to one child of each
split (`missing_child`): the precondition into that child also lets a missing value through
(`missing=True`, worded "(or missing)"; the extra child of `missing="separate"` is "feature
is missing"), so the rules predict as the tree does. A split with surrogates
(`missing="surrogate"`) is a `Routed` precondition: its own test, or, for a row it cannot
send (a missing value, a category it never saw), the first surrogate that can send the row,
else the majority child, exactly as the tree routes it. Elsewhere a category never seen at
fit counts as missing in `predict` and `apply` (as in the tree) but matches nothing in
`to_polars` / `to_sql`, which only see null (and NaN) as missing.

Trees can be 100,000 levels deep, so every walk uses an explicit stack, never recursion.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .._choices import SqlDialectName
from ..inputs.encoding import dense_column, transform
from ..inputs.schema import Schema
from ..inputs.targets import class_codes
from ..inputs.values import n_rows_of
from ..inputs.weights import sample_weights
from .conditions import Interval, Linear, Membership
from .paths import STAYS, Precondition, Routed, node_conditions, node_predictions, unsent
from .wording import (
    MAX_CATEGORIES,
    all_of,
    format_prediction,
    format_weight,
    sql_dialect,
)

if TYPE_CHECKING:
    from polars.expr.whenthen import ChainedThen, Then

    from .._core import Column


@dataclass(frozen=True)
class Rule:
    """One root-to-leaf path: IF every condition holds THEN ``prediction``.

    Parameters
    ----------
    conditions : tuple
        The preconditions (:class:`Interval`, :class:`Membership`, :class:`Linear`,
        :class:`Routed`), at most one per feature, in path order.
    prediction : object
        The leaf's class label, or its mean target for a regression rule.
    support : float
        The training weight of the leaf.
    confidence : float or None
        The share of that weight in the predicted class (None for a regression rule).
        Support and confidence describe the leaf the rule came from: pruning has no training
        data to recount them.
    leaf : int
        That leaf's node id, as ``model.apply`` reports it.
    accuracy : float, optional
        The validation accuracy :meth:`RuleSet.prune` measured (None before pruning and for
        a rule covering no validation row).

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
    >>> rule = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()[0]
    >>> rule.prediction, rule.support, rule.leaf
    ('No', 3.0, 4)
    """

    conditions: tuple[Precondition, ...]  # at most one per feature, in path order
    prediction: Any
    support: float
    confidence: float | None
    leaf: int
    accuracy: float | None = None

    def to_text(
        self,
        target: str,
        decimals: int = 4,
        max_categories: int | None = MAX_CATEGORIES,
        show_missing: bool = True,
    ) -> str:
        """The rule as one line: ``IF a = x AND b > t THEN target = label  [support 7, ...]``.

        Parameters
        ----------
        target : str
            The target's name.
        decimals : int, default=4
            Digits after the point.
        max_categories : int, optional
            Category lists longer than this are shortened (see :meth:`Membership.to_text`;
            None: all).
        show_missing : bool, default=True
            Without it, no test says ``(or missing)``.

        Returns
        -------
        str
            The line, with support, confidence and (once pruned) accuracy.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> rule = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()[0]
        >>> rule.to_text("PlayTennis")
        'IF Outlook = Sunny AND Humidity = High THEN PlayTennis = No  [support 3, confidence 1.00]'
        """
        shown = self.conditions if show_missing else tuple(map(_unmarked, self.conditions))
        tests = " AND ".join(c.to_text(decimals, max_categories) for c in shown)
        tests = tests or "TRUE"
        regression = self.confidence is None
        outcome = format_prediction(self.prediction, regression, decimals)
        figures = [f"support {format_weight(self.support)}"]
        if self.confidence is not None:
            figures.append(f"confidence {self.confidence:.2f}")
        if self.accuracy is not None:
            figures.append(f"accuracy {self.accuracy:.2f}")
        return f"IF {tests} THEN {target} = {outcome}  [{', '.join(figures)}]"


@dataclass(frozen=True)
class RuleSet:
    """An ordered rule list with a default, from :meth:`DecisionTreeClassifier.rules`.

    A row takes the prediction of the first rule that covers it, or ``default`` (the tree
    root's prediction: the training majority class or mean) when none does. Read from a
    tree, the rules are exhaustive and mutually exclusive, so the order does not matter and
    :meth:`predict` equals the tree's on rows without missing values (or categories unseen
    where they are tested); after :meth:`prune` the rules overlap and leave gaps, and the
    order and the default decide. A missing value satisfies no condition on its feature
    unless the tree sends missing values to that child (``(or missing)``).

    Parameters
    ----------
    rules : tuple of Rule
        The rules, in order.
    default : object
        The prediction when no rule fires.
    schema : object
        The fit-time features, to encode X as the tree did.
    classes : tuple, optional
        The class labels; None for a regression tree.
    met_missing : bool, default=False
        Whether the tree met missing values in training (then the text marks where they go).

    Attributes
    ----------
    target : str
        The target's name.
    regression : bool
        Whether the rules predict a number.

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
    >>> rules = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
    >>> print(rules)
    IF Outlook = Sunny AND Humidity = High THEN PlayTennis = No  [support 3, confidence 1.00]
    IF Outlook = Sunny AND Humidity = Normal THEN PlayTennis = Yes  [support 2, confidence 1.00]
    IF Outlook = Overcast THEN PlayTennis = Yes  [support 4, confidence 1.00]
    IF Outlook = Rain AND Wind = Weak THEN PlayTennis = Yes  [support 3, confidence 1.00]
    IF Outlook = Rain AND Wind = Strong THEN PlayTennis = No  [support 2, confidence 1.00]
    ELSE PlayTennis = Yes
    """

    rules: tuple[Rule, ...]
    default: Any
    schema: Schema  # the fit-time features, to encode X as the tree did
    classes: tuple[Any, ...] | None = None  # the class labels; None for a regression tree
    # Whether the tree met missing values in training: only then does the text say where
    # they go (`(or missing)`), as `export_text` does; the conditions always know.
    met_missing: bool = False

    @property
    def regression(self) -> bool:
        """Whether the rules predict a number (a regression tree's)."""
        return self.classes is None

    @classmethod
    def from_tree(
        cls, nodes: dict[str, NDArray[Any]], schema: Schema, labels: Sequence[Any] | None
    ) -> RuleSet:
        """One rule per leaf of a tree's node arrays, in the order ``export_text`` prints them.

        Use :meth:`DecisionTreeClassifier.rules`, which passes a fitted model's arrays.

        Parameters
        ----------
        nodes : dict of str to numpy.ndarray
            The tree's arrays (``model.tree_.nodes()``).
        schema : object
            The fit-time features.
        labels : sequence, optional
            The class labels by code; None for a regression tree.

        Returns
        -------
        RuleSet
            The rules, with the root's prediction as default.

        Examples
        --------
        >>> import quercus
        >>> from quercus import RuleSet
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> state = model._fitted
        >>> len(RuleSet.from_tree(state.tree.nodes(), state.schema, state.labels))
        5
        """
        edges = node_conditions(nodes, schema.features)
        predictions = node_predictions(nodes, labels)
        first_child = nodes["first_child"].tolist()
        n_children = nodes["n_children"].tolist()
        support = nodes["weight"].tolist()
        confidence = confidences(nodes, labels is None)
        missing_child = nodes["missing_child"].tolist() if "missing_child" in nodes else []
        missing_child += [-1] * (len(n_children) - len(missing_child))
        rules = []
        # The preconditions of the current path, one per feature in first-test order; entering
        # a node narrows its feature's, and an undo entry (-1, feature, previous) pushed under
        # the node's children restores it once the subtree is done, so each leaf costs its
        # number of features rather than its depth.
        path: dict[str, Precondition] = {}
        stack: list[tuple[int, str, Precondition | None]] = [(0, "", None)]
        while stack:
            node, feature, previous = stack.pop()
            if node < 0:
                if previous is None:
                    del path[feature]
                else:
                    path[feature] = previous
                continue
            if node > 0:
                condition = edges[node][1]
                previous = path.get(condition.feature)
                stack.append((-1, condition.feature, previous))
                path[condition.feature] = (
                    condition if previous is None else _narrow(previous, condition)
                )
            if n_children[node] == 0:
                conditions = tuple(path.values())
                rule = Rule(conditions, predictions[node], support[node], confidence[node], node)
                rules.append(rule)
                continue
            first = first_child[node]
            children = range(first + n_children[node] - 1, first - 1, -1)
            stack.extend((child, "", None) for child in children)
            if missing_child[node] == STAYS:  # the rows no child takes keep this prediction
                kept = support[node] - sum(support[c] for c in children)
                conditions = (*path.values(), unsent(nodes, node, schema.features))
                rules.append(Rule(conditions, predictions[node], kept, confidence[node], node))
        classes = None if labels is None else tuple(labels)
        met_missing = "missing_weight" in nodes and bool((nodes["missing_weight"] > 0).any())
        return cls(tuple(rules), predictions[0], schema, classes, met_missing)

    @property
    def target(self) -> str:
        """The target's name, which the rules predict."""
        return self.schema.target

    def __len__(self) -> int:
        return len(self.rules)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __getitem__(self, index: int) -> Rule:
        return self.rules[index]

    def __str__(self) -> str:
        return self.to_text()

    def apply(self, X: Any) -> NDArray[np.int64]:
        """The rule that fires for each row: the first that covers it.

        Parameters
        ----------
        X : array-like or DataFrame
            Rows with the training features (a DataFrame matched by name).

        Returns
        -------
        numpy.ndarray of shape (n_rows,)
            The rule's position, -1 where none fires and the default applies.

        Raises
        ------
        ValueError
            X does not match the training features.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> rules = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
        >>> rules.apply(X[:4]).tolist()
        [0, 0, 2, 3]
        """
        columns = transform(X, self.schema)
        fired = np.full(n_rows_of(columns), -1, dtype=np.int64)
        open_rows = np.ones(len(fired), dtype=bool)
        for position, rule in enumerate(self.rules):
            if not open_rows.any():
                break
            covered = self._covers(rule.conditions, columns) & open_rows
            fired[covered] = position
            open_rows &= ~covered
        return fired

    def predict(self, X: Any) -> NDArray[Any]:
        """The prediction of the first rule covering each row, else the default.

        A row whose value is missing for a tested feature matches no condition on it (unless
        the condition lets missing values through), so it falls through to a later rule or
        to the default, where C4.5's fractions would follow every branch.

        Parameters
        ----------
        X : array-like or DataFrame
            Rows with the training features.

        Returns
        -------
        numpy.ndarray of shape (n_rows,)
            The predictions.

        Raises
        ------
        ValueError
            X does not match the training features.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> rules = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
        >>> rules.predict(X[:4]).tolist()
        ['No', 'No', 'Yes', 'Yes']
        """
        outcomes = np.array([rule.prediction for rule in self.rules] + [self.default])
        return outcomes[self.apply(X)]  # -1, no rule, picks the default at the end

    def prune(self, X: Any, y: Any, *, sample_weight: Any = None) -> RuleSet:
        """Rule post-pruning on validation data (Mitchell 1997, section 3.7.1.2).

        Each rule repeatedly drops the precondition whose removal gives it the best
        validation accuracy, as long as that accuracy is not lower than the rule's current
        one (ties go to the earliest precondition in the rule). A precondition is one
        categorical condition or one bound of an interval. A rule's accuracy is the
        (weighted) share of the validation rows it covers that have its class; a rule that
        covers none keeps its conditions. The rules are then sorted by accuracy, highest
        first, keeping the tree's order among equals, and rules that covered no validation
        row last.

        Parameters
        ----------
        X : array-like or DataFrame
            The validation rows.
        y : array-like
            Their classes.
        sample_weight : array-like, optional
            Their weights.

        Returns
        -------
        RuleSet
            A new rule set; this one is unchanged.

        Raises
        ------
        ValueError
            A regression rule set (accuracy needs classes), a class unseen in training, or
            y of another length than X.

        Examples
        --------
        Grown on Mitchell's first ten days and pruned on the last four:

        >>> import quercus
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X[:10], y[:10])
        >>> print(model.rules().prune(X[10:], y[10:]))
        IF Outlook = Overcast THEN PlayTennis = Yes  [support 2, confidence 1.00, accuracy 1.00]
        IF Outlook = Rain THEN PlayTennis = No  [support 1, confidence 1.00, accuracy 1.00]
        IF Temperature = Mild THEN PlayTennis = No  [support 1, confidence 1.00, accuracy 0.33]
        IF Outlook = Sunny AND Temperature = Hot THEN PlayTennis = No  [support 2, confidence 1.00]
        IF Outlook = Sunny AND Temperature = Cool THEN PlayTennis = Yes
            [support 1, confidence 1.00]
        IF Outlook = Rain AND Wind = Weak THEN PlayTennis = Yes  [support 3, confidence 1.00]
        ELSE PlayTennis = Yes
        """
        if self.regression:
            raise ValueError("rule post-pruning measures accuracy, so it needs a classifier")
        columns = transform(X, self.schema)
        n_rows = n_rows_of(columns)
        assert self.classes is not None  # not a regression rule set
        classes = np.array(self.classes)
        truth = classes[class_codes(y, n_rows, classes)]  # a class unseen in training: error
        weights = sample_weights(sample_weight, n_rows)
        pruned = [self._prune_rule(rule, columns, truth, weights) for rule in self.rules]
        pruned.sort(key=lambda rule: (rule.accuracy is None, -(rule.accuracy or 0.0)))
        return replace(self, rules=tuple(pruned))

    def to_text(
        self,
        decimals: int = 4,
        max_categories: int | None = MAX_CATEGORIES,
        show_missing: bool | None = None,
    ) -> str:
        """The rules as text: one ``IF ... THEN ...`` line per rule and an ``ELSE`` default.

        Parameters
        ----------
        decimals : int, default=4
            Digits after the point.
        max_categories : int, optional
            Longer category lists show that many and a count (None: all);
            ``rules[i].conditions`` keep every category, as do ``to_sql`` and ``to_polars``.
        show_missing : bool, optional
            Mark the tests a missing value passes (``(or missing)``); None: when the tree
            met missing values in training.

        Returns
        -------
        str
            The lines, in order.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> rules = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
        >>> print(rules.to_text(decimals=2))
        IF texture = clear AND density <= 0.38 THEN ripe = no  [support 2, confidence 1.00]
        IF texture = clear AND density > 0.38 THEN ripe = yes  [support 7, confidence 1.00]
        IF texture = slightly_blurry AND surface = hard THEN ripe = no  [support 4, confidence 1.00]
        IF texture = slightly_blurry AND surface = soft THEN ripe = yes
            [support 1, confidence 1.00]
        IF texture = blurry THEN ripe = no  [support 3, confidence 1.00]
        ELSE ripe = no
        """
        show = self.met_missing if show_missing is None else bool(show_missing)
        lines = [rule.to_text(self.target, decimals, max_categories, show) for rule in self.rules]
        lines.append(f"ELSE {self.target} = {self._default_text(decimals)}")
        return "\n".join(lines)

    def to_polars(self) -> pl.Expr:
        """The rules as one Polars ``when/then/otherwise`` expression over the original columns.

        Returns
        -------
        polars.Expr
            Named after the target: ``frame.with_columns(rules.to_polars())``, eager or
            lazy.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> rules = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
        >>> X.lazy().select(rules.to_polars()).collect()["PlayTennis"].to_list()[:4]
        ['No', 'No', 'Yes', 'Yes']
        """
        chain: Then | ChainedThen | None = None
        for rule in self.rules:
            test = all_of([condition.to_polars() for condition in rule.conditions])
            outcome = pl.lit(rule.prediction)
            chain = pl.when(test).then(outcome) if chain is None else chain.when(test).then(outcome)
        assert chain is not None  # a tree has at least one leaf
        return chain.otherwise(pl.lit(self.default)).alias(self.target)

    def to_sql(self, table: str | None = None, *, dialect: SqlDialectName = "ansi") -> str:
        """The rules as an SQL ``CASE WHEN ... THEN ... ELSE default END`` expression.

        Identifiers are quoted and strings single-quoted (each quote doubled), so any name is
        safe. The columns must hold what quercus was fitted on: categories as their strings
        (booleans as 'false' / 'true'), numbers as numbers, dates and times as the database's
        date and time types, missing values as NULL (and, in Spark, NaN).

        Parameters
        ----------
        table : str, optional
            With it, a whole ``SELECT CASE ... END AS "target" FROM "table"`` (the table
            quoted as one identifier).
        dialect : {"ansi", "duckdb", "postgresql", "sqlite", "spark"}, default="ansi"
            The database the SQL runs in. "ansi" is standard SQL (identifiers in double
            quotes), which DuckDB and PostgreSQL run as it is, and so does "postgresql";
            "duckdb" reads a NaN in a numeric column as missing too (DuckDB keeps NaN and
            orders it above every number); "sqlite" is standard SQL but refuses a temporal
            feature (SQLite has no date type); "spark" is Spark SQL's (identifiers in
            backticks, backslashes in strings escaped, NaN missing, as Spark keeps pandas'
            NaN).

        Raises
        ------
        ValueError
            An unknown ``dialect``, or a temporal feature in SQLite's.

        Returns
        -------
        str
            The expression or the query.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> rules = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
        >>> print(rules.to_sql(table="days"))
        SELECT CASE
            WHEN "Outlook" = 'Sunny' AND "Humidity" = 'High' THEN 'No'
            WHEN "Outlook" = 'Sunny' AND "Humidity" = 'Normal' THEN 'Yes'
            WHEN "Outlook" = 'Overcast' THEN 'Yes'
            WHEN "Outlook" = 'Rain' AND "Wind" = 'Weak' THEN 'Yes'
            WHEN "Outlook" = 'Rain' AND "Wind" = 'Strong' THEN 'No'
            ELSE 'Yes'
        END AS "PlayTennis"
        FROM "days"
        """
        sql = sql_dialect(dialect)
        lines = ["CASE"]
        for rule in self.rules:
            tests = (condition.to_sql(dialect=dialect) for condition in rule.conditions)
            test = " AND ".join(tests) or "TRUE"
            lines.append(f"    WHEN {test} THEN {sql.value(rule.prediction)}")
        lines += [f"    ELSE {sql.value(self.default)}", "END"]
        case = "\n".join(lines)
        if table is None:
            return case
        return f"SELECT {case} AS {sql.identifier(self.target)}\nFROM {sql.identifier(table)}"

    def _default_text(self, decimals: int) -> str:
        return format_prediction(self.default, self.regression, decimals)

    def _covers(
        self, conditions: Sequence[Precondition], columns: list[Column]
    ) -> NDArray[np.bool_]:
        covered = np.ones(n_rows_of(columns), dtype=bool)
        for condition in conditions:
            covered &= self._mask(condition, columns)
        return covered

    def _mask(self, condition: Precondition, columns: list[Column]) -> NDArray[np.bool_]:
        if isinstance(condition, Linear | Routed):
            return condition._mask_rows(columns, self.schema)
        position = self.schema.names.index(condition.feature)
        return condition._mask(dense_column(columns[position]), self.schema.features[position])

    def _prune_rule(
        self,
        rule: Rule,
        columns: list[Column],
        truth: NDArray[Any],
        weights: NDArray[np.float64],
    ) -> Rule:
        """Greedy removal of preconditions, each step tried on every remaining one."""
        parts = [part for condition in rule.conditions for part in condition._parts()]
        passes = [self._mask(part, columns) for part in parts]
        # failed[row] = how many kept preconditions the row fails: dropping precondition k
        # covers the rows failing none, plus those failing only k.
        failed = np.zeros(n_rows_of(columns), dtype=np.int64)
        for mask in passes:
            failed += ~mask
        hits = np.asarray(truth == rule.prediction, dtype=bool)

        def accuracy(covered: NDArray[np.bool_]) -> float | None:
            total = weights[covered].sum()
            return None if total == 0 else float(weights[covered & hits].sum() / total)

        current = accuracy(failed == 0)
        if current is None:
            return replace(rule, accuracy=None)
        kept = list(range(len(parts)))
        while kept:
            covered, missed_one = failed == 0, failed == 1
            best: tuple[float, int] | None = None
            for k in kept:
                score = accuracy(covered | (missed_one & ~passes[k]))
                if score is not None and score >= current and (best is None or score > best[0]):
                    best = (score, k)
            if best is None:
                break
            current, dropped = best
            kept.remove(dropped)
            failed -= ~passes[dropped]
        return replace(rule, conditions=_conjoin([parts[k] for k in kept]), accuracy=current)


def confidences(nodes: dict[str, NDArray[Any]], regression: bool) -> list[float | None]:
    """Each node's share of weight in its own class (from `value`, which an empty node
    inherits from its parent, so it is never 0 / 0)."""
    if regression:
        return [None] * len(nodes["kind"])
    value: NDArray[np.float64] = nodes["value"]
    label = nodes["label"]
    return (value[np.arange(len(label)), label] / value.sum(axis=1)).tolist()


def _narrow(first: Precondition, second: Precondition) -> Precondition:
    """Both preconditions on one feature as one: the interval or category intersection."""
    if isinstance(first, Interval) and isinstance(second, Interval):
        return first._narrow(second)
    if isinstance(first, Membership) and isinstance(second, Membership):
        return first._narrow(second)
    if isinstance(first, Linear) and first == second:
        return first
    raise TypeError(f"{first.feature!r} is tested both as a number and as a category")


def _conjoin(preconditions: Sequence[Precondition]) -> tuple[Precondition, ...]:
    """The preconditions with those on one feature merged, in first-appearance order."""
    merged: dict[str, Precondition] = {}
    for condition in preconditions:
        previous = merged.get(condition.feature)
        merged[condition.feature] = condition if previous is None else _narrow(previous, condition)
    return tuple(merged.values())


def _unmarked(condition: Precondition) -> Precondition:
    """`condition` as read when where missing values go is not shown: without `(or
    missing)`, except a test that passes missing values only (`x is missing`)."""
    if not getattr(condition, "missing", False):
        return condition
    if isinstance(condition, Membership) and not condition.categories:
        return condition
    return replace(condition, missing=False)
