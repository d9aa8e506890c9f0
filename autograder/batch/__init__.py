"""Batch: one loop grades every submission of an assignment (a lab through the worker pool, here or
on Dask; a quiz in the trusted process), resumes by content hash and records each result."""
