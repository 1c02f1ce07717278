"""
Continuous attributes and Fig 4.7: midpoint thresholds on watermelon 3.0
=========================================================================

Text 000 (§4.4.1) splits a continuous attribute at a midpoint of two adjacent values: density
has 16 candidates (0.244, 0.294, ..., 0.746), the best is 0.381 with gain 0.262; sugar's best
is 0.126 with gain 0.349; texture still wins at the root, and Fig 4.7 follows.
"""

# %%
import numpy as np

import quercus

X, y = quercus.datasets.load("watermelon3", return_X_y=True)
# The text prints each candidate cut to three decimals (truncated, not rounded; the 1e-9
# keeps a midpoint such as 0.4595, stored as 0.45949999..., from truncating to 0.458).
for feature in ("density", "sugar"):
    values = np.unique(X[feature].to_numpy())
    midpoints = (values[:-1] + values[1:]) / 2
    truncated = np.floor(midpoints * 1000 + 1e-9) / 1000
    print(feature, len(midpoints), "candidates:", truncated.tolist())

# %%
# Each attribute's best split at the root (the threshold column is the midpoint chosen; the
# text: density 0.381 with gain 0.262, sugar 0.126 with gain 0.349).
scores = quercus.split_scores(X, y, criterion="entropy")
print(
    scores.select("feature", "gain", "threshold").with_columns(
        gain=scores["gain"].round(3), threshold=scores["threshold"].round(4)
    )
)

# %%
# Fig 4.7. Under ``slightly_blurry``, ``surface`` and ``density <= 0.560`` tie; the first
# column wins, as in the text.
model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
print(model.export_text())
model
