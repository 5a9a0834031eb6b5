// Step 1 from a plain HIP C++ host program.
//
// The same two kernels as chapter 1 (hip_kernels/rodinia.hip, included unchanged), run
// by a host program that does by hand what HIP Python and rodinia_bfs do for the
// Python examples: read the graph, hipMalloc and hipMemcpy the arrays, launch Kernel1
// and Kernel2 once per level, bring g_over back through pinned host memory, copy the
// levels back and check them against a CPU BFS.
//
//   rodinia_bfs_step1 GRAPH.txt [--source S] [--inject-error]
//   rodinia_bfs_step1 --generate NODES [--seed SEED] [--source S] [--inject-error]
//
// GRAPH.txt is a Rodinia text graph (what `rodinia-bfs generate rodinia -o g.txt`
// writes); --generate makes a Rodinia-style graph (2-4 random edges per node, each
// stored both ways). The last line is "validation passed" (exit status 0) or
// "validation failed (N errors)" (exit status 1); --inject-error changes one level
// before the check, to show a failure. Bad input or a HIP error: one line, status 2.
//
// Build (examples/cpp/Makefile): `make hipcc` on AMD with ROCm, `make nvcc` on NVIDIA.
#include <hip/hip_runtime.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

// rodinia.hip wants its block size at compile time, as Rodinia's MAX_THREADS_PER_BLOCK.
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 512
#endif
// hipcc compiles the file twice: for the GPU, where the compiler defines the wavefront
// width that bfs_common.h reads, and for the host, which only launches the kernels and
// has no width of its own. bfs_common.h stops at an unknown width, so the host pass gets
// one; no code of that pass runs on the GPU.
#if defined(__HIP__) && !defined(__HIP_DEVICE_COMPILE__) && !defined(__AMDGCN_WAVEFRONT_SIZE)
#define __AMDGCN_WAVEFRONT_SIZE 64
#endif
#include "rodinia.hip"  // Kernel1 and Kernel2, with bfs_common.h (found through -I hip_kernels)

// [cpp-check-begin]
// Every HIP call goes through HIP_CHECK: on an error it names the call, the error and
// where, and ends the program. A kernel launch returns nothing; its error (a bad grid,
// a kernel that faulted) is picked up by hipGetLastError right after it.
#define HIP_CHECK(call) hip_check((call), #call, __FILE__, __LINE__)

static void hip_check(hipError_t status, const char* call, const char* file, int line)
{
    if (status != hipSuccess) {
        std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call,
                     hipGetErrorName(status), hipGetErrorString(status));
        std::exit(2);
    }
}
// [cpp-check-end]

static void fail(const char* what, const char* detail)
{
    std::fprintf(stderr, "rodinia_bfs_step1: %s%s\n", what, detail);
    std::exit(2);
}

// The CSR graph of bfs_common.h's types: offsets[v] .. offsets[v + 1] index edges.
struct Graph {
    std::vector<edge_t> offsets;
    std::vector<vertex_t> edges;
    vertex_t source = 0;
    vertex_t num_vertices() const { return (vertex_t)(offsets.size() - 1); }
};

static long long read_number(FILE* file, const char* path, const char* what)
{
    long long value;
    if (std::fscanf(file, "%lld", &value) != 1) {
        std::fprintf(stderr, "rodinia_bfs_step1: %s: expected %s\n", path, what);
        std::exit(2);
    }
    return value;
}

// A Rodinia text graph: the node count; one "start count" line per node; the source;
// the edge count; one "dest cost" line per edge (the cost is not used).
static Graph read_rodinia(const char* path)
{
    FILE* file = std::fopen(path, "r");
    if (!file) fail(path, (std::string(": ") + std::strerror(errno)).c_str());
    const long long n = read_number(file, path, "the node count");
    if (n < 1 || n > 0x7fffffff) fail(path, ": the node count is not in 1..2^31-1");
    std::vector<long long> start(n), count(n);
    for (long long v = 0; v < n; v++) {
        start[v] = read_number(file, path, "a node's first edge");
        count[v] = read_number(file, path, "a node's edge count");
    }
    Graph g;
    g.source = (vertex_t)read_number(file, path, "the source");
    const long long m = read_number(file, path, "the edge count");
    if (g.source < 0 || g.source >= n) fail(path, ": the source is not a node");
    if (m < 0) fail(path, ": negative edge count");
    std::vector<vertex_t> listed(m);
    for (long long e = 0; e < m; e++) {
        const long long dest = read_number(file, path, "an edge's destination");
        read_number(file, path, "an edge's cost");
        if (dest < 0 || dest >= n) fail(path, ": an edge leads outside the graph");
        listed[e] = (vertex_t)dest;
    }
    std::fclose(file);
    // Each node's list is the slice start .. start + count of the edge lines.
    g.offsets.assign(n + 1, 0);
    for (long long v = 0; v < n; v++) {
        if (start[v] < 0 || count[v] < 0 || start[v] + count[v] > m)
            fail(path, ": a node's edges lie outside the edge list");
        g.offsets[v + 1] = g.offsets[v] + count[v];
        g.edges.insert(g.edges.end(), listed.begin() + start[v],
                       listed.begin() + start[v] + count[v]);
    }
    return g;
}

// A Rodinia-style graph: node i draws 2 to 4 edges to random nodes, each stored both ways.
static Graph generate(long long n, unsigned long long seed)
{
    if (n < 1 || n > (1 << 26)) fail("--generate: the node count must be in 1..2^26", "");
    std::mt19937_64 random(seed);
    std::vector<std::vector<vertex_t>> lists(n);
    for (long long u = 0; u < n; u++) {
        const int draws = 2 + (int)(random() % 3);
        for (int k = 0; k < draws; k++) {
            const vertex_t v = (vertex_t)(random() % (unsigned long long)n);
            lists[u].push_back(v);
            lists[v].push_back((vertex_t)u);
        }
    }
    Graph g;
    g.offsets.assign(n + 1, 0);
    for (long long v = 0; v < n; v++) {
        g.offsets[v + 1] = g.offsets[v] + (edge_t)lists[v].size();
        g.edges.insert(g.edges.end(), lists[v].begin(), lists[v].end());
    }
    return g;
}

// The textbook serial BFS: a queue of vertices, each level one more than its parent's.
static std::vector<level_t> cpu_bfs(const Graph& g, vertex_t source)
{
    std::vector<level_t> levels(g.num_vertices(), -1);
    std::vector<vertex_t> queue{source};
    levels[source] = 0;
    for (size_t head = 0; head < queue.size(); head++) {
        const vertex_t u = queue[head];
        for (edge_t e = g.offsets[u]; e < g.offsets[u + 1]; e++) {
            const vertex_t v = g.edges[e];
            if (levels[v] == -1) {
                levels[v] = levels[u] + 1;
                queue.push_back(v);
            }
        }
    }
    return levels;
}

// [cpp-bfs-begin]
// Step 1 on the GPU: the levels of every vertex from source (-1: not reached), and the
// number of rounds of the host loop.
static std::vector<level_t> gpu_bfs(const Graph& g, vertex_t source, int* rounds)
{
    const vertex_t n = g.num_vertices();
    const size_t m = g.edges.size();
    edge_t* d_offsets;
    vertex_t* d_edges;
    bool *d_graph_mask, *d_updating_graph_mask, *d_graph_visited, *d_over;
    level_t* d_cost;
    HIP_CHECK(hipMalloc((void**)&d_offsets, (n + 1) * sizeof(edge_t)));
    HIP_CHECK(hipMalloc((void**)&d_edges, (m ? m : 1) * sizeof(vertex_t)));
    HIP_CHECK(hipMalloc((void**)&d_graph_mask, n * sizeof(bool)));
    HIP_CHECK(hipMalloc((void**)&d_updating_graph_mask, n * sizeof(bool)));
    HIP_CHECK(hipMalloc((void**)&d_graph_visited, n * sizeof(bool)));
    HIP_CHECK(hipMalloc((void**)&d_cost, n * sizeof(level_t)));
    HIP_CHECK(hipMalloc((void**)&d_over, sizeof(bool)));
    // g_over comes back every level: pinned host memory takes the copy directly.
    bool* h_over;
    HIP_CHECK(hipHostMalloc((void**)&h_over, sizeof(bool), hipHostMallocDefault));

    HIP_CHECK(hipMemcpy(d_offsets, g.offsets.data(), (n + 1) * sizeof(edge_t),
                        hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(d_edges, g.edges.data(), m * sizeof(vertex_t), hipMemcpyHostToDevice));
    // Start state: nothing visited, every cost -1 (all bytes 0xFF), the source alone.
    HIP_CHECK(hipMemset(d_graph_mask, 0, n * sizeof(bool)));
    HIP_CHECK(hipMemset(d_updating_graph_mask, 0, n * sizeof(bool)));
    HIP_CHECK(hipMemset(d_graph_visited, 0, n * sizeof(bool)));
    HIP_CHECK(hipMemset(d_cost, 0xFF, n * sizeof(level_t)));
    HIP_CHECK(hipMemset(d_graph_mask + source, 1, sizeof(bool)));
    HIP_CHECK(hipMemset(d_graph_visited + source, 1, sizeof(bool)));
    HIP_CHECK(hipMemset(d_cost + source, 0, sizeof(level_t)));

    const dim3 grid((n + BLOCK_SIZE - 1) / BLOCK_SIZE), block(BLOCK_SIZE);
    *rounds = 0;
    do {
        HIP_CHECK(hipMemset(d_over, 0, sizeof(bool)));  // g_over = false
        hipLaunchKernelGGL(Kernel1, grid, block, 0, 0, d_offsets, d_edges, d_graph_mask,
                           d_updating_graph_mask, d_graph_visited, d_cost, n);
        HIP_CHECK(hipGetLastError());
        hipLaunchKernelGGL(Kernel2, grid, block, 0, 0, d_graph_mask, d_updating_graph_mask,
                           d_graph_visited, d_over, n);
        HIP_CHECK(hipGetLastError());
        // A copy to the host waits for the kernels before it: h_over is this level's flag.
        HIP_CHECK(hipMemcpy(h_over, d_over, sizeof(bool), hipMemcpyDeviceToHost));
        // Each round that sets g_over reaches a new vertex: more rounds than vertices
        // means broken kernels, and the loop stops instead of going round for ever.
        if (++*rounds > n) fail("the kernels did not finish: more rounds than vertices", "");
    } while (*h_over);

    std::vector<level_t> levels(n);
    HIP_CHECK(hipMemcpy(levels.data(), d_cost, n * sizeof(level_t), hipMemcpyDeviceToHost));
    HIP_CHECK(hipHostFree(h_over));
    for (void* p : {(void*)d_offsets, (void*)d_edges, (void*)d_graph_mask,
                    (void*)d_updating_graph_mask, (void*)d_graph_visited, (void*)d_cost,
                    (void*)d_over})
        HIP_CHECK(hipFree(p));
    return levels;
}
// [cpp-bfs-end]

int main(int argc, char** argv)
{
    const char* path = nullptr;
    long long nodes = -1, source = -1;  // -1: not given
    unsigned long long seed = 0;
    bool inject_error = false;
    for (int i = 1; i < argc; i++) {
        const bool has_value = i + 1 < argc;
        if (!std::strcmp(argv[i], "--generate") && has_value) nodes = std::atoll(argv[++i]);
        else if (!std::strcmp(argv[i], "--seed") && has_value) seed = std::strtoull(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--source") && has_value) source = std::atoll(argv[++i]);
        else if (!std::strcmp(argv[i], "--inject-error")) inject_error = true;
        else if (argv[i][0] != '-' && !path) path = argv[i];
        else fail("usage: rodinia_bfs_step1 GRAPH.txt | --generate NODES [--seed S] "
                  "[--source S] [--inject-error]", "");
    }
    if (!path == (nodes < 0)) fail("give a graph file or --generate NODES (one of the two)", "");
    const Graph g = path ? read_rodinia(path) : generate(nodes, seed);
    if (source < 0) source = path ? g.source : g.num_vertices() / 2;
    if (source >= g.num_vertices()) fail("--source is not a vertex of the graph", "");

    hipDeviceProp_t props;
    HIP_CHECK(hipGetDeviceProperties(&props, 0));
    std::printf("device: %s\n", props.name);
    std::printf("graph: %d vertices, %zu edges; source %lld\n", g.num_vertices(),
                g.edges.size(), source);

    int rounds = 0;
    std::vector<level_t> levels = gpu_bfs(g, (vertex_t)source, &rounds);
    std::printf("step 1 on the GPU: %d rounds of Kernel1 + Kernel2\n", rounds);
    if (inject_error) levels[(source + 1) % g.num_vertices()] += 1;

    // [cpp-validate-begin]
    const std::vector<level_t> expected = cpu_bfs(g, (vertex_t)source);
    long long errors = 0;
    for (size_t v = 0; v < expected.size(); v++) errors += levels[v] != expected[v];
    if (errors) {
        std::printf("validation failed (%lld errors)\n", errors);
        return 1;
    }
    std::printf("validation passed\n");
    return 0;
    // [cpp-validate-end]
}
