"""Every HIP kernel compiles with NVRTC for NVIDIA targets, on a machine without a GPU.

NVRTC needs no GPU and no driver, only cuda-python and the NVRTC library
(``pip install cuda-bindings nvidia-cuda-nvrtc``). Where they are missing these tests
skip with the reason, except when ``RODINIA_BFS_REQUIRE_NVRTC=1``: then they fail.
"""

import os

import pytest

from rodinia_bfs.errors import CompileError, DeviceError
from rodinia_bfs.kernels import kernel_dir, kernel_headers, kernel_source
from rodinia_bfs.runtime import cuda_backend

from helpers import step_defines

#: Ampere (A100) and Hopper (H100, H200).
ARCHS = ["sm_80", "sm_90"]
#: The headers of hip_kernels/, which a compile must be given (the runtime knows no folder).
HEADERS = kernel_headers()
KERNELS = sorted(p.name for p in kernel_dir().glob("*.hip"))

#: Values for the compile-time tunables of every kernel file (unused ones are harmless).
#: A kernel that needs a new tunable adds it here.
TUNABLES = {"BLOCK_SIZE": 256}


@pytest.fixture(scope="module")
def nvrtc():
    reason = None
    if cuda_backend.nvrtc is None:
        reason = "cuda-python not installed"
    else:
        try:
            cuda_backend.nvrtc_version()
        except DeviceError as exc:
            reason = str(exc)
    if reason:
        if os.environ.get("RODINIA_BFS_REQUIRE_NVRTC") == "1":
            pytest.fail(f"RODINIA_BFS_REQUIRE_NVRTC=1 but {reason}")
        pytest.skip(reason)
    return cuda_backend


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_compiles(nvrtc, kernel, arch):
    cubin = nvrtc.compile_for_arch(kernel_source(kernel), arch, kernel, step_defines(kernel, 32), headers=HEADERS)
    assert cubin[:4] == b"\x7fELF"  # machine code for that GPU, loadable as it is


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
    source = '#include "bfs_common.h"\n\nextern "C" __global__ void k(int* a) { a[0] = ; }\n'
    with pytest.raises(CompileError) as caught:
        nvrtc.compile_for_arch(source, "sm_90", "broken.hip", headers=HEADERS)
    error = caught.value
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
