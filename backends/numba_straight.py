"""Straight code of the generated chunk loops as one Numba intrinsic per loop body, so that
Numba types and lowers one call instead of every load, product and store.

The chunk loops (:mod:`backends.numba_low_chunks`, :mod:`backends.numba_planar`) are Python
source generated per variant: a loop over chunks whose body is straight code, every load
of a chunk (``r3 = x[o + 3]``) and then every store of a sum of products
(``x[o + 3] = a * r3 - b * i3``). Numba types and lowers each such statement on its own,
with the checks of general array indexing; one loop of 64 loads and 64 stores took about
1 s to compile, and the complex128 warm-up compiled 38 of them (16 exchanges, 8 phases,
14 gates on split rows and floats): about a quarter of its compiling time.

:func:`straight_source` rewrites such a loop body into one call of an intrinsic made here,
which emits the same loads, floating-point operations (with fast-math flags, as
``fastmath=True`` gives every kernel) and stores, in the same order, straight into LLVM
IR: the loop keeps its shape for LLVM's SLP vectoriser, and Numba's work per loop no longer
grows with the chunk. Indices are ``base + constant`` with a non-negative base (the chunk's
start), so no negative-index wrap is emitted; Numba emits none either under its usual
``boundscheck=False``.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from typing import Any

from numba import types
from numba.core.errors import TypingError
from numba.extending import intrinsic

from .numba_slp import slp_njit

FAST = ("fast",)
"""LLVM's fast-math flags on every operation, as Numba gives them under ``fastmath=True``."""

_OPERATIONS = {ast.Add: "fadd", ast.Sub: "fsub", ast.Mult: "fmul"}
"""The floating-point operations a straight statement may use, by their Python node."""


@dataclass(frozen=True)
class _Access:
    """``array[base + offset]``."""

    array: str
    base: str
    offset: int


def _access(node: ast.expr) -> _Access | None:
    """The access ``node`` makes when it is ``name[name + constant]``; else None."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        return None
    index = node.slice
    if (
        isinstance(index, ast.BinOp)
        and isinstance(index.op, ast.Add)
        and isinstance(index.left, ast.Name)
        and isinstance(index.right, ast.Constant)
        and type(index.right.value) is int
        and index.right.value >= 0
    ):
        return _Access(node.value.id, index.left.id, index.right.value)
    return None


def _is_expression(node: ast.expr) -> bool:
    """Whether ``node`` is a name or a sum, difference or product of such."""
    if isinstance(node, ast.Name):
        return True
    return (
        isinstance(node, ast.BinOp)
        and type(node.op) in _OPERATIONS
        and _is_expression(node.left)
        and _is_expression(node.right)
    )


@dataclass(frozen=True)
class _Load:
    """``name = array[base + offset]``."""

    name: str
    access: _Access


@dataclass(frozen=True)
class _Store:
    """``array[base + offset] = value`` (a name, or sums, differences and products of names)."""

    access: _Access
    value: ast.expr


def _step(statement: ast.stmt) -> _Load | _Store | None:
    """The load or store ``statement`` is, or None when it is not straight code."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    (target,) = statement.targets
    if isinstance(target, ast.Name):
        loaded = _access(statement.value)
        return None if loaded is None else _Load(target.id, loaded)
    stored = _access(target)
    if stored is None or not _is_expression(statement.value):
        return None
    return _Store(stored, statement.value)


def _names(node: ast.AST) -> list[str]:
    """The names ``node`` reads, in order of first use."""
    seen: dict[str, None] = {}
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            seen.setdefault(child.id, None)
    return list(seen)


@dataclass(frozen=True)
class _Body:
    """A straight loop body: its loads and stores, the names it takes from outside in the
    order of the intrinsic's arguments, and which of those are arrays (those stored into
    among them) and which indices."""

    steps: tuple[_Load | _Store, ...]
    arguments: tuple[str, ...]
    arrays: frozenset[str]
    stored: frozenset[str]
    bases: frozenset[str]


def _body(steps: list[_Load | _Store]) -> _Body:
    """The straight ``steps`` with the names they read but do not assign."""
    assigned: set[str] = set()
    outside: dict[str, None] = {}
    for step in steps:
        read = [step.access.array, step.access.base]
        if isinstance(step, _Store):
            read = _names(step.value) + read
        for name in read:
            if name not in assigned:
                outside.setdefault(name, None)
        if isinstance(step, _Load):
            assigned.add(step.name)
    return _Body(
        tuple(steps),
        tuple(outside),
        arrays=frozenset(step.access.array for step in steps),
        stored=frozenset(step.access.array for step in steps if isinstance(step, _Store)),
        bases=frozenset(step.access.base for step in steps),
    )


def _emit(body: _Body, context: Any, builder: Any, signature: Any, values: Any) -> None:
    """The LLVM IR of ``body`` with its arguments ``values`` of ``signature``'s types."""
    kinds = dict(zip(body.arguments, signature.args, strict=True))
    known: dict[str, tuple[Any, Any]] = {}  # name -> (type, value)
    pointers: dict[str, Any] = {}
    for name, kind, value in zip(body.arguments, signature.args, values, strict=True):
        if name in body.arrays:
            pointers[name] = context.make_array(kind)(context, builder, value).data
        else:
            known[name] = (kind, value)

    def address(access: _Access) -> tuple[Any, Any]:
        base_type, base = known[access.base]
        index = builder.add(base, context.get_constant(base_type, access.offset))
        return kinds[access.array].dtype, builder.gep(pointers[access.array], [index])

    def evaluate(node: ast.expr) -> tuple[Any, Any]:
        if isinstance(node, ast.Name):
            return known[node.id]
        assert isinstance(node, ast.BinOp)
        (left_type, left), (right_type, right) = evaluate(node.left), evaluate(node.right)
        kind = _promoted(left_type, right_type)
        left = context.cast(builder, left, left_type, kind)
        right = context.cast(builder, right, right_type, kind)
        operation = getattr(builder, _OPERATIONS[type(node.op)])
        return kind, operation(left, right, flags=FAST)

    for step in body.steps:
        kind, pointer = address(step.access)
        if isinstance(step, _Load):
            known[step.name] = (kind, builder.load(pointer))
        else:
            value_type, value = evaluate(step.value)
            builder.store(context.cast(builder, value, value_type, kind), pointer)


def _promoted(left: Any, right: Any) -> Any:
    """The type Numba gives an operation on floats of types ``left`` and ``right``."""
    return types.float64 if types.float64 in (left, right) else types.float32


def _check(body: _Body, signature: tuple[Any, ...]) -> None:
    """Raise a typing error unless the arrays of ``body`` are 1-d contiguous float arrays,
    its indices integers and its scalars floats (what the straight code is written for)."""
    for name, kind in zip(body.arguments, signature, strict=True):
        if name in body.arrays:
            fine = (
                isinstance(kind, types.Array)
                and kind.ndim == 1
                and kind.layout == "C"
                and kind.dtype in (types.float32, types.float64)
                and (kind.mutable or name not in body.stored)
            )
        elif name in body.bases:
            fine = isinstance(kind, types.Integer)
        else:
            fine = kind in (types.float32, types.float64)
        if not fine:
            raise TypingError(f"straight chunk code: argument {name!r} of type {kind} is not "
                              "what it is written for (1-d contiguous float arrays, integer "
                              "indices, float scalars)")  # fmt: skip


def _intrinsic(body: _Body) -> Any:
    """The intrinsic that emits ``body`` (called with its arguments, in order; Numba asks
    an intrinsic's typer for one parameter per argument, so the typer is written out with
    the body's argument names)."""

    def typed(kinds: tuple[Any, ...]) -> Any:
        _check(body, kinds)

        def codegen(context: Any, builder: Any, sig: Any, values: Any) -> Any:
            _emit(body, context, builder, sig, values)
            return context.get_dummy_value()

        return types.none(*kinds), codegen

    parameters = ", ".join(body.arguments)
    namespace: dict[str, Any] = {"typed": typed}
    exec(
        f"def typer(typing_context, {parameters}):\n    return typed(({parameters},))\n", namespace
    )
    return intrinsic(namespace["typer"])


_COUNTER = itertools.count()


def straight_source(source: str) -> tuple[str, dict[str, Any]]:
    """``source`` (one function) with the straight tail of each loop body, from its first
    load on (at least two statements), replaced by a call of an intrinsic that emits it, and
    the intrinsics by the names the new source calls them."""
    tree = ast.parse(source)
    made: dict[str, Any] = {}
    for loop in [n for n in ast.walk(tree) if isinstance(n, ast.For)]:
        steps = [_step(statement) for statement in loop.body]
        start = len(steps)
        while start > 0 and steps[start - 1] is not None:
            start -= 1
        while start < len(steps) and isinstance(steps[start], _Store):
            start += 1  # from its first load: a chunk's loads, then its stores
        if len(steps) - start < 2:
            continue
        body = _body([step for step in steps[start:] if step is not None])  # all are
        name = f"_straight_{next(_COUNTER)}"
        made[name] = _intrinsic(body)
        call = ast.Expr(
            ast.Call(
                ast.Name(name, ast.Load()), [ast.Name(a, ast.Load()) for a in body.arguments], []
            )
        )
        loop.body[start:] = [call]
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n", made


def compiled_loop(source: str, name: str, module: str, path: str, cache: bool = True) -> Any:
    """The function ``name`` of the generated ``source``, its straight code as intrinsics
    (:func:`straight_source`), compiled with the SLP vectoriser. Its code object names the
    file ``path`` of the module ``module`` that generated it, so Numba caches it beside that
    module's other loops and compiles it again whenever the kernel sources change
    (``cache=False``: not cached, so that its assembly can be read)."""
    straight, intrinsics = straight_source(source)
    namespace: dict[str, Any] = {"__name__": module, **intrinsics}
    exec(compile(straight, path, "exec"), namespace)
    return slp_njit(namespace[name], cache)
