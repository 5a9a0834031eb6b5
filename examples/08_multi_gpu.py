"""
Chapter 8: BFS over several GPUs
================================

What you will learn:

* how a partition policy cuts a graph for several GPUs (CuSP's terms: a master
  partition for every vertex, an owner for every edge), and what each policy costs in
  mirrors (vertex copies), edges per GPU and bytes exchanged;
* how one process drives every GPU: a level is a top-down expansion on each GPU over
  the edges it owns, then one collective (an all-gather of bitmaps) so that every GPU
  knows what the others found;
* how long each level spends computing and exchanging (``profile=True``);
* how a memory limit per GPU refuses a graph on one GPU and runs it on two.

On the cpu backend the GPUs are emulated devices in this process and the collective is
an in-process stand-in; on NVIDIA GPUs it is NCCL, on AMD GPUs RCCL. The graph is a
Graph500 Kronecker graph of scale 12, searched from its vertex of largest degree.

Run::

    python examples/08_multi_gpu.py [--backend auto|hip|cuda|cpu] [--gpus N] [--inject-error]

It ends with ``validation passed`` (exit status 0) or ``validation failed (N errors)``
(exit status 1). ``--inject-error`` changes one level of the first result before it is
checked, to show what a failure looks like.
"""

# [example-begin]
import numpy as np

from rodinia_bfs.errors import DeviceError, RodiniaBFSError
from rodinia_bfs import examples_support as example
from rodinia_bfs.graphs.generators import kronecker
from rodinia_bfs.partition import POLICIES, partition
from rodinia_bfs.reference import bfs_reference
from rodinia_bfs.validate import report
from rodinia_bfs.variants.multi_gpu import MultiGpuBFS, format_size


def main() -> int:
    parser = example.parser(__doc__)
    parser.add_argument("--gpus", type=int, default=None,
                        help="GPUs to use (default: every visible GPU; 2 emulated on cpu)")
    args = parser.parse_args()

    device = example.open_device(args.backend)
    graph = kronecker(12, seed=1, progress=False)
    source = int(np.argmax(graph.degrees()))
    print(f"graph: {graph!r}, source {source}")

    # What each policy costs, computed on the host before anything runs on a GPU.
    print("\npartition plans: edges per partition, mirrors, bytes exchanged")
    for parts in (2, 4):
        for policy in POLICIES:
            s = partition(graph, parts, policy).summary()
            print(f"  {policy} x{parts}: edges {s['edges_per_part']}, mirrors "
                  f"{sum(s['mirrors_per_part']):,} (replication {s['replication_factor']:.2f}), "
                  f"bitmap {s['bitmap_bytes_per_level']:,} B/level, "
                  f"queue ~{s['queue_bytes_per_search']:,} B/search")

    reference = bfs_reference(graph, source)
    problems = []
    with MultiGpuBFS(device, graph, gpus=args.gpus) as step:
        library = step.collective.name if step.collective else "none (one GPU)"
        print(f"\n{step.num_gpus} x {device.name}, collective: {library}")
        result = step.run(source, profile=True)
    print(f"  {result.iterations} levels; per level: compute and exchange (ms, slowest GPU)")
    for level, (c, x) in enumerate(zip(result.compute_times_ms, result.exchange_times_ms)):
        reached = int(np.count_nonzero(reference.levels == level))
        print(f"    level {level}: {reached:>5,} vertices, compute {c:8.3f}, exchange {x:8.3f}")

    if args.inject_error:
        example.inject_level_error(result.levels)
    # Levels must equal the reference's; parents only have to form a valid BFS tree.
    example.check_result(problems, graph.name, graph, source, result, reference)

    # A memory limit between what one GPU and what each of two GPUs needs.
    [one] = MultiGpuBFS.memory_per_gpu(graph, 1, warp_size=device.warp_size)
    two = max(MultiGpuBFS.memory_per_gpu(graph, 2, warp_size=device.warp_size))
    limit = (one + two) // 2
    print(f"\nmemory per GPU: {format_size(one)} on one GPU, {format_size(two)} on each of "
          f"two; limit {format_size(limit)}")
    try:
        MultiGpuBFS(device, graph, gpus=1, memory_limit=limit).close()
        problems.append("one GPU accepted a graph larger than its memory limit")
    except RodiniaBFSError as exc:
        print(f"  one GPU: refused ({exc})")
    try:
        with MultiGpuBFS(device, graph, gpus=2, memory_limit=limit) as step:
            capped = step.run(source)
    except DeviceError as exc:  # a machine with one GPU
        print(f"  two GPUs: not run ({exc})")
        capped = None
    if capped is not None:
        example.check_result(problems, f"{graph.name} on two GPUs under the limit", graph,
                             source, capped, reference,
                             ok=f"{example.LEVELS_AND_TREE_OK} (two GPUs)")

    print()
    return report(problems)


if __name__ == "__main__":
    example.run(main)  # a missing GPU or a bad option: one line, exit status 1
