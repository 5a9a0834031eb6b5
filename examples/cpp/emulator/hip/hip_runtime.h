// hip/hip_runtime.h on the project's CPU emulator: the HIP runtime calls that
// rodinia_bfs_step1.hip makes, for a build with the system C++ compiler and no GPU.
//
// Kernel code comes from rodinia_bfs/runtime/include/hip_emulator.h, which the build
// pre-includes (g++ -include hip_emulator.h -DBFS_EMULATOR, as the cpu backend compiles
// every kernel). Its runtime (the block scheduler and the fibers that run a block's
// threads) is compiled from the same header with -DBFS_EMU_RUNTIME and linked in.
// "Device" memory is host memory here, so a copy is a memcpy and a launch runs the
// whole grid before it returns.
#pragma once

#ifndef BFS_HIP_EMULATOR_H
#error "pre-include rodinia_bfs/runtime/include/hip_emulator.h (g++ -include ...)"
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <tuple>
#include <utility>

extern "C" const bfs_emu::Api* bfs_emu_runtime_api();

enum hipError_t { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorOutOfMemory = 2,
                  hipErrorLaunchFailure = 719 };
enum hipMemcpyKind { hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2 };
#define hipHostMallocDefault 0u

struct hipDeviceProp_t {
    char name[256];
    int warpSize;
};

namespace hip_emu {
inline hipError_t last_error = hipSuccess;
inline char launch_message[512];

inline hipError_t record(hipError_t status)
{
    if (status != hipSuccess) last_error = status;
    return status;
}

// Binds the kernels of this program to the emulator runtime on first use.
inline const bfs_emu::Api* bind()
{
    if (!bfs_emu::api) bfs_emu::api = bfs_emu_runtime_api();
    return bfs_emu::api;
}

template <auto Kernel>
struct Launch;

template <class... P, void (*Kernel)(P...)>
struct Launch<Kernel> {
    // hipLaunchKernelGGL: the arguments converted to the kernel's parameter types, as a
    // call would convert them, then the whole grid on the emulator's worker threads.
    template <class... Args>
    static hipError_t run(const char* name, dim3 grid, dim3 block, unsigned shared,
                          Args... args)
    {
        static_assert(sizeof...(Args) == sizeof...(P), "wrong number of kernel arguments");
        std::tuple<P...> values(args...);
        return run_with(name, grid, block, shared, values, std::index_sequence_for<P...>());
    }

    template <size_t... I>
    static hipError_t run_with(const char* name, dim3 grid, dim3 block, unsigned shared,
                               std::tuple<P...>& values, std::index_sequence<I...>)
    {
        bind();
        const unsigned workers = std::thread::hardware_concurrency();
        const bfs_emu::LaunchConfig config = {{grid.x, grid.y, grid.z},
                                              {block.x, block.y, block.z},
                                              shared, workers ? workers : 1, 0};
        // What hipModuleLaunchKernel takes: a pointer to each argument, and (for the
        // emulator's checks) the kind and size of each.
        void* pointers[] = {(void*)&std::get<I>(values)...};
        const int codes[] = {bfs_emu::arg_code(bfs_emu::KindOf<P>::value, (int)sizeof(P))...};
        const int failed = bfs_emu::Launcher<Kernel>::launch(
            name, &config, pointers, (int)sizeof...(P), codes, launch_message,
            (int)sizeof launch_message);
        return record(failed ? hipErrorLaunchFailure : hipSuccess);
    }
};
}  // namespace hip_emu

#define hipLaunchKernelGGL(kernel, grid, block, shared, stream, ...) \
    ((void)(stream), ::hip_emu::Launch<&kernel>::run(#kernel, (grid), (block), (shared), __VA_ARGS__))

inline const char* hipGetErrorName(hipError_t status)
{
    switch (status) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
    }
    return "hipErrorUnknown";
}
inline const char* hipGetErrorString(hipError_t status)
{
    return status == hipErrorLaunchFailure && hip_emu::launch_message[0] ? hip_emu::launch_message
                                                                         : hipGetErrorName(status);
}
inline hipError_t hipGetLastError()
{
    const hipError_t status = hip_emu::last_error;
    hip_emu::last_error = hipSuccess;
    return status;
}
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* props, int device)
{
    if (!props || device != 0) return hip_emu::record(hipErrorInvalidValue);
    std::snprintf(props->name, sizeof props->name, "CPU emulator (warp size %d)",
                  BFS_EMULATOR_WARP_SIZE);
    props->warpSize = BFS_EMULATOR_WARP_SIZE;
    return hipSuccess;
}
inline hipError_t hipMalloc(void** p, size_t size)
{
    if (!p) return hip_emu::record(hipErrorInvalidValue);
    *p = std::malloc(size ? size : 1);
    return hip_emu::record(*p ? hipSuccess : hipErrorOutOfMemory);
}
inline hipError_t hipHostMalloc(void** p, size_t size, unsigned flags)
{
    (void)flags;
    return hipMalloc(p, size);
}
inline hipError_t hipFree(void* p)
{
    std::free(p);
    return hipSuccess;
}
inline hipError_t hipHostFree(void* p) { return hipFree(p); }
inline hipError_t hipMemcpy(void* dst, const void* src, size_t size, hipMemcpyKind kind)
{
    (void)kind;
    if (size && (!dst || !src)) return hip_emu::record(hipErrorInvalidValue);
    if (size) std::memcpy(dst, src, size);
    return hipSuccess;
}
inline hipError_t hipMemset(void* dst, int value, size_t size)
{
    if (size && !dst) return hip_emu::record(hipErrorInvalidValue);
    if (size) std::memset(dst, value, size);
    return hipSuccess;
}
