"""
Information gain and Fig 4.3: ID3 on watermelon 2.0
====================================================

Text 000 (§4.2.1) computes the entropy of watermelon 2.0's 17 melons, the information gain of
each of its six attributes, picks ``texture`` (0.381 bits) and grows Fig 4.3 with Algorithm
4.1. The same figures, from quercus.
"""

# %%
# The data: 17 melons, six categorical attributes, ``ripe`` yes (8) or no (9).
import math

import quercus

X, y = quercus.datasets.load("watermelon2", return_X_y=True)
counts = y.value_counts(sort=True)
print(counts)
shares = [c / len(y) for c in counts["count"]]
print(f"Ent(D) = {-sum(p * math.log2(p) for p in shares):.3f}  (the text: 0.998)")

# %%
# Gain(D, a) of every attribute: ``split_scores`` gives the table a student checks by hand
# (text: color 0.109, root 0.143, sound 0.141, texture 0.381, umbilicus 0.289,
# surface 0.006).
gains = quercus.split_scores(X, y, criterion="entropy")
print(gains.select("feature", "gain").with_columns(gain=gains["gain"].round(3)))

# %%
# Fig 4.3: ID3 grows the tree; under ``texture = clear`` the gains are recomputed on the
# node's nine melons (root, umbilicus and surface tie at 0.458; the first wins).
model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
print(model.export_text(show_weights=False))
clear = model.node_scores(1)
print(clear.select("feature", "gain").with_columns(gain=clear["gain"].round(3)))

# %%
# The tree as a picture (``model.to_svg()``; a notebook shows it by itself).
model
