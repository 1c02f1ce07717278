"""
PlayTennis and rule post-pruning (Mitchell, text 001)
=====================================================

Mitchell's ID3 example: Gain(S, Outlook) = 0.246 wins over Humidity (0.151), Wind (0.048) and
Temperature (0.029), and the tree is turned into rules, one per leaf, which rule post-pruning
then simplifies one precondition at a time, on rows the rules were not grown on.
"""

# %%
import quercus

X, y = quercus.datasets.load("playtennis", return_X_y=True)
scores = quercus.split_scores(X, y, criterion="entropy")
# The text: Outlook 0.246, Humidity 0.151, Wind 0.048, Temperature 0.029 (truncated).
print(scores.select("feature", "gain").with_columns(gain=scores["gain"].round(3)))

# %%
# ID3 grows Mitchell's Figure 3.1 tree.
model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
print(model.export_text(show_weights=False))
model

# %%
# The tree as rules: one per leaf, each a conjunction of the tests on its path.
print(model.export_rules())

# %%
# Rule post-pruning (Mitchell §3.7.1.2) drops each precondition whose removal does not lower
# the rule's accuracy on rows set aside for it, then sorts the rules by that accuracy. The
# 14 days are all the text has, and the full tree is right on every one of them, so set four
# aside: grow on days 1-10 and prune on days 11-14. A rule that keeps every condition is one
# whose rows the four days do not reach (no accuracy to measure).
grown = quercus.DecisionTreeClassifier(algorithm="id3").fit(X[:10], y[:10])
print(grown.export_rules())
print()
print(grown.rules().prune(X[10:], y[10:]))
