"""The examples in the docstrings of genqsim's modules, classes and functions run and print
what they show (``>>>`` lines, as ``python -m doctest`` reads them)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import genqsim

SKIPPED = ("genqsim.backends.cupy_backend", "genqsim.__main__")
"""Modules not imported here: one needs CuPy, which the tests do not install; the other runs
the command line when imported."""


def modules() -> list[str]:
    found = pkgutil.walk_packages(genqsim.__path__, "genqsim.")
    return ["genqsim", *sorted(m.name for m in found if m.name not in SKIPPED)]


def examples() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    found = []
    for name in modules():
        module = importlib.import_module(name)
        found += [t for t in finder.find(module, name) if t.examples and t.name.startswith(name)]
    return found


EXAMPLES = examples()


def test_the_public_api_has_examples():
    names = {t.name for t in EXAMPLES}
    assert {"genqsim", "genqsim.states.registry.simulate", "genqsim.circuit.noise"} <= names


@pytest.mark.parametrize("test", EXAMPLES, ids=lambda t: t.name)
def test_docstring_examples_run(test):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{test.name}: {result.failed} of {result.attempted} failed"
