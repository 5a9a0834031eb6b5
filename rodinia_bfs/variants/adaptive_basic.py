"""Step 7, the idea: choose each level's kernel and launch shape from its profile.

FlexBFS (Liu, An, Li and Wu, 2014) profiles the parallelism of each level and
reconfigures the kernel and its launch for it. This step does that with step 6's basic
kernels (``hip_kernels/push_pull_basic.hip``, compiled as they are): after each level
the host reads back the next frontier's profile (its vertices n_f and their edges m_f,
with the edges m_u out of the vertices not reached yet), and chooses for that level

* the kernel: pull when the level is wide on both counts, its edges a large share of
  what is left (``m_f > m_u / alpha``) and its vertices a large share of the graph
  (``n_f > n / beta``), push otherwise. Unlike Beamer's state machine (step 6) the
  choice looks at this level alone: it remembers nothing of earlier levels;
* the launch shape: blocks small enough that the level's work is spread over every
  multiprocessor (a frontier of 2,000 vertices is 8 blocks of 256 threads, which leave
  most of a large GPU idle, or 63 blocks of 32), never smaller than a warp.

The tuned step (``adaptive``) makes the same kind of choice on the device.
"""

from __future__ import annotations

from rodinia_bfs.reference import BFSResult
from rodinia_bfs.runtime.base import ceil_div
from rodinia_bfs.variants.base import LevelTimer
from rodinia_bfs.variants.push_pull_basic import ALPHA, BETA, PushPullBasicBFS


# [adaptive-basic-choice-begin]
def choose_kernel(n_f: int, m_f: int, m_u: int, n: int, alpha: int = ALPHA,
                  beta: int = BETA) -> str:
    """``"pull"`` for a level wide on both counts, else ``"push"`` (in integers)."""
    return "pull" if m_f * alpha > m_u and n_f * beta > n else "push"


def choose_block(items: int, multiprocessors: int, warp_size: int, largest: int) -> int:
    """Threads per block for a launch over ``items``: the largest power of two from one
    warp up to ``largest`` that still gives every multiprocessor a block."""
    block = largest
    while block > warp_size and ceil_div(items, block) < multiprocessors:
        block //= 2
    return max(block, min(warp_size, largest))
# [adaptive-basic-choice-end]


class AdaptiveBasicBFS(PushPullBasicBFS):
    """Push or pull, and the block size, chosen for each level from its profile."""

    name = "adaptive_basic"
    takes_sources = True  # step 6's reset; the loop below stops at max_levels

    # [adaptive-basic-host-loop-begin]
    def _host_loop(self, start, timer: LevelTimer) -> BFSResult:
        dev, n = self.device, self.graph.num_vertices
        level, frontier_in = 0, "queue"
        n_f, m_f = self._first_counts(start)  # the source (or sources), and their edges
        m_u = self.graph.num_edges - m_f  # edges out of the vertices not reached yet
        sizes, choices, found = [], [], n_f
        while n_f > 0 and level < self.max_levels:  # a depth_limit stops it early
            kernel = (choose_kernel(n_f, m_f, m_u, n, self.alpha, self.beta)
                      if self.direction == "auto" else self.direction)
            # A push level has a thread per frontier vertex, a pull level one per vertex
            # (most of them still unvisited when a level is wide).
            items = n_f if kernel == "push" else n
            block = choose_block(items, dev.multiprocessor_count, dev.warp_size,
                                 self.block_size)
            sizes.append(n_f)
            choices.append((kernel, block))
            self._run_level(kernel, level, n_f, frontier_in, block)
            frontier_in = "bitmap" if kernel == "pull" else "queue"
            n_f, m_f = self._next_counts()
            m_u -= m_f
            level += 1
            timer.end_level()
            found += n_f  # each vertex is found once: more than n means a broken kernel
            self._runaway_guard(level, found, n, "vertices found")
        #: (kernel, threads per block) for each level of the last search.
        self.last_choices = choices
        self.last_directions = [kernel for kernel, _ in choices]
        return BFSResult(iterations=level, frontier_sizes=sizes)
    # [adaptive-basic-host-loop-end]
