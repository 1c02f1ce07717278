"""What a fit leaves, as data: the core tree with the schema, classes, pruning trace and node
quantiles of its fit (`FittedTree`, in `state`), and scikit-learn's view of the same tree, its
`tree_` arrays (`sklearn_view`). The estimators keep one; the explanations, the exports and
the model format read it.
"""
