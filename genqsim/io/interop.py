"""Conversion to and from Qiskit and Cirq circuits, keeping qubit order and symbolic
parameters (a Qiskit ``Parameter`` or a Cirq SymPy symbol becomes a real SymPy symbol of the
same name). Qiskit counts qubit 0 as the least-significant bit, like genqsim; Cirq's qubits,
in their sorted order, become genqsim qubits 0, 1, ... (Cirq prints state vectors with the
first qubit most significant, so its amplitudes are genqsim's with the bit order reversed)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from ..circuit.circuit import Circuit, Operation
from ..circuit.composite import Composite
from ..circuit.conditional import Conditional, WhileLoop
from ..circuit.gates import (
    GATE_SPECS,
    CirqForm,
    GateKind,
    MatrixGate,
    Measure,
    NamedGate,
    PauliRotation,
)
from ..circuit.store import Store
from ..errors import ArgumentTypeError, ArgumentValueError, ProductFormulaWarning
from . import classical
from .classical import ClassicalError, ClassicalScope
from .qasm.parser import BUILTIN


def _from_qiskit_param(value: Any) -> Any:
    from qiskit.circuit import ParameterExpression

    if isinstance(value, ParameterExpression):
        if not value.parameters:
            return float(value)
        expr = value.sympify()  # a ParameterVector element is the symbol "theta[0]"
        return expr.xreplace({s: sympy.Symbol(s.name, real=True) for s in expr.free_symbols})
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    raise ArgumentTypeError(f"cannot convert gate parameter {value!r}")


def from_qiskit(qc: Any) -> Circuit:
    """A genqsim circuit from a Qiskit ``QuantumCircuit``: standard gates, ``unitary`` and
    other gates with a matrix, ``PauliEvolutionGate`` (its exact exponential), ``Clifford``
    and annotated operations, noise (``kraus``: Aer's ``QuantumError``, quantum_info's
    ``Kraus``), measurements, resets, barriers and delays, ``box`` blocks,
    ``for_loop`` blocks (unrolled), ``if_test`` blocks with ``else`` branches and ``switch``
    blocks (conditioned on a classical bit, a register, or an expression of them), and
    classical variables (``add_var``, ``store``) kept as expressions of the measured bits,
    or in scratch bits of their own where a measurement would overwrite those
    (:mod:`genqsim.io.classical`; counts leave scratch bits out), and stores into bits and
    registers (classical stores,
    :meth:`~genqsim.Circuit.store`). Any other gate with a definition (a circuit made a gate, a
    library gate genqsim's table lacks) is one :class:`~genqsim.Composite` by its name,
    running as that definition."""
    from qiskit import QuantumCircuit

    if not isinstance(qc, QuantumCircuit):
        raise ArgumentTypeError(f"expected a qiskit QuantumCircuit, got {type(qc).__name__}")
    inputs = [var.name for var in qc.iter_input_vars()]
    if inputs:
        raise ArgumentValueError(
            f"classical input variables ({', '.join(inputs)}) have no genqsim form: a run "
            "takes no classical inputs (give them values with store() at the start instead)"
        )
    c = Circuit(qc.num_qubits, n_clbits=qc.num_clbits)
    reader = _QiskitReader(qc.num_qubits, qc.num_clbits)
    reader.read(qc, c, list(range(qc.num_qubits)), list(range(qc.num_clbits)))
    c.mark_scratch(reader.scratch_bits)
    phase = _from_qiskit_param(qc.global_phase)
    if phase != 0:
        _global_phase(c, phase)
    return c


def _global_phase(c: Circuit, phase: Any) -> None:
    """``exp(i phase)`` on ``c``: ``exp(-i (-2 phase) I / 2)`` on qubit 0 (nothing to put it on
    in a circuit without qubits)."""
    if c.n_qubits:
        c.pauli_rotation("I", -2 * phase, [0])


MAX_UNROLLED_INSTRUCTIONS = 1_000_000
"""Instructions the ``for_loop`` blocks of one Qiskit circuit may unroll to: more is refused."""

_BINARY_SYMBOLS = {
    "BIT_AND": "&", "BIT_OR": "|", "BIT_XOR": "^", "LOGIC_AND": "&&", "LOGIC_OR": "||",
    "EQUAL": "==", "NOT_EQUAL": "!=", "LESS": "<", "LESS_EQUAL": "<=", "GREATER": ">",
    "GREATER_EQUAL": ">=", "SHIFT_LEFT": "<<", "SHIFT_RIGHT": ">>", "ADD": "+", "SUB": "-",
    "MUL": "*", "DIV": "/",
}  # fmt: skip
"""Qiskit's classical binary operators, as :mod:`genqsim.io.classical` names them."""


def _classical_width(kind: Any) -> classical.Width:
    """A Qiskit classical type's width as :func:`genqsim.io.classical.cast` takes it."""
    from qiskit.circuit.classical import types

    if isinstance(kind, types.Bool):
        return 0
    if isinstance(kind, types.Uint):
        return int(kind.width)
    if isinstance(kind, types.Float):
        return classical.FLOAT
    raise ArgumentValueError(
        f"classical values of type {kind} have no genqsim form (bool, uint and float are read)"
    )


def _matrix_of(op: Any) -> np.ndarray | None:
    """The matrix of a Qiskit gate without a definition (``PermutationGate``), if it has one."""
    from qiskit.circuit import Gate
    from qiskit.circuit.exceptions import CircuitError

    if not isinstance(op, Gate):
        return None
    try:
        return np.asarray(op.to_matrix(), dtype=complex)
    except (CircuitError, TypeError, ValueError, AttributeError):
        return None


class _QiskitReader(classical.ScratchBits):
    """One Qiskit circuit read into genqsim operations, blocks inside it included: each
    block's qubits and classical bits placed on the outer circuit's through maps, classical
    variables kept in one :class:`~genqsim.io.classical.ClassicalScope`. Its entries (see
    :class:`~genqsim.io.classical.JumpReader`) are ``(instruction, circuit, qubit map, clbit
    map)``."""

    def __init__(self, n_qubits: int, n_clbits: int) -> None:
        self.n_qubits, self.n_clbits = n_qubits, n_clbits
        self.scope = ClassicalScope()
        self.unrolled = 0
        self.loops = 0  # for_loop blocks being read, one inside another
        self.declarers: dict[str, Any] = {}  # a variable's name -> its Qiskit Var
        self.scope.on_block_end.append(self.forget)
        self.scope.memory = self
        self.scratch_bits: list[int] = []  # bits the scope keeps variables' values in

    def store_out(
        self, out: Circuit, clbits: tuple[int, ...], sources: tuple[int, ...], table: list[int]
    ) -> None:
        out.store(clbits, table, sources)

    @contextmanager
    def at(self, name: str) -> Iterator[None]:
        """Classical refusals, said of the instruction ``name``."""
        try:
            yield
        except ClassicalError as exc:  # the same kind (a while loop unrolls on one kind)
            raise type(exc)(f"Qiskit {name!r}: {exc}") from None

    def read(self, qc: Any, c: Circuit, qubit_map: list[int], clbit_map: list[int]) -> None:
        """The instructions of ``qc`` onto ``c``: ``qc``'s qubit ``i`` is ``c``'s
        ``qubit_map[i]``, its classical bit ``j`` ``c``'s ``clbit_map[j]``."""
        classical.read_entries(self, _entries(qc, qubit_map, clbit_map), c)

    def declare(self, var: Any) -> None:
        """A classical variable a block (or the circuit) declares, local to that block; the
        same ``Var`` declared again (a for_loop's next iteration) starts afresh."""
        again = self.declarers.get(var.name) == var and var.name in self.scope.variables
        with self.at("declare"):
            self.scope.declare(var.name, _classical_width(var.type), again=again)
        self.declarers[var.name] = var

    def forget(self, names: set[str]) -> None:
        """The variables of a block that ended."""
        for name in names:
            self.declarers.pop(name, None)

    @staticmethod
    def placed(entry: tuple) -> tuple[list[int], list[int]]:
        """An entry's qubits and classical bits on the outer circuit."""
        item, qc, qubit_map, clbit_map = entry
        qubits = [qubit_map[qc.find_bit(q).index] for q in item.qubits]
        return qubits, [clbit_map[qc.find_bit(b).index] for b in item.clbits]

    def plain(self, entry: tuple, c: Circuit) -> None:
        item, qc, _, clbit_map = entry
        op = item.operation
        if isinstance(op, _Declaration):
            self.declare(op.var)
            return
        qubits, clbits = self.placed(entry)
        name = op.name
        if name in ("if_else", "switch_case", "box"):
            classical.read_branches(self, entry, (), c)
        elif name == "for_loop":
            self.loop(c, op, qubits, clbits)
        elif name == "while_loop":
            self.while_loop(c, op, qc, clbit_map, qubits, clbits)
        elif name in ("break_loop", "continue_loop"):
            raise ArgumentValueError(f"Qiskit {name!r} outside a for_loop is not read")
        elif name == "store":
            with self.at(name):
                self.store(c, qc, op, clbit_map)
        elif getattr(op, "condition", None) is not None:
            raise ArgumentValueError(f"classically conditioned {op.name!r} is not supported")
        elif name.startswith("save_"):
            raise ArgumentValueError(
                f"Aer's {name!r} keeps a result, which genqsim.qiskit.GenqsimBackend reads; "
                "gq.from_qiskit reads circuits without save instructions"
            )
        elif name in ("barrier", "delay"):  # a delay is an identity on an ideal machine
            c.barrier(qubits)
        elif name == "measure":
            self.scope.measured(clbits)  # variables that read the bit kept first
            c.measure(qubits[0], clbits[0])
        elif name == "reset":
            c.reset(qubits[0])
        else:
            self.gate(c, op, qubits, clbits)

    def jump(self, entry: tuple) -> str | None:
        name = entry[0].operation.name
        if name not in ("break_loop", "continue_loop"):
            return None
        if not self.loops:
            return None  # outside a loop: refused by plain()
        return "break" if name == "break_loop" else "continue"

    def jumps(self, entry: tuple) -> frozenset[str]:
        return _jumps(entry[0].operation) if self.loops else frozenset()

    def new_body(self) -> Circuit:
        return Circuit(self.n_qubits, n_clbits=self.n_clbits)

    def split(self, entry: tuple) -> tuple[tuple[int, ...], list[Any]]:
        """``(bits, [(entries, values, guard), ...])`` of an ``if_else``, a ``switch_case``
        or a ``box``: each block's entries run where ``bits`` hold one of its values (the
        expression ``guard`` holds there, for the variables it assigns)."""
        from qiskit.circuit import CASE_DEFAULT

        item, qc, _, clbit_map = entry
        op = item.operation
        qubits, clbits = self.placed(entry)
        if op.name == "box":
            return (), [(_entries(op.blocks[0], qubits, clbits), [0], classical.const(1))]
        with self.at(op.name):
            if op.name == "if_else":
                condition = self.expression(qc, op.condition, clbit_map)
                bits, values = classical.values_where(condition)
                parts = [(op.blocks[0], values, condition)]
                otherwise = len(op.blocks) > 1 and op.blocks[1] is not None
                if otherwise or self.jumps(entry):  # what follows a jump runs there too
                    block = op.blocks[1] if otherwise else None  # no else: only what follows
                    others = classical.complement(bits, values)
                    parts.append((block, others, ("!", condition)))
            else:
                target = self.expression(qc, op.target, clbit_map)
                cases = [([classical.DEFAULT if v is CASE_DEFAULT else int(v) for v in labels],
                          block) for labels, block in op.cases_specifier()]  # fmt: skip
                bits, chosen = classical.switch_cases(target, cases)
                parts = [(block, values, classical.one_of(bits, values))
                         for block, values in chosen]  # fmt: skip
                if self.jumps(entry):  # what follows a jump runs where no case matched too
                    others = classical.unmatched(bits, chosen)
                    if others:
                        parts.append((None, others, classical.one_of(bits, others)))
        return bits, [([] if block is None else _entries(block, qubits, clbits), values, guard)
                      for block, values, guard in parts]  # fmt: skip

    def branch_out(
        self, bits: tuple[int, ...], bodies: list[tuple[Circuit, list[int]]], entry: tuple,
        c: Circuit,
    ) -> None:  # fmt: skip
        """The bodies read, as the cases of a switch on ``bits`` (:meth:`Circuit.switch_`;
        without bits: in place)."""
        if bits:
            c.n_clbits = max(c.n_clbits, self.n_clbits)  # scratch bits an outer body wrote
            c.switch_(bits, [(values, body) for body, values in bodies])
            return
        for body, values in bodies:  # a box, or a condition without bits: decided now
            for op in body.instructions if values else ():
                c._append_op(op)

    def while_loop(
        self, c: Circuit, op: Any, qc: Any, clbit_map: list[int], qubits: list[int],
        clbits: list[int],
    ) -> None:  # fmt: skip
        """A ``while_loop``: one while loop on the bits its condition reads (its body runs
        shot by shot; see :class:`~genqsim.circuit.conditional.WhileLoop`); ``break_loop``
        and ``continue_loop`` in its body are its own (see
        :func:`~genqsim.io.classical.read_while_loop`)."""
        loops, self.loops = self.loops, 1  # its body: one loop's, not an outer for_loop's

        def loop_out(
            bits: tuple[int, ...], values: list[int], block: Circuit, target: Circuit
        ) -> None:
            if any(inner.qubits or inner.gate.bits_written for inner in block.operations
                   if inner.gate.name != "barrier"):  # fmt: skip
                target.n_clbits = max(target.n_clbits, self.n_clbits)  # scratch bits too
                target.while_(bits, values, block)

        try:
            with self.at("while_loop"):
                classical.read_while_loop(
                    self,
                    lambda: self.expression(qc, op.condition, clbit_map),
                    _entries(op.blocks[0], qubits, clbits),
                    loop_out,
                    c,
                )
        finally:
            self.loops = loops

    def loop(self, c: Circuit, op: Any, qubits: list[int], clbits: list[int]) -> None:
        """A ``for_loop``: its block once per value, the loop parameter bound to it;
        ``break_loop`` and ``continue_loop`` (under conditions on bits) leave what follows
        them to the branches where they are not taken."""
        values, parameter, body = op.params
        values = list(values)
        self.unrolled += len(values) * max(1, len(body.data))
        if self.unrolled > MAX_UNROLLED_INSTRUCTIONS:
            raise ArgumentValueError(
                f"for_loop blocks unroll to more than {MAX_UNROLLED_INSTRUCTIONS:,} "
                "instructions: refused rather than run"
            )
        entries: list[Any] = []
        for value in values:
            block = body if parameter is None else body.assign_parameters({parameter: value})
            entries += [*_entries(block, qubits, clbits), classical.NEXT_ITERATION]
        self.loops += 1
        try:
            with self.scope.block():  # each iteration declares the body's variables afresh
                classical.read_entries(self, entries, c)
        finally:
            self.loops -= 1

    def gate(self, c: Circuit, op: Any, qubits: list[int], clbits: list[int]) -> None:
        """A gate or an instruction with a definition."""
        name = op.name
        if name == "global_phase":
            _global_phase(c, _from_qiskit_param(op.params[0]))
        elif name == "unitary":
            c.unitary(np.asarray(op.to_matrix()), qubits)
        elif name == "kraus":  # quantum_info's Kraus appended, and Aer's QuantumError inside
            c.kraus([np.asarray(k, dtype=complex) for k in op.params], qubits)
        elif name == "mcx" or (
            name.startswith("c") and name.endswith("x") and name[1:-1].isdigit()
        ):
            c.mcx(qubits[:-1], qubits[-1])
        elif name in BUILTIN:
            _, _, apply = BUILTIN[name]
            built: list[Operation] = []
            apply(built, [_from_qiskit_param(p) for p in op.params], qubits, True)
            for sub_op in built:
                c._append_op(sub_op)
        elif name == "PauliEvolution" and (exact := _exact_evolution(op)) is not None:
            c.append(Composite(_identifier(name), exact, _composite_params(op)), qubits)
        elif (body := _operation_body(op)) is not None:  # no Gate: a Clifford, annotated
            c.append(Composite(_identifier(name), body, _composite_params(op)), qubits)
        elif getattr(op, "definition", None) is not None:
            body = from_qiskit(op.definition)
            if body.has_non_unitary:  # an instruction that measures: its instructions in place
                self.read(op.definition, c, qubits, clbits)
            else:  # a gate with a definition: one composite by its name, as Qiskit keeps it
                c.append(Composite(_identifier(name), body, _composite_params(op)), qubits)
        elif (matrix := _matrix_of(op)) is not None:  # a gate known by its matrix alone
            c.unitary(matrix, qubits)
        else:
            raise ArgumentValueError(
                f"Qiskit operation {name!r} has no genqsim equivalent: it has neither a "
                "definition nor a matrix (Qiskit synthesises such a gate only when it "
                "transpiles, often with spare qubits: transpile the circuit to a gate set "
                "first, qiskit.transpile(qc, basis_gates=[...]))"
            )

    def store(self, c: Circuit, qc: Any, op: Any, clbit_map: list[int]) -> None:
        """``store(lvalue, value)``: a variable's value becomes the expression; a bit's or a
        register's is written by a classical store (:meth:`Circuit.store`)."""
        from qiskit.circuit.classical import expr

        value = self.expression(qc, op.rvalue, clbit_map)
        if isinstance(op.lvalue, expr.Var) and op.lvalue.name is not None:
            self.scope.assign(op.lvalue.name, value)
            return
        targets = self.written_bits(qc, op.lvalue, clbit_map)
        sources, table = classical.stored_table(value, len(targets))
        self.scope.measured(targets)  # variables that read the bits kept first
        c.store(targets, table, sources)

    def written_bits(self, qc: Any, lvalue: Any, clbit_map: list[int]) -> list[int]:
        """The bits of the outer circuit a store into ``lvalue`` writes: a bit, a register,
        or one bit of a register (``expr.index(creg, 2)``), the lowest first."""
        from qiskit.circuit import ClassicalRegister, Clbit
        from qiskit.circuit.classical import expr

        if isinstance(lvalue, expr.Var) and isinstance(lvalue.var, Clbit):
            return [clbit_map[qc.find_bit(lvalue.var).index]]
        if isinstance(lvalue, expr.Var) and isinstance(lvalue.var, ClassicalRegister):
            return [clbit_map[qc.find_bit(b).index] for b in lvalue.var]
        if isinstance(lvalue, expr.Index) and isinstance(lvalue.index, expr.Value):
            register = self.written_bits(qc, lvalue.target, clbit_map)
            index = int(lvalue.index.value)
            if not 0 <= index < len(register):
                raise ClassicalError(
                    f"a store into bit {index} of a {len(register)}-bit register is out of range"
                )
            return [register[index]]
        raise ClassicalError(
            f"a store into {lvalue} is outside what genqsim reads (a bit, a register, one bit "
            "of a register at a constant index, or a classical variable)"
        )

    def expression(self, qc: Any, node: Any, clbit_map: list[int]) -> classical.Expression:
        """A Qiskit classical expression, or a ``(bit or register, value)`` condition, as a
        classical expression of the outer circuit's bits."""
        from qiskit.circuit import ClassicalRegister, Clbit
        from qiskit.circuit.classical import expr

        if isinstance(node, tuple):
            target, value = node
            return ("==", self.expression(qc, target, clbit_map), classical.const(value))
        if isinstance(node, Clbit):
            return classical.bits([clbit_map[qc.find_bit(node).index]])
        if isinstance(node, ClassicalRegister):
            return classical.bits([clbit_map[qc.find_bit(b).index] for b in node])
        if isinstance(node, expr.Var):
            if isinstance(node.var, (Clbit, ClassicalRegister)):
                return self.expression(qc, node.var, clbit_map)
            value = self.scope.read(node.name)
            if value is None:
                raise ClassicalError(f"the classical variable {node.name!r} is not declared")
            return value
        if isinstance(node, expr.Value) and isinstance(node.value, (bool, int, np.integer)):
            return classical.const(int(node.value))
        if isinstance(node, expr.Value) and isinstance(node.value, (float, np.floating)):
            return classical.const(float(node.value))
        if isinstance(node, expr.Cast):
            inner = self.expression(qc, node.operand, clbit_map)
            return classical.cast(_classical_width(node.type), inner)
        if isinstance(node, expr.Index):
            target = self.expression(qc, node.target, clbit_map)
            shifted = (">>", target, self.expression(qc, node.index, clbit_map))
            return ("&", shifted, classical.const(1))
        if isinstance(node, expr.Unary) and node.op.name in ("LOGIC_NOT", "BIT_NOT"):
            inner = self.expression(qc, node.operand, clbit_map)
            if node.op.name == "LOGIC_NOT":
                return ("!", inner)
            width = _classical_width(node.type)  # Qiskit's bit_not takes bool and uint
            return ("~", inner, width if isinstance(width, int) and width else 1)
        if isinstance(node, expr.Binary) and node.op.name in _BINARY_SYMBOLS:
            left = self.expression(qc, node.left, clbit_map)
            right = self.expression(qc, node.right, clbit_map)
            found = (_BINARY_SYMBOLS[node.op.name], left, right)
            width = _classical_width(node.type)  # a uint result keeps its width: it wraps
            wraps = found[0] in classical.WRAPPING and isinstance(width, int) and width > 0
            return classical.cast(width, found) if wraps else found
        raise ClassicalError(
            f"the classical expression {node} is outside what genqsim reads (bits, registers, "
            "bool, uint and float variables under not, and, or, xor, shifts, comparisons, "
            "arithmetic, integers and floats)"
        )


@dataclass(frozen=True)
class _Declaration:
    """A classical variable a block declares, as an entry read where the block starts (in
    the shape of an instruction: ``.operation.name``)."""

    var: Any
    name: str = "declare"

    @property
    def operation(self) -> _Declaration:
        return self


def _entries(qc: Any, qubits: list[int], clbits: list[int]) -> list[tuple]:
    """The entries of a block whose qubit ``i`` is the outer circuit's ``qubits[i]`` and
    classical bit ``j`` its ``clbits[j]``: its variables' declarations, then its
    instructions."""
    declared = [_Declaration(var) for var in qc.iter_declared_vars()]
    return [(item, qc, qubits, clbits) for item in [*declared, *qc.data]]


def _jumps(op: Any) -> frozenset[str]:
    """The jumps ``op`` is or holds: ``"break"``, ``"continue"`` (an ``if_else``,
    ``switch_case`` or ``box`` with them inside; a loop inside it has its own)."""
    if op.name in ("break_loop", "continue_loop"):
        return frozenset({"break" if op.name == "break_loop" else "continue"})
    if op.name not in ("if_else", "switch_case", "box"):
        return frozenset()
    return frozenset().union(*(_jumps(item.operation) for block in op.blocks
                               if block is not None for item in block.data))  # fmt: skip


EXACT_EVOLUTION_MAX_QUBITS = 10
"""A Qiskit ``PauliEvolutionGate`` of non-commuting terms on up to this many qubits runs as its
exact exponential (from the eigenvectors of a ``2**n``-square matrix); a wider one as its
product-formula definition."""


def _exact_evolution(op: Any) -> Circuit | None:
    """``exp(-i t H)`` of a Qiskit ``PauliEvolutionGate`` (``H`` a Pauli operator, or a list
    of them evolved as their sum), as Qiskit's ``Operator`` and ``Statevector`` take it: the
    eigenvectors of ``H`` (a fixed unitary ``V``), ``exp(-i t E)`` on the eigenvalues (a
    diagonal gate, whose entries are SymPy expressions where the time is a parameter), and
    ``V`` back. ``None`` where its definition is exact already (terms that all commute) or
    where ``H`` is too wide (then with a :class:`ProductFormulaWarning`)."""
    import warnings

    from qiskit.quantum_info import SparseObservable, SparsePauliOp

    parts = op.operator if isinstance(op.operator, list) else [op.operator]
    terms = [SparsePauliOp.from_sparse_observable(p) if isinstance(p, SparseObservable)
             else SparsePauliOp(p) for p in parts]  # fmt: skip
    h = sum(terms[1:], terms[0]).simplify()
    if h.coeffs.dtype == object:  # a parameter in a coefficient: the definition keeps it
        return None
    paulis = h.paulis
    if all(paulis[i].commutes(paulis[j]) for i in range(len(paulis)) for j in range(i)):
        return None
    n = op.num_qubits
    if n > EXACT_EVOLUTION_MAX_QUBITS:
        warnings.warn(
            f"a PauliEvolutionGate of non-commuting terms on {n} qubits runs as its "
            "product-formula definition (as Aer runs it): its exact exponential, which "
            f"Qiskit's Statevector applies, is taken up to {EXACT_EVOLUTION_MAX_QUBITS} qubits",
            ProductFormulaWarning,
            stacklevel=4,
        )
        return None
    time = _from_qiskit_param(op.params[0])
    energies, vectors = np.linalg.eigh(h.to_matrix())
    body = Circuit(n)
    if not isinstance(time, sympy.Basic):
        return body.unitary((vectors * np.exp(-1j * energies * time)) @ vectors.conj().T,
                            range(n), name="exp_iHt", check_unitary=False)  # fmt: skip
    phases = [sympy.exp(-sympy.I * sympy.Float(e) * time) for e in energies]
    body.unitary(vectors.conj().T, range(n), name="eigenbasis", check_unitary=False)
    body.unitary(np.diag(np.array(phases, dtype=object)), range(n), name="exp_iEt",
                 check_unitary=False)  # fmt: skip
    return body.unitary(vectors, range(n), name="eigenbasis_dg", check_unitary=False)


def _operation_body(op: Any) -> Circuit | None:
    """The circuit of a Qiskit operation that is no instruction (it has neither a definition
    nor a gate's matrix): a ``Clifford`` as the circuit Qiskit synthesises for it, an
    ``AnnotatedOperation`` as its base operation under its modifiers, applied in order as
    Qiskit applies them (``InverseModifier``, ``PowerModifier``, ``ControlModifier``: new
    controls first, ``ctrl_state`` bit ``i`` the value of control ``i``); ``None`` for any
    other operation."""
    from qiskit import QuantumCircuit
    from qiskit.circuit import AnnotatedOperation, ControlModifier, InverseModifier, PowerModifier
    from qiskit.quantum_info import Clifford

    if isinstance(op, Clifford):
        return from_qiskit(op.to_circuit())
    if not isinstance(op, AnnotatedOperation):
        return None
    base = QuantumCircuit(op.base_op.num_qubits, op.base_op.num_clbits)
    base.append(op.base_op, base.qubits, base.clbits)
    body = from_qiskit(base)
    for modifier in op.modifiers:
        if isinstance(modifier, InverseModifier):
            body = body.inverse()
        elif isinstance(modifier, PowerModifier):
            body = body.power(_from_qiskit_param(modifier.power))
        elif isinstance(modifier, ControlModifier):
            k, state = modifier.num_ctrl_qubits, int(modifier.ctrl_state)
            body = body.control(k, control_values=[(state >> i) & 1 for i in range(k)])
        else:
            raise ArgumentValueError(
                f"Qiskit annotated operation on {op.base_op.name!r}: the modifier {modifier} "
                "is not read (inverse, power and control are)"
            )
    return body


def _identifier(name: str) -> str:
    """A Qiskit instruction's name as a composite's (an identifier: ``circuit-151`` becomes
    ``circuit_151``)."""
    word = re.sub(r"\W", "_", name) or "gate"
    return word if word.isidentifier() else f"g_{word}"


def _composite_params(op: Any) -> tuple[Any, ...]:
    """A Qiskit gate's parameters shown on its composite (those that convert)."""
    try:
        return tuple(_from_qiskit_param(p) for p in getattr(op, "params", ()))
    except (ArgumentTypeError, TypeError):  # a matrix or another object: not shown
        return ()


def _to_qiskit_param(value: Any, table: dict) -> Any:
    """Numbers stay numbers; SymPy expressions become Qiskit ``ParameterExpression`` s built
    from ``Parameter`` s of the same names."""
    from qiskit.circuit import Parameter

    if not isinstance(value, sympy.Basic):
        return float(value) if not isinstance(value, complex) else value
    if not value.free_symbols:
        return float(value)
    for s in value.free_symbols:
        table.setdefault(s, Parameter(s.name))

    def build(e: sympy.Basic) -> Any:
        if e.is_Symbol:
            return table[e]
        if e.is_Number or (not e.free_symbols):
            return float(e)
        if e.is_Add:
            out = build(e.args[0])
            for a in e.args[1:]:
                out = out + build(a)
            return out
        if e.is_Mul:
            out = build(e.args[0])
            for a in e.args[1:]:
                out = out * build(a)
            return out
        if e.is_Pow and e.exp.is_Integer:
            base, k = build(e.base), int(e.exp)
            out = base
            for _ in range(abs(k) - 1):
                out = out * base
            return out if k > 0 else 1 / out
        for fn in ("sin", "cos", "tan", "exp", "log"):
            if e.func == getattr(sympy, fn):
                return getattr(build(e.args[0]), fn)()
        raise ArgumentValueError(f"cannot express {e} as a Qiskit parameter expression")

    return build(value)


def _qiskit_circuit(circuit: Circuit) -> tuple[Any, list[Any]]:
    """An empty ``QuantumCircuit`` with ``circuit``'s qubits and classical bits, and the
    Qiskit bit of each of ``circuit``'s: all in register ``c``, or where ``circuit`` has
    scratch bits, its result bits in ``c`` and the scratch bits in a register ``scratch``
    after it (Aer reads registers as runs of the circuit's bits)."""
    from qiskit import ClassicalRegister, QuantumCircuit

    if not circuit.scratch_clbits:
        qc = QuantumCircuit(circuit.n_qubits, circuit.n_clbits)
        return qc, list(qc.clbits)
    results = ClassicalRegister(len(circuit.result_clbits), "c")
    scratch = ClassicalRegister(len(circuit.scratch_clbits), "scratch")
    place = {b: results[j] for j, b in enumerate(circuit.result_clbits)}
    place.update({b: scratch[k] for k, b in enumerate(sorted(circuit.scratch_clbits))})
    qc = QuantumCircuit(circuit.n_qubits)
    qc.add_register(results)
    qc.add_register(scratch)
    return qc, [place[b] for b in range(circuit.n_clbits)]


def to_qiskit(circuit: Circuit) -> Any:
    """A Qiskit ``QuantumCircuit`` equal to ``circuit`` (symbols become ``Parameter`` s). A
    circuit's scratch bits (``Circuit.scratch_clbits``) go to a register ``scratch`` of
    their own beside ``c``: Qiskit reports every register, so its counts show them apart."""
    from qiskit.circuit import library as qlib

    qc, clbits = _qiskit_circuit(circuit)
    table: dict = {}
    for op in _with_constant_stores(circuit):
        gate = op.gate
        if gate.kind is GateKind.BARRIER:
            qc.barrier(list(op.targets))
            continue
        if isinstance(gate, Measure):
            qc.measure(op.targets[0], clbits[gate.clbit])
            continue
        if isinstance(gate, Store):  # a constant (others became conditionals of constants)
            from qiskit.circuit.classical import expr

            for i, clbit in enumerate(gate.clbits):
                qc.store(clbits[clbit], expr.lift(bool((gate.table[0] >> i) & 1)))
            continue
        if gate.kind is GateKind.RESET:
            qc.reset(op.targets[0])
            continue
        if isinstance(gate, Conditional):
            body, orelse = (
                to_qiskit(Circuit(circuit.n_qubits, gate.operations_on(op.targets, branch),
                                  n_clbits=circuit.n_clbits).mark_scratch(circuit.scratch_clbits))
                for branch in (0, 1)
            )  # fmt: skip
            target = _qiskit_condition(qc, [clbits[b] for b in gate.clbits])
            if len(gate.values) == 1:
                condition: Any = (target, gate.values[0])
            else:  # several values: target == v1 || target == v2 ...
                from qiskit.circuit.classical import expr

                tests = [expr.equal(target, v) for v in gate.values]
                condition = tests[0]
                for test in tests[1:]:
                    condition = expr.logic_or(condition, test)
            if isinstance(gate, WhileLoop):
                qc.while_loop(condition, body, qc.qubits, qc.clbits)
            elif gate.orelse is not None:
                qc.if_else(condition, body, orelse, qc.qubits, qc.clbits)
            else:
                qc.if_test(condition, body, qc.qubits, qc.clbits)
            continue
        if gate.kind is GateKind.CHANNEL:
            raise ArgumentValueError(
                f"noise channel {gate.name} has no QuantumCircuit form; use NoiseModel with "
                "Aer, or simulate it here with method='density_matrix'"
            )
        params = [_to_qiskit_param(p, table) for p in gate.params]
        qiskit_name = GATE_SPECS[gate.name].qiskit if isinstance(gate, NamedGate) else None
        if qiskit_name is not None and gate.name != "u":
            qgate = getattr(qlib, qiskit_name)(*params)
        elif isinstance(gate, NamedGate) and gate.name == "u":
            qgate = qlib.UGate(*params[:3])
            if len(params) == 4:  # exp(i gamma) U
                if len(op.controls) == 1:
                    state = "1" if op.control_values[0] else "0"
                    cu = qlib.CUGate(*params, ctrl_state=state)
                    qc.append(cu, [*op.controls, *op.targets])
                    continue
                if op.controls:
                    raise ArgumentValueError(
                        "U with a global phase and several controls has no Qiskit gate"
                    )
                qc.global_phase += params[3]
        elif isinstance(gate, PauliRotation):
            active = [(q, p) for q, p in zip(op.targets, gate.pauli) if p != "I"]
            if not active:  # exp(-i theta I / 2): a phase
                qgate = qlib.GlobalPhaseGate(-params[0] / 2)
                targets: tuple[int, ...] = ()
            else:
                label = "".join(p for _, p in reversed(active))  # Qiskit: highest qubit first
                qgate = qlib.PauliEvolutionGate(_pauli_op(label), time=params[0] / 2)
                targets = tuple(q for q, _ in active)
            if op.controls:
                ctrl_state = "".join(str(v) for v in reversed(op.control_values))
                qgate = qgate.control(len(op.controls), ctrl_state=ctrl_state, annotated=False)
            qc.append(qgate, [*op.controls, *targets])
            continue
        elif isinstance(gate, MatrixGate) and not gate.free_symbols:
            matrix = gate.matrix("complex128")
            if op.controls and len(op.qubits) <= WHOLE_CONTROLLED_UNITARY_QUBITS:
                whole = _controlled_matrix(matrix, op.control_values)
                qc.append(qlib.UnitaryGate(whole, check_input=False), [*op.controls, *op.targets])
                continue
            qgate = qlib.UnitaryGate(matrix, check_input=False)
        else:
            raise ArgumentValueError(f"{gate!r} has no Qiskit equivalent")
        if op.controls:
            ctrl_state = "".join(str(v) for v in reversed(op.control_values))
            qgate = qgate.control(len(op.controls), ctrl_state=ctrl_state, annotated=False)
        qc.append(qgate, [*op.controls, *op.targets])
    return qc


def _with_constant_stores(circuit: Circuit) -> Iterator[Operation]:
    """The circuit's operations, each store of a function of bits as the conditionals on
    them that store constants (Qiskit stores expressions, genqsim a table)."""
    for op in circuit.operations:
        gate = op.gate
        if isinstance(gate, Store) and len(set(gate.table)) > 1:
            chain = classical.as_constant_stores(gate, circuit.n_qubits, circuit.n_clbits)
            yield from chain.operations
        else:
            yield op


WHOLE_CONTROLLED_UNITARY_QUBITS = 10
"""A controlled matrix gate on at most this many qubits (controls and targets) goes to Qiskit
as one ``UnitaryGate`` of the whole controlled matrix. Qiskit runs a controlled
``UnitaryGate`` through a synthesised definition, which gave amplitudes 4e-6 off for a
diagonal on two qubits under two controls; the whole matrix it applies exactly."""


def _controlled_matrix(matrix: np.ndarray, control_values: Sequence[int]) -> np.ndarray:
    """The matrix of ``matrix`` under controls holding ``control_values``, on the controls
    (the lowest bits of its index, in order) then the targets: the identity elsewhere."""
    n_controls = len(control_values)
    size = matrix.shape[0] << n_controls
    whole = np.eye(size, dtype=complex)
    pattern = sum(v << i for i, v in enumerate(control_values))
    rows = pattern | (np.arange(matrix.shape[0]) << n_controls)
    whole[np.ix_(rows, rows)] = matrix
    return whole


def _qiskit_condition(qc: Any, bits: list[Any]) -> Any:
    """The Qiskit bit, or a register over the bits (added once), a condition tests."""
    from qiskit.circuit import ClassicalRegister

    if len(bits) == 1:
        return bits[0]
    for reg in qc.cregs:
        if list(reg) == bits:
            return reg
    reg = ClassicalRegister(bits=bits, name=f"cond{len(qc.cregs)}")
    qc.add_register(reg)
    return reg


def _pauli_op(label: str) -> Any:
    from qiskit.quantum_info import SparsePauliOp

    return SparsePauliOp(label)


def _cirq_table_gate(form: CirqForm, params: tuple, n_qubits: int) -> Any:
    """The Cirq gate a table row names, with its parameter (divided by pi) as exponent."""
    import cirq

    if form.gate == "IdentityGate":
        return cirq.IdentityGate(n_qubits)
    exponent: Any = form.exponent
    if exponent is None:
        (theta,) = params
        exponent = theta / sympy.pi if isinstance(theta, sympy.Basic) else theta / np.pi
    return getattr(cirq, form.gate)(exponent=exponent, global_shift=form.global_shift)


def _cirq_operations(gate: Any, targets: list[Any]) -> list[Any]:
    """Cirq operations equal to ``gate`` on ``targets`` (genqsim order: targets[0] is the
    least-significant bit of the gate's matrix index; Cirq's last qubit is)."""
    import cirq

    big_endian = list(reversed(targets))
    if isinstance(gate, NamedGate):
        form = GATE_SPECS[gate.name].cirq
        if form is not None:
            return [_cirq_table_gate(form, gate.params, gate.n_qubits).on(*big_endian)]
        if gate.name == "u" and gate.free_symbols and len(gate.params) == 3:
            theta, phi, lam = gate.params  # U = P(phi) Ry(theta) P(lam), exactly
            p = GATE_SPECS["p"].cirq
            ry = GATE_SPECS["ry"].cirq
            assert p is not None and ry is not None
            return [
                _cirq_table_gate(p, (lam,), 1).on(*targets),
                _cirq_table_gate(ry, (theta,), 1).on(*targets),
                _cirq_table_gate(p, (phi,), 1).on(*targets),
            ]
    if isinstance(gate, PauliRotation) and gate.free_symbols:
        active = [(q, letter) for q, letter in zip(targets, gate.pauli) if letter != "I"]
        if active:  # exp(-i t P/2): +1 eigenspace gets exp(-i t/2), -1 gets exp(i t/2)
            (theta,) = gate.params
            paulis: Any = cirq.PauliString({q: getattr(cirq, letter) for q, letter in active})
            return [
                cirq.PauliStringPhasor(
                    paulis,
                    exponent_neg=theta / (2 * sympy.pi),
                    exponent_pos=-theta / (2 * sympy.pi),
                )
            ]
    if gate.free_symbols:
        raise ArgumentValueError(f"{gate!r} with free parameters has no Cirq form; bind them first")
    return [cirq.MatrixGate(gate.matrix("complex128")).on(*big_endian)]


def to_cirq(circuit: Circuit) -> Any:
    """A ``cirq.Circuit`` equal to ``circuit``, global phase included, on
    ``cirq.LineQubit(0..n-1)`` (``from_cirq`` maps them back to the same indices). Table
    gates keep their symbols (``rz(t)`` becomes ``ZPowGate(exponent=t/pi, global_shift=-0.5)``),
    parametrised Pauli rotations become ``PauliStringPhasor`` s, other numeric gates
    ``MatrixGate`` s; measurements write to keys ``c0``, ``c1``, ...."""
    import cirq

    if not isinstance(circuit, Circuit):
        raise ArgumentTypeError(f"to_cirq() takes a Circuit, got {type(circuit).__name__}")
    qubits = cirq.LineQubit.range(circuit.n_qubits)
    ops: list[Any] = []
    for op in circuit.operations:
        gate = op.gate
        if gate.kind is GateKind.BARRIER:
            continue
        if isinstance(gate, Measure):
            ops.append(cirq.measure(qubits[op.targets[0]], key=f"c{gate.clbit}"))
            continue
        if gate.kind is GateKind.RESET:
            ops.append(cirq.ResetChannel().on(qubits[op.targets[0]]))
            continue
        if gate.kind in (GateKind.CONDITIONAL, GateKind.LOOP, GateKind.STORE):
            raise ArgumentValueError(
                f"to_cirq writes gates, measurements and resets, not {gate.name!r} (classical "
                "control and stores): export with gq.to_qiskit or gq.qasm.dumps3"
            )
        made = _cirq_operations(gate, [qubits[q] for q in op.targets])
        if op.controls:
            controls = [qubits[q] for q in op.controls]
            values = list(op.control_values)
            made = [m.controlled_by(*controls, control_values=values) for m in made]
        ops.extend(made)
    return cirq.Circuit(ops)
