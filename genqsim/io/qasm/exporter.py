"""Circuit to OpenQASM text: 2.0 (:func:`dumps`) and 3 (:func:`dumps3`).

OpenQASM 2.0 (``qreg q[n]``, ``creg c[m]``, qelib1 gate names): controlled library gates map to
their qelib1 names (``cx``, ``ccx``, ``c3x``, ``crz``, ``cu``, ``cswap``, ...); control value 0
is written as X before and after. OpenQASM 3 (``qubit[n] q``, ``bit[m] c``, ``stdgates.inc``)
says what 2.0 cannot: any number of controls and control values (``ctrl(k) @``,
``negctrl @``), conditions on any bits (``if (c[0] == 1 && c[2] == 0) { ... }``), global
phases (``gphase``) and free parameters (``input float[64] theta;``). In both, Pauli rotations
are written as their basis-change / CNOT-ladder / ``rz`` decomposition, and arbitrary
matrices and noise channels have no form and are refused with a clear error.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterable
from typing import Any

from ...circuit.circuit import Circuit, Operation
from ...circuit.composite import Composite
from ...circuit.conditional import Conditional, WhileLoop
from ...circuit.gates import (
    GATE_SPECS,
    QASM_CONTROLLED,
    GateKind,
    Measure,
    NamedGate,
    PauliRotation,
)
from ...circuit.store import Store
from ...errors import ArgumentTypeError
from .. import classical
from .fast_reader import KEYWORDS
from .lexer import QasmError
from .parser import LANGUAGE_GATES, QELIB1_NAMES
from .qasm3 import LANGUAGE_GATES as LANGUAGE_GATES3
from .qasm3 import STDGATES

KEYWORDS3 = frozenset(
    """OPENQASM include gate def defcal cal extern qubit bit int uint float angle bool complex
    duration stretch const input output let if else for while in break continue return end
    box delay barrier reset measure ctrl negctrl inv pow gphase U pi tau euler true false
    qreg creg switch case default array sizeof durationof""".split()
)
"""Words OpenQASM 3 reserves: no composite is defined under one."""

# (library name, number of controls) -> qelib1 name, from the gate table
_CONTROLLED = {key: name for key, (name, _) in QASM_CONTROLLED.items()}


@functools.cache
def _printer(version: int = 2) -> Any:
    """A SymPy printer for OpenQASM syntax: ``^`` for powers and ``ln`` for logarithms in
    2.0, ``**`` and ``log`` in 3, and floats with all 17 significant digits (built on first
    use: it imports SymPy)."""
    import sympy
    from sympy.printing.str import StrPrinter

    class QasmPrinter(StrPrinter):
        def _print_Pow(self, expr: Any, rational: bool = False) -> str:
            if expr.exp == sympy.Rational(1, 2):
                return f"sqrt({self._print(expr.base)})"
            base = self.parenthesize(expr.base, 100)
            exp = self.parenthesize(expr.exp, 100)
            return f"{base}{'^' if version == 2 else '**'}{exp}"

        def _print_log(self, expr: Any) -> str:
            return f"{'ln' if version == 2 else 'log'}({self._print(expr.args[0])})"

        def _print_Float(self, expr: Any) -> str:
            return repr(float(expr))

    return QasmPrinter()


def _expr(value: Any, version: int = 2) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, complex):
        raise QasmError(f"complex gate parameter {value} has no OpenQASM form")
    import sympy

    expr = sympy.sympify(value)
    if expr.free_symbols and version == 2:
        names = ", ".join(sorted(map(str, expr.free_symbols)))
        raise QasmError(
            f"OpenQASM 2.0 has no free parameters; bind {names} first, or write OpenQASM 3 "
            "(gq.qasm.dumps3), where they are inputs"
        )
    return _printer(version).doprint(expr)


def _call(name: str, params: tuple, qubits: tuple[int, ...], version: int = 2) -> str:
    args = f"({', '.join(_expr(p, version) for p in params)})" if params else ""
    return f"{name}{args} " + ", ".join(f"q[{q}]" for q in qubits) + ";"


def _pauli_rotation(op: Operation, version: int = 2, prefix: str = "") -> list[str]:
    """The basis change, CNOT ladder and ``rz`` of a Pauli rotation; ``prefix`` (modifiers
    of OpenQASM 3) goes on the ``rz`` alone, which is all a control needs to guard."""
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
            before.append(_call("rx", (sympy.pi / 2,), (q,), version))
            after.append(_call("rx", (-sympy.pi / 2,), (q,), version))
    qs = [q for q, _ in active]
    ladder = [_call("cx", (), (a, b)) for a, b in itertools.pairwise(qs)]
    middle = [prefix + _call("rz", gate.params, (*op.controls, qs[-1]), version)]
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


def _guarded(
    gate: Conditional,
    targets: tuple[int, ...],
    registers: _Registers,
    definitions: dict[str, str] | None,
) -> list[str]:
    """OpenQASM 2.0 lines of an if (with its else): every statement of a branch guarded by
    ``if(c==v)``, once for each value the branch runs on. Each guard reads the register
    afresh, so a branch that measures into it is written only where that cannot change
    what runs: one value, no else, and the measurement the last statement."""
    tested = set(gate.clbits)
    register = registers.register(gate.clbits)
    branches = [(gate.operations_on(targets), gate.values)]
    if gate.orelse is not None:
        others = classical.complement(gate.clbits, gate.values)
        branches.append((gate.operations_on(targets, 1), tuple(others)))
    lines = []
    for ops, values in branches:
        for index, inner in enumerate(ops):
            writes = isinstance(inner.gate, Measure) and inner.gate.clbit in tested
            last = index == len(ops) - 1 and len(branches) == 1 and len(values) == 1
            if writes and not last:
                raise QasmError(
                    f"a conditional on {register} measures into it and then runs more, or "
                    "runs on several values or with an else: OpenQASM 2.0's 'if' reads the "
                    "register again for each statement, so it cannot be written; write "
                    "OpenQASM 3 (gq.qasm.dumps3)"
                )
            body = _operation(inner, registers, definitions)
            if len(body) != 1:
                raise QasmError(
                    f"{inner.gate!r} under a condition needs {len(body)} OpenQASM 2.0 "
                    "statements, and 'if' guards one"
                )
            lines += [f"if({register}=={value}) {body[0]}" for value in values]
    return lines


def _all_operations(circuit: Circuit) -> list[Operation]:
    out = []
    for op in circuit.operations:
        out.append(op)
        if isinstance(op.gate, Conditional):
            for body in op.gate.bodies:
                out.extend(_all_operations(body))
    return out


_LOCAL_QUBIT = re.compile(r"\bq\[(\d+)\]")
_FAMILY_DEFINITION = re.compile(r"(?:mcx|mcy|mcz|mcphase|mcrx|mcry|mcrz)_\d+")
"""Names :func:`_multi_controlled` gives its definitions (never a composite's)."""


def composite_arguments(gate: Composite) -> tuple[Any, ...]:
    """The free parameters of a composite's body, by name: the parameters of its definition,
    and its call's arguments (the circuit's ``input`` parameters of those names)."""
    return tuple(sorted(gate.free_symbols, key=str))


class _Composites:
    """The definitions of the composites a circuit holds, one per distinct composite, named
    after it (``name``, then ``name_1``, ... where names are taken or composites of one
    name differ): written with the free parameters of their bodies as their only parameters,
    their bodies at the values called."""

    def __init__(self, definitions: dict[str, str], taken: frozenset[str], version: int) -> None:
        self.definitions, self.taken, self.version = definitions, taken, version
        self.names: dict[Composite, str] = {}

    def name(self, gate: Composite, body_lines: Callable[[Operation], list[str]]) -> str:
        """The name ``gate`` is defined under, adding its definition (and first those of the
        composites its body calls) to the definitions. A body with free parameters takes them
        as the gate's own parameters (a gate body sees no global ``input``): see
        :func:`composite_arguments`."""
        known = self.names.get(gate)
        if known is not None:
            return known
        lines = [line for inner in gate.body for line in body_lines(inner)]
        name, k = gate.name, 0
        while name in self.taken or name in self.definitions or _FAMILY_DEFINITION.fullmatch(name):
            k += 1
            name = f"{gate.name}_{k}"
        separator = "," if self.version == 2 else ", "
        qubits = separator.join(f"q{i}" for i in range(gate.n_qubits))
        body = " ".join(_LOCAL_QUBIT.sub(r"q\1", line) for line in lines)
        arguments = composite_arguments(gate)
        head = f"{name}({', '.join(map(str, arguments))})" if arguments else name
        self.definitions[name] = f"gate {head} {qubits} {{ {body} }}"
        self.names[gate] = name
        return name


MULTI_CONTROLLED_MIN = {"x": 5, "z": 2, "p": 2, "y": 2, "rx": 2, "ry": 2, "rz": 2}
"""From how many controls a gate is written as a definition of its multi-controlled family
(fewer have qelib1 names: ``cx`` .. ``c4x``, ``cz``, ``cp``, ``cy``)."""


def _phase_parities(n: int, angle: str) -> list[str]:
    """The body of ``mcphase(angle)`` on ``q0 .. q{n-1}`` (``exp(i angle)`` where all are 1):
    ``prod x_i = 2**(1-n) sum over nonempty S of (-1)**(|S|+1) parity(S)``, each parity
    built on its highest qubit ``t`` by CNOTs from the others in Gray-code order (one CNOT
    and one ``u1`` per subset)."""
    lines, scale = [], 2 ** (n - 1)
    for t in range(n):
        previous = 0
        for i in range(1 << t):
            gray = i ^ (i >> 1)
            if gray != previous:
                lines.append(f"cx q{(gray ^ previous).bit_length() - 1},q{t};")
            sign = "-" if bin(gray).count("1") % 2 else ""
            lines.append(f"u1({sign}({angle})/{scale}) q{t};")
            previous = gray
        if previous:
            lines.append(f"cx q{previous.bit_length() - 1},q{t};")
    return lines


def _multi_controlled(gate: NamedGate, k: int, definitions: dict[str, str]) -> str | None:
    """The name of a definition, added to ``definitions``, of ``gate`` under ``k`` controls
    (qubits ``q0 .. q{k-1}``, target ``q{k}``), as the multi-controlled families Qiskit
    writes and genqsim reads back as the one gate: ``mcx_<k>``, ``mcz_<k>``, ``mcy_<k>``,
    ``mcphase_<k>(lam)``, ``mcrx_<k>(theta)`` (and ``mcry``, ``mcrz``); ``None`` for other
    gates. X, Y and Z are the phase ``pi`` in their basis; ``rz(theta)`` is the phase
    ``theta`` times ``exp(-i theta/2)`` on the controls, ``rx`` and ``ry`` that in theirs."""
    if gate.name not in MULTI_CONTROLLED_MIN or k < MULTI_CONTROLLED_MIN[gate.name]:
        return None
    n = k + 1
    qubits = ",".join(f"q{i}" for i in range(n))
    family = {"x": "mcx", "z": "mcz", "y": "mcy", "p": "mcphase", "rx": "mcrx", "ry": "mcry",
              "rz": "mcrz"}[gate.name]  # fmt: skip
    name = f"{family}_{k}"
    target = f"q{k}"
    basis = {"x": "h", "rx": "h", "y": "y", "ry": "y"}.get(gate.name, "z")
    before, after = {
        "h": (f"h {target};", f"h {target};"), "z": ("", ""),
        "y": (f"sdg {target}; h {target};", f"h {target}; s {target};"),
    }[basis]  # fmt: skip
    if gate.name == "p":
        head, body = f"{name}(lam)", _phase_parities(n, "lam")
    elif gate.name in ("rx", "ry", "rz"):
        head = f"{name}(theta)"
        body = _phase_parities(n, "theta") + _phase_parities(k, "-(theta)/2")
    else:
        head, body = name, _phase_parities(n, "pi")
    definitions.setdefault(name, f"gate {head} {qubits} {{ {before} {' '.join(body)} {after} }}")
    return name


def _operation(
    op: Operation,
    registers: _Registers,
    definitions: dict[str, str] | None = None,
    composites: _Composites | None = None,
) -> list[str]:
    gate = op.gate
    if isinstance(gate, Composite):
        if composites is None or op.controls:  # its operations (controlled, in a condition)
            placed = gate.operations_on(op.targets, op.controls, op.control_values)
            return [line for inner in placed for line in _operation(inner, registers, definitions)]
        name = composites.name(gate, lambda inner: _operation(inner, registers, definitions,
                                                              composites))  # fmt: skip
        return [_call(name, composite_arguments(gate), op.targets)]
    if gate.kind is GateKind.BARRIER:
        return ["barrier " + ", ".join(f"q[{q}]" for q in op.targets) + ";"]
    if isinstance(gate, Measure):
        return [f"measure q[{op.targets[0]}] -> {registers.bit(gate.clbit)};"]
    if isinstance(gate, WhileLoop):
        raise QasmError(
            "OpenQASM 2.0 has no while loops: write OpenQASM 3 (gq.qasm.dumps3), which does"
        )
    if isinstance(gate, Conditional):
        return _guarded(gate, op.targets, registers, definitions)
    if isinstance(gate, Store):
        raise QasmError(
            "a classical store has no OpenQASM 2.0 form (bits are written by measurements "
            "there): write OpenQASM 3 (gq.qasm.dumps3), which assigns bits"
        )
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
    params = gate.params
    if key not in _CONTROLLED:
        family = _multi_controlled(gate, len(op.controls), {} if definitions is None
                                   else definitions)  # fmt: skip
        if family is None:
            raise QasmError(
                f"{gate.name} with {len(op.controls)} control(s) has no OpenQASM 2.0 name; "
                "OpenQASM 3 (gq.qasm.dumps3) writes any controls"
            )
        return [*flips, _call(family, params, op.controls + op.targets), *flips]
    if gate.name == "u" and len(params) == 3:
        params = (*params, 0)
    line = _call(_CONTROLLED[key], params, op.controls + op.targets)
    return [*flips, line, *flips]


def dumps(circuit: Circuit) -> str:
    """OpenQASM 2.0 text for ``circuit``; ``loads(dumps(c)) == c`` for library gates."""
    if not isinstance(circuit, Circuit):
        raise ArgumentTypeError(f"dumps() takes a Circuit, got {type(circuit).__name__}")
    registers = _Registers(circuit)
    definitions: dict[str, str] = {}
    composites = _Composites(definitions, QELIB1_NAMES | LANGUAGE_GATES | KEYWORDS, 2)
    body: list[str] = []
    for op in circuit.instructions:
        body.extend(_operation(op, registers, definitions, composites))
    lines = ["OPENQASM 2.0;", 'include "qelib1.inc";', *definitions.values()]
    lines.append(f"qreg q[{max(circuit.n_qubits, 1)}];")
    lines.extend(registers.declarations())
    return "\n".join(lines + body) + "\n"


# -- OpenQASM 3 ----------------------------------------------------------------------------------

STDGATES_CONTROLLED = {("x", 1): "cx", ("y", 1): "cy", ("z", 1): "cz", ("p", 1): "cp",
                       ("rx", 1): "crx", ("ry", 1): "cry", ("rz", 1): "crz", ("h", 1): "ch",
                       ("x", 2): "ccx", ("swap", 1): "cswap"}  # fmt: skip
"""Controlled gates ``stdgates.inc`` names (every control on 1); others take ``ctrl @``."""

DEFINITIONS3 = {
    "iswap": "gate iswap a, b { s a; s b; h a; cx a, b; cx b, a; h b; }",
    "rzz": "gate rzz(theta) a, b { cx a, b; rz(theta) b; cx a, b; }",
    "rxx": "gate rxx(theta) a, b { h a; h b; cx a, b; rz(theta) b; cx a, b; h a; h b; }",
    "ryy": "gate ryy(theta) a, b { rx(pi/2) a; rx(pi/2) b; cx a, b; rz(theta) b; cx a, b; "
           "rx(-pi/2) a; rx(-pi/2) b; }",
}  # fmt: skip
"""Definitions of the table gates ``stdgates.inc`` lacks, each exactly the gate (so reading
them back runs the table gate, see :mod:`.recognize`)."""

_BASE3 = {"sxdg": "inv @ sx", "iswapdg": "inv @ iswap", "u": "U"}
"""Table gates written in OpenQASM 3 by another name or a modifier."""


def _modifiers(values: tuple[int, ...]) -> str:
    """``ctrl @``/``negctrl @`` prefixes for control values in order, runs merged."""
    out = []
    for value, run in itertools.groupby(values):
        k = len(list(run))
        word = "ctrl" if value else "negctrl"
        out.append(f"{word} @ " if k == 1 else f"{word}({k}) @ ")
    return "".join(out)


class _Writer3:
    """The OpenQASM 3 lines of a circuit: definitions it needs, then its operations. The
    classical bits are ``c``; a circuit with scratch bits (``Circuit.scratch_clbits``) has
    its result bits in ``output bit[m] c`` and the scratch bits in ``bit[k] scratch``, so
    that a reader reports only ``c`` (OpenQASM 3 reports only outputs where a program
    declares some)."""

    def __init__(self, circuit: Circuit) -> None:
        self.definitions: dict[str, str] = {}
        taken = STDGATES | LANGUAGE_GATES3 | frozenset(DEFINITIONS3) | KEYWORDS3
        self.composites = _Composites(self.definitions, taken | {"scratch"}, 3)
        self.results = circuit.result_clbits
        scratch = sorted(circuit.scratch_clbits)
        self.names = {b: f"c[{j}]" for j, b in enumerate(self.results)}
        self.names.update({b: f"scratch[{k}]" for k, b in enumerate(scratch)})

    def declarations(self) -> list[str]:
        """The classical bits' declarations."""
        if len(self.names) == len(self.results):
            return [f"bit[{len(self.results)}] c;"] if self.results else []
        return [f"output bit[{len(self.results)}] c;",
                f"bit[{len(self.names) - len(self.results)}] scratch;"]  # fmt: skip

    def bit(self, clbit: int) -> str:
        return self.names.get(clbit, f"c[{clbit}]")

    def condition(self, gate: Conditional, n_clbits: int) -> str:
        """``c == 3``, ``c[0] == 1 && c[2] == 0``, or (a while loop on several values) those
        joined by ``||``."""
        tests = []
        for value in gate.values:
            if gate.clbits == self.results and len(self.results) > 1:
                tests.append(f"c == {value}")
            else:
                tests.append(" && ".join(f"{self.bit(b)} == {(value >> i) & 1}"
                                         for i, b in enumerate(gate.clbits)))  # fmt: skip
        if len(tests) == 1:
            return tests[0]
        return " || ".join(f"({test})" for test in tests)

    def operation(self, op: Operation, n_clbits: int, indent: str = "") -> list[str]:
        gate = op.gate
        if gate.kind is GateKind.BARRIER:
            return [indent + "barrier " + ", ".join(f"q[{q}]" for q in op.targets) + ";"]
        if isinstance(gate, Measure):
            return [f"{indent}{self.bit(gate.clbit)} = measure q[{op.targets[0]}];"]
        if gate.kind is GateKind.RESET:
            return [f"{indent}reset q[{op.targets[0]}];"]
        if isinstance(gate, Store):
            return self.store(gate, op, n_clbits, indent)
        if isinstance(gate, Conditional):  # an if (with its else), or a while loop
            lines = [f"{indent}{gate.keyword} ({self.condition(gate, n_clbits)}) {{"]
            for inner in gate.operations_on(op.targets):
                lines += self.operation(inner, n_clbits, indent + "  ")
            if gate.orelse is not None:
                lines.append(indent + "} else {")
                for inner in gate.operations_on(op.targets, 1):
                    lines += self.operation(inner, n_clbits, indent + "  ")
            return [*lines, indent + "}"]
        if gate.kind is GateKind.CHANNEL:
            raise QasmError(
                f"noise channel {gate.name} has no OpenQASM form (export the noiseless "
                "circuit and keep the noise model beside it)"
            )
        prefix = _modifiers(op.control_values)
        if isinstance(gate, Composite):
            name = self.composites.name(gate, lambda inner: self.operation(inner, n_clbits))
            arguments = composite_arguments(gate)
            return [indent + prefix + _call(name, arguments, op.controls + op.targets, 3)]
        if isinstance(gate, PauliRotation):
            if set(gate.pauli) == {"I"}:  # exp(-i theta/2): a global phase
                phase = -gate.params[0] / 2
                if not op.controls:
                    return [f"{indent}gphase({_expr(phase, 3)});"]
                return [indent + prefix + _call("gphase", (phase,), op.controls, 3)]
            return [indent + line for line in _pauli_rotation(op, 3, prefix)]
        if not isinstance(gate, NamedGate):
            raise QasmError(
                f"{gate!r} has no OpenQASM form (only library gates and Pauli rotations do)"
            )
        return [indent + line for line in self.named(op, gate, prefix)]

    def store(self, gate: Store, op: Operation, n_clbits: int, indent: str) -> list[str]:
        """``c[1] = true;`` for each bit of a constant; a function of bits as an if / else
        chain on its sources, each branch storing a constant."""
        if len(set(gate.table)) == 1:
            return [f"{indent}{self.bit(b)} = {'true' if (gate.table[0] >> i) & 1 else 'false'};"
                    for i, b in enumerate(gate.clbits)]  # fmt: skip
        chain = classical.as_constant_stores(gate, 0, n_clbits)
        return [line for inner in chain.operations
                for line in self.operation(inner, n_clbits, indent)]  # fmt: skip

    def named(self, op: Operation, gate: NamedGate, prefix: str) -> list[str]:
        qubits = op.controls + op.targets
        params = gate.params[:3] if gate.name == "u" else gate.params
        key = (gate.name, len(op.controls))
        if key in STDGATES_CONTROLLED and all(op.control_values):
            line = _call(STDGATES_CONTROLLED[key], params, qubits, 3)
        else:
            name = _BASE3.get(gate.name, GATE_SPECS[gate.name].qasm or gate.name)
            if gate.name in DEFINITIONS3 or gate.name == "iswapdg":
                self.definitions["iswap" if gate.name == "iswapdg" else gate.name] = DEFINITIONS3[
                    "iswap" if gate.name == "iswapdg" else gate.name
                ]
            line = prefix + _call(name, params, qubits, 3)
        lines = [line]
        if gate.name == "u" and len(gate.params) == 4:  # U times exp(i gamma)
            gamma = gate.params[3]
            if op.controls:
                lines.append(prefix + _call("gphase", (gamma,), op.controls, 3))
            else:
                lines.append(f"gphase({_expr(gamma, 3)});")
        return lines


_IDENTIFIER3 = re.compile(r"[^\W\d]\w*")
"""An OpenQASM 3 identifier (a letter, Unicode letters included, or ``_``, then word
characters)."""


def input_names(symbols: Iterable[Any]) -> dict[Any, str]:
    """The ``input`` name of each free parameter: its own where that is an identifier no
    keyword, gate or register of the file takes, else the name Qiskit's exporter gives it
    (``θ[0]`` becomes ``_θ_0_``), made unique with ``_1``, ``_2``, ..."""
    taken = set(KEYWORDS3 | STDGATES | LANGUAGE_GATES3 | frozenset(DEFINITIONS3) | {"q", "c"})
    ordered = sorted(symbols, key=str)
    names = {s: str(s) for s in ordered if _IDENTIFIER3.fullmatch(str(s)) and str(s) not in taken}
    taken |= set(names.values())
    for s in ordered:
        if s in names:
            continue
        base = "_" + re.sub(r"\W", "_", str(s))
        name, k = base, 0
        while name in taken:
            k += 1
            name = f"{base}_{k}"
        names[s] = name
        taken.add(name)
    return names


def dumps3(circuit: Circuit) -> str:
    """OpenQASM 3 text for ``circuit`` (``stdgates.inc`` names; free parameters as
    ``input float[64]``); ``loads3(dumps3(c)) == c`` for library gates, and Qiskit's
    ``qasm3.loads`` reads it."""
    if not isinstance(circuit, Circuit):
        raise ArgumentTypeError(f"dumps3() takes a Circuit, got {type(circuit).__name__}")
    import sympy

    names = input_names(circuit.parameters)
    renamed = {s: sympy.Symbol(name, real=True) for s, name in names.items() if str(s) != name}
    if renamed:  # operation by operation: a composite stays one definition
        ops = [op.bind(renamed) for op in circuit.instructions]
        scratch = circuit.scratch_clbits
        circuit = Circuit(circuit.n_qubits, ops, n_clbits=circuit.n_clbits).mark_scratch(scratch)
    writer = _Writer3(circuit)
    body: list[str] = []
    for op in circuit.instructions:
        body.extend(writer.operation(op, circuit.n_clbits))
    lines = ["OPENQASM 3.0;", 'include "stdgates.inc";']
    lines += [f"input float[64] {name};" for name in sorted(names.values())]
    lines += list(writer.definitions.values())
    lines.append(f"qubit[{max(circuit.n_qubits, 1)}] q;")
    lines += writer.declarations()
    return "\n".join(lines + body) + "\n"
