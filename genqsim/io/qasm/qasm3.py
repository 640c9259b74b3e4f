"""OpenQASM 3 to :class:`~genqsim.Circuit`, through the reference ``openqasm3`` parser.

Read: what Qiskit's ``qasm3.dumps`` writes and the quantum core of the language around it.
Qubits are declared (``qubit[n] q;``, ``qreg``) or physical (``$0``, ``$1``, as transpiled
circuits write them: ``$k`` is qubit ``k``); classical bits are ``bit``/``bit[n]``/``creg``
variables, written by measurement (``c[0] = measure q[0];``, ``c = measure q;``); gates are
those of ``stdgates.inc``, ``U`` and ``gphase``, and the file's own ``gate`` definitions
(also on no qubits, as Qiskit writes ``GlobalPhaseGate``; a definition named after a table
gate runs as that gate where its unitary equals it, see :mod:`.recognize`), under the
``ctrl @``, ``negctrl @``, ``inv @`` and ``pow(k) @`` modifiers. ``if``/``else``,
``switch`` and ``while`` test classical bits, registers and variables (the expressions
Qiskit writes); ``for`` loops over ranges and sets are unrolled; ``input float``/``input
angle`` parameters are free symbols, bound like any other (``circuit.bind``); ``const``
values are substituted; ``reset``, ``barrier`` and ``box`` run; ``delay`` and durations are
ignored with a :class:`QasmTimingWarning`. What needs a classical machine of its own
(subroutines, ``extern``, calibrations, aliases) is refused with a ``QasmError`` that names
the construct and its line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import re
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ...circuit.circuit import Circuit, Operation, new_operation
from ...circuit.gates import GateKind, Measure, NamedGate, PauliRotation, Reset
from ...circuit.store import Store
from ...errors import GenqsimError
from .. import classical
from ..classical import ClassicalError, ClassicalScope
from .lexer import QasmError
from .parser import (
    BUILTIN,
    MAX_EXPANDED_OPERATIONS,
    MAX_GATE_OPERATIONS,
    Node,
    Parser,
    _value,
    barrier_operation,
    expansion_key,
    expression_tree,
    too_large,
    warn_passed_over,
)
from .recognize import CallRecords, TableMatch, is_candidate, table_operations

STDGATES = frozenset(
    """p x y z h s sdg t tdg sx rx ry rz cx cy cz cp crx cry crz ch swap ccx
    cswap cu CX phase cphase id u1 u2 u3""".split()
)
"""The gates ``stdgates.inc`` declares: a file that includes it may not define them."""

QISKIT_STANDARD_DEFINITIONS = """
gate rzx(theta) a, b { h b; cx a, b; rz(theta) b; cx a, b; h b; }
gate ecr a, b { rzx(pi/4) a, b; x a; rzx(-pi/4) a, b; }
gate cs a, b { ctrl @ s a, b; }
gate csdg a, b { ctrl @ sdg a, b; }
gate ccz a, b, c { ctrl(2) @ z a, b, c; }
gate c3sx a, b, c, d { ctrl(3) @ sx a, b, c, d; }
gate r(theta, phi) a { U(theta, phi - pi/2, -phi + pi/2) a; }
gate xx_plus_yy(theta, beta) a, b { rz(beta) a; rxx(theta/2) a, b; ryy(theta/2) a, b;
  rz(-beta) a; }
gate xx_minus_yy(theta, beta) a, b { rz(-beta) b; rxx(theta/2) a, b; ryy(-theta/2) a, b;
  rz(beta) b; }
gate rccx a, b, c { u2(0, pi) c; u1(pi/4) c; cx b, c; u1(-pi/4) c; cx a, c; u1(pi/4) c;
  cx b, c; u1(-pi/4) c; u2(0, pi) c; }
gate rcccx a, b, c, d { u2(0, pi) d; u1(pi/4) d; cx c, d; u1(-pi/4) d; u2(0, pi) d; cx a, d;
  u1(pi/4) d; cx b, d; u1(-pi/4) d; cx a, d; u1(pi/4) d; cx b, d; u1(-pi/4) d; u2(0, pi) d;
  u1(pi/4) d; cx c, d; u1(-pi/4) d; u2(0, pi) d; }
"""
"""Qiskit's standard gates that neither ``stdgates.inc`` nor ``qelib1.inc`` holds, as
Qiskit's standard library defines them (``RZXGate``, ``ECRGate``, ``CSGate``, ``CSdgGate``,
``CCZGate``, ``C3SXGate``, ``RGate``, ``XXPlusYYGate``, ``XXMinusYYGate``, ``RCCXGate``,
``RC3XGate``): a file calls one without a definition where Qiskit's exporter was told it is a
basis gate (``qasm3.dumps(qc, basis_gates=[..., "ecr"])``), and such a call reads as Qiskit's
gate. A file's own definition of the name comes first."""

QISKIT_UNDEFINED_STANDARD_GATES = frozenset(
    re.findall(r"^gate (\w+)", QISKIT_STANDARD_DEFINITIONS, flags=re.MULTILINE)
)
"""The names :data:`QISKIT_STANDARD_DEFINITIONS` defines."""

LANGUAGE_GATES = frozenset({"U", "gphase"})
"""The gates OpenQASM 3 itself defines."""

_RENAMED = {"phase": "p", "cphase": "cp"}
"""``stdgates.inc`` names that the gate table spells otherwise."""

_FUNCTIONS = {"sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp", "ln": "ln", "log": "ln",
              "sqrt": "sqrt", "arcsin": "asin", "arccos": "acos", "arctan": "atan"}  # fmt: skip
"""OpenQASM 3 functions of one real argument, by the names of the expression evaluator."""

_CONSTANTS: dict[str, Node] = {
    "pi": ("pi",), "π": ("pi",), "tau": ("*", ("int", 2), ("pi",)),
    "τ": ("*", ("int", 2), ("pi",)), "euler": ("fn", "exp", ("int", 1)),
    "ℇ": ("fn", "exp", ("int", 1)),
}  # fmt: skip

MAX_UNROLLED_STATEMENTS = 1_000_000
"""Statements ``for`` loops may unroll to in one file: a larger loop is refused, not run."""


class QasmTimingWarning(UserWarning):
    """A ``delay`` or duration in an OpenQASM 3 file: genqsim simulates no timing, so it is
    read as nothing."""


@dataclass
class _Definition:
    """A ``gate`` definition: parameter and qubit names, body, and expansions by values."""

    name: str
    params: list[str]
    qubits: list[str]
    body: list[Any]
    expansions: dict[tuple, tuple[Operation, ...]] = field(default_factory=dict)
    match: TableMatch | None = None
    """Set where the name may stand for a table gate (see :mod:`.recognize`)."""

    calls: CallRecords = field(init=False)
    """What its calls record: a recognised table gate, or one composite per expansion."""
    unread: frozenset[str] = frozenset()
    """The parameters its body never reads: a call's value for one cannot matter."""

    def __post_init__(self) -> None:
        self.calls = CallRecords(self.name, len(self.qubits))
        if is_candidate(self.name):
            self.match = TableMatch(self.name, len(self.params), len(self.qubits))


@dataclass
class _Branch:
    """An ``if``, ``else`` or ``switch``: the items of the first of ``cases`` (``(values,
    items)``) whose values ``clbits`` hold run (a ``while``, ``loop``: its one case's again
    and again while they do)."""

    clbits: tuple[int, ...]
    cases: list[tuple[list[int], list[Any]]]
    loop: bool = False


class _Reader(classical.ScratchBits):
    """One OpenQASM 3 program read statement by statement into operations and branches."""

    def __init__(self, source: str | None) -> None:
        self.source = source
        self.passed_over: set[str] = set()
        """Gates a call of which had an argument passed over (see :meth:`argument`)."""
        self.qregs: dict[str, list[int]] = {}  # name -> its qubits (an alias's in its order)
        self.n_declared_qubits = 0
        self.physical = -1  # the largest $k met
        self.bits: dict[str, list[int]] = {}  # name -> its classical bits (a bit: one)
        self.n_clbits = 0
        self.gates: dict[str, _Definition] = {}
        self.declared = set(LANGUAGE_GATES)
        self.inputs: dict[str, Any] = {}
        self.unrolled = 0
        self.timing_noted = False
        self.depth = 0  # gate definitions being expanded, one inside another
        self.expanded = 0  # operations the top-level calls of defined gates expanded to
        self.statement: Any = None  # the statement being read, for errors
        self.scope = ClassicalScope()  # classical variables, and the bits written so far
        self.scope.on_block_end.append(self.forget)
        self.scope.memory = self
        self.scratch_bits: list[int] = []  # bits the scope keeps variables' values in
        self.outputs: list[int] = []  # the bits of ``output`` declarations
        self.declarers: dict[str, Any] = {}  # name -> the declaration that made it
        self.bit_slots: dict[int, tuple[Any, tuple[int, int | None]]] = {}  # per declaration
        self.loops = 0  # for loops being read, one inside another

    # -- scratch memory (see genqsim.io.classical.ScratchMemory) ---------------------------------
    def store_out(
        self, out: list[Any], clbits: tuple[int, ...], sources: tuple[int, ...], table: list[int]
    ) -> None:
        out.append(new_operation(Store(clbits, table, sources), ()))

    # -- errors ------------------------------------------------------------------------------
    def fail(self, message: str, node: Any = None) -> QasmError:
        """A ``QasmError`` at ``node`` (its statement where the node has no trusty span)."""
        span = getattr(node, "span", None)
        if span is None or type(node).__name__ == "Identifier":
            span = getattr(self.statement, "span", None)
        if span is None:
            return QasmError(message, source=self.source)
        return QasmError(message, span.start_line, span.start_column + 1, self.source)

    # -- statements ----------------------------------------------------------------------------
    def statements(self, nodes: Iterable[Any], env: dict[str, Any], out: list[Any]) -> None:
        for node in nodes:
            outer, self.statement = self.statement, node
            self.read(node, env, out)
            self.statement = outer

    def read(self, node: Any, env: dict[str, Any], out: list[Any]) -> None:
        from openqasm3 import ast

        kind = type(node).__name__
        if isinstance(node, ast.Include):
            if node.filename != "stdgates.inc":
                raise self.fail(f"cannot include {node.filename!r} (only stdgates.inc)", node)
            self.declared |= STDGATES
        elif isinstance(node, ast.QubitDeclaration):
            self.declare_qubits(node, env)
        elif isinstance(node, ast.ClassicalDeclaration):
            self.declare_classical(node, env, out)
        elif isinstance(node, ast.IODeclaration):
            self.declare_io(node)
        elif isinstance(node, ast.ConstantDeclaration):
            env[node.identifier.name] = self.value(node.init_expression, env)
        elif isinstance(node, ast.QuantumGateDefinition):
            self.define(node)
        elif isinstance(node, (ast.QuantumGate, ast.QuantumPhase)):
            out += self.call(node, env)
        elif isinstance(node, ast.QuantumMeasurementStatement):
            out += self.measure(node.measure.qubit, node.target, env)
        elif isinstance(node, ast.QuantumReset):
            out += [new_operation(Reset(), (q,)) for q in self.qubits(node.qubits, env)]
        elif isinstance(node, ast.QuantumBarrier):
            qubits = [q for arg in node.qubits for q in self.qubits(arg, env)]
            out.append(("barrier", qubits))
        elif isinstance(node, ast.DelayInstruction):
            self.note_timing()
            for arg in node.qubits:
                self.qubits(arg, env)  # checked, then nothing runs
        elif isinstance(node, (ast.Box, ast.BranchingStatement, ast.SwitchStatement)):
            classical.read_branches(self, (node, env), (), out)
        elif isinstance(node, ast.WhileLoop):
            self.while_loop(node, env, out)
        elif isinstance(node, (ast.BreakStatement, ast.ContinueStatement)):
            self.jump((node, env))  # outside a loop: refused there
            raise self.fail("break and continue are read inside for loops", node)
        elif isinstance(node, ast.ClassicalAssignment):
            self.assign(node, env, out)
        elif isinstance(node, ast.ForInLoop):
            self.loop(node, env, out)
        elif isinstance(node, ast.AliasStatement):
            self.alias(node, env)
        elif isinstance(node, ast.Pragma):
            pass  # a note to tools, with no meaning for the circuit
        else:
            what = {
                "SubroutineDefinition": "subroutines (def)",
                "ExternDeclaration": "extern declarations", "ReturnStatement": "return",
                "ClassicalAssignment": "classical assignment", "ExpressionStatement":
                "classical expressions", "CalibrationStatement": "calibrations (cal)",
                "CalibrationDefinition": "calibrations (defcal)",
            }.get(kind, kind)  # fmt: skip
            raise self.fail(f"{what} are outside what genqsim reads of OpenQASM 3", node)

    def note_timing(self) -> None:
        if not self.timing_noted:
            self.timing_noted = True
            warnings.warn(
                f"{self.source or 'OpenQASM 3 text'}: delay and durations are ignored "
                "(genqsim simulates no timing)",
                QasmTimingWarning,
                stacklevel=4,
            )

    # -- declarations ----------------------------------------------------------------------------
    def new_name(self, name: str, node: Any) -> bool:
        """Check that ``name`` is free where ``node`` declares it, and note who declared it.
        True where ``node`` itself declared it and it is still in scope: the same statement
        read again (a for loop's next iteration), which declares it afresh."""
        taken = (self.qregs, self.bits, self.inputs, self.scope.variables)
        if any(name in names for names in taken):
            if self.declarers.get(name) is node:
                return True
            raise self.fail(f"{name!r} is declared twice", node)
        self.declarers[name] = node
        return False

    def forget(self, names: set[str]) -> None:
        """The names of a block that ended (OpenQASM 3 scopes a declaration to its block)."""
        for name in names:
            self.bits.pop(name, None)
            self.qregs.pop(name, None)
            self.declarers.pop(name, None)

    def size(self, node: Any, env: dict[str, Any]) -> int | None:
        if node is None:
            return None
        value = self.integer(node, env)
        if value < 1:
            raise self.fail(f"a register size is a positive integer, got {value}", node)
        return value

    def declare_qubits(self, node: Any, env: dict[str, Any]) -> None:
        name = node.qubit.name
        if self.scope.blocks:
            raise self.fail("qubits are declared in the global scope, not inside a block", node)
        self.new_name(name, node)
        if self.physical >= 0:
            raise self.fail("declared qubits and physical qubits ($n) cannot be mixed", node)
        size = 1 if (found := self.size(node.size, env)) is None else found
        self.qregs[name] = list(range(self.n_declared_qubits, self.n_declared_qubits + size))
        self.n_declared_qubits += size

    def declare_classical(self, node: Any, env: dict[str, Any], out: list[Any]) -> None:
        from openqasm3 import ast

        if isinstance(node.type, (ast.StretchType, ast.DurationType)):
            self.note_timing()  # a duration to lay out delays and boxes: no timing here
            return
        if not isinstance(node.type, ast.BitType):
            width = self.classical_width(node.type, env, node)
            again = self.new_name(node.identifier.name, node)
            init = node.init_expression
            value = None if init is None else self.expression(init, env)
            with self.classical_at(node):
                self.scope.declare(node.identifier.name, width, value, again)
            return
        name = node.identifier.name
        self.new_name(name, node)
        kept = self.bit_slots.get(id(node))
        if kept is None:  # the first reading of this declaration: its own classical bits
            size = self.size(node.type.size, env)
            kept = (node, (self.n_clbits, size))
            self.bit_slots[id(node)] = kept
            self.n_clbits += 1 if size is None else size
        offset, size = kept[1]  # read again (a loop, a branch's bodies): the same bits
        self.bits[name] = list(range(offset, offset + (1 if size is None else size)))
        self.scope.declared(name)
        init = node.init_expression
        if isinstance(init, ast.QuantumMeasurement):
            out += self.measure(init.qubit, node.identifier, env)
        elif init is not None:  # ``bit[2] b = "10";``, ``bit b = !c[0];``: a store
            out.append(self.store(self.clbits(node.identifier, env), init, env, node))

    def alias(self, node: Any, env: dict[str, Any]) -> None:
        """``let name = value;``: another name for qubits or for classical bits, in the
        value's order: a register, a bit, its bits at indices, a range or a set, and ``++``
        concatenations of those. Qiskit writes aliases for registers that share bits
        (``qasm3.dumps(qc, allow_aliasing=True)``, which such circuits need)."""
        from openqasm3 import ast

        parts: list[Any] = []
        pending = [node.value]
        while pending:  # ``a ++ b ++ c``, left to right
            part = pending.pop()
            if isinstance(part, ast.Concatenation):
                pending += [part.rhs, part.lhs]
            else:
                parts.append(part)
        target = node.target.name
        qubits: list[int] = []
        clbits: list[int] = []
        for part in parts:
            named = part.collection if isinstance(part, ast.IndexExpression) else part
            name = getattr(named, "name", None)
            if isinstance(name, str) and (name in self.qregs or name.startswith("$")):
                qubits += self.qubits(part, env)
            elif name in self.bits:
                clbits += self.clbits(part, env)
            else:
                raise self.fail(
                    f"let {target}: {_text(part)!r} names no qubits or classical bits (an "
                    "alias is read of registers, their bits and ++ concatenations of them)",
                    node,
                )
        if qubits and clbits:
            raise self.fail(f"let {target}: an alias of qubits and classical bits at once", node)
        named_twice = qubits if qubits else clbits
        if len(set(named_twice)) != len(named_twice):
            raise self.fail(f"let {target}: the alias names one bit or qubit twice", node)
        self.new_name(target, node)
        if qubits:
            self.qregs[target] = qubits
        else:
            self.bits[target] = clbits
        self.scope.declared(target)

    def declare_io(self, node: Any) -> None:
        from openqasm3 import ast

        name = node.identifier.name
        if node.io_identifier is ast.IOKeyword.output:
            if isinstance(node.type, ast.BitType):
                size = self.size(node.type.size, {})
                self.new_name(name, node)
                width = 1 if size is None else size
                self.bits[name] = list(range(self.n_clbits, self.n_clbits + width))
                self.outputs += self.bits[name]
                self.n_clbits += width
                return
            raise self.fail("only bit outputs are read", node)
        if not isinstance(node.type, (ast.FloatType, ast.AngleType)):
            raise self.fail("only float and angle inputs are read (as gate parameters)", node)
        import sympy

        self.new_name(name, node)
        self.inputs[name] = sympy.Symbol(name, real=True)

    def define(self, node: Any) -> None:
        name = node.name.name
        if name in self.declared or name in self.gates:
            where = (
                "is built into OpenQASM 3"
                if name in LANGUAGE_GATES
                else ("is already defined" if name in self.gates else "is declared by stdgates.inc")
            )
            raise self.fail(f"gate {name!r} {where} and cannot be defined again", node)
        qubits = [q.name for q in node.qubits]
        if len(set(qubits)) != len(qubits):
            raise self.fail(f"gate {name!r} repeats a qubit argument", node)
        params = [a.name for a in node.arguments]
        definition = _Definition(name, params, qubits, list(node.body))
        definition.unread = frozenset(params) - _identifiers(node.body)
        self.gates[name] = definition

    # -- qubits and bits -------------------------------------------------------------------------
    def qubits(self, node: Any, env: dict[str, Any], local: dict[str, int] | None = None
               ) -> list[int]:  # fmt: skip
        """The qubits an argument names: a register, one of its qubits, a physical qubit, or
        (in a gate body, ``local``) a qubit argument of the gate."""
        from openqasm3 import ast

        if isinstance(node, ast.Identifier):
            name = node.name
            if local is not None:
                if name not in local:
                    raise self.fail(f"{name!r} is not a qubit argument of this gate", node)
                return [local[name]]
            if name.startswith("$"):
                if self.qregs:
                    raise self.fail("declared qubits and physical qubits ($n) cannot be mixed")
                index = int(name[1:])
                self.physical = max(self.physical, index)
                return [index]
            if name not in self.qregs:
                raise self.fail(f"unknown qubit register {name!r}", node)
            return list(self.qregs[name])
        if isinstance(node, (ast.IndexedIdentifier, ast.IndexExpression)) and local is None:
            return self.indexed(node, self.qregs, "qubit", env)
        raise self.fail("a qubit argument is a register, an indexed qubit or $n", node)

    def indexed(self, node: Any, registers: dict[str, list[int]], kind: str,
                env: dict[str, Any]) -> list[int]:  # fmt: skip
        """The qubits or classical bits of ``registers`` an indexed register names (``q[1]``,
        ``c[0:2]``, ``c[{0, 2}]``), in that order."""
        from openqasm3 import ast

        name_node = node.name if isinstance(node, ast.IndexedIdentifier) else node.collection
        indices = node.indices if isinstance(node, ast.IndexedIdentifier) else [node.index]
        name = getattr(name_node, "name", None)
        if name not in registers:
            raise self.fail(f"unknown {kind} register {name!r}", node)
        found = registers[name]
        return [found[i] for i in self.indices(indices, len(found), name, env)]

    def indices(self, indices: Sequence[Any], size: int, name: str, env: dict[str, Any]
                ) -> list[int]:  # fmt: skip
        """The positions ``name[...]`` selects: one index, a set ``{0, 2}`` or a range."""
        from openqasm3 import ast

        if len(indices) != 1:
            raise self.fail(f"{name} takes one index")
        index = indices[0]
        if isinstance(index, ast.DiscreteSet):
            items = [self.integer(v, env) for v in index.values]
        elif (
            isinstance(index, list)
            and len(index) == 1
            and isinstance(index[0], ast.RangeDefinition)
        ):
            items = self.range(index[0], env, size)
        elif isinstance(index, list) and len(index) == 1:
            items = [self.integer(index[0], env)]
        else:
            raise self.fail(f"unsupported index of {name}")
        out = []
        for i in items:
            j = i + size if i < 0 else i
            if not 0 <= j < size:
                raise self.fail(f"index {i} out of range for {name!r} of size {size}")
            out.append(j)
        return out

    def range(self, node: Any, env: dict[str, Any], size: int | None = None) -> list[int]:
        """The integers of ``[start:step:end]`` (``end`` included, as OpenQASM 3 reads it)."""
        start = 0 if node.start is None else self.integer(node.start, env)
        step = 1 if node.step is None else self.integer(node.step, env)
        if node.end is None:
            if size is None:
                raise self.fail("a range needs its end here")
            end = size - 1
        else:
            end = self.integer(node.end, env)
        if step == 0:
            raise self.fail("a range's step cannot be 0")
        return list(range(start, end + (1 if step > 0 else -1), step))

    def clbits(self, node: Any, env: dict[str, Any]) -> list[int]:
        """The classical bits a bit variable, register or indexed register names."""
        from openqasm3 import ast

        if isinstance(node, ast.Identifier):
            if node.name not in self.bits:
                raise self.fail(f"unknown classical bit or register {node.name!r}", node)
            return list(self.bits[node.name])
        if isinstance(node, (ast.IndexedIdentifier, ast.IndexExpression)):
            return self.indexed(node, self.bits, "classical", env)
        raise self.fail("expected a classical bit or register", node)

    def measure(self, qubit: Any, target: Any, env: dict[str, Any]) -> list[Any]:
        qubits = self.qubits(qubit, env)
        if target is None:  # ``measure q;``: outcomes kept in bits of their own
            clbits = list(range(self.n_clbits, self.n_clbits + len(qubits)))
            self.n_clbits += len(qubits)
        else:
            clbits = self.clbits(target, env)
        if len(clbits) != len(qubits):
            raise self.fail(
                f"measure maps {len(qubits)} qubit(s) onto {len(clbits)} classical bit(s)"
            )
        self.scope.measured(clbits)
        return [new_operation(Measure(c), (q,)) for q, c in zip(qubits, clbits)]

    # -- expressions -----------------------------------------------------------------------------
    def tree(self, node: Any, names: Sequence[str] = ()) -> Node:
        """``node`` as an expression tree of :mod:`.parser` (``names``: a gate's parameters)."""
        from openqasm3 import ast

        if isinstance(node, ast.IntegerLiteral):
            return ("int", node.value)
        if isinstance(node, ast.FloatLiteral):
            return ("real", node.value)
        if isinstance(node, ast.BooleanLiteral):
            return ("int", int(node.value))
        if isinstance(node, ast.Identifier):
            if node.name in _CONSTANTS:
                return _CONSTANTS[node.name]
            return ("param", node.name)
        if isinstance(node, ast.UnaryExpression) and node.op.name == "-":
            return ("neg", self.tree(node.expression, names))
        if isinstance(node, ast.BinaryExpression) and node.op.name in ("+", "-", "*", "/", "**"):
            op = "^" if node.op.name == "**" else node.op.name
            return (op, self.tree(node.lhs, names), self.tree(node.rhs, names))
        if isinstance(node, ast.FunctionCall) and node.name.name in _FUNCTIONS:
            if len(node.arguments) != 1:
                raise self.fail(f"{node.name.name} takes one argument", node)
            return ("fn", _FUNCTIONS[node.name.name], self.tree(node.arguments[0], names))
        if isinstance(node, ast.Cast):
            return self.tree(node.argument, names)
        raise self.fail(f"the expression {_text(node)!r} is outside what genqsim reads", node)

    def value(self, node: Any, env: dict[str, Any]) -> Any:
        """The value of a parameter expression: exact (SymPy) where the text is, inputs as
        symbols, loop variables and constants substituted."""
        tree = self.tree(node)
        scope = {**self.inputs, **env}
        for leaf in _params(tree):
            if leaf not in scope:
                scope[leaf] = self.variable_number(leaf, node)
        try:
            return _value(tree, {k: scope[k] for k in _params(tree)}, True)
        except ZeroDivisionError:
            raise self.fail("division by zero", node) from None
        except (GenqsimError, ArithmeticError, ValueError, TypeError) as exc:
            raise self.fail(f"cannot evaluate {_text(node)!r}: {exc}", node) from None

    def variable_number(self, name: str, node: Any) -> int:
        """The number a classical variable holds where a parameter reads it (``int k = 2;
        rx(k * 0.1) q;``): only a value known as the program is read, not one of measured
        bits (a gate's angle is fixed before any shot runs)."""
        if name not in self.scope.variables:
            raise self.fail(f"unknown identifier {name!r} in expression", node)
        with self.classical_at(node):
            value = self.scope.read(name)
            assert value is not None
            if classical.has_unknown(value):  # a while loop's: unrolled where it can be
                return classical.evaluate(value, {})
        if classical.bits_read(value):
            raise self.fail(
                f"the classical variable {name!r} holds a value of measured bits, and a gate "
                "parameter is a number fixed before any shot runs", node,
            )  # fmt: skip
        return classical.evaluate(value, {})

    def integer(self, node: Any, env: dict[str, Any]) -> int:
        value = self.value(node, env)
        try:
            as_int = int(value)
        except (TypeError, ValueError):
            raise self.fail(f"expected an integer, got {_text(node)!r}", node) from None
        if as_int != value:
            raise self.fail(f"expected an integer, got {_text(node)!r}", node)
        return as_int

    # -- gates -----------------------------------------------------------------------------------
    def call(self, node: Any, env: dict[str, Any], local: dict[str, int] | None = None
             ) -> list[Any]:  # fmt: skip
        """The operations of a gate call or ``gphase`` under its modifiers; in a gate body,
        ``local`` maps the gate's qubit arguments to its own qubits."""
        from openqasm3 import ast

        qubit_lists = [self.qubits(q, env, local) for q in node.qubits]
        controls: list[tuple[int, int]] = []  # (how many, control value) per ctrl modifier
        for modifier in node.modifiers:
            if modifier.modifier.name in ("ctrl", "negctrl"):
                count = 1 if modifier.argument is None else self.integer(modifier.argument, env)
                if count < 1:
                    raise self.fail("ctrl @ takes at least one control", node)
                controls.append((count, 1 if modifier.modifier.name == "ctrl" else 0))
        n_controls = sum(k for k, _ in controls)
        if isinstance(node, ast.QuantumPhase):
            name, args = "gphase", [node.argument]
        else:
            name, args = node.name.name, node.arguments
        unread = () if isinstance(node, ast.QuantumPhase) else self.unread_positions(name)
        values = [self.argument(a, env, name) if i in unread else self.value(a, env)
                  for i, a in enumerate(args)]  # fmt: skip
        calls = _broadcast(qubit_lists, self, node)
        out: list[Any] = []
        for qubits in calls:
            if len(set(qubits)) != len(qubits):
                raise self.fail(f"a qubit is used twice in one call of {name!r}", node)
            gate_qubits = qubits[n_controls:]
            ops = self.gate(name, values, gate_qubits, node)
            # modifiers apply from the innermost (rightmost) out; each ctrl takes its qubits
            # from the front of the call's qubit list
            position = n_controls
            for modifier in reversed(node.modifiers):
                kind = modifier.modifier.name
                if kind == "inv":
                    ops = _inverse(ops, self, node)
                elif kind == "pow":
                    ops = self.power(ops, self.value(modifier.argument, env), node)
                else:
                    count, bit = controls.pop()
                    position -= count
                    ops = _controlled(ops, qubits[position : position + count], bit)
            out += ops
        return out

    def unread_positions(self, name: str) -> set[int]:
        """The positions of the parameters a defined gate's body never reads."""
        definition = self.gates.get(name)
        if definition is None:
            return set()
        return {i for i, p in enumerate(definition.params) if p in definition.unread}

    def argument(self, node: Any, env: dict[str, Any], gate: str) -> Any:
        """The value of an argument for a parameter ``gate`` never reads: 0, with a warning,
        where it is no expression genqsim evaluates (Qiskit writes labels such as ``XYZ``
        there; see :meth:`.parser.Parser.call_expressions`)."""
        try:
            return self.value(node, env)
        except QasmError as exc:
            if gate not in self.passed_over:
                self.passed_over.add(gate)
                warn_passed_over(self.source, exc.line or 0, exc.column or 0, _text(node), gate)
            return 0

    def gate(self, name: str, values: list[Any], qubits: Sequence[int], node: Any) -> list[Any]:
        """The operations of gate ``name(values)`` on ``qubits`` (no modifiers)."""
        if name == "gphase":
            if len(values) != 1 or qubits:
                raise self.fail("gphase takes one angle and no qubits", node)
            return [("gphase", values[0])]
        definition = self.gates.get(name)
        if definition is not None:
            done = self.expansion(definition, values, node)
            if self.depth == 0:  # a call in the program: one composite, or the table gate
                self.expanded += len(done)
                done = definition.calls.instruction(done, values)
                if self.expanded > MAX_EXPANDED_OPERATIONS:
                    raise self.fail(
                        f"the calls of defined gates expand to more than "
                        f"{MAX_EXPANDED_OPERATIONS:,} operations in all", node,
                    )  # fmt: skip
            return [op.remapped(qubits) if isinstance(op, Operation) else op
                    for op in done]  # fmt: skip
        table = BUILTIN.get(_RENAMED.get(name, name))
        if table is None:
            if name in QISKIT_UNDEFINED_STANDARD_GATES:  # Qiskit's, left undefined
                self.define(_qiskit_standard_definitions()[name])
                return self.gate(name, values, qubits, node)
            raise self.fail(f"unknown gate {name!r}", node)
        n_params, n_qubits, apply = table
        if len(values) != n_params:
            raise self.fail(f"gate {name!r} takes {n_params} parameter(s), got {len(values)}", node)
        if len(qubits) != n_qubits:
            raise self.fail(f"gate {name!r} acts on {n_qubits} qubit(s), got {len(qubits)}", node)
        ops: list[Operation] = []
        try:
            apply(ops, values, qubits, True)
        except (GenqsimError, ArithmeticError, ValueError, TypeError) as exc:
            raise self.fail(f"gate {name!r}: {exc}", node) from None
        return list(ops)

    def expansion(self, g: _Definition, values: list[Any], node: Any) -> tuple[Any, ...]:
        """Definition ``g`` called with ``values`` on its own qubits ``0, 1, ...``: its body
        once per values (a table gate where it equals one)."""
        if len(values) != len(g.params):
            raise self.fail(
                f"gate {g.name!r} takes {len(g.params)} parameter(s), got {len(values)}", node
            )
        try:
            key: tuple | None = expansion_key(True, values)
            done = g.expansions.get(key)  # type: ignore[arg-type]
        except TypeError:
            key, done = None, None
        if done is not None:
            return done
        done = (
            None
            if g.match is None
            else g.match.operations(values, lambda v: self.expand(g, v, node))
        )
        if done is None:
            done = self.expand(g, values, node)
            if g.match is not None and all(isinstance(op, Operation) for op in done):
                table = table_operations(g.name, values, len(g.qubits), done)
                if table is not None:
                    done = table
                    g.calls.recognised(done)
        else:  # recognised at every value
            g.calls.recognised(done)
        if key is not None:
            g.expansions[key] = done
        return done

    def expand(self, g: _Definition, values: list[Any], node: Any) -> tuple[Any, ...]:
        """The body of ``g`` called with ``values``, on the gate's own qubits."""
        if self.depth > 64:
            raise self.fail("gate definitions nest too deeply (recursive gate?)", node)
        self.depth += 1
        env = dict(zip(g.params, values))
        local = {q: i for i, q in enumerate(g.qubits)}
        ops: list[Any] = []
        outer = self.statement
        try:
            for statement in g.body:
                self.statement = statement
                ops += self.body_statement(statement, env, local)
                if len(ops) > MAX_GATE_OPERATIONS:
                    raise self.fail(too_large(g.name), statement)
        finally:
            self.statement = outer
            self.depth -= 1
        return tuple(ops)

    def body_statement(self, node: Any, env: dict[str, Any], local: dict[str, int]
                       ) -> list[Any]:  # fmt: skip
        from openqasm3 import ast

        if isinstance(node, (ast.QuantumGate, ast.QuantumPhase)):
            return self.call(node, env, local)
        if isinstance(node, ast.QuantumBarrier):
            qubits = [q for arg in node.qubits for q in self.qubits(arg, env, local)]
            return [barrier_operation(qubits or local.values())]
        if isinstance(node, ast.DelayInstruction):
            self.note_timing()
            return []
        raise self.fail(f"{type(node).__name__} is not allowed in a gate body", node)

    def power(self, ops: list[Any], exponent: Any, node: Any) -> list[Any]:
        """``pow(k) @``: integer ``k`` repeats (a negative one inverts); another real ``k``
        takes the principal power of the gate's unitary (:meth:`Circuit.power`)."""
        try:
            k = float(exponent)
        except TypeError:
            raise self.fail("pow @ takes a number, not a symbol", node) from None
        if k == int(k):
            base = ops if k >= 0 else _inverse(ops, self, node)
            return list(base) * abs(int(k))
        qubits = sorted({q for op in ops if isinstance(op, Operation) for q in op.qubits})
        if not qubits or any(not isinstance(op, Operation) for op in ops):
            raise self.fail("pow @ with a fractional exponent needs a gate on qubits", node)
        position = [0] * (qubits[-1] + 1)
        for i, q in enumerate(qubits):
            position[q] = i
        local = Circuit(len(qubits), [op.remapped(position) for op in ops])
        try:
            powered = local.power(k)
        except GenqsimError as exc:
            raise self.fail(f"pow @: {exc}", node) from None
        return [op.remapped(qubits) for op in powered.operations]

    # -- classical values and control flow -------------------------------------------------------
    @contextmanager
    def classical_at(self, node: Any) -> Iterator[None]:
        """Refusals of :mod:`genqsim.io.classical` as ``QasmError`` at ``node``."""
        try:
            yield
        except ClassicalError as exc:
            if isinstance(exc, classical.LoopVariableError) and self.scope.while_bodies:
                raise  # the while loop being read unrolls instead
            raise self.fail(str(exc), node) from None

    def expression(self, node: Any, env: dict[str, Any]) -> classical.Expression:
        """``node`` as a classical expression of bits (:mod:`genqsim.io.classical`): bits and
        registers, classical variables, loop variables and constants, integers and booleans
        under ``!``, ``~``, ``-``, casts and the operators of ``classical.BINARY``."""
        from openqasm3 import ast

        if isinstance(node, ast.Identifier) and node.name not in self.bits:
            with self.classical_at(node):
                value = self.scope.read(node.name)
            if value is not None:
                return value
            known = env.get(node.name)
            if known is not None and _is_integral(known):
                return classical.const(int(known))
            raise self.fail(f"unknown classical value {node.name!r} in a condition", node)
        if isinstance(node, ast.IndexExpression) and not self.names_bits(node, env):
            return self.bit_of(node, env)
        if _is_bits(node):
            return classical.bits(self.clbits(node, env))
        if isinstance(node, (ast.IntegerLiteral, ast.BooleanLiteral)):
            return classical.const(node.value)
        if isinstance(node, ast.FloatLiteral):
            return classical.const(float(node.value))
        if isinstance(node, ast.BitstringLiteral):  # ``"101"``: its value, the last bit lowest
            return classical.const(node.value)
        if isinstance(node, ast.UnaryExpression):
            inner = self.expression(node.expression, env)
            if node.op.name == "~":
                return ("~", inner, classical.width_of(inner))
            return ("!", inner) if node.op.name == "!" else ("neg", inner)
        if isinstance(node, ast.BinaryExpression) and node.op.name in classical.BINARY:
            lhs, rhs = self.expression(node.lhs, env), self.expression(node.rhs, env)
            return classical.binary(node.op.name, lhs, rhs)
        if isinstance(node, ast.Cast):
            return classical.cast(self.classical_width(node.type, env, node),
                                  self.expression(node.argument, env))  # fmt: skip
        raise self.fail(
            f"{_text(node)!r} in a classical expression is outside what genqsim reads (bits, "
            "registers, bool, int and float variables under !, ~, ^, &, |, &&, ||, "
            "comparisons and arithmetic, integers and floats)",
            node,
        )

    def names_bits(self, node: Any, env: dict[str, Any]) -> bool:
        """Whether an index expression names bits of a register at fixed places (``c[1]``,
        ``c[0:2]``), rather than a bit of a value (``(c << 1)[2]``, ``v[1]`` of a ``uint``
        variable ``v``, ``c[k]`` at an index the measured bits give)."""
        from openqasm3 import ast

        collection = node.collection
        if not (isinstance(collection, ast.Identifier) and collection.name in self.bits):
            return False
        if isinstance(node.index, ast.DiscreteSet) or len(node.index) != 1:
            return True
        index = node.index[0]
        if isinstance(index, ast.RangeDefinition):
            return True
        try:
            self.integer(index, env)
        except QasmError:
            return False
        return True

    def bit_of(self, node: Any, env: dict[str, Any]) -> classical.Expression:
        """Bit ``i`` of a value (see :meth:`names_bits`): ``(value >> i) & 1``."""
        from openqasm3 import ast

        index = node.index
        if (
            isinstance(index, ast.DiscreteSet)
            or len(index) != 1
            or isinstance(index[0], ast.RangeDefinition)
        ):
            raise self.fail(
                f"{_text(node)!r}: one bit of a classical value is read at a time (a range "
                "or set of bits is read of a bit register only)", node,
            )  # fmt: skip
        value = self.expression(node.collection, env)
        shifted = (">>", value, self.expression(index[0], env))
        return ("&", shifted, classical.const(1))

    def classical_width(self, kind: Any, env: dict[str, Any], node: Any) -> classical.Width:
        """The width of a classical type as :func:`genqsim.io.classical.cast` takes it:
        ``bool`` 0, ``uint[w]`` and ``bit[w]`` ``w``, ``int[w]`` ``-w`` (64 bits unsized),
        ``float`` (any size: a Python float) :data:`~genqsim.io.classical.FLOAT`."""
        from openqasm3 import ast

        if isinstance(kind, ast.BoolType):
            return 0
        if isinstance(kind, ast.FloatType):
            return classical.FLOAT
        if isinstance(kind, (ast.IntType, ast.UintType, ast.BitType)):
            size = self.size(kind.size, env)
            width = (1 if isinstance(kind, ast.BitType) else 64) if size is None else size
            return -width if isinstance(kind, ast.IntType) else width
        raise self.fail(
            f"classical variables of type {type(kind).__name__} are outside what genqsim "
            "reads (bit, bit[n], bool, int, uint and float are read)", node,
        )  # fmt: skip

    def assign(self, node: Any, env: dict[str, Any], out: list[Any]) -> None:
        """``name = value;`` (or ``name op= value;``) for a classical variable, or for bits
        (``c[1] = !c[0];``, ``c = c ^ 5;``): a classical store."""
        from openqasm3 import ast

        target = node.lvalue
        value: Any = node.rvalue
        if node.op.name != "=":  # ``a += 1``: the operator before the '='
            operation = node.op.name[:-1]
            if operation not in classical.BINARY:
                raise self.fail(f"the assignment operator {node.op.name!r} is not read", node)
            value = ast.BinaryExpression(ast.BinaryOperator[operation], target, value)
        if _is_bits(target) and not (
            isinstance(target, ast.Identifier) and target.name not in self.bits
        ):
            out.append(self.store(self.clbits(target, env), value, env, node))
            return
        if not isinstance(target, ast.Identifier):
            raise self.fail(
                f"assignment to {_text(target)!r}: bits, registers and classical variables "
                "(bool, int, uint) are assigned here", node,
            )  # fmt: skip
        found = self.expression(value, env)
        with self.classical_at(node):
            self.scope.assign(target.name, found)

    def store(self, clbits: list[int], value: Any, env: dict[str, Any], node: Any) -> Operation:
        """The classical store of the expression ``value`` into the bits ``clbits``; from
        here on they hold it (values read from them before are old)."""
        found = self.expression(value, env)
        with self.classical_at(node):
            sources, table = classical.stored_table(found, len(clbits))
        self.scope.measured(clbits)
        return new_operation(Store(clbits, table, sources), ())

    def split(self, entry: tuple[Any, dict[str, Any]]) -> tuple[tuple[int, ...], list[Any]]:
        """``(bits, [(entries, values, guard), ...])`` of an ``if``/``else``, a ``switch`` or
        a ``box`` (see :class:`genqsim.io.classical.JumpReader`)."""
        from openqasm3 import ast

        node, env = entry
        if isinstance(node, ast.Box):
            if node.duration is not None:
                self.note_timing()
            return (), [([(s, env) for s in node.body], [0], classical.const(1))]
        if isinstance(node, ast.BranchingStatement):
            condition = self.expression(node.condition, env)
            with self.classical_at(node):
                bits, values = classical.values_where(condition)
                # the else, or the statements after an if that jumps, run on the other values
                otherwise = node.else_block or self.jumps(entry)
                others = classical.complement(bits, values) if otherwise else []
            blocks = [(node.if_block, values, condition),
                      (node.else_block or [], others, ("!", condition))]  # fmt: skip
        else:  # ``switch (target) { case 0, 1 { ... } default { ... } }``
            target = self.expression(node.target, env)
            cases: list[tuple[list[Any], Any]] = [
                ([self.integer(v, env) for v in values], block.statements)
                for values, block in node.cases
            ]
            if node.default is not None:
                cases.append(([classical.DEFAULT], node.default.statements))
            with self.classical_at(node):
                bits, chosen = classical.switch_cases(target, cases)
                # what follows a jump runs where no case matched too
                others = classical.unmatched(bits, chosen) if self.jumps(entry) else []
            blocks = [(block, values, classical.one_of(bits, values)) for block, values in chosen]
            if others:
                blocks.append(([], others, classical.one_of(bits, others)))
        return bits, [([(s, env) for s in block], values, guard) for block, values, guard in blocks]

    def branch_out(
        self,
        bits: tuple[int, ...],
        bodies: list[tuple[list[Any], list[int]]],
        entry: tuple[Any, dict[str, Any]],
        out: list[Any],
    ) -> None:
        """The bodies read, as the cases of a switch on ``bits`` (without bits: in place)."""
        if bits:
            out.append(_Branch(bits, [(values, body) for body, values in bodies]))
            return
        for body, values in bodies:  # a block, or a condition without bits: decided now
            out += body if values else []

    def jump(self, entry: tuple[Any, dict[str, Any]]) -> str | None:
        kind = type(entry[0]).__name__
        if kind not in ("BreakStatement", "ContinueStatement"):
            return None
        if not self.loops:
            raise self.fail(f"{kind[:-9].lower()} outside a loop", entry[0])
        return "break" if kind == "BreakStatement" else "continue"

    def jumps(self, entry: tuple[Any, dict[str, Any]]) -> frozenset[str]:
        return _jumps(entry[0]) if self.loops else frozenset()

    def plain(self, entry: tuple[Any, dict[str, Any]], out: list[Any]) -> None:
        node, env = entry
        outer, self.statement = self.statement, node
        self.unrolled += 1
        if self.unrolled > MAX_UNROLLED_STATEMENTS:
            raise self.fail(f"loops unroll to more than {MAX_UNROLLED_STATEMENTS} statements", node)
        self.read(node, env, out)
        self.statement = outer

    def new_body(self) -> list[Any]:
        return []

    def while_loop(self, node: Any, env: dict[str, Any], out: list[Any]) -> None:
        """``while (condition) { ... }`` as one while loop on the bits the condition reads
        (the body runs shot by shot; see :class:`~genqsim.circuit.conditional.WhileLoop`);
        ``break`` and ``continue`` in its body are its own (see
        :func:`~genqsim.io.classical.read_while_loop`)."""
        loops, self.loops = self.loops, 1  # its body: one loop's, not an outer for's

        def loop_out(
            bits: tuple[int, ...], values: list[int], block: list[Any], target: list[Any]
        ) -> None:
            target.append(_Branch(bits, [(values, block)], loop=True))

        try:
            with self.classical_at(node):
                classical.read_while_loop(
                    self,
                    lambda: self.expression(node.while_condition, env),
                    [(statement, env) for statement in node.block],
                    loop_out,
                    out,
                )
        finally:
            self.loops = loops

    def loop(self, node: Any, env: dict[str, Any], out: list[Any]) -> None:
        """A ``for`` loop, unrolled: ``break`` and ``continue`` (under conditions on bits)
        leave the statements after them to the branches where they are not taken."""
        from openqasm3 import ast

        domain = node.set_declaration
        if isinstance(domain, ast.RangeDefinition):
            items: list[Any] = self.range(domain, env)
        elif isinstance(domain, ast.DiscreteSet):
            items = [self.value(v, env) for v in domain.values]
        else:
            raise self.fail("a for loop runs over a range [a:b] or a set {a, b}", node)
        if len(items) * max(1, len(node.block)) + self.unrolled > MAX_UNROLLED_STATEMENTS:
            raise self.fail(
                f"for loops unroll to more than {MAX_UNROLLED_STATEMENTS} statements", node
            )
        name = node.identifier.name
        entries: list[Any] = []
        for item in items:
            scope = {**env, name: item}
            entries += [(s, scope) for s in node.block]
            entries.append(classical.NEXT_ITERATION)
        self.loops += 1
        try:
            with self.scope.block():  # each iteration declares the body's names afresh
                classical.read_entries(self, entries, out)
        finally:
            self.loops -= 1

    # -- the circuit -----------------------------------------------------------------------------
    def circuit(self, items: list[Any]) -> Circuit:
        n_qubits = self.n_declared_qubits + self.physical + 1
        c = Circuit(n_qubits, n_clbits=self.n_clbits)
        _emit(c, items, self)
        if self.outputs:  # a program that declares outputs reports only those
            c.mark_scratch(b for b in range(c.n_clbits) if b not in set(self.outputs))
        return c.mark_scratch(self.scratch_bits)


def _emit(c: Circuit, items: list[Any], reader: _Reader) -> None:
    for item in items:
        if isinstance(item, Operation):
            c._append_op(item)
        elif isinstance(item, _Branch):
            cases = []
            for values, items_of_case in item.cases:
                body = Circuit(c.n_qubits, n_clbits=c.n_clbits)
                _emit(body, items_of_case, reader)
                cases.append((values, body))
            if not item.loop:
                c.switch_(item.clbits, cases)
            elif any(op.kind is not GateKind.BARRIER for op in cases[0][1].operations):
                c.while_(item.clbits, *cases[0])
        elif item[0] == "barrier":
            c._append_op(barrier_operation(item[1] or range(c.n_qubits)))
        elif item[0] == "gphase":  # exp(i phi) = exp(-i (-2 phi) I / 2), on any qubit
            if c.n_qubits:
                c._append_op(new_operation(PauliRotation("I", -2 * item[1]), (0,)))


_BLOCKS = ("BranchingStatement", "SwitchStatement", "Box")


def _jumps(node: Any) -> frozenset[str]:
    """The jumps ``node`` is or holds: ``"break"``, ``"continue"`` (a branch or box with
    them inside; a loop inside it has its own)."""
    kind = type(node).__name__
    if kind in ("BreakStatement", "ContinueStatement"):
        return frozenset({"break" if kind == "BreakStatement" else "continue"})
    if kind not in _BLOCKS:
        return frozenset()
    if kind == "BranchingStatement":
        inner = [*node.if_block, *(node.else_block or [])]
    elif kind == "SwitchStatement":
        inner = [s for _, block in node.cases for s in block.statements]
        inner += node.default.statements if node.default is not None else []
    else:
        inner = node.body
    return frozenset().union(*(_jumps(s) for s in inner))


def _is_integral(value: Any) -> bool:
    """Whether a loop variable or constant is an integer (a Python or SymPy one)."""
    try:
        return int(value) == value and not isinstance(value, bool)
    except (TypeError, ValueError):
        return False


def _is_bits(node: Any) -> bool:
    """Whether ``node`` names classical bits: a bit or register, or an indexed register."""
    return type(node).__name__ in ("Identifier", "IndexExpression", "IndexedIdentifier")


def _operations(items: list[Any]) -> Iterable[Operation]:
    for item in items:
        if isinstance(item, Operation):
            yield item
        elif isinstance(item, _Branch):
            for _, body in item.cases:
                yield from _operations(body)


def _inverse(ops: Sequence[Any], reader: _Reader, node: Any) -> list[Any]:
    """``inv @``: the operations in reverse order, each inverted (a global phase negated)."""
    out: list[Any] = []
    for op in reversed(ops):
        if isinstance(op, tuple):
            if op[0] == "gphase":
                out.append(("gphase", -op[1]))
            else:
                out.append(op)
            continue
        if op.gate.name == "barrier":
            out.append(op)
            continue
        try:
            inverse = op.gate.inverse()
        except (GenqsimError, NotImplementedError):
            raise reader.fail(f"inv @: {op.gate.name} has no inverse", node) from None
        out.append(new_operation(inverse, op.targets, op.controls, op.control_values))
    return out


def _controlled(ops: Sequence[Any], controls: Sequence[int], bit: int) -> list[Any]:
    """``ops`` under the ``controls`` (each active on ``bit``): a global phase becomes a
    phase gate on the last control, under the others."""
    out: list[Any] = []
    for op in ops:
        if isinstance(op, tuple):
            if op[0] != "gphase":
                continue  # a barrier under control: nothing to run
            *rest, last = controls
            phase = new_operation(NamedGate("p", op[1]), (last,), tuple(rest), (bit,) * len(rest))
            flip = [] if bit else [new_operation(NamedGate("x"), (last,))]
            out += [*flip, phase, *flip]
            continue
        if op.gate.name == "barrier":
            continue
        out.append(
            new_operation(
                op.gate,
                op.targets,
                tuple(controls) + op.controls,
                (bit,) * len(controls) + op.control_values,
            )
        )
    return out


def _broadcast(lists: list[list[int]], reader: _Reader, node: Any) -> list[list[int]]:
    """Qubit tuples of a call: registers iterate together (all of one size)."""
    sizes = {len(x) for x in lists if len(x) != 1}
    if len(sizes) > 1:
        raise reader.fail("registers of different sizes cannot be broadcast together", node)
    count = sizes.pop() if sizes else 1
    return [[x[i] if len(x) > 1 else x[0] for x in lists] for i in range(count)]


def _identifiers(node: Any) -> set[str]:
    """The names of every identifier in ``node``, a reference-parser tree or a list of
    them."""
    if isinstance(node, list):
        return set().union(*map(_identifiers, node)) if node else set()
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return set()
    tree: Any = node  # a node of the reference parser's tree
    names = {tree.name} if type(tree).__name__ == "Identifier" else set()
    for f in dataclasses.fields(node):
        if f.name != "span":
            names |= _identifiers(getattr(node, f.name))
    return names


def _params(tree: Node) -> list[str]:
    if tree[0] == "param":
        return [tree[1]]
    return [name for child in tree[1:] if isinstance(child, tuple) for name in _params(child)]


def _text(node: Any) -> str:
    try:
        import openqasm3

        return openqasm3.dumps(node)
    except Exception:  # the printer does not print every node alone
        return type(node).__name__


@functools.cache
def _qiskit_standard_definitions() -> dict[str, Any]:
    """The gate definitions of :data:`QISKIT_STANDARD_DEFINITIONS`, parsed once, by name."""
    import openqasm3

    program = _parsed(openqasm3, f'OPENQASM 3.0;\ninclude "stdgates.inc";\n'
                                 f"{QISKIT_STANDARD_DEFINITIONS}")  # fmt: skip
    return {node.name.name: node for node in program.statements[1:]}


def _parsed(openqasm3: Any, text: str) -> Any:
    """The reference parser's tree of ``text``; what its error listener prints is dropped
    (its error is raised, and reworded by :func:`_syntax_error`)."""
    with contextlib.redirect_stderr(io.StringIO()):
        return openqasm3.parse(text)


_GATE_DEFINITION = re.compile(r"\bgate\s+(\w+)\s*\(([^)]*)\)[^{]*\{([^}]*)\}")


_DRAFT_CASE = re.compile(r"((?:\bcase\b[^:{};]*:\s*)+|\bdefault\s*:\s*)\{")


def _final_switch_syntax(text: str) -> str:
    """``text`` with ``switch`` blocks in the draft syntax Qiskit writes with
    ``ExperimentalFeatures.SWITCH_CASE_V1`` (``case 0: { ... } break;``, several values as
    ``case 1: case 2: {``, ``default: {``) rewritten as the language has them (``case 0 {
    ... }``, ``case 1, 2 {``), switches inside cases too; lines keep their places."""
    out, at = [], 0
    for match in _DRAFT_CASE.finditer(text):
        if match.start() < at:
            continue
        close = _closing_brace(text, match.end())
        if close is None:
            return text  # unbalanced: left for the reference parser to report
        after = re.match(r"\s*break\s*;", text[close + 1 :])
        end = close + 1 + (after.end() if after else 0)
        body = _final_switch_syntax(text[match.end() : close + 1])  # switches inside it
        tail = after.group().replace("break", "     ").replace(";", " ") if after else ""
        values = re.findall(r"\bcase\b([^:{};]*):", match[1])
        label = "case " + ", ".join(v.strip() for v in values) if values else "default"
        lines = "\n" * match[1].count("\n")  # labels on several lines: one, lines kept
        out += [text[at : match.start()], f"{label} {{{lines}", body, tail]
        at = end
    return "".join(out) + text[at:]


_BRACED_ALIAS = re.compile(r"(\blet\s+\w+\s*=\s*)\{([^{};]*)\}(\s*;)")


def _concatenated_aliases(text: str) -> str:
    """``text`` with each alias written as Qiskit writes it, ``let c = {_bit0, _bit1};``
    (braces, which the grammar has no rule for there), written as the language has it,
    ``let c =  _bit0++ _bit1 ;``: one for one in length where items are separated by
    ``", "``, so lines and columns keep their places."""
    return _BRACED_ALIAS.sub(
        lambda m: f"{m[1]} {m[2].replace(', ', '++').replace(',', '++')} {m[3]}", text
    )


_NO_QUBITS = "_genqsim_no_qubits"
"""The qubit name :func:`_with_zero_qubit_gates` writes where a gate has none."""

_ZERO_QUBIT_DEFINITION = re.compile(r"\bgate\s+(\w+)\s*(?:\([^)]*\))?\s*(?=\{)")


def _with_zero_qubit_gates(text: str) -> tuple[str, dict[int, list[tuple[int, int]]]]:
    """``text`` with each ``gate`` that acts on no qubits given the qubit :data:`_NO_QUBITS`,
    in its definition and in its calls without operands, and where it was written: ``(column,
    length)`` of each insertion by line (lines keep their places; columns after an insertion
    move by its length). Qiskit writes ``GlobalPhaseGate`` so (``gate global_phase(p0) {}``,
    ``global_phase(0.3) ;``), which the language's grammar has no rule for;
    :func:`_without_placeholder_qubits` takes the name out of the parsed tree again."""
    names = {m[1] for m in _ZERO_QUBIT_DEFINITION.finditer(text)}
    if not names:
        return text, {}
    at = [m.end() for m in _ZERO_QUBIT_DEFINITION.finditer(text)]
    calls = rf"(?<![\w.$])(?:{'|'.join(map(re.escape, names))})\s*(?:\([^;{{}}]*\))?(?=\s*;)"
    at += [m.end() for m in re.finditer(calls, text)]
    out: list[str] = []
    shifts: dict[int, list[tuple[int, int]]] = {}
    done = 0
    for offset in sorted(at):
        written = f" {_NO_QUBITS} "
        line = text.count("\n", 0, offset) + 1
        shifts.setdefault(line, []).append((offset - text.rfind("\n", 0, offset), len(written)))
        out += [text[done:offset], written]
        done = offset
    return "".join(out) + text[done:], shifts


def _at_original_column(error: QasmError, shifts: dict[int, list[tuple[int, int]]]) -> QasmError:
    """``error`` of text :func:`_with_zero_qubit_gates` wrote, at its place in the text read."""
    if error.line is None or error.column is None or error.line not in shifts:
        return error
    moved = sum(n for column, n in shifts[error.line] if column < error.column)
    return QasmError(error.message, error.line, max(error.column - moved, 1), error.source)


def _without_placeholder_qubits(program: Any) -> None:
    """Take :data:`_NO_QUBITS` out of the definitions and calls of ``program``'s tree (in
    gate bodies and blocks too), leaving gates that act on no qubits, as the tree has them."""
    from openqasm3 import ast
    from openqasm3.visitor import QASMVisitor

    class Strip(QASMVisitor):  # type: ignore[misc]
        def visit_QuantumGateDefinition(self, node: Any, context: Any = None) -> None:
            node.qubits = [q for q in node.qubits if q.name != _NO_QUBITS]
            self.generic_visit(node, context)

        def visit_QuantumGate(self, node: Any, context: Any = None) -> None:
            placeholder = [isinstance(q, ast.Identifier) and q.name == _NO_QUBITS
                           for q in node.qubits]  # fmt: skip
            node.qubits = [q for q, out in zip(node.qubits, placeholder) if not out]

    Strip().visit(program)


def _closing_brace(text: str, start: int) -> int | None:
    """The offset of the ``}`` that closes the ``{`` just before ``start``."""
    depth = 1
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return None


def _without_unread_arguments(text: str) -> tuple[str, list[tuple[int, int, str, str]]]:
    """``text`` with each gate call's argument that is no expression, for a parameter the
    gate's definition never reads, written ``0`` (as :meth:`.parser.Parser.call_expressions`
    passes them over: Qiskit writes complex numbers and labels there), and ``(line, column,
    argument, gate)`` of the first such argument of each gate. Lines and the other text
    keep their places."""
    unread: dict[str, set[int]] = {}
    for match in _GATE_DEFINITION.finditer(text):
        names = [p.strip() for p in match[2].split(",") if p.strip()]
        found = {i for i, p in enumerate(names) if not re.search(rf"\b{re.escape(p)}\b", match[3])}
        if found:
            unread[match[1]] = found
    if not unread:
        return text, []
    calls = re.compile(rf"(?<!\w)({'|'.join(map(re.escape, unread))})\s*\(")
    out: list[str] = []
    passed_over: list[tuple[int, int, str, str]] = []
    at = 0
    for call in calls.finditer(text):
        start = call.end()
        if start < at or re.search(r"\bgate\s+$", text[max(0, call.start() - 40) : call.start()]):
            continue  # inside an earlier call, or a definition's own header
        arguments, end = _top_level_arguments(text, start)
        pieces = []
        for index, (offset, argument) in enumerate(arguments):
            if index in unread[call[1]] and not _is_expression(argument):
                if call[1] not in {gate for *_, gate in passed_over}:
                    offset += len(argument) - len(argument.lstrip())
                    line = text.count("\n", 0, offset) + 1
                    column = offset - text.rfind("\n", 0, offset)
                    passed_over.append((line, column, argument.strip(), call[1]))
                argument = "0".center(len(argument))  # later columns keep their places
            pieces.append(argument)
        out += [text[at:start], ",".join(pieces)]
        at = end
    return "".join(out) + text[at:], passed_over


def _top_level_arguments(text: str, start: int) -> tuple[list[tuple[int, str]], int]:
    """The comma-separated arguments from ``start`` (after a call's ``(``) to its ``)``,
    each with its offset, and the offset of that ``)``."""
    arguments, depth, begin = [], 0, start
    for i in range(start, len(text)):
        ch = text[i]
        if ch in ";{}":
            break
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif ch in ",)":
            arguments.append((begin, text[begin:i]))
            begin = i + 1
            if ch == ")":
                return arguments, i
    return [], start  # not closed: left for the reference parser to report


def _is_expression(argument: str) -> bool:
    """Whether ``argument`` reads as an OpenQASM expression (names in it, such as an
    ``input``'s, are read as names: what they stand for is the reader's to tell)."""
    names = {m for m in re.findall(r"[A-Za-z_]\w*(?![\w(])", argument) if m not in _CONSTANTS}
    try:
        expression_tree(argument.strip(), tuple(sorted(names)))
    except QasmError:
        return False
    return True


def _syntax_error(exc: Exception, source: str | None) -> QasmError:
    """The reference parser's error at its line and column: a lexer error says them in its
    message (``L3:C5: ...``), a parser error in the token it stopped at."""
    match = re.match(r"L(\d+):C(\d+): (.*)", str(exc), re.S)
    if match:
        line, column, message = match.groups()
        return QasmError(f"OpenQASM 3 syntax error: {message}", int(line), int(column) + 1,
                         source)  # fmt: skip
    cause = exc.__cause__
    inner = cause.args[0] if cause is not None and cause.args else None
    token = getattr(inner, "offendingToken", None)
    if token is not None:
        found = "end of input" if token.text == "<EOF>" else repr(token.text)
        return QasmError(f"OpenQASM 3 syntax error at {found}", token.line, token.column + 1,
                         source)  # fmt: skip
    return QasmError(f"OpenQASM 3 syntax error: {exc or type(exc).__name__}", source=source)


_SIMPLE_LINE = re.compile(
    r"""[ \t]*(?:
      (?P<header>OPENQASM[ \t]+3(?:\.0)?[ \t]*;)
    | (?P<include>include[ \t]*"stdgates\.inc"[ \t]*;)
    | (?P<kind>qubit|bit)[ \t]*(?:\[[ \t]*(?P<size>[0-9]+)[ \t]*\])?[ \t]+(?P<reg>\w+)[ \t]*;
    | (?P<bits>\w+(?:[ \t]*\[[ \t]*[0-9]+[ \t]*\])?)[ \t]*=[ \t]*measure[ \t]+
      (?P<qubits>\w+(?:[ \t]*\[[ \t]*[0-9]+[ \t]*\])?)[ \t]*;
    | (?P<call>(?!(?:if|else|for|while|def|input|output|const|int|uint|float|angle|bool|
        complex|let|box|delay|gphase|extern|return|defcal|cal|ctrl|negctrl|inv|pow|duration|
        stretch|array|measure|opaque|qreg|creg|OPENQASM|include)\b)
        [A-Za-z_]\w*[ \t]*(?:\([^;{}$@^]*\))?[ \t]*(?:\w+(?:[ \t]*\[[ \t]*[0-9]+[ \t]*\])?
        (?:[ \t]*,[ \t]*\w+(?:[ \t]*\[[ \t]*[0-9]+[ \t]*\])?)*)?[ \t]*;)
    | (?P<gate>gate[ \t]+\w+[ \t]*(?:\([\w, \t]*\))?[ \t]*\w+(?:[ \t]*,[ \t]*\w+)*[ \t]*\{)
    | (?P<close>\})
    | (?P<comment>//.*)
    )?[ \t]*(?://.*)?$""",
    re.X,
)
"""A line of Qiskit's plain OpenQASM 3 export (no control flow, modifiers, physical qubits,
inputs or phases): the header, the include, a declaration, a measurement assignment, a gate
call, a definition's first or last line, or nothing."""

_STD_RENAMED = re.compile(r"^([ \t]*)(phase|cphase)\b")


def _as_qasm2(text: str) -> str | None:
    """``text``, Qiskit's plain OpenQASM 3 export, line for line as OpenQASM 2.0 (so the
    compiled-regex reader of :mod:`.parser` reads it, with its lines and columns), or
    ``None`` where any line is outside that subset (the reference parser reads those)."""
    if "**" in text and "^" in text:
        return None
    out = []
    for line in text.split("\n"):
        m = _SIMPLE_LINE.fullmatch(line)
        if m is None:
            return None
        if m.group("header"):
            out.append(line.replace(m.group("header"), "OPENQASM 2.0;"))
        elif m.group("include"):
            out.append(line.replace(m.group("include"), 'include "qelib1.inc";'))
        elif m.group("kind"):
            kind = "qreg" if m.group("kind") == "qubit" else "creg"
            out.append(f"{kind} {m.group('reg')}[{m.group('size') or 1}];")
        elif m.group("bits"):
            out.append(f"measure {m.group('qubits')} -> {m.group('bits')};")
        else:
            out.append(_STD_RENAMED.sub(lambda r: r.group(1) + _RENAMED[r.group(2)], line))
    return "\n".join(out).replace("**", "^")


def loads3(text: str, source: str | None = None) -> Circuit:
    """A circuit from OpenQASM 3 text (needs ``pip install 'genqsim[qasm3]'``); raises
    ``QasmError`` naming line and column (see the module's documentation for what is read).
    Qiskit's plain exports (gate calls, definitions, declarations and measurements) are read
    by the OpenQASM 2.0 reader, line for line, at its speed; the reference parser reads the
    rest, and any text that reader refuses."""
    plain = _as_qasm2(text)
    if plain is not None:
        try:
            return Parser(plain, source, library_names=STDGATES | {"CX"}).parse()
        except QasmError:
            pass  # the reference parser reads it again, and words its error for OpenQASM 3
    return _read(text, source)


def _read(text: str, source: str | None) -> Circuit:
    """OpenQASM 3 through the reference parser's tree."""
    try:
        import openqasm3
    except ImportError:
        raise QasmError(
            "reading OpenQASM 3 needs the openqasm3 parser: pip install 'genqsim[qasm3]'"
        ) from None
    try:
        program = _parsed(openqasm3, text)
    except Exception as exc:  # the reference parser's own error types vary by version
        error = _syntax_error(exc, source)
        mended = _concatenated_aliases(_final_switch_syntax(text))
        mended, passed_over = _without_unread_arguments(mended)
        mended, shifts = _with_zero_qubit_gates(mended)
        if mended == text:
            raise error from None
        try:
            program = _parsed(openqasm3, mended)
        except Exception as again:  # the later error: the mending got past the first one
            later = _at_original_column(_syntax_error(again, source), shifts)
            place = (later.line or 0, later.column or 0)
            raise (later if place > (error.line or 0, error.column or 0) else error) from None
        if shifts:
            _without_placeholder_qubits(program)
        for line, column, argument, gate in passed_over:
            warn_passed_over(source, line, column, argument, gate)
    reader = _Reader(source)
    items: list[Any] = []
    with reader.scope.reading_into(items):
        reader.statements(program.statements, {}, items)
    return reader.circuit(items)


__all__ = ["QasmTimingWarning", "loads3"]
