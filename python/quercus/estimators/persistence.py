"""Saving and restoring estimators: quercus's model format and pickling.

A pickle stores the parameters and the model-format bytes in place of the Rust tree, so
pickles and model files restore the same estimator (docs/model-format.md). A regression
tree's node quantiles, which the format has no place for, ride beside the bytes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Self

from .. import _core
from ..explain import spread
from ..export import model_io
from ..fitted.state import FittedTree
from .attributes import FittedState

if TYPE_CHECKING:
    from os import PathLike


class Persistence(FittedState):
    """The fitted model as quercus's model format (`save`, `to_bytes`, `from_bytes`) and as a
    pickle, which holds the same bytes."""

    def save(self, path: str | PathLike[str]) -> None:
        """Write the fitted model to a file in quercus's model format.

        Parameters
        ----------
        path : str or os.PathLike
            The file to write (conventionally ``.qrc``); :func:`quercus.load` reads it.

        Raises
        ------
        OSError
            The file cannot be written.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "melons.qrc"
        >>> model.save(path)
        >>> quercus.load(path).predict(X).tolist() == model.predict(X).tolist()
        True
        """
        model_io.save(self.to_bytes(), path)

    def to_bytes(self) -> bytes:
        """The fitted model in quercus's model format (docs: the model format).

        Returns
        -------
        bytes
            The same data and parameters always give the same bytes; :func:`quercus.from_bytes`
            reads them.

        Raises
        ------
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> data = model.to_bytes()
        >>> data[:4]
        b'\\x89QRC'
        >>> quercus.from_bytes(data).n_leaves_
        5
        """
        name = type(self).__name__
        return model_io.to_bytes(self._state, name, self._estimator_type, self.get_params())

    @classmethod
    def from_bytes(cls, data: bytes) -> Self:
        """The model in ``data`` (from ``to_bytes``), as an estimator of this class.

        Parameters
        ----------
        data : bytes
            A model written by ``to_bytes``, ``save`` or the command line.

        Returns
        -------
        object
            An estimator of this class holding the model.

        Raises
        ------
        QuercusError
            ``data`` is not a quercus model, is damaged, or holds the other kind of
            estimator (a regressor read as a classifier).

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> data = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).to_bytes()
        >>> quercus.DecisionTreeClassifier.from_bytes(data)
        DecisionTreeClassifier(algorithm='id3')
        """
        stored = model_io.read(data)
        if stored.estimator_type != cls._estimator_type:
            raise _core.QuercusError(
                f"cannot load the model as a {cls.__name__}: it holds a {stored.estimator} "
                f"({stored.estimator_type})"
            )
        return cls._restored(stored)

    @classmethod
    def _restored(cls, stored: model_io.Stored) -> Self:
        """An estimator of this class holding `stored`. Parameters of a newer quercus that
        this one does not know are dropped: prediction needs none of them."""
        model = cls()
        known = {p.name for p in cls._parameters()}
        model.set_params(**{k: v for k, v in stored.params.items() if k in known})
        model._fitted = model._checked_state(stored.state)
        return model

    def _checked_state(self, state: FittedTree) -> FittedTree:
        """A loaded state, checked against this estimator's parameters."""
        return state

    def __getstate__(self) -> dict[str, Any]:
        """Pickle stores the parameters and, for a fitted model, its model-format bytes in
        place of the Rust tree, with a regression tree's node quantiles beside them (the
        pictures' strips: a model file has no place for them, but a pickle is a copy of the
        object, which should not lose them)."""
        state = {k: v for k, v in self.__dict__.items() if k != "_fitted"}
        if "_fitted" in self.__dict__:
            state["_quercus_model"] = self.to_bytes()
            if self._fitted.quantiles is not None:
                state["_quercus_quantiles"] = self._fitted.quantiles
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        data = state.pop("_quercus_model", None)
        quantiles = state.pop("_quercus_quantiles", None)
        self.__dict__.update(state)
        if data is not None:
            fitted = self._checked_state(model_io.read(data).state)
            self._fitted = replace(fitted, quantiles=spread.unpickled(quantiles, fitted.tree))

    def __copy__(self) -> Self:
        """A shallow copy sharing the (immutable) fitted tree, without the pickling route."""
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin
