"""rodinia-bfs: multi-kernel GPU programming with HIP, taught through breadth-first search."""

from rodinia_bfs.errors import (
    CompileError,
    DeviceError,
    GraphFormatError,
    RodiniaBFSError,
    ValidationError,
)
from rodinia_bfs.graphs.csr import CSRGraph

__version__ = "0.1.0"

__all__ = [
    "CSRGraph",
    "CompileError",
    "DeviceError",
    "GraphFormatError",
    "RodiniaBFSError",
    "ValidationError",
    "__version__",
]
