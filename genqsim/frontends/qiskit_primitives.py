"""Qiskit's V2 primitives run by genqsim: :class:`Sampler` and :class:`Estimator`.

They take the PUBs Qiskit's own ``StatevectorSampler`` and ``StatevectorEstimator`` take
(a circuit, parameter values broadcast as NumPy arrays, observables as ``SparsePauliOp``,
Pauli labels or ``SparseObservable``), and return Qiskit's own containers
(``PrimitiveResult``, ``DataBin``, ``BitArray``). Every other setting goes to
:func:`genqsim.simulate`: ``method``, ``numbers``, ``device``, a method's options, and a
noise model (genqsim's or Qiskit Aer's). Circuits are converted once per PUB and bound per
parameter point.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from qiskit.circuit import QuantumCircuit
from qiskit.primitives import (
    BaseEstimatorV2,
    BaseSamplerV2,
    BitArray,
    DataBin,
    PrimitiveJob,
    PrimitiveResult,
    PubResult,
    SamplerPubResult,
)
from qiskit.primitives.containers.bindings_array import BindingsArray
from qiskit.primitives.containers.estimator_pub import EstimatorPub
from qiskit.primitives.containers.observables_array import ObservablesArray
from qiskit.primitives.containers.sampler_pub import SamplerPub

from ..circuit.circuit import Circuit
from ..circuit.noise import NoiseModel
from ..errors import ArgumentTypeError, ArgumentValueError
from ..io.interop import from_qiskit
from ..linalg.pauli import PauliSum
from ..numbers import get_number_system
from ..states.counting import counted_register, counts_at_points
from ..states.expectations import expectation
from ..states.sampling import check_shots, pauli_term_estimate, rng
from .options import SimulateSettings
from .shots import shot_bits

PROJECTORS: dict[str, tuple[tuple[float, str], ...]] = {
    "I": ((1.0, "I"),),
    "X": ((1.0, "X"),),
    "Y": ((1.0, "Y"),),
    "Z": ((1.0, "Z"),),
    "0": ((0.5, "I"), (0.5, "Z")),
    "1": ((0.5, "I"), (-0.5, "Z")),
    "+": ((0.5, "I"), (0.5, "X")),
    "-": ((0.5, "I"), (-0.5, "X")),
    "r": ((0.5, "I"), (0.5, "Y")),
    "l": ((0.5, "I"), (-0.5, "Y")),
}
"""Each letter of a Qiskit ``SparseObservable`` label as a sum of Paulis (``0`` is
``|0><0| = (I + Z)/2``, ``r`` is ``|+i><+i| = (I + Y)/2``, ...)."""


class Program:
    """A Qiskit circuit converted once: the genqsim circuit (noise channels inserted) and the
    names of Qiskit's parameters in the order ``BindingsArray.as_array`` gives their values."""

    def __init__(self, qc: QuantumCircuit, noise: NoiseModel | None) -> None:
        circuit = from_qiskit(qc)
        self.circuit = noise.apply(circuit) if noise is not None else circuit
        self.names = [p.name for p in qc.parameters]
        known = {str(p) for p in self.circuit.parameters}
        self.kept = [i for i, name in enumerate(self.names) if name in known]
        """Positions in :attr:`names` of the parameters the circuit still has."""

    def values(self, bindings: BindingsArray, qc: QuantumCircuit) -> np.ndarray:
        """The parameter values of every point, shape ``bindings.shape + (len(names),)``."""
        if not self.names:
            return np.zeros((*bindings.shape, 0))
        return np.asarray(bindings.as_array(qc.parameters))

    def at(self, point: np.ndarray) -> Circuit:
        """The circuit bound to one point's values (itself when it has no parameters)."""
        if not self.kept or point.size == 0:
            return self.circuit
        return self.circuit.bind({self.names[i]: float(point[i]) for i in self.kept})


def packed(bits: np.ndarray) -> np.ndarray:
    """Bits (column ``j`` is bit ``j``) packed as ``BitArray`` holds them: big-endian bytes,
    the lowest bits in the last byte."""
    width = bits.shape[-1]
    msb_first = np.pad(bits[..., ::-1], ((0, 0), (-width % 8, 0)))
    return np.packbits(msb_first, axis=-1)


class Seeded:
    """What both primitives keep: the seed every ``run`` starts from (checked when the
    primitive is made, not in the job) and the settings for :func:`genqsim.simulate`."""

    def _keep(self, seed: int | np.random.Generator | None, noise_model: Any,
              simulate_options: dict[str, Any]) -> None:  # fmt: skip
        rng(seed)
        self._seed = seed
        self._settings = SimulateSettings.make(noise_model, simulate_options)

    @property
    def seed(self) -> int | np.random.Generator | None:
        """The seed each ``run`` call starts from."""
        return self._seed


class Sampler(Seeded, BaseSamplerV2):
    """Qiskit's ``BaseSamplerV2`` on genqsim: samples of every classical register, for every
    point of each PUB's parameter values.

    Circuits may measure mid-circuit and branch on the results (``if_test``), which Qiskit's
    ``StatevectorSampler`` refuses. ``noise_model``: a :class:`genqsim.NoiseModel` or a Qiskit
    Aer ``NoiseModel`` (its readout errors included). ``seed``: an integer makes every
    ``run`` call reproducible. Other keywords are :func:`genqsim.simulate`'s (``method``,
    ``numbers``, ``device``, ``threads``, a method's options such as ``max_bond``).

    >>> from qiskit import QuantumCircuit
    >>> from genqsim.qiskit import Sampler
    >>> qc = QuantumCircuit(2)
    >>> _ = qc.h(0), qc.cx(0, 1), qc.measure_all()
    >>> result = Sampler(seed=7).run([qc], shots=100).result()
    >>> sorted(result[0].data.meas.get_counts())
    ['00', '11']
    """

    def __init__(
        self,
        *,
        default_shots: int = 1024,
        seed: int | np.random.Generator | None = None,
        noise_model: Any = None,
        **simulate_options: Any,
    ) -> None:
        self._default_shots = check_shots(default_shots)
        self._keep(seed, noise_model, simulate_options)

    @property
    def default_shots(self) -> int:
        """Shots of a PUB that names none, when ``run`` names none either."""
        return self._default_shots

    def run(
        self, pubs: Iterable[Any], *, shots: int | None = None
    ) -> PrimitiveJob[PrimitiveResult[SamplerPubResult]]:
        """A job sampling every PUB; ``shots`` for PUBs that name none (default
        :attr:`default_shots`)."""
        if shots is None:
            shots = self._default_shots
        coerced = [SamplerPub.coerce(pub, check_shots(shots)) for pub in _listed(pubs)]
        if any(not pub.circuit.cregs for pub in coerced):
            warnings.warn(
                "a circuit has no classical registers, so its result holds no samples: add "
                "measurements (qc.measure_all())",
                UserWarning,
                stacklevel=2,
            )
        job = PrimitiveJob(self._run, coerced)
        job._submit()
        return job

    def _run(self, pubs: list[SamplerPub]) -> PrimitiveResult[SamplerPubResult]:
        generator = rng(self._seed)
        results = [self._run_pub(pub, generator) for pub in pubs]
        return PrimitiveResult(results, metadata={"version": 2, "simulator": "genqsim"})

    def _swept_counts(
        self, program: Program, values: np.ndarray, shots: int, generator: np.random.Generator
    ) -> Any:
        """Every point's counts, drawn from ``generator`` in point order from one broadcast
        sweep (as binding and counting point after point draws them), where a sweep serves
        the PUB's circuit (several points, a unitary circuit measured at the end); else
        ``None``."""
        if not program.kept or values.size < 2 * values.shape[-1]:
            return None
        if counted_register(program.circuit) != "classical bits":
            return None
        points = values.reshape(-1, values.shape[-1])
        swept = {program.names[i]: points[:, i] for i in program.kept}
        found = counts_at_points(program.circuit, swept, shots, itertools.repeat(generator),
                                 self._settings.noise, **self._settings.options)  # fmt: skip
        return None if found is None else found[1]

    def _run_pub(self, pub: SamplerPub, generator: np.random.Generator) -> SamplerPubResult:
        qc = pub.circuit
        program = Program(qc, self._settings.noise)
        values = program.values(pub.parameter_values, qc)
        registers = {creg.name: [qc.find_bit(b).index for b in creg] for creg in qc.cregs}
        arrays = {
            name: np.zeros((*pub.shape, pub.shots, -(-len(bits) // 8)), dtype=np.uint8)
            for name, bits in registers.items()
        }
        drawn = self._swept_counts(program, values, pub.shots, generator)
        for index in np.ndindex(pub.shape):
            tally = None if drawn is None else next(drawn)  # one broadcast sweep's states
            bits = shot_bits(program.at(values[index]), pub.shots, generator, self._settings,
                             tally)  # fmt: skip
            for name, columns in registers.items():
                arrays[name][index] = packed(bits[:, columns])
        data = {name: BitArray(arrays[name], len(bits)) for name, bits in registers.items()}
        return SamplerPubResult(
            DataBin(**data, shape=pub.shape),
            metadata={"shots": pub.shots, "circuit_metadata": qc.metadata},
        )


class Estimator(Seeded, BaseEstimatorV2):
    """Qiskit's ``BaseEstimatorV2`` on genqsim: expectation values of each PUB's observables
    at each of its parameter points, broadcast together as Qiskit specifies.

    ``precision=0`` (the default) gives exact values from the state (``stds`` 0). A positive
    precision gives values estimated from shots: each Pauli term measured in its eigenbasis
    with enough shots that the standard error is at most the precision (``stds`` holds the
    estimated standard error). With symbolic ``numbers`` (``"sympy"``, ``"trig"``,
    ``"symengine"``) a PUB may leave the circuit's parameters unbound, ``(circuit,
    observables)``, and ``evs`` holds closed forms in them (genqsim's extension).
    ``noise_model`` and the other keywords as for :class:`Sampler`.

    >>> from qiskit import QuantumCircuit
    >>> from genqsim.qiskit import Estimator
    >>> qc = QuantumCircuit(2)
    >>> _ = qc.h(0), qc.cx(0, 1)
    >>> Estimator().run([(qc, ["ZZ", "XX", "XI"])]).result()[0].data.evs.round(12).tolist()
    [1.0, 1.0, 0.0]
    """

    def __init__(
        self,
        *,
        default_precision: float = 0.0,
        seed: int | np.random.Generator | None = None,
        noise_model: Any = None,
        **simulate_options: Any,
    ) -> None:
        self._default_precision = _checked_precision(default_precision)
        self._keep(seed, noise_model, simulate_options)
        numbers = self._settings.options.get("numbers")
        self._symbolic = numbers is not None and get_number_system(numbers).symbolic

    @property
    def default_precision(self) -> float:
        """Precision of a PUB that names none, when ``run`` names none either."""
        return self._default_precision

    def run(
        self, pubs: Iterable[Any], *, precision: float | None = None
    ) -> PrimitiveJob[PrimitiveResult[PubResult]]:
        """A job estimating every PUB; ``precision`` for PUBs that name none."""
        if precision is None:
            precision = self._default_precision
        precision = _checked_precision(precision)
        coerced = [self._coerce(pub, precision) for pub in _listed(pubs)]
        job = PrimitiveJob(self._run, coerced)
        job._submit()
        return job

    def _coerce(self, pub: Any, precision: float) -> EstimatorPub:
        """Qiskit's coercion; with symbolic numbers a ``(circuit, observables)`` PUB may keep
        its parameters free."""
        if (
            self._symbolic
            and isinstance(pub, tuple)
            and len(pub) == 2
            and isinstance(pub[0], QuantumCircuit)
            and pub[0].num_parameters
        ):
            observables = ObservablesArray.coerce(pub[1])
            return EstimatorPub(pub[0], observables, BindingsArray(), precision, validate=False)
        return EstimatorPub.coerce(pub, precision)

    def _run(self, pubs: list[EstimatorPub]) -> PrimitiveResult[PubResult]:
        generator = rng(self._seed)
        results = [self._run_pub(pub, generator) for pub in pubs]
        return PrimitiveResult(results, metadata={"version": 2, "simulator": "genqsim"})

    def _run_pub(self, pub: EstimatorPub, generator: np.random.Generator) -> PubResult:
        qc = pub.circuit
        program = Program(qc, self._settings.noise)
        free = pub.parameter_values.num_parameters == 0 and qc.num_parameters > 0
        values = np.zeros((0,)) if free else program.values(pub.parameter_values, qc)
        point_shape = pub.parameter_values.shape
        shape = np.broadcast_shapes(point_shape, pub.observables.shape)
        observables = [pauli_sum(o, qc.num_qubits) for o in pub.observables.ravel().tolist()]
        points = np.broadcast_to(np.arange(math.prod(point_shape)).reshape(point_shape), shape)
        which = np.broadcast_to(
            np.arange(math.prod(pub.observables.shape)).reshape(pub.observables.shape), shape
        )
        wanted: dict[int, list[tuple[tuple[int, ...], int]]] = {}
        for index in np.ndindex(shape):
            wanted.setdefault(int(points[index]), []).append((index, int(which[index])))
        flat_values = None if free else values.reshape(math.prod(point_shape), values.shape[-1])
        found: dict[tuple[int, ...], Any] = {}
        spreads: dict[tuple[int, ...], float] = {}
        swept = None if pub.precision else self._swept(program, flat_values, observables, wanted)
        for point, cells in wanted.items():
            if swept is not None:  # every point's value from one broadcast sweep
                for index, o in cells:
                    found[index] = _real(swept[point][o])
                continue
            circuit = program.circuit if flat_values is None else program.at(flat_values[point])
            needed = sorted({o for _, o in cells})
            if pub.precision:
                estimates = self._sampled(circuit, [observables[o] for o in needed], pub.precision,
                                          generator)  # fmt: skip
                by_observable = dict(zip(needed, estimates))
                for index, o in cells:
                    found[index], spreads[index] = by_observable[o]
            else:
                exact = expectation(
                    circuit, [observables[o] for o in needed], **self._settings.options
                )
                by_observable = dict(zip(needed, exact))
                for index, o in cells:
                    found[index] = _real(by_observable[o])
        exact_numbers = any(not isinstance(v, (float, int, np.floating)) for v in found.values())
        evs = np.empty(shape, dtype=object if exact_numbers else np.float64)
        stds = np.zeros(shape)
        for index, value in found.items():
            evs[index] = value
            stds[index] = spreads.get(index, 0.0)
        return PubResult(
            DataBin(evs=evs, stds=stds, shape=shape),
            metadata={"target_precision": pub.precision, "circuit_metadata": qc.metadata},
        )

    def _swept(
        self,
        program: Program,
        flat_values: np.ndarray | None,
        observables: list[PauliSum],
        wanted: Mapping[int, list[tuple[tuple[int, ...], int]]],
    ) -> Any:
        """Every observable's exact value at every point, ``(points, observables)``, from one
        broadcast :func:`~genqsim.expectation` (planned once, many points per kernel call),
        where each point asks for every observable (Qiskit's usual PUB: a column of
        observables against a row of points); ``None`` otherwise (points run one by one)."""
        points = len(wanted)
        kept = program.kept
        if flat_values is None or points < 2 or not kept:
            return None
        if any(len({o for _, o in cells}) != len(observables) for cells in wanted.values()):
            return None
        values = {program.names[i]: flat_values[:, i] for i in kept}
        found = expectation(program.circuit, observables, values=values, **self._settings.options)
        return np.asarray(found, dtype=object).reshape(flat_values.shape[0], len(observables))

    def _sampled(
        self,
        circuit: Circuit,
        observables: list[PauliSum],
        precision: float,
        generator: np.random.Generator,
    ) -> list[tuple[float, float]]:
        """Each observable estimated from shots of its Pauli terms, enough that the standard
        error is at most ``precision``: ``(value, standard error)``."""
        strings = sorted({p for obs in observables for _, p in obs.terms if p})
        means = dict(
            zip(
                strings,
                expectation(
                    circuit, [PauliSum([(1, p)]) for p in strings], **self._settings.options
                ),
            )
        ) if strings else {}  # fmt: skip
        out = []
        for obs in observables:
            constant = sum((float(c) for c, p in obs.terms if not p), 0.0)
            measured = [(float(c), float(np.real(means[p]))) for c, p in obs.terms if p]
            if not measured:
                out.append((constant, 0.0))
                continue
            # the standard error divides by shots - 1 (the sample variance): one shot more
            # than sum c**2 / precision**2 keeps it at most the precision, whatever the means
            shots = math.ceil(sum(c * c for c, _ in measured) / precision**2) + 1
            estimate = pauli_term_estimate(
                [c for c, _ in measured], [m for _, m in measured], shots, generator
            )
            out.append((constant + estimate.value, estimate.standard_error))
        return out


def pauli_sum(terms: Mapping[str, Any], n_qubits: int) -> PauliSum:
    """A genqsim ``PauliSum`` from one of Qiskit's observables (``{label: coefficient}``,
    qubit 0 the rightmost letter; projector letters ``0 1 + - r l`` expanded into Paulis).
    Coefficients must be real: an Estimator measures Hermitian observables."""
    out = []
    for label, coefficient in terms.items():
        value = complex(coefficient)
        if abs(value.imag) > 1e-12 * max(1.0, abs(value)):
            raise ArgumentValueError(
                f"observable term {label!r} has the complex coefficient {coefficient}: an "
                "Estimator measures Hermitian observables (real Pauli coefficients)"
            )
        expanded: list[tuple[float, dict[int, str]]] = [(value.real, {})]
        for qubit, letter in enumerate(reversed(label)):
            if letter not in PROJECTORS:
                raise ArgumentValueError(f"observable label {label!r} has the letter {letter!r}")
            expanded = [
                (c * f, {**p, qubit: pauli} if pauli != "I" else p)
                for c, p in expanded
                for f, pauli in PROJECTORS[letter]
            ]
        out.extend(expanded)
    if len(next(iter(terms), "")) > n_qubits:
        raise ArgumentValueError(f"an observable is wider than the circuit's {n_qubits} qubits")
    return PauliSum(out)


def _real(value: Any) -> Any:
    """An exact expectation value as a float where it is a machine number."""
    if isinstance(value, (complex, np.complexfloating)):
        return float(value.real)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    return value


def _checked_precision(precision: Any) -> float:
    if isinstance(precision, bool) or not isinstance(precision, (int, float, np.floating)):
        raise ArgumentTypeError(f"precision is a non-negative number, got {precision!r}")
    if not precision >= 0 or math.isinf(precision):
        raise ArgumentValueError(f"precision must be finite and >= 0, got {precision}")
    return float(precision)


def _listed(pubs: Any) -> list[Any]:
    if isinstance(pubs, (QuantumCircuit, tuple)) or not isinstance(pubs, Iterable):
        raise ArgumentTypeError(
            "run() takes a list of PUBs, e.g. run([qc]) or run([(qc, values)]), "
            f"got {type(pubs).__name__}"
        )
    return list(pubs)
