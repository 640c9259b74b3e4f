"""The Python examples in README.md and docs/*.md run and their assertions hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


DOCS = [p for p in sorted((ROOT / "docs").glob("*.md")) if python_blocks(p)]


def test_pages_with_examples_are_found():
    assert {"index.md", "library.md"} <= {p.name for p in DOCS}


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_documented_examples_run(path):
    blocks = python_blocks(path)
    namespace: dict = {}
    for block in blocks:  # blocks of one page share a namespace, in order
        exec(compile(block, str(path), "exec"), namespace)


def test_readme_example_runs():
    (block,) = python_blocks(ROOT / "README.md")
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)
    import sympy

    psi = namespace["exact"]
    theta = namespace["theta"]
    assert list(psi.amplitudes) == [sympy.cos(theta / 2), 0, 0, sympy.sin(theta / 2)]


def test_readme_first_line_runs_on_the_compiled_backend():
    """Line 1 of the quick start: its genqsim command runs, on the Numba backend, and prints
    the phase-estimation peak the README describes. On the machine's first run with these
    kernels it answers on NumPy, compiles, and the next run is on the Numba backend with the
    same output."""
    import shlex
    import subprocess
    import sys

    (quick,) = re.findall(r"## Quick start\n\n```bash\n(.*?)```", (ROOT / "README.md").read_text(),
                          flags=re.S)  # fmt: skip
    first = quick.splitlines()[0]
    command = first[first.index("genqsim run") :]
    args = shlex.split(command)[1:]

    def line_1() -> subprocess.CompletedProcess[str]:
        out = subprocess.run([sys.executable, "-m", "genqsim", *args], capture_output=True,
                             text=True, timeout=300)  # fmt: skip
        assert out.returncode == 0, out.stderr
        assert "|0100110011>  0.875" in out.stdout  # 307/1024, the nearest 10-bit fraction
        return out

    out = line_1()
    if "backend=numpy" in out.stdout.splitlines()[0]:  # the first run: compiled afterwards
        assert "first complex128 run" in out.stderr
        assert out.stderr.splitlines()[-1].endswith("later runs load them from the cache")
        again = line_1()
        assert again.stdout.splitlines()[1:] == out.stdout.splitlines()[1:]
        out = again
    assert "backend=numba" in out.stdout.splitlines()[0]
