"""
Pre-pruning and post-pruning: Figs 4.4, 4.5 and 4.6
===================================================

Text 000 (§4.3) splits watermelon 2.0 into ten training and seven validation melons (Table
4.2), grows Fig 4.4 (validation accuracy 3/7), pre-prunes it to Fig 4.5's stump (5/7) and
post-prunes it by reduced error to Fig 4.6 (5/7).
"""

# %%
import quercus

X, y = quercus.datasets.load("watermelon2", return_X_y=True)
# ``color`` and ``umbilicus`` tie exactly at the root; the text picks umbilicus, so it goes first.
X = X.select(["umbilicus", "color", "root", "sound", "texture", "surface"])
train = [i - 1 for i in (1, 2, 3, 6, 7, 10, 14, 15, 16, 17)]
valid = [i - 1 for i in (4, 5, 8, 9, 11, 12, 13)]
X_train, y_train, X_val, y_val = X[train], y.gather(train), X[valid], y.gather(valid)

# %%
# Fig 4.4: the unpruned tree.
full = quercus.DecisionTreeClassifier(algorithm="id3").fit(X_train, y_train)
print(full.export_text(show_weights=False))
print(f"validation accuracy {full.score(X_val, y_val):.3f}  (the text: 3/7 = 0.429)")
full

# %%
# Fig 4.5: pre-pruning splits a node only when the split raises validation accuracy.
stump = quercus.DecisionTreeClassifier(algorithm="id3", prepruning="validation")
stump.fit(X_train, y_train, validation=(X_val, y_val))
print(stump.export_text(show_weights=False))
print(f"validation accuracy {stump.score(X_val, y_val):.3f}  (the text: 5/7 = 0.714)")

# %%
# Fig 4.6: reduced-error post-pruning, bottom up, pruning only on a strict improvement as
# the text does; ``pruning_trace_`` lists every decision.
pruned = full.prune("reduced_error", X_val=X_val, y_val=y_val, prune_ties=False)
print(pruned.export_text(show_weights=False))
print(f"validation accuracy {pruned.score(X_val, y_val):.3f}  (the text: 5/7 = 0.714)")
print(pruned.pruning_trace_)
pruned
