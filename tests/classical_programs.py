"""Random classical programs as Qiskit builds them, and the reference they are checked
against: classical variables (``add_var``, ``store``), measurements that write the bits
variables read again, ``if``/``else``, ``switch``, ``for`` and ``while`` loops with ``break``
and ``continue``, on gates that only permute basis states (X, CX, SWAP). Every shot gives the
same record, which a small interpreter of Qiskit's circuit objects works out here, written for
these tests: it follows the instructions one by one, with Python integers for the classical
values (Qiskit's types: a ``uint[w]`` sum wraps modulo ``2**w``)."""

from __future__ import annotations

import random
from typing import Any

from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister
from qiskit.circuit import CASE_DEFAULT, Clbit
from qiskit.circuit.classical import expr, types
from qiskit.circuit.controlflow import (
    BreakLoopOp,
    ContinueLoopOp,
    ForLoopOp,
    IfElseOp,
    SwitchCaseOp,
    WhileLoopOp,
)

_BINARY = expr.Binary.Op


def evaluate(node: Any, values: dict[Any, Any]) -> Any:
    """The value of a Qiskit classical expression; ``values`` maps each bit, register and
    variable name to its value."""
    if isinstance(node, expr.Var):
        return values[node.name if node.name is not None else node.var]
    if isinstance(node, expr.Value):
        return node.value
    if isinstance(node, expr.Cast):
        value = evaluate(node.operand, values)
        if node.type.kind is types.Bool:
            return bool(value)
        return int(value) % (1 << node.type.width)
    if isinstance(node, expr.Index):
        return bool((evaluate(node.target, values) >> evaluate(node.index, values)) & 1)
    if isinstance(node, expr.Unary):
        value = evaluate(node.operand, values)
        if node.op is expr.Unary.Op.LOGIC_NOT or node.type.kind is types.Bool:
            return not value
        return ~value & ((1 << node.type.width) - 1)
    left = evaluate(node.left, values)
    if node.op is _BINARY.LOGIC_AND:
        return bool(left) and bool(evaluate(node.right, values))
    if node.op is _BINARY.LOGIC_OR:
        return bool(left) or bool(evaluate(node.right, values))
    right = evaluate(node.right, values)
    found = {
        _BINARY.BIT_AND: lambda: left & right, _BINARY.BIT_OR: lambda: left | right,
        _BINARY.BIT_XOR: lambda: left ^ right, _BINARY.EQUAL: lambda: left == right,
        _BINARY.NOT_EQUAL: lambda: left != right, _BINARY.LESS: lambda: left < right,
        _BINARY.LESS_EQUAL: lambda: left <= right, _BINARY.GREATER: lambda: left > right,
        _BINARY.GREATER_EQUAL: lambda: left >= right, _BINARY.ADD: lambda: left + right,
    }[node.op]()  # fmt: skip
    if node.type.kind is types.Uint:
        return int(found) % (1 << node.type.width)
    return bool(found)


class _Jump(Exception):
    def __init__(self, kind: str) -> None:
        self.kind = kind


MAX_ROUNDS = 40
"""The most iterations :func:`run_classically` runs one while loop for: past them the
program is taken as one that never ends (:class:`NeverEnds`)."""


class NeverEnds(Exception):
    """A while loop of the program ran past :data:`MAX_ROUNDS` iterations."""


def run_classically(qc: QuantumCircuit) -> str:
    """The record every shot of ``qc`` gives (bit 0 rightmost), followed instruction by
    instruction; ``qc``'s gates only permute basis states."""
    qubits = {q: 0 for q in qc.qubits}
    clbits = {b: 0 for b in qc.clbits}
    variables: dict[str, Any] = {}

    def values() -> dict[Any, Any]:
        found: dict[Any, Any] = dict(clbits)
        for register in qc.cregs:
            found[register] = sum(clbits[b] << i for i, b in enumerate(register))
        found.update(variables)
        return found

    def holds(condition: Any) -> bool:
        if isinstance(condition, tuple):  # (bit or register, value)
            return values()[condition[0]] == condition[1]
        return bool(evaluate(condition, values()))

    def run(circuit: QuantumCircuit, qmap: dict[Any, Any], cmap: dict[Any, Any]) -> None:
        for item in circuit.data:
            op = item.operation
            qs = [qmap[q] for q in item.qubits]
            cs = [cmap[c] for c in item.clbits]

            def inner(body: QuantumCircuit, qs: list[Any] = qs, cs: list[Any] = cs) -> None:
                run(body, dict(zip(body.qubits, qs)), dict(zip(body.clbits, cs)))

            if op.name == "x":
                qubits[qs[0]] ^= 1
            elif op.name == "cx":
                qubits[qs[1]] ^= qubits[qs[0]]
            elif op.name == "swap":
                qubits[qs[0]], qubits[qs[1]] = qubits[qs[1]], qubits[qs[0]]
            elif op.name == "measure":
                clbits[cs[0]] = qubits[qs[0]]
            elif op.name == "store":
                value = evaluate(op.rvalue, values())
                target = op.lvalue.var
                if isinstance(target, Clbit):
                    clbits[target] = int(bool(value))
                elif isinstance(target, ClassicalRegister):
                    for i, b in enumerate(target):
                        clbits[b] = (value >> i) & 1
                else:
                    variables[op.lvalue.name] = value
            elif isinstance(op, IfElseOp):
                if holds(op.condition):
                    inner(op.blocks[0])
                elif len(op.blocks) > 1 and op.blocks[1] is not None:
                    inner(op.blocks[1])
            elif isinstance(op, SwitchCaseOp):
                target = evaluate(op.target, values()) if isinstance(op.target, expr.Expr) \
                    else values()[op.target]  # fmt: skip
                for labels, body in op.cases_specifier():
                    if any(v is CASE_DEFAULT or v == target for v in labels):
                        inner(body)
                        break
            elif isinstance(op, (WhileLoopOp, ForLoopOp)):
                rounds = len(op.params[0]) if isinstance(op, ForLoopOp) else None
                done = 0
                while (done < rounds) if rounds is not None else holds(op.condition):
                    done += 1
                    if done > MAX_ROUNDS:
                        raise NeverEnds(f"a while loop ran past {MAX_ROUNDS} iterations")
                    try:
                        inner(op.blocks[0])
                    except _Jump as jump:
                        if jump.kind == "break":
                            break
            elif isinstance(op, (BreakLoopOp, ContinueLoopOp)):
                raise _Jump("break" if isinstance(op, BreakLoopOp) else "continue")
            elif op.name != "barrier":
                raise TypeError(f"not a classical permutation: {op.name}")

    run(qc, {q: q for q in qc.qubits}, {c: c for c in qc.clbits})
    return "".join(str(clbits[b]) for b in reversed(qc.clbits))


def classical_program(seed: int, n: int = 4) -> QuantumCircuit:
    """A random program on ``n`` qubits and bits: the qubits start in a random basis state
    and are measured, then blocks of gates, measurements (into their own bits or others),
    stores into two ``uint[3]`` variables and a ``bool``, and nested control flow. Most
    while loops count their rounds in a ``uint[4]`` per depth, so each ends; some run until
    a measurement at the end of their body reads 0, with no bound (the program is drawn
    again from the same stream until every such loop ends within :data:`MAX_ROUNDS`)."""
    rng = random.Random(seed)
    while True:
        qc = _drawn_program(rng, n)
        try:
            run_classically(qc)
        except NeverEnds:
            continue
        return qc


def _drawn_program(rng: random.Random, n: int) -> QuantumCircuit:
    """One program of :func:`classical_program`, drawn from ``rng``."""
    qc = QuantumCircuit(QuantumRegister(n, "q"), ClassicalRegister(n, "c"))
    numbers = [qc.add_var(f"v{k}", expr.lift(rng.randrange(4), types.Uint(3))) for k in range(2)]
    rounds = [qc.add_var(f"k{d}", expr.lift(0, types.Uint(4))) for d in range(3)]
    flag = qc.add_var("f", expr.lift(rng.random() < 0.5))
    register = qc.cregs[0]

    def number() -> Any:
        low = expr.cast(expr.lift(register), types.Uint(3))  # the register's three low bits
        choice = rng.random()
        if choice < 0.3:
            return rng.choice([*numbers, expr.lift(register)])
        if choice < 0.6:
            return expr.add(rng.choice([*numbers, expr.lift(register)]), rng.randrange(1, 4))
        if choice < 0.8:
            return expr.bit_xor(rng.choice(numbers), rng.choice([*numbers, low]))
        return expr.cast(expr.lift(qc.clbits[rng.randrange(n)]), types.Uint(3))

    def test() -> Any:
        choice = rng.random()
        if choice < 0.3:
            return expr.lift(qc.clbits[rng.randrange(n)])
        if choice < 0.45:
            return flag
        if choice < 0.8:
            compare = rng.choice([expr.less, expr.equal, expr.greater_equal, expr.not_equal])
            return compare(number(), rng.randrange(8))
        return expr.logic_and(test(), expr.logic_not(test()))

    def block(depth: int, in_loop: bool) -> None:
        for _ in range(rng.randint(1, 3)):
            kinds = ["gate", "gate", "measure", "store", "store flag"]
            kinds += ["if", "while", "for", "switch"] if depth < 3 else []
            kinds += ["until"] if depth < 2 and rng.random() < 0.3 else []
            kinds += ["jump"] if in_loop else []
            kind = rng.choice(kinds)
            if kind == "gate":
                gate = rng.choice(["x", "cx", "swap"])
                if gate == "x":
                    qc.x(rng.randrange(n))
                else:
                    getattr(qc, gate)(*rng.sample(range(n), 2))
            elif kind == "measure":
                q = rng.randrange(n)
                qc.measure(q, rng.randrange(n) if rng.random() < 0.3 else q)
            elif kind == "store":
                target, value = rng.choice(numbers), number()
                qc.store(target, value if value.type == target.type else
                         expr.cast(value, target.type))  # fmt: skip
            elif kind == "store flag":
                qc.store(flag, test())
            elif kind == "if":
                with qc.if_test(test()) as orelse:
                    block(depth + 1, in_loop)
                if rng.random() < 0.5:
                    with orelse:
                        block(depth + 1, in_loop)
            elif kind == "while":
                counter = rounds[depth]
                qc.store(counter, 0)
                bound = expr.less(counter, rng.randint(1, 4))
                with qc.while_loop(expr.logic_and(bound, test()) if rng.random() < 0.7 else bound):
                    qc.store(counter, expr.add(counter, 1))
                    block(depth + 1, True)
            elif kind == "until":  # no bound: it ends where its last measurement reads 0
                q = rng.randrange(n)
                with qc.while_loop((qc.clbits[q], 1)):
                    block(depth + 1, True)
                    qc.x(q)
                    qc.measure(q, q)
            elif kind == "for":
                with qc.for_loop(range(rng.randint(1, 3))):
                    block(depth + 1, True)
            elif kind == "switch":
                _switch(rng.choice([register, rng.choice(numbers), flag]), depth, in_loop)
            else:
                with qc.if_test(test()):
                    if rng.random() < 0.5:
                        qc.break_loop()
                    else:
                        qc.continue_loop()

    def _switch(target: Any, depth: int, in_loop: bool) -> None:
        with qc.switch(target) as case:
            if target is flag:
                with case(True):
                    block(depth + 1, in_loop)
                return
            labels = rng.sample(range(8), 3)
            with case(labels[0], labels[1]):
                block(depth + 1, in_loop)
            with case(labels[2]):
                block(depth + 1, in_loop)
            if rng.random() < 0.5:
                with case(case.DEFAULT):
                    block(depth + 1, in_loop)

    for q in range(n):
        if rng.random() < 0.5:
            qc.x(q)
    qc.measure(range(n), range(n))
    block(0, False)
    qc.measure(range(n), range(n))
    return qc


def tally(first: int, last: int, shots: int = 5) -> dict[str, list[tuple[int, str, str]]]:
    """The programs of seeds ``first`` to ``last - 1``, each read from the Qiskit object and
    from the OpenQASM 3 Qiskit writes of it, run for ``shots`` shots and compared with the
    interpreter: the readings by outcome (``read``, ``wrong``, ``refused``, ``crashed``)."""
    import warnings

    from qiskit import qasm3

    import genqsim as gq

    found: dict[str, list[tuple[int, str, str]]] = {
        "read": [], "wrong": [], "refused": [], "crashed": []
    }  # fmt: skip
    for seed in range(first, last):
        qc = classical_program(seed)
        want = run_classically(qc)
        text = qasm3.dumps(qc, experimental=qasm3.ExperimentalFeatures.SWITCH_CASE_V1)
        for name, read, source in (("object", gq.from_qiskit, qc),
                                   ("qasm3", gq.qasm.loads3, text)):  # fmt: skip
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the exporter's timing warnings
                    got = gq.counts(read(source), shots, seed=seed)
            except gq.GenqsimError as exc:
                found["refused"].append((seed, name, str(exc)))
            except Exception as exc:  # a crash is a finding, not the end of the tally
                found["crashed"].append((seed, name, f"{type(exc).__name__}: {exc}"))
            else:
                outcome = "read" if got == {want: shots} else "wrong"
                found[outcome].append((seed, name, f"{got} against {want}"))
    return found


if __name__ == "__main__":  # python tests/classical_programs.py FIRST LAST
    import sys

    result = tally(int(sys.argv[1]), int(sys.argv[2]))
    print({outcome: len(readings) for outcome, readings in result.items()})
    for outcome in ("wrong", "refused", "crashed"):
        for seed, reading, detail in result[outcome]:
            print(f"{outcome}: seed {seed} ({reading}): {detail[:200]}")
