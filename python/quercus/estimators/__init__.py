"""The estimators' machinery, one concern a module: the parameters they declare
(`parameters`, checked by `constraints`, resolved by `growth`), the fitted state they read
(`attributes`), fitting (`fitting`), pruning (`post_pruning`, `pruning_methods`), the
exports (`exports`), the model format and pickling (`persistence`), `split_scores`
(`scores`), and the assembly of their docstrings (`docstrings`) and base classes (`base`).

The public estimator classes (`quercus.tree`) are assembled from these pieces; what a fit
leaves is a `FittedTree` (`quercus.fitted`).
"""
