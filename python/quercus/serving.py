"""Serving a model without quercus: ONNX for onnxruntime and treelite for TL2cgen.

The public path of the serving exports, whose code is in `quercus.export` (`servable`: what
one direction per node can express; `onnx`; `treelite`). skl2onnx's registration of the
estimator classes stands here, above the classes it names (`skl2onnx` is an optional extra,
imported only when it is called).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .export.onnx import SKL2ONNX_ML_OPSET, attribute_value, label_table, onnx_nodes, to_onnx
from .export.servable import NotServableError, fitted_state, onnx_input
from .export.treelite import to_treelite

__all__ = ["onnx_input", "register_skl2onnx", "to_onnx", "to_treelite"]


def register_skl2onnx() -> None:
    """Teach skl2onnx to convert quercus's estimators.

    After it, ``skl2onnx.to_onnx(pipeline, X)`` converts a scikit-learn Pipeline ending in a
    quercus tree. Call it once; the converted classifier outputs ``label`` and
    ``probabilities`` (pass ``options={"zipmap": False}``, or keep skl2onnx's default ZipMap
    of probabilities).

    Raises
    ------
    ImportError
        Without skl2onnx.

    Examples
    --------
    >>> import numpy as np
    >>> import skl2onnx
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> import quercus
    >>> quercus.serving.register_skl2onnx()
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> pipeline = make_pipeline(StandardScaler(), quercus.DecisionTreeClassifier())
    >>> pipeline = pipeline.fit(X, [0, 0, 1, 1])
    >>> onnx_model = skl2onnx.to_onnx(pipeline, X, options={"zipmap": False})
    >>> [output.name for output in onnx_model.graph.output]
    ['label', 'probabilities']
    """
    from skl2onnx import update_registered_converter
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType

    from .tree import DecisionTreeClassifier, DecisionTreeRegressor

    def shape(operator: Any) -> None:
        model = operator.raw_operator
        n = operator.inputs[0].get_first_dimension()
        if model._estimator_type == "classifier":
            from skl2onnx.common.data_types import (
                Int64TensorType,
                StringTensorType,
            )

            labels, _ = label_table(model.classes_)
            label_type = StringTensorType if labels.dtype == object else Int64TensorType
            operator.outputs[0].type = label_type([n])
            operator.outputs[1].type = FloatTensorType([n, len(model.classes_)])
        else:
            operator.outputs[0].type = DoubleTensorType([n])

    def convert(scope: Any, operator: Any, container: Any) -> None:
        model = operator.raw_operator
        source = operator.inputs[0]
        dtype = np.float32 if isinstance(source.type, FloatTensorType) else np.float64
        made, _ = onnx_nodes(
            fitted_state(model),
            source.full_name,
            np.dtype(dtype),
            getattr(model, "cost_matrix", None),
            ml_opset=SKL2ONNX_ML_OPSET,
            prefix=scope.get_unique_variable_name("quercus") + "_",
            outputs=tuple(o.full_name for o in operator.outputs),
            float32_proba=True,  # skl2onnx's convention (its ZipMap reads float32)
        )
        for node in made:
            container.add_node(
                node.op_type,
                list(node.input),
                list(node.output),
                op_domain=node.domain,
                op_version=SKL2ONNX_ML_OPSET
                if node.domain == "ai.onnx.ml"
                else container.target_opset_any_domain(node.domain),
                name=scope.get_unique_operator_name(node.op_type),
                **{a.name: attribute_value(a) for a in node.attribute},
            )

    for cls, alias in (
        (DecisionTreeClassifier, "QuercusDecisionTreeClassifier"),
        (DecisionTreeRegressor, "QuercusDecisionTreeRegressor"),
    ):
        classifier = cls is DecisionTreeClassifier
        # skl2onnx's classifier options: ZipMap of the probabilities, and `nocl` (labels as
        # their positions); quercus writes the labels themselves either way.
        options = {"zipmap": [True, False, "columns"], "nocl": [False]} if classifier else None
        update_registered_converter(cls, alias, shape, convert, options=options)
