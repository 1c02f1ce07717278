"""
Missing values and Fig 4.8: C4.5's fractional rows on watermelon 2.0α
=====================================================================

Text 000 (§4.4.2) grows a tree on watermelon 2.0α, which misses 13 values. A gain is computed
on the rows that know the attribute and multiplied by their share ρ; a row missing the chosen
attribute enters every branch, weighted by the branch's share r̃_v of the known rows. The text
prints Gain(D, color) = ρ × Gain(D̃, color) = 14/17 × 0.306 = 0.252 and the weights 7/15, 5/15,
3/15 of melons 8 and 10 under texture.
"""

# %%
import math

import quercus

X, y = quercus.datasets.load("watermelon2alpha", return_X_y=True)
print(X.null_count())

# %%
# For color, 14 melons know the value (ρ = 14/17): on them Ent(D̃) = 0.985 and
# Gain(D̃, color) = 0.306, so Gain(D, color) = 14/17 × 0.306 = 0.252 (the text's figures).
known = X["color"].is_not_null()
X_known, y_known = X.filter(known), y.filter(known)
shares = [c / len(y_known) for c in y_known.value_counts()["count"]]
print(f"known: {len(y_known)}  Ent(D~) = {-sum(p * math.log2(p) for p in shares):.3f}")
on_known = quercus.split_scores(X_known.select("color"), y_known, criterion="entropy")
print(f"Gain(D~, color) = {on_known['gain'][0]:.3f}")

# %%
# The root's gains (ρ × the gain on the known rows); the ``rho`` column is ρ.
scores = quercus.split_scores(X, y, criterion="entropy")
print(
    scores.select("feature", "gain", "rho").with_columns(
        gain=scores["gain"].round(3), rho=scores["rho"].round(3)
    )
)

# %%
# Texture is chosen; melons 8 and 10 (texture missing) go to all three branches with weights
# 7/15, 5/15 and 3/15: each child's weight is its known melons plus those fractions.
model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
nodes = model.tree_.nodes()
first = int(nodes["first_child"][0])
for child in range(first, first + int(nodes["n_children"][0])):
    print(
        f"node {child}: r̃ = {nodes['branch_fraction'][child]:.4f}, "
        f"weight = {nodes['weight'][child]:.4f}"
    )

# %%
# Fig 4.8, with the weights each leaf holds; the split lines say where a missing value goes.
print(model.export_text())
model
