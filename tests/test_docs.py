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
