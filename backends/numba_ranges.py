"""One build per kernel for both the calling thread and the thread pool, its threaded loops
as range functions.

A kernel used to be compiled twice, serial and threaded, and Numba compiles the body of a
threaded (``prange``) loop as a function of its own, typing, inlining and lowering it again:
every loop body, with the helpers inlined in it, was compiled twice, and every large row
body a kernel calls was linked into both builds and made into machine code twice. Here a
kernel is compiled once, with a first parameter ``threaded``, and each ``for i in
prange(n): body`` becomes a call of a *range function* ``<kernel>__range<k>(lo, hi, slot,
...)``, whose loop is ``for i in range(lo, hi): body`` (its other arguments: the kernel's
variables the body reads). Not threaded, the kernel calls it once over ``0 .. n``; threaded,
it splits ``0 .. n`` into :data:`PIECES_PER_THREAD` equal pieces per thread, and each thread
of a ``prange`` over the threads calls it on the next piece nobody has claimed yet (an
atomic counter) until none is left. Numba's own schedule gives each thread one fixed equal
share instead: where another process holds one of the cores, the thread on it finishes its
share late and the whole pass waits for it; with pieces, the other thread takes more of
them. A body's ``nb.get_thread_id()`` (its row of per-thread scratch) becomes ``slot``: the
thread's number in the ``prange``, or 0; no two pieces run at once on one slot. Outside
loops the calling thread's id is 0.

A loop is kept as it is in the threaded branch, and as a plain ``range`` loop in the other,
where its body assigns a variable the kernel reads outside the loop (a reduction: Numba's
``prange`` combines the threads' partial values) or returns. Only ``prange`` loops are
threaded (Numba's other automatic parallelisation, of array expressions, is off), so the
calling thread's branch never wakes the pool. The transformed source keeps the kernel's
line numbers and file, so tracebacks point at the kernel's own lines and Numba caches every
function beside the kernel's module.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

import numba as nb
import numpy as np
from llvmlite import ir
from numba.extending import intrinsic
from numba.np.ufunc.parallel import _iget_num_threads

from . import numba_cache  # noqa: F401  (first: where Numba keeps the range functions)

THREADED = "threaded"
GENERATED = "_loop_"
"""The prefix of the variables a kernel's build adds (a loop's count, threads, pieces and
bounds)."""
THREADS = "_thread_count"
PIECES = "_piece_count"
CLAIMS = "_claims"
CLAIM = "_claim"
PIECE = "_piece"
WHOLE = "_whole"

PIECES_PER_THREAD = 8
"""Pieces a threaded loop is split into per thread (fewer where the loop has fewer
iterations). With a CPU-bound process on one of two cores, the thread on the free core
then takes about two pieces in three: one piece late costs an eighth of a thread's share
at most, where a fixed half made the pass wait for the slower thread's whole half."""


@nb.njit(cache=True, nogil=True, inline="always")
def _thread_count(n):
    """How many threads a threaded loop of ``n`` iterations runs on: the thread count, or
    ``n`` where it is smaller. (The thread count is read as Numba's threaded loops read it,
    by the threading layer's symbol: ``nb.get_num_threads()`` compiles in the address of a
    Python object, which Numba cannot cache.)"""
    return min(np.int64(_iget_num_threads()), np.int64(n))


@nb.njit(cache=True, nogil=True, inline="always")
def _piece_count(n, parts):
    """How many pieces a loop of ``n`` iterations on ``parts`` threads is split into: one
    where it runs on one thread, else :data:`PIECES_PER_THREAD` per thread, none empty."""
    if parts <= 1:
        return np.int64(parts)
    return min(np.int64(n), np.int64(parts) * PIECES_PER_THREAD)


@nb.njit(cache=True, nogil=True, inline="always")
def _claims():
    """The counter a threaded loop's threads claim its pieces from, at 0."""
    return np.zeros(1, np.int64)


@intrinsic
def _claim(typingctx: Any, counter: Any) -> Any:
    """The number of the next unclaimed piece: ``counter[0]``, incremented by one atomically
    (two threads never get the same number; the loop's end orders everything else)."""
    if not (isinstance(counter, nb.types.Array) and counter.dtype == nb.types.int64):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        array = context.make_array(signature.args[0])(context, builder, args[0])
        one = ir.Constant(ir.IntType(64), 1)
        return builder.atomic_rmw("add", array.data, one, "monotonic")

    return nb.types.int64(counter), codegen


@nb.njit(cache=True, nogil=True, inline="always")
def _piece(n, piece, pieces, part):
    """Piece ``piece`` of ``pieces`` of ``0 .. n`` as (start, stop, slot), run by thread
    ``part`` (``prange``'s index, unsigned in a threaded build): its slot."""
    k = np.int64(piece)
    return np.int64(n) * k // pieces, np.int64(n) * (k + 1) // pieces, np.int64(part)


@nb.njit(cache=True, nogil=True, inline="always")
def _whole(n):
    """All of ``0 .. n`` as one share (start, stop, slot) of the types a share has (a
    literal 0 would make the range function a build of its own)."""
    return np.int64(0), np.int64(n), np.int64(0)


class _Names(ast.NodeVisitor):
    """The names a piece of code reads and assigns."""

    def __init__(self) -> None:
        self.read: set[str] = set()
        self.assigned: set[str] = set()

    def visit_Name(self, node: ast.Name) -> None:
        (self.read if isinstance(node.ctx, ast.Load) else self.assigned).add(node.id)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            self.read.add(node.target.id)
        self.generic_visit(node)


def _names(nodes: Sequence[ast.AST]) -> _Names:
    found = _Names()
    for node in nodes:
        found.visit(node)
    return found


def _is_prange_loop(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.For)
        and isinstance(node.target, ast.Name)
        and isinstance(node.iter, ast.Call)
        and isinstance(node.iter.func, ast.Name)
        and node.iter.func.id == "prange"
        and len(node.iter.args) == 1
        and not node.iter.keywords
        and not node.orelse
    )


class _ThreadIdAs(ast.NodeTransformer):
    """``nb.get_thread_id()`` becomes ``replacement``, except inside ``prange`` loops."""

    def __init__(self, replacement: Callable[[], ast.expr]) -> None:
        self.replacement = replacement

    def visit_For(self, node: ast.For) -> ast.AST:
        return node if _is_prange_loop(node) else self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "get_thread_id"
            and isinstance(func.value, ast.Name)
            and func.value.id == "nb"
            and not node.args
        ):
            return ast.copy_location(self.replacement(), node)
        return self.generic_visit(node)


def _thread_id_as(node: ast.AST, replacement: Callable[[], ast.expr]) -> Any:
    return _ThreadIdAs(replacement).visit(node)


def _prange_loops(tree: ast.AST) -> list[tuple[list[ast.stmt], int, ast.For]]:
    """Every ``prange`` loop with the statement list that holds it and its place there,
    innermost first (a loop inside another's body is rewritten before the outer one)."""
    found: list[tuple[list[ast.stmt], int, ast.For]] = []
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list):
                for place, statement in enumerate(statements):
                    if _is_prange_loop(statement):
                        found.append((statements, place, statement))  # type: ignore[arg-type]
    return found[::-1]


def _call(name: str, arguments: list[ast.expr]) -> ast.Call:
    return ast.Call(ast.Name(name, ast.Load()), arguments, [])


def _load(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def _store(name: str) -> ast.Name:
    return ast.Name(name, ast.Store())


def _range_function(name: str, loop: ast.For, arguments: list[str]) -> ast.FunctionDef:
    """``def name(lo, hi, slot, *arguments): for i in range(lo, hi): body`` (its own
    parameters prefixed with :data:`GENERATED`), the body's thread id its ``slot``."""
    body = [_thread_id_as(statement, lambda: _load(f"{GENERATED}slot")) for statement in loop.body]
    inner = ast.For(
        target=_store(loop.target.id),  # type: ignore[attr-defined]
        iter=_call("range", [_load(f"{GENERATED}lo"), _load(f"{GENERATED}hi")]),
        body=body,
        orelse=[],
    )
    parameters = ", ".join([f"{GENERATED}{p}" for p in ("lo", "hi", "slot")] + arguments)
    function = ast.parse(f"def {name}({parameters}):\n    pass\n").body[0]
    assert isinstance(function, ast.FunctionDef)  # a template: the AST fields of this Python
    function.body = [inner]
    return ast.copy_location(function, loop)


def _replacement(name: str, loop: ast.For, arguments: list[str], k: int) -> ast.stmt:
    """What replaces ``loop``: threaded, the range function over the pieces each thread of
    a ``prange`` over the threads claims; else over all iterations."""
    count, parts, part = f"{GENERATED}n{k}", f"{GENERATED}parts{k}", f"{GENERATED}part{k}"
    pieces, claims, piece = f"{GENERATED}pieces{k}", f"{GENERATED}claims{k}", f"{GENERATED}piece{k}"
    start, stop, slot = f"{GENERATED}start{k}", f"{GENERATED}stop{k}", f"{GENERATED}slot{k}"
    bounds = ast.Tuple([_store(start), _store(stop), _store(slot)], ast.Store())
    call = ast.Expr(
        _call(name, [_load(start), _load(stop), _load(slot), *[_load(a) for a in arguments]])
    )

    def claim() -> ast.stmt:  # a node of its own at each of its two places in the tree
        return ast.Assign([_store(piece)], _call(CLAIM, [_load(claims)]))

    bounds_of_piece = _call(PIECE, [_load(count), _load(piece), _load(pieces), _load(part)])
    pieces_loop = ast.While(
        test=ast.Compare(_load(piece), [ast.Lt()], [_load(pieces)]),
        body=[ast.Assign([bounds], bounds_of_piece), call, claim()],
        orelse=[],
    )
    threads = ast.For(
        target=_store(part), iter=_call("prange", [_load(parts)]),
        body=[claim(), pieces_loop], orelse=[],
    )  # fmt: skip
    threaded = [
        ast.Assign([_store(parts)], _call(THREADS, [_load(count)])),
        ast.Assign([_store(pieces)], _call(PIECES, [_load(count), _load(parts)])),
        ast.Assign([_store(claims)], _call(CLAIMS, [])),
        threads,
    ]
    whole = [ast.Assign([bounds], _call(WHOLE, [_load(count)])), call]
    return ast.If(
        _load(THREADED),
        [ast.Assign([_store(count)], loop.iter.args[0]), *threaded],  # type: ignore[attr-defined]
        [ast.Assign([_store(count)], loop.iter.args[0]), *whole],  # type: ignore[attr-defined]
    )


def _kept(loop: ast.For) -> ast.stmt:
    """What replaces a loop that stays as written: itself when threaded, else the same loop
    over ``range`` on the calling thread."""
    plain = _thread_id_as(ast.parse(ast.unparse(loop)).body[0], lambda: ast.Constant(0))
    plain.iter.func = _load("range")
    plain = ast.increment_lineno(plain, loop.lineno - plain.lineno)
    return ast.If(_load(THREADED), [loop], [plain])


def _source_tree(fn: Callable[..., Any]) -> ast.Module:
    """``fn``'s own definition, without decorators, at its line numbers in its file."""
    lines, first = inspect.getsourcelines(fn)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    tree.body[0].decorator_list = []  # type: ignore[attr-defined]
    return tree


def one_build(fn: Callable[..., Any], compile_kernel: Callable[[Callable[..., Any]], Any],
              compile_range: Callable[[Callable[..., Any]], Any]) -> Any:  # fmt: skip
    """Kernel ``fn`` as one function ``fn(threaded, *arguments)``, its ``prange`` loops as
    range functions (see the module's docstring) compiled by ``compile_range``, the kernel
    by ``compile_kernel``."""
    tree = _source_tree(fn)
    kernel = tree.body[0]
    assert isinstance(kernel, ast.FunctionDef)
    taken = {a.arg for a in kernel.args.args} | _names(kernel.body).assigned
    if THREADED in taken or any(name.startswith(GENERATED) for name in taken):
        raise ValueError(f"kernel {fn.__name__}: the names {THREADED!r} and {GENERATED!r}... "
                         "are the ones its build adds; rename its variable")  # fmt: skip
    _thread_id_as(kernel, lambda: ast.Constant(0))
    made = _rewrite_loops(kernel)
    kernel.args.args.insert(0, ast.arg(THREADED))
    namespace = dict(fn.__globals__)
    if made:
        module = ast.fix_missing_locations(ast.Module(body=list[ast.stmt](made), type_ignores=[]))
        exec(compile(module, fn.__code__.co_filename, "exec"), namespace)
    scope = {**fn.__globals__, **{f.name: compile_range(namespace[f.name]) for f in made},
             THREADS: _thread_count, PIECES: _piece_count, CLAIMS: _claims, CLAIM: _claim,
             PIECE: _piece, WHOLE: _whole}  # fmt: skip
    exec(compile(ast.fix_missing_locations(tree), fn.__code__.co_filename, "exec"), scope)
    built = scope[kernel.name]
    built.__doc__ = fn.__doc__
    return compile_kernel(built)


def _rewrite_loops(kernel: ast.FunctionDef) -> list[ast.FunctionDef]:
    """Replace ``kernel``'s ``prange`` loops (in place) by calls of range functions, which
    are returned, or by the loop and its serial twin."""
    made: list[ast.FunctionDef] = []
    parameters = {a.arg for a in kernel.args.args}
    local = parameters | _names(kernel.body).assigned
    for k, (statements, place, loop) in enumerate(_prange_loops(kernel)):
        inside = _names(loop.body)
        index = loop.target.id  # type: ignore[attr-defined]
        nested = any(_is_prange_loop(n) for n in ast.walk(loop) if n is not loop)
        returns = any(isinstance(n, ast.Return) for n in ast.walk(loop))
        outside = _names_outside(kernel, loop)
        if nested or returns or (inside.assigned - {index}) & (outside.read | parameters):
            statements[place] = ast.copy_location(_kept(loop), loop)
            continue  # a reduction, or not a plain loop: Numba threads it as it is
        arguments = sorted((inside.read - inside.assigned - {index}) & local)
        name = f"{kernel.name}__range{k}"
        made.append(_range_function(name, loop, arguments))
        statements[place] = ast.copy_location(_replacement(name, loop, arguments, k), loop)
    return made


def _names_outside(kernel: ast.FunctionDef, loop: ast.For) -> _Names:
    """The names ``kernel`` reads and assigns outside ``loop``."""

    class Outside(_Names):
        def visit_For(self, node: ast.For) -> None:
            if node is not loop:
                self.generic_visit(node)

    found = Outside()
    for statement in kernel.body:
        found.visit(statement)
    return found
