"""The way in: what a fit, a prediction or an export is given, made into what the core reads.

NumPy matrices, Polars, pandas and Arrow frames and SciPy sparse matrices become the core's
encoded columns and rows, with the schema that reads them again (`validation`); the
`missing=` strategies done on the data itself (`missing`); dates and times read as numbers
on the scale of the fit (`temporal`). Nothing here knows an estimator.
"""
