"""Numba's on-disk cache of genqsim's kernels is shared by every installation of the same
source on a machine (two copies of the package, as two virtual environments or clones hold
them), and a change to any kernel module, not only a kernel's own, makes it compile again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import genqsim

pytest.importorskip("numba")

PROBE = """
import numba, numpy as np
compiled = []
class Count(numba.core.event.Listener):
    def on_start(self, event):
        fn = getattr(event.data.get("dispatcher"), "py_func", None)
        if getattr(fn, "__module__", "").startswith("genqsim.backends"):
            compiled.append(fn.__qualname__)
    def on_end(self, event):
        pass
numba.core.event.register("numba:compile", Count())
import genqsim
from genqsim.backends import numba_pauli_strings as strings
assert genqsim.__file__.startswith({root!r}), genqsim.__file__
codes = strings.local_codes(np.array([[3, 1]], dtype=np.uint64), np.zeros(2, dtype=np.int64),
                            np.array([0, 1], dtype=np.int64))
assert codes.tolist() == [3 | 1 << 2], codes  # qubit 0: Y (x and z); qubit 1: X
print(len(compiled))
"""


def _installation(into: Path) -> Path:
    """A copy of the package (its kernel modules included) under ``into``."""
    shutil.copytree(
        Path(genqsim.__file__).parent,
        into / "genqsim",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return into


def _compiles(root: Path, cache: Path) -> int:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(root), GENQSIM_CACHE_DIR=str(cache))
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(root=str(root))],
        capture_output=True, text=True, env=env, cwd=root, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split()[-1])


def test_two_installations_share_the_compiled_kernels(tmp_path):
    cache = tmp_path / "cache"
    first = _installation(tmp_path / "a")
    second = _installation(tmp_path / "b")
    assert _compiles(first, cache) > 0
    assert list((cache / "numba").iterdir())  # kept under genqsim's cache folder
    assert _compiles(second, cache) == 0  # another copy of the same source: loaded
    helper = second / "genqsim" / "backends" / "numba_slp.py"
    helper.write_text(helper.read_text() + "\n# an edit in another kernel module\n")
    assert _compiles(second, cache) > 0  # the kernel's helpers changed: compiled again
    assert _compiles(first, cache) == 0  # the first copy's kernels are still kept
