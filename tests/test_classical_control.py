"""Classical control as Qiskit builds it and as its OpenQASM 3 exporter writes it: ``switch``,
classical variables (``add_var``, ``store``; ``bool``/``int``/``uint`` in files), ``for``
loops with a loop parameter, ``box``, ``delay`` and ``stretch``. Each circuit is read both
ways (``gq.from_qiskit`` and ``gq.qasm.loads3(qasm3.dumps(qc))``) and its exact distribution of
classical bits (a density matrix keeps every measurement branch) is compared with the one
worked out by hand in the test."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from qiskit_files import coin_switch, repeat_until_zero

import genqsim as gq
from genqsim.circuit import channels
from genqsim.circuit.noise import NoiseModel
from genqsim.io.qasm import QasmError, QasmTimingWarning

qiskit = pytest.importorskip("qiskit")
pytest.importorskip("openqasm3")

from qiskit import QuantumCircuit, qasm3  # noqa: E402
from qiskit.circuit.classical import expr, types  # noqa: E402


def distribution(c: gq.Circuit) -> dict[str, float]:
    """The exact distribution of ``c``'s classical bits (bit ``n_clbits - 1`` leftmost)."""
    return {k: v for k, v in gq.record_distribution(c).items() if v > 1e-12}


def both_ways(qc: QuantumCircuit) -> list[gq.Circuit]:
    """``qc`` read from the Qiskit object and from the OpenQASM 3 Qiskit writes of it."""
    try:
        text = qasm3.dumps(qc)
    except qasm3.QASM3ExporterError:  # switch needs the exporter's experimental flag
        text = qasm3.dumps(qc, experimental=qasm3.ExperimentalFeatures.SWITCH_CASE_V1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QasmTimingWarning)
        return [gq.from_qiskit(qc), gq.qasm.loads3(text)]


def test_switch_with_several_labels_and_a_default():
    """Two fair coins in ``c``; ``case 0`` flips ``q2``, ``case 1, 2`` puts it in ``|+>``,
    the default (3) leaves it: ``q2`` reads 1 with probability 1, 1/2, 1/2, 0."""
    qc = coin_switch(3, [((0,), "x", ()), ((1, 2), "h", ()), ("default", "z", ())])
    expected = {"100": 0.25, "001": 0.125, "101": 0.125, "010": 0.125, "110": 0.125,
                "011": 0.25}  # fmt: skip
    for c in both_ways(qc):
        assert distribution(c) == pytest.approx(expected, abs=1e-12)


def test_switch_on_a_register_without_default_resets_and_repeats():
    """The repetition code of ``benchmarks/dynamic_bench.py`` (three rounds of parity checks
    into two ancillas, measured, reset and read by a ``switch`` without default) on data
    ``|100>``: the first round reads syndrome 1 and flips data qubit 0 back, later rounds
    read 0, so every bit reads 0."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "dynamic_bench.py"
    spec = importlib.util.spec_from_file_location("dynamic_bench", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    qc = bench.syndrome(3, [math.pi, 0.0, 0.0])
    for c in both_ways(qc):
        assert distribution(c) == pytest.approx({"00000": 1.0}, abs=1e-12)


def test_switch_on_an_expression_without_default():
    """``switch (c[0] + c[1])`` (a uint expression): only the sum 1 flips ``q2``."""
    qc = QuantumCircuit(3, 3)
    qc.h([0, 1])
    qc.measure([0, 1], [0, 1])
    total = expr.add(expr.cast(qc.clbits[0], types.Uint(2)), expr.cast(qc.clbits[1], types.Uint(2)))
    with qc.switch(total) as case:
        with case(1):
            qc.x(2)
    qc.measure(2, 2)
    expected = {"000": 0.25, "101": 0.25, "110": 0.25, "011": 0.25}
    c = gq.from_qiskit(qc)  # Qiskit's exporter writes no switch on an expression of bits
    assert distribution(c) == pytest.approx(expected, abs=1e-12)


def test_a_bool_variable_set_from_a_measurement():
    """``a = !c[0]`` then ``if (a) x q[1]``: ``q1`` is the negation of the coin."""
    qc = QuantumCircuit(2, 2)
    a = qc.add_var("a", expr.lift(False))
    qc.h(0)
    qc.measure(0, 0)
    qc.store(a, expr.logic_not(qc.clbits[0]))
    with qc.if_test(a):
        qc.x(1)
    qc.measure(1, 1)
    for c in both_ways(qc):
        assert distribution(c) == pytest.approx({"10": 0.5, "01": 0.5}, abs=1e-12)


def test_a_uint_variable_stored_inside_a_branch():
    """``u = c``; ``if (c[0]) u = u ^ 3``; ``if (u == 2) x q[2]``: ``u`` is 0, 2, 2, 0 for
    ``c`` = 0, 1, 2, 3, so ``q2`` flips for ``c`` 1 and 2 only."""
    qc = QuantumCircuit(3, 3)
    u = qc.add_var("u", expr.lift(0, types.Uint(2)))
    qc.h([0, 1])
    qc.measure([0, 1], [0, 1])
    qc.store(u, expr.cast(expr.bit_and(qc.cregs[0], 3), types.Uint(2)))
    with qc.if_test((qc.clbits[0], 1)):
        qc.store(u, expr.bit_xor(u, 3))
    with qc.if_test(expr.equal(u, 2)):
        qc.x(2)
    qc.measure(2, 2)
    expected = {"000": 0.25, "101": 0.25, "110": 0.25, "011": 0.25}
    for c in both_ways(qc):
        assert distribution(c) == pytest.approx(expected, abs=1e-12)


def test_for_loop_parameter_box_delay_and_stretch():
    """``rx(i)`` for ``i`` in 0, 1, 2 is ``rx(3)``: ``P(1) = sin(3/2)^2``; a ``box`` around
    a Bell pair, a delay and a stretch change nothing."""
    qc = QuantumCircuit(3, 3)
    with qc.for_loop(range(3)) as i:
        qc.rx(i, 0)
    with qc.box():
        qc.h(1)
        qc.cx(1, 2)
    qc.delay(100, 1, unit="ns")
    stretch = qc.add_stretch("s")
    qc.delay(stretch, 2)
    qc.measure([0, 1, 2], [0, 1, 2])
    p1 = math.sin(1.5) ** 2
    expected = {"000": (1 - p1) / 2, "001": p1 / 2, "110": (1 - p1) / 2, "111": p1 / 2}
    for c in both_ways(qc):
        assert distribution(c) == pytest.approx(expected, abs=1e-12)


def test_qasm3_variables_declared_assigned_and_compound_assignment():
    """``int``/``uint``/``bool`` declarations with and without values, ``+=`` and casts, as a
    hand-written file uses them: ``n`` counts the ones among three coins, and ``q[3]`` flips
    where it is 2."""
    text = """OPENQASM 3.0;
include "stdgates.inc";
qubit[4] q;
bit[3] c;
bit r;
uint[2] n = 0;
bool any;
h q[0]; h q[1]; h q[2];
c = measure q[0:2];
for int i in [0:2] {
  if (c[i]) { n += 1; }
}
any = bool(n);
if (n == 2 && any) { x q[3]; }
r = measure q[3];
"""
    got = distribution(gq.qasm.loads3(text))
    expected: dict[str, float] = {}
    for value in range(8):
        r = int(bin(value).count("1") == 2)
        key = f"{r}{value:03b}"
        expected[key] = expected.get(key, 0) + 1 / 8
    assert got == pytest.approx(expected, abs=1e-12)


def test_a_variable_whose_bits_are_measured_again_keeps_its_value():
    """``a`` takes a coin's bit, which a measurement of ``|0>`` then overwrites: the variable
    keeps the coin (in a scratch bit of its own, left out of the counts), and flips q1 where
    the coin read 1. By hand: c0 = 0, c1 = the coin, each half the time."""
    qc = QuantumCircuit(2, 2)
    a = qc.add_var("a", expr.lift(False))
    qc.h(0)
    qc.measure(0, 0)
    qc.store(a, qc.clbits[0])
    qc.measure(1, 0)
    with qc.if_test(a):
        qc.x(1)
    qc.measure(1, 1)
    for c in both_ways(qc):
        assert c.n_clbits == 3 and c.scratch_clbits == frozenset({2})
        assert distribution(c) == pytest.approx({"00": 0.5, "10": 0.5}, abs=1e-12)
        assert set(gq.counts(c, 100, seed=1)) == {"00", "10"}


@pytest.mark.parametrize(
    "body, message",
    [
        ("complex[float[64]] z;", "variables of type ComplexType"),
        ("bit b;\nb = 0.5;", "a float \\(0.5\\) is stored into classical bits"),
        ("bool a;\nif (a > 1.5im) { x q; }", "'1.5im' in a classical expression is outside"),
        ("if (k) { x q; }", "unknown classical value 'k'"),
        ("bool a;\nbool a;", "'a' is declared twice"),
    ],
)
def test_qasm3_classical_refusals_name_the_construct(body, message):
    with pytest.raises(QasmError, match=message):
        gq.qasm.loads3('OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit q;\n' + body)


HEADER = 'OPENQASM 3.0;\ninclude "stdgates.inc";\n'


def test_declarations_in_a_block_are_local_to_it_and_new_each_iteration():
    """OpenQASM 3 scopes a declaration to its block: a for loop's body declares its bit
    afresh each iteration (one register: the last iteration's value counts), a name declared
    in a branch is free again after it, and a while body's declaration is read once per
    reading of the body (the loop stays one loop)."""
    each_iteration = gq.qasm.loads3(HEADER + "qubit[2] q;\nfor int i in [0:1] {\n  bit t;\n"
                                     "  x q[i];\n  t = measure q[i];\n}\n")  # fmt: skip
    assert each_iteration.n_clbits == 1 and distribution(each_iteration) == {"1": 1.0}
    branch = "if (c) { bit t; t = measure q[0]; }\nbit t;\nt = measure q[1];\n"
    reused = gq.qasm.loads3(HEADER + "qubit[2] q;\nbit c;\nx q[0];\nc = measure q[0];\n" + branch)
    assert reused.n_clbits == 3 and distribution(reused) == {"011": 1.0}
    loop = gq.qasm.loads3(HEADER + "qubit[2] q;\nbit c;\nh q[0];\nc = measure q[0];\n"
                          "while (c) {\n  bit t;\n  t = measure q[1];\n  h q[0];\n"
                          "  c = measure q[0];\n}\n")  # fmt: skip
    assert loop.has_loops
    assert gq.counts(loop, 500, seed=2) == {"00": 500}


def test_a_classical_variable_known_when_read_sets_a_gate_angle():
    """``int k = i`` in a for loop, used as an angle: rx(0) rx(0.1) rx(0.2) is rx(0.3)."""
    c = gq.qasm.loads3(HEADER + "qubit q;\nfor int i in [0:2] { int k = i; rx(k * 0.1) q; }\n")
    expected = [math.cos(0.15), -1j * math.sin(0.15)]
    assert gq.simulate(c).amplitudes == pytest.approx(expected, abs=1e-12)


def test_a_counter_in_a_gate_angle_unrolls_its_while_loop():
    """Retry with a growing angle until q reads 1, at most three times: rx(0.5 n) on |0>
    (the state is |0> again after each 0), so P(c = 1) = 1 - prod_n cos^2(n / 4)."""
    loop = "while (!c && n < 3) { n += 1; rx(n * 0.5) q; c = measure q; }\n"
    c = gq.qasm.loads3(HEADER + "qubit q;\nbit c;\nint n = 0;\nc = measure q;\n" + loop)
    assert not c.has_loops
    stays = math.prod(math.cos(n / 4) ** 2 for n in (1, 2, 3))
    assert distribution(c)["1"] == pytest.approx(1 - stays, abs=1e-12)


@pytest.mark.parametrize(
    "body, message",
    [
        ("if (c) { bit t; bit t; }", "'t' is declared twice"),
        ("h q;\nc = measure q;\nif (c) { int k = 2; }\nrx(k) q;", "unknown identifier 'k'"),
        ("c = measure q;\nint n = c;\nrx(n * 0.5) q;", "holds a value of measured bits"),
        ("h q;\nc = measure q;\nint n = 0;\nwhile (c) { n += 1; rx(n) q; c = measure q; }",
         "'n' holds a value of measured bits, and a gate parameter is a number fixed"),
    ],
)  # fmt: skip
def test_block_scope_and_variable_angle_refusals(body, message):
    with pytest.raises(QasmError, match=message):
        gq.qasm.loads3(HEADER + "qubit q;\nbit c;\n" + body)


def test_conditions_without_bits_are_decided_when_read():
    """A condition on variables holding constants runs its branch, or not, unconditionally."""
    qc = QuantumCircuit(2, 2)
    flag = qc.add_var("flag", expr.lift(True))
    with qc.if_test(flag) as otherwise:
        qc.x(0)
    with otherwise:
        qc.x(1)
    with qc.if_test(expr.logic_not(flag)):
        qc.x(1)
    qc.measure([0, 1], [0, 1])
    for c in both_ways(qc):
        assert distribution(c) == pytest.approx({"01": 1.0}, abs=1e-12)


def _toss_then_break_on_one(qc: QuantumCircuit) -> None:
    """A loop body: toss ``q0`` into ``c0``, ``break`` on 1, else flip ``q1``."""
    qc.h(0)
    qc.measure(0, 0)
    with qc.if_test((qc.clbits[0], 1)):
        qc.break_loop()
    qc.x(1)


def test_break_out_of_a_for_loop_on_a_measured_bit():
    """Three rounds of a fresh coin: a 1 ends the loop, a 0 flips ``q1``. Worked out by
    hand: the first coin 1 (1/2) leaves ``q1`` 0; 0 then 1 (1/4) leaves it 1; 0, 0, 1 (1/8)
    leaves it 0 again; three 0s (1/8) leave it 1 with the coin bit 0."""
    qc = QuantumCircuit(2, 2)
    with qc.for_loop(range(3)):
        _toss_then_break_on_one(qc)
    qc.measure(1, 1)
    expected = {"01": 5 / 8, "11": 1 / 4, "10": 1 / 8}
    for c in both_ways(qc):
        assert distribution(c) == pytest.approx(expected, abs=1e-12)


def test_a_break_after_a_continue_branch_also_skips_the_later_iterations():
    """Two rounds of ``if (c1) continue; h q1; cx q1, q2; if (!c0) break;`` after coins in
    c0 and c1 (q2 in |1>), inside ``if (!c1)``: with c0 = 0 the first round breaks, so the
    second round must not run (it did: the rounds after a branch that held only
    ``continue`` were read outside it, out of the break's reach). Worked out by hand:
    c1 = 1 (1/2) skips it all; c1 = 0, c0 = 0 (1/4) leaves (q1, q2) in (|11> - |00>)/sqrt 2
    after the final flips; c1 = 0, c0 = 1 (1/4) runs both rounds to a uniform (q1, q2)."""
    qc = QuantumCircuit(3, 3)
    qc.h(0)
    qc.h(1)
    qc.x(2)
    qc.measure([0, 1, 2], [0, 1, 2])
    with qc.if_test((qc.clbits[1], 0)):
        qc.x(1)
        with qc.for_loop(range(2)):
            with qc.if_test((qc.clbits[1], 1)):
                qc.continue_loop()
            qc.h(1)
            qc.cx(1, 2)
            with qc.if_test((qc.clbits[0], 0)):
                qc.break_loop()
        qc.x(1)
        qc.x(0)
    qc.measure([0, 1, 2], [0, 1, 2])
    expected = {"110": 1 / 4 + 1 / 16, "111": 1 / 4 + 1 / 8, "001": 1 / 8,
                "000": 1 / 16, "010": 1 / 16, "100": 1 / 16}  # fmt: skip
    for c in both_ways(qc):
        assert distribution(c) == pytest.approx(expected, abs=1e-12)


def test_two_continues_in_a_branch_of_a_for_loop():
    """Two rounds, inside ``if (c1)`` (always taken): toss ``c0`` (``ry(1.1)``); on 0
    ``continue``; else flip ``q2``, then ``continue`` again, before a flip that never runs.
    The rest of a branch's body after a nested ``continue`` used to be read with its last
    statement left over, which the reader then took up again and again (a hang). ``q2``
    ends flipped once per 1 tossed; the law is enumerated over the two tosses."""
    qc = QuantumCircuit(3, 3)
    qc.x(1)
    qc.measure(1, 1)
    with qc.for_loop(range(2)):
        with qc.if_test((qc.clbits[1], 1)):
            qc.reset(0)
            qc.ry(1.1, 0)
            qc.measure(0, 0)
            with qc.if_test((qc.clbits[0], 0)):
                qc.continue_loop()
            qc.x(2)
            with qc.if_test((qc.clbits[0], 1)):
                qc.continue_loop()
            qc.x(2)
    qc.measure(2, 2)
    p = math.sin(0.55) ** 2
    expected: dict[str, float] = {}
    for first in (0, 1):
        for last in (0, 1):
            key = f"{(first + last) % 2}1{last}"
            weight = (p if first else 1 - p) * (p if last else 1 - p)
            expected[key] = expected.get(key, 0) + weight
    for c in both_ways(qc):
        assert distribution(c) == pytest.approx(expected, abs=1e-12)


def test_continue_in_an_else_branch_against_an_enumeration():
    """Each round: a fresh coin; on 0 rotate ``q1`` by ``ry(0.5)``, on 1 ``continue`` (in
    the else branch) past the rest of the round. The distribution is enumerated over the coin
    sequences here: ``q1`` reads 1 with probability ``sin(0.25 k)^2`` after ``k`` rotations,
    and the coin bit holds the last coin."""
    qc = QuantumCircuit(2, 2)
    with qc.for_loop(range(3)) as i:
        qc.h(0)
        qc.measure(0, 0)
        with qc.if_test((qc.clbits[0], 0)) as otherwise:
            qc.ry(0.5, 1)
        with otherwise:
            qc.continue_loop()
        qc.ry(0 * i, 1)  # the loop parameter, bound each round
    qc.measure(1, 1)
    expected: dict[str, float] = {}
    for coins in range(8):
        flips = [(coins >> r) & 1 for r in range(3)]
        k = flips.count(0)
        p1 = math.sin(0.25 * k) ** 2
        last = flips[-1]
        for bit, p in ((0, 1 - p1), (1, p1)):
            key = f"{bit}{last}"
            expected[key] = expected.get(key, 0) + p / 8
    for c in both_ways(qc):
        assert distribution(c) == pytest.approx(expected, abs=1e-12)


def test_break_and_continue_outside_a_loop_are_refused():
    from genqsim.errors import ArgumentValueError

    with pytest.raises(QasmError, match="outside loop"):
        gq.qasm.loads3("OPENQASM 3.0;\nqubit q;\nbit b;\nif (b) { break; }")
    with pytest.raises(QasmError, match="outside loop"):
        gq.qasm.loads3("OPENQASM 3.0;\nqubit q;\ncontinue;")
    from qiskit.circuit import BreakLoopOp

    qc = QuantumCircuit(1, 1)
    qc.append(BreakLoopOp(1, 1), [0], [0])
    with pytest.raises(ArgumentValueError, match="'break_loop' outside a for_loop"):
        gq.from_qiskit(qc)


# -- while loops ----------------------------------------------------------------------------------


def _geometric_p1(angle: float, stop: float) -> float:
    """``P(q1 = 1)`` after a number of retries drawn with probability ``stop`` of stopping
    each time: the series summed to 1e-16."""
    return sum(stop * (1 - stop) ** k * math.sin(k * angle / 2) ** 2 for k in range(400))


def _close(counts: dict[str, int], key_bit: int, p: float, shots: int) -> None:
    """The fraction of shots whose bit ``key_bit`` is 1 is ``p`` within five standard
    errors."""
    ones = sum(v for k, v in counts.items() if k[::-1][key_bit] == "1") / shots
    assert abs(ones - p) < 5 * math.sqrt(p * (1 - p) / shots) + 1e-12, (ones, p)


def test_while_loop_repeat_until_success_against_the_geometric_series():
    qc = repeat_until_zero(0.7)
    shots = 20_000
    for c in both_ways(qc):
        assert c.has_loops
        counts = gq.counts(c, shots, seed=11)
        assert all(k[-1] == "0" for k in counts)  # the loop ends only on a 0
        _close(counts, 1, _geometric_p1(0.7, 0.5), shots)


def test_while_loop_on_several_values_of_a_register():
    """``while (c != 0)`` on two coins: a retry with probability 3/4, each turning ``q2``."""
    qc = QuantumCircuit(3, 3)
    qc.h([0, 1])
    qc.measure([0, 1], [0, 1])
    register = qc.cregs[0]
    with qc.while_loop(expr.not_equal(expr.bit_and(register, 3), 0)):
        qc.h([0, 1])
        qc.measure([0, 1], [0, 1])
        qc.ry(0.5, 2)
    qc.measure(2, 2)
    shots = 4_000
    for c in both_ways(qc):
        loop = next(op.gate for op in c.operations if op.kind is gq.GateKind.LOOP)
        assert loop.clbits == (0, 1) and loop.values == (1, 2, 3)
        counts = gq.counts(c, shots, seed=5)
        assert all(k[-2:] == "00" for k in counts)
        _close(counts, 2, _geometric_p1(0.5, 0.25), shots)


def test_while_loop_written_out_and_to_qiskit_agrees_with_aer():
    """``dumps3`` writes ``while``, which genqsim reads back as the same circuit; the circuit
    made a Qiskit one runs on Qiskit Aer with the same statistics; OpenQASM 2 refuses it."""
    from qiskit_aer import AerSimulator

    c = gq.from_qiskit(repeat_until_zero(0.9))
    text = gq.qasm.dumps3(c)
    assert "while (c[0] == 1) {" in text
    assert gq.qasm.loads3(text) == c
    shots = 20_000
    result = AerSimulator(seed_simulator=3).run(gq.to_qiskit(c), shots=shots).result()
    _close(result.get_counts(), 1, _geometric_p1(0.9, 0.5), shots)
    with pytest.raises(QasmError, match=r"OpenQASM 2\.0 has no while loops"):
        gq.qasm.dumps(c)


def test_while_loop_in_every_shot_by_shot_method_and_refused_by_ensembles():
    """State vectors, trajectories (``auto`` picks them for a noisy circuit with a loop) and
    MPS run it shot by shot: the loop always ends with ``q0`` in ``|0>``. A density matrix
    refuses it, naming what runs it."""
    c = gq.from_qiskit(repeat_until_zero(0.7))
    rest, _ = c.split_terminal_measurements()
    for method in ("statevector", "mps"):
        for seed in range(5):
            state = gq.simulate(rest, method=method, seed=seed)
            assert float(state.probabilities([0])[1]) == pytest.approx(0, abs=1e-12)
    noisy = NoiseModel().add_all_qubit_error(channels.depolarizing(0.01), "ry").apply(c)
    counts = gq.counts(noisy, 2000, seed=2)
    assert sum(counts.values()) == 2000 and all(k[-1] == "0" for k in counts)
    with pytest.raises(gq.UnsupportedOperationError, match="shot by shot"):
        gq.counts(c, 10, method="density_matrix")


def test_break_out_of_a_while_loop_against_the_series_and_aer():
    """A coin, then while it shows 0: a fresh coin, ``break`` on 1, else flip ``q1``. The
    flips before the first 1 are geometric, so ``q1`` ends 1 with probability
    ``1/2 * (1/4 + 1/16 + ...) = 1/6``, and every shot ends with the coin 1. Read from Qiskit
    and from its OpenQASM 3; Aer runs the same circuit."""
    from qiskit_aer import AerSimulator

    qc = QuantumCircuit(2, 2)
    qc.h(0)
    qc.measure(0, 0)
    with qc.while_loop((qc.clbits[0], 0)):
        _toss_then_break_on_one(qc)
    qc.measure(1, 1)
    assert "break;" in qasm3.dumps(qc)
    shots = 20_000
    aer = AerSimulator(seed_simulator=4).run(qc, shots=shots).result().get_counts()
    _close(aer, 1, 1 / 6, shots)
    for c in both_ways(qc):
        counts = gq.counts(c, shots, seed=6)
        assert all(k[-1] == "1" for k in counts)
        _close(counts, 1, 1 / 6, shots)


def test_continue_and_break_in_a_while_loop_differ_as_they_should():
    """``while (c1 == 0)``: turn ``q2`` by ``ry(0.6)``, toss ``q0``; on 1 jump, else flip
    ``q1`` and measure it into ``c1``. With ``continue`` the loop goes on until a 0, so it
    always ends with ``c1 = 1``, ``c0 = 0``, after k iterations with probability ``2^-k``;
    with ``break`` it ends at the first toss: 1 (``c1 = 0``) or 0 (``c1 = 1``), after one
    iteration. ``q2`` counts the iterations: ``sin(0.3 k)^2``."""
    for jump in ("continue", "break"):
        qc = QuantumCircuit(3, 3)
        with qc.while_loop((qc.clbits[1], 0)):
            qc.ry(0.6, 2)
            qc.reset(0)
            qc.h(0)
            qc.measure(0, 0)
            with qc.if_test((qc.clbits[0], 1)):
                qc.continue_loop() if jump == "continue" else qc.break_loop()
            qc.x(1)
            qc.measure(1, 1)
        qc.measure(2, 2)
        shots = 20_000
        if jump == "continue":
            records = {"10"}
            p2 = sum(2.0**-k * math.sin(0.3 * k) ** 2 for k in range(1, 200))
        else:
            records = {"01", "10"}
            p2 = math.sin(0.3) ** 2
        for c in both_ways(qc):
            counts = gq.counts(c, shots, seed=8)
            assert {k[1:] for k in counts} == records, jump
            _close(counts, 2, p2, shots)


def test_a_while_loop_inside_a_for_loop_keeps_its_own_break():
    """Two rounds of: while ``c0`` is 0, toss ``q0`` (reset first) and ``break`` on 1 (the
    while's), then flip ``q1``, once per round; the for loop runs both rounds, so ``q1``
    ends 0, and the coin 1. ``while (true)`` with a break reads the same."""
    qc = QuantumCircuit(2, 2)
    with qc.for_loop(range(2)):
        qc.reset(0)
        qc.measure(0, 0)
        with qc.while_loop((qc.clbits[0], 0)):
            qc.reset(0)
            qc.h(0)
            qc.measure(0, 0)
            with qc.if_test((qc.clbits[0], 1)):
                qc.break_loop()
        qc.x(1)
    qc.measure(1, 1)
    for c in both_ways(qc):
        assert gq.counts(c, 500, seed=3) == {"01": 500}
    text = (
        'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q;\nbit[2] c;\n'
        "for int i in [0:1] {\n  while (true) {\n    reset q[0];\n    h q[0];\n"
        "    c[0] = measure q[0];\n    if (c[0]) { break; }\n  }\n  x q[1];\n}\n"
        "c[1] = measure q[1];\n"
    )
    assert gq.counts(gq.qasm.loads3(text), 500, seed=3) == {"01": 500}


def test_a_while_loop_on_a_variable_each_iteration_stores_from_its_own_toss():
    """``while (!done) { toss; done = c[0]; x q1; }`` (Qiskit's ``add_var`` and ``store``;
    Aer refuses the bool variable): ``done`` is false as the loop is reached and, after each
    iteration, the bit that iteration measured, so the loop runs k >= 1 times with
    probability ``2^-k`` and ``q1`` ends 1 with probability 1/2 + 1/8 + ... = 2/3. Read
    as a first iteration and then a loop on ``c[0]``, not unrolled."""
    qc = QuantumCircuit(2, 2)
    done = qc.add_var("done", expr.lift(False))
    with qc.while_loop(expr.logic_not(done)):
        qc.reset(0)
        qc.h(0)
        qc.measure(0, 0)
        qc.store(done, qc.clbits[0])
        qc.x(1)
    qc.measure(1, 1)
    shots = 20_000
    for c in both_ways(qc):
        assert c.has_loops
        counts = gq.counts(c, shots, seed=9)
        assert all(k[-1] == "1" for k in counts)
        _close(counts, 1, 2 / 3, shots)


def test_a_counted_while_loop_with_a_break_unrolls_to_the_exact_law():
    """``while (n < 5) { n += 1; toss; if (c) { break; } x r; }``: the counter unrolls the
    loop (no while loop is left, so a density matrix gives the exact law): k zeros before
    the first 1 (probability ``2^-(k+1)``, k < 5) leave ``r`` flipped k times; five zeros
    (1/32) leave the coin 0 and ``r`` flipped five times."""
    text = (
        'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit q;\nqubit r;\nbit c;\nbit d;\n'
        "uint[8] n = 0;\nwhile (n < 5) {\n  n += 1;\n  reset q;\n  h q;\n"
        "  c = measure q;\n  if (c) { break; }\n  x r;\n}\nd = measure r;\n"
    )
    circuit = gq.qasm.loads3(text)
    assert not circuit.has_loops
    expected = {"10": 1 / 32}
    for k in range(5):
        expected[f"{k % 2}1"] = expected.get(f"{k % 2}1", 0) + 2.0 ** -(k + 1)
    assert distribution(circuit) == pytest.approx(expected, abs=1e-12)


def test_a_break_in_a_switch_default_ends_only_its_while_loop():
    """Each round tosses ``c[1]``: 0 takes the switch's default, a ``break``; 1 flips ``r``
    and tosses ``c[0]``, whose 1 ends the loop. After m rounds that went on (probability
    ``4^-m``) a break leaves ``c = 00`` and ``r`` flipped m times, an exit ``c = 11`` and
    m + 1 flips: 8/15, 2/15, 4/15 and 1/15 for 000, 100, 111 and 011 (d c[1] c[0])."""
    text = (
        'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit q;\nqubit r;\nbit[2] c;\nbit d;\n'
        "while (!c[0]) {\n  reset q;\n  h q;\n  c[1] = measure q;\n  switch (c[1]) {\n"
        "    case 1 { x r; }\n    default { break; }\n  }\n  reset q;\n  h q;\n"
        "  c[0] = measure q;\n}\nd = measure r;\n"
    )
    shots = 20_000
    counts = gq.counts(gq.qasm.loads3(text), shots, seed=3)
    expected = {"000": 8 / 15, "100": 2 / 15, "111": 4 / 15, "011": 1 / 15}
    assert set(counts) == set(expected)
    for key, p in expected.items():
        got = counts[key] / shots
        assert abs(got - p) < 5 * math.sqrt(p * (1 - p) / shots), (key, got, p)


def test_a_loop_that_never_ends_is_stopped_with_a_typed_error(monkeypatch):
    import genqsim.plan.calls as calls

    monkeypatch.setattr(calls, "MAX_WHILE_ITERATIONS", 200)
    c = gq.Circuit(1, n_clbits=1).x(0).measure(0, 0)
    c.while_(0, 1, gq.Circuit(1).h(0).h(0).measure(0, 0))  # q0 stays 1
    with pytest.raises(gq.WhileLoopLimitError, match=r"ran 200 times in one shot"):
        gq.counts(c, 3, seed=1)


def test_repeat_until_success_counts_its_attempts_in_a_carried_variable():
    """A repeat-until-success loop, ``while (c) { n += 1; reset q; h q; c = measure q; }``,
    counts its attempts in a ``uint[3]`` it carries from one iteration to the next, and the
    count is stored into a register after the loop. Nothing bounds the loop, so it stays one
    loop whose variable lives in scratch bits. By hand n = k with probability 2**-(k+1),
    wrapped modulo 8: P(n = k) = 2**-(k+1) / (1 - 2**-8). Both readings (the Qiskit circuit,
    and the OpenQASM 3 Qiskit writes of it) agree within 5 sigma over 8000 shots."""
    from qiskit import ClassicalRegister, QuantumRegister

    qc = QuantumCircuit(QuantumRegister(1, "q"), ClassicalRegister(1, "c"),
                        ClassicalRegister(3, "r"))  # fmt: skip
    n = qc.add_var("n", expr.lift(0, types.Uint(3)))
    qc.h(0)
    qc.measure(0, 0)
    with qc.while_loop((qc.clbits[0], 1)):
        qc.store(n, expr.add(n, expr.lift(1, types.Uint(3))))
        qc.reset(0)
        qc.h(0)
        qc.measure(0, 0)
    qc.store(qc.cregs[1], n)
    shots = 8000

    def check(counts: dict[str, int]) -> None:
        assert all(key[-1] == "0" for key in counts)  # the loop ends on c = 0
        for k in range(8):
            p = 2.0 ** -(k + 1) / (1 - 2.0**-8)
            seen = sum(v for key, v in counts.items() if int(key[:3], 2) == k)
            assert abs(seen - shots * p) <= 5 * math.sqrt(shots * p * (1 - p)) + 1, (k, counts)

    readings = both_ways(qc)
    for c in readings:
        assert c.has_loops
        check(gq.counts(c, shots, seed=9))
    # Aer runs genqsim's reading exported back to Qiskit: its scratch bits in a register
    # of their own, the loop's stores as conditional stores of constants
    from qiskit import transpile
    from qiskit_aer import AerSimulator

    exported = gq.to_qiskit(readings[0])
    assert [r.name for r in exported.cregs][-1] == "scratch"
    aer = AerSimulator(method="statevector", seed_simulator=9)
    raw = aer.run(transpile(exported, aer, optimization_level=0), shots=shots).result()
    counts: dict[str, int] = {}
    for key, v in raw.get_counts().items():
        program = "".join(key.split()[1:])  # the scratch register is printed first
        counts[program] = counts.get(program, 0) + v
    check(counts)


def _repeat_until_success(qc: QuantumCircuit, body: Callable[[], None]) -> None:
    """``h q0; c0 = measure q0; while (c0) { body; reset q0; h q0; c0 = measure q0; }``:
    iteration counts k = 0, 1, 2, ... with probability 2**-(k+1)."""
    qc.h(0)
    qc.measure(0, 0)
    with qc.while_loop((qc.clbits[0], 1)):
        body()
        qc.reset(0)
        qc.h(0)
        qc.measure(0, 0)


def test_carried_variables_that_read_each_other_are_stored_as_one_assignment():
    """Two loops whose iterations end with values that read other carried variables' bits:
    ``prev = n; n = n + 1`` (prev's value is n's bits as the iteration found them, so it is
    stored before n's are) and a swap through a third variable, ``t = a; a = b; b = t`` (a
    cycle: one value moves to bits of its own first). By hand, after k iterations (P =
    2**-(k+1)) prev = (k - 1) mod 8 and n = k mod 8 (prev = 0 where k = 0), and (a, b) is
    (1, 2) for even k, (2, 1) for odd: P(even) = 2/3. Both readings, 6000 shots, within 5
    sigma. The first was refused before ('prev' read after the loop: stored after n's bits
    changed, its value was lost)."""
    from qiskit import ClassicalRegister, QuantumRegister

    qc = QuantumCircuit(QuantumRegister(1, "q"), ClassicalRegister(1, "c"),
                        ClassicalRegister(3, "rp"), ClassicalRegister(3, "rn"))  # fmt: skip
    n = qc.add_var("n", expr.lift(0, types.Uint(3)))
    prev = qc.add_var("prev", expr.lift(0, types.Uint(3)))

    def count() -> None:
        qc.store(prev, n)
        qc.store(n, expr.add(n, expr.lift(1, types.Uint(3))))

    _repeat_until_success(qc, count)
    qc.store(qc.cregs[1], prev)
    qc.store(qc.cregs[2], n)
    swap = QuantumCircuit(QuantumRegister(1, "q"), ClassicalRegister(1, "c"),
                          ClassicalRegister(2, "ra"), ClassicalRegister(2, "rb"))  # fmt: skip
    a = swap.add_var("a", expr.lift(1, types.Uint(2)))
    b = swap.add_var("b", expr.lift(2, types.Uint(2)))
    t = swap.add_var("t", expr.lift(0, types.Uint(2)))

    def swapped() -> None:
        swap.store(t, a)
        swap.store(a, b)
        swap.store(b, t)

    _repeat_until_success(swap, swapped)
    swap.store(swap.cregs[1], a)
    swap.store(swap.cregs[2], b)
    shots = 6000

    def within(seen: int, p: float) -> bool:
        return abs(seen - shots * p) <= 5 * math.sqrt(shots * p * (1 - p)) + 1

    for c in both_ways(qc):
        counts = gq.counts(c, shots, seed=4)
        for key in counts:
            k_n, k_prev = int(key[:3], 2), int(key[3:6], 2)
            assert k_prev == (k_n - 1) % 8 or (k_n == 0 and k_prev == 0), key
        ones = sum(v for key, v in counts.items() if int(key[:3], 2) == 1)
        assert within(ones, 0.25 / (1 - 2.0**-8)), counts
    for c in both_ways(swap):
        counts = gq.counts(c, shots, seed=5)
        assert {key[:4] for key in counts} <= {"1001", "0110"}, counts  # rb ra: (2, 1) or (1, 2)
        even = sum(v for key, v in counts.items() if key[:4] == "1001")
        assert within(even, 2 / 3), counts


def test_a_while_loop_false_where_it_stands_reads_as_nothing():
    """``f = false; while (f) { x q0; }``: the loop never runs, and is read as nothing (it
    was refused: 'would never run: drop it'); Qiskit's object and its OpenQASM 3 alike."""
    qc = QuantumCircuit(2, 2)
    f = qc.add_var("f", expr.lift(False))
    with qc.while_loop(f):
        qc.x(0)
    qc.x(1)
    qc.measure([0, 1], [0, 1])
    for c in both_ways(qc):
        assert not c.has_loops
        assert gq.counts(c, 20, seed=1) == {"10": 20}


def test_a_counter_bound_past_the_unrolling_limit_is_carried():
    """``while (b && n < 200) { n += 1; h q; b = measure q; }``: the bound is past what a
    loop is unrolled to, so ``n`` is carried in scratch bits and the loop tests them with
    ``b``. By hand n == 1 (one 1, then a 0) with probability 1/4, flipped onto ``p``."""
    text = """OPENQASM 3.0;
include "stdgates.inc";
qubit q;
qubit p;
bit b;
bit d;
uint[8] n = 0;
h q;
b = measure q;
while (b && n < 200) { n += 1; h q; b = measure q; }
if (n == 1) { x p; }
d = measure p;
"""
    c = gq.qasm.loads3(text)
    assert c.has_loops
    counts = gq.counts(c, 4000, seed=6)
    ones = sum(v for key, v in counts.items() if key[0] == "1")
    assert abs(ones - 1000) < 5 * math.sqrt(4000 * 0.25 * 0.75), counts


@pytest.mark.parametrize(
    "body, message",
    [
        (  # a float cannot be carried from one iteration to the next in bits
            "float[64] x = 0.0;\nwhile (b) { x = x + 0.5; b = measure q; }\nif (x > 1.0) { x q; }",
            "'x' is read after a while loop's body assigned it",
        ),
        ("while (true) { x q; }", "reads no measured bit would never end"),
        (
            "bool a = b;\nwhile (a) { b = measure q; }",
            "changes nothing its condition reads "
            r"\(variables it does not assign\) would never end",
        ),
    ],
)
def test_qasm3_while_refusals_name_the_construct(body, message):
    text = 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit q;\nbit b;\nb = measure q;\n' + body
    with pytest.raises(QasmError, match=message):
        gq.qasm.loads3(text)


# -- else branches and switches whose bodies measure into the bits they read -------------------


def _if_else_measuring_both_ways() -> QuantumCircuit:
    """``c0`` from a fair coin; where it reads 1 the if branch flips ``q1`` and measures it
    into ``c0`` (1 again), elsewhere the else branch measures ``q1`` in ``|+>`` into it:
    ``c0`` reads 1 with probability 1/2 + 1/4."""
    qc = QuantumCircuit(2, 1)
    qc.h(0)
    qc.measure(0, 0)
    with qc.if_test((qc.clbits[0], 1)) as orelse:
        qc.x(1)
        qc.measure(1, 0)
    with orelse:
        qc.h(1)
        qc.measure(1, 0)
    return qc


def test_if_else_whose_branches_measure_into_their_condition_bit():
    """The bit is read once, before either branch runs: the else branch never runs after
    the if branch wrote the bit (two conditionals in turn would give 1/2 + 1/8)."""
    for c in both_ways(_if_else_measuring_both_ways()):
        (branch,) = [op.gate for op in c.operations if op.kind is gq.GateKind.CONDITIONAL]
        assert branch.orelse is not None and branch.values == (1,)
        assert distribution(c) == pytest.approx({"1": 0.75, "0": 0.25}, abs=1e-12)
        counts = gq.counts(c, 20_000, seed=4)
        assert abs(counts.get("1", 0) / 20_000 - 0.75) < 5 * (0.75 * 0.25 / 20_000) ** 0.5


def test_switch_whose_cases_measure_into_its_target():
    """Two fair coins in ``cr``; ``case 0`` flips ``q2`` (unmeasured), ``case 1, 2``
    measures ``q2`` in ``|+>`` into ``cr[0]``, the default (3) measures ``q2`` (``|0>``)
    into ``cr[1]``. Two cases write the target, so each later case is the else branch of
    the one before, and none sets off another: 00 3/8, 01 3/8, 10 1/8, 11 1/8."""
    from qiskit import ClassicalRegister, QuantumRegister

    cr = ClassicalRegister(2)
    qc = QuantumCircuit(QuantumRegister(3), cr)
    qc.h([0, 1])
    qc.measure([0, 1], cr)
    with qc.switch(cr) as case:
        with case(0):
            qc.x(2)
        with case(1, 2):
            qc.h(2)
            qc.measure(2, cr[0])
        with case(case.DEFAULT):
            qc.measure(2, cr[1])
    expected = {"00": 0.375, "01": 0.375, "10": 0.125, "11": 0.125}
    for c in both_ways(qc):
        (outer,) = [op.gate for op in c.operations if op.kind is gq.GateKind.CONDITIONAL]
        assert outer.values == (0,) and outer.orelse is not None
        (inner,) = outer.orelse.operations
        assert inner.gate.values == (1, 2) and inner.gate.orelse is not None
        assert distribution(c) == pytest.approx(expected, abs=1e-12)


def test_if_else_built_in_genqsim_written_out_and_run_by_aer():
    """``Circuit.if_`` with several values and an else: the same exact distribution from a
    density matrix, from OpenQASM 3 read back, and (within five standard errors) from Qiskit
    Aer running ``to_qiskit``'s circuit; OpenQASM 2 refuses it, since its ``if`` reads the
    register again for every statement."""
    from qiskit_aer import AerSimulator

    c = gq.Circuit(3, n_clbits=2).h(0).h(1).measure(0, 0).measure(1, 1)
    # values 1, 2 of (c0, c1): measure q2 in |+> into c1; 0 and 3: flip q2, measure it into c0
    c.if_([0, 1], [1, 2], gq.Circuit(3).h(2).measure(2, 1),
          orelse=gq.Circuit(3).x(2).measure(2, 0))  # fmt: skip
    # 00 -> c0 = 1: 01; 11 -> 11; 01 -> c1 random: 01 / 11; 10 -> c1 random: 00 / 10
    expected = {"01": 0.25 + 0.125, "11": 0.25 + 0.125, "00": 0.125, "10": 0.125}
    assert distribution(c) == pytest.approx(expected, abs=1e-12)
    text = gq.qasm.dumps3(c)
    assert "} else {" in text and "c[0] == 1 || c[0] == 0" not in text
    assert gq.qasm.loads3(text) == c
    assert gq.from_qiskit(gq.to_qiskit(c)) == c  # an if_else, read back as one conditional
    shots = 20_000
    counts = AerSimulator(seed_simulator=7).run(gq.to_qiskit(c), shots=shots).result()
    counts = counts.get_counts()
    for key, p in expected.items():
        assert abs(counts.get(key, 0) / shots - p) < 5 * (p * (1 - p) / shots) ** 0.5
    with pytest.raises(QasmError, match=r"OpenQASM 2\.0's 'if' reads the register again"):
        gq.qasm.dumps(c)


def test_an_else_without_writes_is_written_as_openqasm2_ifs_on_the_other_values():
    c = gq.Circuit(2, n_clbits=2).h(0).h(1).measure(0, 0).measure(1, 1)
    c.if_([0, 1], 3, gq.Circuit(2).x(0), orelse=gq.Circuit(2).x(1))
    text = gq.qasm.dumps(c)
    assert [line for line in text.splitlines() if line.startswith("if")] == [
        "if(c==3) x q[0];", "if(c==0) x q[1];", "if(c==1) x q[1];", "if(c==2) x q[1];",
    ]  # fmt: skip
    assert distribution(gq.qasm.loads(text)) == pytest.approx(distribution(c), abs=1e-12)


def test_else_branches_run_alike_in_every_method_and_take_noise():
    """State vectors, MPS and grouped shots (``gq.counts``) agree with the density matrix on
    an if/else; a noise model puts its channels into both branches."""
    c = gq.from_qiskit(_if_else_measuring_both_ways())
    shots = 20_000
    for method in ("statevector", "density_matrix"):
        counts = gq.counts(c, shots, seed=11, method=method)
        assert abs(counts.get("1", 0) / shots - 0.75) < 5 * (0.75 * 0.25 / shots) ** 0.5
    runs = 1000  # an MPS runs one shot a call: its classical bits after each
    ones = sum(gq.simulate(c, method="mps", seed=s).clbits.get(0, 0) for s in range(runs))
    assert abs(ones / runs - 0.75) < 5 * (0.75 * 0.25 / runs) ** 0.5
    noisy = NoiseModel().add_all_qubit_error(channels.bit_flip(1.0), ["x", "h"]).apply(c)
    (branch,) = [op.gate for op in noisy.operations if op.kind is gq.GateKind.CONDITIONAL]
    assert all(
        any(op.kind is gq.GateKind.CHANNEL for op in body.operations) for body in branch.bodies
    )
    # a certain flip after X leaves q1 in |0>: c0 reads 1 only from the else branch (1/4)
    assert distribution(noisy) == pytest.approx({"1": 0.25, "0": 0.75}, abs=1e-12)


def test_else_branches_are_checked_and_shown():
    c = gq.Circuit(2, n_clbits=1).h(0).measure(0, 0)
    with pytest.raises(gq.ArgumentValueError, match="else branch has 1 qubits but the circuit"):
        c.if_(0, 1, gq.Circuit(2).x(1), orelse=gq.Circuit(1).x(0))
    with pytest.raises(gq.ArgumentValueError, match="else branch has 1 qubits and the if"):
        gq.circuit.conditional.Conditional(0, 1, gq.Circuit(2).x(1), gq.Circuit(1).x(0))
    with pytest.raises(gq.ArgumentValueError, match="no else branch"):
        gq.circuit.conditional.WhileLoop(0, 1, gq.Circuit(1).h(0)).with_body(
            gq.Circuit(1).h(0), gq.Circuit(1).x(0)
        )
    c.if_(0, [0, 1], gq.Circuit(2).x(1), orelse=gq.Circuit(2).z(1))
    (branch,) = [op.gate for op in c.operations if op.kind is gq.GateKind.CONDITIONAL]
    assert branch.values == (0, 1) and "else" in branch.label
    with pytest.raises(gq.ArgumentValueError, match="runs on 2 values"):
        _ = branch.value
    assert "else" in c.draw()


def test_a_branch_that_measures_into_its_bit_then_runs_on_keeps_its_members_apart():
    """The if branch measures ``q1`` (``|0>``) into its own condition bit, giving the bits of
    members outside the branch, then flips ``q2``: the flip still reaches it (``c1`` reads
    1 with probability 1/2). A density matrix merged the two members at the measurement and
    lost the flip (``{"00": 1.0}``); shots never did."""
    c = gq.Circuit(3, n_clbits=2).h(0).measure(0, 0)
    c.if_(0, 1, gq.Circuit(3).measure(1, 0).x(2))
    c.measure(2, 1)
    assert distribution(c) == pytest.approx({"00": 0.5, "10": 0.5}, abs=1e-12)
    counts = gq.counts(c, 20_000, seed=3)
    assert set(counts) == {"00", "10"} and abs(counts["10"] / 20_000 - 0.5) < 5 * 0.5 / 20_000**0.5


def test_a_variable_set_in_an_else_whose_if_measured_the_condition_is_read():
    """The else branch sets ``x`` where ``b`` read 0, but the if branch rewrites ``b``: the
    branch's condition is kept in a scratch bit before the statement, so ``x`` is read
    right after it (it was once read as ``!b`` of the new ``b``, which held everywhere). By
    hand: b = 1 (half): b is measured again from |0>, x stays false, c1 = 0; b = 0: x is
    set, q1 flipped, c1 = 1."""
    qc = QuantumCircuit(2, 2)
    x = qc.add_var("x", False)
    qc.h(0)
    qc.measure(0, 0)
    with qc.if_test((qc.clbits[0], 1)) as orelse:
        qc.measure(1, 0)
    with orelse:
        qc.store(x, True)
    unread = qc.copy()
    with qc.if_test(x):
        qc.x(1)
    qc.measure(1, 1)
    for c in both_ways(qc):
        assert distribution(c) == pytest.approx({"00": 0.5, "10": 0.5}, abs=1e-12)
    unread.measure(1, 1)
    for c in both_ways(unread):
        assert distribution(c) == pytest.approx({"00": 1.0}, abs=1e-12)


def _bounded_retries(tries: int) -> QuantumCircuit:
    """Repeat until ``q0`` reads 0, at most ``tries`` times (a counter in the condition)."""
    qc = QuantumCircuit(1, 1)
    n = qc.add_var("n", expr.lift(0, types.Uint(4)))
    qc.h(0)
    qc.measure(0, 0)
    with qc.while_loop(expr.logic_and(expr.equal(qc.clbits[0], True), expr.less(n, tries))):
        qc.store(n, expr.add(n, 1))
        qc.h(0)
        qc.measure(0, 0)
    return qc


def test_a_while_loop_bounded_by_a_counter_is_unrolled():
    """``while (c && n < 3) { n += 1; ... }``: the condition reads the counter the body
    assigns, so the loop becomes three nested conditionals (no loop is left: a density
    matrix runs it exactly). ``c`` still reads 1 after the first draw and three retries
    with probability 1/16."""
    for c in both_ways(_bounded_retries(3)):
        assert not c.has_loops
        depth, ops = 0, c.operations
        while any(op.kind is gq.GateKind.CONDITIONAL for op in ops):
            (branch,) = [op.gate for op in ops if op.kind is gq.GateKind.CONDITIONAL]
            depth, ops = depth + 1, branch.body.operations
        assert depth == 3
        assert distribution(c) == pytest.approx({"1": 1 / 16, "0": 15 / 16}, abs=1e-12)
        counts = gq.counts(c, 20_000, seed=9)
        assert abs(counts.get("1", 0) / 20_000 - 1 / 16) < 5 * (15 / 256 / 20_000) ** 0.5


def test_while_loop_variables_read_in_their_own_iteration_and_counted_without_measurement():
    """A variable the body sets from bits it just measured and reads in the same iteration
    leaves the loop a loop; one read after the loop is carried from one iteration to the
    next in scratch bits (the loop may have run any number of times, none included), checked
    against the laws worked out by hand. A counter alone, with no measurement, unrolls into
    plain gates: three X gates."""
    text = """OPENQASM 3.0;
include "stdgates.inc";
qubit[2] q;
bit b;
bit d;
bool seen = false;
h q[0];
b = measure q[0];
while (b) {
  h q[1];
  d = measure q[1];
  seen = d;
  if (seen) { x q[1]; }
  h q[0];
  b = measure q[0];
}
"""
    c = gq.qasm.loads3(text)
    assert c.has_loops
    counts = gq.counts(c, 2000, seed=2)
    assert all(key[-1] == "0" for key in counts)  # the loop ends on b = 0
    # read after the loop, ``seen`` is carried in bits of its own: it is the last
    # iteration's d (0 where the loop never ran), so q0 (0 as the loop ends) is flipped
    # exactly where d reads 1, which happens with probability 1/2 * 1/2
    after = gq.qasm.loads3(text + "if (seen) { x q[0]; }\nb = measure q[0];\n")
    counts = gq.counts(after, 4000, seed=3)
    assert set(counts) <= {"00", "11"}, counts
    assert abs(counts.get("11", 0) - 1000) < 5 * (4000 * 0.25 * 0.75) ** 0.5
    counted = gq.qasm.loads3(
        'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit q;\nuint[4] n = 0;\n'
        "while (n < 3) { n += 1; x q; }\n"
    )
    assert [op.gate.name for op in counted.operations] == ["x", "x", "x"]
    # a count of iterations the condition does not read leaves the loop a loop, and its
    # value is refused only where needed
    counting = (
        'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit q;\nbit c;\nuint[8] n = 0;\n'
        "h q;\nc = measure q;\nwhile (c) { n += 1; h q; c = measure q; }\n"
    )
    assert gq.qasm.loads3(counting).has_loops
    # read after the loop, the count is carried in bits of its own: exactly two iterations
    # (c = 1, 1, then 0) with probability 1/8, and q (0 as the loop ends) flips there
    counted_after = gq.qasm.loads3(counting + "if (n == 2) { x q; }\nc = measure q;\n")
    counts = gq.counts(counted_after, 4000, seed=4)
    assert abs(counts.get("1", 0) - 500) < 5 * (4000 * 0.125 * 0.875) ** 0.5, counts


def test_if_else_and_switch_chains_read_back_as_written():
    """An if with an else (two cases on every value) stays one conditional through OpenQASM 3
    and Qiskit; a switch placed on other qubits, two of whose cases measure into its bits,
    becomes a chain of else branches, also read back as it was, with the distribution of a
    density matrix worked out by hand: 00 3/8, 01 1/4, 10 1/8, 11 1/4."""
    d = gq.Circuit(2, n_clbits=1).h(0).measure(0, 0)
    d.if_(0, 1, gq.Circuit(2).x(1), orelse=gq.Circuit(2).z(1))
    c = gq.Circuit(4, n_clbits=2).h(0).h(1).measure(0, 0).measure(1, 1)
    cases = [(0, gq.Circuit(2).x(0)), ([1, 2], gq.Circuit(2).h(0).measure(0, 0)),
             (3, gq.Circuit(2).h(1).measure(1, 1))]  # fmt: skip
    c.switch_([0, 1], cases, qubits=[2, 3])
    (outer,) = [op.gate for op in c.operations if op.kind is gq.GateKind.CONDITIONAL]
    (inner,) = outer.orelse.operations
    assert outer.values == (0,) and inner.gate.values == (1, 2)
    assert inner.gate.orelse is not None  # the last case: what the others leave
    for circuit in (d, c):
        assert gq.qasm.loads3(gq.qasm.dumps3(circuit)) == circuit
        assert gq.from_qiskit(gq.to_qiskit(circuit)) == circuit
    expected = {"00": 0.375, "01": 0.25, "10": 0.125, "11": 0.25}
    assert distribution(c) == pytest.approx(expected, abs=1e-12)


# -- variables local to a block (Qiskit's add_var inside a control-flow body) -----------------


def _flip_q1_on_a_local_copy_of_c0(qc: QuantumCircuit, name: str) -> None:
    """Inside the block being built: a variable ``name`` declared from ``c0``, and X on q1
    where it holds."""
    local = qc.add_var(name, expr.lift(qc.clbits[0]))
    with qc.if_test(local):
        qc.x(1)


def test_qiskit_variables_declared_inside_blocks():
    """``add_var`` inside an ``if_test``, a ``for_loop`` (declared afresh each iteration) and
    a ``while_loop`` body, read both ways. The for loop flips q1 on each iteration whose fresh
    coin read 1, so (q1, last coin) is uniform; the while loop flips q1 once per iteration,
    k iterations with probability 2**-(k + 1), so q1 reads 1 with probability 1/3."""
    branch = QuantumCircuit(2, 2)
    branch.h(0)
    branch.measure(0, 0)
    with branch.if_test((branch.clbits[0], 1)):
        _flip_q1_on_a_local_copy_of_c0(branch, "v")
    branch.measure(1, 1)
    for c in both_ways(branch):
        assert distribution(c) == pytest.approx({"00": 0.5, "11": 0.5}, abs=1e-12)

    loop = QuantumCircuit(2, 2)
    with loop.for_loop(range(2)):
        loop.h(0)
        loop.measure(0, 0)
        _flip_q1_on_a_local_copy_of_c0(loop, "coin")
    loop.measure(1, 1)
    for c in both_ways(loop):
        assert distribution(c) == pytest.approx({k: 0.25 for k in ("00", "01", "10", "11")})

    retry = QuantumCircuit(2, 2)
    retry.h(0)
    retry.measure(0, 0)
    with retry.while_loop((retry.clbits[0], 1)):
        _flip_q1_on_a_local_copy_of_c0(retry, "again")
        retry.h(0)
        retry.measure(0, 0)
    retry.measure(1, 1)
    for c in both_ways(retry):
        assert c.has_loops
        _close(gq.counts(c, 6000, seed=5), 1, 1 / 3, 6000)


def test_a_conditional_inside_a_conditional_reads_bits_measured_before_both():
    """``if (c1) { if (c0) x q2; }`` (built with ``if_``, and Qiskit's nested ``if_test``):
    the inner condition reads a bit only it reads, so the measurement writing that bit is
    no terminal one. q0 and q1 start in ry(t) states: q2 flips with probability
    sin^2(t0/2) sin^2(t1/2)."""
    from dynamic_circuits import assert_drawn_from, exact

    t0, t1 = 1.1, 2.0
    c = gq.Circuit(3, n_clbits=3).ry(t0, 0).ry(t1, 1).measure(0, 0).measure(1, 1)
    c.if_(1, 1, gq.Circuit(3, n_clbits=3).if_(0, 1, gq.Circuit(3).x(2)))
    c.measure(2, 2)
    qc = QuantumCircuit(3, 3)
    qc.ry(t0, 0)
    qc.ry(t1, 1)
    qc.measure([0, 1], [0, 1])
    with qc.if_test((qc.clbits[1], 1)):
        with qc.if_test((qc.clbits[0], 1)):
            qc.x(2)
    qc.measure(2, 2)
    a, b = math.sin(t0 / 2) ** 2, math.sin(t1 / 2) ** 2
    expected = {"000": (1 - a) * (1 - b), "001": a * (1 - b), "010": (1 - a) * b, "111": a * b}
    for circuit in (c, gq.from_qiskit(qc)):
        assert exact(circuit) == pytest.approx(expected, abs=1e-12)
        for backend in (None, "numpy"):  # the compiled shot loop, the grouped runner
            counts = gq.counts(circuit, 4000, seed=3, method="statevector", backend=backend)
            assert_drawn_from(counts, expected, 4000)
    rest, terminal = c.split_terminal_measurements()
    assert terminal == [(2, 2)] and rest.count_ops()["measure"] == 2
    assert c.light_cone([2]).qubits == (0, 1, 2)


def test_a_conditional_measurement_into_a_measured_bit_keeps_that_measurement_in_place():
    """q0 = |1> measured into c0, then where c1 (a coin) reads 1, q1 = |0> is measured into c0
    too: c0 ends 0 exactly where c1 is 1. Sampled at the end, the first measurement would
    overwrite the second. Also through Qiskit's ``if_test``, against Aer."""
    from dynamic_circuits import assert_drawn_from, exact
    from qiskit_aer import AerSimulator

    c = gq.Circuit(3, n_clbits=2).x(0).h(2).measure(2, 1).measure(0, 0)
    c.if_(1, 1, gq.Circuit(3).measure(1, 0))
    expected = {"01": 0.5, "10": 0.5}
    assert c.split_terminal_measurements()[1] == []
    qc = QuantumCircuit(3, 2)
    qc.x(0)
    qc.h(2)
    qc.measure(2, 1)
    qc.measure(0, 0)
    with qc.if_test((qc.clbits[1], 1)):
        qc.measure(1, 0)
    aer = AerSimulator().run(qc, shots=4000, seed_simulator=1).result().get_counts()
    assert_drawn_from(aer, expected, 4000)
    for circuit in (c, gq.from_qiskit(qc)):
        assert exact(circuit) == pytest.approx(expected, abs=1e-12)
        for backend in (None, "numpy"):  # the compiled shot loop, the grouped runner
            counts = gq.counts(circuit, 4000, seed=2, method="statevector", backend=backend)
            assert_drawn_from(counts, expected, 4000)


def test_of_two_measurements_into_one_bit_the_later_is_the_one_kept():
    """q0 = |1> into c0, then q1 = |0> into c0 with a gate on q1 after it (so that one is
    kept mid-circuit): the record shows the later reading, 0."""
    c = gq.Circuit(2, n_clbits=1).x(0).measure(0, 0).measure(1, 0).h(1)
    assert c.split_terminal_measurements()[1] == []
    assert gq.counts(c, 100, seed=1) == {"0": 100}
    assert distribution(c) == {"0": 1.0}


def test_a_qubit_measured_twice_at_the_end_gives_both_bits_its_outcome():
    """ry(t) q0 measured into c0 and again into c1 at the end, q1 = |1> into c2: both bits
    of q0 read the same outcome, P(q0 = 1) = sin^2(t/2). It raised DuplicateQubitError
    (the terminal measurements were drawn as one sample of [q0, q0, q1]). Checked on every
    shot-by-shot method, the exact distribution, the OpenQASM 2 Qiskit writes, the
    memory and Qiskit's sampler, and Aer."""
    from dynamic_circuits import assert_drawn_from
    from qiskit_aer import AerSimulator

    from genqsim.qiskit import Sampler

    t = 1.3
    p = math.sin(t / 2) ** 2
    expected = {"111": p, "100": 1 - p}
    qc = QuantumCircuit(2, 3)
    qc.ry(t, 0)
    qc.x(1)
    qc.measure(0, 0)
    qc.measure(0, 1)
    qc.measure(1, 2)
    c = gq.Circuit(2, n_clbits=3).ry(t, 0).x(1).measure(0, 0).measure(0, 1).measure(1, 2)
    assert len(c.split_terminal_measurements()[1]) == 3
    aer = AerSimulator().run(qc, shots=4000, seed_simulator=1).result().get_counts()
    assert_drawn_from(aer, expected, 4000)
    for circuit in (c, gq.qasm.loads(qiskit.qasm2.dumps(qc))):
        assert distribution(circuit) == pytest.approx(expected, abs=1e-12)
        for method in ("statevector", "trajectories", "mps", "density_matrix"):
            assert_drawn_from(gq.counts(circuit, 4000, seed=3, method=method), expected, 4000)
        assert set(gq.memory(circuit, 50, seed=4)) <= set(expected)
    dynamic = c.copy().h(1)  # a gate after them: c2 is measured mid-circuit, per shot
    for backend in (None, "numpy"):  # the compiled shot loop, the grouped runner
        counts = gq.counts(dynamic, 4000, seed=5, method="statevector", backend=backend)
        assert_drawn_from(counts, expected, 4000)
    sampled = Sampler(seed=6).run([qc], shots=4000).result()[0].data.c.get_counts()
    assert_drawn_from(sampled, expected, 4000)


def test_float_variables_in_conditions():
    """``f = 0.5 * float(c)`` of a two-bit register of ry coins, then ``if (f > 0.75)``
    flips q2: where c >= 2, i.e. where c[1] reads 1 (probability sin^2(1.0)). Aer refuses
    float variables; the law is written out. Read from Qiskit and from its OpenQASM 3."""
    from qiskit.circuit import ClassicalRegister

    qc = QuantumCircuit(3)
    c, o = ClassicalRegister(2, "c"), ClassicalRegister(1, "o")
    qc.add_register(c)
    qc.add_register(o)
    f = qc.add_var("f", expr.lift(0.5))
    qc.ry(1.1, 0)
    qc.ry(2.0, 1)
    qc.measure(0, c[0])
    qc.measure(1, c[1])
    qc.store(f, expr.mul(f, expr.cast(c, types.Float())))
    with qc.if_test(expr.greater(f, 0.75)):
        qc.x(2)
    qc.measure(2, o[0])
    a, b = math.sin(0.55) ** 2, math.sin(1.0) ** 2
    expected = {f"{c1}{c1}{c0}": (b if c1 else 1 - b) * (a if c0 else 1 - a)
                for c0 in (0, 1) for c1 in (0, 1)}  # fmt: skip
    for circuit in both_ways(qc):
        assert distribution(circuit) == pytest.approx(expected, abs=1e-12)


def test_unsigned_division_is_the_integer_quotient():
    """Qiskit's ``expr.div`` of ``uint`` values: ``(c + 1) / 2 == 1`` for a two-bit register
    of fair coins holds at c = 1 and 2 (the quotient 1, rounded down as every language
    rounds non-negative quotients), so q2 flips with probability 1/2, on those records
    alone. Aer refuses the division; the law is written out. Read from Qiskit and from its
    OpenQASM 3 (``if ((c + 1) / 2 == 1)``)."""
    from qiskit.circuit import ClassicalRegister

    qc = QuantumCircuit(3)
    c, o = ClassicalRegister(2, "c"), ClassicalRegister(1, "o")
    qc.add_register(c)
    qc.add_register(o)
    qc.h(0)
    qc.h(1)
    qc.measure(0, c[0])
    qc.measure(1, c[1])
    with qc.if_test(expr.equal(expr.div(expr.add(c, 1), 2), 1)):
        qc.x(2)
    qc.measure(2, o[0])
    assert "/ 2 == 1" in qasm3.dumps(qc)
    expected = {f"{int(v in (1, 2))}{v >> 1}{v & 1}": 0.25 for v in range(4)}
    for circuit in both_ways(qc):
        assert distribution(circuit) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "body, message",
    [
        ("float[64] x = 3.0;\nif (x / 2.0 > 1.4) { x q; }", None),  # 1.5 > 1.4: runs
        ("float[64] x = 3.0;\nif (x / 2.0 > 1.6) { x q; }", None),  # 1.5 < 1.6: does not
        ("int[8] k = 7;\nif (k / 2 > 2) { x q; }", None),  # 7 / 2 is 3: runs
        ("int[8] k = 7;\nif (k / 2 > 3) { x q; }", None),  # does not
        ("int[8] k = -7;\nif (k / 2 > -4) { x q; }", "an integer division of a negative"),
        ("int[8] k = 7;\nif (k / 0 > 1) { x q; }", "a classical division by zero"),
        ("float[64] x = 1.0;\nc[0] = x;", "a float \\(1.0\\) is stored into classical bits"),
        ("float[64] x = 1.0;\nif ((x & 1) == 1) { x q; }", "'&' does not apply to 1.0"),
    ],
)
def test_float_arithmetic_in_openqasm3(body, message):
    head = 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit q;\nbit[1] c;\n'
    source = f"{head}{body}\nc[0] = measure q;"
    if message is not None:
        with pytest.raises(QasmError, match=message):
            gq.qasm.loads3(source)
        return
    expected = {"1": 1.0} if "1.4" in body or "> 2)" in body else {"0": 1.0}
    assert distribution(gq.qasm.loads3(source)) == expected


def test_casts_of_floats():
    """A nonzero float is true (0.5 too); to an integer type a float goes toward zero, then
    wraps as the type does (-1.7 -> -1 -> 7 in uint[3]; 5.9 -> 5 -> -3 in int[3])."""
    from genqsim.io import classical

    def cast(width, value):
        return classical.evaluate(classical.cast(width, classical.const(value)), {})

    assert cast(0, 0.5) == 1 and cast(0, 0.0) == 0
    assert cast(3, -1.7) == 7 and cast(-3, 5.9) == -3
    assert cast(classical.FLOAT, 3) == 3.0 and isinstance(cast(classical.FLOAT, 3), float)


def _coins_into(qc: QuantumCircuit, register: Any) -> None:
    """Three fair coins, q0..q2, measured into ``register`` (``c`` uniform on 0..7)."""
    qc.h([0, 1, 2])
    qc.measure([0, 1, 2], register)


def _by_value(flags: Callable[[int], tuple[int, ...]]) -> dict[str, float]:
    """The law of ``c`` (uniform on 0..7, bits 0-2) and the flag bits ``flags(c)`` above it."""
    law: dict[str, float] = {}
    for c in range(8):
        key = "".join(map(str, reversed(flags(c)))) + format(c, "03b")
        law[key] = law.get(key, 0.0) + 1 / 8
    return law


def test_uint_arithmetic_and_shifts_wrap_to_their_width():
    """Qiskit's ``uint`` results keep their operands' width (``expr.shift_left``'s is its
    left operand's; ``expr.add`` of ``uint[3]`` values is a ``uint[3]``), and so does
    OpenQASM 3's ``bit[3] << 1``: ``(c << 1) == 6`` holds for c = 3 and 7 (14 wraps to 6);
    ``v + 3 < 3`` for a ``uint[3]`` ``v = c`` holds for c = 5, 6, 7; ``~(c << 1) == 1``
    inverts three bits, for c = 3 and 7. Worked out by hand: Aer refuses shifts and sums."""
    from qiskit.circuit import ClassicalRegister, QuantumRegister

    c, flags = ClassicalRegister(3, "c"), ClassicalRegister(3, "f")
    qc = QuantumCircuit(QuantumRegister(6), c, flags)
    v = qc.add_var("v", expr.lift(0, types.Uint(3)))
    _coins_into(qc, c)
    qc.store(v, expr.lift(c))
    with qc.if_test(expr.equal(expr.shift_left(c, 1), 6)):
        qc.x(3)
    with qc.if_test(expr.less(expr.add(v, expr.lift(3, types.Uint(3))), 3)):
        qc.x(4)
    with qc.if_test(expr.equal(expr.bit_not(expr.shift_left(c, 1)), 1)):
        qc.x(5)
    qc.measure([3, 4, 5], flags)
    expected = _by_value(lambda k: (int(k & 3 == 3), int(k >= 5), int(k & 3 == 3)))
    for circuit in both_ways(qc):
        assert distribution(circuit) == pytest.approx(expected, abs=1e-12)
    text = 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[4] q;\nbit[3] c;\nbit[1] f;\n'
    text += "h q[0];\nh q[1];\nh q[2];\nc = measure q[0:2];\nuint[3] u = c;\nu = u - 1;\n"
    text += "if (u == 7) { x q[3]; }\nf[0] = measure q[3];\n"  # 0 - 1 wraps to 7
    assert distribution(gq.qasm.loads3(text)) == pytest.approx(
        _by_value(lambda k: (int(k == 0),)), abs=1e-12
    )


def test_a_bit_of_a_value_and_of_a_register_at_a_measured_index():
    """``(c << 1)[2]`` is bit 1 of ``c``; ``c[v]`` at ``v = c[1]`` (a ``uint[1]`` variable)
    is ``c0`` where ``c1`` is 0, else ``c1``, so it holds for c in 1, 2, 3, 5, 6, 7;
    ``v[0]`` of the variable is ``c1``. Read from Qiskit and from the OpenQASM 3 it writes."""
    from qiskit.circuit import ClassicalRegister, QuantumRegister

    c, flags = ClassicalRegister(3, "c"), ClassicalRegister(3, "f")
    qc = QuantumCircuit(QuantumRegister(6), c, flags)
    v = qc.add_var("v", expr.lift(0, types.Uint(1)))
    _coins_into(qc, c)
    qc.store(v, expr.cast(c[1], types.Uint(1)))
    with qc.if_test(expr.index(expr.shift_left(c, 1), 2)):
        qc.x(3)
    with qc.if_test(expr.index(c, v)):
        qc.x(4)
    with qc.if_test(expr.index(v, 0)):
        qc.x(5)
    qc.measure([3, 4, 5], flags)
    expected = _by_value(lambda k: ((k >> 1) & 1, int(k in (1, 2, 3, 5, 6, 7)), (k >> 1) & 1))
    for circuit in both_ways(qc):
        assert distribution(circuit) == pytest.approx(expected, abs=1e-12)
    with pytest.raises(QasmError, match="one bit of a classical value is read at a time"):
        gq.qasm.loads3(qasm3.dumps(qc).replace("(c << 1)[2]", "(c << 1)[0:1]"))


def _syndrome_count(rounds: int, theta: float) -> QuantumCircuit:
    """``rounds`` tosses of an ancilla in ``ry(theta)|0>``, each measured into the same bit
    c0 and added into ``acc`` (a ``uint[2]``, as a decoder counts syndromes), then the data
    qubit flipped where ``acc >= 2`` and measured into c1."""
    qc = QuantumCircuit(2, 2)
    acc = qc.add_var("acc", expr.lift(0, types.Uint(2)))
    for _ in range(rounds):
        qc.reset(1)
        qc.ry(theta, 1)
        qc.measure(1, 0)
        qc.store(acc, expr.add(acc, expr.cast(qc.clbits[0], types.Uint(2))))
    with qc.if_test(expr.greater_equal(acc, 2)):
        qc.x(0)
    qc.measure(0, 1)
    return qc


def test_a_syndrome_count_over_rounds_measured_into_one_bit():
    """The accumulator reads the bit each round measures again, so its value is kept in
    scratch bits between rounds (counts leave them out). By hand, each toss is 1 with
    probability p = sin(theta/2)**2: c0 is the last toss, c1 whether at least two of three
    were 1; counts drawn shot by shot agree within five standard errors. (Aer 0.18.2 refuses
    the sum, ``unknown op: Binary.Op.ADD``, and aborts the process on a bitwise one.)"""
    from itertools import product

    theta = 1.1
    p = math.sin(theta / 2) ** 2
    expected: dict[str, float] = {}
    for tosses in product((0, 1), repeat=3):
        weight = math.prod(p if t else 1 - p for t in tosses)
        key = f"{int(sum(tosses) >= 2)}{tosses[-1]}"
        expected[key] = expected.get(key, 0.0) + weight
    qc = _syndrome_count(3, theta)
    for c in both_ways(qc):
        assert len(c.scratch_clbits) > 0 and len(c.result_clbits) == 2
        assert distribution(c) == pytest.approx(expected, abs=1e-12)
    shots = 20_000
    ours = gq.counts(both_ways(qc)[0], shots, seed=3, method="statevector")
    for key, prob in expected.items():
        assert abs(ours.get(key, 0) / shots - prob) < 5 * (prob * (1 - prob) / shots) ** 0.5


def test_scratch_bits_are_left_out_of_every_result():
    """A circuit's scratch bits run as any bit but no result shows them: counts, per-shot
    memory and the exact record distribution of the bits around them, for a scratch bit
    between two result bits; copies, binding and composing keep the mark. OpenQASM 3 writes
    the result bits as the program's ``output`` (read back alike), Qiskit gets the scratch
    bits in a register of their own (Aer runs it)."""
    c = gq.Circuit(2).h(0).measure(0, 0).store(1, [0, 1], sources=0).x(1).measure(1, 2)
    c.mark_scratch([1])
    assert c.result_clbits == (0, 2) and c.n_clbits == 3
    assert gq.record_distribution(c) == pytest.approx({"10": 0.5, "11": 0.5}, abs=1e-12)
    counts = gq.counts(c, 1000, seed=2)
    assert set(counts) == {"10", "11"} and sum(counts.values()) == 1000
    assert set(gq.memory(c, 10, seed=2)) <= {"10", "11"}
    for copy in (c.copy(), c.bind({}), c.compose(gq.Circuit(2))):
        assert copy.scratch_clbits == frozenset({1}) and copy == c
    assert c != gq.Circuit(2, c.instructions, n_clbits=3)  # the same, unmarked
    text = gq.qasm.dumps3(c)  # outputs: a reader reports only those
    assert "output bit[2] c;" in text and "bit[1] scratch;" in text
    assert gq.record_distribution(gq.qasm.loads3(text)) == gq.record_distribution(c)
    from qiskit_aer import AerSimulator

    qc = gq.to_qiskit(c)  # the scratch bit in a register of its own, which Aer reports
    assert [(r.name, r.size) for r in qc.cregs] == [("c", 2), ("scratch", 1)]
    aer = AerSimulator(seed_simulator=1).run(qc, shots=400).result().get_counts()
    assert set(aer) == {"0 10", "1 11"}  # scratch, then c: the scratch bit copies the coin
    with pytest.raises(gq.ArgumentValueError, match="classical bits are non-negative"):
        gq.Circuit(1).mark_scratch([-1])
    with pytest.raises(gq.ArgumentTypeError, match="classical bits are integers"):
        gq.Circuit(1).mark_scratch([1.5])
    with pytest.raises(gq.ArgumentValueError, match="keeps every measurement branch"):
        gq.record_distribution(c, method="statevector")


def test_qiskit_front_doors_report_no_scratch_bits():
    """The backend's counts and per-shot memory, and the sampler's bit arrays, have the
    circuit's own two bits where a variable was kept in a scratch bit."""
    from genqsim.qiskit import GenqsimBackend, Sampler

    qc = _syndrome_count(2, math.pi)  # both tosses 1: acc = 2, the data flipped: "11"
    result = GenqsimBackend().run(qc, shots=50, memory=True).result()
    assert result.get_counts() == {"11": 50}
    assert set(result.get_memory()) == {"11"}
    (pub,) = Sampler().run([qc], shots=50).result()
    assert pub.data.c.num_bits == 2 and pub.data.c.get_counts() == {"11": 50}


@pytest.mark.parametrize("first", range(0, 60, 15))
def test_random_classical_programs_read_as_an_interpreter_runs_them(first):
    """Random programs of classical variables, measurements that overwrite the bits they
    read, branches and loops with jumps (:mod:`classical_programs`), on gates that permute
    basis states, read from the Qiskit object and from the OpenQASM 3 Qiskit writes of it
    (:func:`classical_programs.tally`): every reading gives every shot the record a direct
    interpreter of the Qiskit circuit works out, and none is refused or crashes (seeds
    0-999 read 1,998 of 2,000 readings; the two refused, seed 885, hold a loop that never
    ends once entered)."""
    from classical_programs import tally

    found = tally(first, first + 15, shots=3)
    assert found["wrong"] == [] and found["crashed"] == [] and found["refused"] == []
    assert len(found["read"]) == 30


def test_a_random_program_whose_loop_never_ends_once_entered_is_refused_with_the_reason():
    """Seed 885 of :mod:`classical_programs` holds a while loop that, once entered, would
    never end: both readings refuse it, naming that, and nothing else is read wrong."""
    from classical_programs import tally

    found = tally(885, 886, shots=3)
    assert found["read"] == [] and found["wrong"] == [] and found["crashed"] == []
    assert [name for _, name, _ in found["refused"]] == ["object", "qasm3"]
    assert all("would never end once entered" in reason for _, _, reason in found["refused"])


@pytest.mark.parametrize("flips", [[1], [1, 2], [0, 1], [0, 1, 2]])
def test_a_switch_case_that_never_runs_leaves_the_rest_of_its_loop_to_the_others(flips):
    """Five rounds of a for loop, each with a ``switch`` on a variable that stays 0 and a
    case (1) that would ``break``: that case never runs, so the rest of the loop is read
    only after the cases that do, not once more per round inside it (32 readings of the
    last round, whose scratch bits ran out: refused before). Inside, an if/else sets a
    variable from bits and measures over its condition's bit. Both readings give every shot
    the record the direct interpreter of the Qiskit circuit works out."""
    from classical_programs import run_classically

    qc = QuantumCircuit(3, 3)
    v = qc.add_var("v", expr.lift(0, types.Uint(3)))
    mode = qc.add_var("mode", expr.lift(0, types.Uint(3)))
    f = qc.add_var("f", expr.lift(False))
    for q in flips:
        qc.x(q)
    qc.measure(range(3), range(3))
    with qc.for_loop(range(5)):
        with qc.if_test(expr.lift(qc.clbits[1])):
            with qc.if_test(expr.lift(qc.clbits[0])) as orelse:
                qc.store(v, expr.add(v, expr.lift(1, types.Uint(3))))
            with orelse:
                qc.store(f, qc.clbits[2])
                qc.measure(1, 1)
            with qc.switch(mode) as case:
                with case(1):
                    with qc.if_test(expr.not_equal(v, 0)):
                        qc.break_loop()
        with qc.if_test(expr.logic_and(f, expr.less(v, 6))):
            qc.cx(2, 1)
        qc.x(0)
        qc.measure(0, 0)
    with qc.if_test(expr.equal(v, 2)):
        qc.x(2)
    qc.measure(range(3), range(3))
    want = run_classically(qc)
    for c in both_ways(qc):
        assert gq.counts(c, 3, seed=1) == {want: 3}


def test_a_variable_its_own_condition_reads_over_forty_rounds_is_read_at_once():
    """``if ((v ^ 1) != 3 && c1) v = v + 3;`` forty times: ``v`` is in the condition and in
    both outcomes of every round, so its expression holds the last round's value three times,
    and walking it as a tree would take 3**40 steps; each part is evaluated once. By hand,
    with c1 = 1: v runs 0, 3, 6, 1, 4, 7, 2 and stays at 2 (2 ^ 1 == 3); with c1 = 0 it
    stays 0. The data qubit flips where v == 2."""
    for flipped in (True, False):
        qc = QuantumCircuit(2, 2)
        v = qc.add_var("v", expr.lift(0, types.Uint(3)))
        if flipped:
            qc.x(1)
        qc.measure(1, 1)
        for _ in range(40):
            stays = expr.equal(expr.bit_xor(v, expr.lift(1, types.Uint(3))), 3)
            with qc.if_test(expr.logic_and(expr.logic_not(stays), qc.clbits[1])):
                qc.store(v, expr.add(v, 3))
        with qc.if_test(expr.equal(v, 2)):
            qc.x(0)
        qc.measure(0, 0)
        for c in both_ways(qc):
            assert distribution(c) == pytest.approx({"11" if flipped else "00": 1.0}, abs=1e-12)


def test_a_break_whose_bits_the_body_measures_again_is_kept_in_a_scratch_bit():
    """The break tests ``b``, which the body measures again before it ends: whether the
    break was taken is kept in a scratch bit the loop tests (the file was refused). By hand:
    a coin enters the loop (1/2); each iteration breaks with r = 1 (1/2), else a second coin
    ends it with r = 0 (1/4) or goes on (1/4), so P(r = 1) = 1/2 * (1/2) / (3/4) = 1/3 and
    the record is "11" or "00"."""
    text = """OPENQASM 3.0;
include "stdgates.inc";
qubit[2] q;
bit b;
bit r;
h q[0];
b = measure q[0];
while (b) {
  reset q[0];
  h q[0];
  b = measure q[0];
  if (b) { x q[1]; break; }
  h q[0];
  b = measure q[0];
}
r = measure q[1];
"""
    shots = 8000
    counts = gq.counts(gq.qasm.loads3(text), shots, seed=2)
    assert set(counts) == {"00", "11"}
    p = 1 / 3
    assert abs(counts["11"] / shots - p) < 5 * (p * (1 - p) / shots) ** 0.5


def test_a_switch_without_default_holding_a_jump_leaves_the_rest_where_no_case_matches():
    """A ``switch`` whose only case holds a ``continue``, in a ``for_loop``: where no case
    matches (c reads 1), the rest of the iteration runs, flipping q1 (it was dropped there:
    the rest went only into the cases' bodies). By hand: "11" in every shot."""
    qc = QuantumCircuit(2, 2)
    qc.x(0)
    qc.measure(0, 0)
    with qc.for_loop(range(1)):
        with qc.switch(qc.cregs[0]) as case:
            with case(2):
                qc.continue_loop()
        qc.x(1)
    qc.measure(1, 1)
    for c in both_ways(qc):
        assert distribution(c) == pytest.approx({"11": 1.0}, abs=1e-12)
