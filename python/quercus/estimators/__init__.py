"""The estimators' machinery: the parameters they declare, how a fit and a pruning run, and
the fitted state they keep.

The public estimator classes (`quercus.tree`) are assembled from the pieces here; a fitted
tree is a `FittedTree` (`fitted`) that the exports (`quercus.export`), the explanations
(`quercus.explain`) and the model format read.
"""
