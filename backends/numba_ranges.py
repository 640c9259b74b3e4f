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
of Numba's pool calls it on the next piece nobody has claimed yet (an atomic counter) until
none is left (:func:`_on_threads`, which calls the pool as Numba's threaded loops do,
without their per-loop compiling). Numba's own schedule gives each thread one fixed equal
share instead: where another process holds one of the cores, the thread on it finishes its
share late and the whole pass waits for it; with pieces, the other thread takes more of
them. A body's ``nb.get_thread_id()`` (its row of per-thread scratch) becomes ``slot``: the
thread's number below the thread count, or 0; no two pieces run at once on one slot.
Outside loops the calling thread's id is 0.

A loop that sums into variables the kernel reads after it (``total += ...``, a reduction)
becomes a range function that takes the sums and returns them with its piece added; each
piece starts from zeros, and the kernel adds the pieces' sums to its own in the pieces'
order, so a threaded sum does not depend on which thread ran which piece
(:func:`_summed_on_threads`); on the calling thread it stays a loop over ``range`` in the
kernel (LLVM vectorises some sums better there). A loop is kept as it is in the threaded
branch (a Numba ``prange``), and as a plain ``range`` loop in the other, where its body
assigns another variable the kernel may read after it, or returns; a kernel with no such
loop (none of genqsim's) is compiled without Numba's parallel passes. Only ``prange`` loops are
threaded (Numba's other automatic parallelisation, of array expressions, is off), so the
calling thread's branch never wakes the pool. The transformed source keeps the kernel's
line numbers and file, so tracebacks point at the kernel's own lines and Numba caches every
function beside the kernel's module.
"""

from __future__ import annotations

import ast
import inspect
import operator
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import cgutils
from numba.core.typed_passes import _reload_parfors
from numba.extending import intrinsic
from numba.np.ufunc.parallel import _iget_num_threads, _launch_threads

from . import numba_cache  # noqa: F401  (first: where Numba keeps the range functions)

THREADED = "threaded"
GENERATED = "_loop_"
"""The prefix of the variables a kernel's build adds (a loop's count, threads, pieces and
bounds)."""
THREADS = "_thread_count"
PIECES = "_piece_count"
ON_THREADS = "_on_threads"
SUMMED_ON_THREADS = "_summed_on_threads"
NONNEGATIVE = "_nonnegative"
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


THREAD_POOL_LOOP = "numba_parallel_for"
"""The thread pool's entry point in every Numba threading layer (workqueue, OpenMP, TBB),
as Numba's own threaded loops call it: ``(task, args, dimensions, steps, data, inner_ndim,
array_count, threads)`` runs ``task(args', dimensions', steps, data)`` on up to ``threads``
threads over ``dimensions[0]`` items, each call's ``args'[j]`` advanced by ``steps[j]`` per
item before it and ``dimensions'[0]`` its count of items."""

THREADED_LOOP_RAISED = (
    "a threaded loop of a genqsim kernel raised an exception; run it with one thread "
    "(genqsim.set_num_threads(1), or threads=1) to see it"
)


@intrinsic
def _on_threads(typingctx: Any, range_function: Any, n: Any, parts: Any, pieces: Any,
                arguments: Any) -> Any:  # fmt: skip
    """``range_function(lo, hi, slot, *arguments)`` over ``0 .. n`` split into ``pieces``
    equal pieces, run on ``parts`` threads of Numba's pool, each thread claiming the next
    piece nobody has claimed (an atomic counter) until none is left; ``slot`` is the
    thread's number below ``parts``. One thread runs them all on the calling thread.

    Emitted straight into the kernel: a task function that claims and runs pieces, and one
    call of the pool's loop (:data:`THREAD_POOL_LOOP`). Numba's ``prange`` over the threads
    did the same through its parallel-loop machinery, which copied, typed and lowered the
    loop as a function of its own and built two wrappers around it for every threaded loop
    of every kernel: about 11 s of the complex128 warm-up's compiling on a 2-core EPYC Zen
    3. A piece that raises makes the kernel raise ``RuntimeError`` once every thread is
    done (:data:`THREADED_LOOP_RAISED`)."""
    return _pieces_on_threads(typingctx, range_function, n, parts, pieces, None, arguments)


@intrinsic
def _summed_on_threads(typingctx: Any, range_function: Any, n: Any, parts: Any, pieces: Any,
                       initial: Any, arguments: Any) -> Any:  # fmt: skip
    """:func:`_on_threads` for a loop that sums into variables (a reduction):
    ``range_function(lo, hi, slot, *sums, *arguments)`` returns the tuple of ``sums`` plus
    what its piece adds; each piece starts from zeros, and the result is ``initial`` plus
    every piece's tuple, added in the pieces' order (the same sum whichever thread ran
    which piece). Numba's ``prange`` reductions compiled the kernel through its parallel
    passes, 1-3 s per reduction kernel and precision on a 2-core EPYC Zen 3."""
    return _pieces_on_threads(typingctx, range_function, n, parts, pieces, initial, arguments)


def _pieces_on_threads(typingctx: Any, range_function: Any, n: Any, parts: Any, pieces: Any,
                       initial: Any, arguments: Any) -> Any:  # fmt: skip
    """The typing and code of :func:`_on_threads` (``initial`` None) and
    :func:`_summed_on_threads`."""
    sums = () if initial is None else getattr(initial, "types", None)
    if not (isinstance(range_function, nb.types.Dispatcher)
            and isinstance(arguments, nb.types.BaseTuple) and sums is not None):  # fmt: skip
        return None
    callee_args = (nb.types.int64,) * 3 + tuple(sums) + tuple(arguments.types)  # type: ignore[attr-defined]
    callee = typingctx.resolve_function_type(range_function, callee_args, {})
    if callee is None:
        return None
    if initial is None:
        signature = nb.types.none(range_function, n, parts, pieces, arguments)
    else:
        summed = callee.return_type
        if not (isinstance(summed, nb.types.BaseTuple) and len(summed) == len(sums)):
            return None
        signature = summed(range_function, n, parts, pieces, initial, arguments)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        compiled = range_function.dispatcher.overloads[callee.args]
        context.active_code_library.add_linking_library(compiled.library)
        _launch_threads()  # the pool's symbols, for this process; on a reload from the cache:
        context.active_code_library._reload_init.add(_reload_parfors)
        i64, i32, byte_ptr = ir.IntType(64), ir.IntType(32), ir.IntType(8).as_pointer()
        count, threads, total = (context.cast(builder, v, t, nb.types.int64)
                                 for v, t in zip(args[1:4], signature.args[1:4]))  # fmt: skip
        values = cgutils.unpack_tuple(builder, args[-1], len(arguments))
        zeros = [context.get_constant_generic(builder, t, 0) for t in sums]
        summed_type = context.get_value_type(callee.return_type)
        saved_stack = None
        partials = summed_type.as_pointer()(None)
        if initial is not None:  # one tuple of sums per piece, on the stack
            save = cgutils.get_or_insert_function(builder.module, ir.FunctionType(byte_ptr, []),
                                                  "llvm.stacksave")  # fmt: skip
            saved_stack = builder.call(save, [])
            partials = builder.alloca(summed_type, size=total)
        # what the tasks share: claim counter, n, pieces, error flag, the pieces' sums,
        # the range function's arguments after (lo, hi, slot)
        header = [i64, i64, i64, i32, partials.type]
        closure_type = ir.LiteralStructType(header + [v.type for v in zeros + values])
        closure = cgutils.alloca_once(builder, closure_type)
        for k, value in enumerate([i64(0), count, total, i32(0), partials, *zeros, *values]):
            builder.store(value, cgutils.gep_inbounds(builder, closure, 0, k))
        task = _task(context, builder.module, closure_type, len(header), compiled, callee)
        slots = cgutils.alloca_once(builder, byte_ptr)  # item r's slot: null + r
        builder.store(byte_ptr(None), slots)
        items = cgutils.alloca_once_value(builder, threads)
        step = cgutils.alloca_once_value(builder, i64(1))
        task_args = [builder.bitcast(v, byte_ptr) for v in (slots, items, step, closure)]
        with builder.if_else(builder.icmp_signed(">", threads, i64(1))) as (pool, alone):
            with pool:
                loop_type = ir.FunctionType(ir.VoidType(), [byte_ptr] * 5 + [i64] * 3)
                loop = cgutils.get_or_insert_function(builder.module, loop_type,
                                                      THREAD_POOL_LOOP)  # fmt: skip
                builder.call(loop, [builder.bitcast(task, byte_ptr), *task_args,
                                    i64(0), i64(1), threads])  # fmt: skip
            with alone:
                builder.store(i64(1), items)
                builder.call(task, [slots, items, step, task_args[3]])
        raised = builder.load(cgutils.gep_inbounds(builder, closure, 0, 3))
        with cgutils.if_unlikely(builder, builder.icmp_unsigned("!=", raised, i32(0))):
            context.call_conv.return_user_exc(builder, RuntimeError, (THREADED_LOOP_RAISED,))
        if initial is None:
            return context.get_dummy_value()
        result = _added_in_order(context, builder, args[4], initial, callee.return_type,
                                 partials, total)  # fmt: skip
        restore_type = ir.FunctionType(ir.VoidType(), [byte_ptr])
        restore = cgutils.get_or_insert_function(builder.module, restore_type, "llvm.stackrestore")
        builder.call(restore, [saved_stack])
        return result

    return signature, codegen


def _added_in_order(context: Any, builder: Any, initial: Any, initial_type: Any,
                    summed_type: Any, partials: Any, count: Any) -> Any:  # fmt: skip
    """``initial`` (cast to ``summed_type``) plus the ``count`` tuples at ``partials``, added
    element by element in order."""
    kinds = list(summed_type)
    firsts = cgutils.unpack_tuple(builder, initial, len(kinds))
    accumulators = [cgutils.alloca_once_value(builder, context.cast(builder, v, t, kind))
                    for v, t, kind in zip(firsts, initial_type, kinds)]  # fmt: skip
    adds = [context.get_function(operator.add, kind(kind, kind)) for kind in kinds]
    with cgutils.for_range(builder, count) as loop:
        piece = builder.load(builder.gep(partials, [loop.index]))
        for k, (accumulator, add) in enumerate(zip(accumulators, adds)):
            part = builder.extract_value(piece, k)
            builder.store(add(builder, (builder.load(accumulator), part)), accumulator)
    return context.make_tuple(builder, summed_type, [builder.load(a) for a in accumulators])


def _task(context: Any, module: Any, closure_type: Any, header: int, compiled: Any,
          callee: Any) -> Any:  # fmt: skip
    """The function each thread of :func:`_pieces_on_threads` runs, in the kernel's module:
    its slot is its first item's number (``args[0]``, advanced from null by one per item);
    it claims pieces from the closure's counter and runs the range function on each, its
    arguments after (lo, hi, slot) the closure's fields from ``header`` on; a summing range
    function's result goes to the piece's place in the closure's sums."""
    i64, i32, byte_ptr = ir.IntType(64), ir.IntType(32), ir.IntType(8).as_pointer()
    task_type = ir.FunctionType(ir.VoidType(), [byte_ptr.as_pointer(), i64.as_pointer(),
                                                i64.as_pointer(), byte_ptr])  # fmt: skip
    task = ir.Function(module, task_type, name=module.get_unique_name("genqsim_pieces"))
    task.linkage = "internal"
    builder = ir.IRBuilder(task.append_basic_block("entry"))
    arrays, _, _, data = task.args
    slot = builder.ptrtoint(builder.load(arrays), i64)
    closure = builder.bitcast(data, closure_type.as_pointer())
    field = lambda k: cgutils.gep_inbounds(builder, closure, 0, k)  # noqa: E731
    counter, raised = field(0), field(3)
    count, pieces, partials = builder.load(field(1)), builder.load(field(2)), builder.load(field(4))
    values = [builder.load(field(k)) for k in range(header, len(closure_type.elements))]
    function = context.declare_function(module, compiled.fndesc)
    claim = builder.append_basic_block("claim")
    run = builder.append_basic_block("run")
    done = builder.append_basic_block("done")
    builder.branch(claim)
    builder.position_at_end(claim)
    piece = builder.atomic_rmw("add", counter, i64(1), "monotonic")
    builder.cbranch(builder.icmp_signed("<", piece, pieces), run, done)
    builder.position_at_end(run)
    lo = builder.sdiv(builder.mul(count, piece), pieces)
    hi = builder.sdiv(builder.mul(count, builder.add(piece, i64(1))), pieces)
    status, result = context.call_conv.call_function(
        builder, function, callee.return_type, callee.args, [lo, hi, slot, *values]
    )
    with builder.if_else(status.is_error, likely=False) as (failed, succeeded):
        with failed:
            builder.store_atomic(i32(1), raised, "monotonic", 4)
        with succeeded:
            if isinstance(callee.return_type, nb.types.BaseTuple):
                builder.store(result, builder.gep(partials, [piece]))
    builder.branch(claim)
    builder.position_at_end(done)
    builder.ret_void()
    return task


@intrinsic
def _nonnegative(typingctx: Any, value: Any) -> Any:
    """``value`` (an integer), which LLVM may then take as non-negative (``llvm.assume``): a
    range function's start, the first index of a share of ``0 .. n``, never negative."""
    if not isinstance(value, nb.types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        (number,) = args
        assume_type = ir.FunctionType(ir.VoidType(), [ir.IntType(1)])
        assume = cgutils.get_or_insert_function(builder.module, assume_type, "llvm.assume")
        builder.call(assume, [builder.icmp_signed(">=", number, number.type(0))])
        return number

    return value(value), codegen


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


def _range_function(name: str, loop: ast.For, arguments: list[str],
                    sums: list[str]) -> ast.FunctionDef:  # fmt: skip
    """``def name(lo, hi, slot, *sums, *arguments): for i in range(lo, hi): body`` (its own
    parameters prefixed with :data:`GENERATED`), the body's thread id its ``slot``; where
    the loop sums into variables, ``return (*sums,)`` after the loop. The loop counts from
    0 (``i = lo + k``) with ``lo`` known to LLVM as non-negative (:func:`_nonnegative`), so
    that ``x[i]`` needs no wraparound for negative indices: with that select per element,
    ``norm_squared``'s loop loaded its floats one by one instead of in vectors."""
    lo, hi, count = (f"{GENERATED}{p}" for p in ("lo", "hi", "k"))
    index = loop.target.id  # type: ignore[attr-defined]
    body = [_thread_id_as(statement, lambda: _load(f"{GENERATED}slot")) for statement in loop.body]
    first = ast.Assign([_store(index)], ast.BinOp(_load(lo), ast.Add(), _load(count)))
    inner = ast.For(
        target=_store(count),
        iter=_call("range", [ast.BinOp(_load(hi), ast.Sub(), _load(lo))]),
        body=[first, *body],
        orelse=[],
    )
    parameters = [lo, hi, f"{GENERATED}slot", *sums, *arguments]
    function = ast.parse(f"def {name}({', '.join(parameters)}):\n    pass\n").body[0]
    assert isinstance(function, ast.FunctionDef)  # a template: the AST fields of this Python
    function.body = [ast.Assign([_store(lo)], _call(NONNEGATIVE, [_load(lo)])), inner]
    if sums:
        function.body.append(ast.Return(ast.Tuple([_load(s) for s in sums], ast.Load())))
    return ast.copy_location(function, loop)


def _replacement(name: str, loop: ast.For, arguments: list[str], sums: list[str],
                 serial: ast.For | None, k: int) -> ast.stmt:  # fmt: skip
    """What replaces ``loop``: threaded, the range function over the pieces the threads
    claim (:func:`_on_threads`); else the range function over all iterations. A loop that
    sums into ``sums``: threaded, :func:`_summed_on_threads`; else ``serial``, the loop
    over ``range`` in the kernel (LLVM vectorised ``transition_xz``'s sum there and not in
    its range function, one thread 15-25 % faster on a 2-core EPYC Zen 3)."""
    count, parts, pieces = (f"{GENERATED}{what}{k}" for what in ("n", "parts", "pieces"))
    shared = ast.Tuple([_load(a) for a in arguments], ast.Load())
    on_threads = [_load(name), _load(count), _load(parts), _load(pieces), shared]
    if serial is not None:
        initial = ast.Tuple([_load(s) for s in sums], ast.Load())
        pool: ast.stmt = ast.Assign(
            [ast.Tuple([_store(s) for s in sums], ast.Store())],
            _call(SUMMED_ON_THREADS, [*on_threads[:4], initial, shared]),
        )
        whole: list[ast.stmt] = [serial]
    else:
        start, stop, slot = (f"{GENERATED}{what}{k}" for what in ("start", "stop", "slot"))
        bounds = ast.Tuple([_store(start), _store(stop), _store(slot)], ast.Store())
        loads: list[ast.expr] = [_load(start), _load(stop), _load(slot), *map(_load, arguments)]
        plain = _call(name, loads)
        pool = ast.Expr(_call(ON_THREADS, on_threads))
        whole = [ast.Assign([bounds], _call(WHOLE, [_load(count)])), ast.Expr(plain)]
    threaded = [
        ast.Assign([_store(parts)], _call(THREADS, [_load(count)])),
        ast.Assign([_store(pieces)], _call(PIECES, [_load(count), _load(parts)])),
        pool,
    ]
    return ast.If(
        _load(THREADED),
        [ast.Assign([_store(count)], loop.iter.args[0]), *threaded],  # type: ignore[attr-defined]
        [ast.Assign([_store(count)], loop.iter.args[0]), *whole],  # type: ignore[attr-defined]
    )


def _kept(loop: ast.For) -> ast.stmt:
    """What replaces a loop that stays as written: itself when threaded, else the same loop
    over ``range`` on the calling thread."""
    return ast.If(_load(THREADED), [loop], [_plain_loop(loop)])


def _plain_loop(loop: ast.For) -> ast.For:
    """A copy of ``loop`` over ``range``, for the calling thread (thread id 0)."""
    plain = _thread_id_as(ast.parse(ast.unparse(loop)).body[0], lambda: ast.Constant(0))
    plain.iter.func = _load("range")
    return ast.increment_lineno(plain, loop.lineno - plain.lineno)


def _source_tree(fn: Callable[..., Any]) -> ast.Module:
    """``fn``'s own definition, without decorators, at its line numbers in its file."""
    lines, first = inspect.getsourcelines(fn)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    tree.body[0].decorator_list = []  # type: ignore[attr-defined]
    return tree


def one_build(fn: Callable[..., Any], compile_kernel: Callable[[Callable[..., Any], bool], Any],
              compile_range: Callable[[Callable[..., Any]], Any]) -> Any:  # fmt: skip
    """Kernel ``fn`` as one function ``fn(threaded, *arguments)``, its ``prange`` loops as
    range functions (see the module's docstring) compiled by ``compile_range``, the kernel
    by ``compile_kernel(function, keeps_prange)``: ``keeps_prange`` says whether a loop was
    kept as a ``prange`` (for Numba's threaded loops); else the kernel needs none of Numba's
    parallel passes."""
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
    namespace = {**fn.__globals__, NONNEGATIVE: _nonnegative}
    if made:
        module = ast.fix_missing_locations(ast.Module(body=list[ast.stmt](made), type_ignores=[]))
        exec(compile(module, fn.__code__.co_filename, "exec"), namespace)
    scope = {**fn.__globals__, **{f.name: compile_range(namespace[f.name]) for f in made},
             THREADS: _thread_count, PIECES: _piece_count, ON_THREADS: _on_threads,
             SUMMED_ON_THREADS: _summed_on_threads, WHOLE: _whole}  # fmt: skip
    exec(compile(ast.fix_missing_locations(tree), fn.__code__.co_filename, "exec"), scope)
    built = scope[kernel.name]
    built.__doc__ = fn.__doc__
    return compile_kernel(built, any(_is_prange_loop(node) for node in ast.walk(kernel)))


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
        leaving = (inside.assigned - {index}) & (outside.read | parameters)
        summed = not leaving & parameters and _only_summed(loop, leaving)
        sums = sorted(leaving) if summed else []
        if nested or returns or leaving - set(sums):
            statements[place] = ast.copy_location(_kept(loop), loop)
            continue  # not a plain loop: Numba threads it as it is
        arguments = sorted((inside.read - inside.assigned - {index}) & local)
        name = f"{kernel.name}__range{k}"
        # a sum's loop for the calling thread, copied before the range function takes the
        # body's thread ids
        serial = _plain_loop(loop) if sums else None
        made.append(_range_function(name, loop, arguments, sums))
        replacement = _replacement(name, loop, arguments, sums, serial, k)
        statements[place] = ast.copy_location(replacement, loop)
    return made


def _only_summed(loop: ast.For, names: set[str]) -> bool:
    """Whether ``loop``'s body uses each of ``names`` only as ``name += value``, with no
    one of them in ``value`` (a sum, whose pieces can be added in any grouping)."""
    summed = 0
    for node in ast.walk(loop):
        if (isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add)
                and isinstance(node.target, ast.Name) and node.target.id in names):  # fmt: skip
            if _names([node.value]).read & names:
                return False
            summed += 1
    used = sum(isinstance(n, ast.Name) and n.id in names for n in ast.walk(loop))
    return bool(names) and used == summed


def _names_outside(kernel: ast.FunctionDef, loop: ast.For) -> _Names:
    """The names ``kernel`` reads and assigns outside ``loop``; a name another loop sets
    before every read of it in its body is that loop's own (two loops that each begin with
    ``start = ...`` share nothing through it), so those reads do not count."""

    class Outside(_Names):
        def visit_For(self, node: ast.For) -> None:
            if node is loop:
                return
            self.visit(node.target)
            self.visit(node.iter)
            body, after = Outside(), Outside()
            for statement in node.body:
                body.visit(statement)
            for statement in node.orelse:  # runs once after the body: every read counts
                after.visit(statement)
            self.assigned |= body.assigned | after.assigned
            self.read |= after.read | {n for n in body.read if _read_before_set(node.body, n)}

    found = Outside()
    for statement in kernel.body:
        found.visit(statement)
    return found


def _read_before_set(statements: list[ast.stmt], name: str) -> bool:
    """Whether running ``statements`` may read ``name`` before assigning it. A loop or branch
    may not run its body, so what it assigns leaves ``name`` unset for what follows it."""
    for statement in statements:
        if isinstance(statement, ast.Assign):
            if name in _names([statement.value]).read:
                return True
            targets = _names(statement.targets)
            if name in targets.read:
                return True
            if name in targets.assigned:
                return False
        elif isinstance(statement, (ast.For, ast.While, ast.If)):
            head = statement.iter if isinstance(statement, ast.For) else statement.test
            if name in _names([head]).read:
                return True
            bodies = [statement.body, statement.orelse]
            if isinstance(statement, ast.For) and name in _names([statement.target]).assigned:
                bodies = [statement.orelse]  # the body reads the loop's own value
            if any(_read_before_set(body, name) for body in bodies):
                return True
        elif name in _names([statement]).read:
            return True
    return False
