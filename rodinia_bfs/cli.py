"""The ``rodinia-bfs`` command.

::

    rodinia-bfs run [GRAPH] [--source S] [--variant NAME|all] [--backend auto|hip|cuda|cpu]
                    [--validate] [--result-file F]
    rodinia-bfs generate KIND [options] -o FILE
    rodinia-bfs info
    rodinia-bfs bench [--suite quick|standard|large] [--variants LIST] [--backend B]
                      [--sources K] [--graphs LIST] [--json F] [--plot DIR] [--out DIR]

Exit status: 0 on success; 1 with a one-line reason on bad input or a device error;
2 for a usage error; 3 when ``--validate`` finds a wrong result.
"""

from __future__ import annotations

import argparse
import sys
import time
import numpy as np

from rodinia_bfs.errors import RodiniaBFSError, ValidationError

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INVALID = 3


def _say(*parts) -> None:
    print(*parts, flush=True)


def _load_input(args):
    """The graph and default source from GRAPH, or the built-in default graph."""
    from rodinia_bfs.graphs.formats import detect_format, load_graph, load_rodinia
    from rodinia_bfs.graphs.generators import default_graph

    file_source = None
    if args.graph is None:
        graph = default_graph()
    elif detect_format(args.graph) == "rodinia":
        graph, file_source = load_rodinia(args.graph)  # a Rodinia file names its source
    else:
        graph = load_graph(args.graph)
    if args.symmetrize:
        graph = graph.symmetrize()
    source = args.source if args.source is not None else (file_source or 0)
    return graph, source


def _describe_graph(graph, label) -> str:
    kind = "directed" if graph.directed else "undirected"
    return f"{label}: {graph.num_vertices:,} vertices, {graph.num_edges:,} edges ({kind})"


def cmd_run(args) -> int:
    from rodinia_bfs.reference import bfs_reference
    from rodinia_bfs.resultfile import write_result_file
    from rodinia_bfs.validate import check_levels, check_parents
    from rodinia_bfs.variants import STEPS, VARIANT_NAMES, get_step

    graph, source = _load_input(args)
    source = graph.check_source(source)
    _say(_describe_graph(graph, args.graph or f"built-in graph {graph.name}"))

    names = list(VARIANT_NAMES) if args.variant == "all" else [args.variant]
    for name in names:
        if name != "reference":
            get_step(name)  # unknown names fail before any work

    device = None
    if any(name in STEPS for name in names):
        from rodinia_bfs.runtime import choose_backend, get_device

        backend, why = choose_backend(args.backend)
        options = {"warp_size": args.warp_size} if backend == "cpu" and args.warp_size else {}
        device = get_device(backend, **options)
        _say(f"backend {device.describe()} [{why}]")

    t0 = time.perf_counter()
    reference = bfs_reference(graph, source)
    reference_ms = (time.perf_counter() - t0) * 1e3

    failed = []
    written = None
    for name in names:
        if name == "reference":
            levels, parents, elapsed_ms, note = (
                reference.levels, reference.parents, reference_ms, "CPU reference"
            )
        else:
            with get_step(name)(device, graph) as step:
                step.search(source)  # warm-up: the first launch pays for loading the module
                t0 = time.perf_counter()
                result = step.search(source)  # returns after the last level's stream sync
                elapsed_ms = (time.perf_counter() - t0) * 1e3
                levels, parents = step.results()
            note = f"{result.iterations} iterations"
        reached = int(np.count_nonzero(levels >= 0))
        depth = int(levels.max()) + 1 if reached else 0
        status = ""
        if args.validate:
            try:
                check_levels(levels, reference.levels)
                if parents is not None:
                    check_parents(graph, source, levels, parents)
                status = ", validation passed"
            except ValidationError as exc:
                status = f", validation FAILED: {exc}"
                failed.append(name)
        _say(
            f"{name:>10}: source {source}, {reached:,} vertices reached in {depth} levels, "
            f"{elapsed_ms:.3f} ms ({note}){status}"
        )
        if args.result_file and written is None and name not in failed:
            write_result_file(args.result_file, levels)
            written = name
    if written:
        _say(f"result of {written} written to {args.result_file}")
    if failed:
        print(f"rodinia-bfs: validation failed for {', '.join(failed)}", file=sys.stderr)
        return EXIT_INVALID
    return 0


def cmd_generate(args) -> int:
    from rodinia_bfs.graphs.formats import save_graph
    from rodinia_bfs.graphs.generators import GENERATORS

    make = GENERATORS[args.kind]
    options = {"seed": args.seed}
    if args.kind == "rodinia":
        options["num_nodes"] = args.nodes
    elif args.kind == "kronecker":
        options.update(scale=args.scale, edge_factor=args.edge_factor)
    else:
        options.update(rows=args.rows, cols=args.cols if args.cols else args.rows)
    for key, value in options.items():
        if isinstance(value, int) and value < (0 if key == "seed" else 1):
            raise RodiniaBFSError(f"--{key.replace('_', '-')} must be positive, got {value}")
    graph = make(**options)
    save_graph(graph, args.output)
    _say(_describe_graph(graph, f"{args.kind} graph written to {args.output}"))
    return 0


def cmd_info(args) -> int:
    import platform

    import rodinia_bfs
    from rodinia_bfs.kernels import kernel_dir
    from rodinia_bfs.runtime import choose_backend, probe_backends

    _say(f"rodinia-bfs {rodinia_bfs.__version__} (Python {platform.python_version()}, "
         f"numpy {np.__version__})")
    _say(f"kernel sources: {kernel_dir()}")
    _say("backends:")
    for name, (usable, reason) in probe_backends().items():
        _say(f"  {name:5} {'usable' if usable else 'unavailable'}: {reason}")
    try:
        _, why = choose_backend("auto")
        _say(why.split(" (")[0])
    except RodiniaBFSError as exc:
        _say(str(exc))
    return 0


def cmd_bench(args) -> int:
    from rodinia_bfs.bench import main as bench_main

    if args.sources is not None and args.sources < 1:
        raise RodiniaBFSError(f"--sources must be at least 1, got {args.sources}")
    return bench_main(args)


def build_parser() -> argparse.ArgumentParser:
    from rodinia_bfs.variants import VARIANT_NAMES

    parser = argparse.ArgumentParser(
        prog="rodinia-bfs", description="Breadth-first search on the GPU, step by step."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run a BFS variant on a graph file or the built-in graph")
    run.add_argument("graph", nargs="?", help="graph file (.txt Rodinia, .mtx, .gr, edge list, "
                     ".npz; optionally .gz/.xz); default: a built-in 64K-node Rodinia-style graph")
    run.add_argument("--source", type=int, help="source vertex (default: the file's, or 0)")
    run.add_argument("--variant", default="reference", choices=[*VARIANT_NAMES, "all"])
    run.add_argument("--backend", default="auto", choices=["auto", "hip", "cuda", "cpu"])
    run.add_argument("--warp-size", type=int, choices=[32, 64],
                     help="warp size of the cpu backend (default 32)")
    run.add_argument("--validate", action="store_true",
                     help="check the levels (and parents) against the CPU reference")
    run.add_argument("--result-file", help="write Rodinia's result format: 'i) cost:c' per vertex")
    run.add_argument("--symmetrize", action="store_true", help="treat every edge as undirected")
    run.set_defaults(func=cmd_run)

    gen = sub.add_parser("generate", help="write a generated graph to a file")
    gen.add_argument("kind", choices=["rodinia", "kronecker", "grid", "hubs"])
    gen.add_argument("-o", "--output", required=True, help="output file; format from extension")
    gen.add_argument("--nodes", type=int, default=65536, help="rodinia: number of nodes")
    gen.add_argument("--scale", type=int, default=16, help="kronecker: log2 of the vertex count")
    gen.add_argument("--edge-factor", type=int, default=16, help="kronecker: edges per vertex")
    gen.add_argument("--rows", type=int, default=256, help="grid, hubs: rows")
    gen.add_argument("--cols", type=int, default=None, help="grid, hubs: columns (default rows)")
    gen.add_argument("--seed", type=int, default=0)
    gen.set_defaults(func=cmd_generate)

    info = sub.add_parser("info", help="show the backends found and why others are unavailable")
    info.set_defaults(func=cmd_info)

    bench = sub.add_parser(
        "bench", help="time every variant on a suite of graphs, validated against the reference",
        description="Time one BFS from each of K sources on every graph of a suite, after a "
        "warm-up; report median, min and max, GTEPS, speed-up over the CPU reference and a "
        "per-level profile. Every timed run is validated; a wrong result exits with status 3.",
    )
    bench.add_argument("--suite", default="quick", choices=["quick", "standard", "large"],
                       help="quick: small graphs for the cpu backend (CI); standard: the GPU "
                       "suite; large: standard plus Kronecker 22 and 23 (default quick)")
    bench.add_argument("--variants", metavar="LIST",
                       help="comma-separated variants (default: reference and "
                       f"every GPU step); from: {', '.join(VARIANT_NAMES)}")
    bench.add_argument("--backend", default="auto", choices=["auto", "hip", "cuda", "cpu"])
    bench.add_argument("--warp-size", type=int, choices=[32, 64],
                       help="warp size of the cpu backend (default 32)")
    bench.add_argument("--sources", type=int, metavar="K",
                       help="random sources of degree >= 1 per graph (default: 4 for quick, "
                       "16 for standard and large)")
    bench.add_argument("--seed", type=int, default=0, help="seed of the source choice (default 0)")
    bench.add_argument("--graphs", metavar="LIST", help="comma-separated names: only these "
                       "graphs of the suite (e.g. kronecker-20,road-NY)")
    bench.add_argument("--data", metavar="DIR",
                       help="folder of the real graphs (default: ../shared/data of the project)")
    bench.add_argument("--json", metavar="FILE", help="write every figure as JSON")
    bench.add_argument("--plot", metavar="DIR", help="write PNG plots (needs matplotlib)")
    bench.add_argument("--out", metavar="DIR", help="write results.json, table.md, table.csv, "
                       "command.txt and plots/ into DIR (a results folder to commit)")
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except RodiniaBFSError as exc:
        print(f"rodinia-bfs: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("rodinia-bfs: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
