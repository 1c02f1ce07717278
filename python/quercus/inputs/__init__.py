"""The way in: what a fit, a prediction or an export is given, made into what the core reads.

Bottom up: plain values checked (`values`), any table or matrix read as a Polars frame or a
float matrix (`frames`, `sparse` for SciPy's), encoded as the core's columns through a schema
(`schema`, `encoding`; dates and times by `temporal`), the target and the row weights
(`targets`, `weights`), assembled into the data a fit is given (`training`) or the rows a
prediction reads (`rows`); the `missing=` strategies done on the data itself (`missing`).
Nothing here knows an estimator.
"""
