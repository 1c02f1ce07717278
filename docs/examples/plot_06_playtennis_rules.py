"""
PlayTennis and rule post-pruning (Mitchell, text 001)
=====================================================

Mitchell's ID3 example: Gain(S, Outlook) = 0.246 wins over Humidity (0.151), Wind (0.048) and
Temperature (0.029), and the tree is turned into rules, one per leaf, which rule post-pruning
then simplifies one precondition at a time.
"""

# %%
import quercus

X, y = quercus.datasets.load("playtennis", return_X_y=True)
scores = quercus.split_scores(X, y, criterion="entropy")
print(scores.select("feature", "gain").with_columns(gain=scores["gain"].round(3)))

# %%
model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
print(model.export_text(show_weights=False))
model

# %%
# The tree as rules; ``RuleSet.prune`` drops every precondition whose removal does not lower
# the rule's accuracy on the data it is given (here the training days themselves, as a
# demonstration: Mitchell uses a validation set), then sorts the rules by that accuracy.
rules = model.rules()
print(rules)
print()
print(rules.prune(X, y))
