"""Classical values of dynamic circuits as functions of measured bits: what the conditions,
``switch`` targets and classical variables (``bool``, ``int``, ``uint``) of OpenQASM 3
files and Qiskit circuits compute, read into genqsim's classically controlled operations.

A conditional runs on the values of classical bits. So a classical variable is kept as the
expression of bits it was last given (``a = !c[0]``, or under a branch ``a = c[0] ? true :
a``), valid while none of those bits is written again; where a measurement or store is
about to write them, the value is first stored into scratch bits of its own (classical bits
the reader adds past the program's, left out of results: :meth:`ClassicalScope.keep`).
Where a branch sets a variable from bits, the value is stored at the end of its body, and
where a statement's branches leave a value that reads more bits than its type has, the
value is stored after the statement (:meth:`ClassicalScope.settled`). A condition or
``switch`` target is evaluated on every value of the bits it reads (at most
:data:`MAX_CONDITION_BITS` of them, unless it compares bits with one value). A value
assigned to bits (``c = c ^ 5``) becomes a classical store, its table the expression's
value on every value of the bits it reads (:func:`stored_table`). Both readers
(:mod:`genqsim.io.qasm.qasm3`, :mod:`genqsim.io.interop`) build the expressions below from
their own syntax and share the rest; the writers share :func:`as_constant_stores`.

An expression is a tuple: ``("bits", (b0, b1, ...))`` the unsigned value of those bits
(``b0`` lowest), ``("const", k)``, ``("cast", width, x)`` (``width`` ``0`` for ``bool``,
``-w`` for a signed ``int[w]``), ``("select", condition, then, otherwise)``, ``("~", x,
width)``, ``("!", x)``, ``("neg", x)``, and ``(operator, x, y)`` for the operators of
:data:`BINARY`.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from ..circuit.circuit import Circuit
from ..circuit.store import MAX_STORE_SOURCES, Store
from ..errors import ArgumentValueError, GenqsimError

Expression = tuple
"""A classical expression (see the module's text)."""

MAX_CONDITION_BITS = 10
"""Bits a condition may read when it is evaluated on every value of them (an expression, an
``else`` branch or a ``switch`` default): on more it is refused, not enumerated."""

BINARY: dict[str, Any] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt,
    "<=": operator.le, ">=": operator.ge, "&&": lambda a, b: bool(a) and bool(b),
    "||": lambda a, b: bool(a) or bool(b), "&": operator.and_, "|": operator.or_,
    "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift, "+": operator.add,
    "-": operator.sub, "*": operator.mul, "/": lambda a, b: _divided(a, b),
}  # fmt: skip
"""The binary operators of classical expressions, on Python integers (and floats: the
arithmetic and comparisons)."""

FLOAT = "float"
"""The width :func:`cast` takes for a ``float`` value (OpenQASM 3's ``float[64]``, Qiskit's
``types.Float``): a Python float."""

Width = int | str
"""A classical type as :func:`cast` takes it: ``0`` bool, ``w`` ``uint[w]``, ``-w``
``int[w]``, :data:`FLOAT` float."""


def _divided(a: Any, b: Any) -> float | int:
    """``a / b``: of floats (either operand), a float; of non-negative integers (Qiskit's
    ``expr.div`` on ``uint`` values), the integer quotient, on which every rounding agrees.
    A negative integer operand is refused: languages round its quotient differently (toward
    zero, or down)."""
    if b == 0:
        raise ClassicalError(f"a classical division by zero ({a} / {b})")
    if isinstance(a, float) or isinstance(b, float):
        return a / b
    if a < 0 or b < 0:
        raise ClassicalError(
            f"an integer division of a negative value ({a} / {b}) is outside what genqsim "
            "reads (languages round it differently): divide floats, or unsigned values"
        )
    return int(a) // int(b)


class ClassicalError(ArgumentValueError):
    """A classical construct genqsim cannot read into conditionals on measured bits (each
    reader adds where it stands: a file's line, a circuit's instruction)."""


class LoopVariableError(ClassicalError):
    """The value of a variable a while loop's body assigns was needed where only the loop's
    count of iterations would tell it (:func:`read_while_loop` then unrolls the loop)."""


MAX_UNROLLED_WHILE = 100
"""Iterations a while loop whose condition reads variables its body assigns is unrolled to
(a loop with a counter): one past them it is refused."""


def unknown(name: str, width: Width) -> Expression:
    """The value of the variable ``name`` as some iteration of a while loop left it: carried
    through expressions, refused (:class:`LoopVariableError`) where evaluated."""
    return ("unknown", name, width)


def has_unknown(node: Expression) -> bool:
    """Whether ``node`` reads a value only a while loop's count of iterations would tell."""
    return any(part[0] == "unknown" for part in _parts(node))


def _parts(node: Expression) -> Iterator[Expression]:
    """``node`` and every part of it, in the order met (depth first, left to right), each
    part it holds several times (see :func:`evaluate`) once, walked without recursion (an
    unrolled loop nests one level per iteration)."""
    stack = [node]
    seen: set[int] = set()
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if current[0] not in ("bits", "const"):  # a bits' child is a tuple of indices
            stack += [child for child in reversed(current[1:]) if isinstance(child, tuple)]


def bits(indices: Sequence[int]) -> Expression:
    """The unsigned value of the classical bits ``indices`` (the first the lowest)."""
    return ("bits", tuple(indices))


def const(value: int | bool | float) -> Expression:
    """A constant: an integer (a bool as 0 or 1), or a float."""
    return ("const", value if isinstance(value, float) else int(value))


def cast(width: Width, value: Expression) -> Expression:
    """``value`` as a ``bool`` (``width`` 0), ``uint[width]`` (positive), ``int[-width]``
    (negative) or a float (:data:`FLOAT`)."""
    return ("cast", width, value)


def evaluate(node: Expression, values: Mapping[int, int]) -> Any:
    """The value of ``node`` where each classical bit ``b`` holds ``values[b]``: an integer,
    or a float where it computes one. A part the expression holds several times (a
    variable's earlier value, under each branch of a loop's iterations) is evaluated once."""
    return _evaluate(node, values, {})


_MISSING = object()


def _evaluate(node: Expression, values: Mapping[int, int], known: dict[int, Any]) -> Any:
    """:func:`evaluate`, with the values of the parts met so far by their ``id`` (one frame
    per level: unrolled loops nest deep)."""
    found = known.get(id(node), _MISSING)
    if found is not _MISSING:
        return found
    kind = node[0]
    if kind == "bits":
        found = sum(values[b] << i for i, b in enumerate(node[1]))
    elif kind == "unknown":
        raise LoopVariableError(
            f"the classical variable {node[1]!r} is read after a while loop's body assigned "
            "it: its value depends on how many times the loop ran, which genqsim follows "
            "where the loop's condition bounds it (unrolled up to "
            f"{MAX_UNROLLED_WHILE} iterations), or where the value can be carried from one "
            "iteration to the next in classical bits (a bool or an integer, not a float, "
            f"whose value reads at most {MAX_STORE_SOURCES} bits)"
        )
    elif kind == "const":
        found = node[1]
    elif kind == "select":
        chosen = node[2] if _evaluate(node[1], values, known) else node[3]
        found = _evaluate(chosen, values, known)
    elif kind == "cast":
        found = _cast(node[1], _evaluate(node[2], values, known))
    elif kind == "!":
        found = int(not _evaluate(node[1], values, known))
    elif kind == "~":
        found = ~_evaluate(node[1], values, known) & ((1 << node[2]) - 1)
    elif kind == "neg":
        found = -_evaluate(node[1], values, known)
    else:
        left, right = _evaluate(node[1], values, known), _evaluate(node[2], values, known)
        try:
            found = BINARY[kind](left, right)
        except TypeError:  # a bitwise operator on a float: no type system lets it through
            raise ClassicalError(f"{kind!r} does not apply to {left!r} and {right!r}") from None
        found = found if isinstance(found, float) else int(found)
    known[id(node)] = found
    return found


def _cast(width: Width, value: Any) -> Any:
    if width == FLOAT:
        return float(value)
    assert isinstance(width, int)
    if width == 0:
        return int(bool(value))
    if isinstance(value, float):  # to an integer type: toward zero, then wrapped
        value = int(value)
    if width > 0:
        return value & ((1 << width) - 1)
    wrapped = value & ((1 << -width) - 1)
    return wrapped - (1 << -width) if wrapped >> (-width - 1) else wrapped


def bits_read(node: Expression) -> tuple[int, ...]:
    """The classical bits ``node`` reads, in the order met."""
    found: dict[int, None] = {}
    for part in _parts(node):
        if part[0] == "bits":
            found.update(dict.fromkeys(part[1]))
    return tuple(found)


def width_of(node: Expression) -> int:
    """How many bits ``~`` inverts in ``node``: those of its integer type, else one."""
    width = integer_width(node)
    return 1 if width is None else abs(width)


WRAPPING = frozenset({"+", "-", "*", "<<", ">>", "&", "|", "^"})
"""The operators whose value an integer type of fixed width must wrap (a sum of ``uint[3]``
values that reaches 8, a shift that moves bits past the top)."""


def integer_width(node: Expression) -> int | None:
    """The integer type of ``node``'s value where the expression fixes one, as :func:`cast`
    takes widths (``w`` for ``uint[w]`` and ``w`` bits, ``-w`` for ``int[w]``): bits, casts,
    ``~``, shifts (their left operand's), and the arithmetic (division too) and bitwise
    operators of integers (the widest operand's, a constant counting as the bits it needs, signed if
    either is). ``None`` for constants alone, bools, floats and comparisons."""
    kind = node[0]
    if kind == "bits":
        return len(node[1])
    if kind in ("cast", "unknown"):
        width = node[1] if kind == "cast" else node[2]
        return None if width in (0, FLOAT) else width
    if kind == "~":
        return int(node[2])
    if kind in ("<<", ">>"):
        return integer_width(node[1])
    if kind == "select":
        return _joined_width(node[2], node[3])
    if kind in WRAPPING or kind == "/":  # a quotient of integers keeps their type
        return _joined_width(node[1], node[2])
    return None


def _joined_width(a: Expression, b: Expression) -> int | None:
    """The integer type two operands meet in (see :func:`integer_width`)."""
    if _is_float(a) or _is_float(b):
        return None
    known = [w for w in (integer_width(a), integer_width(b)) if w is not None]
    if not known:
        return None
    constants = [abs(n[1]).bit_length() for n in (a, b) if n[0] == "const"]
    size = max([abs(w) for w in known] + constants)
    return -size if any(w < 0 for w in known) else size


def _is_float(node: Expression) -> bool:
    """Whether ``node``'s value is a float: a float constant, a cast to float, or
    arithmetic (a division too) with a float operand."""
    kind = node[0]
    if kind == "const":
        return isinstance(node[1], float)
    if kind in ("cast", "unknown"):
        return (node[1] if kind == "cast" else node[2]) == FLOAT
    if kind in ("+", "-", "*", "/", "neg", "select"):
        return any(isinstance(child, tuple) and _is_float(child) for child in node[1:])
    return False


def binary(op: str, left: Expression, right: Expression) -> Expression:
    """``left op right``, wrapped to its integer type (:func:`integer_width`) where the
    operator can carry it out of range: ``uint[3]`` values sum modulo 8 and shift within
    their three bits, as Qiskit's types (``expr.add``, ``expr.shift_left`` keep the operands'
    width) and OpenQASM 3's fixed widths have it."""
    node = (op, left, right)
    if op in WRAPPING:
        width = integer_width(node)
        if width is not None:
            return cast(width, node)
    return node


def values_where(node: Expression) -> tuple[tuple[int, ...], list[int]]:
    """``(bits, values)``: ``node`` holds (is nonzero) exactly where ``bits`` (the first the
    lowest) hold one of ``values``. Bits compared with one value, or one bit, are read
    directly; anything else is evaluated on every value of the bits it reads."""
    if node[0] == "bits" and len(node[1]) == 1:
        return node[1], [1]
    if node[0] == "==" and {node[1][0], node[2][0]} == {"bits", "const"}:
        register, value = (node[1], node[2]) if node[1][0] == "bits" else (node[2], node[1])
        if not 0 <= value[1] < 1 << len(register[1]):
            raise ClassicalError(f"value {value[1]} does not fit in {len(register[1])} bit(s)")
        return register[1], [value[1]]
    return values_holding(bits_read(node), lambda values: bool(evaluate(node, values)))


def values_holding(
    tested: Sequence[int], holds_at: Callable[[Mapping[int, int]], bool]
) -> tuple[tuple[int, ...], list[int]]:
    """``(bits, values)``: ``holds_at`` (a test of the values of the classical bits
    ``tested``, each bit to its value) holds exactly where ``bits`` (the first the lowest)
    hold one of ``values``; it is evaluated on every value of ``tested``, and bits it does
    not depend on are left out of ``bits``."""
    holds = [bool(holds_at(_assignment(tested, v))) for v in every_value(tested)]
    # bits the result does not depend on (``c & 3`` of a 3-bit register) are left out
    needed = [i for i in range(len(tested))
              if any(holds[v] != holds[v ^ (1 << i)] for v in range(len(holds)))]  # fmt: skip
    spread = [sum(((v >> k) & 1) << i for k, i in enumerate(needed))
              for v in range(1 << len(needed))]  # fmt: skip
    return tuple(tested[i] for i in needed), [v for v, w in enumerate(spread) if holds[w]]


def stored_table(node: Expression, width: int) -> tuple[tuple[int, ...], list[int]]:
    """``(sources, table)`` of a store of ``node`` into ``width`` bits: the bits ``node``
    reads, and for each value of them the value written (``node``'s, cut to ``width`` bits
    as a ``uint[width]`` cast cuts it). At most
    :data:`~genqsim.circuit.store.MAX_STORE_SOURCES` bits are read."""
    sources = bits_read(node)
    if len(sources) > MAX_STORE_SOURCES:
        raise ClassicalError(
            f"a store of a value that reads {len(sources)} classical bits is refused: it is "
            f"kept as a table of a value per value of them, and more than {MAX_STORE_SOURCES} "
            "bits are too many"
        )
    mask = (1 << width) - 1
    table = []
    for v in range(1 << len(sources)):
        found = evaluate(node, _assignment(sources, v))
        if isinstance(found, float):
            raise ClassicalError(f"a float ({found}) is stored into classical bits: cast it")
        table.append(found & mask)
    return sources, table


def as_constant_stores(store: Store, n_qubits: int, n_clbits: int) -> Circuit:
    """``store`` as a circuit of stores of constants: the constant itself, or an if / else
    chain on the sources' values, each branch writing the value its values give (for
    formats whose stores write expressions, not tables: OpenQASM 3, Qiskit). The sources
    are read once, before any branch writes."""
    out = Circuit(n_qubits, n_clbits=n_clbits)
    by_value: dict[int, list[int]] = {}
    for value, written in enumerate(store.table):
        by_value.setdefault(written, []).append(value)
    chain: Circuit | None = None
    for written, values in reversed(list(by_value.items())):
        branch = Circuit(n_qubits, n_clbits=n_clbits).store(store.clbits, written)
        if chain is None:  # the last value: where no other holds
            chain = branch
        else:
            chain = Circuit(n_qubits, n_clbits=n_clbits).if_(
                store.sources, values, branch, orelse=chain
            )
    assert chain is not None
    for op in chain.operations:
        out._push_checked(op)
    return out


def every_value(tested: Sequence[int]) -> range:
    """Every value of the bits ``tested``: refused past :data:`MAX_CONDITION_BITS` bits."""
    if len(tested) > MAX_CONDITION_BITS:
        raise ClassicalError(
            f"a condition on {len(tested)} classical bits is refused unless it compares them "
            f"with one value: it runs once per value of them, and more than "
            f"{MAX_CONDITION_BITS} bits are too many"
        )
    return range(1 << len(tested))


def _assignment(tested: Sequence[int], value: int) -> dict[int, int]:
    return {b: (value >> i) & 1 for i, b in enumerate(tested)}


def complement(tested: Sequence[int], values: Sequence[int]) -> list[int]:
    """The values of the bits ``tested`` outside ``values`` (an ``else``)."""
    chosen = set(values)
    return [v for v in every_value(tested) if v not in chosen]


def one_of(tested: Sequence[int], values: Sequence[int]) -> Expression:
    """An expression that holds where the bits ``tested`` hold one of ``values``."""
    found: Expression = const(0)
    for value in values:
        found = ("||", found, ("==", bits(tested), const(value)))
    return found


DEFAULT = object()
"""The label of a ``switch``'s default case."""


def switch_cases(
    target: Expression, cases: Sequence[tuple[Sequence[Any], Any]]
) -> tuple[tuple[int, ...], list[tuple[Any, list[int]]]]:
    """``(bits, [(block, values), ...])`` of a ``switch`` on ``target``: each case's block
    runs where ``bits`` hold one of its values. ``cases`` are ``(labels, block)``, a label an
    integer or :data:`DEFAULT`; the first case naming a value takes it, the default every
    value no case names."""
    default = next((block for labels, block in cases if DEFAULT in labels), None)
    if target[0] == "bits" and default is None:  # the labels are the values of the bits
        size = 1 << len(target[1])
        return target[1], [(block, [int(v) for v in labels if 0 <= v < size])
                           for labels, block in cases]  # fmt: skip
    tested = bits_read(target)
    chosen: dict[int, list[int]] = {id(block): [] for _, block in cases}
    for v in every_value(tested):
        key = evaluate(target, _assignment(tested, v))
        block = next((b for labels, b in cases if key in labels), default)
        if block is not None:
            chosen[id(block)].append(v)
    return tested, [(block, chosen[id(block)]) for _, block in cases]


def unmatched(bits: tuple[int, ...], chosen: Sequence[tuple[Any, list[int]]]) -> list[int]:
    """The values of ``bits`` no case of a ``switch`` (:func:`switch_cases`' ``chosen``)
    takes: where the statements after a switch that holds a jump run, and none of its
    blocks."""
    return complement(bits, [v for _, values in chosen for v in values])


@dataclass
class Variable:
    """A classical variable: its type (``width`` as in :func:`cast`) and its value, an
    expression of bits, with how many times each bit it reads had been written then, and
    the depth of the body it was last given a value in (see :meth:`ClassicalScope.keep`)."""

    name: str
    width: Width
    value: Expression
    stamps: dict[int, int]
    in_loop: bool = False  # assigned in a while loop's body: its value is unknown
    depth: int = 0
    start: Variable | None = None  # its value before a statement a branch of which set it


class ScratchMemory(Protocol):
    """What a reader gives :class:`ClassicalScope` to keep a variable's value in classical
    bits of its own (scratch bits, left out of results: see
    :meth:`~genqsim.circuit.circuit.Circuit.mark_scratch`)."""

    def scratch(self, width: int) -> tuple[int, ...]:
        """``width`` new scratch bits, which nothing has written or read yet."""

    def store_out(self, out: Any, clbits: tuple[int, ...], sources: tuple[int, ...],
                  table: list[int]) -> None:  # fmt: skip
        """A classical store of ``table`` (one value per value of ``sources``) into
        ``clbits``, appended to ``out``."""


PLACED_LATER = 1 << 30
"""Added to a depth: the variable was given its value by the branches of a statement not
yet placed in the body at that depth (see :meth:`ClassicalScope.settled`)."""


class ScratchBits:
    """:meth:`ScratchMemory.scratch` for a reader that counts its classical bits in
    ``n_clbits``: new bits past them, gathered in ``scratch_bits`` (marked as scratch on the
    circuit read)."""

    n_clbits: int
    scratch_bits: list[int]

    def scratch(self, width: int) -> tuple[int, ...]:
        """``width`` new classical bits past the reader's, left out of results."""
        found = tuple(range(self.n_clbits, self.n_clbits + width))
        self.n_clbits += width
        self.scratch_bits += found
        return found


MAX_SCRATCH_BITS = 4096
"""The most scratch bits one program's variables may take (each value kept takes its
variable's width anew): past them a variable is left to be refused where it is read."""


@dataclass
class Guard:
    """A branch being read: its condition with the write counts of the bits it reads (as
    they were before the first branch of its statement), the variables it assigned with
    their values where it started, the depth of the body around it, and the variables
    branches of its statement read before it set, as those left them (inside, such a
    variable holds its value from before the statement)."""

    condition: Expression
    stamps: dict[int, int]
    saved: dict[str, Variable]
    depth: int
    earlier: dict[str, Variable] = dataclasses.field(default_factory=dict)


class ClassicalScope:
    """The classical variables of a program and the bits written so far, as a reader goes
    through it in order; branches it reads are entered with :meth:`guarded`."""

    def __init__(self) -> None:
        self.variables: dict[str, Variable] = {}
        self.writes: dict[int, int] = {}
        self.guards: list[Guard] = []  # the branches being read, outermost first
        self.while_bodies = 0  # while loops being read, one inside another
        self.loop_assigned: list[set[str]] = []  # the variables each of them assigns
        self.blocks: list[set[str]] = []  # the names declared in each block being read
        self.on_block_end: list[Callable[[set[str]], None]] = []  # readers' own names
        self.break_flags = 0  # the while loops given a flag for their break so far
        self.memory: ScratchMemory | None = None  # where values are kept (see keep)
        self.outs: list[Any] = []  # the bodies being read into, outermost first
        self.scratch_used = 0
        self.kept_bits: set[int] = set()  # the scratch bits values were kept in

    def stamps(self, node: Expression) -> dict[int, int]:
        return {b: self.writes.get(b, 0) for b in bits_read(node)}

    def declare(
        self, name: str, width: Width, value: Expression | None = None, again: bool = False
    ) -> None:
        """A new variable (a value unset reads 0, false), local to the innermost block being
        read (:meth:`block`). ``again``: the same declaration read once more (a loop's next
        iteration), which starts the variable afresh."""
        if name in self.variables and not again:
            raise ClassicalError(f"the classical variable {name!r} is declared twice")
        self.variables[name] = Variable(name, width, const(0), {})
        self.declared(name)
        if value is not None:
            self.assign(name, value)

    def declared(self, name: str) -> None:
        """``name`` (a variable, or a reader's own name: a bit register) belongs to the
        innermost block being read, and is forgotten where it ends."""
        if self.blocks:
            self.blocks[-1].add(name)

    @contextmanager
    def block(self) -> Iterator[None]:
        """Within a block (a branch's body, a loop's): the names declared in it are local to
        it, as OpenQASM 3 scopes them; where it ends, its variables are dropped and each of
        :attr:`on_block_end` is called with its names."""
        self.blocks.append(set())
        try:
            yield
        finally:
            names = self.blocks.pop()
            for name in names:
                self.variables.pop(name, None)
            for forget in self.on_block_end:
                forget(names)

    def assign(self, name: str, value: Expression) -> None:
        """``name = value`` where the reader stands: inside branches the variable keeps its
        old value where their conditions do not hold."""
        variable = self.variables.get(name)
        if variable is None:
            raise ClassicalError(f"assignment to {name!r}, which is no classical variable")
        for guard in self.guards:  # its value where each branch started, kept once
            guard.saved.setdefault(name, dataclasses.replace(variable))
        variable.value = cast(variable.width, value)
        variable.stamps = self.stamps(variable.value)
        variable.in_loop = has_unknown(variable.value)
        variable.depth = self.depth
        for assigned in self.loop_assigned:
            assigned.add(name)

    def read(self, name: str) -> Expression | None:
        """The value of the variable ``name`` (``None`` where no variable has that name)."""
        variable = self.variables.get(name)
        if variable is None:
            return None
        if variable.in_loop:  # refused only where its value is needed
            return unknown(name, variable.width)
        self._check(variable.value, variable.stamps, f"the classical variable {name!r}")
        return variable.value

    def snapshot(self) -> Any:
        """What :meth:`restore` brings back: the variables and the bits' write counts."""
        return (
            {name: dataclasses.replace(v) for name, v in self.variables.items()},
            dict(self.writes),
        )

    def restore(self, snapshot: Any) -> None:
        """The variables and write counts of ``snapshot``, copied: it may be restored
        again."""
        variables, writes = snapshot
        self.variables = {name: dataclasses.replace(v) for name, v in variables.items()}
        self.writes = dict(writes)

    @property
    def depth(self) -> int:
        """How deep the body being read is (0: the program's own)."""
        return max(0, len(self.outs) - 1)

    @contextmanager
    def reading_into(self, out: Any) -> Iterator[None]:
        """Within the reading of entries into ``out``: a body of its own where ``out`` is
        not the body being read already (a for loop's iterations read into their
        surroundings')."""
        if self.outs and self.outs[-1] is out:
            yield
            return
        self.outs.append(out)
        try:
            yield
        finally:
            self.outs.pop()

    def measured(self, clbits: Sequence[int]) -> None:
        """Bits a measurement (or a store) is about to write: the values of variables that
        read them are kept first (:meth:`keep`); values read from them before are old from
        now on."""
        written = set(clbits)
        for variable in list(self.variables.values()):
            if written.intersection(bits_read(variable.value)):
                self.keep(variable)
        for guard in self.guards:  # values each branch being read needs where it ends
            for before in guard.saved.values():
                if written.intersection(bits_read(before.value)):
                    self.keep(before)
        for b in clbits:
            self.writes[b] = self.writes.get(b, 0) + 1

    def keep(self, variable: Variable) -> None:
        """Keep ``variable``'s value in scratch bits of its own, before a write changes the
        bits it reads: a store of the value, appended to the body the variable was last
        given a value in (where it holds that value, and every later path passes), and from
        then on the variable reads those bits. Left as it is (to be refused where read once
        stale) where the reader keeps no memory, the value is already stale, unknown or a
        float, reads more bits than a store may, or the scratch bits run out."""
        width = _kept_width(variable)
        if width:
            self._hold(variable, self._kept(variable.value, variable.stamps, variable.depth, width))

    def _keep_at_end(self, variable: Variable, body: Any) -> None:
        """Where a branch that set ``variable`` from bits ends, its value stored in scratch
        bits at the end of the branch's ``body``: after the statement it reads those, which
        nothing writes again, and not the bits, which a later branch of the statement (or
        anything after it) may write."""
        width = _kept_width(variable)
        if width and bits_read(variable.value) and not self._stale(variable.stamps):
            self._hold(variable, self._stored(variable.value, width, body, True))

    def _hold(self, variable: Variable, kept: Expression | None) -> None:
        """``variable`` reads the scratch bits ``kept`` its value was stored in (if it was)."""
        if kept is not None:
            variable.value = cast(variable.width, kept)
            variable.stamps = self.stamps(kept)

    def _stale(self, stamps: Mapping[int, int]) -> bool:
        """Whether a bit read at ``stamps`` was written since."""
        return any(self.writes.get(b, 0) != k for b, k in stamps.items())

    def _keep_condition(self, guard: Guard) -> None:
        """Keep the condition of a branch that set variables in a scratch bit, placed before
        its statement (the bits it reads may be written in the branch, in a later branch of
        the statement, or after it): where the branch ends, the variables it set take their
        new values where the kept bit holds."""
        # its bits as they were before its statement: so they hold at the end of the body
        # around it, where the statement is placed once its branches are read
        kept = self._kept(guard.condition, None, guard.depth, 1)
        if kept is not None:
            guard.condition = kept
            guard.stamps = self.stamps(kept)

    def _kept(
        self, value: Expression, stamps: Mapping[int, int] | None, depth: int, width: int
    ) -> Expression | None:
        """``value`` (valid at the end of the body at ``depth`` while its bits are written
        as many times as ``stamps`` says; ``None``: known to be valid there) stored into
        ``width`` new scratch bits there; those bits, or ``None`` where it cannot be kept
        (see :meth:`keep`)."""
        if depth >= len(self.outs):  # a body since ended, its statement not yet placed
            return None
        if stamps is not None and self._stale(stamps):
            return None
        # written once; outside the body being read counted as never written, so that a
        # while loop's body is not taken to write its condition's bits by keeping them
        return self._stored(value, width, self.outs[depth], written=depth == self.depth)

    def _stored(
        self,
        value: Expression,
        width: int,
        out: Any,
        written: bool,
        clbits: tuple[int, ...] | None = None,
    ) -> Expression | None:
        """``value`` stored into the scratch bits ``clbits`` (``width`` new ones if
        ``None``) at the end of ``out`` (counted as a write where ``written``); those bits, or
        ``None`` where it cannot be: no memory, an unknown or float value, more bits read
        than a store may, or the scratch bits spent."""
        memory = self.memory
        fresh = clbits is None
        if (
            memory is None
            or has_unknown(value)
            or (fresh and self.scratch_used + width > MAX_SCRATCH_BITS)
        ):
            return None
        try:
            sources, table = stored_table(value, width)
        except ClassicalError:  # too many bits, or a float
            return None
        if clbits is None:
            clbits = memory.scratch(width)
            self.scratch_used += width
            self.kept_bits.update(clbits)
        memory.store_out(out, clbits, sources, table)
        if written:
            for b in clbits:
                self.writes[b] = self.writes.get(b, 0) + 1
        return bits(clbits)

    def scratch_bit(self, value: Expression, out: Any, bit: int | None = None) -> int | None:
        """Store ``value`` (as a bool, valid where ``out`` ends) into the scratch bit ``bit``
        (a new one if ``None``) at the end of ``out``, the body being read; the bit, or
        ``None`` where it cannot be stored."""
        kept = self._stored(cast(0, value), 1, out, True, None if bit is None else (bit,))
        return None if kept is None else int(kept[1][0])

    def carry(
        self, variable: Variable, out: Any, clbits: tuple[int, ...] | None = None
    ) -> tuple[int, ...] | None:
        """``variable``'s value stored at the end of ``out`` into ``clbits`` (new scratch
        bits if ``None``), from which it reads from then on (a while loop carries it: see
        :func:`_carried_loop`); those bits, or ``None`` where the value cannot be stored (a
        float, one a while loop left unknown, a stale one, more bits read than a store
        may)."""
        width = _kept_width(variable)
        if not width or self._stale(variable.stamps):
            return None
        kept = self._stored(variable.value, width, out, True, clbits)
        if kept is None:
            return None
        self._hold(variable, kept)
        variable.depth = self.depth
        return tuple(kept[1])

    def settled(self) -> None:
        """A statement whose branches were read is placed in the body being read: the values
        its branches gave hold at that body's end from here on (see :meth:`guarded`)."""
        pending = PLACED_LATER + self.depth
        for variable in self.variables.values():
            if variable.depth != pending:
                continue
            variable.depth = self.depth
            variable.start = None
            width = _kept_width(variable)
            if width and len(bits_read(variable.value)) > width:
                # the branches' values and conditions, kept as the value they give: later
                # conditions on it read its own bits, not theirs
                self._hold(variable, self._kept(variable.value, variable.stamps, self.depth, width))

    @contextmanager
    def while_body(self) -> Iterator[set[str]]:
        """Within the body of a while loop (read twice: see :func:`read_while`); yields the
        names of the variables the body assigns, gathered as it is read."""
        self.while_bodies += 1
        self.loop_assigned.append(set())
        try:
            yield self.loop_assigned[-1]
        finally:
            self.while_bodies -= 1
            self.loop_assigned.pop()

    def unknown(self, names: set[str]) -> None:
        """The variables ``names`` hold values of an unknown iteration of a while loop: any
        later read raises :class:`LoopVariableError` (until they are assigned again)."""
        for name in names:
            if name in self.variables:  # not one local to a block of the body
                self.variables[name].in_loop = True

    @contextmanager
    def guarded(
        self, condition: Expression, stamps: dict[int, int] | None = None, body: Any = None
    ) -> Iterator[None]:
        """Within a branch taken where ``condition`` holds, its bits as they were written
        ``stamps`` times (default: as now; the branches of one statement all read the bits
        as they were before the first of them). Inside, a variable the branch assigns reads
        as assigned; after it, as the assigned value where ``condition`` held and the value
        before elsewhere (read only while the bits of both, and the condition's bits as they
        were, are unchanged)."""
        guard = Guard(condition, self.stamps(condition) if stamps is None else dict(stamps),
                      {}, self.depth)  # fmt: skip
        pending = PLACED_LATER + self.depth
        for name, held in self.variables.items():
            if held.depth == pending and held.start is not None:
                # set by a branch read before: here, where that branch did not run, it
                # holds its value from before the statement (which may be kept, as such)
                guard.earlier[name] = dataclasses.replace(held)
                _take_value(held, held.start)
        self.guards.append(guard)
        try:
            yield
        finally:
            self.guards.pop()
            changed = {**guard.earlier, **guard.saved}
            if changed and not set(guard.stamps) <= self.kept_bits:
                # kept before the statement: what this branch set is then told apart by a bit
                # no later branch, and nothing after the statement, writes again
                self._keep_condition(guard)
            for name in changed:
                variable = self.variables.get(name)
                if variable is None:  # local to a block inside the branch, which ended
                    continue
                if name in guard.saved and body is not None:
                    self._keep_at_end(variable, body)
                start = dataclasses.replace(guard.saved.get(name, variable), start=None)
                before = guard.earlier.get(name, start)  # where this branch did not run
                if name in guard.earlier:  # with the start's value as kept since, if it was
                    before = _with_start(before, start)
                if bits_read(guard.condition) or has_unknown(guard.condition):
                    variable.value = ("select", guard.condition, variable.value, before.value)
                    variable.stamps = _joined(variable.stamps, guard.stamps, before.stamps)
                    variable.in_loop = variable.in_loop or before.in_loop
                elif not evaluate(guard.condition, {}):  # a branch that never runs
                    variable.value, variable.stamps = before.value, dict(before.stamps)
                    variable.in_loop = before.in_loop
                # not kept until the statement is placed (settled): the body around it ends
                # before that statement, which its other branches are read into first
                variable.depth = pending
                variable.start = start

    def _check(self, node: Expression, stamps: Mapping[int, int], what: str) -> None:
        moved = sorted(b for b, k in stamps.items() if self.writes.get(b, 0) != k)
        if moved:
            raise ClassicalError(
                f"{what} depends on classical bit(s) {moved} as they were before a later "
                "measurement wrote them again, and its value could not be kept in scratch "
                "bits before that (a value one branch of a statement gave, needed after a "
                "later branch of it wrote those bits; a float; a value of more than "
                f"{MAX_STORE_SOURCES} bits): measure into other bits, or use the bits directly"
            )


def _kept_width(variable: Variable) -> int:
    """The scratch bits ``variable``'s value takes where kept (its type's bits, one for a
    bool); 0 for a value that is not kept: a float, or one a while loop left unknown."""
    if variable.in_loop or variable.width == FLOAT:
        return 0
    return max(1, abs(int(variable.width)))


def _with_start(earlier: Variable, start: Variable) -> Variable:
    """``earlier`` (a variable as earlier branches of a statement left it, their values
    where they ran and its value from before the statement elsewhere) with that value from
    before the statement as ``start`` holds it now: kept in scratch bits since, which hold
    the same value on every path, while the bits it read were written."""
    old = earlier.start
    if old is None or old.value is start.value:
        return earlier
    value = _substituted(earlier.value, old.value, start.value, {})
    if value is earlier.value:
        return earlier
    rest = bits_read(_substituted(earlier.value, old.value, const(0), {}))
    stamps = _joined({b: earlier.stamps.get(b, -1) for b in rest}, start.stamps)
    return dataclasses.replace(earlier, value=value, stamps=stamps)


def _substituted(
    node: Expression, old: Expression, new: Expression, done: dict[int, Expression]
) -> Expression:
    """``node`` with ``new`` wherever it holds the part ``old`` (the same object), each
    shared part rebuilt once (see :func:`evaluate`)."""
    if node is old:
        return new
    if node[0] in ("bits", "const", "unknown"):
        return node
    found = done.get(id(node))
    if found is None:
        parts = [_substituted(p, old, new, done) if isinstance(p, tuple) else p for p in node[1:]]
        changed = any(a is not b for a, b in zip(parts, node[1:]))
        found = (node[0], *parts) if changed else node
        done[id(node)] = found
    return found


def _take_value(variable: Variable, source: Variable) -> None:
    """``variable`` holds ``source``'s value (as read, kept and placed)."""
    variable.value, variable.stamps = source.value, dict(source.stamps)
    variable.in_loop, variable.depth = source.in_loop, source.depth


def _joined(*stamps: Mapping[int, int]) -> dict[int, int]:
    """The write counts of a value made of parts read at ``stamps``: a bit the parts read at
    different counts gets -1, which no count matches (the value is stale for good)."""
    out: dict[int, int] = {}
    for part in stamps:
        for b, k in part.items():
            out[b] = k if out.get(b, k) == k else -1
    return out


NEXT_ITERATION = object()
"""Marks the end of one iteration of an unrolled loop in a list of entries (``continue``
reads on after the next one)."""


class JumpReader(Protocol):
    """What :func:`read_entries` needs of a reader: its entries are its own (an OpenQASM 3
    statement and its scope, a Qiskit instruction and its circuit's maps)."""

    scope: ClassicalScope

    def jump(self, entry: Any) -> str | None:
        """``"break"`` or ``"continue"`` for those statements, else ``None``."""

    def jumps(self, entry: Any) -> frozenset[str]:
        """The jumps (``"break"``, ``"continue"``) inside a branch or block ``entry`` (not
        inside a loop of its own); none outside loops."""

    def plain(self, entry: Any, out: Any) -> None:
        """Read ``entry``, which holds no jump, into ``out``."""

    def split(self, entry: Any) -> tuple[tuple[int, ...], list[tuple[list[Any], list[int],
                                                                   Expression]]]:  # fmt: skip
        """``(bits, [(entries, values, guard), ...])`` of a branch or block: each block's
        entries run where ``bits`` hold one of ``values`` (no bits: a block that always
        runs, ``values`` ``[0]``)."""

    def new_body(self) -> Any:
        """An empty ``out`` for a branch's body."""

    def branch_out(self, bits: tuple[int, ...], bodies: list[tuple[Any, list[int]]],
                   entry: Any, out: Any) -> None:  # fmt: skip
        """The bodies read, as conditionals on ``bits`` (each on its ``values``), into
        ``out``."""


def read_entries(
    reader: JumpReader,
    entries: Sequence[Any],
    out: Any,
    on_break: Callable[[], None] | None = None,
) -> None:
    """Read ``entries`` (an unrolled loop's, with :data:`NEXT_ITERATION` between its
    iterations) into ``out``. ``break`` drops the entries after it, ``continue`` those up to
    the next iteration. A branch that holds a ``break`` takes every entry after it into each
    of its bodies, so that they run only where it was not taken; one that holds only
    ``continue`` takes the rest of its iteration, and the iterations after it follow (or
    those too, where the rest of its iteration can still ``break``).
    ``on_break()`` is called where a ``break`` of these entries' loop is taken (a while
    loop's body notes it: :func:`read_while_loop`)."""
    with reader.scope.reading_into(out):
        _read_entries(reader, entries, out, on_break)


def _read_entries(
    reader: JumpReader,
    entries: Sequence[Any],
    out: Any,
    on_break: Callable[[], None] | None,
) -> None:
    i = 0
    while i < len(entries):
        entry = entries[i]
        if entry is NEXT_ITERATION:
            i += 1
            continue
        jump = reader.jump(entry)
        if jump == "break":
            if on_break is not None:
                on_break()
            return
        if jump == "continue":
            i = _next_iteration(entries, i)
            continue
        jumps = reader.jumps(entry)
        if jumps:
            stop = _next_iteration(entries, i)  # its NEXT_ITERATION, where it has one, taken
            rest = [e for e in entries[i + 1 : stop] if e is not NEXT_ITERATION]
            if "break" in jumps or _can_break(reader, rest):
                read_branches(reader, entry, entries[i + 1 :], out, on_break)
                return
            read_branches(reader, entry, rest, out, on_break)
            i = stop
            continue
        reader.plain(entry, out)
        i += 1


def _can_break(reader: JumpReader, entries: Sequence[Any]) -> bool:
    """Whether ``entries`` (the rest of one iteration) hold a ``break`` of their loop: then
    a branch before them that holds only ``continue`` takes the iterations after too, since
    they run only where no ``break`` was taken."""
    return any(reader.jump(e) == "break" or "break" in reader.jumps(e) for e in entries)


def _next_iteration(entries: Sequence[Any], i: int) -> int:
    """The index after the end of the iteration that holds entry ``i``."""
    following = [k for k in range(i, len(entries)) if entries[k] is NEXT_ITERATION]
    return following[0] + 1 if following else len(entries)


def read_branches(
    reader: JumpReader,
    entry: Any,
    rest: Sequence[Any],
    out: Any,
    on_break: Callable[[], None] | None = None,
) -> None:
    """A branch or block ``entry``, each of its bodies read with the entries ``rest`` after
    it (none outside a loop's jumps), under its guard for the variables it assigns
    (``on_break``: see :func:`read_entries`). A body no value of the bits takes never runs:
    it is read on its own, so that what it holds is still checked, without ``rest``, which
    the bodies that run read (each statement that jumps would otherwise read the rest once
    more for each of its bodies, dead ones too)."""
    bits, parts = reader.split(entry)
    before = [reader.scope.stamps(guard) for _, _, guard in parts]  # before any branch ran
    bodies = []
    for (block, values, guard), stamps in zip(parts, before):
        body = reader.new_body()
        with reader.scope.block(), reader.scope.guarded(guard, stamps, body):
            read_entries(reader, [*block, *rest] if values else block, body, on_break)
        bodies.append((body, values))
    reader.branch_out(bits, bodies, entry, out)
    reader.scope.settled()


def read_while(
    scope: ClassicalScope,
    condition: Callable[[], Expression],
    body: Callable[[], Any],
    after_body: bool = False,
) -> tuple[tuple[int, ...], list[int], Any]:
    """``(bits, values, body)`` of a while loop: its body runs while ``bits`` hold one of
    ``values``. The body is read twice (``body()`` reads it): the first time marks the bits
    it measures as written and the variables it assigns as unknown, so that the condition
    (``condition()`` builds it) and the second reading refuse values a later iteration
    would have changed (:class:`LoopVariableError` where a variable is read). With
    ``after_body`` the condition is built after the second reading, as an iteration leaves
    it: it may read variables every iteration assigns afresh from its own bits (a loop
    entered after a first iteration of its own: :func:`read_while_loop`)."""
    with scope.while_body() as assigned:
        before = dict(scope.writes)
        body()
        scope.unknown(assigned)  # as an earlier iteration left them
        again = body() if after_body else None
        tested, values = _loop_condition(scope, condition(), before)
        if not after_body:
            again = body()
        scope.unknown(assigned)  # after the loop: as its last iteration, or none, left them
        return tested, values, again


def _loop_condition(
    scope: ClassicalScope, condition: Expression, before: Mapping[int, int]
) -> tuple[tuple[int, ...], list[int]]:
    """``(bits, values)`` of a while loop's ``condition`` (see :func:`values_where`),
    refused where the loop would never end: a condition true on no bit (after an iteration:
    one false reads as nothing before, :func:`_never_runs`), or on bits its body (read since
    the write counts ``before``) does not write."""
    tested, values = values_where(condition)
    if not tested:
        raise ClassicalError(
            "a while loop whose condition reads no measured bit would "
            + ("never end" if values else "never run again after its first iteration")
        )
    if all(scope.writes.get(b, 0) == before.get(b, 0) for b in tested):
        measured = [b for b in tested if b not in scope.kept_bits]
        raise ClassicalError(
            "a while loop whose body changes nothing its condition reads ("
            + ", ".join([f"bits {measured}"] * bool(measured)
                        + ["variables it does not assign"] * (len(measured) < len(tested)))
            + ") would never end once entered"
        )  # fmt: skip
    return tested, values


def read_while_loop(
    reader: JumpReader,
    condition: Callable[[], Expression],
    entries: Sequence[Any],
    loop_out: Callable[[tuple[int, ...], list[int], Any, Any], None],
    out: Any,
) -> None:
    """A while loop whose body is ``entries`` read into ``out``, one loop
    (``loop_out(bits, values, body, out)``) run shot by shot, in the first of these forms
    that reads it:

    * the loop on the bits its condition reads;
    * its first iteration where the condition holds, then the loop on the condition as an
      iteration leaves it, where that reads variables each iteration assigns afresh from
      its own bits (``while (!done) { ...; done = c[0]; }``);
    * unrolled into nested conditionals, each iteration's body and the iterations after it
      inside the branch where the condition held then, until the condition reads false
      (refused past :data:`MAX_UNROLLED_WHILE` iterations), where the condition reads a
      variable carried from one iteration to the next (a counter,
      ``while (c && n < 3) { n += 1; ... }``);
    * the loop on its condition's bits, each variable the body assigns carried from one
      iteration to the next in scratch bits of its own (:func:`_carried_loop`), where the
      iterations are not bounded (a count of attempts of a repeat-until-success loop,
      ``while (c) { n += 1; ...; c = measure q; }``), or an unrolling found no bound. A
      condition that reads no variable the body assigns is never unrolled: no unrolling
      of it ends.

    The reader counts the body as one loop of its own (its ``jump`` gives its ``break`` and
    ``continue``). ``continue`` leaves the rest of the body to the branches where it is not
    taken. A body that can ``break`` gets a flag, a variable set to 0 as each iteration
    starts and to 1 where a ``break`` is taken, and the loop goes on only while the
    condition holds and the flag does not (a test on the bits the breaks' conditions read,
    refused where the body measures into them again after the break and the flag could not
    be kept in a scratch bit)."""
    scope = reader.scope
    if _never_runs(condition):
        return
    flag = _break_flag(reader, entries)
    before = scope.snapshot()
    on_break = None if flag is None else lambda: scope.assign(flag, const(1))

    def read_body(body: Any) -> None:
        if flag is not None:
            scope.assign(flag, const(0))
        with scope.block():
            read_entries(reader, [*entries, NEXT_ITERATION], body, on_break)

    def body_read() -> Any:
        body = reader.new_body()
        read_body(body)
        return body

    def goes_on() -> Expression:
        """The condition after an iteration: it holds, and the iteration took no break."""
        holds = condition()
        if flag is None:
            return holds
        try:
            broken = scope.read(flag)
        except ClassicalError:
            raise ClassicalError(
                "a break inside a while loop is read where the bits its condition reads are "
                "measured again before the body ends, and whether it was taken could not be "
                "kept in a scratch bit: measure into other bits after the break"
            ) from None
        return ("&&", holds, ("!", broken))

    def looped(target: Any) -> None:
        """The first two forms, read into ``target`` (:class:`LoopVariableError` where
        neither reads the loop)."""
        if flag is None:
            try:
                loop_out(*read_while(scope, condition, body_read), target)
                return
            except LoopVariableError:
                scope.restore(before)
        _first_iteration_then_loop(reader, condition, goes_on, read_body, body_read,
                                   loop_out, target)  # fmt: skip

    def unrolled(target: Any) -> None:
        _unrolled(reader, goes_on, read_body, target, 0)

    def carried(target: Any) -> None:
        _carried_loop(reader, goes_on, read_body, loop_out, target)

    def bounded() -> bool:
        """Whether the condition reads a variable the body assigns (a counter): else no
        unrolling ends, whatever the iterations measure."""
        snapshot = scope.snapshot()
        try:
            scope.unknown(_assigned(reader, read_body))
            return has_unknown(condition())
        except GenqsimError:
            return True
        finally:
            scope.restore(snapshot)

    def forms() -> Iterator[Callable[[Any], None]]:
        yield looped
        yield from (unrolled, carried) if bounded() else (carried,)

    try:
        _first_reading(reader, forms(), unrolled, out, before, flag)
    finally:
        if flag is not None:
            scope.variables.pop(flag, None)


def _never_runs(condition: Callable[[], Expression]) -> bool:
    """Whether a while loop's condition is false for every value of the bits it reads where
    the loop stands (``while (f)`` with ``f`` false there): the loop never runs and reads
    as nothing. A condition that cannot be built there is left to the loop's reading."""
    try:
        return not values_where(condition())[1]
    except GenqsimError:
        return False


def _break_flag(reader: JumpReader, entries: Sequence[Any]) -> str | None:
    """A new variable for a while loop's ``break`` (see :func:`read_while_loop`), declared
    0 where the loop stands; ``None`` for a body that holds no ``break`` of its own."""
    if not _can_break(reader, entries):
        return None
    scope = reader.scope
    scope.break_flags += 1
    flag = f"$break{scope.break_flags}"  # no name a program can give
    scope.declare(flag, 0, const(0))
    return flag


def _first_iteration_then_loop(
    reader: JumpReader,
    condition: Callable[[], Expression],
    goes_on: Callable[[], Expression],
    read_body: Callable[[Any], None],
    body_read: Callable[[], Any],
    loop_out: Callable[[tuple[int, ...], list[int], Any, Any], None],
    out: Any,
) -> None:
    """A while loop as its first iteration, where ``condition`` holds as the loop is
    reached, followed there by a loop on ``goes_on`` as each iteration leaves it (read after
    the body: see :func:`read_while`), for a condition that reads what an iteration sets (a
    break's flag, a variable assigned from the bits it measured)."""
    holds = condition()
    tested, values = values_where(holds)
    if not values:  # false wherever the loop gets here: it never runs
        return
    scope = reader.scope
    first = reader.new_body()
    with scope.guarded(holds, body=first), scope.reading_into(first):
        read_body(first)
        going_on = goes_on()
        if values_where(going_on)[1]:  # else no iteration goes on past the first
            # each iteration's end stores whether the loop goes on into one scratch bit the
            # loop tests: the first iteration and the loop's body are read apart, and a
            # value either keeps in scratch bits is kept in bits of its own reading
            bit = scope.scratch_bit(going_on, first)
            if bit is None:
                loop_out(*read_while(scope, goes_on, body_read, after_body=True), first)
            else:

                def flagged_body() -> Any:
                    body = body_read()
                    with scope.reading_into(body):
                        if scope.scratch_bit(goes_on(), body, bit) is None:  # unrolled then
                            raise LoopVariableError("a while loop's condition was not kept")
                    return body

                loop_out(*read_while(scope, lambda: bits((bit,)), flagged_body, True), first)
    reader.branch_out(tested, [(first, values)], None, out)
    scope.settled()


def _first_reading(
    reader: JumpReader,
    forms: Iterator[Callable[[Any], None]],
    unrolled: Callable[[Any], None],
    out: Any,
    before: Any,
    flag: str | None,
) -> None:
    """A while loop read by the first of ``forms`` that reads it and leaves no variable
    unknown (its break's ``flag``, dropped after it, aside), each into a body of its own
    placed in ``out`` once chosen; between tries the
    scope goes back to ``before`` (:meth:`ClassicalScope.snapshot`). Where every form reads
    it leaving a variable unknown, the reading that leaves the fewest stands (the first of
    those); where none reads it, the
    refusal of ``unrolled`` (which names the bound the loop lacks) is raised, or else the
    last. A refusal of the first form other than :class:`LoopVariableError` (a loop that
    would never end) is raised at once."""
    scope = reader.scope
    depth = scope.depth
    standing: tuple[Any, Any, int] | None = None
    refusals: dict[Any, BaseException] = {}
    for tried, form in enumerate(forms):
        budget = scope.scratch_used
        attempt = reader.new_body()
        try:
            with scope.reading_into(attempt):
                form(attempt)
        except (GenqsimError, RecursionError) as exc:  # an unrolling nests deep
            if not tried and not isinstance(exc, LoopVariableError):
                raise  # the loop as it stands is refused (it would never end)
            refusals[form] = exc
            scope.restore(before)
            # the attempt's scratch bits are not handed out again (stores into them may
            # sit in outer bodies), but no longer count against the budget
            scope.scratch_used = budget
            continue
        known = [name for name, v in before[0].items() if not v.in_loop and name != flag]
        lost = sum(scope.variables[name].in_loop for name in known if name in scope.variables)
        if not lost:
            _placed(scope, reader, attempt, out, depth)
            return
        if standing is None or lost < standing[2]:
            standing = (scope.snapshot(), attempt, lost)
        scope.restore(before)
    if standing is not None:
        scope.restore(standing[0])
        _placed(scope, reader, standing[1], out, depth)
        return
    raise refusals.get(unrolled, list(refusals.values())[-1])


def _placed(scope: ClassicalScope, reader: JumpReader, body: Any, out: Any, depth: int) -> None:
    """``body``, read one level deeper than ``out`` (at ``depth``), placed at the end of
    ``out``: the values given in it hold at the end of ``out`` from here on."""
    for variable in scope.variables.values():
        if variable.depth == depth + 1:
            variable.depth = depth
    reader.branch_out((), [(body, [0])], None, out)


def _carried_loop(
    reader: JumpReader,
    goes_on: Callable[[], Expression],
    read_body: Callable[[Any], None],
    loop_out: Callable[[tuple[int, ...], list[int], Any, Any], None],
    out: Any,
) -> None:
    """A while loop whose iterations carry variables from one to the next, read as one loop
    on the bits its condition reads: each variable the body assigns is kept in scratch bits
    of its own, stored where the loop stands and again where each iteration ends, so that the
    body, the condition and everything after the loop read it from those bits. A variable
    whose value cannot be stored there (a float, a value that reads more bits than a store
    may, one whose bits were written again since) is left unknown instead, from the start of
    each iteration on: right for one each iteration sets before reading it and nothing reads
    after the loop (OpenQASM 3's ``switch_dummy``); where something does read it, the reading
    is refused (:class:`LoopVariableError`)."""
    scope = reader.scope
    snapshot = scope.snapshot()
    names = [n for n in sorted(_assigned(reader, read_body)) if n in scope.variables]
    candidates = list(names)
    while True:
        carried = {}
        for name in candidates:
            clbits = scope.carry(scope.variables[name], out)
            if clbits is not None:
                carried[name] = clbits
        uncarried = set(names) - set(carried)
        scope.unknown(uncarried)
        before = dict(scope.writes)
        body = reader.new_body()
        with scope.while_body(), scope.reading_into(body):
            read_body(body)
            lost = _carried_again(scope, carried, body)  # where each iteration ends
        if not lost:
            break
        scope.restore(snapshot)
        candidates = [name for name in carried if name not in lost]
    tested, values = _loop_condition(scope, goes_on(), before)
    loop_out(tested, values, body, out)
    scope.unknown(uncarried)  # after the loop: as an unknown iteration left them
    for name in carried:  # its bits hold its value after the loop's last iteration
        scope.variables[name].depth = scope.depth


def _carried_again(
    scope: ClassicalScope, carried: dict[str, tuple[int, ...]], body: Any
) -> list[str]:
    """Each carried variable's value stored back into its bits where an iteration's ``body``
    ends, as one simultaneous assignment: bits another value still to be stored reads are
    written after it (``v1 = v0`` before ``v0`` changes), and where values read each other's
    bits in a cycle (``v0, v1 = v1, v0``), those that read one's bits are first kept in bits
    of their own. The names whose values could not be stored (see
    :meth:`ClassicalScope.carry`)."""
    pending = dict(carried)
    lost = []

    def readers(name: str) -> list[str]:
        """The other values still to be stored that read ``name``'s bits."""
        written = set(pending[name])
        return [other for other in pending if other != name
                and not written.isdisjoint(bits_read(scope.variables[other].value))]  # fmt: skip

    while pending:
        name = next((n for n in pending if not readers(n)), None)
        if name is None:  # a cycle: the values that read the first one's bits move first
            name = next(iter(pending))
            for other in readers(name):
                scope.keep(scope.variables[other])
        if scope.carry(scope.variables[name], body, pending.pop(name)) is None:
            lost.append(name)
    return lost


def _assigned(reader: JumpReader, read_body: Callable[[Any], None]) -> set[str]:
    """The names a while loop's body assigns (local ones too), from a reading of it thrown
    away: the scope is left as it was."""
    scope = reader.scope
    snapshot = scope.snapshot()
    try:
        with scope.while_body() as assigned:
            read_body(reader.new_body())
        return assigned
    finally:
        scope.restore(snapshot)


def _unrolled(
    reader: JumpReader,
    condition: Callable[[], Expression],
    read_body: Callable[[Any], None],
    out: Any,
    done: int,
) -> None:
    """Iteration ``done + 1`` on of an unrolled while loop, read into ``out``."""
    holds = condition()
    tested, values = values_where(holds)
    if not values:  # false wherever the loop gets here: it ends
        return
    if done == MAX_UNROLLED_WHILE:
        raise ClassicalError(
            f"a while loop whose condition (or a gate angle in its body) reads variables its "
            "body assigns is unrolled, "
            f"and this one still ran after {MAX_UNROLLED_WHILE} iterations: bound it by "
            "its variables (a counter), or let its condition read only measured bits"
        )
    if not tested:  # true wherever the loop gets here: the iteration runs
        read_body(out)
        _unrolled(reader, condition, read_body, out, done + 1)
        return
    body = reader.new_body()
    with reader.scope.guarded(holds, body=body), reader.scope.reading_into(body):
        read_body(body)
        _unrolled(reader, condition, read_body, body, done + 1)
    reader.branch_out(tested, [(body, values)], None, out)
    reader.scope.settled()
