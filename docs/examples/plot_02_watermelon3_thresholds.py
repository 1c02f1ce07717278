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
for feature in ("density", "sugar"):
    values = np.unique(X[feature].to_numpy())
    midpoints = (values[:-1] + values[1:]) / 2
    print(feature, len(midpoints), "candidates:", np.round(midpoints, 3).tolist())

# %%
# Each attribute's best split at the root (the threshold column is the midpoint chosen).
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
