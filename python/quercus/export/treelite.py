"""The fitted tree as a treelite model, built with treelite's model builder (numeric and
categorical tests), for TL2cgen to compile to C. `treelite` is an optional extra (`pip
install "quercus[treelite]"`), imported only when a model is converted."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .servable import LEQ, MEMBER, binary, check_servable, fitted_state


def to_treelite(model: Any) -> Any:
    """The fitted model as a treelite model, for ``treelite.gtil`` or TL2cgen's C code.

    Built with treelite (>= 4)'s model builder. Categorical features take their category's
    position in the fit's list, as for :func:`to_onnx` (use :func:`onnx_input`).

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        The fitted model.

    Returns
    -------
    treelite.Model
        One tree; a classifier predicts its class probabilities (a leaf vector per leaf), a
        regressor its mean.

    Raises
    ------
    NotServableError
        A tree with C4.5's fractions, surrogate splits or oblique splits.
    ImportError
        Without the ``treelite`` package (``pip install "quercus[treelite]"``).

    Examples
    --------
    >>> import treelite
    >>> import quercus
    >>> from quercus import serving
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> model = quercus.DecisionTreeClassifier(missing="learned").fit(X, y)
    >>> proba = treelite.gtil.predict(serving.to_treelite(model), serving.onnx_input(model, X))
    >>> (proba[:, 0, :] == model.predict_proba(X)).all()
    np.True_
    """
    state = fitted_state(model)
    check_servable(state, state.nodes())  # said first: with treelite installed or not
    from treelite.model_builder import (
        Metadata,
        ModelBuilder,
        PostProcessorFunc,
        TreeAnnotation,
    )

    tree = binary(state)
    nodes = state.nodes()
    n_features = len(state.schema.features)
    classifier = state.classes is not None
    n_classes = len(state.classes) if state.classes is not None else 1
    builder = ModelBuilder(
        threshold_type="float64",
        leaf_output_type="float64",
        metadata=Metadata(
            num_feature=n_features,
            task_type="kMultiClf" if classifier else "kRegressor",
            average_tree_output=False,
            num_target=1,
            num_class=[n_classes],
            leaf_vector_shape=(1, n_classes),
        ),
        # A classifier's leaves hold every class's probability (class -1: all of them).
        tree_annotation=TreeAnnotation(
            num_tree=1, target_id=[0], class_id=[-1 if classifier else 0]
        ),
        postprocessor=PostProcessorFunc(name="identity"),
        base_scores=[0.0] * n_classes,
    )
    n_tests = len(tree.mode)
    value = nodes["value"].astype(np.float64)
    builder.start_tree()

    def key(position: int, leaf: bool) -> int:
        return n_tests + position if leaf else position

    single_leaf = all(tree.true_leaf) and len(tree.mode) == 1 and tree.true_id == tree.false_id
    if single_leaf:
        _treelite_leaf(builder, 0, value[tree.leaves[0]], classifier)
    else:
        for t in range(n_tests):
            builder.start_node(t)
            yes = key(tree.true_id[t], tree.true_leaf[t])
            no = key(tree.false_id[t], tree.false_leaf[t])
            if tree.mode[t] == LEQ:
                builder.numerical_test(
                    feature_id=tree.feature[t],
                    threshold=tree.split[t],
                    default_left=tree.missing_true[t],
                    opname="<=",
                    left_child_key=yes,
                    right_child_key=no,
                )
            else:
                passing = (
                    [int(c) for c in tree.members[t]]
                    if tree.mode[t] == MEMBER
                    else [int(tree.split[t])]
                )
                builder.categorical_test(
                    feature_id=tree.feature[t],
                    default_left=tree.missing_true[t],
                    category_list=passing,
                    category_list_right_child=False,
                    left_child_key=yes,
                    right_child_key=no,
                )
            builder.end_node()
        for position, q in enumerate(tree.leaves):
            _treelite_leaf(builder, n_tests + position, value[q], classifier)
    builder.end_tree()
    return builder.commit()


def _treelite_leaf(
    builder: Any, node_key: int, value: NDArray[np.float64], classifier: bool
) -> None:
    builder.start_node(node_key)
    if classifier:
        total = value.sum()
        builder.leaf((value / total if total > 0 else value).tolist())
    else:
        builder.leaf(float(value[0]))
    builder.end_node()
