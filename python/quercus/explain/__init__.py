"""What a fitted tree says, in words and pictures.

Its text (`text`); its rules (`rules`), built from each node's path (`paths`) of
preconditions (`conditions`) worded by `wording`; its pictures (`drawing`: what each node's
box shows, drawn by `svg` or as Graphviz `dot`); and the spread of a regression target in
its nodes (`spread`). The public paths are `quercus.render`, `quercus.rules`,
`quercus.pictures` and `quercus.spread`.
"""
