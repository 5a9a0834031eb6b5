"""The structure of the kernel code, checked as text: what keeps it readable as a lesson.

- no kernel file includes another kernel file: shared device code is in headers named
  for what it does (single_block.h, push_pull_grid.h, ...), and each kernel file builds
  only the kernels its step launches;
- no kernel takes a long list of positional arguments, and no kernel's parameter list is
  spliced in by a macro (a record of arguments, declared once in a header, replaces both);
- no host module patches a prepared launch's arguments by module-level index constants
  (``launch[SOURCE] = ...``): what changes per search is written by field name.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from rodinia_bfs.kernels import kernel_dir

VARIANTS = Path(__file__).resolve().parent.parent / "rodinia_bfs" / "variants"

#: The most parameters a kernel may take.
MOST_PARAMETERS = 8

#: Kernels that take more, with how many they may take. Each is a known debt, listed so
#: that none is added unnoticed; an entry that is no longer needed fails the check below.
LONG_PARAMETER_LISTS = {
    "balanced_expand": 18,  # step 4, launched once per level
    "privatized_expand": 9,  # step 3
    "queue_expand": 9,  # step 2
    "multi_gpu_expand": 13,  # step 8
    "multi_gpu_mark": 14,
    "multi_gpu_merge": 17,
    "multi_gpu_pull": 11,
    "multi_gpu_merge_list": 10,
}

#: Kernels whose parameter list still ends in a macro.
SPLICED_SIGNATURES: set[str] = set()

#: Host modules that still patch launches by index constants, and the constants.
INDEXED_LAUNCHES: dict[str, set[str]] = {}

KERNEL = re.compile(r'__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s*)?(\w+)\s*\(([^)]*)\)')


def without_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


def kernel_files() -> list[Path]:
    return sorted([*kernel_dir().glob("*.hip"), *kernel_dir().glob("*.h")])


def kernels() -> dict[str, list[str]]:
    """Every kernel of hip_kernels/ and its parameters, as written."""
    found = {}
    for path in kernel_files():
        for match in KERNEL.finditer(without_comments(path.read_text())):
            name, params = match.group(1), match.group(2)
            assert name not in found, f"kernel {name} is defined twice ({path.name})"
            found[name] = [p.strip() for p in params.split(",") if p.strip()]
    return found


def test_kernels_are_found():
    """The parser sees the kernels (the checks below would pass on nothing)."""
    found = kernels()
    assert {"Kernel1", "persistent_single", "persistent_flush", "push_pull_bfs"} <= set(found)
    assert len(found) >= 20


@pytest.mark.parametrize("path", kernel_files(), ids=lambda p: p.name)
def test_no_kernel_file_includes_a_kernel_file(path):
    includes = re.findall(r'#\s*include\s+"([^"]+)"', without_comments(path.read_text()))
    assert not [name for name in includes if name.endswith(".hip")], path.name


def test_no_long_parameter_lists():
    found = kernels()
    for name, params in found.items():
        allowed = LONG_PARAMETER_LISTS.get(name, MOST_PARAMETERS)
        assert len(params) <= allowed, (
            f"{name} takes {len(params)} parameters; put them in an argument record")


def test_listed_exceptions_are_still_needed():
    found = kernels()
    for name, allowed in LONG_PARAMETER_LISTS.items():
        assert name in found, f"{name} is no kernel any more: drop it from the list"
        assert len(found[name]) > MOST_PARAMETERS, (
            f"{name} takes {len(found[name])} parameters now: drop it from the list")
    for name in SPLICED_SIGNATURES:
        assert name in found and spliced(found[name]), f"{name}: drop it from the list"


def spliced(params: list[str]) -> bool:
    """Whether a parameter ends in a macro's name (``bfs_u32 words HANDOFF_PARAMS``): a
    list that a macro adds to. (No parameter of these kernels has an upper-case name.)"""
    return any(re.fullmatch(r"[A-Z][A-Z0-9_]*", p.split()[-1]) for p in params)


def test_no_signature_spliced_by_a_macro():
    for name, params in kernels().items():
        if name not in SPLICED_SIGNATURES:
            assert not spliced(params), name


def test_the_splice_check_can_fail():
    assert spliced(["const int* a", "int b HANDOFF_PARAMS"])
    assert not spliced(["const int* a", "int b"])


def integer_constants(tree: ast.Module) -> set[str]:
    """Module-level names bound to integer literals (``A = 1``, ``A, B = 1, 2``)."""
    names = set()
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = []
            if isinstance(target, ast.Name):
                pairs = [(target, node.value)]
            elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                pairs = list(zip(target.elts, node.value.elts))
            for name, value in pairs:
                if (isinstance(name, ast.Name) and isinstance(value, ast.Constant)
                        and type(value.value) is int):
                    names.add(name.id)
    return names


def indexed_stores(source: str, constants: set[str]) -> set[str]:
    """The constants of ``constants`` (bare, or as ``module.NAME``) used as the index of
    an assignment target: ``x[NAME] = ...``."""
    used = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            index = node.slice
            name = (index.id if isinstance(index, ast.Name)
                    else index.attr if isinstance(index, ast.Attribute) else None)
            if name in constants:
                used.add(name)
    return used


def all_integer_constants() -> set[str]:
    names = set()
    for path in VARIANTS.glob("*.py"):
        names |= integer_constants(ast.parse(path.read_text()))
    return names


@pytest.mark.parametrize("path", sorted(VARIANTS.glob("*.py")), ids=lambda p: p.name)
def test_no_launch_patched_by_index_constants(path):
    used = indexed_stores(path.read_text(), all_integer_constants())
    assert used == INDEXED_LAUNCHES.get(path.name, set()), path.name


def test_the_index_check_can_fail():
    source = "SOURCE = 31\nlaunch[SOURCE] = 5\nlaunch[other.SOURCE] = 5\nx[-1] = 2\n"
    assert indexed_stores(source, integer_constants(ast.parse(source))) == {"SOURCE"}


# -- argument and control records: declared once in C, described once in Python ----------

#: The records of the headers that Python describes.
RECORDS = ["PushPullArgs", "Control", "PersistentArgs"]


def records(warp_size: int = 32) -> dict:
    """Each record of a header, its description in Python, and the tunables its header
    is compiled with (the layouts do not depend on them)."""
    from rodinia_bfs.variants import persistent, push_pull

    return {
        "PushPullArgs": ("push_pull_parts.h", push_pull.ARGS, push_pull.tunables(warp_size)),
        "Control": ("persistent_records.h", persistent.CONTROL, persistent.tunables(warp_size)),
        "PersistentArgs": ("persistent_records.h", persistent.ARGS, persistent.tunables(warp_size)),
    }


def python_layout(dtype) -> list[int]:
    """The record's size, then each field's offset and size, in the order of ``dtype``."""
    words = [dtype.itemsize]
    for name in dtype.names:
        field, offset = dtype.fields[name][:2]
        words += [offset, field.itemsize]
    return words


def layout_probe(header: str, record: str, dtype) -> str:
    """A kernel that writes what :func:`python_layout` gives, as the compiler lays the
    record out; a field of ``dtype`` missing from the header fails to compile."""
    lines = [f"out[0] = sizeof({record});"]
    for k, name in enumerate(dtype.names):
        lines.append(f"out[{1 + 2 * k}] = __builtin_offsetof({record}, {name});")
        lines.append(f"out[{2 + 2 * k}] = sizeof((({record}*)0)->{name});")
    body = "\n        ".join(lines)
    return (f'#include "{header}"\n'
            'extern "C" __global__ void layout(bfs_u64* out)\n'
            "{\n    if (blockIdx.x == 0 && threadIdx.x == 0) {\n        " + body + "\n    }\n}\n")


@pytest.mark.parametrize("record", RECORDS)
def test_layout_matches_the_header(record):
    """sizeof and offsetof as the emulator's compiler lays the record out."""
    import numpy as np

    from rodinia_bfs.kernels import kernel_headers
    from rodinia_bfs.runtime import get_device

    header, dtype, defines = records()[record]
    device = get_device("cpu", warp_size=32)
    module = device.compile(layout_probe(header, record, dtype), "layout.hip",
                            defines=defines, headers=kernel_headers())
    words = len(python_layout(dtype))
    out = device.malloc(8 * words)
    try:
        device.launch(module.get_function("layout"), 1, 1, [out])
        device.synchronize()
        assert device.from_device(out, words, np.uint64).tolist() == python_layout(dtype)
    finally:
        device.free(out)


def static_layout_checks(record: str) -> str:
    """The record's layout as static_asserts, for the GPU compilers (no GPU to run on)."""
    header, dtype, _ = records()[record]
    size, *fields = python_layout(dtype)
    lines = [f'#include "{header}"',
             f'static_assert(sizeof({record}) == {size}, "size of {record}");']
    for k, name in enumerate(dtype.names):
        offset, nbytes = fields[2 * k], fields[2 * k + 1]
        lines.append(f'static_assert(__builtin_offsetof({record}, {name}) == {offset}, '
                     f'"offset of {name}");')
        lines.append(f'static_assert(sizeof((({record}*)0)->{name}) == {nbytes}, '
                     f'"size of {name}");')
    lines.append('extern "C" __global__ void layout_checked() {}')
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("record", RECORDS)
@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
def test_layout_with_hiprtc(arch, record):
    from helpers import hiprtc_or_skip

    from rodinia_bfs.kernels import kernel_headers

    defines = records(64 if arch == "gfx90a" else 32)[record][2]
    code = hiprtc_or_skip().compile_for_arch(static_layout_checks(record), arch, "layout.hip",
                                             defines, headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


@pytest.mark.parametrize("record", RECORDS)
def test_layout_with_nvrtc(record):
    from helpers import nvrtc_or_skip

    from rodinia_bfs.kernels import kernel_headers

    code = nvrtc_or_skip().compile_for_arch(static_layout_checks(record), "sm_90", "layout.hip",
                                            records()[record][2], headers=kernel_headers())
    assert code[:4] == b"\x7fELF"


def test_layout_checks_can_fail():
    """The static checks are not vacuous: a wrong offset stops the compile."""
    from helpers import nvrtc_or_skip

    from rodinia_bfs.errors import CompileError
    from rodinia_bfs.kernels import kernel_headers

    nvrtc = nvrtc_or_skip()
    good = static_layout_checks("PushPullArgs")
    wrong = good.replace("PushPullArgs, source) == ", "PushPullArgs, source) == 1 + ")
    assert wrong != good
    with pytest.raises(CompileError, match="offset of source"):
        nvrtc.compile_for_arch(wrong, "sm_90", "layout.hip", records()["PushPullArgs"][2],
                               headers=kernel_headers())
