// Step 7: adaptive BFS: the kernel that suits each level, chosen on the device.
//
// Step 5's single block runs the levels of a small frontier best (one block, no grid
// barrier, 1-5 microseconds a level); step 6's cooperative kernel runs the levels of a
// large one best, top-down or bottom-up by Beamer's rule. This step is both, compiled
// into one module from their headers (step 5's grid kernel is not in it):
//
//   persistent_single   step 5's single block, unchanged: it runs levels while the
//                       frontier fits its shared memory, and hands an outgrown frontier
//                       over in step 5's grid queues, recording where it stopped in
//                       step 5's Control record;
//   push_pull_bfs       step 6's kernel built with ADAPTIVE_HANDOFF: it starts a search
//                       from its source, or carries on from the Control record, chooses
//                       push or pull per level, and hands the frontier back once it is
//                       small again (fits_single_block).
//
// The host queues (push_pull_bfs, single) pairs of launches, the grid first, and reads
// the Control record once per batch. What each level ran is in the LevelStamp record.
// [adaptive-includes-begin]
#define ADAPTIVE_HANDOFF 1
#include "single_block.h"
#include "push_pull_grid.h"
// [adaptive-includes-end]
