"""Conversion to and from Qiskit and Cirq circuits, keeping qubit order and symbolic
parameters (a Qiskit ``Parameter`` or a Cirq SymPy symbol becomes a real SymPy symbol of the
same name). Qiskit counts qubit 0 as the least-significant bit, like genqsim; Cirq's qubits,
in their sorted order, become genqsim qubits 0, 1, ... (Cirq prints state vectors with the
first qubit most significant, so its amplitudes are genqsim's with the bit order reversed)."""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from ..circuit.circuit import Circuit, Operation
from ..circuit.composite import Composite
from ..circuit.conditional import Conditional
from ..circuit.gates import (
    GATE_SPECS,
    CirqForm,
    GateKind,
    MatrixGate,
    Measure,
    NamedGate,
    PauliRotation,
)
from ..errors import ArgumentTypeError, ArgumentValueError
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
    """A genqsim circuit from a Qiskit ``QuantumCircuit`` (standard gates, ``unitary``,
    measurements, resets, barriers and delays, ``if_test`` blocks with ``else`` branches, and
    ``switch`` blocks: conditioned on a classical bit, a register, or an expression of them).
    Any other gate with a definition (a circuit made a gate, a library gate genqsim's table
    lacks) is one :class:`~genqsim.Composite` by its name, running as that definition."""
    from qiskit import QuantumCircuit

    if not isinstance(qc, QuantumCircuit):
        raise ArgumentTypeError(f"expected a qiskit QuantumCircuit, got {type(qc).__name__}")
    c = Circuit(qc.num_qubits, n_clbits=qc.num_clbits)
    for item in qc.data:
        op = item.operation
        qubits = [qc.find_bit(q).index for q in item.qubits]
        name = op.name
        if name in ("if_else", "switch_case"):
            read = _from_qiskit_if if name == "if_else" else _from_qiskit_switch
            read(qc, c, op, qubits, [qc.find_bit(b).index for b in item.clbits])
        elif getattr(op, "condition", None) is not None:
            raise ArgumentValueError(f"classically conditioned {op.name!r} is not supported")
        elif name in ("barrier", "delay"):  # a delay is an identity on an ideal machine
            c.barrier(qubits)
        elif name == "measure":
            c.measure(qubits[0], qc.find_bit(item.clbits[0]).index)
        elif name == "reset":
            c.reset(qubits[0])
        elif name == "global_phase":  # exp(i phi) = exp(-i (-2 phi) I / 2)
            if c.n_qubits:
                c.pauli_rotation("I", -2 * _from_qiskit_param(op.params[0]), [0])
        elif name == "unitary":
            c.unitary(np.asarray(op.to_matrix()), qubits)
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
        elif getattr(op, "definition", None) is not None:
            body = from_qiskit(op.definition)
            if body.has_non_unitary:  # an instruction that measures: its operations in place
                for sub_op in body.operations:
                    c._append_op(sub_op.remapped(qubits))
            else:  # a gate with a definition: one composite by its name, as Qiskit keeps it
                c.append(Composite(_identifier(name), body, _composite_params(op)), qubits)
        else:
            raise ArgumentValueError(f"Qiskit operation {name!r} has no genqsim equivalent")
    phase = _from_qiskit_param(qc.global_phase)
    if c.n_qubits and phase != 0:
        c.pauli_rotation("I", -2 * phase, [0])
    return c


def _identifier(name: str) -> str:
    """A Qiskit instruction's name as a composite's (an identifier: ``circuit-151`` becomes
    ``circuit_151``)."""
    word = re.sub(r"\W", "_", name) or "gate"
    return word if word.isidentifier() else f"g_{word}"


def _composite_params(op: Any) -> tuple[Any, ...]:
    """A Qiskit gate's parameters shown on its composite (those that convert)."""
    try:
        return tuple(_from_qiskit_param(p) for p in op.params)
    except (ArgumentTypeError, TypeError):  # a matrix or another object: not shown
        return ()


MAX_CONDITION_BITS = 10
"""Classical bits a condition of a Qiskit ``if_else`` or ``switch_case`` may read when it is
an expression (or has an ``else``/default branch): it is evaluated on every value of them."""

_BINARY = {
    "BIT_AND": operator.and_, "BIT_OR": operator.or_, "BIT_XOR": operator.xor,
    "LOGIC_AND": lambda a, b: bool(a) and bool(b), "LOGIC_OR": lambda a, b: bool(a) or bool(b),
    "EQUAL": operator.eq, "NOT_EQUAL": operator.ne, "LESS": operator.lt,
    "LESS_EQUAL": operator.le, "GREATER": operator.gt, "GREATER_EQUAL": operator.ge,
    "SHIFT_LEFT": operator.lshift, "SHIFT_RIGHT": operator.rshift,
}  # fmt: skip
"""Qiskit's classical binary operators on integers (bits and registers as unsigned values)."""


def _condition_bits(qc: Any, target: Any) -> list[int]:
    """The classical bits (indices, lowest first) a Clbit, a register or an expression
    reads."""
    from qiskit.circuit import ClassicalRegister, Clbit
    from qiskit.circuit.classical import expr

    if isinstance(target, Clbit):
        return [qc.find_bit(target).index]
    if isinstance(target, ClassicalRegister):
        return [qc.find_bit(b).index for b in target]
    if isinstance(target, expr.Expr):
        found: dict[int, None] = {}
        for var in expr.iter_vars(target):
            if not isinstance(var.var, (Clbit, ClassicalRegister)):
                raise ArgumentValueError(
                    f"the condition reads the classical variable {var.var!r}: genqsim reads "
                    "conditions on classical bits and registers"
                )
            found.update(dict.fromkeys(_condition_bits(qc, var.var)))
        return list(found)
    raise ArgumentValueError(f"cannot read a condition on {target!r}")


def _evaluate(qc: Any, node: Any, bits: dict[int, int]) -> int:
    """A Qiskit classical expression where each classical bit ``i`` holds ``bits[i]``."""
    from qiskit.circuit.classical import expr, types

    if isinstance(node, expr.Var):
        return sum(bits[b] << i for i, b in enumerate(_condition_bits(qc, node.var)))
    if isinstance(node, expr.Value):
        return int(node.value)
    if isinstance(node, expr.Cast):
        inner = _evaluate(qc, node.operand, bits)
        return int(bool(inner)) if isinstance(node.type, types.Bool) else inner
    if isinstance(node, expr.Index):
        return (_evaluate(qc, node.target, bits) >> _evaluate(qc, node.index, bits)) & 1
    if isinstance(node, expr.Unary):
        inner = _evaluate(qc, node.operand, bits)
        if node.op.name == "LOGIC_NOT":
            return int(not inner)
        if node.op.name == "BIT_NOT":
            width = node.type.width if isinstance(node.type, types.Uint) else 1
            return ~inner & ((1 << width) - 1)
    if isinstance(node, expr.Binary) and node.op.name in _BINARY:
        left, right = _evaluate(qc, node.left, bits), _evaluate(qc, node.right, bits)
        return int(_BINARY[node.op.name](left, right))
    raise ArgumentValueError(
        f"the condition {node} is outside what genqsim reads (bits and registers under "
        "not, and, or, xor, shifts, comparisons and integers)"
    )


def _values_where(qc: Any, condition: Any, tested: list[int]) -> list[int]:
    """The values of the ``tested`` bits (the first the lowest) where ``condition`` holds."""
    if len(tested) > MAX_CONDITION_BITS:
        raise ArgumentValueError(
            f"a condition expression on more than {MAX_CONDITION_BITS} classical bits is "
            "refused (it is evaluated on every value of them)"
        )
    return [
        v
        for v in range(1 << len(tested))
        if _evaluate(qc, condition, {b: (v >> i) & 1 for i, b in enumerate(tested)})
    ]


def _from_qiskit_if(qc: Any, c: Circuit, op: Any, qubits: list[int], clbits: list[int]) -> None:
    """An ``IfElseOp`` as conditionals: the true block on the values of the tested bits where
    the condition holds (a ``(bit or register, value)`` pair, or an expression evaluated on
    every value of the bits it reads), the false block (if any) on every other value."""
    condition = op.condition
    if isinstance(condition, tuple):
        target, value = condition
        tested = _condition_bits(qc, target)
        values = [int(value)]
    else:
        tested = _condition_bits(qc, condition)
        values = _values_where(qc, condition, tested)
    branches = [(op.params[0], values)]
    if len(op.params) > 1 and op.params[1] is not None:
        if len(tested) > MAX_CONDITION_BITS:
            raise ArgumentValueError(
                f"an else branch on more than {MAX_CONDITION_BITS} classical bits is refused "
                "(it runs once per other value of them)"
            )
        chosen = set(values)
        branches.append((op.params[1], [v for v in range(1 << len(tested)) if v not in chosen]))
    _branches(c, branches, tested, qubits, clbits)


def _from_qiskit_switch(qc: Any, c: Circuit, op: Any, qubits: list[int], clbits: list[int]) -> None:
    """A ``SwitchCaseOp`` as conditionals: each case's block on the values of the target's
    bits that select it (the default case on the values no other case names)."""
    from qiskit.circuit import CASE_DEFAULT
    from qiskit.circuit.classical import expr

    tested = _condition_bits(qc, op.target)
    cases = list(op.cases_specifier())
    default = [block for labels, block in cases if CASE_DEFAULT in labels]
    if not default and not isinstance(op.target, expr.Expr):  # the labels are the values
        branches = [(block, [int(v) for v in labels]) for labels, block in cases]
    else:
        if len(tested) > MAX_CONDITION_BITS:
            raise ArgumentValueError(
                f"a switch on more than {MAX_CONDITION_BITS} classical bits with a default "
                "case or an expression target is refused (it runs once per value of them)"
            )
        chosen: dict[int, Any] = {}
        for v in range(1 << len(tested)):
            if isinstance(op.target, expr.Expr):
                key = _evaluate(qc, op.target, {b: (v >> i) & 1 for i, b in enumerate(tested)})
            else:
                key = v
            block = next((b for labels, b in cases if key in labels), None)
            if block is None and default:
                block = default[0]
            if block is not None:
                chosen[v] = block
        branches = [(block, [v for v, b in chosen.items() if b is block])
                    for _, block in cases]  # fmt: skip
    _branches(c, branches, tested, qubits, clbits)


def _branches(
    c: Circuit,
    branches: list[tuple[Any, list[int]]],
    tested: list[int],
    qubits: list[int],
    clbits: list[int],
) -> None:
    """Each Qiskit block as a conditional on each of its values of the ``tested`` bits (its
    qubits and classical bits mapped to the outer circuit's ``qubits`` and ``clbits``)."""
    bodies = []
    for block, values in branches:
        body = from_qiskit(block)
        local_clbits = [block.find_bit(b).index for b in block.clbits]
        remapped = Circuit(body.n_qubits)
        for inner in body.operations:
            if isinstance(inner.gate, Measure):
                inner = Operation(
                    Measure(clbits[local_clbits.index(inner.gate.clbit)]), inner.targets
                )
            remapped._append_op(inner)
        bodies.append((remapped, values))
    several = sum(len(values) for body, values in bodies if body.operations) > 1
    written = {op.gate.clbit for body, _ in bodies for op in body.operations
               if isinstance(op.gate, Measure)}  # fmt: skip
    if several and written & set(tested):
        raise ArgumentValueError(
            "a branch measures into the bits its condition reads, and the condition holds on "
            "several values or has an else: genqsim reads that only as a plain if on one value"
        )
    for body, values in bodies:
        if not body.operations:
            continue
        for v in values:
            c.if_(tested, v, body, qubits=qubits)


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


def to_qiskit(circuit: Circuit) -> Any:
    """A Qiskit ``QuantumCircuit`` equal to ``circuit`` (symbols become ``Parameter`` s)."""
    from qiskit import QuantumCircuit
    from qiskit.circuit import library as qlib

    qc = QuantumCircuit(circuit.n_qubits, circuit.n_clbits)
    table: dict = {}
    for op in circuit.operations:
        gate = op.gate
        if gate.kind is GateKind.BARRIER:
            qc.barrier(list(op.targets))
            continue
        if isinstance(gate, Measure):
            qc.measure(op.targets[0], gate.clbit)
            continue
        if gate.kind is GateKind.RESET:
            qc.reset(op.targets[0])
            continue
        if isinstance(gate, Conditional):
            body = Circuit(
                circuit.n_qubits, gate.operations_on(op.targets), n_clbits=circuit.n_clbits
            )
            qc.if_test(
                (_qiskit_condition(qc, gate.clbits), gate.value), to_qiskit(body), qc.qubits,
                qc.clbits,
            )  # fmt: skip
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
            qgate = qlib.UnitaryGate(gate.matrix("complex128"), check_input=False)
        else:
            raise ArgumentValueError(f"{gate!r} has no Qiskit equivalent")
        if op.controls:
            ctrl_state = "".join(str(v) for v in reversed(op.control_values))
            qgate = qgate.control(len(op.controls), ctrl_state=ctrl_state, annotated=False)
        qc.append(qgate, [*op.controls, *op.targets])
    return qc


def _qiskit_condition(qc: Any, clbits: tuple[int, ...]) -> Any:
    """The Qiskit bit, or a register over the bits (added once), a condition tests."""
    from qiskit.circuit import ClassicalRegister

    if len(clbits) == 1:
        return qc.clbits[clbits[0]]
    bits = [qc.clbits[b] for b in clbits]
    for reg in qc.cregs:
        if list(reg) == bits:
            return reg
    reg = ClassicalRegister(bits=bits, name=f"cond{len(qc.cregs)}")
    qc.add_register(reg)
    return reg


def _pauli_op(label: str) -> Any:
    from qiskit.quantum_info import SparsePauliOp

    return SparsePauliOp(label)


def _real_symbols(expr: Any) -> Any:
    expr = sympy.sympify(expr)
    return expr.xreplace({s: sympy.Symbol(s.name, real=True) for s in expr.free_symbols})


def from_cirq(circuit: Any) -> Circuit:
    """A genqsim circuit from a ``cirq.Circuit``, its qubits in sorted order becoming genqsim
    qubits 0, 1, .... Gates of genqsim's table keep their names (``H``, ``CNOT``, ``CZ``,
    ``TOFFOLI``, ``T``, ``Rx(t)``, ``X**0.5`` as ``sx``, ``Z**e`` as ``p``, ...); other
    numeric operations go through their exact unitaries; parametrised ``Rx/Ry/Rz``,
    ``X/Y/Z/CZ/CX**t`` and ``PhasedXPow`` keep their symbols; measurements map to classical
    bits in order of appearance."""
    import cirq

    if not isinstance(circuit, cirq.AbstractCircuit):
        raise ArgumentTypeError(f"expected a cirq.Circuit, got {type(circuit).__name__}")
    return from_cirq_measured(circuit, sorted(circuit.all_qubits()))[0]


@dataclass(frozen=True)
class CirqMeasurement:
    """One measurement of a Cirq key: the classical bits it wrote, in the order of its
    qubits, and which of them Cirq reports inverted (its ``invert_mask``)."""

    clbits: tuple[int, ...]
    inverted: tuple[bool, ...]


def from_cirq_measured(
    circuit: Any, qubits: Sequence[Any]
) -> tuple[Circuit, dict[str, list[CirqMeasurement]]]:
    """:func:`from_cirq` with ``qubits[i]`` as genqsim qubit ``i`` (qubits the circuit leaves
    idle included), and the measurements of each key in order of appearance."""
    import cirq

    index = {q: i for i, q in enumerate(qubits)}
    missing = set(circuit.all_qubits()) - set(index)
    if missing:
        raise ArgumentValueError(
            f"the qubit order lacks the circuit's qubits {sorted(missing)}: list every qubit"
        )
    c = Circuit(len(qubits))
    records: dict[str, list[CirqMeasurement]] = {}
    clbit = 0
    for op in circuit.all_operations():
        qs = [index[q] for q in op.qubits]
        gate = op.gate
        if isinstance(gate, cirq.MeasurementGate):
            if gate.confusion_map:
                raise ArgumentValueError(
                    f"measurement {gate.key!r} has a confusion map: genqsim applies readout "
                    "errors from a NoiseModel (NoiseModel.add_readout_error)"
                )
            for q in qs:
                c.measure(q, clbit)
                clbit += 1
            found = CirqMeasurement(
                tuple(range(clbit - len(qs), clbit)), tuple(gate.full_invert_mask())
            )
            records.setdefault(cirq.measurement_key_name(op), []).append(found)
        elif isinstance(gate, cirq.ResetChannel):
            c.reset(qs[0])
        elif not cirq.is_parameterized(op):
            if not _named_cirq_op(c, gate, qs):
                # cirq.unitary is big-endian over op.qubits: the last qubit is the lowest bit
                c.unitary(cirq.unitary(op), list(reversed(qs)))
        else:
            _symbolic_cirq_op(c, gate, qs)
    return c, records


_CIRQ_CONTROLLED = {"CXPowGate": "x", "CZPowGate": "z", "CCXPowGate": "x", "CCZPowGate": "z"}
"""Cirq's controlled Pauli gates (at exponent 1: CNOT, CZ, TOFFOLI, CCZ) and their target."""


def _named_cirq_op(c: Circuit, gate: Any, qs: list[int]) -> bool:
    """Append a numeric Cirq gate as the table gate it is (``H``, ``CNOT``, ``T``, ``Rx(t)``,
    ``ZPowGate(exponent=e)`` as ``p(e*pi)``, ...: the rows' Cirq forms read backwards), so
    names, structure and fast kernels survive; ``False`` for a gate the table lacks."""
    import cirq

    if isinstance(gate, (cirq.Rx, cirq.Ry, cirq.Rz)):
        c.append(NamedGate(type(gate).__name__.lower(), float(gate._rads)), qs)
        return True
    if isinstance(gate, cirq.IdentityGate):
        for q in qs:
            c.id(q)
        return True
    kinds = {cls.__name__ for cls in type(gate).__mro__}  # cirq.X is a _PauliX, an XPowGate
    exponent, shift = getattr(gate, "exponent", None), getattr(gate, "global_shift", None)
    if not isinstance(exponent, (int, float)) or not isinstance(shift, (int, float)):
        return False
    controlled = [_CIRQ_CONTROLLED[k] for k in kinds if k in _CIRQ_CONTROLLED]
    if controlled and exponent == 1 and shift == 0:
        c.append(NamedGate(controlled[0]), [qs[-1]], qs[:-1])
        return True
    targets = list(reversed(qs))  # to_cirq puts targets[0] last
    rows = [(name, spec.cirq) for name, spec in GATE_SPECS.items() if spec.cirq is not None]
    for name, form in rows:  # fixed exponents first: ZPowGate(0.25) is t, not p(pi/4)
        if form.gate in kinds and form.exponent == exponent and form.global_shift == shift:
            c.append(NamedGate(name), targets)
            return True
    for name, form in rows:
        if form.gate in kinds and form.exponent is None and form.global_shift == shift:
            c.append(NamedGate(name, float(exponent) * np.pi), targets)
            return True
    return False


def _symbolic_cirq_op(c: Circuit, gate: Any, qs: list[int]) -> None:
    import cirq

    pi = sympy.pi
    if isinstance(gate, (cirq.Rx, cirq.Ry, cirq.Rz)):
        name = {cirq.Rx: "rx", cirq.Ry: "ry", cirq.Rz: "rz"}[type(gate)]
        c.append(NamedGate(name, _real_symbols(gate._rads)), qs)
        return
    if isinstance(gate, cirq.EigenGate) and type(gate) in (
        cirq.XPowGate, cirq.YPowGate, cirq.ZPowGate, cirq.CZPowGate, cirq.CXPowGate
    ):  # fmt: skip
        t = _real_symbols(gate.exponent)
        shift = sympy.sympify(gate.global_shift)
        # P**t = exp(i pi t (1 - P)/2) * exp(i pi t s) = exp(i pi t (1/2 + s)) R_P(pi t)
        phase = pi * t * (sympy.Rational(1, 2) + shift)
        if isinstance(gate, cirq.ZPowGate):
            c.p(pi * t, qs[0])
            phase = pi * t * shift
        elif isinstance(gate, cirq.CZPowGate):
            c.cp(pi * t, qs[0], qs[1])
            phase = pi * t * shift
        elif isinstance(gate, cirq.CXPowGate):
            c.append(NamedGate("rx", pi * t), [qs[1]], [qs[0]])
            c.append(NamedGate("p", pi * t / 2), [qs[0]])
            phase = pi * t * shift
        else:
            c.append(NamedGate("rx" if isinstance(gate, cirq.XPowGate) else "ry", pi * t), qs)
        if phase != 0:
            c.pauli_rotation("I", -2 * phase, [qs[0]])
        return
    raise ArgumentValueError(f"parametrised Cirq gate {gate!r} has no genqsim equivalent")


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
        made = _cirq_operations(gate, [qubits[q] for q in op.targets])
        if op.controls:
            controls = [qubits[q] for q in op.controls]
            values = list(op.control_values)
            made = [m.controlled_by(*controls, control_values=values) for m in made]
        ops.extend(made)
    return cirq.Circuit(ops)
