"""Long and large work: fits larger than memory, a Polars LazyFrame streamed batch by batch
(`stream`), and the tasks a Dask cluster runs on its partitions (`dask_tasks`; the estimators
are `quercus.dask`'s), both growing the tree the in-memory histogram fit grows from the same
rows; and the progress line a long fit or prediction shows (`progress`).
"""
