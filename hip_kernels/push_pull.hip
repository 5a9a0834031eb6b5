// Step 6: direction-optimizing BFS (Beamer, Asanović, Patterson, SC12).
//
// Top-down ("push"): every frontier vertex looks at its out-edges and claims the
// unvisited vertices it finds, as in step 4, whose degree-split queues (frontier.h)
// this step uses unchanged; its gathers count what they claim, batch their visits and
// share short queues out (top_down.h). In the middle levels of a small-world graph most
// of those edges lead to vertices visited already, and the work is wasted.
//
// Bottom-up ("pull"): every unvisited vertex looks at its in-edges for one parent in
// the frontier and stops at the first it finds. The frontier is then a bitmap (one bit
// per vertex), small enough to stay in the cache.
//
// Beamer's rule picks the direction before each level, from four counts:
//   n_f  vertices in the frontier,         m_f  edges out of the frontier,
//   n    vertices of the graph,            m_u  edges out of the unvisited vertices.
// Top-down -> bottom-up when m_f > m_u / ALPHA (the frontier's edges outnumber what a
// bottom-up sweep would look at) and the frontier grows; bottom-up -> top-down when
// n_f < n / BETA and the frontier shrinks (the state machine of Beamer's paper).
//
// The whole search is ONE cooperative launch: every block stays resident, the grid
// strides over each level's work, and grid_sync() separates the phases. The counts of
// the rule are summed on the device and read by every thread after the barrier, so all
// threads take the same decision and the host waits once, at the end.
//
// The kernel and its parts are in push_pull_grid.h, which step 7 builds too.
#include "push_pull_grid.h"
