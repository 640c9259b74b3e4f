"""Simple gate statements read whole, by one regular expression each.

Generated OpenQASM (Qiskit, Cirq and QASMBench files) is almost all statements of one shape:
``name(params) reg[i], reg[j];``. :class:`SimpleStatements` reads such a statement straight
off the current line, remembers its parameter texts and qubit lists (a file repeats the same
few), and records a ready :class:`~genqsim.circuit.Operation` for a library gate; likewise
measurements, registers, barriers, resets and gate definitions. Anything it does not fully
recognise and check (nested expressions, block comments, a statement over several lines of
a file read line by line, unknown names, bad indices, a repeated qubit) is left to the token
parser, which reads it, or reports its error at its line and column, exactly as it would have
without this reader.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, NamedTuple

from ...circuit.circuit import Operation, new_operation
from ...circuit.gates import Measure, NamedGate
from ...errors import GenqsimError
from ...support.validation import MAX_CIRCUIT_QUBITS
from .kept import BODY_STATEMENTS, DEFINITION_PARTS, FIXED_BODIES, keep
from .lexer import Lexer, Token

if TYPE_CHECKING:
    from .parser import GateDef, Parser

KEYWORDS = frozenset(
    ("OPENQASM", "include", "qreg", "creg", "gate", "opaque", "if", "measure", "reset",
     "barrier")
)  # fmt: skip
"""Words that begin statements other than gate calls."""

_WORD = r"[A-Za-z_][A-Za-z0-9_]*"
_ARG = rf"{_WORD}(?:\s*\[\s*[0-9]+\s*\])?"
_END = r"\s*;[ \t]*(?://[^\n]*)?\n?"
"""A statement's ``;``, and what follows it on its line up to the next statement."""

_STATEMENT = re.compile(
    rf"""
    [ \t]*(?:
    (?!(?:qreg|creg|measure|include|gate|if|opaque|OPENQASM)\b)(?P<name>{_WORD})\b\s*
    (?:\((?P<params>[^()\n;{{}}]*(?:\([^()\n;{{}}]*\)[^()\n;{{}}]*)*)\)\s*)?
    (?P<args>{_ARG}(?:\s*,\s*{_ARG})*){_END}
    |(?:(?P<kind>qreg|creg)\s+(?P<reg>{_WORD})\s*\[\s*(?P<size>[0-9]+)\s*\]
    |(?P<measure>measure)\s+(?P<q>{_WORD})(?:\s*\[\s*(?P<qi>[0-9]+)\s*\])?
    \s*->\s*(?P<c>{_WORD})(?:\s*\[\s*(?P<ci>[0-9]+)\s*\])?
    |(?P<qelib>include)\s*"qelib1\.inc"
    ){_END}
    |(?://[^\n]*)?\n
    )
    """,
    re.X,
)
"""One simple statement: a gate call on qubits or whole registers (groups 1-3: ``name``,
``params``, ``args``; the keywords other than ``barrier`` and ``reset`` refused at once), or
else a register declaration, a measurement of a qubit or a whole register, the include of
the built-in ``qelib1.inc``, or the blank or commented rest of a line."""

_CANONICAL_CALL = re.compile(
    rf"(?!(?:measure|qreg|creg|include|gate|if|opaque|OPENQASM)\b)"
    rf"(?P<name>{_WORD})(?:\((?P<params>[^()\n;{{}}]*)\))? "
    rf"(?P<args>{_WORD}\[[0-9]+\](?:, ?{_WORD}\[[0-9]+\])*);\n"
)
"""A gate call as Qiskit writes it, on one line (``rz(pi/4) q[3];``, ``cx q[0],q[1];``),
matched in half the time :data:`_STATEMENT` takes, with its groups (1-3 and ``name``); what
it does not match is matched by :data:`_STATEMENT` (the keywords other than ``barrier`` and
``reset`` at once)."""

_SIZE = _STATEMENT.groupindex["size"]
_QELIB = _STATEMENT.groupindex["qelib"]
_MEASURED = tuple(_STATEMENT.groupindex[name] for name in ("q", "qi", "c", "ci"))

_GATE = re.compile(
    rf"""
    [ \t]*gate\s+(?P<name>{_WORD})\b\s*
    (?:\((?P<params>[^(){{}}]*)\)\s*)?
    (?P<qargs>{_WORD}(?:\s*,\s*{_WORD})*)\s*
    \{{(?P<body>[^{{}}]*)\}}[ \t]*\n?
    """,
    re.X,
)
"""A gate definition, its comments blanked out (a line comment's ``}`` ends nothing)."""

_BODY_STATEMENT = re.compile(
    rf"""
    \s*(?P<name>{_WORD})\b\s*
    (?:(?P<params>\([^(){{}};]*(?:\([^(){{}};]*\)[^(){{}};]*)*\))\s*)?
    (?P<args>{_WORD}(?:\s*,\s*{_WORD})*)\s*;
    """,
    re.X,
)
"""A gate call or barrier in a gate body (its parameter list with its parentheses)."""

_GATE_WORD = re.compile(r"[ \t]*gate\b")
_LINE_COMMENT = re.compile(r"//[^\n]*")

GATE_LINES_MAX = 256
"""Lines a gate definition may span for the simple reader (longer ones go to the parser)."""

_ARGUMENT = re.compile(rf"({_WORD})(?:\s*\[\s*([0-9]+)\s*\])?")
"""A register and its index (empty for the whole register)."""

_REAL = r"(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+"
"""A decimal literal (the lexer's ``real``)."""
_NUMBER = rf"{_REAL}|[0-9]+"
_PRODUCT = re.compile(
    rf"""[ \t]*(?P<sa>-?)[ \t]*(?P<a>{_NUMBER}|pi)[ \t]*
    (?:\*[ \t]*(?P<sb>-?)[ \t]*(?P<b>{_NUMBER}|pi)[ \t]*)?
    (?:/[ \t]*(?P<c>{_NUMBER})[ \t]*)?""",
    re.X,
)
"""``[-]a[*[-]b][/c]`` with numbers and ``pi``: most angles in generated files."""

_REALS = re.compile(rf"[ \t]*-?(?:{_REAL})[ \t]*(?:,[ \t]*-?(?:{_REAL})[ \t]*)*")
"""A parameter list of decimal literals: floats even where values are exact."""

_NUMERIC = "0123456789.eE+-, \t"
"""The characters of a parameter list of plain numbers (``float`` then checks each)."""

_FAILED = object()
_BROADCAST = object()
_new_tuple = tuple.__new__


def _token(text: str, line: int, column: int) -> Token:
    """``Token("id", text, line, column)`` at half the cost of its constructor."""
    return _new_tuple(Token, ("id", text, line, column))


def product_value(text: str, exact: bool) -> float | None:
    """The float value of a parameter text of the form ``[-]a[*[-]b][/c]`` evaluated as the
    expression parser's tree is (``(a*b)/c``, signs on the operands), or ``None`` where the
    text has another form, divides by zero, leaves the floats, or (with ``exact``) holds no
    decimal literal and so has an exact value."""
    # in such a text, a point or an exponent can only belong to a decimal literal
    if exact and "." not in text and "e" not in text and "E" not in text:
        return None
    m = _PRODUCT.fullmatch(text)
    if m is None:
        return None
    sa, a, sb, b, c = m.groups()
    value = _operand(a)
    if sa:
        value = -value
    if b is not None:
        value *= -_operand(b) if sb else _operand(b)
    if c is not None:
        divisor = float(c)
        if divisor == 0:
            return None
        value /= divisor
    return value if math.isfinite(value) else None


def _operand(text: str) -> float:
    return math.pi if text == "pi" else float(text)


class ReaderTables(NamedTuple):
    """What the fast reader takes from the token parser (:mod:`.parser`), handed over when
    the parser makes it: the library tables, the expression helpers and the gate definition
    class."""

    library: Any
    builtin: Any
    expression_value: Any
    expression_tree: Any
    gate_def: Any
    not_in_gate_bodies: Any
    renamed: Any
    barrier_operation: Any
    max_gate_operations: int


class SimpleStatements:
    """The fast reader of one parser: its remembered parameter values, library gates and
    qubit lists, and :meth:`read`, which takes statements while they are simple."""

    def __init__(self, parser: Parser, tables: ReaderTables) -> None:
        self.parser = parser
        self.record = parser.statements.append
        self.library, self.builtin = tables.library, tables.builtin
        self._expression, self._tree = tables.expression_value, tables.expression_tree
        self._gate_def, self._not_in_bodies = tables.gate_def, tables.not_in_gate_bodies
        self._values: dict[str | None, Any] = {None: []}
        self._part_values: dict[str, Any] = {}
        """The value of each parameter expression met in a list with others (``-pi/2``)."""
        self._gates: dict[tuple[str, str | None], tuple[NamedGate, int, int]] = {}
        self._qubits: dict[str, Any] = {}  # an argument list's qubits, or _BROADCAST
        self._arguments: dict[str, Any] = {}
        """The qubit (or ``_BROADCAST``) of each argument text met, once checked."""
        self._barriers: dict[str, Operation] = {}
        """The barrier on each argument text met, once checked."""
        self._measures: dict[int, Measure] = {}
        """The measurement into each classical bit met."""
        self._body_args: dict[str, list[str]] = {}
        """The argument names of each argument text met in gate bodies."""
        self._fixed: dict[tuple, Any] = {}
        """The one expansion (or ``None``) of each body of constants met whose definition
        has no identity (those with one are kept in :data:`.kept.FIXED_BODIES`), by its
        parameter names, qubit argument text and body text: a body's meaning cannot change
        while it is read (no gate is defined twice; :meth:`forget` clears it)."""
        self._broadcasts: dict[str, list[tuple[int, ...]]] = {}
        """The qubit tuples of a call's arguments naming whole registers, once formed and
        checked."""
        self._renamed, self._barrier = tables.renamed, tables.barrier_operation
        self._max_gate_operations = tables.max_gate_operations
        self._expansions: dict[tuple[str, str | None], tuple[GateDef, int, tuple[Operation, ...]]]
        self._expansions = {}
        """What a call of a defined gate records on the gate's own qubits (its composite, or
        the table gate it is recognised as) per parameter text, with the definition it comes
        from (a later definition of the name replaces it) and its qubit count: a call with
        the same parameter text is only placed on its qubits."""

    def read(self, lexer: Lexer, start: int, many: bool = True) -> bool:
        """Take a simple statement from column ``start`` (0-based) of the lexer's line on and,
        with ``many``, those that follow it over the next lines while they are simple; on
        taking any, point the parser at the token after them and return ``True``."""
        whole = lexer.whole
        if whole is None:
            return self._read_lines(lexer, start, many)
        pos, taken, size = lexer.line_start + start, False, len(whole)
        self._at(whole, lexer.line_no, lexer.line_start)
        take = self._take_statement
        while True:  # across lines: a statement's match takes its line's end
            end = take(whole, pos)
            if end < 0:
                end = self._take_gate_in(whole, pos) if many else -1
                if end < 0:
                    break
            taken, pos = True, end
            if not many or pos == size:
                break
        if taken:
            lexer.seek(pos)
            self.parser.tok = lexer.token()
        return taken

    def _read_lines(self, lexer: Lexer, start: int, many: bool) -> bool:
        """:meth:`read` for lines read one at a time (a file)."""
        pos, taken, text = start, False, lexer.text
        self._at(text, lexer.line_no, 0)
        take = self._take_statement
        while True:
            end = take(text, pos)
            if end < 0:  # a gate definition (over lines: the lexer is then on its last)
                end = self._take_gate(lexer, pos) if many else -1
                if end < 0:
                    break
                text = lexer.text
                self._at(text, lexer.line_no, 0)
            taken, pos = True, end
            if not many:
                break
            if pos == len(text):
                if not lexer.next_line():
                    break
                text, pos = lexer.text, 0
                self._at(text, lexer.line_no, 0)
        if taken:
            lexer.pos = pos
            self.parser.tok = lexer.token()
        return taken

    def _take_statement(self, text: str, pos: int) -> int:
        """Take the simple statement (not a gate definition) at ``pos`` of ``text``; return
        the position after it, or -1 where there is none to take. A gate call as Qiskit
        writes it is tried with the plain pattern first."""
        m = _CANONICAL_CALL.match(text, pos)
        if m is not None and self._take_call(m):
            return m.end()
        m = _STATEMENT.match(text, pos)
        if m is not None and (self._take_call if m.start(1) >= 0 else self._take_other)(m):
            return m.end()
        return -1

    def _at(self, text: str, line_no: int, line_start: int) -> None:
        """Read ``text`` from here on, whose line ``line_no`` begins at ``line_start``."""
        self._text, self._line, self._counted = text, line_no, line_start

    def _token_at(self, name: str, offset: int) -> Token:
        """The token ``name`` at ``offset`` in the text being read, with its line (counted
        on from the last token's, as statements are read in order) and column."""
        text, counted = self._text, self._counted
        if offset >= counted:
            self._line += text.count("\n", counted, offset)
        else:
            self._line -= text.count("\n", offset, counted)
        self._counted = offset
        return _token(name, self._line, offset - text.rfind("\n", 0, offset))

    def _take_call(self, m: re.Match[str]) -> bool:
        """Record the gate call ``m`` if it is fully recognised and valid."""
        name, params, args = m.group(1, 2, 3)
        if name in KEYWORDS:
            return self._take_barrier_or_reset(m)
        qubits = self._qubits.get(args) or self._indexed(args)
        if qubits is None:
            return False
        if qubits is _BROADCAST:
            return self._take_broadcast(m)
        known = self._gates.get((name, params))
        if known is None and name in self.library:
            known = self._library_gate(name, params)
        if known is not None:
            gate, n_qubits, n = known
            if len(qubits) != n_qubits:
                return False
            self.record(new_operation(gate, qubits[n:], qubits[:n], (1,) * n))
            return True
        if name in self.library:
            return False
        gates = self.parser.gates
        expanded = self._expansions.get((name, params))
        if expanded is not None and expanded[0] is gates.get(name):
            if len(qubits) != expanded[1]:
                return False
            self.record(self._renamed(expanded[2], qubits))
            return True
        g = gates.get(name)
        if g is None and name not in self.builtin:
            return False
        values = self._parameter_values(params)
        if values is None:
            return False
        tok = self._token_at(name, m.start("name"))
        try:
            if g is None:  # a decomposed qelib1 gate
                self.record(self.parser.call_operations(tok, values, qubits, 0))
                return True
            # a defined gate on distinct qubits: the counts are all call_operations checks
            if len(values) != len(g.params) or len(qubits) != len(g.qargs):
                return False
            expansion = self.parser.instruction(tok, g, values)
        except (GenqsimError, ArithmeticError, ValueError):
            return False  # the parser reads the call again and reports its error in turn
        self.record(self._renamed(expansion, qubits))
        self._expansions[(name, params)] = (g, len(qubits), expansion)
        return True

    def _take_broadcast(self, m: re.Match[str]) -> bool:
        """Record the call ``m`` on whole registers (and qubits) as the parser would: its
        qubit tuples are formed, and checked, as the circuit is built."""
        name, params, args = m.group(1, 2, 3)
        known = self._gates.get((name, params))
        if known is None and name in self.library:
            known = self._library_gate(name, params)
        calls = self._broadcasts.get(args)
        if calls is None or known is None or len(calls[0]) != known[1]:
            values = self._parameter_values(params)
            if values is None:
                return False
            tok = self._token_at(name, m.start("name"))
            arguments = [(reg, int(i) if i else None, tok) for reg, i in _ARGUMENT.findall(args)]
            try:  # expanded now, as the parser does
                if known is None or len(arguments) != known[1]:
                    self.record(self.parser.gate_call(tok, values, arguments))
                    return True
                calls = self.parser.broadcast(arguments, tok)
            except (GenqsimError, ArithmeticError, ValueError):
                return False  # the parser reads the call again and reports its error in turn
            self._broadcasts[args] = calls
        gate, _, n = known  # a library gate: one operation per qubit tuple
        controls = (1,) * n
        self.record([new_operation(gate, qs[n:], qs[:n], controls) for qs in calls])
        return True

    def _take_barrier_or_reset(self, m: re.Match[str]) -> bool:
        """Record the barrier or reset ``m`` (other keywords are not gate calls) if valid."""
        name, params, args = m.group(1, 2, 3)
        if name == "barrier" and params is None:
            done = self._barriers.get(args)
            if done is not None:  # the same qubits again (registers do not change)
                self.record(done)
                return True
        arguments = _ARGUMENT.findall(args)
        if name not in ("barrier", "reset") or params is not None:
            return False
        if name == "reset" and len(arguments) != 1:
            return False
        qregs = self.parser.qregs
        if name == "barrier":  # as the parser emits it, each argument checked
            qubits: list[int] = []
            for reg, i in arguments:
                register = qregs.get(reg)
                if register is None:
                    return False
                offset, size = register
                if not i:
                    qubits.extend(range(offset, offset + size))
                elif int(i) < size:
                    qubits.append(offset + int(i))
                else:
                    return False
            self.record(barrier := self._barrier(qubits))
            self._barriers[args] = barrier
            return True
        reg, i = arguments[0]
        if not _fits(qregs, reg, i or None):
            return False
        tok = self._token_at(name, m.start("name"))
        self.record(("reset", (reg, int(i) if i else None, tok), tok))
        return True

    def _take_other(self, m: re.Match[str]) -> bool:
        """Declare the register, record the measurement, or pass over the include or blank
        rest of a line ``m``, if it is valid."""
        last = m.lastindex  # no group (include, blank), a register's size, a measured bit
        if last is None:
            return True
        parser = self.parser
        if last == _QELIB:
            parser.include_qelib1()
            return True
        qregs, cregs = parser.qregs, parser.cregs
        if last == _SIZE:
            kind, reg, size = m.group("kind", "reg", "size")
            if reg in qregs or reg in cregs or not 1 <= int(size) <= MAX_CIRCUIT_QUBITS:
                return False  # the parser reports it
            parser.declare(kind, reg, int(size))
            return True
        q, qi, c, ci = m.group(*_MEASURED)
        if qi is not None and ci is not None:  # one qubit, one bit: the operation itself
            qreg, creg = qregs.get(q), cregs.get(c)
            if qreg is None or creg is None or int(qi) >= qreg[1] or int(ci) >= creg[1]:
                return False
            bit = creg[0] + int(ci)
            gate = self._measures.get(bit)
            if gate is None:  # one per bit: a gate is an immutable value
                gate = self._measures[bit] = Measure(bit)
            self.record(new_operation(gate, (qreg[0] + int(qi),)))
            return True
        if not (_fits(qregs, q, qi) and _fits(cregs, c, ci)):
            return False
        tok = self._token_at("measure", m.start("measure"))
        qubit = (q, None if qi is None else int(qi), tok)
        clbit = (c, None if ci is None else int(ci), tok)
        self.record(("measure", qubit, clbit, tok))
        return True

    def _take_gate(self, lexer: Lexer, start: int) -> int:
        """Define the gate whose definition begins at ``start`` of the lexer's line, if it is
        valid and plain (no block comments), reading on to the line of its ``}``; return
        the position after it on that line, or -1 with the lexer back where it was."""
        if _GATE_WORD.match(lexer.text, start) is None:
            return -1
        first, first_pos = (lexer.line_no, lexer.text), lexer.pos
        read: list[tuple[int, str]] = []  # the lines read on, to give back if not taken
        chunk = _uncommented(lexer.text)
        closed = chunk.find("}", start) >= 0
        while not closed and len(read) < GATE_LINES_MAX and lexer.next_line():
            read.append((lexer.line_no, lexer.text))
            line = _uncommented(lexer.text)
            chunk += line
            closed = "}" in line
        m = _GATE.match(chunk, start)
        self._at(chunk, first[0], 0)
        if m is None or "/*" in chunk or not self._define(m):
            lexer.rewind(first, first_pos, read)
            return -1
        return m.end() - (len(chunk) - len(lexer.text))

    def _take_gate_in(self, text: str, start: int) -> int:
        """Define the gate whose definition begins at ``start`` of the whole ``text``, if it
        is valid and has no comments; return the position after it, or -1."""
        if _GATE_WORD.match(text, start) is None:
            return -1
        m = _GATE.match(text, start)
        if m is None or not self._define(m):
            return -1
        return m.end()

    def _define(self, m: re.Match[str]) -> bool:
        """Define the gate ``m`` (matched in the text being read, its comments blanked out
        or none) if every check of the parser's own reading holds. A gate whose body makes
        valid calls with constant parameters alone (see :meth:`_fixed_operations`), as the
        gates other tools export, is kept as its one expansion (:attr:`GateDef.fixed`, in
        the exactness of the parser that reads it, the only one to expand it). Any other
        body is read into its statements, their tokens kept for the errors its calls
        report."""
        text, body_end = m.string, m.end("body")
        definition = text[m.start() : body_end]
        parts = DEFINITION_PARTS.get(definition)
        if parts is None:
            parts = _definition_parts(m)
            keep(DEFINITION_PARTS, definition, parts)
        if not parts:
            return False  # the parser reads it, or reports it
        name, params, qargs, positions, qargs_text, body_text, called, constant = parts
        if name in self.parser.declared:
            return False  # the parser reports it
        body_start = body_end - len(body_text)
        key = self._identity(params, qargs_text, body_text, called)
        fixed = None
        if constant:  # kept for the process by identity, else for this file by text
            memo = (tuple(params), qargs_text, body_text) if key is None else key
            fixed = (self._fixed if key is None else FIXED_BODIES).get(memo, _FAILED)
            if fixed is _FAILED:
                fixed = self._fixed_expansion(text, body_start, body_end, positions)
                if key is None:
                    self._fixed[memo] = fixed
                else:
                    keep(FIXED_BODIES, key, fixed)
        if fixed is not None:
            g = self._gate_def(name, params, qargs, [], positions)
            g.fixed = fixed
        else:
            body = self._body(text, body_start, body_end, params, positions)
            if body is None:
                return False
            g = self._gate_def(name, params, qargs, body, positions)
        g.identify(key, called)
        self.parser.define(g, self._token_at(name, m.start("name")))
        return True

    def _identity(
        self, params: list[str], qargs_text: str, body_text: str, called: frozenset[str]
    ) -> tuple | None:
        """The identity (see :mod:`.kept`) of a definition with these texts whose body calls
        the names ``called``: with the identity of each gate of the file among them (a
        built-in gate means the same in every file); ``None`` where one has none or a name
        is unknown (the body is then reported where it is read)."""
        gates, builtin = self.parser.gates, self.builtin
        callees = []
        for call in sorted(called):
            if call in builtin or call == "barrier":
                continue
            g = gates.get(call)
            if g is None or g.key is None:
                return None
            callees.append((call, g.key))
        return (self.parser.exact, tuple(params), qargs_text, body_text, tuple(callees))

    def forget(self, name: str) -> None:
        """Stop taking ``name`` for a built-in gate: the file has defined it."""
        self.library = without(self.library, name)
        self.builtin = without(self.builtin, name)
        self._gates = {k: v for k, v in self._gates.items() if k[0] != name}
        self._fixed.clear()  # bodies that call the name now call the file's gate

    def _fixed_expansion(
        self, text: str, pos: int, end: int, positions: dict[str, int]
    ) -> tuple[Operation, ...] | None:
        """The operations, on the gate's own qubits, of a gate body from ``pos`` to ``end``
        of ``text`` that names none of the gate's parameters, where every statement is a
        barrier or a valid gate call with constant parameters (see
        :meth:`_fixed_operations`); else ``None``."""
        ops: list[Operation] = []
        made: dict[tuple[Any, ...], tuple[Operation, ...] | None] = {}  # by statement
        match = _BODY_STATEMENT.match
        while (s := match(text, pos, end)) is not None:
            statement = s.group(1, 2, 3)  # name, parameters with parentheses, arguments
            done = made.get(statement)
            if done is None:
                call, parens, args_text = statement
                done = made[statement] = self._fixed_operations(call, parens, args_text, positions)
                if done is None:
                    return None
            ops += done
            if len(ops) > self._max_gate_operations:
                return None  # the parser reads the body and refuses the call that expands it
            pos = s.end()
        if text[pos:end].strip():
            return None
        return tuple(ops)

    def _fixed_operations(
        self, call: str, parens: str | None, args_text: str, positions: dict[str, int]
    ) -> tuple[Operation, ...] | None:
        """The operations of the gate body statement ``call(parens) args_text`` on the
        gate's own ``positions``: a barrier, or a valid call with constant parameters of a
        library gate, a decomposed qelib1 gate or a gate defined before (its expansion at
        those values, every gate it calls defined by now); else ``None``."""
        args = self._body_args.get(args_text)
        if args is None:
            args = self._body_args[args_text] = _IDENTIFIER.findall(args_text)
        try:
            qubits = tuple(map(positions.__getitem__, args))
        except KeyError:  # not an argument of the gate
            return None
        if call == "barrier":  # as the parser expands it
            return None if parens is not None else (self._barrier(qubits),)
        text = None if parens is None else parens[1:-1]
        known = self._gates.get((call, text))
        if known is None and call in self.library:
            known = self._library_gate(call, text)
            if known is None:
                return None
        if known is not None:
            gate, n_qubits, n = known
            if len(qubits) != n_qubits or len(set(qubits)) != n_qubits:
                return None
            return (new_operation(gate, qubits[n:], qubits[:n], (1,) * n),)
        defined = self.parser.gates.get(call)
        if defined is None and call not in self.builtin:
            return None  # not defined before this gate
        values = self._parameter_values(text)
        if values is None:
            return None
        # a decomposed qelib1 gate, or a defined gate's expansion at these values (a body
        # that calls a gate not defined yet fails here, and is read into its statements)
        try:
            ops = self.parser.call_operations(_token(call, 0, 0), values, qubits, 1, defined)
        except (GenqsimError, ArithmeticError, ValueError):
            return None  # the body is read into its statements, reported at a call
        return tuple(ops)

    def _body(
        self, text: str, pos: int, end: int, params: list[str], positions: dict[str, int]
    ) -> list[tuple] | None:
        """The statements of a gate body from ``pos`` to ``end`` of ``text`` as the parser
        reads them; ``None`` where a statement is not valid (the parser then reports it).
        Their reading is kept for the process (:data:`.kept.BODY_STATEMENTS`): the tokens'
        lines counted from the body's, their columns (on the body's first line they
        depend on its column, part of the key), and each called gate looked up anew."""
        column = pos - text.rfind("\n", 0, pos)
        key = (tuple(params), tuple(positions), text[pos:end], column)
        read = BODY_STATEMENTS.get(key, _FAILED)
        if read is _FAILED:
            read = self._read_body(text, pos, end, params, positions)
            keep(BODY_STATEMENTS, key, read)
        if read is None:
            return None
        line = self._token_at("{", pos)[2]  # the line of the body's start
        gates = self.parser.gates
        return [
            ("barrier", args, _token(call, line + lines, col)) if exprs is None else
            ("call", _token(call, line + lines, col), exprs, args, gates.get(call))
            for call, lines, col, exprs, args in read
        ]  # fmt: skip

    def _read_body(
        self, text: str, pos: int, end: int, params: list[str], positions: dict[str, int]
    ) -> tuple[tuple, ...] | None:
        """:meth:`_body`'s statements as ``(name, lines after the body's first, column,
        parameter trees or None for a barrier, argument names)``, or ``None``."""
        body: list[tuple] = []
        match, body_args = _BODY_STATEMENT.match, self._body_args
        first = pos
        while (s := match(text, pos, end)) is not None:
            call, parens, args_text = s.group("name", "params", "args")
            args = body_args.get(args_text)
            if args is None:  # a list shared by the statements that name the same arguments
                args = body_args[args_text] = _IDENTIFIER.findall(args_text)
            if call in self._not_in_bodies or not positions.keys() >= set(args):
                return None
            at = s.start("name")
            lines = text.count("\n", first, at)
            col = at - text.rfind("\n", 0, at)
            if call == "barrier":
                if parens is not None:
                    return None
                body.append((call, lines, col, None, args))
            else:
                exprs = self._expressions(None if parens is None else parens[1:-1], params)
                if exprs is None:
                    return None
                body.append((call, lines, col, exprs, args))
            pos = s.end()
        if text[pos:end].strip():
            return None
        return tuple(body)

    def _expressions(self, text: str | None, names: list[str]) -> list[Any] | None:
        """The expression trees of a gate body's parameter list, or ``None`` where one is
        not valid (the parser then reports it)."""
        if text is None:
            return []
        out, names_key = [], tuple(names)
        for part in text.split(","):
            try:
                out.append(self._tree(part, names_key))
            except (GenqsimError, ArithmeticError, ValueError):
                return None
        return out

    def _library_gate(self, name: str, params: str | None) -> tuple[NamedGate, int, int] | None:
        """The library gate that ``name(params)`` calls, with its qubit and control counts,
        remembered; ``None`` where a parameter is not valid or their count is wrong (the
        parser then reports it)."""
        library = self.library[name]
        values = [] if params is None else self._evaluate(params)
        if values is _FAILED or len(values) != library.n_params:
            return None
        gate = NamedGate.checked(library.gate, tuple(values))  # values checked as read
        self._gates[(name, params)] = known = (gate, library.n_qubits, library.n_controls)
        return known

    def _parameter_values(self, params: str | None) -> list[Any] | None:
        """The values of a parameter list's text, remembered; ``None`` where one of them is
        not a valid expression."""
        values = self._values.get(params)
        if values is None:
            values = self._values[params] = self._evaluate(params)  # type: ignore[arg-type]
        return None if values is _FAILED else values

    def _evaluate(self, params: str) -> Any:
        """The values of the comma-separated expressions ``params``, or ``_FAILED``."""
        exact = self.parser.exact
        if _REALS.fullmatch(params) if exact else not params.strip(_NUMERIC):
            if "," not in params:  # one number: most calls with a parameter
                value = _float(params)
                if value is not None:
                    return [value]
            else:
                try:
                    values = [float(text) for text in params.split(",")]
                except ValueError:  # e.g. "1-2": read as an expression below
                    pass
                else:
                    if all(map(math.isfinite, values)):
                        return values
        out, known = [], self._part_values
        for text in params.split(","):  # numbers and expressions ("0.37,-pi/2")
            value = None if exact or text.strip(_NUMERIC) else _float(text)
            if value is None:
                value = known.get(text)
            if value is None:
                value = product_value(text, exact)
                if value is None:
                    try:
                        value = self._expression(text, exact)
                    except (GenqsimError, ArithmeticError, ValueError):
                        return _FAILED
                known[text] = value
            out.append(value)
        return out

    def _indexed(self, args: str) -> Any:
        """The qubits of ``reg[i], ...``, remembered; ``None`` where a register is unknown, an
        index out of range or a qubit repeated, ``_BROADCAST`` where a whole register is
        given."""
        qubits = []
        whole = False
        known = self._arguments
        for argument in args.split(","):  # each matched the statement's argument pattern
            qubit = known.get(argument)
            if qubit is None:
                qubit = self._argument(argument)
                if qubit is None:
                    return None
            if qubit is _BROADCAST:
                whole = True
            else:
                qubits.append(qubit)
        if whole:
            self._qubits[args] = _BROADCAST
            return _BROADCAST
        if len(set(qubits)) != len(qubits):
            return None
        self._qubits[args] = out = tuple(qubits)
        return out

    def _argument(self, text: str) -> Any:
        """The qubit of one argument ``reg[i]``, or ``_BROADCAST`` for a whole register,
        remembered; ``None`` where the register is unknown or the index out of range."""
        reg, index = _ARGUMENT.search(text).groups()  # type: ignore[union-attr]
        qregs = self.parser.qregs
        if reg not in qregs:
            return None
        offset, size = qregs[reg]
        if index is None:
            out: Any = _BROADCAST
        elif int(index) < size:
            out = offset + int(index)
        else:
            return None
        self._arguments[text] = out
        return out


def _definition_parts(m: re.Match[str]) -> tuple:
    """What the gate definition ``m`` (:data:`_GATE`) says, apart from where it stands:
    ``(name, parameter names, qubit argument names, their positions, the arguments' text,
    the body's text, the names its statements call, whether the body may be constants
    alone: no parameter name appears in it)``; ``()`` where it has a comment,
    a parameter list that is not names, a qubit argument twice or a body that calls the
    gate itself (the token parser then reads it)."""
    text, start, body_end = m.string, m.start(), m.end("body")
    if text.find("//", start, body_end) >= 0 or text.find("/*", start, body_end) >= 0:
        return ()
    name, params_text, qargs_text, body_text = m.group("name", "params", "qargs", "body")
    params = [] if params_text is None else _words(params_text)
    qargs = _IDENTIFIER.findall(qargs_text)  # the pattern matched identifiers and commas
    positions = {a: i for i, a in enumerate(qargs)}
    if params is None or len(positions) != len(qargs):
        return ()
    called = frozenset(_CALLED.findall(body_text))
    if name in called:  # a table name whose own body calls it
        return ()
    constant = not any(p in body_text for p in params)
    return name, params, qargs, positions, qargs_text, body_text, called, constant


def _float(text: str) -> float | None:
    """The finite value of ``text``, characters of :data:`_NUMERIC` alone, where it is one
    decimal number (a sign before it, as the expression parser reads it); else ``None``."""
    try:
        value = float(text)
    except ValueError:  # "1-2", "1e", "": read as an expression
        return None
    return value if math.isfinite(value) else None


def without(table: dict[str, Any], name: str) -> dict[str, Any]:
    """A copy of ``table`` without ``name`` (the tables the reader was given are shared)."""
    out = dict(table)
    out.pop(name, None)
    return out


def _fits(table: dict[str, tuple[int, int]], name: str, index: str | None) -> bool:
    """Whether register ``name`` is declared and ``index`` (if any) lies within it."""
    return name in table and (index is None or int(index) < table[name][1])


def _uncommented(line: str) -> str:
    """``line`` with its line comment, if any, blanked out (its columns kept)."""
    return line if "//" not in line else _LINE_COMMENT.sub(_blank, line)


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group())


def _words(text: str) -> list[str] | None:
    """The comma-separated identifiers of ``text`` (none for blank text), or ``None``."""
    words = [w.strip() for w in text.split(",")] if text.strip() else []
    return words if all(_IDENTIFIER.fullmatch(w) for w in words) else None


_IDENTIFIER = re.compile(_WORD)
_CALLED = re.compile(rf"({_WORD})[^;]*;")
"""The name each statement of a valid gate body (its comments blanked out) begins with."""
