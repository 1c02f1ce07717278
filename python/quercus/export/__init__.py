"""A fitted tree carried elsewhere: quercus's model format (`model_io`), Polars expressions
and SQL (`native`), ONNX and treelite (`serving`). The public paths are `quercus.model_io`,
`quercus.native` and `quercus.serving`.
"""
