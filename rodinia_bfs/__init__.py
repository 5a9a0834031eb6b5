"""rodinia-bfs: multi-kernel GPU programming with HIP, taught through breadth-first search.

The Python API in one call::

    import rodinia_bfs
    levels, parents = rodinia_bfs.bfs(graph, source)  # a CSRGraph, a scipy.sparse matrix or a path

or prepared once and searched many times::

    with rodinia_bfs.prepare(graph) as prepared:
        levels, parents = prepared.bfs(source)

See :func:`rodinia_bfs.api.bfs` and :func:`rodinia_bfs.api.prepare`.
"""

from rodinia_bfs.errors import (
    ArgumentError,
    ArgumentTypeError,
    CompileError,
    DeviceError,
    GraphFormatError,
    RodiniaBFSError,
    ValidationError,
)
from rodinia_bfs.graphs.csr import CSRGraph, EdgeCounts
from rodinia_bfs.api import (
    DEFAULT_VARIANT,
    PreparedGraph,
    bfs,
    open_device,
    plan,
    prepare,
    variant_names,
)

__version__ = "0.1.0"

__all__ = [
    "CSRGraph",
    "DEFAULT_VARIANT",
    "EdgeCounts",
    "PreparedGraph",
    "bfs",
    "prepare",
    "open_device",
    "plan",
    "variant_names",
    "ArgumentError",
    "ArgumentTypeError",
    "CompileError",
    "DeviceError",
    "GraphFormatError",
    "RodiniaBFSError",
    "ValidationError",
    "__version__",
]
