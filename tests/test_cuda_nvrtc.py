"""NVRTC compiles the HIP kernels for NVIDIA targets on a machine without a GPU.

Every step's kernel is compiled for sm_80 and sm_90 in tests/test_step_contract.py;
the tests here check the compiler path itself (PTX, the compatibility header, logs).

NVRTC needs no GPU and no driver, only cuda-python and the NVRTC library
(``pip install cuda-bindings nvidia-cuda-nvrtc``). Where they are missing these tests
skip with the reason, except when ``RODINIA_BFS_REQUIRE_NVRTC=1``: then they fail.
"""

import re

import pytest

from rodinia_bfs.errors import CompileError
from rodinia_bfs.kernels import kernel_headers, kernel_source
from rodinia_bfs.variants.adaptive import AdaptiveBFS
from rodinia_bfs.variants.push_pull import PushPullBFS

from helpers import nvrtc_or_skip, syntax_error

#: Ampere (A100) and Hopper (H100, H200).
ARCHS = ["sm_80", "sm_90"]
#: The headers of hip_kernels/, which a compile must be given (the runtime knows no folder).
HEADERS = kernel_headers()

#: Tunables for the tests below that compile step 1's kernels by hand.
TUNABLES = {"BLOCK_SIZE": 256}


@pytest.fixture(scope="module")
def nvrtc():
    return nvrtc_or_skip()


def test_ptx_for_a_virtual_architecture(nvrtc):
    ptx = nvrtc.compile_for_arch(kernel_source("rodinia.hip"), "compute_90", "rodinia.hip", TUNABLES, headers=HEADERS)
    assert b".entry Kernel1" in ptx and b".entry Kernel2" in ptx
    assert ptx.endswith(b"\0")  # cuModuleLoadData reads PTX as a C string


def test_warp_size_is_32(nvrtc):
    nvrtc.compile_for_arch('#include "bfs_common.h"\nstatic_assert(WARP_SIZE == 32, "w");\n',
                           "sm_90", "warp.hip", headers=HEADERS)


def test_compat_header_is_pre_included(nvrtc):
    source = ('#if !defined(__HIP_PLATFORM_NVIDIA__) || defined(__HIP_PLATFORM_AMD__)\n'
              '#error "not pre-included"\n#endif\n')
    nvrtc.compile_for_arch(source, "sm_80", "platform.hip", headers=HEADERS)


def test_hip_warp_intrinsics_compile(nvrtc):
    """HIP's spellings of warp votes and shuffles, which CUDA has only as *_sync."""
    source = r'''
    #include "bfs_common.h"
    extern "C" __global__ void k(unsigned long long* out, double* d) {
        unsigned long long m = __ballot(threadIdx.x & 1);
        int a = __any(threadIdx.x == 3) + __all(threadIdx.x < 64);
        int s = __shfl(a, 0) + __shfl_up(a, 1) + __shfl_down(a, 2) + __shfl_xor(a, 1);
        double x = __shfl(d[threadIdx.x], 1, 16);
        out[threadIdx.x] = m + a + s + (bfs_i64)x + __lane_id();
    }
    '''
    for arch in ARCHS:
        nvrtc.compile_for_arch(source, arch, "warp.hip", headers=HEADERS)


def test_syntax_error_gives_the_nvrtc_log(nvrtc):
    error = syntax_error(nvrtc, "sm_90")
    assert "broken.hip(3): error" in error.log  # the file and line of the mistake
    assert "broken.hip(3): error" in str(error)
    assert "NVRTC_ERROR_COMPILATION" in str(error)


def test_defines_reach_the_kernel(nvrtc):
    source = '#if !defined(FOO) || FOO != 42\n#error "FOO is not 42"\n#endif\n'
    nvrtc.compile_for_arch(source, "sm_90", "defines.hip", {"FOO": 42}, headers=HEADERS)
    with pytest.raises(CompileError, match="FOO is not 42"):
        nvrtc.compile_for_arch(source, "sm_90", "defines.hip", {"FOO": 41}, headers=HEADERS)


def test_target_for_each_device(nvrtc):
    """A cubin where NVRTC knows the GPU, else PTX for the newest older one it knows."""
    assert nvrtc.nvrtc_target(9, 0) == "sm_90"
    assert nvrtc.nvrtc_target(8, 0) == "sm_80"
    assert nvrtc.nvrtc_target(99, 9).startswith("compute_")


def spills(log: str, kernel: str) -> tuple[int, int]:
    """Bytes of spill stores and loads that ptxas reports for ``kernel`` (-v's log)."""
    found = re.search(r"Function properties for %s\n.*?(\d+) bytes spill stores, (\d+) bytes "
                      r"spill loads" % kernel, log, re.S)
    assert found, f"no register report for {kernel} in:\n{log}"
    return int(found.group(1)), int(found.group(2))


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("step_class", [PushPullBFS, AdaptiveBFS], ids=["step6", "step7"])
def test_grid_state_stays_in_registers(nvrtc, arch, step_class):
    """Steps 6 and 7's grid kernel keeps the search's state (SearchState) and step 7's
    hand-over in registers: a value spilled to local memory is stored and loaded again at
    every level, a trip to memory on the level's chain. ptxas gives the kernel 64
    registers a thread (two blocks of 512 a multiprocessor); the test fails if it has to
    spill."""
    _, log = nvrtc.compile_program(kernel_source(step_class.kernel_file), arch,
                                   step_class.kernel_file, step_class.default_defines(32),
                                   headers=HEADERS, options=("--ptxas-options=-v",))
    assert spills(log, "push_pull_bfs") == (0, 0)


def test_spills_are_seen(nvrtc):
    """The check above can fail: a kernel held to fewer registers than it needs spills."""
    source = r'''
    extern "C" __global__ void __launch_bounds__(1024, 2) k(const float* a, float* b) {
        float x[40];
        for (int i = 0; i < 40; i++) x[i] = a[threadIdx.x + i * 1024];
        float s = 0;
        for (int j = 0; j < 40; j++) s += x[j] * x[(j * 7) % 40];
        for (int i = 0; i < 40; i++) b[threadIdx.x + i * 1024] = x[i] + s;
    }'''
    _, log = nvrtc.compile_program(source, "sm_90", "k.hip", options=("--ptxas-options=-v",))
    assert spills(log, "k") != (0, 0)
