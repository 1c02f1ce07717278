"""
The restaurant: waiting for a table (text 004, AIMA's WillWait)
===============================================================

Text 004 grows AIMA's restaurant tree: Patrons first (gain 0.541), then, under ``Patrons =
Full``, a five-way tie that ``Hungry`` wins by column order; an empty ``Type = French`` branch
under ``Hungry = Yes`` becomes a leaf with its parent's majority.
"""

# %%
import quercus

X, y = quercus.datasets.load("restaurant", return_X_y=True)
scores = quercus.split_scores(X, y, criterion="entropy")
print(scores.select("feature", "gain").with_columns(gain=scores["gain"].round(3)))

# %%
model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
print(model.export_text())
model

# %%
# The same data under CART's Gini index and binary subset splits.
cart = quercus.DecisionTreeClassifier(algorithm="cart").fit(X, y)
print(cart.export_text())
cart
