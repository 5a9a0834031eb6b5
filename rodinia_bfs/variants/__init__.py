"""The steps of the tutorial, by the names the command line uses.

``reference`` is the CPU reference BFS; the others are GPU steps that run on any
backend (hip, cuda, or the cpu emulator).
"""

from __future__ import annotations

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.variants.adaptive import AdaptiveBFS
from rodinia_bfs.variants.adaptive_basic import AdaptiveBasicBFS
from rodinia_bfs.variants.balanced import BalancedBFS
from rodinia_bfs.variants.base import GPUStep
from rodinia_bfs.variants.edge_centric import EdgeCentricBFS
from rodinia_bfs.variants.multi_gpu import MultiGpuBFS
from rodinia_bfs.variants.out_of_memory import OutOfMemoryBFS
from rodinia_bfs.variants.persistent import PersistentBFS
from rodinia_bfs.variants.persistent_basic import PersistentBasicBFS
from rodinia_bfs.variants.privatized import PrivatizedBFS
from rodinia_bfs.variants.push_pull import PushPullBFS
from rodinia_bfs.variants.push_pull_basic import PushPullBasicBFS
from rodinia_bfs.variants.queue import QueueBFS
from rodinia_bfs.variants.rodinia import RodiniaBFS

# [steps-registry-begin]
#: GPU steps in tutorial order.
STEPS: dict[str, type[GPUStep]] = {
    RodiniaBFS.name: RodiniaBFS,
    QueueBFS.name: QueueBFS,
    PrivatizedBFS.name: PrivatizedBFS,
    BalancedBFS.name: BalancedBFS,
    EdgeCentricBFS.name: EdgeCentricBFS,
    PersistentBasicBFS.name: PersistentBasicBFS,
    PersistentBFS.name: PersistentBFS,
    PushPullBasicBFS.name: PushPullBasicBFS,
    PushPullBFS.name: PushPullBFS,
    AdaptiveBasicBFS.name: AdaptiveBasicBFS,
    AdaptiveBFS.name: AdaptiveBFS,
    MultiGpuBFS.name: MultiGpuBFS,
    OutOfMemoryBFS.name: OutOfMemoryBFS,
}
# [steps-registry-end]

#: Every variant name ``--variant`` accepts (besides ``all``).
VARIANT_NAMES = ("reference", *STEPS)


def get_step(name: str) -> type[GPUStep]:
    try:
        return STEPS[name]
    except KeyError:
        raise RodiniaBFSError(
            f"unknown variant {name!r}; choose one of: {', '.join(VARIANT_NAMES)}, all"
        ) from None


__all__ = ["GPUStep", "STEPS", "VARIANT_NAMES", "get_step"]
