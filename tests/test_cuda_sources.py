"""The CUDA sources compile with nvcc (no GPU needed), for both precisions, for complex and
real states (Pauli coordinates) and for the architectures we target, and the ``OpParams``
struct has exactly the layout the Python side packs. A syntax or template error fails here,
in CI, even on a machine without a GPU."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from genqsim.backends.cupy_backend import SOURCES, kernel_source, op_dtype, tile_dtype

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
ARCHS = ("sm_80", "sm_90")


def test_every_source_is_part_of_the_compiled_module():
    text = kernel_source("complex128")
    for name in SOURCES:
        assert (Path(__file__).resolve().parent.parent / "backends" / "cuda" / name).exists()
    assert text.startswith("typedef double real_t;")
    assert kernel_source("complex64").startswith("typedef float real_t;")


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32", "float64"])
def test_kernels_compile_for_every_target_architecture(dtype, tmp_path):
    src = tmp_path / f"genqsim_{dtype}.cu"
    src.write_text(kernel_source(dtype))
    cmd = [NVCC, "--std=c++14", "-Werror", "all-warnings", "-c", str(src), "-o",
           str(tmp_path / "out.o")]  # fmt: skip
    for arch in ARCHS:
        cmd += ["-gencode", f"arch=compute_{arch[3:]},code={arch}"]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr


LAYOUT_PROBE = r"""
#include <cstdio>
#include <cstddef>
int main() {
    std::printf("%zu", sizeof(OpParams));
    std::printf(" %zu", offsetof(OpParams, control_value));
    std::printf(" %zu", offsetof(OpParams, offsets));
    std::printf(" %zu", offsetof(OpParams, data));
    std::printf(" %zu", offsetof(OpParams, fixed));
    std::printf(" %zu", offsetof(OpParams, perm));
    std::printf(" %zu", offsetof(OpParams, n_fixed));
    std::printf(" %zu", offsetof(OpParams, dim));
    std::printf(" %zu", offsetof(OpParams, kind));
    std::printf(" %zu", offsetof(OpParams, active));
    std::printf(" %zu", sizeof(TileQubits));
    std::printf(" %zu", offsetof(TileQubits, n));
    std::printf(" %zu\n", offsetof(TileQubits, state_bits));
    return 0;
}
"""


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float64"])
def test_op_struct_layout_matches_the_numpy_record(dtype, tmp_path):
    """Compile a host program that prints sizeof/offsetof of the device struct and compare
    with the structured dtype CuPy passes by value."""
    src = tmp_path / "layout.cu"
    src.write_text(kernel_source(dtype) + LAYOUT_PROBE)
    exe = tmp_path / "layout"
    build = subprocess.run([NVCC, "--std=c++14", str(src), "-o", str(exe)],
                           capture_output=True, text=True, timeout=600)  # fmt: skip
    assert build.returncode == 0, build.stderr
    numbers = [int(v) for v in subprocess.run([str(exe)], capture_output=True, text=True,
                                               check=True).stdout.split()]  # fmt: skip
    record = op_dtype(np.float32 if dtype == "complex64" else np.float64)  # real states too
    fields = ["control_value", "offsets", "data", "fixed", "perm", "n_fixed", "dim", "kind",
              "active"]  # fmt: skip
    tiles = tile_dtype()
    assert numbers == (
        [record.itemsize]
        + [record.fields[f][1] for f in fields]
        + [tiles.itemsize]
        + [tiles.fields[f][1] for f in ("n", "state_bits")]
    )
