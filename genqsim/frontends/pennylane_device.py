"""A PennyLane device run by genqsim, on PennyLane's device API: ``qml.device(
"genqsim.qubit", wires=..., shots=..., seed=..., method=..., numbers=...)``.

PennyLane decomposes what the device does not run natively into gates it does, leaves
mid-circuit measurements to genqsim (with shots, the one-shot method: each group of shots
that share outcomes on its own state; without, the tree traversal: every history of
outcomes exactly, weighted by its probability) or defers them (``mcm_method="deferred"``),
and hands over tapes; the device converts each into a genqsim circuit (wire ``wires[i]`` is genqsim
qubit ``n-1-i``, so genqsim's amplitudes are PennyLane's state vector in the same order),
simulates it and measures: expectation values of Pauli-word observables and sums of them
by genqsim itself (every method: state vectors, density matrices, MPS); other measurements
(variances, probabilities, states, samples, counts) through PennyLane's own processing of
the state or of genqsim's samples.
``diff_method="adjoint"`` and ``"device"`` run genqsim's exact adjoint gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pennylane as qml
import sympy
from pennylane.devices import Device, ExecutionConfig
from pennylane.devices.modifiers import simulator_tracking, single_tape_support
from pennylane.devices.preprocess import (
    decompose,
    validate_device_wires,
    validate_measurements,
)
from pennylane.measurements import ExpectationMP, ProbabilityMP, SampleMP, StateMP, VarianceMP
from pennylane.tape import QuantumScript
from pennylane.transforms import broadcast_expand, defer_measurements, dynamic_one_shot
from pennylane.transforms.core import CompilePipeline
from pennylane.transforms.dynamic_one_shot import gather_mcm
from pennylane.wires import WireError, Wires

from ..circuit.circuit import Circuit
from ..differentiation.gradients import value_and_gradient
from ..errors import ArgumentValueError, UnsupportedOperationError
from ..linalg.observables import Hermitian
from ..linalg.pauli import PauliSum
from ..states.counting import branch_states, memory, shot_groups
from ..states.density import DensityMatrix
from ..states.registry import simulate
from ..states.sampling import rng
from .options import SimulateSettings

Builder = Callable[[Circuit, list[Any], list[int]], Any]
"""Appends one PennyLane operation to a genqsim circuit: ``(circuit, parameters, qubits)``,
qubits in the operation's wire order."""

NATIVE: dict[str, Builder] = {
    "Identity": lambda c, p, q: None,
    "PauliX": lambda c, p, q: c.x(q[0]),
    "PauliY": lambda c, p, q: c.y(q[0]),
    "PauliZ": lambda c, p, q: c.z(q[0]),
    "Hadamard": lambda c, p, q: c.h(q[0]),
    "S": lambda c, p, q: c.s(q[0]),
    "T": lambda c, p, q: c.t(q[0]),
    "SX": lambda c, p, q: c.sx(q[0]),
    "RX": lambda c, p, q: c.rx(p[0], q[0]),
    "RY": lambda c, p, q: c.ry(p[0], q[0]),
    "RZ": lambda c, p, q: c.rz(p[0], q[0]),
    "PhaseShift": lambda c, p, q: c.p(p[0], q[0]),
    "U1": lambda c, p, q: c.p(p[0], q[0]),
    "U2": lambda c, p, q: c.u(np.pi / 2, p[0], p[1], q[0]),
    "U3": lambda c, p, q: c.u(p[0], p[1], p[2], q[0]),
    "Rot": lambda c, p, q: c.rz(p[0], q[0]).ry(p[1], q[0]).rz(p[2], q[0]),
    "CNOT": lambda c, p, q: c.cx(q[0], q[1]),
    "CY": lambda c, p, q: c.cy(q[0], q[1]),
    "CZ": lambda c, p, q: c.cz(q[0], q[1]),
    "CH": lambda c, p, q: c.ch(q[0], q[1]),
    "SWAP": lambda c, p, q: c.swap(q[0], q[1]),
    "ISWAP": lambda c, p, q: c.iswap(q[0], q[1]),
    "CRX": lambda c, p, q: c.crx(p[0], q[0], q[1]),
    "CRY": lambda c, p, q: c.cry(p[0], q[0], q[1]),
    "CRZ": lambda c, p, q: c.crz(p[0], q[0], q[1]),
    "ControlledPhaseShift": lambda c, p, q: c.cp(p[0], q[0], q[1]),
    "IsingXX": lambda c, p, q: c.rxx(p[0], q[0], q[1]),
    "IsingYY": lambda c, p, q: c.ryy(p[0], q[0], q[1]),
    "IsingZZ": lambda c, p, q: c.rzz(p[0], q[0], q[1]),
    "MultiRZ": lambda c, p, q: c.pauli_rotation("Z" * len(q), p[0], q),
    "Toffoli": lambda c, p, q: c.ccx(q[0], q[1], q[2]),
    "CSWAP": lambda c, p, q: c.cswap(q[0], q[1], q[2]),
    "GlobalPhase": lambda c, p, q: c.pauli_rotation("I", 2 * p[0], [q[0] if q else 0]),
}
"""PennyLane operations genqsim runs as its own gates, parameters kept (so gradients and
symbols pass through): conventions checked against PennyLane's matrices in the tests."""

STATE_PREPARATIONS = ("StatePrep", "BasisState")


def _pauli_rot(c: Circuit, op: Any, params: list[Any], qubits: list[int]) -> None:
    c.pauli_rotation(op.hyperparameters["pauli_word"], params[0], qubits)


def _multi_controlled_x(c: Circuit, op: Any, params: list[Any], qubits: list[int]) -> None:
    values = [int(v) for v in op.hyperparameters["control_values"]]
    c.mcx(qubits[:-1], qubits[-1], values)


SPECIAL: dict[str, Callable[[Circuit, Any, list[Any], list[int]], None]] = {
    "PauliRot": _pauli_rot,
    "MultiControlledX": _multi_controlled_x,
}
"""Operations whose conversion reads their hyperparameters."""


def is_channel(op: Any) -> bool:
    """Whether ``op`` is a PennyLane noise channel (``qml.DepolarizingChannel``, ...)."""
    return isinstance(op, qml.operation.Channel)


def runs_natively(op: Any) -> bool:
    """Whether the device takes ``op`` as it is: a native gate, a state preparation, or a
    fixed (untrainable) operation with a matrix of at most 3 qubits."""
    name = op.name
    if isinstance(op, qml.ops.Conditional):
        return runs_natively(op.base)
    if name in NATIVE or name in SPECIAL or name in STATE_PREPARATIONS or is_channel(op):
        return True
    return bool(op.has_matrix and len(op.wires) <= 3 and not any(
        qml.math.requires_grad(p) for p in op.data
    ))  # fmt: skip


@simulator_tracking
@single_tape_support
class GenqsimQubit(Device):
    """genqsim as a PennyLane device: ``qml.device("genqsim.qubit", wires=2)``.

    ``shots`` (``None``: exact results), ``seed`` (samples and mid-circuit outcomes), and
    every keyword of :func:`genqsim.simulate` (``method``, ``numbers``, ``threads``, a
    method's options such as ``max_bond``). Gradients: ``diff_method="adjoint"`` or
    ``"device"`` (genqsim's exact adjoint, expectation values without shots),
    ``"parameter-shift"`` and ``"finite-diff"`` (PennyLane's own).
    """

    name = "genqsim.qubit"

    def __init__(
        self, wires: Any = None, shots: Any = None, seed: Any = None, **simulate_options: Any
    ) -> None:
        super().__init__(wires=wires, shots=shots)
        self._rng = rng(seed)
        self._settings = SimulateSettings.make(None, simulate_options)

    # -- what PennyLane asks first ---------------------------------------------------------
    def preprocess_transforms(
        self, execution_config: ExecutionConfig | None = None
    ) -> CompilePipeline:
        """Validate wires, defer mid-circuit measurements (``mcm_method="deferred"``) or keep
        them for genqsim (``"one-shot"``, ``"tree-traversal"``), decompose to what genqsim
        runs, validate measurements, and split parameter broadcasting into tapes."""
        config = execution_config or ExecutionConfig()
        one_shot = config.mcm_config.mcm_method == "one-shot"
        native = one_shot or config.mcm_config.mcm_method == "tree-traversal"
        program = CompilePipeline()
        program.add_transform(validate_device_wires, wires=self.wires, name=self.name)
        if not native:
            program.add_transform(defer_measurements, allow_postselect=False)
        program.add_transform(
            decompose,
            stopping_condition=runs_with_mid_circuit_measurements if native else runs_natively,
            skip_initial_state_prep=True,
            name=self.name,
        )
        program.add_transform(validate_measurements, name=self.name)
        program.add_transform(broadcast_expand)
        if one_shot:
            program.add_transform(
                dynamic_one_shot, postselect_mode=config.mcm_config.postselect_mode
            )
        return program

    def setup_execution_config(
        self, config: ExecutionConfig | None = None, circuit: QuantumScript | None = None
    ) -> ExecutionConfig:
        """Device gradients for ``"adjoint"``/``"device"``, computed after execution; the
        mid-circuit measurement method: ``"one-shot"`` with shots (genqsim measures
        mid-circuit, each group of shots that share outcomes on its own state), else
        ``"tree-traversal"`` (every history of outcomes followed exactly, on state vectors of
        the device's wires), unless one is asked for; ``"deferred"`` gives each measurement
        a wire of its own. ``"tree-traversal"`` with shots runs as ``"one-shot"``, whose
        shots follow the same law."""
        config = config or ExecutionConfig()
        if config.gradient_method in ("adjoint", "device"):
            config = replace(config, use_device_gradient=True, grad_on_execution=False)
        shots = bool(circuit is not None and circuit.shots)
        method = config.mcm_config.mcm_method
        if method in (None, "device"):
            method = "one-shot" if shots else "tree-traversal"
        if method not in ("one-shot", "deferred", "tree-traversal"):
            raise qml.exceptions.QuantumFunctionError(
                f"mcm_method={method!r} is not supported by {self.name}: use "
                "'tree-traversal' (exact), 'one-shot' (with shots) or 'deferred'"
            )
        if method == "tree-traversal" and shots:
            method = "one-shot"
        if method == "one-shot" and config.mcm_config.postselect_mode == "fill-shots":
            raise qml.exceptions.QuantumFunctionError(
                "postselect_mode='fill-shots' needs mcm_method='deferred' (one-shot runs "
                "drop the shots whose outcome differs, as hardware does: 'hw-like')"
            )
        return replace(config, mcm_config=replace(config.mcm_config, mcm_method=method))

    def supports_derivatives(
        self,
        execution_config: ExecutionConfig | None = None,
        circuit: QuantumScript | None = None,
    ) -> bool:
        """Exact device gradients of expectation values without shots."""
        if execution_config is None:
            return True
        if execution_config.gradient_method not in ("adjoint", "device"):
            return False
        if circuit is None:
            return True
        if any(is_channel(op) or isinstance(op, qml.ops.MidMeasure) for op in circuit.operations):
            return False  # the adjoint method runs on pure states, with no measurement
        return not circuit.shots and all(
            isinstance(m, ExpectationMP) and m.obs is not None and m.obs.pauli_rep is not None
            for m in circuit.measurements
        )

    # -- execution -------------------------------------------------------------------------
    def execute(
        self,
        circuits: Sequence[QuantumScript],
        execution_config: ExecutionConfig | None = None,
    ) -> tuple[Any, ...]:
        return tuple(self._execute_one(tape) for tape in circuits)

    def _wire_order(self, tape: QuantumScript) -> Wires:
        return self.wires if self.wires is not None else tape.wires

    def _execute_one(self, tape: QuantumScript) -> Any:
        wires = self._wire_order(tape)
        if any(isinstance(op, qml.ops.MidMeasure) for op in tape.operations):
            return self._one_shot(tape, wires) if tape.shots else self._tree(tape, wires)
        circuit, initial = tape_circuit(tape, wires)
        state = simulate(circuit, initial=initial, seed=self._rng, **self._settings.options)
        if tape.shots:
            return self._sampled(tape, state, wires)
        values = [self._exact(m, state, wires) for m in tape.measurements]
        return values[0] if len(values) == 1 else tuple(values)

    def _exact(self, mp: Any, state: Any, wires: Wires) -> Any:
        """One measurement without shots: expectation values and variances by genqsim (Pauli
        sums, or the observable's matrix), the rest by PennyLane from the state vector, in
        the measurement's eigenbasis."""
        if isinstance(mp, (ExpectationMP, VarianceMP)) and mp.obs is not None:
            observable = genqsim_observable(mp.obs, wires)
            mean = float(np.real(complex(state.expectation(observable))))
            if isinstance(mp, ExpectationMP):
                return np.float64(mean)
            square = genqsim_observable(mp.obs, wires, squared=True)
            return np.float64(float(np.real(complex(state.expectation(square)))) - mean**2)
        if isinstance(state, DensityMatrix):
            # noise channels: PennyLane reads the density matrix whole, and qml.state() is
            # the density matrix, as on default.mixed
            rho = np.asarray(state.to_numpy(), dtype=np.complex128)
            return rho if type(mp) is StateMP else mp.process_density_matrix(rho, wires)
        return mp.process_state(self._vector(_rotated(state, mp, wires)), wires)

    @staticmethod
    def _vector(state: Any) -> np.ndarray:
        amplitudes = getattr(state, "amplitudes", None)
        if amplitudes is None:
            raise UnsupportedOperationError(
                "this measurement needs the state vector, which method="
                f"{getattr(state, 'method', '?')!r} does not keep: use method='statevector'"
            )
        return np.asarray(amplitudes, dtype=np.complex128)

    def _sampled(self, tape: QuantumScript, state: Any, wires: Wires) -> Any:
        """Shots: one set of samples per eigenbasis the measurements need (the state rotated
        by each measurement's diagonalising gates), processed by PennyLane."""
        total = tape.shots.total_shots
        drawn: dict[str, np.ndarray] = {}
        for mp in tape.measurements:
            key = repr(mp.diagonalizing_gates())
            if key not in drawn:
                drawn[key] = self._drawn(state, mp, wires, total)
        results = []
        for lower, upper in tape.shots.bins():
            found = tuple(
                mp.process_samples(drawn[repr(mp.diagonalizing_gates())][lower:upper], wires)
                for mp in tape.measurements
            )
            results.append(found[0] if len(found) == 1 else found)
        return tuple(results) if tape.shots.has_partitioned_shots else results[0]

    def _drawn(self, state: Any, mp: Any, wires: Wires, shots: int) -> np.ndarray:
        """``shots`` samples of ``state`` in the eigenbasis of ``mp``: one row of 0/1 per
        shot, a column per wire in ``wires``' order."""
        outcomes = memory(_rotated(state, mp, wires), shots, seed=self._rng)
        digits = np.frombuffer("".join(outcomes).encode("ascii"), dtype=np.uint8)
        return (digits.reshape(shots, len(wires)) - ord("0")).astype(np.int64)

    def _one_shot(self, tape: QuantumScript, wires: Wires) -> Any:
        """A tape with mid-circuit measurements that ``dynamic_one_shot`` made (one shot per
        bin, a sample of each mid-circuit measurement among its measurements): genqsim
        measures mid-circuit, running the shots in groups that share outcomes, each on its
        own state; each group's final state is sampled in the eigenbasis of each
        measurement, and every shot's results are processed by PennyLane."""
        if not tape.shots or tape.shots.num_copies != tape.shots.total_shots:
            raise UnsupportedOperationError(
                "mid-circuit measurements run on this device through PennyLane's "
                "mcm_method='one-shot' (with shots), 'tree-traversal' or 'deferred'"
            )
        circuit, initial = tape_circuit(tape, wires)
        mcms = [op for op in tape.operations if isinstance(op, qml.ops.MidMeasure)]
        total = tape.shots.total_shots
        bases = {repr(mp.diagonalizing_gates()): mp for mp in tape.measurements if mp.mv is None}
        drawn: dict[str, list[np.ndarray]] = {key: [] for key in bases}
        records: list[np.ndarray] = []
        options = {**self._settings.options, "initial": initial}
        for state, shots in shot_groups(circuit, total, self._rng, **options):
            record = [int(state.clbits.get(i, 0)) for i in range(len(mcms))]
            records.append(np.tile(np.array(record, dtype=np.int64), (shots, 1)))
            for key, mp in bases.items():
                drawn[key].append(self._drawn(state, mp, wires, shots))
        order = self._rng.permutation(total)  # the groups' shots, in no group's order
        mcm_values = np.concatenate(records)[order]
        samples = {key: np.concatenate(parts)[order] for key, parts in drawn.items()}
        position = {id(op): i for i, op in enumerate(mcms)}
        columns = []  # per measurement: its value in a shot
        for mp in tape.measurements:
            if mp.mv is not None:  # a sample of one mid-circuit measurement
                (measured,) = mp.mv.measurements
                column = mcm_values[:, position[id(measured)]].tolist()
                columns.append(column)
            else:
                columns.append(_shot_values(mp, samples[repr(mp.diagonalizing_gates())], wires))
        rows = list(zip(*columns))
        return tuple(row[0] if len(row) == 1 else row for row in rows)

    def _tree(self, tape: QuantumScript, wires: Wires) -> Any:
        """A tape with mid-circuit measurements, without shots (``mcm_method=
        "tree-traversal"``): every history of outcomes (and of channels' Kraus branches)
        with a nonzero probability is followed on a state vector of its own, depth first,
        and each measurement is the probability-weighted mean of its value on the branches
        (a variance: of the branches' first and second moments). Branches whose outcome
        differs from a postselected one are dropped and the rest renormalised, as
        PennyLane's own tree traversal does."""
        for mp in tape.measurements:
            if not isinstance(mp, (ExpectationMP, VarianceMP, ProbabilityMP)):
                raise UnsupportedOperationError(
                    f"{type(mp).__name__} of a circuit with mid-circuit measurements and no "
                    "shots: its tree traversal gives expectation values, variances and "
                    "probabilities (the final state is a mixture of branches); use shots, or "
                    "mcm_method='deferred' on a device with a spare wire per measurement"
                )
        circuit, initial = tape_circuit(tape, wires)
        mcms = [op for op in tape.operations if isinstance(op, qml.ops.MidMeasure)]
        statistics = [self._branch_statistic(mp, wires) for mp in tape.measurements]
        sums: list[Any] = [0.0] * len(statistics)
        kept = 0.0
        options = {**self._settings.options, "initial": initial}
        for state, probability in branch_states(circuit, **options):
            outcomes = {op: int(state.clbits.get(i, 0)) for i, op in enumerate(mcms)}
            if any(op.postselect not in (None, outcomes[op]) for op in mcms):
                continue
            kept += probability
            for i, statistic in enumerate(statistics):
                sums[i] = sums[i] + probability * statistic(state, outcomes)
        values = []
        for mp, total in zip(tape.measurements, sums):
            mean = np.asarray(total, dtype=np.float64) / kept if kept > 0 else np.nan * total
            if isinstance(mp, VarianceMP):
                mean = np.float64(mean[1] - mean[0] ** 2)
            values.append(np.float64(mean) if np.ndim(mean) == 0 else mean)
        return values[0] if len(values) == 1 else tuple(values)

    def _branch_statistic(self, mp: Any, wires: Wires) -> Callable[[Any, dict[Any, int]], Any]:
        """``mp`` on one branch of a tree traversal, as a function of the branch's final
        state and outcomes: its value (for a variance, the first and second moments), of
        the state (observables converted once) or of the outcomes it reads (a statistic of
        mid-circuit measurements: an expression's value on them, or for probabilities
        PennyLane's own processing of one sample, once per value of those outcomes)."""
        if isinstance(mp, (ExpectationMP, VarianceMP)) and mp.mv is not None:
            table = mp.mv.branches  # the value on each outcome of the measurements it reads
            powers = (1, 2) if isinstance(mp, VarianceMP) else (1,)

            def of_value(state: Any, outcomes: dict[Any, int]) -> Any:
                value = float(table[tuple(outcomes[m] for m in mp.mv.measurements)])
                return np.array([value**k for k in powers]) if len(powers) > 1 else value

            return of_value
        if mp.mv is not None:
            values = mp.mv if isinstance(mp.mv, Sequence) else [mp.mv]
            read = list(dict.fromkeys(m for value in values for m in value.measurements))
            known: dict[tuple[int, ...], np.ndarray] = {}

            def of_outcomes(state: Any, outcomes: dict[Any, int]) -> Any:
                key = tuple(outcomes[m] for m in read)
                if key not in known:
                    sample = {m: np.array([[v]]) for m, v in zip(read, key)}
                    known[key] = np.asarray(gather_mcm(mp, sample, np.array([[True]])), float)
                return known[key]

            return of_outcomes
        if isinstance(mp, (ExpectationMP, VarianceMP)) and mp.obs is not None:
            observables = [genqsim_observable(mp.obs, wires)]
            if isinstance(mp, VarianceMP):
                observables.append(genqsim_observable(mp.obs, wires, squared=True))

            def moments(state: Any, outcomes: dict[Any, int]) -> Any:
                found = [float(np.real(complex(state.expectation(o)))) for o in observables]
                return np.array(found) if len(found) > 1 else found[0]

            return moments
        return lambda state, outcomes: np.asarray(self._exact(mp, state, wires), dtype=float)

    # -- gradients -------------------------------------------------------------------------
    def compute_derivatives(
        self,
        circuits: Sequence[QuantumScript],
        execution_config: ExecutionConfig | None = None,
    ) -> tuple[Any, ...]:
        """The Jacobian of each tape's expectation values in its trainable parameters, by
        genqsim's adjoint method, shaped as PennyLane's own adjoint shapes it."""
        return tuple(self._jacobian(tape) for tape in circuits)

    def execute_and_compute_derivatives(
        self,
        circuits: Sequence[QuantumScript],
        execution_config: ExecutionConfig | None = None,
    ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        return self.execute(circuits, execution_config), self.compute_derivatives(
            circuits, execution_config
        )

    def _jacobian(self, tape: QuantumScript) -> Any:
        wires = self._wire_order(tape)
        circuit, initial = tape_circuit(tape, wires, symbolic=True)
        if initial is not None:
            raise UnsupportedOperationError(
                "adjoint gradients start from |0...0>: the state preparation is not "
                "differentiated; use diff_method='parameter-shift'"
            )
        names = [f"p{i}" for i in range(len(tape.trainable_params))]
        values = dict(zip(names, (float(v) for v in tape.get_parameters(trainable_only=True))))
        rows = []
        for mp in tape.measurements:
            _, grad = value_and_gradient(circuit, pauli_sum(mp.obs, wires), values, "adjoint")
            by_name = {str(k): v for k, v in grad.items()}
            rows.append([float(by_name.get(n, 0.0)) for n in names])
        jac = np.squeeze(np.array(rows, dtype=np.float64))
        if jac.ndim == 0:
            return np.array(jac)
        if jac.ndim == 1:
            return tuple(np.array(j) for j in jac)
        return tuple(tuple(np.array(x) for x in row) for row in jac)


def tape_circuit(tape: QuantumScript, wires: Wires, symbolic: bool = False) -> tuple[Circuit, Any]:
    """A genqsim circuit from a decomposed tape, and the initial state of its leading state
    preparation (``None`` for ``|0...0>``). With ``symbolic``, trainable parameters become
    the symbols ``p0, p1, ...`` in order, for gradients."""
    n = len(wires)
    qubit = {w: n - 1 - i for i, w in enumerate(wires)}
    missing = [w for w in tape.wires if w not in qubit]
    if missing:
        raise WireError(
            f"the circuit uses wires {missing}, which the device lacks: PennyLane's "
            "defer_measurements gives each mid-circuit measurement a wire of its own, so "
            f"create the device with {len(missing)} more (wires={n + len(missing)}), or "
            "leave wires unset"
        )
    circuit = Circuit(n)
    initial = None
    trainable = set(tape.trainable_params) if symbolic else set()
    symbols = iter(qml_symbols(len(trainable)))
    index = 0
    measured: dict[int, int] = {}  # each mid-circuit measurement's classical bit
    for position, op in enumerate(tape.operations):
        qubits = [qubit[w] for w in op.wires]
        params: list[Any] = []
        for value in op.data:
            params.append(next(symbols) if index in trainable else _number(value))
            index += 1
        if op.name in STATE_PREPARATIONS:
            if position != 0:
                raise UnsupportedOperationError(
                    f"{op.name} after other operations: genqsim prepares states first only"
                )
            initial = np.asarray(op.state_vector(wire_order=wires), dtype=np.complex128)
            initial = initial.reshape(-1)
        elif isinstance(op, qml.ops.MidMeasure):
            measured[id(op)] = len(measured)
            circuit.measure(qubits[0], measured[id(op)])
            if op.reset:
                circuit.reset(qubits[0])
        elif isinstance(op, qml.ops.Conditional):
            clbits, values = _condition(op.meas_val, measured)
            body = Circuit(n)
            _append(body, op.base, params, qubits)
            if values:
                circuit.if_(clbits, values, body)
        else:
            _append(circuit, op, params, qubits)
    return circuit, initial


def _condition(value: Any, measured: dict[int, int]) -> tuple[list[int], list[int]]:
    """The classical bits of the mid-circuit measurements a PennyLane ``MeasurementValue``
    reads, and the values of them on which it is true (from its branches)."""
    clbits = []
    for mcm in value.measurements:
        if id(mcm) not in measured:
            raise UnsupportedOperationError(
                f"a condition reads the mid-circuit measurement {mcm}, which is not made before it"
            )
        clbits.append(measured[id(mcm)])
    values = [sum(bit << i for i, bit in enumerate(outcomes))
              for outcomes, truth in value.branches.items() if truth]  # fmt: skip
    return clbits, values


def _append(circuit: Circuit, op: Any, params: list[Any], qubits: list[int]) -> None:
    """Append one decomposed PennyLane operation (a gate, a channel) to ``circuit``."""
    if is_channel(op):
        if any(isinstance(p, sympy.Symbol) for p in params):
            raise UnsupportedOperationError(
                f"{op.name} has a trainable parameter: noise channels are differentiated "
                "with diff_method='finite-diff'"
            )
        kraus = [np.asarray(k, dtype=np.complex128) for k in op.kraus_matrices()]
        circuit.kraus(kraus, list(reversed(qubits)), name=op.name)  # first wire is high
    elif op.name in NATIVE:
        NATIVE[op.name](circuit, params, qubits)
    elif op.name in SPECIAL:
        SPECIAL[op.name](circuit, op, params, qubits)
    else:
        if any(isinstance(p, sympy.Symbol) for p in params):
            raise UnsupportedOperationError(
                f"{op.name} has a trainable parameter but no genqsim generator: use "
                "diff_method='parameter-shift'"
            )
        matrix = np.asarray(qml.matrix(op), dtype=np.complex128)
        circuit.unitary(matrix, list(reversed(qubits)))  # PennyLane's first wire is high


def _shot_values(mp: Any, rows: np.ndarray, wires: Wires) -> list[Any]:
    """What measurement ``mp`` gives in each one-shot run whose sample (in its eigenbasis) is
    a row of ``rows``: the eigenvalue for an expectation value and for a sample of an
    observable, read for all shots at once; anything else processed by PennyLane shot by
    shot."""
    if isinstance(mp, (ExpectationMP, SampleMP)) and mp.obs is not None:
        eigenvalues = np.asarray(SampleMP(obs=mp.obs).process_samples(rows, wires))
        if isinstance(mp, ExpectationMP):
            return [np.float64(v) for v in eigenvalues.reshape(-1)]
        return [eigenvalues[i : i + 1] for i in range(len(rows))]
    return [mp.process_samples(rows[i : i + 1], wires) for i in range(len(rows))]


def runs_with_mid_circuit_measurements(op: Any) -> bool:
    """:func:`runs_natively`, mid-circuit measurements included (``mcm_method="one-shot"``)."""
    return isinstance(op, qml.ops.MidMeasure) or runs_natively(op)


def _rotated(state: Any, mp: Any, wires: Wires) -> Any:
    """``state`` in the eigenbasis of ``mp``'s observable (itself when it has none)."""
    gates = mp.diagonalizing_gates()
    if not gates:
        return state
    rotation, _ = tape_circuit(QuantumScript(gates), wires)
    return simulate(rotation, initial=state)


def genqsim_observable(observable: Any, wires: Wires, squared: bool = False) -> Any:
    """A genqsim observable from a PennyLane one (its square with ``squared``): a
    ``PauliSum`` from its Pauli representation, else a ``Hermitian`` of its matrix."""
    if observable.pauli_rep is not None:
        found = pauli_sum(observable, wires)
        return found @ found if squared else found
    n = len(wires)
    qubits = [n - 1 - list(wires).index(w) for w in reversed(observable.wires)]
    matrix = np.asarray(qml.matrix(observable), dtype=np.complex128)
    return Hermitian(matrix @ matrix if squared else matrix, qubits)


def pauli_sum(observable: Any, wires: Wires) -> PauliSum:
    """A genqsim ``PauliSum`` from a PennyLane observable with a Pauli representation."""
    sentence = observable.pauli_rep
    if sentence is None:
        raise ArgumentValueError(f"{observable} has no Pauli decomposition")
    n = len(wires)
    qubit = {w: n - 1 - i for i, w in enumerate(wires)}
    terms = []
    for word, coefficient in sentence.items():
        value = complex(_number(coefficient))
        terms.append(
            (value.real if value.imag == 0 else value, {qubit[w]: p for w, p in word.items()})
        )
    return PauliSum(terms)


def _number(value: Any) -> Any:
    """A PennyLane parameter as a Python number (autograd/NumPy tensors unwrapped)."""
    array = np.asarray(qml.math.unwrap(value))
    return array.item() if array.ndim == 0 else array


def qml_symbols(count: int) -> list[sympy.Symbol]:
    """The real symbols ``p0 ... p{count-1}`` trainable parameters become."""
    return [sympy.Symbol(f"p{i}", real=True) for i in range(count)]
