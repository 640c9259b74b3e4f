"""Imports only point down (../shared/DESIGN.md): a module may import modules of its own
layer or below, never above. The backends import the protocol level alone — number systems,
typed calls, errors, the generic routines — so a backend never depends on the planner, the
states or the library. Read from the source with ``ast`` (nothing is imported), imports
inside functions included; imports under ``if TYPE_CHECKING:`` are for annotations only (no
runtime dependency) and do not count."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LAYERS: list[tuple[str, ...]] = [
    ("errors", "version", "support"),
    ("numbers",),
    ("linalg",),
    ("plan.calls",),
    ("backends",),
    ("circuit",),
    ("plan",),
    ("states", "distributed", "mps", "pauli_propagation"),
    ("methods",),
    ("differentiation", "analysis", "library"),
    ("io", "cli", "frontends", "qiskit", "cirq", "pennylane", "", "__main__"),
]
"""Layers from the bottom up, as module names below ``genqsim`` ("" is the package itself);
a name covers its submodules unless a longer name is listed."""

BACKEND_MAY_IMPORT = ("numbers", "plan.calls", "errors", "linalg.generic", "linalg.packed_paulis",
                      "support.memory", "support.cpus",
                      "support.optional", "backends")  # fmt: skip


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_module(dotted: str) -> bool:
    """Whether ``genqsim.x.y`` names a module or package of the source tree."""
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports(path: Path) -> set[str]:
    """Every ``genqsim`` module ``path`` imports, as a name below ``genqsim``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text())
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING",
                                                                    "typing.TYPE_CHECKING")
        for inner in ast.walk(node)
    }  # fmt: skip
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            if not (module == "genqsim" or module.startswith("genqsim.")):
                continue
            submodules = {
                f"{module}.{a.name}" for a in node.names if _is_module(f"{module}.{a.name}")
            }
            if submodules:  # from ..linalg import generic: the module, not its package
                found.update(submodules)
            else:
                found.add(module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("genqsim"))
    return {m.removeprefix("genqsim").lstrip(".") for m in found}


def layer_of(module: str) -> int:
    """The layer of a module name below ``genqsim`` (the longest listed prefix decides)."""
    best, rank = -1, None
    for i, names in enumerate(LAYERS):
        for n in names:
            if (module == n or module.startswith(n + ".") or n == "") and len(n) > best:
                best, rank = len(n), i
    if rank is None:
        raise AssertionError(f"module genqsim.{module} is in no layer; add it to LAYERS")
    return rank


BACKENDS = ROOT / "genqsim" / "backends"
"""The top-level ``backends/`` folder as the package reads it: ``genqsim/backends`` is a link
to it in the checkout, as the install maps it (``package-dir``)."""

SOURCES = sorted({*ROOT.glob("genqsim/**/*.py"), *BACKENDS.glob("**/*.py")})


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path):
    own = module_name(path).removeprefix("genqsim").lstrip(".")
    upward = [m for m in imports(path) if layer_of(m) > layer_of(own)]
    assert not upward, f"genqsim.{own} (layer {layer_of(own)}) imports upward: {upward}"


@pytest.mark.parametrize("path", sorted(BACKENDS.glob("*.py")), ids=lambda p: p.name)
def test_backends_import_only_the_protocol_level(path):
    allowed = [m for m in imports(path)
               if not any(m == a or m.startswith(a + ".") for a in BACKEND_MAY_IMPORT)]  # fmt: skip
    assert not allowed, f"{path.name} imports {allowed}"


def test_the_checker_catches_an_upward_import(tmp_path, monkeypatch):
    fake = BACKENDS / "fake_for_test.py"
    assert not fake.exists()
    monkeypatch.setattr(Path, "read_text", lambda self: "from ..states import simulate\n")
    found = imports(fake)
    assert found == {"states"} and layer_of("states") > layer_of("backends")


def test_nothing_in_the_core_names_a_concrete_gpu_library():
    offenders = [str(p.relative_to(ROOT)) for p in ROOT.glob("genqsim/**/*.py")
                 if "cupy" in p.read_text().lower()]  # fmt: skip
    assert not offenders


def test_the_core_names_no_concrete_backend():
    """Outside backends/ (and the benchmark, which names its peers' platforms) no module
    imports a compiled backend or asks for one by name: the registry and the capabilities
    decide (the generic NumPy backend, the reference every backend falls back to, may be
    named)."""
    offenders = []
    for path in ROOT.glob("genqsim/**/*.py"):
        if path.relative_to(ROOT).parts[1] == "backends" or path.name == "bench.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            named = isinstance(node, ast.Constant) and node.value in ("numba", "cupy")
            imported = isinstance(node, ast.ImportFrom) and "numba_backend" in (node.module or "")
            if named or imported:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders


def test_no_attribute_probes_on_backends():
    probes = ("getattr(backend", "getattr(self.backend")
    offenders = [str(p.relative_to(ROOT)) for p in SOURCES
                 if any(probe in p.read_text() for probe in probes)]  # fmt: skip
    assert not offenders


def import_cycles() -> list[set[str]]:
    """The strongly connected groups (two or more modules) of the module import graph, every
    import counted (inside functions too; ``TYPE_CHECKING`` ones not)."""
    modules = {module_name(p).removeprefix("genqsim").lstrip("."): p for p in SOURCES}

    def resolved(name: str) -> str:  # "states.sampling" from "from ..states import sampling"
        parent = name.rsplit(".", 1)[0]
        return name if name in modules or parent not in modules else parent

    graph = {m: {resolved(t) for t in imports(p)} & set(modules) - {m} for m, p in modules.items()}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        order[v] = low[v] = len(order)
        stack.append(v)
        for w in graph[v]:
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in order:
            visit(v)
    return groups


def test_no_import_cycles():
    """No two modules import each other, directly or round a loop, counting imports inside
    functions: a function-level import may load something lazily, never hide a cycle."""
    assert import_cycles() == []


def test_the_cycle_check_finds_a_cycle(monkeypatch):
    real = imports

    def with_a_cycle(path: Path) -> set[str]:
        found = real(path)
        return found | {"methods"} if module_name(path) == "genqsim.errors" else found

    monkeypatch.setitem(globals(), "imports", with_a_cycle)
    assert any({"errors", "methods"} <= c for c in import_cycles())
