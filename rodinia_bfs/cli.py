"""The ``rodinia-bfs`` command.

::

    rodinia-bfs run [GRAPH] [--source S] [--variant NAME|all] [--backend auto|hip|cuda|cpu]
                    [--validate] [--result-file F] [--format NAME] [--source-base 0|1]
                    [--max-input-size SIZE]
    rodinia-bfs generate KIND [options] -o FILE
    rodinia-bfs info
    rodinia-bfs bench [GRAPH_FILE...] [--suite quick|standard|large] [--variants LIST]
                      [--backend B] [--sources K] [--graphs LIST] [--json F] [--plot DIR]
                      [--out DIR] [--format NAME] [--max-input-size SIZE]
    rodinia-bfs --version

Exit status: 0 on success; 1 with a one-line reason on bad input or a device error;
2 for a usage error; 3 when ``--validate`` (or the bench) finds a wrong result.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from rodinia_bfs.errors import RodiniaBFSError, ValidationError

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INVALID = 3
EXIT_INTERRUPTED = 130

BACKEND_CHOICES = ["auto", "hip", "cuda", "cpu"]


def _say(*parts) -> None:
    print(*parts, flush=True)


def run_main(main, prog: str | None = None) -> int:
    """Call ``main()`` and return its exit status, turning every error a user can cause
    (a bad file, a missing GPU, a folder that cannot be written) into one line on stderr
    and status 1. The command and the examples end this way; the caller exits."""
    prog = prog or Path(sys.argv[0]).name
    try:
        return main()
    except RodiniaBFSError as exc:
        message = str(exc)
    except OSError as exc:  # the file system's answer to a path the user gave
        where = f" {exc.filename}" if exc.filename else ""
        message = f"{exc.strerror or exc}:{where}" if where else str(exc.strerror or exc)
    except MemoryError:
        message = "out of memory"
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(f"{prog}: error: {message}", file=sys.stderr)
    return EXIT_ERROR


# -- run --------------------------------------------------------------------------------

#: The step constructors' parameters that ``run`` options set; a step takes an option
#: exactly when its constructor has the parameter.
STEP_OPTIONS = {"--gpus": "gpus", "--gpu-memory-limit": "memory_limit", "--direction": "direction",
                "--host-edges": "host_edges"}

#: Options that, with no variant named, may send the run to out_of_memory (the memory
#: cap decides after the graph is read: :func:`_for_memory_limit`).
CAP_OPTIONS = ("memory_limit", "host_edges")

#: The most devices the cpu backend emulates for ``--gpus`` (each is a set of threads).
MAX_EMULATED_GPUS = 16


def _takers(parameter: str) -> list[str]:
    """The GPU steps whose constructor takes ``parameter``."""
    import inspect

    from rodinia_bfs.variants import STEPS, get_step

    return [name for name in STEPS
            if parameter in inspect.signature(get_step(name).__init__).parameters]


def _check_step_options(args, chosen) -> dict[str, dict]:
    """The options each chosen variant gets; a one-line error for an option that none of
    them takes, naming the variants that do."""
    options = {name: {} for name in chosen.variants}
    for flag, parameter in STEP_OPTIONS.items():
        value = getattr(args, flag[2:].replace("-", "_"))
        if value is None:
            continue
        takers = _takers(parameter)
        users = [name for name in chosen.variants if name in takers]
        if not users and args.variant is None and parameter in CAP_OPTIONS:
            continue
        if not users:
            raise RodiniaBFSError(f"{flag} is used only by the variant{'s' * (len(takers) > 1)} "
                                  f"{', '.join(takers)}; not by {', '.join(chosen.variants)}")
        for name in users:
            options[name][parameter] = value
    if args.warp_size is not None and chosen.backend is None:
        raise RodiniaBFSError("--warp-size is used only by the GPU steps on the cpu backend; "
                              f"not by {', '.join(chosen.variants)} (give --backend cpu)")
    return options


def _visible_gpus(backend: str) -> int:
    """How many GPUs the hip or cuda backend sees."""
    if backend == "cuda":
        from rodinia_bfs.runtime.cuda_backend import _init_driver

        return _init_driver()
    from rodinia_bfs.runtime.hip_backend import _loading, hip, hip_check

    return _loading(lambda: hip_check(hip.hipGetDeviceCount(), "hipGetDeviceCount"))


def _check_gpus(gpus: int | None, device) -> None:
    """``--gpus`` within what the backend has, checked before the graph is read."""
    if gpus is None or device is None:
        return
    if gpus < 1:
        raise RodiniaBFSError(f"--gpus must be at least 1, got {gpus}")
    if device.backend == "cpu":
        if gpus > MAX_EMULATED_GPUS:
            raise RodiniaBFSError(f"--gpus {gpus}: the cpu backend emulates at most "
                                  f"{MAX_EMULATED_GPUS} devices")
        return
    visible = _visible_gpus(device.backend)
    if gpus > visible:
        raise RodiniaBFSError(f"--gpus {gpus}: only {visible} {device.backend} GPU"
                              f"{'s are' if visible != 1 else ' is'} visible")


def _load_input(args):
    """The graph and the source (a CSR index) from GRAPH, or the built-in default graph,
    and the line that says how its vertices are numbered (``None`` for the built-in graph)."""
    from rodinia_bfs.graphs.formats import (FILE_BASE, detect_format, keep_vertex_ids,
                                            load_graph, load_rodinia)
    from rodinia_bfs.graphs.generators import default_graph

    file_source, numbering = None, None
    if args.graph is None:
        graph = default_graph()
    else:
        reader = detect_format(args.graph, args.format)
        if reader == "rodinia":  # a Rodinia file names its source
            graph, file_source = load_rodinia(args.graph, max_input_size=args.max_input_size)
        else:
            graph = load_graph(args.graph, fmt=args.format, max_input_size=args.max_input_size)
    if args.symmetrize:
        graph = keep_vertex_ids(graph.symmetrize(), graph)
    source = _source_index(graph, args, file_source)
    if args.graph is not None:
        numbering = _numbering(graph, FILE_BASE[reader], args.source_base, reader, source)
    return graph, source, numbering


def _numbering(graph, file_base: int, base: int, reader: str, source: int) -> str:
    """How the run speaks of vertices, against how the file does, in one line."""
    if graph.vertex_ids is not None:
        if base != 0:
            raise RodiniaBFSError("--source-base: this edge list's sparse ids were renumbered, "
                                  "and --source and the result file use the file's own ids")
        return (f"vertex ids: the file's own (sparse: renumbered 0..{graph.num_vertices - 1} "
                "inside); --source and the result file use the file's ids")
    if base == file_base:
        return f"vertices numbered from {base}, as in the {reader} file"
    return (f"vertices numbered from {base}; the {reader} file numbers them from {file_base}: "
            f"source {source + base} = vertex {source + file_base} of the file")


def _vertex_name(graph, base: int, v: int) -> int:
    """What the user calls CSR vertex ``v``."""
    return int(graph.vertex_ids[v]) if graph.vertex_ids is not None else v + base


def _source_index(graph, args, file_source) -> int:
    """The CSR index of the source: ``--source`` in the user's numbering, else the
    Rodinia file's source, else vertex 0."""
    if args.source is None:
        return graph.check_source(file_source or 0)
    given, ids, base = args.source, graph.vertex_ids, args.source_base
    if ids is not None:
        k = int(np.searchsorted(ids, given))
        if k == ids.size or ids[k] != given:
            raise RodiniaBFSError(f"source {given} is not a vertex id of the file")
        return k
    n = graph.num_vertices
    if not base <= given < n + base:
        where = f"{base}..{n - 1 + base}" if n else "it has no vertices"
        raise RodiniaBFSError(f"source {given} is outside the graph ({where})")
    return graph.check_source(given - base)


def _for_memory_limit(args, graph, variants, device) -> list:
    """With --gpu-memory-limit and no variant named, a graph whose edges do not fit runs
    on out_of_memory (step 9); --host-edges is for that step only."""
    from rodinia_bfs.variants.out_of_memory import choose_for_memory

    if args.variant is None and args.gpu_memory_limit is not None and device is not None:
        name, why = choose_for_memory(graph, args.gpu_memory_limit)
        if name:
            _say(f"variant: {why}")
            variants = [name]
    if args.host_edges and "out_of_memory" not in variants:
        raise RodiniaBFSError("--host-edges is an option of the out_of_memory variant")
    return variants


def cmd_run(args) -> int:
    from rodinia_bfs.api import plan, run_variant
    from rodinia_bfs.resultfile import write_result_file
    from rodinia_bfs.safe_output import check_output
    from rodinia_bfs.validate import validate_result

    # Every check that needs no graph comes first: a wrong output path, a flag the
    # variant does not take, a missing GPU or too many GPUs fail at once, not after a
    # long load or search.
    if args.result_file:
        check_output(args.result_file, inputs=[args.graph], what="result file ")
    chosen = plan(args.variant, args.backend)
    options = _check_step_options(args, chosen)
    device, why = chosen.open(warp_size=args.warp_size)
    if "multi_gpu" in chosen.variants:
        _check_gpus(args.gpus, device)
    if device is not None:
        _say(f"backend {device.describe()} [{why}]")
    if chosen.variant_reason:
        hint = ""
        if args.variant is None and chosen.backend is None:  # no GPU: the reference runs
            hint = " (--backend cpu runs the GPU steps on the emulator)"
        _say(f"variant: {chosen.variant_reason}{hint}")

    graph, source, numbering = _load_input(args)
    _say(f"{args.graph or f'built-in graph {graph.name}'}: {graph.describe()} "
         "(duplicate edges and self loops kept, as listed)")
    if numbering:
        _say(numbering)
    shown_source = _vertex_name(graph, args.source_base, source)

    variants = _for_memory_limit(args, graph, chosen.variants, device)
    reference = None  # computed only for --validate (or when it is the variant run)
    failed, written = [], None
    for name in variants:
        step_options = options.get(name)
        if step_options is None:  # out_of_memory, chosen by the memory cap
            step_options = {"memory_limit": args.gpu_memory_limit}
            if args.host_edges:
                step_options["host_edges"] = args.host_edges
        result, elapsed_ms = run_variant(name, graph, source, device, warm_up=True,
                                         **step_options)
        levels, parents = result.levels, result.parents
        if name == "reference":
            reference, note = result, "CPU reference"
        else:
            note = f"{result.iterations} iterations"
        reached = int(np.count_nonzero(levels >= 0))
        depth = int(levels.max()) + 1 if reached else 0
        status = ""
        if args.validate:
            try:
                reference = validate_result(graph, source, levels, parents, reference)
                status = ", validation passed"
            except ValidationError as exc:
                status = f", validation FAILED: {exc}"
                failed.append(name)
        _say(
            f"{name:>10}: source {shown_source}, {reached:,} vertices reached in {depth} levels, "
            f"{elapsed_ms:.3f} ms ({note}){status}"
        )
        if args.result_file and written is None and name not in failed:
            write_result_file(args.result_file, levels, base=args.source_base,
                              ids=graph.vertex_ids)
            written = name
    if written:
        _say(f"result of {written} written to {args.result_file}")
    if failed:
        print(f"rodinia-bfs: validation failed for {', '.join(failed)}", file=sys.stderr)
        return EXIT_INVALID
    return 0


# -- generate -----------------------------------------------------------------------------

#: ``generate`` options -> the generator's parameter names.
GENERATE_OPTIONS = {"nodes": "num_nodes", "scale": "scale", "edge_factor": "edge_factor",
                    "rows": "rows", "cols": "cols", "seed": "seed"}


def cmd_generate(args) -> int:
    from rodinia_bfs.graphs.formats import detect_format, save_graph
    from rodinia_bfs.graphs.generators import GENERATORS, GeneratorError

    from rodinia_bfs.safe_output import check_output

    # an unknown extension or an output that cannot be written fails before the graph is made
    detect_format(args.output)
    check_output(args.output)
    generator = GENERATORS[args.kind]
    wanted = {p.name for p in generator.parameters}
    options = {}
    for option, parameter in GENERATE_OPTIONS.items():
        value = getattr(args, option)
        if parameter not in wanted or value is None:
            continue
        if value < (0 if option == "seed" else 1):
            least = "0 or more" if option == "seed" else "positive"
            raise RodiniaBFSError(f"--{option.replace('_', '-')} must be {least}, got {value}")
        options[parameter] = value
    if args.kind in ("grid", "hubs") and "cols" not in options:
        options["cols"] = options["rows"]
    try:
        graph = generator(**options)
    except GeneratorError as exc:  # it names its parameters; say the options instead
        message = str(exc)
        for option, parameter in GENERATE_OPTIONS.items():
            message = message.replace(f"{parameter}=", f"--{option.replace('_', '-')} ")
        raise RodiniaBFSError(message) from None
    save_graph(graph, args.output)
    _say(f"{args.kind} graph written to {args.output}: {graph.describe()}")
    return 0


def _generate_description() -> str:
    from rodinia_bfs.graphs.formats import EXTENSIONS
    from rodinia_bfs.graphs.generators import GENERATORS

    kinds = "\n".join(f"  {kind:10} {g.summary}" for kind, g in GENERATORS.items())
    by_format: dict[str, list[str]] = {}
    for extension, reader in EXTENSIONS.items():
        by_format.setdefault(reader, []).append(extension)
    names = {"rodinia": "Rodinia text, vertices from 0",
             "mtx": "MatrixMarket (symmetric when undirected), vertices from 1",
             "gr": "PACE 'p tw' when undirected, DIMACS 'p sp' when directed, from 1",
             "edgelist": "edge list, one 'u v' per line, vertices from 0",
             "npz": "NumPy binary (CSR)"}
    formats = "\n".join(f"  {' '.join(exts):32} {names[reader]}"
                        for reader, exts in by_format.items())
    return (
        "Generate a seeded, reproducible graph and write it to FILE.\n\n"
        f"kinds:\n{kinds}\n\n"
        f"output formats, chosen by FILE's extension (add .gz or .xz to compress):\n{formats}"
    )


def _formats_table() -> str:
    """One line per format: its name for --format, its extensions, how it numbers vertices."""
    from rodinia_bfs.graphs.formats import EXTENSIONS

    by_format: dict[str, list[str]] = {}
    for extension, reader in EXTENSIONS.items():
        by_format.setdefault(reader, []).append(extension)
    what = {
        "rodinia": "Rodinia text; vertices from 0\n"
                   "            (a .txt that opens with # or % comments is an edge list)",
        "mtx": "MatrixMarket; vertices from 1",
        "gr": "DIMACS 'p sp' or PACE 'p tw'; vertices from 1\n"
              "            (--format dimacs or pace: the same reader)",
        "edgelist": "SNAP edge list 'u v'; ids as written, from 0\n"
                    "            (sparse ids renumbered, see below)",
        "npz": "NumPy binary CSR; vertices from 0",
    }
    return "\n".join(f"  {reader:9} {' '.join(exts)}: {what[reader]}"
                     for reader, exts in by_format.items())


def _run_description() -> str:
    from rodinia_bfs.graphs.formats import DENSE_IDS, SPARSE_RATIO

    return (
        "Run a BFS variant on a graph file or the built-in graph.\n\n"
        "formats (--format NAME when the extension does not tell; add .gz or .xz to compress):\n"
        f"{_formats_table()}\n\n"
        "vertex numbering: --source, the printed source and the result file count from 0\n"
        "  (--source-base 1: from 1, the ids of .mtx and .gr files); the output says which\n"
        "  vertex of the file the source is. An edge list keeps its ids unless they are\n"
        f"  sparse (largest id >= {DENSE_IDS} and more than {SPARSE_RATIO} times the number\n"
        "  of distinct ids): then they are renumbered inside, in increasing order, and\n"
        "  --source, the output and the result file use the file's own ids.\n\n"
        "edges are counted as the file lists them: duplicate edges and self loops are kept\n"
        "  and counted; an undirected edge is two arcs, a self loop one.\n\n"
        "input: only regular files are read (not FIFOs or devices), and at most\n"
        "  --max-input-size bytes of them, decompressed. Outputs are checked before any\n"
        "  work, never written over an input, and written whole or not at all."
    )


# -- info -------------------------------------------------------------------------------

def cmd_info(args) -> int:
    import platform

    import rodinia_bfs
    from rodinia_bfs.api import DEFAULT_VARIANT
    from rodinia_bfs.kernels import kernel_dir
    from rodinia_bfs.rocm import check_hip_python
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
    _say(f"default GPU step: {DEFAULT_VARIANT}")
    for line in check_hip_python():
        _say(line)
    return 0


def cmd_bench(args) -> int:
    from rodinia_bfs.bench import main as bench_main

    from rodinia_bfs.graphs.formats import reading_options
    from rodinia_bfs.safe_output import check_output, check_output_dir

    if args.sources is not None and args.sources < 1:
        raise RodiniaBFSError(f"--sources must be at least 1, got {args.sources}")
    # The outputs are checked before anything is measured (an hour of measuring must not
    # end on a typo), and none may be one of the graph files.
    inputs = list(args.files)
    if args.json:
        check_output(args.json, inputs=inputs, what="--json ")
    if args.plot:
        check_output_dir(args.plot, inputs=inputs, names=BENCH_PLOTS, what="--plot ")
    if args.out:
        check_output_dir(args.out, inputs=inputs, names=BENCH_FILES, what="--out ")
    if args.format and not args.files:
        raise RodiniaBFSError("--format names the format of the GRAPH_FILEs: give some")
    with reading_options(formats={f: args.format for f in args.files},
                         max_input_size=args.max_input_size):
        return bench_main(args)


#: What ``bench --out DIR`` writes into DIR (plots/ aside), and ``--plot DIR`` always.
BENCH_FILES = ("results.json", "table.md", "table.csv", "command.txt")
BENCH_PLOTS = ("gteps.png", "frontier.png")


# -- the parser -------------------------------------------------------------------------

class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """A description with lines of its own is kept as written, others are wrapped;
    every option's help ends with its default, unless the help already says it."""

    def _fill_text(self, text, width, indent):
        if "\n" in text:
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)

    def _get_help_string(self, action):
        text = action.help or ""
        if "default" in text or action.option_strings == [] or action.default is argparse.SUPPRESS:
            return text
        if isinstance(action, argparse._StoreTrueAction):
            return f"{text} (default: off)"
        if action.default is not None:
            return f"{text} (default: %(default)s)"
        return text


class ArgumentParser(argparse.ArgumentParser):
    """argparse with a usage error on one line (the reason and where to read more),
    like every other error of the command; exit status 2."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    import rodinia_bfs
    from rodinia_bfs.api import DEFAULT_VARIANT
    from rodinia_bfs.variants import VARIANT_NAMES
    from rodinia_bfs.graphs.formats import FORMATS
    from rodinia_bfs.variants.multi_gpu import DIRECTIONS, size
    from rodinia_bfs.variants.out_of_memory import MODES as HOST_EDGE_MODES

    parser = ArgumentParser(
        prog="rodinia-bfs", description="Breadth-first search on the GPU, step by step.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version",
                        version=f"rodinia-bfs {rodinia_bfs.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name, help, description=None):
        return sub.add_parser(name, help=help, description=description or help[:1].upper() + help[1:],
                              formatter_class=HelpFormatter)

    backend_help = ("where GPU steps run: auto (an AMD GPU, else an NVIDIA GPU, else the cpu "
                    "emulator), hip, cuda or cpu")
    warp_help = "warp size of the cpu emulator, 32 or 64 (default: 32); GPUs have their own"

    format_help = (f"the format of GRAPH when its extension does not tell: {', '.join(FORMATS)} "
                   "(default: from the extension; see above)")
    input_help = ("stop reading a graph file whose bytes (decompressed) pass SIZE, e.g. 2GiB "
                  "(default: a quarter of the memory available when it is read)")
    run = command("run", "run a BFS variant on a graph file or the built-in graph",
                  _run_description())
    run.add_argument("graph", nargs="?", metavar="GRAPH",
                     help="graph file (.txt Rodinia, .mtx, .gr, edge list, .npz; optionally "
                     ".gz/.xz); default: a built-in 64K-node Rodinia-style graph")
    run.add_argument("--source", type=int,
                     help="source vertex, counted from --source-base (the file's own id for an "
                     "edge list with renumbered ids) (default: the Rodinia file's, or the "
                     "first vertex)")
    run.add_argument("--source-base", type=int, choices=[0, 1], default=0,
                     help="count vertices from 0 or 1 in --source, the output and the result "
                     "file; 1 speaks the ids of .mtx and .gr files")
    run.add_argument("--format", choices=FORMATS, metavar="NAME", help=format_help)
    run.add_argument("--max-input-size", type=size, metavar="SIZE", help=input_help)
    run.add_argument("--variant", choices=[*VARIANT_NAMES, "all"], metavar="NAME",
                     help=f"what to run: {', '.join(VARIANT_NAMES)} or all (default: "
                     f"{DEFAULT_VARIANT}, the default GPU step, when a GPU is found or "
                     "--backend is given; else the CPU reference)")
    run.add_argument("--backend", default="auto", choices=BACKEND_CHOICES, help=backend_help)
    run.add_argument("--warp-size", type=int, choices=[32, 64], help=warp_help)
    run.add_argument("--validate", action="store_true",
                     help="check the levels (and parents) against the CPU reference")
    run.add_argument("--result-file", metavar="FILE",
                     help="write Rodinia's result format, 'i) cost:c' per vertex, after a "
                     "comment line that states the numbering; never over GRAPH (default: none)")
    run.add_argument("--symmetrize", action="store_true",
                     help="make the graph undirected: add v -> u to every arc u -> v without one")
    run.add_argument("--gpus", type=int, metavar="N",
                     help="multi_gpu: GPUs to use, at most those visible (default: every "
                          "visible GPU; 2 emulated devices on the cpu backend, at most "
                          f"{MAX_EMULATED_GPUS})")
    run.add_argument("--gpu-memory-limit", type=size, metavar="SIZE",
                     help="multi_gpu: bytes each GPU may use, e.g. 8GiB (default: all it has)")
    run.add_argument("--host-edges", choices=HOST_EDGE_MODES, metavar="MODE",
                     help="out_of_memory: how levels reach the edges in host memory: "
                          f"{', '.join(HOST_EDGE_MODES)} (default: {HOST_EDGE_MODES[0]})")
    run.add_argument("--direction", choices=DIRECTIONS,
                     help=f"{', '.join(_takers('direction'))}: push (top-down levels), pull "
                          "(bottom-up levels) or auto (direction-optimizing: Beamer's rule) "
                          "(default: auto for push_pull and adaptive, push for multi_gpu)")
    run.set_defaults(func=cmd_run)

    gen = command("generate", "write a generated graph to a file", _generate_description())
    gen.add_argument("kind", choices=["rodinia", "kronecker", "grid", "hubs", "delaunay"],
                     metavar="KIND", help="rodinia, kronecker, grid, hubs or delaunay (see above)")
    gen.add_argument("-o", "--output", required=True, metavar="FILE",
                     help="output file; its extension chooses the format (required)")
    gen.add_argument("--nodes", type=int, default=65536, help="rodinia: number of nodes")
    gen.add_argument("--scale", type=int, default=16,
                     help="kronecker, delaunay: log2 of the vertex count")
    gen.add_argument("--edge-factor", type=int, default=16,
                     help="kronecker: undirected edges per vertex")
    gen.add_argument("--rows", type=int, default=256, help="grid, hubs: rows")
    gen.add_argument("--cols", type=int, help="grid, hubs: columns (default: --rows)")
    gen.add_argument("--seed", type=int, default=0,
                     help="seed of the random generator (same seed, same graph)")
    gen.set_defaults(func=cmd_generate)

    info = command("info", "show the backends found and why others are unavailable")
    info.set_defaults(func=cmd_info)

    bench = command(
        "bench", "time every variant on a suite of graphs or on your files, validated",
        "Time one BFS from each of K sources on every graph of a suite and on the GRAPH_FILEs "
        "given, after a warm-up; report median, min and max, GTEPS (two ways), speed-up over "
        "the CPU reference and a per-level profile. Every timed run is validated; a wrong "
        "result exits with status 3, a run that measured nothing with status 1.",
    )
    bench.add_argument("files", nargs="*", metavar="GRAPH_FILE",
                       help="graph files to measure besides (or instead of) a suite")
    bench.add_argument("--suite", choices=["quick", "standard", "large"],
                       help="quick: small graphs for the cpu backend (CI); standard: the GPU "
                       "suite; large: standard plus Kronecker 22 to 25, each where it fits "
                       "(default: quick, or none when GRAPH_FILEs are given)")
    bench.add_argument("--variants", metavar="LIST",
                       help="comma-separated variants (default: reference and "
                       f"every GPU step); from: {', '.join(VARIANT_NAMES)}")
    bench.add_argument("--backend", default="auto", choices=BACKEND_CHOICES, help=backend_help)
    bench.add_argument("--warp-size", type=int, choices=[32, 64], help=warp_help)
    bench.add_argument("--sources", type=int, metavar="K",
                       help="random sources of degree >= 1 per graph (default: 4 for quick, "
                       "16 for standard and large; for GRAPH_FILEs alone 16 on a GPU, 4 on "
                       "the cpu emulator)")
    bench.add_argument("--seed", type=int, default=0, help="seed of the source choice")
    bench.add_argument("--graphs", metavar="LIST", help="comma-separated names: only these "
                       "graphs of the suite, e.g. kronecker-20,road-NY (default: all)")
    bench.add_argument("--data", metavar="DIR",
                       help="folder of the real graphs (default: ../shared/data of the project)")
    bench.add_argument("--format", choices=FORMATS, metavar="NAME",
                       help="the format of the GRAPH_FILEs when their extension does not tell: "
                       f"{', '.join(FORMATS)} (default: from the extension)")
    bench.add_argument("--max-input-size", type=size, metavar="SIZE", help=input_help)
    bench.add_argument("--json", metavar="FILE", help="write every figure as JSON (default: none)")
    bench.add_argument("--plot", metavar="DIR",
                       help="write PNG plots, needs matplotlib (default: none)")
    bench.add_argument("--out", metavar="DIR", help="write results.json, table.md, table.csv, "
                       "command.txt and plots/ into DIR, a results folder to commit (default: none)")
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return run_main(lambda: args.func(args), "rodinia-bfs")


if __name__ == "__main__":
    sys.exit(main())
