"""OpenQASM 2.0 to :class:`~genqsim.Circuit`: a streaming recursive-descent parser.

Registers map to one qubit order in declaration order (the first ``qreg`` holds qubits
0..size-1, the next continues after it); likewise classical registers. Gate parameters are
exact SymPy expressions where the text is exact (``pi/2`` stays exact), Python floats where it
holds a decimal number (``pi*0.35``), and Python floats throughout with ``exact=False``, which
never imports SymPy. Expressions are parsed once into small trees and their values remembered,
so a file that repeats an angle evaluates it once. Every error names its line and column;
lines given one at a time (a large file) are read as they are parsed, so a malformed source
fails at its first error without being read to the end.
"""

from __future__ import annotations

import cmath
import contextlib
import functools
import gc
import math
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ...circuit.circuit import Circuit, Operation, new_operation
from ...circuit.gates import (
    Barrier,
    Measure,
    NamedGate,
    QasmName,
    Reset,
    has_infinity,
    qasm_names,
)
from ...circuit.operation import place_operations
from ...errors import ArgumentTypeError, GenqsimError, NonFiniteError
from ...numbers import python_number
from ...support.lazysympy import is_sympy
from ...support.validation import MAX_CIRCUIT_QUBITS
from .fast_reader import ReaderTables, SimpleStatements, without
from .kept import CALL_RECORDS, EXPANSIONS, keep
from .lexer import Lexer, QasmError, Token
from .recognize import (
    CallRecords,
    TableMatch,
    expansion_params_key,
    family,
    is_candidate,
    table_operations,
)

# -- built-in gates: qelib1.inc and the extended set real files use without defining ---------

Apply = Callable[[list[Operation], list, Sequence[int], bool], object]
"""How a built-in gate is appended: to a list of operations, given its parameters and
qubits (both checked by the parser) and whether parameters are exact."""


def _push_checked(
    out: list[Operation], name: str, params: tuple, targets: tuple, controls: tuple = ()
) -> None:
    """Append library gate ``name`` to ``out``: the parser has checked the count and values
    of ``params``, and that the qubits are distinct and valid (``Circuit`` would check
    again)."""
    gate = NamedGate.checked(name, params)
    out.append(new_operation(gate, targets, controls, (1,) * len(controls)))


def _named(name: str, n_controls: int = 0) -> Apply:
    def apply(out: list[Operation], p: list, q: Sequence[int], exact: bool) -> None:
        _push_checked(out, name, tuple(p), tuple(q[n_controls:]), tuple(q[:n_controls]))

    return apply


def _u2(out: list[Operation], p: list, q: Sequence[int], exact: bool) -> None:
    half_pi = _constant(("/", ("pi",), ("int", 2)), exact)
    _push_checked(out, "u", (half_pi, p[0], p[1]), (q[0],))


def _cu3(out: list[Operation], p: list, q: Sequence[int], exact: bool) -> None:
    _push_checked(out, "u", (p[0], p[1], p[2], 0), (q[1],), (q[0],))


def _dcx(out: list[Operation], p: list, q: Sequence[int], exact: bool) -> None:
    _push_checked(out, "x", (), (q[1],), (q[0],))
    _push_checked(out, "x", (), (q[0],), (q[1],))


DECOMPOSED: dict[str, tuple[int, int, Apply]] = {
    # the qelib1 gates that are decompositions rather than library gates
    "u2": (2, 1, _u2), "u0": (1, 1, lambda out, p, q, exact: _push_checked(out, "id", (), (q[0],))),
    "cu3": (3, 2, _cu3), "dcx": (0, 2, _dcx),
}  # fmt: skip

LIBRARY: dict[str, QasmName] = {
    name: q for name, q in qasm_names().items() if name not in DECOMPOSED
}
"""The names that are library gates (under controls), from the gate table."""

BUILTIN: dict[str, tuple[int, int, Apply]] = {
    # name: (parameters, qubits, how to append it)
    **{name: (q.n_params, q.n_qubits, _named(q.gate, q.n_controls))
       for name, q in LIBRARY.items()},
    **DECOMPOSED,
}  # fmt: skip

LANGUAGE_GATES = frozenset({"U", "CX"})
"""The gates OpenQASM 2.0 itself defines: no file may define them."""

QELIB1_NAMES = frozenset(
    """u3 u2 u1 cx id u0 u p x y z h s sdg t tdg rx ry rz sx sxdg cz cy swap
    ch ccx cswap crx cry crz cu1 cp cu3 csx cu rxx rzz rccx rc3x c3x c3sqrtx c4x""".split()
)
"""The gates ``qelib1.inc`` declares (Qiskit's copy): a file that includes it may not define
them again. Other names of the gate table (``dcx``, ``iswap``, ``ryy``, ...) are the file's
to define, and a definition of one runs as the table gate where its unitary equals it (see
:mod:`.recognize`)."""

# qelib1.inc gates defined there by decomposition; loaded as ordinary user gates
QELIB_DEFINITIONS = """
gate rccx a,b,c { u2(0,pi) c; u1(pi/4) c; cx b,c; u1(-pi/4) c; cx a,c; u1(pi/4) c; cx b,c;
  u1(-pi/4) c; u2(0,pi) c; }
gate rc3x a,b,c,d { u2(0,pi) d; u1(pi/4) d; cx c,d; u1(-pi/4) d; u2(0,pi) d; cx a,d;
  u1(pi/4) d; cx b,d; u1(-pi/4) d; cx a,d; u1(pi/4) d; cx b,d; u1(-pi/4) d; u2(0,pi) d;
  u1(pi/4) d; cx c,d; u1(-pi/4) d; u2(0,pi) d; }
"""

MAX_GATE_OPERATIONS = 1_000_000
"""Operations one call of a defined gate may expand to: definitions that call each other
twice grow exponentially (``gate g1 a { g0 a; g0 a; }``, ...), and are refused at the call
that crosses this instead of filling the memory."""

MAX_EXPANDED_OPERATIONS = 20_000_000
"""Operations the calls of defined gates of one program may expand to in all."""

NOT_IN_GATE_BODIES = ("measure", "reset", "if", "gate", "qreg", "creg")
"""Statements the fast reader leaves to the parser in a gate body (the parser reads a
``reset`` there, as Qiskit writes one into the definition of ``Initialize``, and refuses the
others)."""

REFUSED_IN_GATE_BODIES = ("measure", "if", "gate", "qreg", "creg")

FUNCTIONS = ("sin", "cos", "tan", "exp", "ln", "sqrt", "asin", "acos", "atan")

# -- expressions: trees of tuples, evaluated exactly (SymPy) or in floats ----------------------
#   ("int", n) ("real", x) ("pi",) ("param", name) ("neg", a) ("fn", name, a)
#   (op, a, b) for op in + - * / ^

Node = tuple
EXPRESSION_MEMO_SIZE = 4096
"""Distinct expression values remembered (per exactness and parameter values)."""


def _leaves(node: Node) -> Iterator[Node]:
    """The numbers, ``pi`` and parameters of an expression tree."""
    if node[0] in ("int", "real", "pi", "param"):
        yield node
        return
    for child in node[1:]:
        if isinstance(child, tuple):
            yield from _leaves(child)


def _has_real(node: Node, env: dict[str, Any]) -> bool:
    """Whether a decimal literal, or a parameter holding a float, occurs in ``node`` (its
    value is then a float)."""
    return any(
        leaf[0] == "real"
        or (leaf[0] == "param" and not (isinstance(env[leaf[1]], int) or is_sympy(env[leaf[1]])))
        for leaf in _leaves(node)
    )


def _float_value(node: Node, env: dict[str, Any]) -> Any:
    """``node`` in Python floats (complex where a function leaves the reals raises)."""
    kind = node[0]
    if kind in ("int", "real"):
        return float(node[1])
    if kind == "pi":
        return math.pi
    if kind == "param":
        return complex(env[node[1]]) if is_sympy(env[node[1]]) else env[node[1]]
    if kind == "neg":
        return -_float_value(node[1], env)
    if kind == "fn":
        arg = _float_value(node[2], env)
        name = "log" if node[1] == "ln" else node[1]
        return getattr(math if isinstance(arg, float) else cmath, name)(arg)
    a, b = _float_value(node[1], env), _float_value(node[2], env)
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind == "/":
        return a / b
    value = a**b
    if isinstance(value, complex):
        raise ValueError("complex power")
    return value


def _sympy_value(node: Node, env: dict[str, Any]) -> Any:
    """``node`` as an exact SymPy expression."""
    import sympy

    kind = node[0]
    if kind == "int":
        return sympy.Integer(node[1])
    if kind == "real":
        return sympy.Float(node[1])
    if kind == "pi":
        return sympy.pi
    if kind == "param":
        return sympy.sympify(env[node[1]])
    if kind == "neg":
        return -_sympy_value(node[1], env)
    if kind == "fn":
        name = "log" if node[1] == "ln" else node[1]
        return getattr(sympy, name)(_sympy_value(node[2], env))
    a, b = _sympy_value(node[1], env), _sympy_value(node[2], env)
    if kind == "/" and b == 0:
        raise ZeroDivisionError
    return {"+": a.__add__, "-": a.__sub__, "*": a.__mul__, "/": a.__truediv__,
            "^": a.__pow__}[kind](b)  # fmt: skip


def _evaluate(node: Node, env: dict[str, Any], exact: bool) -> Any:
    """The value of ``node``: exact SymPy when ``exact`` and nothing in it is a float, else a
    Python float (through SymPy only where floats leave the reals or overflow), or a SymPy
    expression with floats in it where it holds a free symbol (an OpenQASM 3 input)."""
    if exact and not _has_real(node, env):
        value = _sympy_value(node, env)
        if not value.is_finite and has_infinity(value):  # ln(0), 0^-1: no angle
            raise NonFiniteError(f"gate parameter must be finite, got {value}")
        return value
    try:
        value = _float_value(node, env)
    except (ValueError, OverflowError, TypeError):
        value = _sympy_value(node, env)
        if value.free_symbols:  # of an input parameter (``0.6*t``): symbolic, floats kept
            return value
    return python_number(value, "gate parameter")


@functools.lru_cache(maxsize=EXPRESSION_MEMO_SIZE)
def _constant(node: Node, exact: bool) -> Any:
    return _evaluate(node, {}, exact)


@functools.lru_cache(maxsize=EXPRESSION_MEMO_SIZE)
def _bound(node: Node, env: tuple[tuple[str, type, Any], ...], exact: bool) -> Any:
    return _evaluate(node, {name: value for name, _, value in env}, exact)


def _value(node: Node, env: dict[str, Any] | None, exact: bool) -> Any:
    """``node``'s value, remembered (with the parameter values of a gate body)."""
    if not env:
        return _constant(node, exact)
    try:
        # keyed with the types: 1 == 1.0 as keys, but one is exact and the other a float
        return _bound(node, tuple((k, type(v), v) for k, v in env.items()), exact)
    except TypeError:  # an unhashable value: evaluate without remembering
        return _evaluate(node, env, exact)


class QasmArgumentWarning(UserWarning):
    """A gate call's argument that is no OpenQASM expression was passed over: the gate's
    definition never reads that parameter, so the argument cannot change the call (Qiskit
    writes complex numbers and labels there for ``StatePreparation``, ``Initialize``,
    ``DiagonalGate`` and ``PauliGate``)."""


def warn_passed_over(source: str | None, line: int, column: int, text: str, gate: str) -> None:
    """Warn, at the file's line, that the argument ``text`` of a call of ``gate`` was passed
    over (see :class:`QasmArgumentWarning`)."""
    warnings.warn_explicit(
        f"column {column}: {text!r}, an argument of {gate!r}, is no OpenQASM expression; "
        "the gate's definition never reads that parameter, so it cannot change the call: "
        "passed over here and in the gate's other calls (Qiskit writes complex numbers and "
        "labels there)",
        QasmArgumentWarning,
        filename=source or "<OpenQASM text>",
        lineno=line,
    )


class GateDef:
    """A gate definition: its parameter and qubit argument names and its body, read once;
    its expansions are built on its calls."""

    __slots__ = (
        "body", "called", "calls", "candidate", "expansions", "fixed", "key", "match", "name",
        "params", "positions", "qargs", "resets", "unread",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        params: list[str],
        qargs: list[str],
        body: list[tuple],
        positions: dict[str, int] | None = None,
    ) -> None:
        self.name, self.params, self.qargs = name, params, qargs
        self.body = body
        """("call", name token, [node], [qarg names], callee) | ("barrier", [qarg names],
        token) | ("reset", [qarg name], token); ``callee``: the definition of a defined gate
        in force where this gate is defined (a later definition of that name does not change
        this gate), or ``None`` (a built-in gate, or one defined later: looked up when this
        gate is expanded)."""
        self.resets = any(
            entry[0] == "reset" or (entry[0] == "call" and getattr(entry[4], "resets", False))
            for entry in body
        )
        """Whether its body resets a qubit, itself or through a gate it calls (Qiskit's
        ``Initialize``): its calls are then its operations in place, not one composite
        (a composite is unitary), and it stands for no table gate."""
        self.fixed: tuple[Operation, ...] | None = None
        """Its one expansion, whatever its parameter values, where the simple reader has
        built it (a body of calls with constant parameters, in the reader's exactness)."""
        self.expansions: dict[tuple, tuple[Operation, ...]] = {}
        """Its operations on its own qubits per exactness and parameter values (see
        :meth:`Parser.expansion`); those of qelib1's definitions are kept for the process."""
        self.calls = CallRecords(name, len(qargs))
        """What its calls record: the table gate an expansion is recognised as, or one
        composite per expansion."""
        self.positions = positions or {a: i for i, a in enumerate(qargs)}
        """Each qubit argument's position, the qubit it stands for in an expansion (given
        where the reader has it already)."""
        self.candidate = is_candidate(name) and not self.resets
        """Whether its name may stand for a table gate: it then runs as that gate where they
        are equal (:class:`.recognize.TableMatch`, :func:`.recognize.table_operations`)."""
        self.match = TableMatch(name, len(params), len(qargs)) if self.candidate else None
        self.key: tuple | None = None
        """Its identity for what is kept for the process (:mod:`.kept`), where the simple
        reader has formed one; ``None`` otherwise."""
        self.called: frozenset[str] = frozenset()
        """The names its body calls (where it has an identity)."""
        read = {leaf[1] for entry in body if entry[0] == "call" for node in entry[2]
                for leaf in _leaves(node) if leaf[0] == "param"}  # fmt: skip
        self.unread = frozenset(params) - read
        """The parameters its body never reads: a call's value for one cannot matter."""

    def identify(self, key: tuple | None, called: frozenset[str]) -> None:
        """Give it the identity ``key`` (see :mod:`.kept`), its body calling ``called``."""
        self.key, self.called = key, called
        if self.match is not None:
            self.match.identity = key
        if key is None:  # its expansions so far, and what their calls recorded, stay its own
            return
        shared = (key, self.name)  # composites are named after the definition
        records = CALL_RECORDS.get(shared)
        if records is None:
            keep(CALL_RECORDS, shared, self.calls)
        else:  # the composites of earlier reads (the expansions they hold are the same)
            self.calls = records


@functools.cache
def _qelib_gates() -> dict[str, GateDef]:
    """The qelib1 gates defined by decomposition, parsed once per process, by the token
    parser: their bodies serve parsers of either exactness (the simple reader keeps a gate
    as its expansion in the exactness of the parser that reads it)."""
    sub = Parser(QELIB_DEFINITIONS, "qelib1.inc", define_qelib=False, simple_statements=False)
    while sub.tok.kind != "eof":
        sub.statement()
    for name, g in sub.gates.items():  # the same definitions in every parser
        g.identify(("qelib1.inc", name), frozenset())
    return sub.gates


@functools.cache
def _reader_tables() -> ReaderTables:
    """This module's tables for the fast reader (built when the first parser needs them:
    every name below is defined by then)."""
    return ReaderTables(
        LIBRARY, BUILTIN, expression_value, expression_tree, GateDef, NOT_IN_GATE_BODIES,
        place_operations, barrier_operation, MAX_GATE_OPERATIONS,
    )  # fmt: skip


class Parser:
    def __init__(
        self,
        text: str | Iterable[str],
        source: str | None = None,
        base_dir: Path | None = None,
        exact: bool = True,
        define_qelib: bool = True,
        simple_statements: bool = True,
        library_names: frozenset[str] | None = None,
    ) -> None:
        self.lexer = Lexer(text, source)
        self.tok: Token = self.lexer.token()
        self.source = source
        self.passed_over: set[str] = set()
        """Gates a call of which had an argument passed over (see :meth:`unread_argument`)."""
        self.base_dir = base_dir
        self.exact = exact
        self.qregs: dict[str, tuple[int, int]] = {}  # name -> (offset, size)
        self.cregs: dict[str, tuple[int, int]] = {}
        self.gates: dict[str, GateDef] = dict(_qelib_gates()) if define_qelib else {}
        self.builtin = BUILTIN
        """The built-in gates in force: ``BUILTIN`` less the names this file defines."""
        self.declared = set(LANGUAGE_GATES)
        """The names no definition may take: the language's gates, those of the included
        ``qelib1.inc``, and those this file has defined."""
        self.opaque: dict[str, Token] = {}
        """The gates this file declares ``opaque`` (no body), where it declares them."""
        self.defined_at: dict[str, Token] = {}
        """Where this file (and what it includes) defines each of its gates."""
        self.library_names = QELIB1_NAMES if library_names is None else library_names
        """What the include of the gate library declares (OpenQASM 3 text read here as 2.0:
        ``stdgates.inc``'s names)."""
        self.statements: list[tuple | Operation | list[Operation]] = []
        self.expanded = 0
        """Operations the top-level calls of defined gates have expanded to so far."""
        # simple statements are read whole, off the line (see .simple)
        self.simple = SimpleStatements(self, _reader_tables()) if simple_statements else None

    # -- token helpers ---------------------------------------------------------------------------

    def error(self, message: str, tok: Token | None = None) -> QasmError:
        tok = tok or self.tok
        return QasmError(message, tok.line, tok.column, self.source)

    def advance(self) -> Token:
        tok = self.tok
        if tok.kind != "eof":
            self.tok = self.lexer.token()
        return tok

    def expect(self, text: str) -> Token:
        if self.tok.text != text or self.tok.kind == "string":
            found = "end of input" if self.tok.kind == "eof" else repr(self.tok.text)
            raise self.error(f"expected {text!r}, found {found}")
        return self.advance()

    def expect_kind(self, kind: str, what: str) -> Token:
        if self.tok.kind != kind:
            found = "end of input" if self.tok.kind == "eof" else repr(self.tok.text)
            raise self.error(f"expected {what}, found {found}")
        return self.advance()

    # -- program ---------------------------------------------------------------------------------
    def parse(self) -> Circuit:
        """The circuit of the whole program. For a file, or a text of at least
        ``COLLECTOR_PAUSE_MIN_CHARS``, Python's cyclic garbage collector is paused meanwhile:
        a program builds many objects and no cycles to collect, and the collector's passes
        over them grow with the program (texts of 10 000 to 160 000 statements took 12-15 us a
        statement with it running, 5.4-7.5 us with it paused)."""
        whole = self.lexer.whole
        if whole is not None and len(whole) < COLLECTOR_PAUSE_MIN_CHARS:
            return self._parse()
        with _collector_paused():
            return self._parse()

    def _parse(self) -> Circuit:
        if self.tok.kind == "eof":
            raise self.error("empty program: no OPENQASM header and no statements")
        tok, lexer = self.tok, self.lexer
        header = None
        if self.simple is not None and tok.kind == "id":
            header = _PLAIN_HEADER.match(lexer.text, tok.column - 1)
        if header is not None:  # "OPENQASM 2.0;": its three tokens in one match
            lexer.pos = header.end()
            self.tok = lexer.token()
        elif tok.text == "OPENQASM":
            self.advance()
            version = self.advance()
            if version.kind not in ("real", "int") or not version.text.startswith("2"):
                raise self.error(
                    f"only OpenQASM 2.x is read here, not {version.text!r} "
                    "(OpenQASM 3: genqsim.io.qasm.loads3)", version
                )  # fmt: skip
            self.expect(";")
        while self.tok.kind != "eof":
            self.statement()
        n_qubits = sum(size for _, size in self.qregs.values())
        n_clbits = sum(size for _, size in self.cregs.values())
        circuit = Circuit(n_qubits, n_clbits=n_clbits)
        # the common cases without a call to emit: a library gate or a measurement into a
        # declared bit (an Operation), or a gate call's expansion (a list), all checked
        push, push_gates = circuit._push_checked, circuit._push_gates
        for stmt in self.statements:
            if stmt.__class__ is Operation:
                push(stmt)  # type: ignore[arg-type]
            elif stmt.__class__ is list:
                push_gates(stmt)  # type: ignore[arg-type]
            else:
                self.emit(circuit, stmt)
        return circuit

    def statement(self, many: bool = True) -> None:
        """Read one statement; with ``many``, the simple gate calls that follow it too."""
        tok = self.tok
        word = tok.text if tok.kind == "id" else None
        if word is not None and self.simple is not None:
            if self.simple.read(self.lexer, tok.column - 1, many):
                return
        if word == "include":
            self.include()
        elif word in ("qreg", "creg"):
            self.register(word)
        elif word == "gate":
            self.gate_definition()
        elif word == "opaque":
            self.opaque_declaration()
        elif word == "if":
            self.conditional()
        elif word == "measure":
            self.advance()
            q = self.argument()
            self.expect("->")
            c = self.argument(classical=True)
            self.expect(";")
            self.statements.append(("measure", q, c, tok))
        elif word == "reset":
            self.advance()
            q = self.argument()
            self.expect(";")
            self.statements.append(("reset", q, tok))
        elif word == "barrier":
            self.advance()
            args = self.argument_list()
            self.expect(";")
            self.statements.append(("barrier", args, tok))
        elif word == "OPENQASM":
            raise self.error("the OPENQASM header must come first")
        elif tok.kind == "id":
            name = self.advance()
            params = self.values(self.call_expressions(name), name) if self.tok.text == "(" else []
            args = self.argument_list()
            self.expect(";")
            self.statements.append(self.gate_call(name, params, args))
        else:
            found = "end of input" if tok.kind == "eof" else repr(tok.text)
            raise self.error(f"expected a statement, found {found}")

    def conditional(self) -> None:
        """``if (creg == value) operation;``: the operation runs when the register holds the
        value (its bit 0 the lowest)."""
        tok = self.advance()
        self.expect("(")
        name = self.expect_kind("id", "a classical register name")
        if name.text not in self.cregs:
            raise self.error(f"unknown classical register {name.text!r}", name)
        self.expect("==")
        value = self.expect_kind("int", "an integer value")
        self.expect(")")
        size = self.cregs[name.text][1]
        if int(value.text) >= 1 << size:
            raise self.error(
                f"value {value.text} does not fit in register {name.text}[{size}]", value
            )
        inner = self.tok
        if inner.kind != "id" or inner.text in ("if", "gate", "qreg", "creg", "include",
                                                 "opaque", "barrier", "OPENQASM"):  # fmt: skip
            raise self.error("'if' takes one gate call, measurement or reset", inner)
        count = len(self.statements)
        self.statement(many=False)
        body = self.statements[count:]
        del self.statements[count:]
        self.statements.append(("if", name.text, int(value.text), body, tok))

    def include(self) -> None:
        self.advance()
        name = self.expect_kind("string", "a file name in double quotes")
        self.expect(";")
        filename = name.text.strip('"')
        if filename == "qelib1.inc":
            self.include_qelib1()
            return
        path = (self.base_dir or Path.cwd()) / filename
        if not path.is_file():
            raise self.error(f"cannot include {filename!r}: no such file", name)
        with _open_source(path, name, self) as lines:
            sub = Parser(lines, str(path), path.parent, self.exact, define_qelib=False)
            while sub.tok.kind != "eof":
                sub.statement()
        if sub.statements or sub.qregs or sub.cregs:
            raise self.error(f"included file {filename!r} may only define gates", name)
        for gate, where in sub.defined_at.items():
            self.check_new_name(gate, where)
            self.define(sub.gates[gate], where)

    def include_qelib1(self) -> None:
        """``include "qelib1.inc";``: its gates are built in; the file may not define them."""
        self.declared |= self.library_names

    def register(self, kind: str) -> None:
        self.advance()
        name = self.expect_kind("id", "a register name")
        self.expect("[")
        size = self.expect_kind("int", "the register size")
        self.expect("]")
        self.expect(";")
        if name.text in self.qregs or name.text in self.cregs:
            raise self.error(f"register {name.text!r} is declared twice", name)
        if int(size.text) < 1:
            raise self.error("a register needs at least one bit", size)
        table = self.qregs if kind == "qreg" else self.cregs
        if sum(s for _, s in table.values()) + int(size.text) > MAX_CIRCUIT_QUBITS:
            raise self.error(
                f"register size {size.text} takes the {kind}s past {MAX_CIRCUIT_QUBITS} bits, "
                "more than a circuit holds",
                size,
            )
        self.declare(kind, name.text, int(size.text))

    def declare(self, kind: str, name: str, size: int) -> None:
        """Register ``name`` of ``size`` bits, after those of its kind declared before."""
        table = self.qregs if kind == "qreg" else self.cregs
        table[name] = (sum(s for _, s in table.values()), size)

    def opaque_declaration(self) -> None:
        """``opaque name(params) qubits;``: a gate with no body. The declaration is kept;
        a call of the gate is refused (:meth:`unknown_gate`), since nothing says what it does."""
        self.advance()
        name = self.expect_kind("id", "a gate name")
        if self.tok.text == "(":
            self.advance()
            while self.tok.text != ")":
                self.expect_kind("id", "a parameter name")
                if self.tok.text != ",":
                    break
                self.advance()
            self.expect(")")
        self.expect_kind("id", "a qubit argument name")
        while self.tok.text == ",":
            self.advance()
            self.expect_kind("id", "a qubit argument name")
        self.expect(";")
        self.opaque.setdefault(name.text, name)

    def unknown_gate(self, name: Token) -> QasmError:
        """The error for a call of a gate with no definition in force: unknown, or declared
        ``opaque`` (then with where, and how Qiskit comes to write one)."""
        declared = self.opaque.get(name.text)
        if declared is None:
            return self.error(f"unknown gate {name.text!r}", name)
        return self.error(
            f"gate {name.text!r} is declared opaque (line {declared.line}): the file gives no "
            "definition of it, so it cannot be simulated. Qiskit writes a gate it can only "
            "synthesise when it transpiles (WeightedSumGate, ...) so: transpile the circuit to "
            "a gate set before exporting it (qiskit.transpile(qc, basis_gates=[...]))", name,
        )  # fmt: skip

    def gate_definition(self) -> None:
        self.advance()
        name = self.expect_kind("id", "a gate name")
        params: list[str] = []
        if self.tok.text == "(":
            self.advance()
            if self.tok.text != ")":
                params.append(self.expect_kind("id", "a parameter name").text)
                while self.tok.text == ",":
                    self.advance()
                    params.append(self.expect_kind("id", "a parameter name").text)
            self.expect(")")
        qargs = [self.expect_kind("id", "a qubit argument name").text]
        while self.tok.text == ",":
            self.advance()
            qargs.append(self.expect_kind("id", "a qubit argument name").text)
        if len(set(qargs)) != len(qargs):
            raise self.error(f"gate {name.text!r} repeats a qubit argument", name)
        brace = self.expect("{")
        body: list[tuple] = []
        try:
            while self.tok.text != "}":
                tok = self.tok
                if tok.kind == "eof":
                    raise self.error(
                        f"gate {name.text!r} body is not closed with '}}' (opened at line "
                        f"{brace.line}, column {brace.column})"
                    )
                if tok.kind != "id":
                    raise self.error(f"expected a gate call in the body of {name.text!r}")
                if tok.text in REFUSED_IN_GATE_BODIES:
                    raise self.error(f"{tok.text!r} is not allowed inside a gate definition")
                self.advance()
                if tok.text == "reset":  # Qiskit's Initialize: the call runs inline
                    arg = self.expect_kind("id", "a qubit argument")
                    self.expect(";")
                    if arg.text not in qargs:
                        message = f"{arg.text!r} is not an argument of gate {name.text!r}"
                        raise self.error(message, arg)
                    body.append(("reset", [arg.text], tok))
                    continue
                exprs = []
                if self.tok.text == "(" and tok.text != "barrier":
                    exprs = self.call_expressions(tok, params)
                arg_tokens = [self.expect_kind("id", "a qubit argument")]
                while self.tok.text == ",":
                    self.advance()
                    arg_tokens.append(self.expect_kind("id", "a qubit argument"))
                self.expect(";")
                for a in arg_tokens:
                    if a.text not in qargs:
                        raise self.error(f"{a.text!r} is not an argument of gate {name.text!r}", a)
                args = [a.text for a in arg_tokens]
                body.append(("barrier", args, tok) if tok.text == "barrier" else
                            ("call", tok, exprs, args, self.gates.get(tok.text)))  # fmt: skip
        except QasmError as exc:
            if "is not closed with '}'" in exc.message:
                raise
            raise exc.with_hint(
                f"in the body of gate {name.text!r} opened at line {brace.line}, column "
                f"{brace.column}: is its '}}' missing?"
            ) from None
        self.expect("}")
        self.check_new_name(name.text, name)
        self.define(GateDef(name.text, params, qargs, body), name)

    def check_new_name(self, name: str, where: Token) -> None:
        """Raise ``QasmError`` at ``where`` if no definition may take ``name`` here."""
        if name in LANGUAGE_GATES:
            raise self.error(f"gate {name!r} is built into OpenQASM and cannot be redefined", where)
        if name in self.defined_at:
            first = self.defined_at[name]
            raise self.error(
                f"gate {name!r} is already defined (line {first.line}, column {first.column}); "
                "give this definition another name", where,
            )  # fmt: skip
        if name in self.declared:
            raise self.error(
                f"gate {name!r} is declared by qelib1.inc and cannot be redefined; give this "
                "definition another name, or drop the include if the file defines every gate "
                "it calls", where,
            )  # fmt: skip

    def define(self, g: GateDef, where: Token) -> None:
        """Make ``g`` the definition of its name from here on: a built-in name (``dcx``, not
        declared by an include) is then the file's gate."""
        self.gates[g.name] = g
        self.defined_at[g.name] = where
        self.declared.add(g.name)
        if g.name in self.builtin:
            self.builtin = without(self.builtin, g.name)  # BUILTIN itself is shared
            if self.simple is not None:
                self.simple.forget(g.name)
            self._drop_identities(g)

    def _drop_identities(self, g: GateDef) -> None:
        """Drop the identity of each definition whose meaning the definition ``g`` of a
        built-in name has just changed: a body read into its statements calls the name when
        it is expanded (a body of constants was expanded when it was defined), directly or
        through another such definition."""
        changed = {g.name}
        while True:
            stale = [
                d for d in self.gates.values()
                if d.key is not None and d.fixed is None and d is not g
                and not changed.isdisjoint(d.called)
            ]  # fmt: skip
            if not stale:
                return
            for d in stale:
                d.identify(None, frozenset())
                changed.add(d.name)

    # -- arguments -------------------------------------------------------------------------------
    def argument(self, classical: bool = False) -> tuple[str, int | None, Token]:
        name = self.expect_kind("id", "a register name")
        index = None
        if self.tok.text == "[":
            self.advance()
            index = int(self.expect_kind("int", "an index").text)
            self.expect("]")
        table = self.cregs if classical else self.qregs
        kind = "classical" if classical else "quantum"
        if name.text not in table:
            raise self.error(f"unknown {kind} register {name.text!r}", name)
        if index is not None and index >= table[name.text][1]:
            raise self.error(
                f"index {index} out of range for register {name.text!r} of size "
                f"{table[name.text][1]}", name
            )  # fmt: skip
        return name.text, index, name

    def argument_list(self) -> list[tuple[str, int | None, Token]]:
        args = [self.argument()]
        while self.tok.text == ",":
            self.advance()
            args.append(self.argument())
        return args

    # -- expressions -----------------------------------------------------------------------------
    def expression_list(self, names: list[str] | None = None) -> list[Node]:
        """``( expr, ... )`` as expression trees; ``names``: the parameters of the gate whose
        body holds them (``None`` outside gate definitions)."""
        self.expect("(")
        exprs = []
        if self.tok.text != ")":
            exprs.append(self.expression(names))
            while self.tok.text == ",":
                self.advance()
                exprs.append(self.expression(names))
        self.expect(")")
        return exprs

    def call_expressions(self, callee: Token, names: list[str] | None = None) -> list[Node]:
        """A gate call's ``( expr, ... )`` (see :meth:`expression_list`), where an argument
        for a parameter the defined gate's body never reads may also be text that is no
        expression: Qiskit writes complex numbers (``0.5+0.1j``) and labels (``XYZ``,
        ``0,1,+``) there for ``StatePreparation``, ``Initialize``, ``DiagonalGate``,
        ``PauliGate`` and others whose definition holds fixed numbers. Such an argument
        cannot change what the call does; it is passed over with a
        :class:`QasmArgumentWarning`."""
        g = self.gates.get(callee.text)
        if g is None or not g.unread:
            return self.expression_list(names)
        self.expect("(")
        exprs: list[Node] = []
        while self.tok.text != ")" or exprs:
            at = len(exprs)
            unread = at < len(g.params) and g.params[at] in g.unread
            exprs.append(self.unread_argument(callee, names) if unread else self.expression(names))
            if self.tok.text != ",":
                break
            self.advance()
        self.expect(")")
        return exprs

    def unread_argument(self, callee: Token, names: list[str] | None) -> Node:
        """The argument at the current token, for a parameter ``callee`` never reads: its
        expression, or, where its text (up to the next ``,`` or ``)`` outside parentheses)
        is none, the number 0 and a warning."""
        start, depth, text, last = self.tok, 0, "", None
        while depth or self.tok.text not in (",", ")"):
            if self.tok.kind == "eof" or self.tok.text == ";":
                raise self.error(f"the parameters of {callee.text!r} are not closed with ')'")
            depth += {"(": 1, ")": -1}.get(self.tok.text, 0)
            tok = self.advance()
            apart = last is not None and (tok.line, tok.column) != (
                last.line, last.column + len(last.text))  # fmt: skip
            text, last = text + " " * apart + tok.text, tok
        if not text:
            raise self.error(f"expected an argument of {callee.text!r}")
        try:
            return expression_tree(text, None if names is None else tuple(names))
        except QasmError:
            pass
        if callee.text not in self.passed_over:  # once per gate: a file may call it often
            self.passed_over.add(callee.text)
            warn_passed_over(self.source, start.line, start.column, text, callee.text)
        return ("int", 0)

    def values(self, nodes: list[Node], where: Token) -> list[Any]:
        """The values of parameter-free expression trees (see :func:`_evaluate`); one that
        is not a finite number (``1e400``, ``ln(0)``) is an error at ``where``."""
        try:
            return [_value(node, None, self.exact) for node in nodes]
        except ZeroDivisionError:
            raise self.error(f"division by zero in a parameter of {where.text!r}", where) from None
        except (GenqsimError, ArithmeticError, ValueError) as exc:
            message = f"a parameter of {where.text!r} is not a finite real number ({exc})"
            raise self.error(message, where) from None

    def expression(self, names: list[str] | None) -> Node:
        value = self.term(names)
        while self.tok.text in ("+", "-"):
            op = self.advance().text
            value = (op, value, self.term(names))
        return value

    def term(self, names: list[str] | None) -> Node:
        value = self.unary(names)
        while self.tok.text in ("*", "/"):
            op = self.advance()
            rhs = self.unary(names)
            if op.text == "/" and _is_zero(rhs):
                raise self.error("division by zero", op)
            value = (op.text, value, rhs)
        return value

    def unary(self, names: list[str] | None) -> Node:
        """Sign binds looser than ``^``: ``-pi^2`` is ``-(pi^2)``."""
        if self.tok.text == "-":
            self.advance()
            return ("neg", self.unary(names))
        if self.tok.text == "+":
            self.advance()
            return self.unary(names)
        return self.power(names)

    def power(self, names: list[str] | None) -> Node:
        base = self.primary(names)
        if self.tok.text == "^":
            self.advance()
            return ("^", base, self.unary(names))  # right-associative, 2^-1 allowed
        return base

    def primary(self, names: list[str] | None) -> Node:
        tok = self.tok
        if tok.kind == "int":
            self.advance()
            return ("int", int(tok.text))
        if tok.kind == "real":
            self.advance()
            return ("real", float(tok.text))
        if tok.text == "(":
            self.advance()
            value = self.expression(names)
            self.expect(")")
            return value
        if tok.kind == "id":
            self.advance()
            if tok.text == "pi":
                return ("pi",)
            if tok.text in FUNCTIONS:
                self.expect("(")
                arg = self.expression(names)
                self.expect(")")
                return ("fn", tok.text, arg)
            if names is not None and tok.text in names:
                return ("param", tok.text)
            raise self.error(f"unknown identifier {tok.text!r} in expression", tok)
        found = "end of input" if tok.kind == "eof" else repr(tok.text)
        raise self.error(f"expected a number, 'pi', a parameter or '(', found {found}", tok)

    # -- building the circuit ----------------------------------------------------------------------
    def qubits_of(self, arg: tuple[str, int | None, Token], classical: bool = False) -> list[int]:
        name, index, _ = arg
        offset, size = (self.cregs if classical else self.qregs)[name]
        return [offset + index] if index is not None else list(range(offset, offset + size))

    def gate_call(self, name: Token, params: list, args: list) -> list[Operation] | tuple:
        """The statement a gate call records: its operations, expanded now with the
        definition in force here (a later one of the same name applies to later calls), or,
        for a gate not defined yet, the call itself, expanded when the circuit is built."""
        if name.text not in self.builtin and name.text not in self.gates:
            return ("call", name, params, args)
        ops: list[Operation] = []
        for qubits in self.broadcast(args, name):
            ops += self.call_operations(name, params, qubits, 0)
        return ops

    def broadcast(self, args: list, tok: Token) -> list[tuple[int, ...]]:
        """Qubit tuples of a call: full registers iterate together (all of one size)."""
        expanded = [self.qubits_of(a) for a in args]
        if len(expanded) == 1:  # one argument: no sizes to agree, no qubit twice in a call
            return [(q,) for q in expanded[0]]
        sizes = {len(e) for e, a in zip(expanded, args) if a[1] is None}
        if len(sizes) > 1:
            raise self.error("registers of different sizes cannot be broadcast together", tok)
        count = sizes.pop() if sizes else 1
        calls = [tuple([e[i] if a[1] is None else e[0] for e, a in zip(expanded, args)])
                 for i in range(count)]  # fmt: skip
        for qs in calls:
            if len(set(qs)) != len(qs):
                raise self.error(f"a qubit is used twice in one gate call: {list(qs)}", tok)
        return calls

    def emit(self, circuit: Circuit, stmt: tuple | Operation | list[Operation]) -> None:
        """Append the statement ``stmt`` as :attr:`statements` records it."""
        if isinstance(stmt, Operation):  # from the simple reader, its qubits checked
            circuit._push(stmt)
            return
        if isinstance(stmt, list):  # a gate call, expanded as it was read
            circuit._push_gates(stmt)
            return
        kind = stmt[0]
        if kind == "if":
            _, creg, value, body, _tok = stmt
            inner = Circuit(circuit.n_qubits, n_clbits=circuit.n_clbits)
            for item in body:
                self.emit(inner, item)
            clbits = self.qubits_of((creg, None, _tok), classical=True)
            for op in inner.operations:  # a broadcast call: one conditional per operation
                circuit.if_(clbits, value, op)
            return
        if kind == "barrier":  # its qubits each checked against its register
            circuit._push(barrier_operation(q for a in stmt[1] for q in self.qubits_of(a)))
        elif kind == "reset":
            for q in self.qubits_of(stmt[1]):
                circuit.reset(q)
        elif kind == "measure":
            qs, cs = self.qubits_of(stmt[1]), self.qubits_of(stmt[2], classical=True)
            if len(qs) != len(cs):
                raise self.error(
                    f"measure maps {len(qs)} qubit(s) onto {len(cs)} classical bit(s)", stmt[3]
                )
            for q, c in zip(qs, cs):  # both checked against their registers
                circuit._push(Operation(Measure(c), (q,)))
        else:  # a call read before any definition of its gate: the file's last one
            _, name, params, args = stmt
            for call_qubits in self.broadcast(args, name):
                circuit._push_gates(self.call_operations(name, params, call_qubits, 0))

    def call_operations(
        self,
        name: Token,
        params: list,
        qubits: Sequence[int],
        depth: int,
        defined: GateDef | None = None,
    ) -> list[Operation]:
        """The operations of the gate call ``name(params) qubits`` (qubits valid, each
        checked against its register): a library gate, or a defined gate's expansion (that
        of ``defined`` where given, else of the definition in force now)."""
        if depth > 64:
            raise self.error("gate definitions nest too deeply (recursive gate?)", name)
        g = defined or self.gates.get(name.text)
        if defined is None and name.text in self.builtin:
            n_params, n_qubits, apply = self.builtin[name.text]
        elif g is not None:
            n_params, n_qubits, apply = len(g.params), len(g.qargs), None
        else:
            raise self.unknown_gate(name)
        if len(params) != n_params:
            raise self.error(
                f"gate {name.text!r} takes {n_params} parameter(s), got {len(params)}", name
            )
        if len(qubits) != n_qubits:
            raise self.error(
                f"gate {name.text!r} acts on {n_qubits} qubit(s), got {len(qubits)}", name
            )
        if len(set(qubits)) != len(qubits):  # in a gate body: "cx a, a;"
            raise self.error(f"gate {name.text!r} is given one qubit twice", name)
        if apply is None:
            assert g is not None
            if depth:  # in a gate body: the callee's operations
                return place_operations(self.expansion(name, g, params, depth), qubits)
            ops = place_operations(self.instruction(name, g, params), qubits)
            self.expanded += sum(getattr(op.gate, "size", 1) for op in ops)
            if self.expanded > MAX_EXPANDED_OPERATIONS:
                raise self.error(
                    f"the calls of defined gates expand to more than "
                    f"{MAX_EXPANDED_OPERATIONS:,} operations in all (genqsim.io.qasm."
                    "parser.MAX_EXPANDED_OPERATIONS)", name,
                )  # fmt: skip
            return ops
        out: list[Operation] = []
        apply(out, params, qubits, self.exact)
        return out

    def expansion(self, name: Token, g: GateDef, params: list, depth: int) -> tuple[Operation, ...]:
        """The operations of gate ``g`` called with ``params`` on its own qubits (0, 1, ...
        in argument order), expanded once per parameter values and remembered: a file calls
        its gates many times with the same few values."""
        if g.fixed is not None and not g.candidate:
            return g.fixed
        key: tuple | None = expansion_key(self.exact, params)
        try:
            done = g.expansions.get(key)  # type: ignore[arg-type]
        except TypeError:  # an unhashable value: expand without remembering
            key, done = None, None
        if done is not None:
            return done
        shared = None
        if key is not None and g.key is not None:  # a table family recognises its own gates
            shared = (g.key, None if g.match is None else family(g.name), key)
        if shared is not None:
            kept = EXPANSIONS.get(shared)
            if kept is not None:  # built by an earlier parser (see .kept)
                done, recognised = kept
                if recognised:
                    g.calls.recognised(done)
                g.expansions[key] = done  # type: ignore[index]
                return done
        recognised = False
        if g.match is not None:  # a definition that is a table gate runs as that gate
            done = None
            if g.fixed is None:  # a body of constants is the gate at one value at most
                done = g.match.operations(params, lambda v: self.expand(name, g, v, None, depth))
            if done is None:
                body = self.expand(name, g, params, key, depth)
                done = table_operations(g.name, params, len(g.qargs), body)
            if done is None:
                done = body
            else:  # a call of it records the table gate, not a composite
                g.calls.recognised(done)
                recognised = True
        else:
            done = self.expand(name, g, params, key, depth)
        if key is not None:
            g.expansions[key] = done
        if shared is not None:
            keep(EXPANSIONS, shared, (done, recognised))
        return done

    def instruction(self, name: Token, g: GateDef, params: list) -> tuple[Operation, ...]:
        """What a call of gate ``g`` with ``params`` records, on the gate's own qubits: the
        table gate its definition is recognised as, or else one composite named after it
        that holds its expansion."""
        return g.calls.instruction(self.expansion(name, g, params, 0), params)

    def expand(
        self, name: Token, g: GateDef, params: list, key: tuple | None, depth: int
    ) -> tuple[Operation, ...]:
        """Gate ``g``'s body called with ``params`` as operations on its own qubits."""
        if g.fixed is not None:
            return g.fixed
        env = dict(zip(g.params, params))
        env_key = None if key is None else tuple(zip(g.params, key[1], params))
        exact, where = self.exact, g.positions
        ops: list[Operation] = []
        for item in g.body:
            if item[0] == "barrier":
                ops.append(barrier_operation(where[a] for a in item[1]))
                continue
            if item[0] == "reset":
                ops.append(new_operation(Reset(), (where[item[1][0]],)))
                continue
            _, tok, exprs, args, callee = item
            try:
                if env_key is None:
                    values = [_value(e, env, exact) for e in exprs]
                else:  # each expression's value remembered per parameter values
                    values = [_bound(e, env_key, exact) for e in exprs]
            except ZeroDivisionError:
                message = f"division by zero in the body of gate {name.text!r}"
                raise self.error(message, tok) from None
            except (GenqsimError, ArithmeticError, ValueError) as exc:
                message = (
                    f"a parameter in the body of gate {name.text!r} is not a finite real "
                    f"number ({exc})"
                )
                raise self.error(message, tok) from None
            qubits = [where[a] for a in args]
            ops += self.call_operations(tok, values, qubits, depth + 1, callee)
            if len(ops) > MAX_GATE_OPERATIONS:
                raise self.error(too_large(name.text), tok)
        return tuple(ops)


def too_large(gate: str) -> str:
    """Why a gate's expansion is refused past :data:`MAX_GATE_OPERATIONS` (both readers)."""
    return (
        f"gate {gate!r} expands to more than {MAX_GATE_OPERATIONS:,} operations (definitions "
        "that call each other several times grow exponentially; genqsim.io.qasm.parser."
        "MAX_GATE_OPERATIONS)"
    )


def expansion_key(exact: bool, params: Sequence[Any]) -> tuple:
    """The key of a gate definition's expansion with ``params`` (see
    :meth:`Parser.expansion`): the values with their types, since ``1 == 1.0`` as keys but
    one is exact and the other a float."""
    return (exact, *expansion_params_key(params))


_PLAIN_HEADER = re.compile(r"OPENQASM[ \t]+2\.0[ \t]*;")
"""The usual header, on its line (any other form is read token by token)."""


def barrier_operation(qubits: Iterable[int]) -> Operation:
    """A barrier on ``qubits`` (valid ones), as OpenQASM's are read here and by Qiskit: each
    qubit once, in order, in a gate body as outside one."""
    distinct = sorted(set(qubits))
    return new_operation(Barrier(len(distinct)), tuple(distinct))


@functools.lru_cache(maxsize=EXPRESSION_MEMO_SIZE)
def expression_tree(text: str, names: tuple[str, ...] | None = None) -> Node:
    """The tree of ``text``, one expression alone, in the parameters ``names`` of the gate
    whose body holds it (``None`` outside gate bodies), remembered; raises ``QasmError``."""
    parser = Parser(text, define_qelib=False, simple_statements=False)
    node = parser.expression(None if names is None else list(names))
    if parser.tok.kind != "eof":
        raise parser.error("expected the end of the expression")
    return node


def expression_value(text: str, exact: bool) -> Any:
    """The value of ``text``, one expression alone (see :func:`_evaluate`)."""
    return _value(expression_tree(text), None, exact)


def _is_zero(node: Node) -> bool:
    """Whether a parameter-free expression is exactly zero (a divisor to refuse)."""
    if _has_param(node):
        return False
    try:
        return bool(_constant(node, False) == 0)
    except ZeroDivisionError:
        return False  # reported at the inner division


def _has_param(node: Node) -> bool:
    return any(leaf[0] == "param" for leaf in _leaves(node))


COLLECTOR_PAUSE_MIN_CHARS = 16384
"""Texts from this length on are parsed with the garbage collector paused: from about a
thousand statements on, a parse took 15-40 % less time (median, reference machine); below,
the collection the pause puts off costs about as much as it saves."""


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector, if it runs, until the block ends (on an error
    too)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@contextlib.contextmanager
def _open_source(path: Path, name: Token, parser: Parser) -> Iterator[Iterable[str]]:
    """The lines of an OpenQASM file, read as they are parsed; errors name the file."""
    try:
        with path.open(encoding="utf-8") as f:
            yield f
    except OSError as exc:
        raise parser.error(f"cannot read {str(path)!r}: {exc.strerror}", name) from None


def loads(
    text: str | Iterable[str],
    source: str | None = None,
    base_dir: Path | None = None,
    exact: bool = True,
) -> Circuit:
    """A circuit from OpenQASM 2.0 text (a string, or lines as from an open file); raises
    ``QasmError`` naming line and column. ``exact=False`` gives every parameter as a Python
    float (``pi/2`` as 1.5707963267948966), for numeric runs: parsing then never imports
    SymPy."""
    if isinstance(text, (bytes, bytearray)) or not isinstance(text, (str, Iterable)):
        raise ArgumentTypeError(f"expected OpenQASM text, got {type(text).__name__}")
    return Parser(text, source, base_dir, exact).parse()
