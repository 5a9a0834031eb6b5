"""
Chapter 3: the privatized frontier queue
========================================

What you will learn:

* how step 3 differs from step 2: each block collects the vertices it discovers in a
  queue in shared memory, and reserves room for all of them in the global queue with
  one ``atomicAdd``;
* that the local queue's capacity is a compile-time tunable, and that a block that
  discovers more than it holds sends the rest to the global queue, one ``atomicAdd``
  each: the levels, parents and frontier sizes are the same at any capacity, only the
  number of global atomics changes;
* how the frontier sizes the host reads back every level describe the search, and why
  they decide how much privatization can save;
* how a parent tree is checked with Graph500's five rules.

Two graphs: a Rodinia-style graph with 65,536 vertices and a Graph500 Kronecker graph
of scale 14, each searched from a source other than 0, once with the default local
capacity (``LOCAL_CAPACITY``, six entries per thread) and once with a capacity of 2,
which overflows on almost every level. The kernel is built to count its global atomics
(``count_atomics=True``), and the example prints them for each capacity: block
reservations and overflowing vertices, against step 2's one per discovered vertex.

Run::

    python examples/03_privatized_queue.py [--backend auto|hip|cuda|cpu] [--inject-error]

It ends with ``validation passed`` (exit status 0) or ``validation failed (N errors)``
(exit status 1). ``--inject-error`` changes one level of the first result before it is
checked, to show what a failure looks like.
"""

# [example-begin]
from rodinia_bfs import examples_support as example
from rodinia_bfs.graphs.generators import kronecker, rodinia_graphgen
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.validate import report
from rodinia_bfs.variants.privatized import PrivatizedBFS

#: A local queue this small overflows on nearly every level.
TINY_CAPACITY = 2


def main() -> int:
    parser = example.parser(__doc__)
    args = parser.parse_args()

    device = example.open_device(args.backend)
    defaults = PrivatizedBFS.default_defines(device.warp_size)
    print(f"tunables: {defaults}")

    graphs = [
        (rodinia_graphgen(65536, seed=0), 4242),  # uniform degrees, about ten levels
        (kronecker(14, seed=1, progress=False), 1000),  # skewed degrees, a few huge levels
    ]
    problems = []
    for graph, source in graphs:
        print(f"\ngraph: {graph!r}, source {source}")
        reference = bfs_reference(graph, source)
        first_sizes = None
        for capacity in (defaults["LOCAL_CAPACITY"], TINY_CAPACITY):
            # Set up (compile with -DLOCAL_CAPACITY=... and the atomic counters, upload,
            # allocate), then one BFS.
            with PrivatizedBFS(device, graph, block_size=defaults["BLOCK_SIZE"],
                               local_capacity=capacity, count_atomics=True) as step:
                result = step.run(source)
                atomics = step.last_atomic_counts
            sizes = result.frontier_sizes
            print(f"  local capacity {capacity}: {result.iterations} levels, "
                  f"{sum(sizes):,} vertices reached")
            if first_sizes is None:
                # The same at every capacity (checked below), so printed once.
                first_sizes = sizes
                blocks = [-(-size // step.block_size) for size in sizes]  # ceil-division
                # What level i discovers is level i + 1's frontier.
                found = [nxt / b for nxt, b in zip(sizes[1:] + [0], blocks)]
                print(f"    frontier size per level:       {sizes}")
                print(f"    blocks per launch:             {blocks}")
                print(f"    vertices discovered per block: {[round(f, 1) for f in found]}")
            elif sizes != first_sizes:
                problems.append(f"{graph.name}: frontier sizes at capacity {capacity} "
                                f"differ from those at {defaults['LOCAL_CAPACITY']}")

            # Step 2 makes one global atomicAdd per discovered vertex; this step one per
            # block that found something, plus one per vertex that did not fit.
            discovered = sum(sizes) - 1  # every reached vertex but the source
            overflowed, reserved = atomics["overflowed"], atomics["reserved"]
            print(f"    global atomicAdds: {overflowed + reserved:,} = {reserved:,} block "
                  f"reservations + {overflowed:,} overflows (step 2: {discovered:,})")
            # Every discovered vertex went to the global queue on its own or through
            # its block's local queue, and a reservation copies out 1 to capacity of them.
            local = discovered - overflowed
            if not reserved <= local <= capacity * reserved:
                problems.append(f"{graph.name}, capacity {capacity}: {overflowed} overflows "
                                f"and {reserved} reservations cannot enqueue {discovered} vertices")

            if args.inject_error and not problems:
                example.inject_level_error(result.levels, indent="    ")

            # Levels must equal the reference's; parents only have to form a valid BFS
            # tree, since which frontier vertex wins a claim depends on thread timing.
            example.check_result(problems, f"{graph.name}, capacity {capacity}", graph, source,
                                 result, reference, indent="    ")

    print()
    return report(problems)


if __name__ == "__main__":
    example.run(main)  # a missing GPU or a bad option: one line, exit status 1
