"""
Chapter 1: the Rodinia two-kernel BFS
=====================================

What you will learn:

* how to run a GPU step: pick a device (``hip``, ``cuda`` or the ``cpu`` emulator), set
  the step up once per graph (compile, upload, allocate), then run one BFS per source;
* that the host loop of the Rodinia BFS goes round once per level: Kernel1 expands the
  frontier, Kernel2 builds the next one and raises ``g_over``, and ``g_over`` comes back
  through pinned memory after every level;
* how a GPU result is checked against the CPU reference of chapter 0.

The graph is Rodinia-style with 65,536 vertices, like the inputs Rodinia ships, and the
search starts from a vertex other than 0.

Run::

    python examples/01_rodinia_two_kernel.py [--backend auto|hip|cuda|cpu] [--inject-error]

It ends with ``validation passed`` (exit status 0) or ``validation failed (N errors)``
(exit status 1). ``--inject-error`` changes one level of the GPU result before it is
checked, to show what a failure looks like.
"""

# [example-begin]
import numpy as np

from rodinia_bfs import examples_support as example
from rodinia_bfs.graphs.generators import rodinia_graphgen
from rodinia_bfs.validate import report
from rodinia_bfs.variants.rodinia import RodiniaBFS


def main() -> int:
    parser = example.parser(__doc__)
    args = parser.parse_args()

    # The graph: 65,536 vertices, 2 to 4 random edges each, stored both ways.
    graph = rodinia_graphgen(65536, seed=0)
    source = 4242
    print(f"graph: {graph!r}, source {source}")

    device = example.open_device(args.backend)

    # Step 1: compile Kernel1/Kernel2 for this device, upload the CSR arrays, allocate
    # the masks; then one BFS. close() (the with block) frees the device memory.
    with RodiniaBFS(device, graph) as step:
        print(f"launch: {step.grid} blocks of {step.block_size} threads, two kernels per level")
        result = step.run(source)
    levels = result.levels
    reached = levels >= 0
    depth = int(levels.max()) + 1
    print(f"rodinia: {result.iterations} iterations of the host loop, {depth} levels, "
          f"{np.count_nonzero(reached):,} vertices reached")
    print(f"  vertices per level: {np.bincount(levels[reached]).tolist()}")

    if args.inject_error:
        example.inject_level_error(levels, vertex=(source + 1) % graph.num_vertices)

    # The check: every level exactly as the CPU reference has it, -1 included (this
    # step computes no parents, so there is no tree to check).
    problems = []
    example.check_result(problems, "", graph, source, result, ok="levels == CPU reference levels")
    # The host loop runs once per level: the last round discovers nothing.
    if result.iterations != depth:
        problems.append(f"{result.iterations} iterations for {depth} levels")

    return report(problems)


if __name__ == "__main__":
    example.run(main)  # a missing GPU or a bad option: one line, exit status 1
