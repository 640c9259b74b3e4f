"""Circuit to OpenQASM 2.0 text (``qreg q[n]``, ``creg c[m]``, qelib1 gate names).

Controlled library gates map to their qelib1 names (``cx``, ``ccx``, ``c3x``, ``crz``, ``cu``,
``cswap``, ...); control value 0 is written as X before and after. Pauli rotations are written
as their basis-change / CNOT-ladder / ``rz`` decomposition. Arbitrary matrices have no
OpenQASM 2.0 form and are refused with a clear error.
"""

from __future__ import annotations

import itertools
from typing import Any

import sympy
from sympy.printing.str import StrPrinter

from ..circuit import Circuit, Operation
from ..errors import ArgumentTypeError
from ..gates import GATE_SPECS, QASM_CONTROLLED, GateKind, Measure, NamedGate, PauliRotation
from .lexer import QasmError

# (library name, number of controls) -> qelib1 name, from the gate table
_CONTROLLED = {key: name for key, (name, _) in QASM_CONTROLLED.items()}


class _QasmPrinter(StrPrinter):
    """SymPy expressions in OpenQASM syntax: ``^`` for powers, ``ln`` for logarithms, and
    floats with all 17 significant digits."""

    def _print_Pow(self, expr: Any, rational: bool = False) -> str:
        if expr.exp == sympy.Rational(1, 2):
            return f"sqrt({self._print(expr.base)})"
        base = self.parenthesize(expr.base, 100)
        exp = self.parenthesize(expr.exp, 100)
        return f"{base}^{exp}"

    def _print_log(self, expr: Any) -> str:
        return f"ln({self._print(expr.args[0])})"

    def _print_Float(self, expr: Any) -> str:
        return repr(float(expr))


def _expr(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, complex):
        raise QasmError(f"complex gate parameter {value} has no OpenQASM 2.0 form")
    expr = sympy.sympify(value)
    if expr.free_symbols:
        names = ", ".join(sorted(map(str, expr.free_symbols)))
        raise QasmError(f"OpenQASM 2.0 has no free parameters; bind {names} first")
    return _QasmPrinter().doprint(expr)


def _call(name: str, params: tuple, qubits: tuple[int, ...]) -> str:
    args = f"({', '.join(_expr(p) for p in params)})" if params else ""
    return f"{name}{args} " + ", ".join(f"q[{q}]" for q in qubits) + ";"


def _pauli_rotation(op: Operation) -> list[str]:
    gate = op.gate
    assert isinstance(gate, PauliRotation)
    active = [(q, p) for q, p in zip(op.targets, gate.pauli) if p != "I"]
    if not active:
        return []
    before, after = [], []
    for q, p in active:
        if p == "X":
            before.append(_call("h", (), (q,)))
            after.append(_call("h", (), (q,)))
        elif p == "Y":
            before.append(_call("rx", (sympy.pi / 2,), (q,)))
            after.append(_call("rx", (-sympy.pi / 2,), (q,)))
    qs = [q for q, _ in active]
    ladder = [_call("cx", (), (a, b)) for a, b in itertools.pairwise(qs)]
    middle = [_call("rz", gate.params, (qs[-1],))]
    return before + ladder + middle + ladder[::-1] + after


def _operation(op: Operation) -> list[str]:
    gate = op.gate
    if gate.kind is GateKind.BARRIER:
        return ["barrier " + ", ".join(f"q[{q}]" for q in op.targets) + ";"]
    if isinstance(gate, Measure):
        return [f"measure q[{op.targets[0]}] -> c[{gate.clbit}];"]
    if gate.kind is GateKind.RESET:
        return [f"reset q[{op.targets[0]}];"]
    if isinstance(gate, PauliRotation) and not op.controls:
        return _pauli_rotation(op)
    if not isinstance(gate, NamedGate):
        raise QasmError(
            f"{gate!r} has no OpenQASM 2.0 form (only library gates and Pauli rotations do)"
        )
    flips = [_call("x", (), (c,)) for c, v in zip(op.controls, op.control_values) if v == 0]
    if not op.controls:
        qasm = GATE_SPECS[gate.name].qasm
        if gate.name == "iswapdg":
            raise QasmError("iswapdg has no OpenQASM 2.0 name; use its inverse form explicitly")
        if qasm is None:
            raise QasmError(f"gate {gate.name!r} has no OpenQASM 2.0 form")
        if gate.name == "u" and len(gate.params) == 4:
            raise QasmError("U with a global phase has no uncontrolled OpenQASM 2.0 form")
        return [_call(qasm, gate.params, op.targets)]
    key = (gate.name, len(op.controls))
    if key not in _CONTROLLED:
        raise QasmError(f"{gate.name} with {len(op.controls)} control(s) has no OpenQASM 2.0 name")
    params = gate.params
    if gate.name == "u" and len(params) == 3:
        params = (*params, 0)
    line = _call(_CONTROLLED[key], params, op.controls + op.targets)
    return [*flips, line, *flips]


def dumps(circuit: Circuit) -> str:
    """OpenQASM 2.0 text for ``circuit``; ``loads(dumps(c)) == c`` for library gates."""
    if not isinstance(circuit, Circuit):
        raise ArgumentTypeError(f"dumps() takes a Circuit, got {type(circuit).__name__}")
    lines = ["OPENQASM 2.0;", 'include "qelib1.inc";', f"qreg q[{max(circuit.n_qubits, 1)}];"]
    if circuit.n_clbits:
        lines.append(f"creg c[{circuit.n_clbits}];")
    for op in circuit.operations:
        lines.extend(_operation(op))
    return "\n".join(lines) + "\n"
