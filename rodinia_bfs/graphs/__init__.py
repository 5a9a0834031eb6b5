"""Graphs: the CSR model, file formats and generators."""

from rodinia_bfs.graphs.csr import CSRGraph

__all__ = ["CSRGraph"]
