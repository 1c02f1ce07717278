"""The estimators' export methods: the fitted tree as text, rules, pictures, expressions and
served models. The work is done in `quercus.explain` and `quercus.export`; here each
method checks its options and hands over the fitted state."""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .._choices import SqlDialectName
from ..explain import dot, spread, svg
from ..explain import text as render
from ..explain.drawing import PICTURE_CATEGORIES
from ..explain.rules import RuleSet
from ..explain.wording import MAX_CATEGORIES, sql_dialect
from ..export import native, onnx, treelite
from ..inputs.training import labelled_data
from .attributes import FittedState
from .constraints import Constraints, Integer, Real, check
from .scores import score_frame

_REPR_SVG_WIDTH = 960  # px: a notebook cell's width
# Export options: how many levels to show, how many categories to list (None: all).
_LEVELS: Constraints = (Integer(1), None)
_LISTED: Constraints = (Integer(1), None)


class Exports(FittedState):
    """The fitted tree shown and carried elsewhere: text, rules, pictures (and Jupyter's
    display), Polars and SQL expressions, ONNX and treelite models, and the split scores
    recorded at each node. Each method hands the fitted state to the module that does the
    work (`quercus.explain`, `quercus.export`)."""

    def export_text(
        self,
        *,
        decimals: int = 4,
        show_weights: bool = True,
        show_missing: bool | None = None,
        max_depth: int | None = None,
        max_categories: int | None = MAX_CATEGORIES,
    ) -> str:
        """The tree as indented text, one line per node, as the textbooks draw it.

        Parameters
        ----------
        decimals : int, default=4
            Digits after the point in thresholds and figures.
        show_weights : bool, default=True
            End each leaf's line with its training weight, ``(7)``.
        show_missing : bool, optional
            Say where each split sends a missing value, after its first branch's line
            (``[missing → left]``, ``[? → 7/15 · 5/15 · 3/15]`` for C4.5's fractions,
            ``[surrogate: density <= 0.4000; missing → left]``). None: when some split met
            missing values in training.
        max_depth : int, optional
            Levels shown (None: all); a split at the last level shown ends its line with
            the number of leaves below it.
        max_categories : int, optional
            A category subset is worded by its shorter side and lists at most this many
            categories, counting the rest (``{N10156, N103US, … 1,809 more}``); None lists
            all. ``to_sql``, ``to_polars_expr`` and ``rules()`` always hold every category.

        Returns
        -------
        str
            One line per node below the root.

        Raises
        ------
        InvalidParameterError
            ``max_depth`` or ``max_categories`` below 1.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> print(model.export_text())
        texture = clear
            density <= 0.3815: no (2)
            density >  0.3815: yes (7)
        texture = slightly_blurry
            surface = hard: no (4)
            surface = soft: yes (1)
        texture = blurry: no (3)
        """
        state = self._state
        return render.export_text(
            state.view.nodes(),
            state.schema.features,
            state.labels,
            decimals=decimals,
            show_weights=show_weights,
            show_missing=show_missing,
            max_depth=check("max_depth", max_depth, _LEVELS),
            max_categories=check("max_categories", max_categories, _LISTED),
        )

    def rules(self) -> RuleSet:
        """The tree as rules, one per leaf, to read, post-prune, or run as Polars or SQL.

        Each rule holds the tests on its leaf's path, merged per feature (two thresholds on
        one feature become one interval); the default is the root's prediction.

        Returns
        -------
        RuleSet
            The rules in the order ``export_text`` prints the leaves.

        Raises
        ------
        ValueError
            A multi-output tree: a rule set predicts one target.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> rules = model.rules()
        >>> len(rules), rules.default
        (5, 'no')
        >>> print(rules[1].to_text("ripe"))
        IF texture = clear AND density > 0.3815 THEN ripe = yes  [support 7, confidence 1.00]
        """
        state = self._state
        state.single_output("rules()")
        return RuleSet.from_tree(state.tree.nodes(), state.schema, state.labels)

    def export_rules(
        self, *, decimals: int = 4, max_categories: int | None = MAX_CATEGORIES
    ) -> str:
        """The rules of :meth:`rules` as text.

        Parameters
        ----------
        decimals : int, default=4
            Digits after the point in thresholds and figures.
        max_categories : int, optional
            Category lists longer than this are shortened, as ``export_text`` shortens them
            (None: all).

        Returns
        -------
        str
            One ``IF ... THEN ...`` line per leaf, with its support and confidence, and an
            ``ELSE`` line for the default.

        Raises
        ------
        ValueError
            A multi-output tree.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> print(model.export_rules())
        IF texture = clear AND density <= 0.3815 THEN ripe = no  [support 2, confidence 1.00]
        IF texture = clear AND density > 0.3815 THEN ripe = yes  [support 7, confidence 1.00]
        IF texture = slightly_blurry AND surface = hard THEN ripe = no  [support 4, confidence 1.00]
        IF texture = slightly_blurry AND surface = soft THEN ripe = yes
            [support 1, confidence 1.00]
        IF texture = blurry THEN ripe = no  [support 3, confidence 1.00]
        ELSE ripe = no
        """
        return self.rules().to_text(decimals, check("max_categories", max_categories, _LISTED))

    def predict_expr(self, *, proba: bool = False) -> pl.Expr:
        """A Polars expression that runs this model's predictor on each batch of a query.

        The same as :func:`quercus.predict_expr` with this model.

        Parameters
        ----------
        proba : bool, default=False
            Classifiers: a struct of class probabilities instead of the label.

        Returns
        -------
        polars.Expr
            Named after the target; use it in ``with_columns`` or ``select``, eager, lazy
            or ``collect(engine="streaming")``.

        Raises
        ------
        ValueError
            ``proba=True`` on a regressor or a multi-output tree.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> X.lazy().select(model.predict_expr()).collect()["ripe"].to_list()[:4]
        ['yes', 'yes', 'yes', 'yes']
        """
        return native.predict_expr(self, proba=proba)

    def to_polars_expr(self) -> pl.Expr:
        """The tree as a pure Polars ``when/then`` expression (quercus is not needed to run it).

        Equal to ``predict(X, output="polars")`` on rows with no missing tested value, and
        on every row when the tree sends a missing value to one child (every ``missing=``
        strategy but C4.5's fractions; surrogate splits included). With C4.5's fractions a
        missing value (null, NaN, an unseen category) goes down the branch with the largest
        training share, since the fractions cannot be expressed.

        Returns
        -------
        polars.Expr
            Named after the target; a multi-output tree's is a struct of its outputs'
            predictions.

        Raises
        ------
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> X.select(model.to_polars_expr())["ripe"].to_list() == model.predict(X).tolist()
        True
        """
        state = self._state
        dtype = native.prediction_dtype(state.schema, state.classes)
        return native.tree_expr(state.tree.nodes(), state.schema, state.labels, dtype)

    def to_sql(self, table: str | None = None, *, dialect: SqlDialectName = "ansi") -> str:
        """The tree as an SQL ``CASE`` expression, one nested ``CASE`` per internal node.

        Missing values (NULL) are treated as by :meth:`to_polars_expr`; the columns must
        hold what quercus was fitted on, as for :meth:`quercus.RuleSet.to_sql`.

        Parameters
        ----------
        table : str, optional
            With it, a whole ``SELECT CASE ... END AS "target" FROM "table"``.
        dialect : {"ansi", "duckdb", "postgresql", "sqlite", "spark"}, default="ansi"
            The database the SQL runs in, as for :meth:`quercus.RuleSet.to_sql` ("spark":
            Spark SQL, which scores a table in Spark without Python).

        Returns
        -------
        str
            The expression; a multi-output tree gives one ``CASE`` per output, named after
            it (a select list).

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            An unknown ``dialect``, or a temporal feature in SQLite's.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> print(model.to_sql())
        CASE
            WHEN "texture" = 'slightly_blurry' THEN CASE
                WHEN "surface" = 'soft' THEN 'yes'
                ELSE 'no'
            END
            WHEN "texture" = 'blurry' THEN 'no'
            ELSE CASE
                WHEN "density" <= 0.3815 THEN 'no'
                ELSE 'yes'
            END
        END
        """
        sql = sql_dialect(dialect)
        state = self._state
        return native.tree_sql(state.tree.nodes(), state.schema, state.labels, table, sql)

    def to_onnx(self, *, dtype: Any = np.float64, ml_opset: int = 5) -> Any:
        """The model as an ONNX model for onnxruntime (see :func:`quercus.serving.to_onnx`).

        Parameters
        ----------
        dtype : {numpy.float64, numpy.float32}, default=numpy.float64
            The input matrix's type.
        ml_opset : {5, 3}, default=5
            ``ai.onnx.ml`` TreeEnsemble (5) or the older TreeEnsembleRegressor (3).

        Returns
        -------
        onnx.ModelProto
            Input ``X`` as :func:`quercus.serving.onnx_input` encodes it.

        Raises
        ------
        quercus.serving.NotServableError
            A C4.5-fractions, surrogate or oblique tree, which one direction per node
            cannot express (the message names the strategy to refit with).
        ImportError
            Without the ``onnx`` package (``pip install "quercus[onnx]"``).

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(missing="learned").fit(X, y)
        >>> [output.name for output in model.to_onnx().graph.output]
        ['label', 'probabilities']
        """
        return onnx.to_onnx(self, dtype=dtype, ml_opset=ml_opset)

    def to_treelite(self) -> Any:
        """The model as a treelite model, for TL2cgen (see :func:`quercus.serving.to_treelite`).

        Returns
        -------
        treelite.Model
            One tree; a classifier's leaves hold class probabilities.

        Raises
        ------
        quercus.serving.NotServableError
            A tree that one direction per node cannot express, as for :meth:`to_onnx`.
        ImportError
            Without the ``treelite`` package (``pip install "quercus[treelite]"``).

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(missing="learned").fit(X, y)
        >>> model.to_treelite().num_tree
        1
        """
        return treelite.to_treelite(self)

    def to_dot(
        self,
        *,
        decimals: int = 3,
        max_categories: int | None = PICTURE_CATEGORIES,
        data: tuple[Any, ...] | None = None,
    ) -> str:
        """The tree as Graphviz DOT text, for ``dot``: boxes coloured by majority class.

        Parameters
        ----------
        decimals : int, default=3
            Digits after the point.
        max_categories : int, optional
            Category lists shortened to this many (None: all); each edge's whole test is its
            tooltip.
        data : tuple, optional
            A regressor's ``(X, y)`` or ``(X, y, sample_weight)`` whose quantiles the
            nodes' strips draw, as in :meth:`to_svg`.

        Returns
        -------
        str
            A ``digraph``.

        Raises
        ------
        ValueError
            A multi-output tree (boxes are coloured and counted by one output's classes), or
            ``data`` given to a classifier.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> model.to_dot().startswith("digraph tree {")
        True
        """
        state = self._state
        state.single_output("to_dot()")
        nodes = state.tree.nodes()
        return dot.to_dot(
            nodes,
            state.schema.features,
            state.labels,
            target=state.schema.target,
            decimals=decimals,
            max_categories=check("max_categories", max_categories, _LISTED),
            spread=self._spread(nodes, data),
        )

    def to_svg(
        self,
        *,
        decimals: int = 3,
        max_depth: int | None = None,
        width: float | None = svg.DEFAULT_WIDTH,
        max_categories: int | None = PICTURE_CATEGORIES,
        data: tuple[Any, ...] | None = None,
    ) -> str:
        """The tree as a standalone SVG picture, laid out by quercus (no Graphviz needed).

        A classifier's node shows its class counts, coloured by its majority class. A
        regression node shows its mean, its weight and a strip of its target's spread
        (whiskers 5-95 %, box 25-75 %, median, mean) on one axis for the whole picture: the
        training rows' quantiles, recorded at fit. A model read from a file keeps none, so
        its strips show mean ± one standard deviation unless given ``data``.

        Parameters
        ----------
        decimals : int, default=3
            Digits after the point.
        max_depth : int, optional
            Draw at most this many levels below the root.
        width : float, optional
            The page width in px (at least 100; None: the drawing's own size). A wider
            drawing is scaled down; if its text would then be too small to read, fewer
            levels are drawn, with a caption saying so and each cut node stating how many
            nodes lie below it.
        max_categories : int, optional
            Category lists show at most this many of their shorter side (None: all); the
            whole list is the edge's tooltip and a numbered note under the tree.
        data : tuple, optional
            A regressor's ``(X, y)`` or ``(X, y, sample_weight)``: draw the quantiles of
            those rows, routed as ``predict`` routes them (for a loaded model, or to see
            test rows).

        Returns
        -------
        str
            An ``<svg>`` element; a notebook shows a fitted model this way by itself.

        Raises
        ------
        ValueError
            A multi-output tree, or ``data`` given to a classifier.
        InvalidParameterError
            ``width`` below 100 or ``max_depth`` below 1.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> svg = model.to_svg(width=600)
        >>> svg.startswith("<svg"), svg.count('<rect class="node')
        (True, 8)
        """
        state = self._state
        state.single_output("to_svg()")
        nodes = state.tree.nodes()
        return svg.to_svg(
            nodes,
            state.schema.features,
            state.labels,
            target=state.schema.target,
            decimals=decimals,
            max_depth=check("max_depth", max_depth, _LEVELS),
            width=check("width", width, (Real(100.0), None)),
            max_categories=check("max_categories", max_categories, _LISTED),
            spread=self._spread(nodes, data),
        )

    def _spread(
        self, nodes: dict[str, NDArray[Any]], data: tuple[Any, ...] | None
    ) -> spread.Spread | None:
        """What a regression tree's strips show: the quantiles of `data` = (X, y[,
        sample_weight]), else those kept from the fit, else mean ± sd; None for a classifier
        (which takes no `data`)."""
        state = self._state
        if state.classes is not None:
            if data is not None:
                raise ValueError(
                    "data= draws the target's spread in a regression tree's nodes; a "
                    "classifier's boxes show the class counts of its training rows"
                )
            return None
        if data is None:
            return spread.of_tree(nodes, state.quantiles)
        if not isinstance(data, tuple) or len(data) not in (2, 3):
            raise ValueError("data must be a tuple (X, y) or (X, y, sample_weight)")
        rows = labelled_data(
            data[0], data[1], data[2] if len(data) == 3 else None, state.schema, None
        )
        return spread.of_rows(state.tree, rows, self._threads())

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture of the model: its SVG once fitted (`to_svg`'s rules: it fits a
        notebook's width, cutting levels a large tree could not show legibly). None (Jupyter
        then shows the text repr) before fit, and for a multi-output tree (no picture)."""
        if not self.__sklearn_is_fitted__() or self._state.n_outputs > 1:
            return None
        return self.to_svg(width=_REPR_SVG_WIDTH)

    def _repr_html_(self) -> str:
        """HTML display (documentation galleries, HTML notebooks): the fitted tree's
        picture, as `_repr_svg_`; before fit, the escaped repr."""
        if not self.__sklearn_is_fitted__():
            return f"<pre>{html.escape(repr(self))}</pre>"
        return f'<div class="quercus-tree">{self.to_svg(width=_REPR_SVG_WIDTH)}</div>'

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, str]:
        """Jupyter's display: the tree's picture once fitted (scikit-learn's estimator
        diagram, where it offers one, before)."""
        if not self.__sklearn_is_fitted__():
            theirs = getattr(super(), "_repr_mimebundle_", None)
            return theirs(**kwargs) if theirs is not None else {"text/plain": repr(self)}
        svg = self._repr_svg_()
        return {"text/plain": repr(self), **({} if svg is None else {"image/svg+xml": svg})}

    def node_scores(self, node_id: int) -> pl.DataFrame:
        """Every feature's best split at a node when it was grown, as :func:`split_scores`.

        Parameters
        ----------
        node_id : int
            The node, as ``apply`` and ``tree_.nodes()`` number them (0 is the root).

        Returns
        -------
        polars.DataFrame
            One row per feature: ``feature``, ``score``, ``gain``, ``iv`` (split
            information), ``threshold`` (numeric features) and ``rho`` (the share of weight
            that knows the feature); NaN for a feature not searched there.

        Raises
        ------
        ValueError
            A histogram tree (``splitter_ == "hist"``), which keeps no scores.
        QuercusError
            A node that does not exist.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        Under ``texture = clear`` (node 1) of watermelon 3.0, density's gain is 0.764:

        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> scores = model.node_scores(1)
        >>> scores.filter(feature="density")["gain"].round(3).to_list()
        [0.764]
        """
        if self.splitter_ == "hist":
            raise ValueError(
                "node_scores are recorded by the exact search only; this tree was grown with "
                'histograms (splitter_ == "hist"): refit with splitter="exact" to see them'
            )
        return score_frame(self._state.schema.names, self.tree_.node_scores(node_id))
