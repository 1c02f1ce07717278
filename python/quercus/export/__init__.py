"""A fitted tree carried elsewhere: quercus's model format (`model_io`), Polars expressions
and SQL (`native`), and served models: the binary tests both serving formats take
(`servable`), ONNX (`onnx`) and treelite (`treelite`). The public paths are
`quercus.model_io`, `quercus.native` and `quercus.serving` (which also registers the
estimators with skl2onnx).
"""
