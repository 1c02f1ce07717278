"""What a fitted tree says, in words and pictures: its text (`text`), its rules (`rules`),
its SVG and DOT pictures (`pictures`) and the spread of a regression target in its nodes
(`spread`). The public paths are `quercus.rules`, `quercus.render`, `quercus.pictures` and
`quercus.spread`.
"""
