"""Circuit to OpenQASM 2.0 text (``qreg q[n]``, ``creg c[m]``, qelib1 gate names).

Controlled library gates map to their qelib1 names (``cx``, ``ccx``, ``c3x``, ``crz``, ``cu``,
``cswap``, ...); control value 0 is written as X before and after. Pauli rotations are written
as their basis-change / CNOT-ladder / ``rz`` decomposition. Arbitrary matrices have no
OpenQASM 2.0 form and are refused with a clear error.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

from ...circuit.circuit import Circuit, Operation
from ...circuit.conditional import Conditional
from ...circuit.gates import (
    GATE_SPECS,
    QASM_CONTROLLED,
    GateKind,
    Measure,
    NamedGate,
    PauliRotation,
)
from ...errors import ArgumentTypeError
from .lexer import QasmError

# (library name, number of controls) -> qelib1 name, from the gate table
_CONTROLLED = {key: name for key, (name, _) in QASM_CONTROLLED.items()}


@functools.cache
def _printer() -> Any:
    """A SymPy printer for OpenQASM syntax: ``^`` for powers, ``ln`` for logarithms, and
    floats with all 17 significant digits (built on first use: it imports SymPy)."""
    import sympy
    from sympy.printing.str import StrPrinter

    class QasmPrinter(StrPrinter):
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

    return QasmPrinter()


def _expr(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, complex):
        raise QasmError(f"complex gate parameter {value} has no OpenQASM 2.0 form")
    import sympy

    expr = sympy.sympify(value)
    if expr.free_symbols:
        names = ", ".join(sorted(map(str, expr.free_symbols)))
        raise QasmError(f"OpenQASM 2.0 has no free parameters; bind {names} first")
    return _printer().doprint(expr)


def _call(name: str, params: tuple, qubits: tuple[int, ...]) -> str:
    args = f"({', '.join(_expr(p) for p in params)})" if params else ""
    return f"{name}{args} " + ", ".join(f"q[{q}]" for q in qubits) + ";"


def _pauli_rotation(op: Operation) -> list[str]:
    gate = op.gate
    assert isinstance(gate, PauliRotation)
    active = [(q, p) for q, p in zip(op.targets, gate.pauli) if p != "I"]
    if not active:
        return []
    import sympy

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


class _Registers:
    """Classical registers for the export: one ``c`` for all bits, unless conditionals test
    parts of them; then the tested ranges become registers of their own (OpenQASM 2 tests
    whole registers only)."""

    def __init__(self, circuit: Circuit) -> None:
        tested = {
            op.gate.clbits for op in _all_operations(circuit) if isinstance(op.gate, Conditional)
        }
        n = circuit.n_clbits
        if all(t == tuple(range(n)) for t in tested):
            self.ranges = [(0, n)] if n else []
        else:
            starts: set[int] = set()
            for bits in tested:
                if list(bits) != list(range(bits[0], bits[0] + len(bits))):
                    raise QasmError(
                        f"a condition on classical bits {list(bits)} (not consecutive, "
                        "ascending) has no OpenQASM 2.0 form"
                    )
                starts.update((bits[0], bits[-1] + 1))
            cuts = sorted(starts | {0, n})
            self.ranges = [(a, b) for a, b in itertools.pairwise(cuts) if b > a]
            for bits in tested:
                if (bits[0], bits[-1] + 1) not in self.ranges:
                    raise QasmError(
                        f"conditions on overlapping classical bits ({list(bits)}) have no "
                        "OpenQASM 2.0 form"
                    )
        self.names = {r: "c" if len(self.ranges) == 1 else f"c{r[0]}" for r in self.ranges}

    def declarations(self) -> list[str]:
        return [f"creg {self.names[(a, b)]}[{b - a}];" for a, b in self.ranges]

    def bit(self, clbit: int) -> str:
        for a, b in self.ranges:
            if a <= clbit < b:
                return f"{self.names[(a, b)]}[{clbit - a}]"
        raise QasmError(f"classical bit {clbit} is outside the circuit's {self.ranges}")

    def register(self, clbits: tuple[int, ...]) -> str:
        return self.names[(clbits[0], clbits[-1] + 1)]


def _all_operations(circuit: Circuit) -> list[Operation]:
    out = []
    for op in circuit.operations:
        out.append(op)
        if isinstance(op.gate, Conditional):
            out.extend(_all_operations(op.gate.body))
    return out


def _operation(op: Operation, registers: _Registers) -> list[str]:
    gate = op.gate
    if gate.kind is GateKind.BARRIER:
        return ["barrier " + ", ".join(f"q[{q}]" for q in op.targets) + ";"]
    if isinstance(gate, Measure):
        return [f"measure q[{op.targets[0]}] -> {registers.bit(gate.clbit)};"]
    if isinstance(gate, Conditional):
        prefix = f"if({registers.register(gate.clbits)}=={gate.value}) "
        lines = []
        for inner in gate.operations_on(op.targets):
            body = _operation(inner, registers)
            if len(body) != 1:
                raise QasmError(
                    f"{inner.gate!r} under a condition needs {len(body)} OpenQASM 2.0 "
                    "statements, and 'if' guards one"
                )
            lines.append(prefix + body[0])
        return lines
    if gate.kind is GateKind.CHANNEL:
        raise QasmError(
            f"noise channel {gate.name} has no OpenQASM 2.0 form (export the noiseless "
            "circuit and keep the noise model beside it)"
        )
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
    registers = _Registers(circuit)
    lines.extend(registers.declarations())
    for op in circuit.operations:
        lines.extend(_operation(op, registers))
    return "\n".join(lines) + "\n"
