"""A Cirq simulator run by genqsim: :class:`Simulator` samples (``run``, ``run_sweep``),
returns final states (``simulate``, ``simulate_sweep``), amplitudes (``compute_amplitudes``),
the state after each moment (``simulate_moment_steps``) and exact expectation values
(``simulate_expectation_values``, sweeps included), so ``cirq.Simulator()`` can be swapped
for it.

Qubits are numbered so that genqsim's amplitudes are Cirq's, in the same order: the first
qubit of the qubit order is the most significant bit, as Cirq prints state vectors."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import cirq
import numpy as np

from ..circuit.circuit import Circuit
from ..errors import ArgumentTypeError, ArgumentValueError, WhileLoopLimitError
from ..io.cirq_reader import (
    MAX_RECORDED_REPEATS,
    CirqMeasurement,
    CirqReader,
    CirqRecords,
    from_cirq_measured,
)
from ..linalg.pauli import PauliSum
from ..states.expectations import expectation
from ..states.registry import AUTO, simulate
from ..states.sampling import check_shots, rng
from .options import SimulateSettings
from .shots import shot_bits


class Simulator(
    cirq.SimulatesSamples,
    cirq.SimulatesFinalState[cirq.StateVectorTrialResult],
    cirq.SimulatesExpectationValues,
    cirq.SimulatesAmplitudes,
):
    """``cirq.Simulator``'s interface on genqsim.

    ``seed``: an integer, a NumPy generator or ``None``, as ``cirq.Simulator`` takes it.
    ``dtype``: the final states' dtype (``np.complex64`` as Cirq's default, or
    ``np.complex128``, which also runs the simulation in double precision). Other keywords
    are :func:`genqsim.simulate`'s (``method``, ``numbers``, ``device``, ``threads``, a
    method's options), and ``noise_model`` a :class:`genqsim.NoiseModel`.

    >>> import cirq
    >>> from genqsim.cirq import Simulator
    >>> a, b = cirq.LineQubit.range(2)
    >>> circuit = cirq.Circuit(cirq.H(a), cirq.CNOT(a, b), cirq.measure(a, b, key="m"))
    >>> result = Simulator(seed=3).run(circuit, repetitions=20)
    >>> sorted(set(result.histogram(key="m")))  # 0b00 and 0b11
    [0, 3]
    """

    def __init__(
        self,
        *,
        seed: Any = None,
        dtype: Any = np.complex64,
        noise_model: Any = None,
        **simulate_options: Any,
    ) -> None:
        self._dtype = np.dtype(dtype)
        if self._dtype not in (np.dtype(np.complex64), np.dtype(np.complex128)):
            raise ArgumentTypeError(f"dtype is np.complex64 or np.complex128, got {dtype!r}")
        options = dict(simulate_options)
        if self._dtype == np.complex128:
            options.setdefault("numbers", "complex128")
        self._settings = SimulateSettings.make(noise_model, options)
        self._generator = rng(seed.randint(2**32) if isinstance(seed, np.random.RandomState)
                              else seed)  # fmt: skip

    # -- conversion ------------------------------------------------------------------------
    def _program(
        self, circuit: cirq.AbstractCircuit, resolver: cirq.ParamResolver, qubits: Sequence[Any]
    ) -> tuple[Circuit, CirqRecords]:
        resolved = cirq.resolve_parameters(circuit, resolver)
        order = list(reversed(qubits))  # the first qubit of Cirq's order is the highest bit
        program, records = from_cirq_measured(resolved, order)
        if self._settings.noise is not None:
            program = self._settings.noise.apply(program)
        return program, records

    def _state_vector_options(self) -> dict[str, Any]:
        """The simulate options of runs that return a state vector: the method asked for,
        else ``"statevector"`` (channels then draw one Kraus operator, as Cirq's do)."""
        options = dict(self._settings.options)
        if options.get("method", AUTO) == AUTO:
            options["method"] = "statevector"
        return options

    # -- samples ---------------------------------------------------------------------------
    def run_sweep_iter(
        self, program: cirq.AbstractCircuit, params: cirq.Sweepable, repetitions: int = 1
    ) -> Iterator[cirq.Result]:
        """Samples at each point of ``params`` (``repetitions`` shots each)."""
        return super().run_sweep_iter(_checked(program), params, repetitions)

    def _run(
        self, circuit: cirq.AbstractCircuit, param_resolver: cirq.ParamResolver, repetitions: int
    ) -> dict[str, np.ndarray]:
        repetitions = check_shots(repetitions)
        qubits = sorted(circuit.all_qubits())
        program, records = self._program(circuit, param_resolver, qubits)
        bits = shot_bits(program, repetitions, self._generator, self._settings)
        _check_finished(bits, records)
        return {key: _records(bits, found) for key, found in records.keys.items()}

    # -- final states ----------------------------------------------------------------------
    def simulate_sweep_iter(
        self,
        program: cirq.AbstractCircuit,
        params: cirq.Sweepable,
        qubit_order: cirq.QubitOrderOrList = cirq.QubitOrder.DEFAULT,
        initial_state: Any = None,
    ) -> Iterator[cirq.StateVectorTrialResult]:
        """The final state vector at each point of ``params``; ``initial_state`` a basis
        index (Cirq's numbering) or a state vector, mid-circuit measurements collapse with
        this simulator's seed and appear in ``measurements``, and noise channels apply one
        Kraus operator drawn with it (one trajectory, as ``cirq.Simulator`` samples them)."""
        _checked(program)
        qubits = cirq.QubitOrder.as_qubit_order(qubit_order).order_for(program.all_qubits())
        options = self._state_vector_options()
        for resolver in cirq.to_resolvers(params):
            circuit, records = self._program(program, resolver, qubits)
            state = simulate(
                circuit,
                initial=_initial(initial_state, len(qubits)),
                seed=self._generator,
                **options,
            )
            if not hasattr(state, "amplitudes"):
                raise ArgumentValueError(
                    f"simulate returns a state vector, and method={options['method']!r} gives "
                    f"a {type(state).__name__}: make the Simulator without the method (noise "
                    "channels then run as one sampled trajectory, as in cirq.Simulator)"
                )
            vector = np.asarray(state.amplitudes, dtype=self._dtype)
            clbits = np.zeros((1, circuit.n_clbits), dtype=np.uint8)
            for c, bit in getattr(state, "clbits", {}).items():
                clbits[0, c] = bit
            _check_finished(clbits, records)
            measurements = {  # a key measured several times: its latest value, as Cirq's
                key: _records(clbits, found)[0, -1] for key, found in records.keys.items()
            }
            final = cirq.StateVectorSimulationState(
                qubits=qubits, initial_state=vector, dtype=self._dtype.type
            )
            yield cirq.StateVectorTrialResult(resolver, measurements, final)

    def compute_amplitudes_sweep_iter(
        self,
        program: cirq.AbstractCircuit,
        bitstrings: Sequence[int],
        params: cirq.Sweepable,
        qubit_order: cirq.QubitOrderOrList = cirq.QubitOrder.DEFAULT,
    ) -> Iterator[Sequence[complex]]:
        """The amplitudes of the basis states ``bitstrings`` (Cirq's numbering: the first
        qubit of the order the most significant bit) in the final state at each point of
        ``params``."""
        for result in self.simulate_sweep_iter(program, params, qubit_order):
            vector = result.final_state_vector
            outside = [b for b in bitstrings if not 0 <= int(b) < vector.size]
            if outside:
                raise ArgumentValueError(
                    f"bitstrings {outside} are no basis states of {len(result.qubit_map)} qubits"
                )
            yield [complex(vector[int(b)]) for b in bitstrings]

    # -- moment by moment ------------------------------------------------------------------
    def simulate_moment_steps(
        self,
        circuit: cirq.AbstractCircuit,
        param_resolver: Any = None,
        qubit_order: cirq.QubitOrderOrList = cirq.QubitOrder.DEFAULT,
        initial_state: Any = None,
    ) -> Iterator[cirq.SparseSimulatorStep]:
        """The state after each moment of ``circuit`` in turn, in one run (Cirq's step
        results: ``state_vector()``, ``measurements`` so far, ``sample``,
        ``dirac_notation``, ``bloch_vector_of``): mid-circuit measurements collapse with this
        simulator's seed and channels apply one drawn Kraus operator; an empty circuit
        gives one step, the initial state."""
        _checked(circuit)
        resolved = cirq.resolve_parameters(circuit, cirq.ParamResolver(param_resolver))
        qubits = cirq.QubitOrder.as_qubit_order(qubit_order).order_for(resolved.all_qubits())
        n = len(qubits)
        reader = CirqReader({q: n - 1 - i for i, q in enumerate(qubits)}, with_records=True)
        options = self._state_vector_options()
        state = simulate(
            Circuit(n), initial=_initial(initial_state, n), seed=self._generator, **options
        )
        if not hasattr(state, "apply") or not hasattr(state, "amplitudes"):
            raise ArgumentValueError(
                f"simulate_moment_steps steps a state vector; method={options['method']!r} "
                "keeps none: make the Simulator without the method"
            )
        if not resolved.moments:
            yield self._step(state, qubits, reader.records, reader.clbit)
        for moment in resolved.moments:
            piece = Circuit(n, n_clbits=reader.clbit)  # conditions read earlier moments' bits
            reader.read(piece, moment.operations)
            if self._settings.noise is not None:
                piece = self._settings.noise.apply(piece)
            state.apply(piece.keep_measurements(), seed=self._generator)
            yield self._step(state, qubits, reader.records, reader.clbit)

    def _step(self, state: Any, qubits: Sequence[Any], records: CirqRecords, n_clbits: int) -> Any:
        """A Cirq step result of ``state`` (whose run has allotted ``n_clbits`` classical
        bits so far), its keys' latest recorded values logged."""
        found = getattr(state, "clbits", {})
        clbits = np.zeros((1, max(n_clbits, 1 + max(found, default=-1))), dtype=np.uint8)
        for c, bit in found.items():  # bits never written (iterations not run) read 0
            clbits[0, c] = bit
        _check_finished(clbits, records)
        logged = cirq.ClassicalDataDictionaryStore()
        for key, measured in records.keys.items():
            value = _records(clbits, measured)[0, -1].tolist()
            logged.record_measurement(
                cirq.MeasurementKey.parse_serialized(key), value, cirq.LineQubit.range(len(value))
            )
        vector = np.asarray(state.amplitudes, dtype=self._dtype)
        sim_state = cirq.StateVectorSimulationState(
            qubits=qubits, initial_state=vector.copy(), dtype=self._dtype.type,
            classical_data=logged,
        )  # fmt: skip
        return cirq.SparseSimulatorStep(sim_state=sim_state, dtype=self._dtype.type)

    # -- expectation values ----------------------------------------------------------------
    def simulate_expectation_values_sweep_iter(
        self,
        program: cirq.AbstractCircuit,
        observables: Any,
        params: cirq.Sweepable,
        qubit_order: cirq.QubitOrderOrList = cirq.QubitOrder.DEFAULT,
        initial_state: Any = None,
        permit_terminal_measurements: bool = False,
    ) -> Iterator[list[Any]]:
        """Exact expectation values of ``observables`` (a ``cirq.PauliSum``-like or a list of
        them) at each point of ``params``, from genqsim's state (each Pauli term on its light
        cone where that is smaller); complex numbers, as ``cirq.Simulator`` gives them."""
        _checked(program)
        if not permit_terminal_measurements and program.are_any_measurements_terminal():
            raise ValueError(
                "Provided circuit has terminal measurements, which may skew expectation "
                "values. If this is intentional, set permit_terminal_measurements=True."
            )
        listed = observables if isinstance(observables, list) else [observables]
        sums = [cirq.PauliSum.wrap(o) for o in listed]
        touched = set(program.all_qubits()).union(*(s.qubits for s in sums))
        qubits = cirq.QubitOrder.as_qubit_order(qubit_order).order_for(touched)
        index = {q: len(qubits) - 1 - i for i, q in enumerate(qubits)}
        converted = [_pauli_sum(s, index) for s in sums]
        for resolver in cirq.to_resolvers(params):
            circuit, _ = self._program(program, resolver, qubits)
            unmeasured, _ = circuit.split_terminal_measurements()
            values = expectation(
                unmeasured,
                converted,
                initial=_initial(initial_state, len(qubits)),
                **self._settings.options,
            )
            yield [complex(v) for v in values]


def _checked(program: Any) -> cirq.AbstractCircuit:
    if not isinstance(program, cirq.AbstractCircuit):
        raise ArgumentTypeError(f"expected a cirq.Circuit, got {type(program).__name__}")
    return program


def _records(bits: np.ndarray, found: list[CirqMeasurement]) -> np.ndarray:
    """Cirq's record of one key: shape ``(shots, instances, qubits)``, inverted bits
    flipped. Where measurements of the key ran in some shots only (iterations of a
    ``repeat_until`` loop), each shot lists those that ran, in order, padded with zeros to
    the most any shot ran, as Cirq pads them."""
    out = np.stack([bits[:, m.clbits] ^ np.asarray(m.inverted, dtype=np.uint8) for m in found],
                   axis=1).astype(np.uint8)  # fmt: skip
    ran = np.stack(
        [~np.any(bits[:, m.ran_where_zero], axis=1) for m in found], axis=1
    )  # (shots, instances); an empty ran_where_zero: every shot
    if ran.all():
        return out
    order = np.argsort(~ran, axis=1, kind="stable")  # those that ran first, in order
    packed = np.take_along_axis(out, order[:, :, None], axis=1)
    counts = ran.sum(axis=1)
    packed[np.arange(ran.shape[1])[None, :] >= counts[:, None]] = 0
    return packed[:, : counts.max()]


def _check_finished(bits: np.ndarray, records: CirqRecords) -> None:
    """Refuse shots in which a ``repeat_until`` loop had not ended after the iterations
    whose measurements are recorded."""
    for flag, loop in records.unfinished:
        still = int(np.count_nonzero(bits[:, flag] == 0))
        if still:
            raise WhileLoopLimitError(
                f"a subcircuit repeated {loop} (repeat_until) had not ended after "
                f"{MAX_RECORDED_REPEATS} iterations in {still} of {len(bits)} shot(s): "
                "genqsim records the measurements of that many iterations, each as Cirq "
                "does (genqsim.from_cirq reads the loop as a while loop, without the "
                "records of each iteration, and runs it to its end)"
            )


def _initial(initial_state: Any, n_qubits: int) -> Any:
    """genqsim's ``initial`` from Cirq's: a basis index (the same number in both orders) or
    a vector (the same amplitudes)."""
    if initial_state is None:
        return None
    if isinstance(initial_state, (int, np.integer)):
        if not 0 <= initial_state < 1 << n_qubits:
            raise ArgumentValueError(
                f"initial_state {initial_state} is not a basis state of {n_qubits} qubits"
            )
        return int(initial_state)
    vector = np.asarray(initial_state)
    if vector.shape != (1 << n_qubits,):
        raise ArgumentValueError(
            f"initial_state has shape {vector.shape}; a state of {n_qubits} qubits has "
            f"{1 << n_qubits} amplitudes"
        )
    return vector.astype(np.complex128)


def _pauli_sum(observable: cirq.PauliSum, index: dict[Any, int]) -> PauliSum:
    """A genqsim ``PauliSum`` from a Cirq one, qubits renumbered by ``index``."""
    terms = []
    for string in observable:
        coefficient = complex(string.coefficient)
        terms.append(
            (
                coefficient.real if coefficient.imag == 0 else coefficient,
                {index[q]: str(p) for q, p in string.items()},
            )
        )
    return PauliSum(terms)
