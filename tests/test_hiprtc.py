"""hiprtc compiles HIP kernels for AMD targets on a machine without a GPU.

Every step's kernel is compiled for gfx90a and gfx1030 in tests/test_step_contract.py;
the tests here check the compiler path itself (targets, logs, macros, headers).

hiprtc compiles for any target without a device, so these run wherever HIP Python and
ROCm's hiprtc are installed (CI installs Debian's packages with
``.ci/install-rocm-hiprtc.sh``). Elsewhere they skip with the reason, except when
``RODINIA_BFS_REQUIRE_HIPRTC=1``, which CI sets: then a missing hiprtc fails them.
"""

import pytest

from rodinia_bfs.errors import CompileError, DeviceError
from rodinia_bfs.kernels import kernel_dir, kernel_headers, kernel_source

from helpers import hiprtc_or_skip, syntax_error

#: CDNA 2 (MI200, wavefronts of 64) and RDNA 2 (wavefronts of 32).
ARCHS = ["gfx90a", "gfx1030"]
WAVEFRONT = {"gfx90a": 64, "gfx1030": 32}
#: The headers of hip_kernels/, which a compile must be given (the runtime knows no folder).
HEADERS = kernel_headers()
KERNELS = sorted(p.name for p in kernel_dir().glob("*.hip"))

#: Tunables for the tests below that compile step 1's kernels by hand.
TUNABLES = {"BLOCK_SIZE": 256}


@pytest.fixture(scope="module")
def hiprtc():
    return hiprtc_or_skip()


def test_kernels_found():
    """Every step's kernel compiles for these targets in tests/test_step_contract.py."""
    assert "rodinia.hip" in KERNELS


@pytest.mark.parametrize("arch", ARCHS)
def test_warp_size_follows_the_target(hiprtc, arch):
    """bfs_common.h takes WARP_SIZE from the compiler: 64 on CDNA, 32 on RDNA."""
    width = WAVEFRONT[arch]
    assertion = '#include "bfs_common.h"\nstatic_assert(WARP_SIZE == {}, "WARP_SIZE");\n'
    hiprtc.compile_for_arch(assertion.format(width), arch, "warp.hip", headers=HEADERS)
    with pytest.raises(CompileError, match="static assertion failed"):
        hiprtc.compile_for_arch(assertion.format(96 - width), arch, "warp.hip", headers=HEADERS)


def test_feature_flags_are_stripped(hiprtc):
    """gcnArchName carries feature flags; the code is built for the bare target."""
    assert hiprtc.offload_arch("gfx90a:sramecc+:xnack-") == "gfx90a"
    code = hiprtc.compile_for_arch(kernel_source("rodinia.hip"), "gfx90a:sramecc+:xnack-",
                                   "rodinia.hip", TUNABLES, headers=HEADERS)
    assert code[:4] == b"\x7fELF"


def test_syntax_error_gives_the_hiprtc_log(hiprtc):
    error = syntax_error(hiprtc, "gfx90a")
    assert "broken.hip:3:" in error.log  # the file and line of the mistake
    assert "expected expression" in error.log
    assert "broken.hip:3:" in str(error)  # the message carries the log too
    assert "HIPRTC_ERROR_COMPILATION" in str(error)


def test_error_in_a_header_names_the_header(hiprtc):
    with pytest.raises(CompileError) as caught:
        hiprtc.compile_for_arch('#include "mine.h"\n', "gfx1030", "user.hip",
                                headers={"mine.h": "int x = ;\n"})
    assert "mine.h:1:" in caught.value.log


def test_defines_reach_the_kernel(hiprtc):
    source = '#if !defined(FOO) || FOO != 42\n#error "FOO is not 42"\n#endif\n'
    hiprtc.compile_for_arch(source, "gfx90a", "defines.hip", {"FOO": 42}, headers=HEADERS)
    with pytest.raises(CompileError, match="FOO is not 42"):
        hiprtc.compile_for_arch(source, "gfx90a", "defines.hip", {"FOO": 41}, headers=HEADERS)
    with pytest.raises(CompileError, match="FOO is not 42"):
        hiprtc.compile_for_arch(source, "gfx90a", "defines.hip", headers=HEADERS)


def test_a_kernel_without_its_tunable_says_so(hiprtc):
    with pytest.raises(CompileError, match="BLOCK_SIZE"):
        hiprtc.compile_for_arch(kernel_source("rodinia.hip"), "gfx90a", "rodinia.hip", headers=HEADERS)


def test_bad_macro_name_is_refused(hiprtc):
    with pytest.raises(ValueError, match="macro name"):
        hiprtc.compile_for_arch("", "gfx90a", "x.hip", {"NOT A NAME": 1}, headers=HEADERS)


def test_no_amd_gpu_is_a_clear_error(hiprtc):
    usable, reason = hiprtc.probe()
    if usable:
        pytest.skip(f"an AMD GPU is visible: {reason}")
    assert "no AMD GPU visible" in reason
    with pytest.raises(DeviceError, match="no AMD GPU visible"):
        hiprtc.create()


def test_unknown_target_is_an_error_not_a_crash(hiprtc):
    """An old hiprtc aborts the process on a target it does not know; we ask comgr first."""
    if hiprtc.known_targets() is None:
        pytest.skip("comgr's target list is not available here")
    assert {"gfx90a", "gfx1030"} <= hiprtc.known_targets()
    with pytest.raises(DeviceError, match="does not know gfx9999"):
        hiprtc.compile_for_arch('extern "C" __global__ void k() {}', "gfx9999", "k.hip", headers=HEADERS)
