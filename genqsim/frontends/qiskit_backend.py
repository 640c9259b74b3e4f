"""A Qiskit ``BackendV2`` that runs circuits on genqsim: ``transpile(qc, backend)`` keeps
every standard gate (its ``Target`` is genqsim's gate table, with ``unitary``, measurement,
reset, delay, and the control flow genqsim reads: ``if_else``, ``switch_case``,
``while_loop``, ``for_loop``, ``break_loop``, ``continue_loop``, ``box``, ``store``), and
``backend.run(circuits, shots=...)`` returns a Qiskit ``Result`` with counts and, on request,
per-shot memory."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from typing import Any

import numpy as np
from qiskit.circuit import (
    BoxOp,
    BreakLoopOp,
    ContinueLoopOp,
    ForLoopOp,
    IfElseOp,
    QuantumCircuit,
    Store,
    SwitchCaseOp,
    WhileLoopOp,
)
from qiskit.circuit.library import UnitaryGate, get_standard_gate_name_mapping
from qiskit.providers import BackendV2, JobStatus, JobV1, Options
from qiskit.result import Result
from qiskit.transpiler import Target

from ..circuit.circuit import Circuit
from ..circuit.gates import GateKind
from ..errors import ArgumentTypeError, ArgumentValueError, UnboundParameterError
from ..io.interop import from_qiskit
from ..numbers import get_number_system
from ..states.density import DensityMatrix
from ..states.registry import AUTO, choose_method, simulate
from ..states.sampling import check_shots, rng
from ..version import __version__
from .aer_saves import (
    SavedParts,
    aer_save_classes,
    one_shot_saves_after_a_loop,
    one_shot_values,
    save_values,
    split_saves,
)
from .options import SIMULATE_KEYWORDS, SimulateSettings, as_noise_model, checked_options
from .qiskit_primitives import Program
from .shots import shot_bits

RUN_OPTIONS = ("shots", "memory", "seed_simulator", "noise_model")
"""Options ``run`` reads itself; the rest go to :func:`genqsim.simulate`."""


def genqsim_target() -> Target:
    """A ``Target`` of every gate genqsim runs, on any number of qubits (``num_qubits=None``:
    the transpiler keeps the circuit's width), with no coupling map and no errors."""
    target = Target(description="genqsim: every standard gate, any width", num_qubits=None)
    for name, instruction in get_standard_gate_name_mapping().items():
        target.add_instruction(instruction, properties=None, name=name)
    target.add_instruction(UnitaryGate, name="unitary")
    for name, control in CONTROL_FLOW.items():
        target.add_instruction(control, name=name)
    for name, save in aer_save_classes().items():  # Aer's, where it is installed
        target.add_instruction(save, name=name)
    return target


CONTROL_FLOW = {
    "if_else": IfElseOp, "switch_case": SwitchCaseOp, "while_loop": WhileLoopOp,
    "for_loop": ForLoopOp, "break_loop": BreakLoopOp, "continue_loop": ContinueLoopOp,
    "box": BoxOp, "store": Store,
}  # fmt: skip
"""The control-flow instructions ``gq.from_qiskit`` reads, by their Qiskit names."""


def saved_at_their_places(
    cut: SavedParts, settings: SimulateSettings, generator: np.random.Generator
) -> tuple[dict[str, Any], dict[int, int] | None]:
    """What the save instructions of a cut circuit keep: each part run from the state the one
    before left, noise included. From the first mid-circuit measurement, reset or condition
    on, the parts run on a density matrix that keeps every classical record (the averaged
    saves are exact means over them, :func:`~genqsim.frontends.aer_saves.save_values`).
    Saves of one shot's state there (and state vectors of noisy runs, and every save after
    a while loop, which no density matrix runs) read the last shot, run on a state vector
    of its own (:func:`_last_shot`): its classical record is returned (``None`` where no
    save needed it)."""
    out: dict[str, Any] = {}
    state: Any = None
    shot_by_shot = looped = False
    left: dict[int, list[Any]] = {}
    for index, (part, saves) in enumerate(cut.parts):
        circuit = _part_circuit(part, settings)
        shot_by_shot = shot_by_shot or any(op.kind in SHOT_BY_SHOT for op in circuit.operations)
        looped = looped or circuit.has_loops
        if looped:  # no density matrix runs a while loop: one shot's saves only
            left[index] = one_shot_saves_after_a_loop(saves)
            continue
        if not shot_by_shot:
            state = simulate(circuit, initial=state, **settings.options)
        else:
            state = _every_record(circuit, state, settings)
        found = save_values(saves, part, state, out, shot_by_shot)
        if found:
            left[index] = found
    if not left:
        return out, None
    return out, _last_shot(cut, settings, generator, left, out)


def _last_shot(
    cut: SavedParts,
    settings: SimulateSettings,
    generator: np.random.Generator,
    left: dict[int, list[Any]],
    out: dict[str, Any],
) -> dict[int, int]:
    """One shot of the circuit on a state vector of its own, part after part (its
    measurements collapsing, its channels drawing one Kraus operator, its classical bits
    carried on): the saves ``left`` (by part) read its state where they stand. Returns its
    classical record (bit -> 0/1), the last of the run's memory, as in Aer."""
    options = {**settings.options, "method": "statevector"}
    state = simulate(Circuit(cut.rest.num_qubits), seed=generator, **options)
    done = 0
    for index, (part, _) in enumerate(cut.parts):
        _collapse_through(state, part, settings, generator)
        done += len(part.data)
        if index in left:
            one_shot_values(left[index], part, state, out)
    trailing = cut.rest.copy_empty_like()
    for item in cut.rest.data[done:]:
        trailing.append(item)
    _collapse_through(state, trailing, settings, generator)
    return dict(state.clbits)


def _collapse_through(
    state: Any, part: QuantumCircuit, settings: SimulateSettings, generator: np.random.Generator
) -> None:
    """Apply ``part`` to one shot's ``state``, its measurements made where they stand."""
    state.apply(_part_circuit(part, settings).keep_measurements(), seed=generator)


def _part_circuit(part: QuantumCircuit, settings: SimulateSettings) -> Any:
    """A part of a cut circuit as a genqsim circuit, with the noise model's channels."""
    circuit = from_qiskit(part)
    return circuit if settings.noise is None else settings.noise.apply(circuit)


def _every_record(circuit: Any, state: Any, settings: SimulateSettings) -> Any:
    """``circuit`` run on a density matrix from ``state`` (one made from it where it is a
    state vector), its measurements collapsing where they stand: a save reads the state
    after them, so none is left to sampling at the end."""
    circuit.keep_measurements()
    if state is not None and not isinstance(state, DensityMatrix):
        state = DensityMatrix.from_statevector(state)
    options = {**settings.options, "method": "density_matrix"}
    return simulate(circuit, initial=state, **options)


def _record_row(
    record: dict[int, int], circuit: Any, settings: SimulateSettings, generator: np.random.Generator
) -> np.ndarray:
    """One shot's classical record as a row of bits, with the noise model's readout errors
    drawn on it as on the other shots'."""
    key = "".join(str(record.get(c, 0)) for c in reversed(range(circuit.n_clbits)))
    if settings.noise is not None and settings.noise.readout:
        errors = settings.noise.readout.clbit_errors(circuit)
        (key,) = settings.noise.readout.apply_to_counts({key: 1}, errors, generator)
    row = [int(key[-1 - c]) for c in circuit.result_clbits]  # scratch bits left out
    return np.array([row], dtype=np.uint8).reshape(1, len(row))


SHOT_BY_SHOT = frozenset(
    {GateKind.MEASURE, GateKind.RESET, GateKind.CONDITIONAL, GateKind.LOOP, GateKind.STORE}
)
"""Operations after which a state is one shot's."""


def as_integers(bits: np.ndarray) -> list[int]:
    """Each row of bits (column ``j`` is bit ``j``) as an integer."""
    if bits.shape[1] < 63:
        return (bits.astype(np.int64) @ (np.int64(1) << np.arange(bits.shape[1]))).tolist()
    return [int("".join(map(str, row[::-1])) or "0", 2) for row in bits.tolist()]


def bound_circuits(circuits: list[QuantumCircuit], binds: Any) -> list[QuantumCircuit]:
    """The experiments of ``run``: each circuit, or with Aer's ``parameter_binds`` (one
    ``{parameter: [values]}`` per circuit, the lists of one length) each circuit bound at
    each position of its lists, in order."""
    if binds is None:
        return circuits
    if not isinstance(binds, (list, tuple)) or len(binds) != len(circuits):
        raise ArgumentValueError(
            f"parameter_binds holds one {{parameter: [values]}} per circuit: {len(circuits)} "
            f"circuit(s), got {binds!r:.80}"
        )
    out = []
    for qc, bind in zip(circuits, binds):
        lengths = {len(v) for v in bind.values()} if bind else {1}
        if len(lengths) != 1:
            raise ArgumentValueError(
                f"the value lists of parameter_binds for circuit {qc.name!r} differ in length "
                f"({sorted(lengths)}): give each parameter one value per experiment"
            )
        for i in range(lengths.pop()):
            out.append(qc.assign_parameters({p: v[i] for p, v in bind.items()}) if bind else qc)
    return out


class GenqsimJob(JobV1):
    """A finished run: genqsim runs synchronously, so the result exists when ``run``
    returns."""

    _async = False

    def __init__(self, backend: BackendV2, job_id: str, result: Result) -> None:
        super().__init__(backend, job_id)
        self._result = result

    def submit(self) -> None:
        """Nothing to submit: the job ran in ``backend.run``."""

    def result(self, timeout: float | None = None) -> Result:
        """The run's ``Result`` (``timeout`` is accepted and unused: it is already there)."""
        return self._result

    def status(self) -> JobStatus:
        return JobStatus.DONE


class GenqsimBackend(BackendV2):
    """genqsim as a Qiskit backend.

    ``backend.run(circuits, shots=1024, memory=False, seed_simulator=None,
    noise_model=None, method="auto", ...)``: the options Qiskit Aer names (a noise model from
    Aer or genqsim), and any keyword of :func:`genqsim.simulate` (``numbers``, ``device``,
    ``threads``, a method's options; ``method="automatic"``, Aer's name, is ``"auto"``), and
    Aer's ``parameter_binds`` (one ``{parameter: [values]}`` per circuit: an experiment per
    position of the lists).
    Set defaults in the constructor or with ``set_options``. Circuits must have their
    parameters bound.

    >>> from qiskit import QuantumCircuit, transpile
    >>> from genqsim.qiskit import GenqsimBackend
    >>> backend = GenqsimBackend()
    >>> qc = QuantumCircuit(2, 2)
    >>> _ = qc.h(0), qc.cx(0, 1), qc.measure([0, 1], [0, 1])
    >>> counts = backend.run(transpile(qc, backend), shots=100, seed_simulator=1).result()
    >>> sorted(counts.get_counts())
    ['00', '11']
    """

    def __init__(
        self, *, noise_model: Any = None, method: str = AUTO, **simulate_options: Any
    ) -> None:
        super().__init__(
            name="genqsim",
            description="genqsim: state vectors, density matrices, MPS and more, any numbers",
            backend_version=__version__,
        )
        self._target = genqsim_target()
        self._simulate_options = checked_options(simulate_options)
        checked_options({**simulate_options, "method": method})
        self.set_options(method=method)
        if noise_model is not None:
            as_noise_model(noise_model)
            self.set_options(noise_model=noise_model)

    @property
    def target(self) -> Target:
        return self._target

    @property
    def max_circuits(self) -> None:
        return None

    @classmethod
    def _default_options(cls) -> Options:
        return Options(shots=1024, memory=False, seed_simulator=None, noise_model=None, method=AUTO)

    def run(self, run_input: Any, **options: Any) -> GenqsimJob:
        """Run one circuit or a list of them; ``options`` override the backend's for this
        run."""
        circuits = [run_input] if isinstance(run_input, QuantumCircuit) else run_input
        if not isinstance(circuits, (list, tuple)) or not all(
            isinstance(c, QuantumCircuit) for c in circuits
        ):
            raise ArgumentTypeError(
                f"run() takes a QuantumCircuit or a list of them, got {type(run_input).__name__}"
            )
        circuits = bound_circuits(list(circuits), options.pop("parameter_binds", None))
        merged = {k: getattr(self.options, k) for k in RUN_OPTIONS}
        merged.update({k: v for k, v in options.items() if k in RUN_OPTIONS})
        method = options.get("method", self.options.method)
        simulate_options = {
            **self._simulate_options,
            **{k: v for k, v in options.items() if k not in RUN_OPTIONS},
            "method": AUTO if method == "automatic" else method,  # Aer's name for "auto"
        }
        settings = SimulateSettings.make(merged["noise_model"], simulate_options)
        shots = check_shots(merged["shots"])
        generator = rng(merged["seed_simulator"])
        for qc in circuits:
            if qc.parameters:
                names = ", ".join(p.name for p in qc.parameters)
                raise UnboundParameterError(
                    f"circuit {qc.name!r} has unbound parameters ({names}): bind them with "
                    "qc.assign_parameters(...) before run(), or use genqsim.qiskit.Sampler"
                )
        start = time.time()
        results = [
            self._run_circuit(qc, shots, bool(merged["memory"]), generator, settings)
            for qc in circuits
        ]
        result = Result.from_dict(
            {
                "backend_name": self.name,
                "backend_version": self.backend_version,
                "job_id": str(uuid.uuid4()),
                "qobj_id": "",
                "results": results,
                "status": "COMPLETED",
                "success": True,
                "time_taken": time.time() - start,
            }
        )
        return GenqsimJob(self, result.job_id, result)

    def _run_circuit(
        self,
        qc: QuantumCircuit,
        shots: int,
        memory: bool,
        generator: np.random.Generator,
        settings: SimulateSettings,
    ) -> dict[str, Any]:
        start = time.time()
        cut = split_saves(qc)
        qc = cut.rest
        program = Program(qc, settings.noise)
        saved, last = saved_at_their_places(cut, settings, generator) if cut.parts else ({}, None)
        bits = shot_bits(program.circuit, shots - (last is not None), generator, settings)
        if last is not None:  # the shot whose state the saves of one shot read
            bits = np.vstack([bits, _record_row(last, program.circuit, settings, generator)])
        outcomes = [hex(v) for v in as_integers(bits)]
        data: dict[str, Any] = {"counts": dict(Counter(outcomes)) if qc.num_clbits else {}}
        if memory:
            data["memory"] = outcomes if qc.num_clbits else []
        data.update(saved)
        method = settings.options.get("method", AUTO)
        if method == AUTO:
            own = {k: v for k, v in settings.options.items() if k not in SIMULATE_KEYWORDS}
            numbers = settings.options.get("numbers")
            method = choose_method(
                program.circuit, None if numbers is None else get_number_system(numbers), own
            )
        header = {
            "name": qc.name,
            "n_qubits": qc.num_qubits,
            "qreg_sizes": [[r.name, r.size] for r in qc.qregs],
            "creg_sizes": [[r.name, r.size] for r in qc.cregs],
            "qubit_labels": [[r.name, j] for r in qc.qregs for j in range(r.size)],
            "clbit_labels": [[r.name, j] for r in qc.cregs for j in range(r.size)],
            "memory_slots": qc.num_clbits,
            "global_phase": float(qc.global_phase),
            "metadata": qc.metadata or {},
        }
        return {
            "name": qc.name,
            "shots": shots,
            "data": data,
            "status": "DONE",
            "success": True,
            "header": header,
            "metadata": {"method": method, "simulator": "genqsim"},
            "time_taken": time.time() - start,
        }
