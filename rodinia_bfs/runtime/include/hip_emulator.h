// hip_emulator.h: the HIP execution model on the CPU.
//
// The cpu backend compiles the tutorial's HIP kernels with the system C++ compiler
// and pre-includes this header (g++ -include hip_emulator.h). It has three parts:
//
//   1. definitions shared by kernel code and the runtime (the layout of what a thread
//      knows about itself, the launch configuration, the table of runtime calls);
//   2. the device side, seen by kernel code: threadIdx, __shared__, __syncthreads,
//      atomics, warp votes and shuffles, written as ordinary C++;
//   3. the runtime, compiled only when BFS_EMU_RUNTIME is defined: the block
//      scheduler, the fibers that run the threads of a block and the pool of worker
//      threads. The backend compiles it once into a library of its own, which every
//      kernel module of the process shares.
//
// How a launch runs
// -----------------
// A grid is a set of independent blocks, so blocks are spread over a pool of OS worker
// threads; a worker runs one block at a time, from its first thread to its last. The
// threads of a block must be able to wait for each other (__syncthreads, warp
// operations), so each runs on a fiber: a small stack of its own. A fiber runs its
// thread until the thread returns or has to wait; then the worker goes on with
// another thread of the block: it resumes one whose wait is over, or starts the next.
// Nothing preempts a running thread. A thread that never waits costs no switch at all: when it returns, the same fiber
// starts the next thread of the block, as a plain function call (a few nanoseconds).
// A thread that waits hands over directly to the next fiber with work; the scheduler
// steps in only to allocate fibers, and when no fiber can go on: then the block is
// either finished or deadlocked, which the launch reports as an error.
//
// A switch between fibers is __builtin_setjmp/__builtin_longjmp (GCC's and clang's),
// which save and restore the frame and stack pointers and where to resume, without a
// system call (swapcontext would make one, to save the signal mask) and without the
// C library's _longjmp, which also unwinds pthread cleanup handlers on every switch; an
// AddressSanitizer build uses _setjmp/_longjmp, which ASan intercepts. makecontext is
// used once per fiber, to start it on its stack; the stacks are allocated once per
// worker and reused by every block and every launch.
#ifndef BFS_HIP_EMULATOR_H
#define BFS_HIP_EMULATOR_H

// ---------------------------------------------------------------------------------------
// 1. Shared definitions
// ---------------------------------------------------------------------------------------

// The warp width is fixed at compile time, as on a GPU: the backend passes
// -DBFS_EMULATOR_WARP_SIZE=32 or 64.
#ifndef BFS_EMULATOR_WARP_SIZE
#define BFS_EMULATOR_WARP_SIZE 32
#endif
#if BFS_EMULATOR_WARP_SIZE != 32 && BFS_EMULATOR_WARP_SIZE != 64
#error "BFS_EMULATOR_WARP_SIZE must be 32 or 64"
#endif

// Is this an AddressSanitizer build? (GCC says so with __SANITIZE_ADDRESS__, clang
// with __has_feature.)
#if defined(__SANITIZE_ADDRESS__)
#define BFS_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BFS_EMU_ASAN 1
#endif
#endif
#ifndef BFS_EMU_ASAN
#define BFS_EMU_ASAN 0
#endif

// Version of the contract between kernel modules and the runtime library; a module
// refuses to bind to a runtime of another version.
#define BFS_EMU_ABI 4

// Every fiber stack is BFS_EMU_STACK_SIZE bytes, aligned to its size, and the top
// BFS_EMU_FIBER_RESERVE bytes hold what the running thread knows about itself
// (ThreadInfo). So kernel code finds its own threadIdx from its stack pointer alone:
// round it up to the stack's end and step back. That is one OR and one load, and it
// stays right across fiber switches.
// AddressSanitizer's instrumented frames are larger, hence the larger stack.
#if BFS_EMU_ASAN
#define BFS_EMU_STACK_SIZE (256u * 1024u)
#else
#define BFS_EMU_STACK_SIZE (64u * 1024u)
#endif
#define BFS_EMU_FIBER_RESERVE 64u

// Limits a launch must respect, as on HIP and CUDA GPUs.
#define BFS_EMU_MAX_BLOCK_THREADS 1024u
// As much dynamic shared memory as a block of an H100 may opt in to.
#define BFS_EMU_MAX_DYNAMIC_SHARED (227u * 1024u)

// Nothing below is exported from a kernel module except its launchers.
#pragma GCC visibility push(hidden)

// HIP's vector types for the built-in index variables.
struct uint3 {
    unsigned int x, y, z;
};
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1)
        : x(x_), y(y_), z(z_) {}
};

namespace bfs_emu {

// What every thread of a block shares: blockIdx, blockDim, gridDim and the dynamic
// shared memory given at launch.
struct BlockInfo {
    uint3 block_idx;
    uint3 block_dim;
    uint3 grid_dim;
    void* dynamic_shared;
};

// What one thread knows about itself; it sits at the top of its fiber's stack.
struct ThreadInfo {
    uint3 thread_idx;
    const BlockInfo* block;
    void* fiber;  // the runtime's bookkeeping for this stack
};

// The launch configuration, as the Python side fills it in (see cpu_backend.py).
struct LaunchConfig {
    unsigned long long grid[3];
    unsigned long long block[3];
    unsigned long long shared_mem;
    long long workers;
    long long cooperative;  // every block at once, each on a thread of its own
};

// The warp operations the runtime knows. The shuffles differ only in how a lane
// names the lane it reads from, so they are one operation for the runtime.
enum WarpOp {
    WARP_BALLOT = 1,
    WARP_SHFL = 2,       // read lane arg (modulo the warp width), like __shfl
    WARP_SHFL_UP = 3,    // read lane - arg, or keep the own value, like __shfl_up
    WARP_SHFL_DOWN = 4,  // read lane + arg, or keep the own value, like __shfl_down
    WARP_SHFL_XOR = 5,   // read lane ^ arg, like __shfl_xor
    WARP_SYNC = 6,       // no data: a barrier for the warp, like __syncwarp
};

// Codes that describe a kernel parameter, or the argument passed for it, so that a
// launch with the wrong types fails with a message instead of reading garbage:
// kind * 65536 + size in bytes. A record is a struct passed by value (a kernel's
// argument record): its size must match, which catches a Python description of the
// struct that has drifted from the header.
enum ArgKind { ARG_UNSUPPORTED = 0, ARG_INT = 1, ARG_FLOAT = 2, ARG_POINTER = 3, ARG_RECORD = 4 };

// The calls kernel code makes into the runtime library. A module receives this table
// once, when it is loaded (bfs_emu_bind), instead of linking against the library.
struct Api {
    int abi;
    unsigned stack_size;
    // __syncthreads with a predicate: returns (threads with predicate != 0) << 32 |
    // (threads that took part).
    long long (*barrier)(int predicate);
    // A warp operation (WarpOp) with a value and an argument (lane, delta or mask).
    long long (*warp_op)(int op, long long value, int arg);
    // The grid-wide barrier of a cooperative launch (bfs_common.h's grid_sync); every
    // thread of the block calls it. Returns 1 (a deadlock fails the launch instead).
    long long (*grid_sync)();
    // Nanoseconds of a steady clock shared by all threads (bfs_common.h's device_clock).
    long long (*clock_ns)();
    // Run a whole grid. body(args) runs one thread. Returns 0, or non-zero with a
    // message in err.
    int (*run)(const char* kernel, const LaunchConfig* cfg, int warp_size,
               void (*body)(void**), void** args, int nargs, const int* arg_codes,
               int nparams, const int* param_codes, char* err, int errlen);
};

// Where the running thread's ThreadInfo is: at the top of the stack that holds the
// current frame (see BFS_EMU_STACK_SIZE above).
__attribute__((always_inline)) inline ThreadInfo* self() {
    __UINTPTR_TYPE__ frame = (__UINTPTR_TYPE__)__builtin_frame_address(0);
    return (ThreadInfo*)((frame | (BFS_EMU_STACK_SIZE - 1)) + 1 - BFS_EMU_FIBER_RESERVE);
}

}  // namespace bfs_emu

#ifndef BFS_EMU_RUNTIME
// ---------------------------------------------------------------------------------------
// 2. The device side: what kernel code sees
// ---------------------------------------------------------------------------------------

namespace bfs_emu {
// The runtime's table of calls, set by bfs_emu_bind when the module is loaded.
inline const Api* api = nullptr;

__attribute__((always_inline)) inline const uint3& thread_idx() { return self()->thread_idx; }
__attribute__((always_inline)) inline const uint3& block_idx() { return self()->block->block_idx; }
__attribute__((always_inline)) inline const uint3& block_dim() { return self()->block->block_dim; }
__attribute__((always_inline)) inline const uint3& grid_dim() { return self()->block->grid_dim; }

// A compiler barrier: memory written before it is really written, and memory read
// after it is read again. A fiber switch hides inside the calls it surrounds, and other
// threads of the block may have changed shared memory in the meantime.
__attribute__((always_inline)) inline void compiler_barrier() { __asm__ __volatile__("" ::: "memory"); }

__attribute__((always_inline)) inline long long barrier(int predicate) {
    compiler_barrier();
    long long r = api->barrier(predicate);
    compiler_barrier();
    return r;
}

__attribute__((always_inline)) inline long long warp_op(int op, long long value, int arg) {
    compiler_barrier();
    long long r = api->warp_op(op, value, arg);
    compiler_barrier();
    return r;
}
}  // namespace bfs_emu

// [emulator-keywords-begin]
// The execution-space and memory-space keywords. Kernels and device functions are
// ordinary functions here. __shared__ memory exists once per block: a worker runs one
// block at a time and all of the block's fibers run on that worker's OS thread, so a
// thread_local variable is exactly "one per running block".
#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static thread_local

// The built-in index variables, read-only, each thread its own.
#define threadIdx (::bfs_emu::thread_idx())
#define blockIdx (::bfs_emu::block_idx())
#define blockDim (::bfs_emu::block_dim())
#define gridDim (::bfs_emu::grid_dim())
constexpr int warpSize = BFS_EMULATOR_WARP_SIZE;
// [emulator-keywords-end]

// Dynamic shared memory, the third launch parameter; bfs_common.h's DYNAMIC_SHARED
// uses it.
__attribute__((always_inline)) inline void* bfs_emu_dynamic_shared() {
    return ::bfs_emu::self()->block->dynamic_shared;
}

// [emulator-sync-begin]
// -- barriers and fences ---------------------------------------------------------------
inline void __syncthreads() { ::bfs_emu::barrier(1); }
inline int __syncthreads_count(int predicate) {
    return (int)(::bfs_emu::barrier(predicate) >> 32);
}
inline int __syncthreads_and(int predicate) {
    long long r = ::bfs_emu::barrier(predicate);
    return (r >> 32) == (r & 0xffffffffll);
}
inline int __syncthreads_or(int predicate) { return (::bfs_emu::barrier(predicate) >> 32) != 0; }

// Blocks run concurrently on several OS threads, so a device-wide fence is a real
// fence. The threads of one block share one OS thread: a compiler barrier suffices.
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

// -- warp operations (bfs_common.h wraps these as warp_ballot, warp_shfl, warp_sync) ---
// Each gathers every lane of the warp that has not exited: a lane deposits its value
// and waits; the last lane to arrive computes every lane's result.
inline unsigned long long bfs_emu_ballot(int predicate) {
    return (unsigned long long)::bfs_emu::warp_op(::bfs_emu::WARP_BALLOT, predicate != 0, 0);
}
inline long long bfs_emu_shfl(long long v, int src_lane) {
    return ::bfs_emu::warp_op(::bfs_emu::WARP_SHFL, v, src_lane);
}
inline long long bfs_emu_shfl_up(long long v, unsigned delta) {
    return ::bfs_emu::warp_op(::bfs_emu::WARP_SHFL_UP, v, (int)delta);
}
inline long long bfs_emu_shfl_down(long long v, unsigned delta) {
    return ::bfs_emu::warp_op(::bfs_emu::WARP_SHFL_DOWN, v, (int)delta);
}
inline long long bfs_emu_shfl_xor(long long v, int lane_mask) {
    return ::bfs_emu::warp_op(::bfs_emu::WARP_SHFL_XOR, v, lane_mask);
}
inline void bfs_emu_syncwarp() { ::bfs_emu::warp_op(::bfs_emu::WARP_SYNC, 0, 0); }

// -- the grid barrier (bfs_common.h's grid_sync) -----------------------------------------
inline int bfs_emu_grid_sync() {
    ::bfs_emu::compiler_barrier();
    int r = (int)::bfs_emu::api->grid_sync();
    ::bfs_emu::compiler_barrier();
    return r;
}

// -- a clock every block reads alike (bfs_common.h's device_clock) ---------------------------
inline long long bfs_emu_clock_ns() { return ::bfs_emu::api->clock_ns(); }
// [emulator-sync-end]

// -- atomics -----------------------------------------------------------------------------
// Real atomic read-modify-writes: blocks race on several OS threads. GPU atomics are
// relaxed (they order nothing else), and so are these.
#define BFS_EMU_RELAXED __ATOMIC_RELAXED
#define BFS_EMU_ATOMICS_INT(T)                                                             \
    inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, BFS_EMU_RELAXED); }   \
    inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, BFS_EMU_RELAXED); }   \
    inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, BFS_EMU_RELAXED); }   \
    inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, BFS_EMU_RELAXED); }     \
    inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, BFS_EMU_RELAXED); }   \
    inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, BFS_EMU_RELAXED); } \
    inline T atomicCAS(T* p, T expected, T desired) {                                      \
        __atomic_compare_exchange_n(p, &expected, desired, false, BFS_EMU_RELAXED,        \
                                    BFS_EMU_RELAXED);                                      \
        return expected; /* the old value, whether or not the swap happened */            \
    }                                                                                      \
    inline T atomicMin(T* p, T v) {                                                        \
        T old = __atomic_load_n(p, BFS_EMU_RELAXED);                                       \
        while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, BFS_EMU_RELAXED,  \
                                                       BFS_EMU_RELAXED)) {                 \
        }                                                                                  \
        return old;                                                                        \
    }                                                                                      \
    inline T atomicMax(T* p, T v) {                                                        \
        T old = __atomic_load_n(p, BFS_EMU_RELAXED);                                       \
        while (v > old && !__atomic_compare_exchange_n(p, &old, v, true, BFS_EMU_RELAXED,  \
                                                       BFS_EMU_RELAXED)) {                 \
        }                                                                                  \
        return old;                                                                        \
    }
BFS_EMU_ATOMICS_INT(int)
BFS_EMU_ATOMICS_INT(unsigned int)
BFS_EMU_ATOMICS_INT(long long)
BFS_EMU_ATOMICS_INT(unsigned long long)
#undef BFS_EMU_ATOMICS_INT

// atomicInc / atomicDec: wrap-around counters, as on the GPU.
inline unsigned int atomicInc(unsigned int* p, unsigned int limit) {
    unsigned int old = __atomic_load_n(p, BFS_EMU_RELAXED);
    while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0u : old + 1u, true,
                                        BFS_EMU_RELAXED, BFS_EMU_RELAXED)) {
    }
    return old;
}
inline unsigned int atomicDec(unsigned int* p, unsigned int limit) {
    unsigned int old = __atomic_load_n(p, BFS_EMU_RELAXED);
    while (!__atomic_compare_exchange_n(p, &old, (old == 0u || old > limit) ? limit : old - 1u,
                                        true, BFS_EMU_RELAXED, BFS_EMU_RELAXED)) {
    }
    return old;
}

// Floating-point atomicAdd and atomicExch, by compare-and-swap on the bits.
#define BFS_EMU_ATOMICS_FLOAT(T, BITS)                                                     \
    inline T atomicAdd(T* p, T v) {                                                        \
        BITS* q = (BITS*)p;                                                                \
        BITS old = __atomic_load_n(q, BFS_EMU_RELAXED), want;                              \
        T f;                                                                               \
        do {                                                                               \
            __builtin_memcpy(&f, &old, sizeof f);                                          \
            f += v;                                                                        \
            __builtin_memcpy(&want, &f, sizeof f);                                         \
        } while (!__atomic_compare_exchange_n(q, &old, want, true, BFS_EMU_RELAXED,        \
                                              BFS_EMU_RELAXED));                           \
        __builtin_memcpy(&f, &old, sizeof f);                                              \
        return f;                                                                          \
    }                                                                                      \
    inline T atomicExch(T* p, T v) {                                                       \
        BITS bits, old;                                                                    \
        __builtin_memcpy(&bits, &v, sizeof v);                                             \
        old = __atomic_exchange_n((BITS*)p, bits, BFS_EMU_RELAXED);                        \
        T f;                                                                               \
        __builtin_memcpy(&f, &old, sizeof f);                                              \
        return f;                                                                          \
    }
BFS_EMU_ATOMICS_FLOAT(float, unsigned int)
BFS_EMU_ATOMICS_FLOAT(double, unsigned long long)
#undef BFS_EMU_ATOMICS_FLOAT

// -- integer intrinsics ----------------------------------------------------------------
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffs(unsigned int x) { return __builtin_ffs((int)x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __ffsll(unsigned long long x) { return __builtin_ffsll((long long)x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline unsigned int __brev(unsigned int x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
    return ((unsigned long long)__brev((unsigned int)x) << 32) | __brev((unsigned int)(x >> 32));
}
template <class T>
__attribute__((always_inline)) inline T __ldg(const T* p) { return *p; }
inline void __trap() { __builtin_trap(); }

// min and max for any mix of arithmetic types, with C's usual conversions (as the
// HIP and CUDA overloads for int, unsigned, long long... give).
// (A deduced `auto` return is a value, never a reference to a parameter.)
template <class A, class B>
__attribute__((always_inline)) inline auto min(A a, B b) {
    return b < a ? b : a;
}
template <class A, class B>
__attribute__((always_inline)) inline auto max(A a, B b) {
    return a < b ? b : a;
}

// Device-side printf, as HIP has it (output of concurrent blocks may interleave).
extern "C" __attribute__((visibility("default"))) int printf(const char* format, ...);

// -- launchers ---------------------------------------------------------------------------
// The backend appends to each module one launcher per kernel:
//     BFS_EMU_MODULE()           defines bfs_emu_bind
//     BFS_EMU_KERNEL(Kernel1)    defines extern "C" int bfs_emu_launch_Kernel1(...)
// A launcher receives the kernelParams array of hipModuleLaunchKernel (void* args[],
// one pointer per argument) and calls the kernel with *(A*)args[i] for each parameter
// type A, deduced from the kernel's own signature.
namespace bfs_emu {

template <unsigned... I>
struct Seq {};
template <unsigned N, unsigned... I>
struct MakeSeq : MakeSeq<N - 1, N - 1, I...> {};
template <unsigned... I>
struct MakeSeq<0, I...> {
    typedef Seq<I...> type;
};

// A parameter's or an argument's code: its ArgKind and its size (see ArgKind).
constexpr int arg_code(int kind, int size) { return kind * 65536 + size; }

// The ArgKind of a parameter type, for the argument checks.
template <class T>
struct KindOf {
    static constexpr int value = __is_enum(T) ? ARG_INT : __is_class(T) ? ARG_RECORD : ARG_UNSUPPORTED;
};
template <class T>
struct KindOf<T*> {
    static constexpr int value = ARG_POINTER;
};
#define BFS_EMU_KIND(T, K)                \
    template <>                           \
    struct KindOf<T> {                    \
        static constexpr int value = K;   \
    };
BFS_EMU_KIND(bool, ARG_INT)
BFS_EMU_KIND(char, ARG_INT)
BFS_EMU_KIND(signed char, ARG_INT)
BFS_EMU_KIND(unsigned char, ARG_INT)
BFS_EMU_KIND(short, ARG_INT)
BFS_EMU_KIND(unsigned short, ARG_INT)
BFS_EMU_KIND(int, ARG_INT)
BFS_EMU_KIND(unsigned int, ARG_INT)
BFS_EMU_KIND(long, ARG_INT)
BFS_EMU_KIND(unsigned long, ARG_INT)
BFS_EMU_KIND(long long, ARG_INT)
BFS_EMU_KIND(unsigned long long, ARG_INT)
BFS_EMU_KIND(float, ARG_FLOAT)
BFS_EMU_KIND(double, ARG_FLOAT)
#undef BFS_EMU_KIND

template <auto Kernel>
struct Launcher;

template <class... A, void (*Kernel)(A...)>
struct Launcher<Kernel> {
    // One GPU thread: unpack the arguments and call the kernel.
    template <unsigned... I>
    __attribute__((always_inline)) static void call(void** args, Seq<I...>) {
        Kernel(*static_cast<A*>(args[I])...);
    }
    static void body(void** args) { call(args, typename MakeSeq<sizeof...(A)>::type()); }

    static int launch(const char* name, const LaunchConfig* cfg, void** args, int nargs,
                      const int* arg_codes, char* err, int errlen) {
        static const int param_codes[sizeof...(A) + 1] = {
            arg_code(KindOf<A>::value, (int)sizeof(A))..., 0};
        if (!api) {
            __builtin_strncpy(err, "kernel module is not bound to the emulator runtime", errlen);
            return 1;
        }
        return api->run(name, cfg, BFS_EMULATOR_WARP_SIZE, &body, args, nargs, arg_codes,
                        (int)sizeof...(A), param_codes, err, errlen);
    }
};

}  // namespace bfs_emu

#define BFS_EMU_MODULE()                                                                  \
    extern "C" __attribute__((visibility("default"))) int bfs_emu_bind(                   \
        const ::bfs_emu::Api* a) {                                                        \
        if (!a || a->abi != BFS_EMU_ABI || a->stack_size != BFS_EMU_STACK_SIZE) return 1; \
        ::bfs_emu::api = a;                                                               \
        return 0;                                                                         \
    }                                                                                     \
    extern "C" __attribute__((visibility("default"))) int bfs_emu_warp_size() {          \
        return BFS_EMULATOR_WARP_SIZE;                                                    \
    }

#define BFS_EMU_KERNEL(name)                                                              \
    extern "C" __attribute__((visibility("default"))) int bfs_emu_launch_##name(         \
        const ::bfs_emu::LaunchConfig* cfg, void** args, int nargs, const int* codes,     \
        char* err, int errlen) {                                                          \
        return ::bfs_emu::Launcher<&name>::launch(#name, cfg, args, nargs, codes, err,    \
                                                  errlen);                                \
    }

#endif  // !BFS_EMU_RUNTIME

#pragma GCC visibility pop

#ifdef BFS_EMU_RUNTIME
// ---------------------------------------------------------------------------------------
// 3. The runtime: scheduler, fibers, worker pool
// ---------------------------------------------------------------------------------------
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

// AddressSanitizer must be told when the stack changes under it, or it reports false
// errors. These are declared weak: they exist only when libasan is loaded, and then
// they are used even by an uninstrumented runtime (ASan may be preloaded anyway).
extern "C" {
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, size_t size)
    __attribute__((weak));
void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old,
                                     size_t* size_old) __attribute__((weak));
}

namespace bfs_emu {
namespace {

const unsigned kMaxLanes = 64;
const unsigned kMaxWarps = BFS_EMU_MAX_BLOCK_THREADS / 32;
const unsigned kFibersPerChunk = 16;
// Written at the lowest address of every fiber stack; a thread that overwrote it ran
// out of stack.
const unsigned long long kCanary = 0x5afe57ac6b0770f5ull;

enum BarrierKind { BLOCK_BARRIER = 1, GRID_BARRIER = 2 };

enum FiberState {
    PARKED,           // no thread: waiting in the worker's free list
    RUNNING,          // its thread is running
    READY,            // its thread may continue: in the block's run queue
    AT_BARRIER,       // its thread waits at __syncthreads
    AT_WARP_OP,       // its thread waits at a warp operation
    FAILED,           // abandoned after an error; must be restarted before reuse
};

struct Worker;

// Where a fiber or a scheduler resumes. __builtin_setjmp saves three words (frame
// pointer, stack pointer, resume address; the compiler saves every other register
// around it) and __builtin_longjmp restores them: a switch is a few instructions.
// __builtin_longjmp must not be called from the function that called __builtin_setjmp
// on the same buffer, hence jump_to, a function of its own.
#if BFS_EMU_ASAN
typedef jmp_buf Context;
#define BFS_EMU_SAVE(ctx) _setjmp(ctx)
[[noreturn]] inline void jump_to(jmp_buf ctx) { _longjmp(ctx, 1); }
#else
typedef void* Context[5];
#define BFS_EMU_SAVE(ctx) __builtin_setjmp(ctx)
[[noreturn]] __attribute__((noinline)) void jump_to(void** ctx) { __builtin_longjmp(ctx, 1); }
#endif

// A fiber: a stack, the registers saved while it is switched out, and the state of
// the thread it runs. Only the ThreadInfo lives at the top of the stack: the stacks
// are 64 KiB apart, so their tops all compete for the same few cache sets, and the
// Fibers themselves are kept in ordinary arrays.
struct Fiber {
    ThreadInfo* info;         // at the top of its stack, where self() finds it
    Context ctx;              // where it resumes, saved while it is switched out
    Worker* worker;           // the worker (OS thread) that owns the fiber
    Fiber* next;              // link in the free list, the run queue or a wait list
    char* stack_lo;           // lowest usable byte of the stack (holds the canary)
    size_t stack_size;
    unsigned linear;          // linear index of its thread in the block
    int state;                // FiberState
    long long result;         // what the barrier or warp operation returns to the thread
    void* asan_fake_stack;    // AddressSanitizer's bookkeeping while switched out
};
static_assert(sizeof(ThreadInfo) <= BFS_EMU_FIBER_RESERVE, "ThreadInfo must fit the stack's top");

inline Fiber* current_fiber() { return (Fiber*)self()->fiber; }

// A list of fibers in arrival order.
struct FiberList {
    Fiber* head = nullptr;
    Fiber* tail = nullptr;
    void push(Fiber* f) {
        f->next = nullptr;
        if (tail) tail->next = f; else head = f;
        tail = f;
    }
    Fiber* pop() {
        Fiber* f = head;
        if (f) {
            head = f->next;
            if (!head) tail = nullptr;
        }
        return f;
    }
};

// The pending operation of one warp: each arriving lane deposits its value; the last
// lane to arrive computes everyone's result.
struct WarpState {
    unsigned live;            // lanes that have not exited (started or not)
    unsigned arrived;         // lanes waiting at the pending operation
    int op;                   // WARP_BALLOT, WARP_SHFL (all shuffles) or WARP_SYNC
    int other_op;             // a different operation some lane reached instead (an error)
    unsigned long long present;  // lanes that arrived, one bit each
    unsigned long long ballot;   // lanes that arrived with a true predicate
    FiberList waiters;
    long long value[kMaxLanes];
    unsigned char src[kMaxLanes];  // the lane each lane reads from (shuffles)
};

// One grid launch.
struct Job {
    const char* name;
    unsigned long long grid[3];
    unsigned block[3];
    unsigned long long nblocks;
    unsigned nthreads;
    unsigned warp_size;
    size_t shared_mem;
    void (*body)(void**);
    void** args;
    std::atomic<unsigned long long> next_block{0};
    std::atomic<bool> failed{false};
    std::mutex error_mutex;
    char error[1024] = {0};
    // A cooperative launch: every block runs at once, on a worker of its own, and the
    // blocks may wait for each other at the grid barrier.
    bool cooperative = false;
    std::mutex grid_mutex;
    std::condition_variable grid_cv;
    unsigned long long grid_arrived = 0;     // blocks waiting at the grid barrier
    unsigned long long grid_generation = 0;  // crossings completed
    unsigned long long blocks_done = 0;      // blocks that have finished (or failed)
};

// The block a worker is running.
struct BlockRun {
    BlockInfo info;
    Job* job;
    unsigned nthreads, warp_size, warp_shift, nwarps;
    unsigned next_start;      // threads 0..next_start-1 have started
    unsigned nx, ny, nz;      // threadIdx of thread next_start
    unsigned exited;
    unsigned barrier_arrived, barrier_true;
    int barrier_kind;         // what the waiting threads wait at: BLOCK_BARRIER or GRID_BARRIER
    FiberList barrier_waiters;
    FiberList ready;          // threads whose wait is over, to resume in order
    bool failed;
    char error[768];
    WarpState warps[kMaxWarps];
};

struct ChunkMap {
    void* addr;     // the mapping of the stacks
    size_t len;
    Fiber* fibers;  // their bookkeeping
    char* base;     // the first stack, aligned to its size (registered with guard pages)
    bool guarded;
    int mappings;   // what it costs of the process's memory mappings
};

// One OS thread that runs blocks: its scheduler context, its fibers, its block.
struct Worker {
    Context sched;            // where the scheduler resumes while a fiber runs
    BlockRun run;
    std::vector<Fiber*> fibers;
    std::vector<ChunkMap> chunks;  // the mappings that hold the fibers' stacks
    Fiber* free_list = nullptr;
    char* shared_buf = nullptr;
    size_t shared_cap = 0;
    void* signal_stack = nullptr;  // ours, if the thread had none
    // AddressSanitizer: the OS thread's own stack, which the scheduler runs on.
    const void* native_bottom = nullptr;
    size_t native_size = 0;
    void* native_fake_stack = nullptr;
};

// -- fiber switching ----------------------------------------------------------------------

inline void asan_start_switch(void** save, const void* bottom, size_t size) {
    if (__sanitizer_start_switch_fiber) __sanitizer_start_switch_fiber(save, bottom, size);
}
inline void asan_finish_switch(void* save, const void** bottom_old, size_t* size_old) {
    if (__sanitizer_finish_switch_fiber) __sanitizer_finish_switch_fiber(save, bottom_old, size_old);
}

// The one fiber switch: save the running fiber's registers in f->ctx and continue
// from `to` (another fiber's ctx, or the scheduler's), whose stack is
// [bottom, bottom + size). Returns when someone jumps back to f->ctx.
__attribute__((noinline)) void switch_fiber(Fiber* f, Context to, const void* bottom, size_t size) {
    if (!BFS_EMU_SAVE(f->ctx)) {
        asan_start_switch(&f->asan_fake_stack, bottom, size);
        jump_to(to);
    }
    asan_finish_switch(f->asan_fake_stack, nullptr, nullptr);
}

// From the running fiber back to its worker's scheduler.
void to_scheduler(Fiber* f) {
    Worker* w = f->worker;
    switch_fiber(f, w->sched, w->native_bottom, w->native_size);
}

// From the running fiber f, whose thread now waits (or which has no thread left), to
// the next fiber with work: one whose thread may go on, else a free fiber to start
// more threads. Handing over directly saves a trip through the scheduler; only when
// there is nothing to hand over to (the block is done, deadlocked, or needs a new
// fiber) does control go back to the scheduler. Returns when f is resumed.
void switch_from(Fiber* f) {
    Worker* w = f->worker;
    BlockRun& b = w->run;
    Fiber* next = b.ready.pop();
    if (!next && b.next_start < b.nthreads && w->free_list) {
        next = w->free_list;
        w->free_list = next->next;
    }
    if (next) {
        next->state = RUNNING;
        switch_fiber(f, next->ctx, next->stack_lo, next->stack_size);
    } else {
        switch_fiber(f, w->sched, w->native_bottom, w->native_size);
    }
}

// From the scheduler into fiber f. Returns when a fiber switches back to the scheduler.
void resume(Worker* w, Fiber* f) {
    f->state = RUNNING;
    if (!BFS_EMU_SAVE(w->sched)) {
        asan_start_switch(&w->native_fake_stack, f->stack_lo, f->stack_size);
        jump_to(f->ctx);
    }
    asan_finish_switch(w->native_fake_stack, nullptr, nullptr);
}

void run_threads(Fiber* f);

// Where every fiber starts (through makecontext): it parks at once, and from then on
// runs threads of whatever block its worker is running, and parks in the worker's
// free list when there are none left to start.
void fiber_main() {
    Fiber* f = current_fiber();
    const void* bottom = nullptr;
    size_t size = 0;
    asan_finish_switch(nullptr, &bottom, &size);  // arrived from the scheduler's stack
    if (bottom && !f->worker->native_bottom) {
        f->worker->native_bottom = bottom;
        f->worker->native_size = size;
    }
    f->state = PARKED;
    to_scheduler(f);  // back to start_fiber
    for (;;) {
        run_threads(f);
        // Its worker now: a fiber given to the pool of stacks (pool_fibers) may be taken
        // by another worker.
        Worker* w = f->worker;
        f->state = PARKED;
        f->next = w->free_list;
        w->free_list = f;
        switch_from(f);
    }
}

// Start (or restart, after an error abandoned its thread) a fiber on its stack. This
// is the only place that uses swapcontext, once per fiber.
bool start_fiber(Worker* w, Fiber* f) {
    ucontext_t uc, back;
    if (getcontext(&uc) != 0) return false;
    uc.uc_stack.ss_sp = f->stack_lo;
    uc.uc_stack.ss_size = f->stack_size;
    uc.uc_link = nullptr;
    makecontext(&uc, fiber_main, 0);
    *(unsigned long long*)f->stack_lo = kCanary;
    f->asan_fake_stack = nullptr;
    f->state = PARKED;
    if (!BFS_EMU_SAVE(w->sched)) {
        asan_start_switch(&w->native_fake_stack, f->stack_lo, f->stack_size);
        swapcontext(&back, &uc);  // fiber_main parks and jumps back to w->sched
    }
    asan_finish_switch(w->native_fake_stack, nullptr, nullptr);
    return true;
}

// -- a clear word when a thread overflows its stack ----------------------------------------
// A thread that outgrows its stack touches the guard page below it and faults, which
// ends the process, as an illegal address ends a GPU program. This handler first says
// which kernel and why. It runs on an alternate signal stack (the thread's own stack
// is the one that overflowed) and then passes the fault on to the handler that was
// there before (Python's faulthandler, AddressSanitizer's, or the default).

const int kMaxChunks = 1 << 14;
std::atomic<__UINTPTR_TYPE__> g_chunk_base[kMaxChunks];  // 0 until published
std::atomic<int> g_chunks_reserved{0};
struct sigaction g_previous_segv;
size_t g_page_size = 4096;

void write_text(const char* text) {
    size_t n = 0;
    while (text[n]) n++;
    if (write(2, text, n) < 0) { /* nothing more can be done in a signal handler */ }
}

void write_number(unsigned long v) {
    char digits[24];
    int n = 0;
    do digits[sizeof digits - ++n] = (char)('0' + v % 10); while (v /= 10);
    if (write(2, digits + sizeof digits - n, (size_t)n) < 0) { }
}

void write_dim(const uint3& d) {
    write_text("(");
    write_number(d.x);
    write_text(",");
    write_number(d.y);
    write_text(",");
    write_number(d.z);
    write_text(")");
}

void on_segv(int sig, siginfo_t* info, void* context) {
    const __UINTPTR_TYPE__ a = (__UINTPTR_TYPE__)info->si_addr, S = BFS_EMU_STACK_SIZE;
    int n = g_chunks_reserved.load();
    for (int i = 0; i < n && i < kMaxChunks; i++) {
        __UINTPTR_TYPE__ base = g_chunk_base[i].load(std::memory_order_acquire);
        if (base && a >= base && a < base + kFibersPerChunk * S && (a - base) % S < g_page_size) {
            const ThreadInfo* t = (const ThreadInfo*)((a | (S - 1)) + 1 - BFS_EMU_FIBER_RESERVE);
            const BlockRun& b = ((const Fiber*)t->fiber)->worker->run;
            write_text("\nkernel ");
            write_text(b.job->name);
            write_text(" overflowed the stack of thread ");
            write_dim(t->thread_idx);
            write_text(" in block ");
            write_dim(b.info.block_idx);
            write_text(": the emulator gives each GPU thread ");
            write_number(BFS_EMU_STACK_SIZE / 1024);
            write_text(" KiB of stack; large local arrays belong in shared or global memory\n");
            break;
        }
    }
    if (g_previous_segv.sa_flags & SA_SIGINFO) {
        g_previous_segv.sa_sigaction(sig, info, context);
    } else if (g_previous_segv.sa_handler != SIG_DFL && g_previous_segv.sa_handler != SIG_IGN) {
        g_previous_segv.sa_handler(sig);
    } else {
        sigaction(SIGSEGV, &g_previous_segv, nullptr);  // returning faults again, fatally
    }
}

void watch_guard_pages(char* base) {
    static bool installed = [] {
        g_page_size = (size_t)sysconf(_SC_PAGESIZE);
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_segv;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        return sigaction(SIGSEGV, &action, &g_previous_segv) == 0;
    }();
    (void)installed;
    // Reuse a slot that a released chunk left free before taking a new one.
    const int n = g_chunks_reserved.load();
    for (int i = 0; i < n && i < kMaxChunks; i++) {
        __UINTPTR_TYPE__ expected = 0;
        if (g_chunk_base[i].compare_exchange_strong(expected, (__UINTPTR_TYPE__)base)) return;
    }
    int i = g_chunks_reserved.fetch_add(1);
    if (i < kMaxChunks) g_chunk_base[i].store((__UINTPTR_TYPE__)base, std::memory_order_release);
}

void unwatch_guard_pages(char* base) {
    const int n = g_chunks_reserved.load();
    for (int i = 0; i < n && i < kMaxChunks; i++) {
        __UINTPTR_TYPE__ expected = (__UINTPTR_TYPE__)base;
        if (g_chunk_base[i].compare_exchange_strong(expected, 0)) return;
    }
}

// The alternate signal stack of a worker's thread, unless it has one already.
void* give_signal_stack() {
    stack_t current;
    if (sigaltstack(nullptr, &current) != 0 || !(current.ss_flags & SS_DISABLE)) return nullptr;
    stack_t alt;
    alt.ss_size = 64 * 1024;
    alt.ss_sp = malloc(alt.ss_size);
    alt.ss_flags = 0;
    if (alt.ss_sp && sigaltstack(&alt, nullptr) != 0) {
        free(alt.ss_sp);
        return nullptr;
    }
    return alt.ss_sp;
}

// A process may have only so many memory mappings (vm.max_map_count, often 65530), and
// a cooperative launch runs each block on a helper thread of its own, with stacks of its
// own: a large grid on a machine of many cores would leave thousands of them behind. So
// the helpers of a cooperative launch give their stacks back when it ends: into a pool
// that the next one takes them from (making and giving back thousands of stacks costs
// more than a small launch), as long as the pool holds at most kPooledMappings mappings;
// the rest are unmapped. With guard regions a chunk of 16 stacks is one mapping, so the
// pool keeps up to 4,096 stacks; with mprotect's guard pages, two mappings per stack,
// next to none.
const long kPooledMappings = 256;

struct StackPool {
    std::mutex m;
    std::vector<ChunkMap> chunks;  // every fiber parked, belonging to no worker
    long mappings = 0;
};
StackPool g_stacks;

void unmap_chunk(const ChunkMap& c) {
    if (c.guarded) unwatch_guard_pages(c.base);
    munmap(c.addr, c.len);
    delete[] c.fibers;
}

// Give every stack of a worker whose fibers are all parked to the pool, or back to the
// system once the pool is full.
void pool_fibers(Worker* w) {
    // Under AddressSanitizer each worker tells it where its own stack is, which a worker
    // learns by starting a fiber: there every stack is unmapped.
    const bool asan = __sanitizer_start_switch_fiber != nullptr;
    std::vector<ChunkMap> unmap;
    {
        std::lock_guard<std::mutex> lock(g_stacks.m);
        for (const ChunkMap& c : w->chunks) {
            if (!asan && g_stacks.mappings + c.mappings <= kPooledMappings) {
                g_stacks.chunks.push_back(c);
                g_stacks.mappings += c.mappings;
            } else {
                unmap.push_back(c);
            }
        }
    }
    for (const ChunkMap& c : unmap) unmap_chunk(c);
    w->chunks.clear();
    w->fibers.clear();
    w->free_list = nullptr;
}

// A chunk of parked fibers from the pool, now the worker's; false if the pool is empty.
bool fibers_from_pool(Worker* w) {
    ChunkMap c;
    {
        std::lock_guard<std::mutex> lock(g_stacks.m);
        if (g_stacks.chunks.empty()) return false;
        c = g_stacks.chunks.back();
        g_stacks.chunks.pop_back();
        g_stacks.mappings -= c.mappings;
    }
    w->chunks.push_back(c);
    for (unsigned i = 0; i < kFibersPerChunk; i++) {
        Fiber* f = &c.fibers[i];
        f->worker = w;  // a parked fiber resumes on whichever worker takes it
        w->fibers.push_back(f);
        f->next = w->free_list;
        w->free_list = f;
    }
    return true;
}

// Linux 6.13's guard regions: pages that fault like PROT_NONE ones, marked in the page
// tables instead of splitting the mapping (older kernels refuse it with EINVAL).
// RODINIA_BFS_EMU_GUARD=mprotect makes the guard pages with mprotect even there (the
// tests use it, so that both ways are tested on any kernel).
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif
std::atomic<bool> g_guard_regions{true};  // until the kernel refuses one

bool guard_regions_wanted() {
    const char* how = getenv("RODINIA_BFS_EMU_GUARD");
    return g_guard_regions.load(std::memory_order_relaxed) && !(how && !strcmp(how, "mprotect"));
}

// Make the page at `page_addr` a guard page: a guard region (the chunk stays one
// mapping), else with mprotect (two mappings per stack). Returns the mappings it added,
// or -1 if refused.
int guard_page(char* page_addr, size_t page, bool regions) {
    if (regions) {
        if (madvise(page_addr, page, MADV_GUARD_INSTALL) == 0) return 0;
        g_guard_regions.store(false, std::memory_order_relaxed);
    }
    return mprotect(page_addr, page, PROT_NONE) == 0 ? 2 : -1;
}

// Allocate fibers in chunks: one mapping of kFibersPerChunk stacks, each aligned to its
// size (self() relies on it), each with an inaccessible guard page below it so that a
// stack overflow faults instead of overwriting the neighbouring stack.
bool add_fibers(Worker* w) {
    const size_t S = BFS_EMU_STACK_SIZE;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t len = (kFibersPerChunk + 1) * S;
    void* map = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (map == MAP_FAILED) return false;
    char* base = (char*)(((__UINTPTR_TYPE__)map + S - 1) & ~(__UINTPTR_TYPE__)(S - 1));
    Fiber* fibers = new Fiber[kFibersPerChunk]();
    const bool guard = page * 4 <= S;
    bool regions = guard && guard_regions_wanted();
    w->chunks.push_back(ChunkMap{map, len, fibers, base, guard, 1});
    for (unsigned i = 0; i < kFibersPerChunk; i++) {
        char* region = base + i * S;
        // The guard page may be refused (too many mappings): the canary still catches
        // most overflows, after the fact.
        if (guard) {
            const int added = guard_page(region, page, regions);
            if (added > 0) w->chunks.back().mappings += added;
            regions = regions && added == 0;
        }
        Fiber* f = &fibers[i];
        f->info = new (region + S - BFS_EMU_FIBER_RESERVE) ThreadInfo();
        f->info->fiber = f;
        f->worker = w;
        f->stack_lo = region + (guard ? page : 0);
        // Stagger where each stack starts (by 0 to 31 cache lines), so that the hot top
        // frames of fibers 64 KiB apart do not all compete for the same cache sets.
        f->stack_size = (size_t)((region + S - BFS_EMU_FIBER_RESERVE) - f->stack_lo) - 64 * (w->fibers.size() % 32);
        if (!start_fiber(w, f)) return false;
        w->fibers.push_back(f);
        f->next = w->free_list;
        w->free_list = f;
    }
    if (guard) watch_guard_pages(base);
    return true;
}

// Each OS thread that runs blocks (the launching thread and the pool's helpers) has
// its own worker; its fibers never move to another thread. The worker goes away with
// its thread (a Python thread that launched kernels, say).
struct WorkerHolder {
    Worker* worker = nullptr;
    ~WorkerHolder() {
        if (!worker) return;
        for (const ChunkMap& c : worker->chunks) {
            munmap(c.addr, c.len);
            delete[] c.fibers;
        }
        free(worker->shared_buf);
        if (worker->signal_stack) {
            stack_t off;
            memset(&off, 0, sizeof off);
            off.ss_flags = SS_DISABLE;
            sigaltstack(&off, nullptr);
            free(worker->signal_stack);
        }
        delete worker;
    }
};

Worker* this_worker() {
    static thread_local WorkerHolder holder;
    if (!holder.worker) {
        holder.worker = new Worker();
        holder.worker->signal_stack = give_signal_stack();
    }
    return holder.worker;
}

// -- errors ------------------------------------------------------------------------------

void block_error(BlockRun& b, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void block_error(BlockRun& b, const char* fmt, ...) {
    if (b.failed) return;
    b.failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b.error, sizeof b.error, fmt, ap);
    va_end(ap);
}

const char* op_name(int op) {
    switch (op) {
        case WARP_BALLOT: return "a vote (warp_ballot)";
        case WARP_SHFL: return "a shuffle (warp_shfl)";
        case WARP_SYNC: return "warp_sync";
        default: return "an unknown warp operation";
    }
}

// Stop the running fiber after an error: it switches to the scheduler for good and is
// restarted before it is used again.
[[noreturn]] void abandon(Fiber* f) {
    f->state = FAILED;
    to_scheduler(f);
    abort();  // never resumed
}

void check_stack(Fiber* f) {
    if (*(unsigned long long*)f->stack_lo != kCanary) {
        BlockRun& b = f->worker->run;
        block_error(b,
                    "kernel %s overflowed a thread's stack in block (%u,%u,%u): the emulator gives "
                    "each GPU thread %u KiB; large local arrays belong in shared or global memory",
                    b.job->name, b.info.block_idx.x, b.info.block_idx.y, b.info.block_idx.z,
                    BFS_EMU_STACK_SIZE / 1024);
        abandon(f);
    }
}

// -- barriers and warp operations ------------------------------------------------------------

// Every thread that has not exited is at the barrier: let them all go on.
void release_barrier(BlockRun& b, Fiber* running) {
    long long r = ((long long)b.barrier_true << 32) | b.barrier_arrived;
    while (Fiber* g = b.barrier_waiters.pop()) {
        g->result = r;
        if (g == running) {
            g->state = RUNNING;
        } else {
            g->state = READY;
            b.ready.push(g);
        }
    }
    b.barrier_arrived = b.barrier_true = 0;
    b.barrier_kind = 0;
}

// Every lane of the warp that has not exited has arrived: compute each lane's result.
void complete_warp_op(BlockRun& b, WarpState& w, Fiber* running) {
    if (w.other_op) {
        unsigned index = (unsigned)(&w - b.warps);
        block_error(b,
                    "kernel %s: in block (%u,%u,%u), the lanes of warp %u reached different warp "
                    "operations (%s and %s); every lane that has not exited must reach the same one",
                    b.job->name, b.info.block_idx.x, b.info.block_idx.y, b.info.block_idx.z, index,
                    op_name(w.op), op_name(w.other_op));
        abandon(running);
    }
    const unsigned mask = b.warp_size - 1;
    while (Fiber* g = w.waiters.pop()) {
        unsigned lane = g->linear & mask;
        if (w.op == WARP_BALLOT) {
            g->result = (long long)w.ballot;
        } else if (w.op == WARP_SHFL) {
            unsigned s = w.src[lane];
            // Reading a lane that exited (or does not exist, in a partial last warp)
            // is undefined on a GPU; here it reads 0.
            g->result = (w.present >> s) & 1 ? w.value[s] : 0;
        } else {
            g->result = 0;
        }
        if (g == running) {
            g->state = RUNNING;
        } else {
            g->state = READY;
            b.ready.push(g);
        }
    }
    w.arrived = 0;
    w.present = w.ballot = 0;
    w.other_op = 0;
}

// The job failed: say why, once (the first error wins), and wake every block waiting
// at the grid barrier so that it can give up too.
void job_fail(Job* job, const char* message) {
    {
        std::lock_guard<std::mutex> lock(job->error_mutex);
        if (!job->failed.exchange(true)) snprintf(job->error, sizeof job->error, "%s", message);
    }
    std::lock_guard<std::mutex> lock(job->grid_mutex);
    job->grid_cv.notify_all();
}

// Called with grid_mutex held, when no block can arrive at the grid barrier any more:
// `waiting` blocks wait there and every other block has finished without arriving.
void grid_deadlock(Job* job) {
    char message[768];
    snprintf(message, sizeof message,
             "kernel %s deadlocked at the grid barrier: %llu of its %llu blocks wait at grid_sync "
             "while %llu finished without reaching it. In a cooperative launch every block must "
             "reach every grid_sync (on a GPU this launch would hang)",
             job->name, job->grid_arrived, job->nblocks, job->blocks_done);
    {
        std::lock_guard<std::mutex> lock(job->error_mutex);
        if (!job->failed.exchange(true)) snprintf(job->error, sizeof job->error, "%s", message);
    }
    job->grid_cv.notify_all();
}

// The whole block is at grid_sync: wait, on this OS thread, for every other block.
// Returns false when the launch failed meanwhile (a deadlock, an error in another block).
bool grid_wait(BlockRun& b) {
    Job* job = b.job;
    std::unique_lock<std::mutex> lock(job->grid_mutex);
    if (job->failed.load()) return false;
    const unsigned long long generation = job->grid_generation;
    job->grid_arrived++;
    if (job->grid_arrived + job->blocks_done == job->nblocks) {
        if (job->blocks_done) {
            grid_deadlock(job);
            return false;
        }
        job->grid_arrived = 0;  // the last block to arrive lets everyone go
        job->grid_generation++;
        job->grid_cv.notify_all();
        return true;
    }
    job->grid_cv.wait(lock, [&] { return job->grid_generation != generation || job->failed.load(); });
    return job->grid_generation != generation;
}

// Every thread of the block that has not exited is at the barrier: for __syncthreads,
// let them go on; for grid_sync, first wait for the other blocks.
void complete_barrier(BlockRun& b, Fiber* running) {
    if (b.barrier_kind == GRID_BARRIER && !grid_wait(b)) {
        block_error(b, "%s", "");  // the job's error says why
        abandon(running);
    }
    release_barrier(b, running);
}

long long arrive(int kind, int predicate) {
    Fiber* f = current_fiber();
    BlockRun& b = f->worker->run;
    if (kind == GRID_BARRIER && !b.job->cooperative) {
        block_error(b,
                    "kernel %s called grid_sync in a launch that is not cooperative: its blocks "
                    "are not all resident at once, so they cannot wait for each other (use "
                    "launch_cooperative)", b.job->name);
        abandon(f);
    }
    if (b.barrier_arrived && b.barrier_kind != kind) {
        block_error(b,
                    "kernel %s: in block (%u,%u,%u), some threads wait at __syncthreads and others at "
                    "grid_sync; every thread that has not exited must reach the same barrier",
                    b.job->name, b.info.block_idx.x, b.info.block_idx.y, b.info.block_idx.z);
        abandon(f);
    }
    b.barrier_kind = kind;
    f->state = AT_BARRIER;
    b.barrier_waiters.push(f);
    b.barrier_arrived++;
    if (predicate) b.barrier_true++;
    if (b.barrier_arrived == b.nthreads - b.exited) {
        complete_barrier(b, f);  // the last one to arrive goes on without a switch
    } else {
        check_stack(f);
        switch_from(f);
    }
    return f->result;
}

long long barrier(int predicate) { return arrive(BLOCK_BARRIER, predicate); }

long long clock_ns() {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

long long grid_sync() {
    arrive(GRID_BARRIER, 1);
    return 1;
}

long long warp_op(int op, long long value, int arg) {
    Fiber* f = current_fiber();
    BlockRun& b = f->worker->run;
    const unsigned ws = b.warp_size;
    const unsigned lane = f->linear & (ws - 1);
    WarpState& w = b.warps[f->linear >> b.warp_shift];
    // The lane this lane reads from, for the shuffles; out-of-range lanes keep their
    // own value, as __shfl_up and __shfl_down do.
    unsigned src = lane;
    switch (op) {
        case WARP_SHFL: src = (unsigned)arg & (ws - 1); break;
        case WARP_SHFL_UP: src = (arg >= 0 && (unsigned)arg <= lane) ? lane - (unsigned)arg : lane; break;
        case WARP_SHFL_DOWN: src = (arg >= 0 && lane + (unsigned)arg < ws) ? lane + (unsigned)arg : lane; break;
        case WARP_SHFL_XOR: src = lane ^ ((unsigned)arg & (ws - 1)); break;
        default: break;
    }
    if (op >= WARP_SHFL && op <= WARP_SHFL_XOR) op = WARP_SHFL;
    if (w.arrived == 0) {
        w.op = op;
    } else if (w.op != op && !w.other_op) {
        w.other_op = op;
    }
    w.present |= 1ull << lane;
    if (op == WARP_BALLOT && value) w.ballot |= 1ull << lane;
    w.value[lane] = value;
    w.src[lane] = (unsigned char)src;
    w.arrived++;
    f->state = AT_WARP_OP;
    w.waiters.push(f);
    if (w.arrived == w.live) {
        complete_warp_op(b, w, f);
    } else {
        check_stack(f);
        switch_from(f);
    }
    return f->result;
}

// A thread returned from the kernel: a barrier or a warp operation may have been
// waiting for it alone.
void thread_exited(BlockRun& b, Fiber* f) {
    check_stack(f);
    b.exited++;
    WarpState& w = b.warps[f->linear >> b.warp_shift];
    w.live--;
    if (w.arrived && w.arrived == w.live) complete_warp_op(b, w, f);
    if (b.barrier_arrived && b.barrier_arrived == b.nthreads - b.exited) complete_barrier(b, f);
}

// The thread loop of a fiber: start the block's threads one after the other until
// none is left. A thread that waits switches to the scheduler in the middle of
// body(); the scheduler then lets another fiber start the following threads.
void run_threads(Fiber* f) {
    BlockRun& b = f->worker->run;
    Job* job = b.job;
    while (b.next_start < b.nthreads) {
        f->linear = b.next_start++;
        f->info->thread_idx = uint3{b.nx, b.ny, b.nz};
        f->info->block = &b.info;
        if (++b.nx == b.info.block_dim.x) {
            b.nx = 0;
            if (++b.ny == b.info.block_dim.y) {
                b.ny = 0;
                b.nz++;
            }
        }
        job->body(job->args);
        thread_exited(b, f);
    }
}

// -- the block scheduler -----------------------------------------------------------------------

// Restart every fiber an error left in the middle of a thread, and rebuild the free list.
bool recover_fibers(Worker* w) {
    bool ok = true;
    w->free_list = nullptr;
    for (Fiber* f : w->fibers) {
        if (f->state != PARKED) ok = start_fiber(w, f) && ok;
        f->next = w->free_list;
        w->free_list = f;
    }
    return ok;
}

// Run block number `index` of the job on this worker. Returns false with b.error set
// when the block failed (deadlock, divergent warp operation, stack overflow).
bool run_block(Worker* w, Job* job, unsigned long long index) {
    BlockRun& b = w->run;
    b.job = job;
    b.info.block_idx = uint3{(unsigned)(index % job->grid[0]),
                             (unsigned)(index / job->grid[0] % job->grid[1]),
                             (unsigned)(index / (job->grid[0] * job->grid[1]))};
    b.info.block_dim = uint3{job->block[0], job->block[1], job->block[2]};
    b.info.grid_dim = uint3{(unsigned)job->grid[0], (unsigned)job->grid[1], (unsigned)job->grid[2]};
    b.info.dynamic_shared = w->shared_buf;
    b.nthreads = job->nthreads;
    b.warp_size = job->warp_size;
    b.warp_shift = job->warp_size == 64 ? 6 : 5;
    b.nwarps = (b.nthreads + b.warp_size - 1) / b.warp_size;
    b.next_start = b.exited = 0;
    b.nx = b.ny = b.nz = 0;
    b.barrier_arrived = b.barrier_true = 0;
    b.barrier_kind = 0;
    b.barrier_waiters = FiberList();
    b.ready = FiberList();
    b.failed = false;
    for (unsigned i = 0; i < b.nwarps; i++) {
        WarpState& ws = b.warps[i];
        unsigned first = i * b.warp_size;
        ws.live = b.nthreads - first < b.warp_size ? b.nthreads - first : b.warp_size;
        ws.arrived = 0;
        ws.op = ws.other_op = 0;
        ws.present = ws.ballot = 0;
        ws.waiters = FiberList();
    }

    for (;;) {
        Fiber* f = b.ready.pop();
        if (!f) {
            if (b.next_start == b.nthreads) break;  // nothing left to start or resume
            if (!w->free_list && !fibers_from_pool(w) && !add_fibers(w)) {
                block_error(b, "kernel %s: cannot allocate fiber stacks for block (%u,%u,%u)",
                            job->name, b.info.block_idx.x, b.info.block_idx.y, b.info.block_idx.z);
                break;
            }
            f = w->free_list;
            w->free_list = f->next;
        }
        resume(w, f);  // runs until no fiber has anything to hand over to
        if (b.failed) break;
    }

    if (!b.failed && b.exited != b.nthreads) {
        // Threads wait at a barrier no one else can reach. (A block whose threads all wait
        // at grid_sync never gets here: its last thread waits for the other blocks.)
        unsigned at_warp = 0;
        for (unsigned i = 0; i < b.nwarps; i++) at_warp += b.warps[i].arrived;
        block_error(b,
                    "kernel %s deadlocked in block (%u,%u,%u) of %u threads: %u threads waiting "
                    "at __syncthreads, %u waiting at a warp operation, %u exited. Every thread "
                    "of the block that has not exited must reach __syncthreads, and every lane "
                    "of a warp that has not exited must reach its warp operation",
                    job->name, b.info.block_idx.x, b.info.block_idx.y, b.info.block_idx.z,
                    b.nthreads, b.barrier_arrived, at_warp, b.exited);
    }
    if (b.failed) {
        recover_fibers(w);
        return false;
    }
    return true;
}

// Run blocks of the job until none is left (or one failed).
void work(Job* job) {
    Worker* w = this_worker();
    // Dynamic shared memory: one buffer per worker, reused by its blocks. An
    // AddressSanitizer build sizes it exactly, so that overruns are reported.
    if (w->shared_cap < job->shared_mem || (BFS_EMU_ASAN && w->shared_cap != job->shared_mem) ||
        !w->shared_buf) {
        free(w->shared_buf);
        void* p = nullptr;
        size_t n = job->shared_mem ? job->shared_mem : 1;
        if (posix_memalign(&p, 256, n) != 0) p = nullptr;
        w->shared_buf = (char*)p;
        w->shared_cap = p ? job->shared_mem : 0;
        if (!p) {
            std::lock_guard<std::mutex> lock(job->error_mutex);
            if (!job->failed.exchange(true))
                snprintf(job->error, sizeof job->error,
                         "kernel %s: cannot allocate %zu bytes of dynamic shared memory",
                         job->name, job->shared_mem);
            return;
        }
    }
    while (!job->failed.load(std::memory_order_relaxed)) {
        unsigned long long i = job->next_block.fetch_add(1, std::memory_order_relaxed);
        if (i >= job->nblocks) break;
        const bool ok = run_block(w, job, i);
        if (!ok) job_fail(job, w->run.error);
        if (job->cooperative) {
            // One block per worker. A finished block can never reach the grid barrier
            // again: if every other block waits there, nothing will release them.
            std::lock_guard<std::mutex> lock(job->grid_mutex);
            job->blocks_done++;
            if (ok && job->grid_arrived && job->grid_arrived + job->blocks_done == job->nblocks)
                grid_deadlock(job);
            job->grid_cv.notify_all();
            break;
        }
        if (!ok) break;
    }
}

// -- the worker pool ---------------------------------------------------------------------------
// Helper threads are started on first need and then wait for work; the thread that
// launches a grid works on it too. One launch runs at a time (the device's in-order
// stream).

struct Pool {
    std::mutex launch_mutex;
    std::mutex m;
    std::condition_variable work_cv, done_cv;
    Job* job = nullptr;
    unsigned long long generation = 0;
    unsigned wanted = 0;      // helpers that may join the current job
    unsigned joined = 0;      // helpers that did
    unsigned running = 0;     // helpers still working on it
    unsigned threads = 0;     // helper threads started
};

Pool* g_pool = nullptr;

// A forked child has none of the parent's helper threads: start afresh. (The pool of
// stacks is the parent's, but another thread may have held its lock.)
void pool_after_fork() {
    g_pool = new Pool();
    new (&g_stacks.m) std::mutex();
}

Pool* pool() {
    static bool once = [] {
        g_pool = new Pool();
        pthread_atfork(nullptr, nullptr, pool_after_fork);
        return true;
    }();
    (void)once;
    return g_pool;
}

void helper_main(Pool* p) {
    unsigned long long seen = 0;
    std::unique_lock<std::mutex> lock(p->m);
    for (;;) {
        p->work_cv.wait(lock, [&] { return p->generation != seen; });
        seen = p->generation;
        if (!p->job || p->joined >= p->wanted) continue;
        Job* job = p->job;
        p->joined++;
        p->running++;
        lock.unlock();
        const bool cooperative = job->cooperative;
        work(job);
        if (cooperative) pool_fibers(this_worker());
        lock.lock();
        if (--p->running == 0) p->done_cv.notify_all();
    }
}

// -- argument and configuration checks -----------------------------------------------------------

void describe_code(int code, char* out, size_t len) {
    int kind = code >> 16, size = code & 65535;
    switch (kind) {
        case ARG_POINTER: snprintf(out, len, "a pointer (a device buffer)"); break;
        case ARG_INT: snprintf(out, len, "a %d-byte integer (np.int%d or np.uint%d)", size, size * 8, size * 8); break;
        case ARG_FLOAT: snprintf(out, len, "a %d-byte float (np.float%d)", size, size * 8); break;
        case ARG_RECORD: snprintf(out, len, "a %d-byte record (a struct passed by value)", size); break;
        default: snprintf(out, len, "a type the emulator cannot pass (%d bytes)", size); break;
    }
}

bool check_args(const char* name, int nargs, const int* arg_codes, int nparams,
                const int* param_codes, char* err, int errlen) {
    if (nargs != nparams) {
        snprintf(err, errlen, "kernel %s takes %d argument%s, but %d %s given", name, nparams,
                 nparams == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
        return false;
    }
    for (int i = 0; i < nargs; i++) {
        if ((param_codes[i] >> 16) == ARG_UNSUPPORTED) {
            snprintf(err, errlen, "kernel %s: parameter %d has a type the emulator cannot pass "
                     "(kernel parameters must be pointers, scalars or structs)", name, i);
            return false;
        }
        if (arg_codes[i] != param_codes[i]) {
            char want[96], got[96];
            describe_code(param_codes[i], want, sizeof want);
            describe_code(arg_codes[i], got, sizeof got);
            snprintf(err, errlen, "kernel %s: argument %d must be %s, but %s was passed", name, i,
                     want, got);
            return false;
        }
    }
    return true;
}

bool check_config(const char* name, const LaunchConfig* c, int warp_size, char* err, int errlen) {
    const unsigned long long* g = c->grid;
    const unsigned long long* k = c->block;
    if (warp_size != 32 && warp_size != 64) {
        snprintf(err, errlen, "kernel %s: warp size %d is not 32 or 64", name, warp_size);
        return false;
    }
    if (!g[0] || !g[1] || !g[2] || !k[0] || !k[1] || !k[2]) {
        snprintf(err, errlen, "kernel %s: grid and block dimensions must be at least 1", name);
        return false;
    }
    if (g[0] > 0x7fffffffull || g[1] > 65535 || g[2] > 65535) {
        snprintf(err, errlen, "kernel %s: grid (%llu, %llu, %llu) exceeds the limits "
                 "(2147483647, 65535, 65535)", name, g[0], g[1], g[2]);
        return false;
    }
    if (k[0] > BFS_EMU_MAX_BLOCK_THREADS || k[1] > BFS_EMU_MAX_BLOCK_THREADS ||
        k[2] > BFS_EMU_MAX_BLOCK_THREADS || k[0] * k[1] * k[2] > BFS_EMU_MAX_BLOCK_THREADS) {
        snprintf(err, errlen, "kernel %s: a block of (%llu, %llu, %llu) threads exceeds the "
                 "limit of %u threads per block", name, k[0], k[1], k[2], BFS_EMU_MAX_BLOCK_THREADS);
        return false;
    }
    if (c->shared_mem > BFS_EMU_MAX_DYNAMIC_SHARED) {
        snprintf(err, errlen, "kernel %s: %llu bytes of dynamic shared memory exceed the %u a "
                 "block can have", name, c->shared_mem, BFS_EMU_MAX_DYNAMIC_SHARED);
        return false;
    }
    return true;
}

// -- a launch ---------------------------------------------------------------------------------

int run(const char* name, const LaunchConfig* cfg, int warp_size, void (*body)(void**),
        void** args, int nargs, const int* arg_codes, int nparams, const int* param_codes,
        char* err, int errlen) {
    if (!check_args(name, nargs, arg_codes, nparams, param_codes, err, errlen)) return 1;
    if (!check_config(name, cfg, warp_size, err, errlen)) return 1;

    Job job;
    job.name = name;
    for (int i = 0; i < 3; i++) {
        job.grid[i] = cfg->grid[i];
        job.block[i] = (unsigned)cfg->block[i];
    }
    job.nblocks = job.grid[0] * job.grid[1] * job.grid[2];
    job.nthreads = job.block[0] * job.block[1] * job.block[2];
    job.warp_size = (unsigned)warp_size;
    job.shared_mem = (size_t)cfg->shared_mem;
    job.body = body;
    job.args = args;

    job.cooperative = cfg->cooperative != 0;

    unsigned long long workers = cfg->workers < 1 ? 1 : (unsigned long long)cfg->workers;
    if (job.cooperative) workers = job.nblocks;  // every block resident at once
    if (workers > job.nblocks) workers = job.nblocks;
    unsigned helpers = (unsigned)(workers - 1);

    Pool* p = pool();
    std::lock_guard<std::mutex> launch_lock(p->launch_mutex);
    if (helpers) {
        std::unique_lock<std::mutex> lock(p->m);
        while (p->threads < helpers) {
            try {
                std::thread(helper_main, p).detach();
                p->threads++;
            } catch (...) {
                break;  // fewer helpers than asked for: still correct, unless cooperative
            }
        }
        if (job.cooperative && p->threads < helpers) {
            snprintf(err, errlen, "cooperative launch of %s: could start only %u of the %u threads "
                     "that its %llu blocks need to be resident at once", name, p->threads, helpers,
                     job.nblocks);
            return 1;
        }
        p->job = &job;
        p->wanted = helpers;
        p->joined = 0;
        p->generation++;
        lock.unlock();
        // Wake as many helpers as may join, not every thread of the pool (a cooperative
        // launch of many small blocks leaves dozens): each notify_one wakes another
        // waiting helper, and a helper that is not waiting sees the new job before it
        // waits again.
        for (unsigned i = 0; i < helpers; i++) p->work_cv.notify_one();
    }
    work(&job);
    if (helpers) {
        std::unique_lock<std::mutex> lock(p->m);
        p->wanted = 0;  // helpers that wake up only now must not join
        p->done_cv.wait(lock, [&] { return p->running == 0; });
        p->job = nullptr;
    }
    if (job.failed.load()) {
        snprintf(err, errlen, "%s", job.error);
        return 1;
    }
    return 0;
}

const Api kApi = {BFS_EMU_ABI, BFS_EMU_STACK_SIZE, &barrier, &warp_op, &grid_sync, &clock_ns, &run};

}  // namespace
}  // namespace bfs_emu

// The library's one export: the table of calls that kernel modules bind to.
extern "C" __attribute__((visibility("default"))) const bfs_emu::Api* bfs_emu_runtime_api() {
    return &bfs_emu::kApi;
}

#endif  // BFS_EMU_RUNTIME
#endif  // BFS_HIP_EMULATOR_H
