"""The graphs each benchmark suite runs on.

* ``quick``: graphs the cpu emulator runs in seconds, for CI and for readers without a GPU.
* ``standard``: the graphs of the design, for one GPU: a Rodinia-style uniform graph of
  1M nodes (like Rodinia's ``graph1MW_6.txt``), Kronecker scale 20, a 1000 x 1000 grid,
  the same grid with hubs, and the road and social graphs in ``../shared/data``.
* ``large``: ``standard`` plus Kronecker scale 22, 23, 24 and 25, the DIMACS road graph
  of Florida (``road-FLA``, 1.07M vertices) and Delaunay triangulations of 2**20, 2**22
  and 2**24 random points (road-like graphs at scale), each only where the device memory
  holds it (and the host has the memory to generate it): decided from the estimated
  size before the graph is generated.

Graph files given on the command line (:func:`file_specs`) are measured the same way.

A graph is described by a :class:`GraphSpec` and built only when its turn comes, so a
suite can name graphs that take a minute to generate without paying for them up front.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph

#: Device memory a BFS step needs, at most, per vertex and per stored edge: 8-byte
#: offsets, 4-byte levels and parents, masks and two 4-byte frontier queues per
#: vertex; one 4-byte target per edge. Used to skip graphs that cannot fit.
BYTES_PER_VERTEX = 32
BYTES_PER_EDGE = 4

#: Where the real graphs are, relative to the project root (``<root>/../shared/data``).
PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA_DIR = PROJECT_ROOT.parent / "shared" / "data"


@dataclass(frozen=True)
class GraphSpec:
    """One graph of a suite: a generator call or a file under the data folder."""

    name: str
    description: str
    #: ``generator(**params)`` builds the graph; None for a file.
    generator: Callable[..., CSRGraph] | None = None
    params: dict = field(default_factory=dict)
    #: Path of the file, relative to the data folder; None for a generated graph.
    file: str | None = None
    #: Estimated vertices and stored edges, known before the graph is built (0: unknown).
    est_vertices: int = 0
    est_edges: int = 0
    #: Host memory the generator takes at its peak, where the estimate from the vertices
    #: and edges (:func:`estimated_host_bytes`) is too low for it (0: that estimate).
    est_host_bytes: int = 0

    def path(self, data_dir: Path) -> Path:
        return Path(data_dir) / self.file

    def available(self, data_dir: Path) -> bool:
        return self.file is None or self.path(data_dir).is_file()

    def host_bytes(self) -> int:
        """Upper estimate of the host memory it takes to generate and check this graph."""
        return max(self.est_host_bytes, estimated_host_bytes(self.est_vertices, self.est_edges))

    def build(self, data_dir: Path) -> CSRGraph:
        """Generate or load the graph."""
        if self.file is None:
            return self.generator(**self.params)
        from rodinia_bfs.graphs.formats import load_graph

        return load_graph(self.path(data_dir))


def estimated_device_bytes(vertices: int, edges: int) -> int:
    """Upper estimate of the device memory one step needs for a graph of this size."""
    return vertices * BYTES_PER_VERTEX + edges * BYTES_PER_EDGE


#: Host memory that generating a graph takes, at its peak, per stored edge (arc) and per
#: vertex: the Kronecker generator's int64 sort keys and draws, then the CSR arrays,
#: the reference's and the validation's work arrays.
HOST_BYTES_PER_EDGE = 16
HOST_BYTES_PER_VERTEX = 64


def estimated_host_bytes(vertices: int, edges: int) -> int:
    """Upper estimate of the host memory it takes to generate and check such a graph."""
    return vertices * HOST_BYTES_PER_VERTEX + edges * HOST_BYTES_PER_EDGE


def available_host_memory() -> int | None:
    """Bytes of host memory available now (``MemAvailable``), ``None`` where unknown."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def file_specs(paths) -> list[GraphSpec]:
    """A spec for each graph file given on the command line, named after the file
    (``NY`` for ``NY.gr.xz``). A file that does not exist or has an unknown extension is
    an error now, before anything is measured."""
    from rodinia_bfs.graphs.formats import detect_format, graph_name

    specs, names = [], set()
    for path in paths:
        path = Path(path).resolve()
        detect_format(path)  # unknown extension, or a folder: GraphFormatError
        if not path.is_file():
            raise RodiniaBFSError(f"{path}: no such file")
        name = graph_name(path)
        while name in names:  # two files of one name from different folders
            name += "'"
        names.add(name)
        specs.append(GraphSpec(name=name, description=f"file {path}", file=str(path)))
    return specs


# Each builder imports the generators when called, so that listing a suite is free.
def _rodinia(num_nodes: int) -> GraphSpec:
    from rodinia_bfs.graphs.generators import rodinia_graphgen

    # Rodinia graphgen draws 2 to 4 edges per node and stores each both ways: about 6.
    return GraphSpec(
        name=f"rodinia-{_short(num_nodes)}",
        description=f"Rodinia graphgen, {num_nodes:,} nodes (uniform, 2-4 edges per node)",
        generator=rodinia_graphgen, params={"num_nodes": num_nodes, "seed": 0},
        est_vertices=num_nodes, est_edges=6 * num_nodes,
    )


def _kronecker(scale: int) -> GraphSpec:
    from rodinia_bfs.graphs.generators import kronecker

    return GraphSpec(
        name=f"kronecker-{scale}",
        description=f"Graph500 Kronecker, scale {scale}, edge factor 16",
        generator=kronecker, params={"scale": scale, "edge_factor": 16, "seed": 0},
        est_vertices=2**scale, est_edges=2 * 16 * 2**scale,
    )


def _grid(rows: int, cols: int) -> GraphSpec:
    from rodinia_bfs.graphs.generators import grid2d

    return GraphSpec(
        name=f"grid-{rows}x{cols}",
        description=f"2D grid {rows} x {cols} (high diameter, road-like)",
        generator=grid2d, params={"rows": rows, "cols": cols},
        est_vertices=rows * cols, est_edges=4 * rows * cols,
    )


def _hubs(rows: int, cols: int) -> GraphSpec:
    from rodinia_bfs.graphs.generators import grid_with_hubs

    # The hubs (0.1 % of the vertices at 100x the average degree) add about a quarter.
    return GraphSpec(
        name=f"hubs-{rows}x{cols}",
        description=f"2D grid {rows} x {cols} with hubs (0.1 % of vertices, 100x average degree)",
        generator=grid_with_hubs, params={"rows": rows, "cols": cols, "seed": 0},
        est_vertices=rows * cols, est_edges=5 * rows * cols,
    )


def _delaunay(scale: int) -> GraphSpec:
    from rodinia_bfs.graphs.generators import DELAUNAY_BYTES_PER_POINT, delaunay

    # A triangulation of n points has just under 3n edges, stored both ways: 6n arcs.
    # Qhull's working memory (about 1 KiB a point) is what decides whether it can be made.
    n = 2**scale
    return GraphSpec(
        name=f"delaunay-{scale}",
        description=f"Delaunay triangulation of 2^{scale} random points (planar, road-like)",
        generator=delaunay, params={"scale": scale, "seed": 0},
        est_vertices=n, est_edges=6 * n, est_host_bytes=n * DELAUNAY_BYTES_PER_POINT,
    )


def _file(name: str, path: str, description: str) -> GraphSpec:
    return GraphSpec(name=name, description=description, file=path)


def _short(n: int) -> str:
    """65536 -> '64K', 1000000 -> '1M'."""
    for unit, size in (("M", 1_000_000), ("K", 1024)):
        if n % size == 0 and n >= size:
            return f"{n // size}{unit}"
    return str(n)


def _real_graphs() -> list[GraphSpec]:
    return [
        _file("road-NY", "road/NY.gr.xz", "DIMACS road network, New York City"),
        _file("road-BAY", "road/BAY.gr.xz", "DIMACS road network, San Francisco Bay Area"),
        _file("email-Enron", "social/email-Enron.mtx", "SNAP e-mail network (social, hubs)"),
        _file("as-22july06", "social/as-22july06.mtx", "internet autonomous systems (social, hubs)"),
    ]


def _quick() -> list[GraphSpec]:
    return [
        _rodinia(16 * 1024),
        _kronecker(12),
        _grid(128, 128),
        _hubs(128, 128),
        _file("as-22july06", "social/as-22july06.mtx", "internet autonomous systems (social, hubs)"),
    ]


def _standard() -> list[GraphSpec]:
    return [_rodinia(1_000_000), _kronecker(20), _grid(1000, 1000), _hubs(1000, 1000),
            *_real_graphs()]


def _large() -> list[GraphSpec]:
    return [*_standard(), *(_kronecker(scale) for scale in (22, 23, 24, 25)),
            _file("road-FLA", "road/FLA.gr.xz", "DIMACS road network, Florida"),
            *(_delaunay(scale) for scale in (20, 22, 24))]


#: Suite name -> (graphs, default number of sources).
SUITES: dict[str, tuple[Callable[[], list[GraphSpec]], int]] = {
    "quick": (_quick, 4),
    "standard": (_standard, 16),
    "large": (_large, 16),
}


def suite_graphs(suite: str, only: list[str] | None = None) -> list[GraphSpec]:
    """The graphs of ``suite``, or of them only those named in ``only`` (in suite order)."""
    if suite not in SUITES:
        raise RodiniaBFSError(f"unknown suite {suite!r}; choose one of: {', '.join(SUITES)}")
    specs = SUITES[suite][0]()
    if only:
        names = [spec.name for spec in specs]
        unknown = [name for name in only if name not in names]
        if unknown:
            raise RodiniaBFSError(
                f"suite {suite!r} has no graph {unknown[0]!r}; it has: {', '.join(names)}"
            )
        specs = [spec for spec in specs if spec.name in only]
    return specs


def default_sources(suite: str) -> int:
    """How many BFS sources a suite times by default."""
    return SUITES[suite][1]
