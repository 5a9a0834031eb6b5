"""Step 3: the privatized frontier queue (host side).

The kernel is in ``hip_kernels/privatized.hip``. Each level launches one thread per
frontier vertex (up to ``max_blocks`` blocks, the rest by a grid-stride loop); each
block collects what it discovers in a queue in shared memory and reserves room in the
global next frontier with one ``atomicAdd``. The next frontier's size comes back
through pinned memory and sizes the next launch. On the host that is step 2 again:
the same buffers, reset and loop, so the class is step 2's with another kernel.
"""

from __future__ import annotations

import numpy as np

from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs.csr import CSRGraph
from rodinia_bfs.runtime.base import Device
from rodinia_bfs.variants.queue import QueueBFS

# [privatized-tunables-begin]
#: Default threads per block.
BLOCK_SIZE = 256

#: Default entries of the block-local queue: six per thread. 256 frontier vertices of a
#: Rodinia-style graph (average degree 6) have about that many edges, so a block
#: overflows only where the degrees are above average. 6 KiB per block: eight blocks
#: of 256 threads (2,048 threads, the most an AMD CDNA compute unit or an H100 SM runs at
#: once) take 48 KiB, within a CDNA compute unit's 64 KiB of LDS, so shared memory does
#: not lower occupancy.
LOCAL_CAPACITY = 1536

#: Default cap on the blocks of one launch: far more than a GPU holds at once, so every
#: frontier normally gets a thread per vertex; the tests lower it to make the kernel's
#: grid-stride loop do the rest.
MAX_BLOCKS = 65535
# [privatized-tunables-end]


class PrivatizedBFS(QueueBFS):
    """A frontier queue with a block-local queue in shared memory (PMPP 15.6)."""

    name = "privatized"
    kernel_file = "privatized.hip"
    kernel_name = "privatized_expand"
    takes_sources = True  # step 2's reset and loop, with the tallies below

    @classmethod
    def default_defines(cls, warp_size: int, graph: CSRGraph | None = None) -> dict:
        return {"BLOCK_SIZE": BLOCK_SIZE, "LOCAL_CAPACITY": LOCAL_CAPACITY}

    # [privatized-setup-begin]
    def __init__(self, device: Device, graph: CSRGraph, block_size: int = BLOCK_SIZE,
                 local_capacity: int = LOCAL_CAPACITY, max_blocks: int = MAX_BLOCKS,
                 count_atomics: bool = False):
        # The local queue is static shared memory: 4 bytes per entry and two 4-byte
        # counters, within what a block gets without opting in to more (48 KiB on NVIDIA
        # GPUs, 64 KiB on AMD ones).
        shared = device.shared_memory_per_block
        most = (shared - 8) // 4
        if not 1 <= local_capacity <= most:
            raise RodiniaBFSError(
                f"local_capacity must be 1..{most} (4 bytes each in "
                f"{shared // 1024} KiB of shared memory), got {local_capacity}"
            )
        self.local_capacity = local_capacity
        # Example 03 builds the kernel with BFS_COUNT_ATOMICS: it then also counts its
        # global atomics, in two bfs_u32 right after the queue's counter.
        self.count_atomics = count_atomics
        self.counter_words = 3 if count_atomics else 1
        # Chapter 2's constructor does the rest: check the launch shape, compile (with
        # both tunables, below), upload the graph and allocate the same buffers.
        super().__init__(device, graph, block_size, max_blocks)

    def defines(self) -> dict:
        defines = {"BLOCK_SIZE": self.block_size, "LOCAL_CAPACITY": self.local_capacity}
        if self.count_atomics:
            defines["BFS_COUNT_ATOMICS"] = 1
        return defines
    # [privatized-setup-end]

    def _reset(self, source: int) -> int:
        size = super()._reset(source)
        self._reset_tallies()
        return size

    def _reset_many(self, starts) -> int:
        size = super()._reset_many(starts)
        self._reset_tallies()
        return size

    def _reset_tallies(self) -> None:
        if self.count_atomics:  # the tallies count a whole search
            self.device.memset(self.counters.view(4, 8), 0, stream=self.stream)

    def _host_loop(self, start, timer):
        outcome = super()._host_loop(start, timer)
        if self.count_atomics:
            overflowed, reserved = self.device.from_device(self.counters.view(4, 8), 2, np.uint32)
            #: The global atomics of the last search on the queue's counter: vertices that
            #: overflowed their block's local queue, and block reservations.
            self.last_atomic_counts = {"overflowed": int(overflowed), "reserved": int(reserved)}
        return outcome
