"""
Fig 4.9 against an oblique split: watermelon 3.0α
=================================================

Text 000 (§4.5) notes that axis-parallel splits draw a staircase where the classes are
separated by a slanted line: on watermelon 3.0α (density and sugar only) ID3 needs Fig 4.9's
four splits, while one multivariate test ``w·x <= t`` separates the same melons almost as well.
"""

# %%
import quercus

X, y = quercus.datasets.load("watermelon3alpha", return_X_y=True)
axis = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
print(axis.export_text(show_weights=False))
print("leaves:", axis.n_leaves_, " training accuracy:", axis.score(X, y))
axis

# %%
# The oblique tree: the direction starts from Fisher's discriminant and is refined by OC1's
# coordinate search; the axis-parallel split stays a candidate, so it is never worse.
oblique = quercus.DecisionTreeClassifier(algorithm="cart", splits="oblique").fit(X, y)
print(oblique.export_text(show_weights=False))
print("leaves:", oblique.n_leaves_, " training accuracy:", oblique.score(X, y))
oblique
