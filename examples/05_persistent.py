"""
Chapter 5: one launch, many levels
==================================

What you will learn:

* how the basic kernel of step 5 (``persistent_basic``) runs a whole BFS in one
  cooperative launch: step 2's expansion, a thread per frontier vertex, with a grid-wide
  barrier after each level, and the host waiting once;
* how the tuned step 5 runs a whole BFS on the device: one block runs level after level while the
  frontier fits its shared memory, and a cooperative launch of the whole grid, with a
  grid-wide barrier between levels, takes the levels whose frontier is too large;
* that the host waits for the device once per search (once per batch of kernels), where
  steps 1 to 4 wait once per level: hundreds of times on a mesh or a road network;
* which kernel ran each level, from the device's own per-level record (``profile=True``),
  and how a frontier that grows hands over from the block to the grid and back;
* that the result is the same whichever kernel ran a level, at warp size 32 or 64.

The basic kernel searches the first two graphs below. Then the tuned step, on three
graphs: a 256 x 256 grid (a mesh with hundreds of levels, all small: the single
block runs them all), a Graph500 Kronecker graph of scale 14 (a frontier of thousands of
vertices in the middle levels: the grid takes those), and the same grid again with a
single block of small queues (64 entries), so that the search goes from one kernel to
the other and back. Each is searched from a source other than 0.

Run::

    python examples/05_persistent.py [--backend auto|hip|cuda|cpu] [--inject-error]

It ends with ``validation passed`` (exit status 0) or ``validation failed (N errors)``
(exit status 1). ``--inject-error`` changes one level of the first result before it is
checked, to show what a failure looks like.
"""

# [example-begin]
from rodinia_bfs import examples_support as example
from rodinia_bfs.graphs.generators import grid2d, kronecker
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.validate import report
from rodinia_bfs.variants.persistent import PersistentBFS
from rodinia_bfs.variants.persistent_basic import PersistentBasicBFS


def runs_of(kernels):
    """["single", "single", "grid"] -> "levels 0-1: single, level 2: grid"."""
    parts, start = [], 0
    for level in range(1, len(kernels) + 1):
        if level == len(kernels) or kernels[level] != kernels[start]:
            span = f"level {start}" if level - 1 == start else f"levels {start}-{level - 1}"
            parts.append(f"{span}: {kernels[start]}")
            start = level
    return ", ".join(parts)


def main() -> int:
    parser = example.parser(__doc__)
    args = parser.parse_args()

    device = example.open_device(args.backend)
    print(f"tunables: {PersistentBFS.default_defines(device.warp_size)}")

    grid = grid2d(256, 256)
    runs = [
        (grid, 300, {}),  # every level fits the single block
        (kronecker(14, seed=1, progress=False), 1000, {}),  # the widest levels go to the grid
        # Queues of 64 entries for the single block: the search goes to the grid when
        # the frontier grows past 64 vertices, and back when it shrinks to 32.
        (grid, 300, {"sb_capacity": 64}),
    ]
    problems = []
    # The basic kernel first: one launch of the whole grid, a barrier between levels.
    for graph, source, _ in runs[:2]:
        print(f"\ngraph: {graph!r}, source {source}, the basic kernel")
        with PersistentBasicBFS(device, graph) as step:
            result = step.run(source)
            print(f"  one cooperative launch of {step.grid_blocks} blocks of {step.block_size} "
                  f"threads ran {result.iterations} levels; the host waited once")
        if args.inject_error and not problems:
            example.inject_level_error(result.levels, vertex=source)
        example.check_result(problems, graph.name, graph, source, result,
                             bfs_reference(graph, source))

    for graph, source, options in runs:
        print(f"\ngraph: {graph!r}, source {source}, options {options or 'default'}")
        reference = bfs_reference(graph, source)
        # Set up (plan the shared memory, compile, upload, allocate), then one BFS with
        # the per-level record of the device.
        with PersistentBFS(device, graph, **options) as step:
            print(f"  single block: {step.sb_block_size} threads, queues of {step.sb_capacity} "
                  f"entries, visited bitmap in {'shared' if step.shared_bitmap else 'global'} "
                  f"memory; grid: {step.grid_blocks} blocks of {step.block_size} threads")
            # A graph of small degrees is read as rows, and what the block finds goes to
            # a log that persistent_flush writes out (chapter 5).
            print(f"  the graph read as {f'rows of {step.row_width}' if step.row_width else 'lists'}"
                  f"{', finds logged' if step.log else ''}")
            result = step.run(source, profile=True)
            kernels = step.last_profile["kernel"]  # which kernel ran each level
            # How the single block expanded each of its levels: "row", "warp" or "edge".
            expanded = sorted({e for k, e in zip(kernels, step.last_profile["expansion"])
                               if k == "single"})
            waits = step.last_host_waits
        switches = sum(a != b for a, b in zip(kernels, kernels[1:]))
        print(f"  {result.iterations} levels; {runs_of(kernels)}; the single block's levels "
              f"expanded by {', '.join(expanded) or '-'}")
        print(f"  {switches} switches between the kernels; the host waited {waits} time(s) "
              f"(steps 1 to 4 wait once per level: {result.iterations} times)")
        sizes = step.last_profile["entries"]  # queue entries per level, counted on the device
        widest = max(range(len(sizes)), key=sizes.__getitem__)
        print(f"  widest level: {widest}, {sizes[widest]:,} queue entries ({kernels[widest]})")

        if args.inject_error and not problems:
            example.inject_level_error(result.levels, vertex=source)

        # Levels equal to the reference's, and a parent tree that passes Graph500's rules
        # (which vertex of the frontier claims a vertex first depends on thread timing).
        example.check_result(problems, graph.name, graph, source, result, reference)

    print()
    return report(problems)


if __name__ == "__main__":
    example.run(main)  # a missing GPU or a bad option: one line, exit status 1
