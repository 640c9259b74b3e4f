"""Every public name of the package and every public member of its main classes says what
it does: the API reference (docs/api.md, built by mkdocstrings) is generated from these."""

from __future__ import annotations

import inspect

import pytest

import genqsim as gq

CLASSES = [
    gq.Circuit, gq.StateVector, gq.DensityMatrix, gq.TrajectoryState, gq.IntervalState,
    gq.TangentState, gq.PauliSum, gq.Hermitian, gq.SparseObservable, gq.RunOptions,
]  # fmt: skip


def undocumented_members(cls: type) -> list[str]:
    missing = []
    for name in dir(cls):
        if name.startswith("_"):
            continue
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, property) or callable(getattr(cls, name)):
            doc = raw.__doc__ if isinstance(raw, property) else getattr(cls, name).__doc__
            if not (doc and doc.strip()):
                missing.append(name)
    return missing


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_public_members_have_docstrings(cls):
    assert undocumented_members(cls) == []


def test_public_names_have_docstrings():
    missing = [
        name
        for name in gq.__all__
        if callable(getattr(gq, name)) and not (getattr(gq, name).__doc__ or "").strip()
    ]
    assert missing == []


def test_every_public_name_is_in_the_api_reference():
    """Each name of ``gq.__all__`` is rendered by a ``:::`` line of docs/api.md: its own
    (under the package's name or where it is defined), or its module's (the errors)."""
    import re
    from pathlib import Path

    page = (Path(__file__).parents[1] / "docs" / "api.md").read_text()
    rendered = set(re.findall(r"^::: (\S+)", page, re.MULTILINE))
    missing = []
    for name in gq.__all__:
        obj = getattr(gq, name)
        module = getattr(obj, "__module__", None)
        qualified = f"{module}.{getattr(obj, '__qualname__', name)}" if module else None
        names = {f"genqsim.{name}", qualified, module if inspect.isclass(obj) else None}
        if inspect.ismodule(obj):
            names.add(obj.__name__)
        if not names & rendered:
            missing.append(name)
    assert missing == []
