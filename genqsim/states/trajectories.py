"""Quantum trajectories (``method="trajectories"``): noisy circuits on state vectors, for
sizes a density matrix cannot reach.

Each trajectory runs the circuit on a state vector, drawing one Kraus branch per channel with
its exact probability (Pauli mixtures from their fixed weights, other channels from
``||K_k psi||**2``), one outcome per mid-circuit measurement, and the conditionals those
outcomes select. Averages over trajectories converge to the density-matrix results; every
estimate comes with its standard error. The plan is built once and replayed, into one state
buffer, so a trajectory costs one run of the gates and nothing else.

Trajectories are seeded one by one from the run's seed, so every query on a
:class:`TrajectoryState` (an expectation value, probabilities, a second observable) sees the
same trajectories and the results are consistent with each other.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..circuit.circuit import Circuit, Operation
from ..errors import (
    ArgumentTypeError,
    ArgumentValueError,
    InvalidProbabilityError,
)
from ..linalg.generic import marginalize
from ..linalg.observables import pauli_sum_of
from ..linalg.pauli import PauliSum
from ..numbers import NumberSystem, get_number_system
from ..plan import check_bound, plan_for_backend, run_plan
from ..support.progress import bar_for
from ..support.validation import as_qubit_tuple
from . import sampling
from .base import StateBase
from .chunks import chunk_size_for, shipped
from .options import RunOptions, option, positive_int
from .protocol import Seed
from .statevector import StateVector, StateVectorContext, initial_state

if TYPE_CHECKING:
    from .registry import SimulationRequest


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate: the mean over trajectories and its standard error."""

    mean: float
    stderr: float
    trajectories: int

    def __float__(self) -> float:
        return self.mean

    def __repr__(self) -> str:
        return f"{self.mean:.6g} ± {self.stderr:.2g} ({self.trajectories} trajectories)"


@dataclass(frozen=True)
class TrajectoryOptions(RunOptions):
    """``trajectories``: how many quantum trajectories are averaged; ``executor``: a
    ``concurrent.futures.Executor`` (a process pool, a Dask client's ``get_executor()``) whose
    workers run chunks of them, each trajectory with its own seed, so the estimates are those
    of a serial run."""

    trajectories: int = option(1000, "trajectories averaged")
    executor: Executor | None = option(  # noqa: RUF009 (option() is a dataclasses.field)
        None, "a concurrent.futures.Executor that runs chunks of the trajectories", cli=False
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        positive_int("trajectories", self.trajectories)
        if self.executor is not None and not isinstance(self.executor, Executor):
            raise ArgumentTypeError(
                "executor takes a concurrent.futures.Executor (a ProcessPoolExecutor, or a "
                f"Dask client's client.get_executor()), got {type(self.executor).__name__}"
            )


class TrajectoryRunner:
    """Runs one circuit again and again from one initial state, each run a trajectory drawn
    with its own generator; the plan and the state buffer are made once."""

    def __init__(self, circuit: Circuit, initial: StateVector, fuse: int | bool | None = None):
        self.circuit = circuit
        self.initial = initial
        self.state = initial.copy()
        with initial.numbers.context():
            self.plan = plan_for_backend(circuit, initial.numbers, initial.backend, fuse)

    def run(self, rng: np.random.Generator) -> StateVector:
        """One trajectory; returns the runner's state (overwritten by the next run)."""
        state = self.state
        state.amplitudes[...] = self.initial.amplitudes
        state.clbits = {}
        context = StateVectorContext(state, rng)
        with state.numbers.context(), state._threads():
            run_plan(self.plan, state.backend, state.amplitudes, context)
        return state


class TrajectoryState(StateBase):
    """The average of ``n`` quantum trajectories of a circuit (see the module docs).

    ``expectation(obs)`` is the mean over trajectories, ``estimate(obs)`` the mean with its
    standard error; ``probabilities()`` and ``sample()`` use the mean distribution;
    ``measure()`` draws an outcome and post-selects every later result on it.
    """

    def __init__(
        self,
        circuit: Circuit,
        initial: StateVector,
        trajectories: int,
        seed: Seed = None,
        runner: TrajectoryRunner | None = None,
    ) -> None:
        self.n_qubits = initial.n_qubits
        self.numbers: NumberSystem = initial.numbers
        self.options = initial.options
        self.clbits: dict[int, int] = {}
        self._initial = initial
        self._circuit = Circuit(self.n_qubits, circuit.operations, n_clbits=circuit.n_clbits)
        self.trajectories = int(trajectories)
        self._seeds = sampling.rng(seed).integers(0, 2**63 - 1, size=self.trajectories)
        self._postselected: list[tuple[tuple[int, ...], int]] = []
        self._cache: dict[Any, Any] = {}
        self._runner = runner

    @property
    def backend(self) -> Any:
        """The backend every trajectory runs on."""
        return self._initial.backend

    def __repr__(self) -> str:
        return (
            f"<TrajectoryState: {self.n_qubits} qubits, {self.trajectories} trajectories, "
            f"numbers={self.numbers.name!r}, backend={self.backend.name!r}>"
        )

    def copy(self) -> TrajectoryState:
        """An independent copy with the same trajectories (same seeds)."""
        out = TrajectoryState.__new__(TrajectoryState)
        out.__dict__.update(self.__dict__)
        out.clbits = dict(self.clbits)
        out._circuit = self._circuit.copy()
        out._postselected = list(self._postselected)
        out._cache = dict(self._cache)
        return out

    def apply(self, circuit: Circuit | Operation, seed: Seed = None) -> TrajectoryState:
        """Append ``circuit`` to every trajectory (checked now; run at the next query)."""
        circuit = self.check_circuit(circuit)
        check_bound(circuit, self.numbers)
        if self._postselected:
            raise ArgumentValueError(
                "a trajectory state that was measured cannot run more gates; measure last"
            )
        self._circuit = self._circuit.compose(circuit)
        self._runner = None
        self._cache.clear()
        return self

    # -- the sweep -----------------------------------------------------------------------------
    def _sweep(self, observables: Sequence[PauliSum]) -> dict[str, Any]:
        """Run every trajectory once; collect the mean probabilities and, per observable, the
        weighted mean and standard error. With an ``executor`` in the options, chunks of the
        trajectories run on its workers; each keeps its own seed, so the estimates are those
        of a serial run."""
        executor = getattr(self.options, "executor", None)
        if executor is not None:
            probabilities, values, weights = self._sweep_on(executor, observables)
        else:
            if self._runner is None:
                self._runner = TrajectoryRunner(self._circuit, self._initial, self.options.fuse)
            work = self.trajectories * len(self._runner.plan) * 2**self.n_qubits
            label = f"trajectories, {self.n_qubits} qubits"
            bar = bar_for(self.options.progress, self.trajectories, work, label)
            probabilities, values, weights = run_seeded(
                self._runner, self._seeds, self._postselected, observables, bar
            )
            if bar is not None:
                bar.close()
        total = weights.sum()
        if not total > 0:
            raise InvalidProbabilityError("no trajectory is compatible with the measured outcomes")
        return {
            "probabilities": probabilities / total,
            "estimates": [_weighted_estimate(v, weights) for v in values],
        }

    def _sweep_on(
        self, executor: Executor, observables: Sequence[PauliSum]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The trajectories in chunks on ``executor``, merged in seed order."""
        size = chunk_size_for(self.trajectories, executor)
        circuit = shipped(self._circuit, executor)
        local = self._initial.copy()  # without the executor, which does not travel
        if isinstance(local.options, TrajectoryOptions):
            local.options = dataclasses.replace(local.options, executor=None)
        initial = shipped(local, executor)
        futures = [
            executor.submit(
                trajectory_chunk, circuit, initial, self._seeds[start : start + size],
                list(self._postselected), list(observables),
            )
            for start in range(0, self.trajectories, size)
        ]  # fmt: skip
        parts = [f.result() for f in futures]
        probabilities = np.sum([p for p, _, _ in parts], axis=0)
        values = np.concatenate([v for _, v, _ in parts], axis=1)
        weights = np.concatenate([w for _, _, w in parts])
        return probabilities, values, weights

    def summary(self) -> dict[str, Any]:
        """What the command line reports beside the results."""
        return {"trajectories": self.trajectories}

    def estimate(self, observable: str | PauliSum) -> Estimate:
        """``<observable>`` averaged over the trajectories, with its standard error."""
        obs = PauliSum.for_state(observable, self.n_qubits)
        key = ("estimate", str(obs))
        if key not in self._cache:
            result = self._sweep([obs])
            self._cache.setdefault("probabilities", result["probabilities"])
            self._cache[key] = result["estimates"][0]
        return self._cache[key]

    def estimates(self, observables: Sequence[str | PauliSum]) -> list[Estimate]:
        """Several observables from one sweep over the trajectories."""
        parsed = [pauli_sum_of(o) for o in observables]
        missing = [o for o in parsed if ("estimate", str(o)) not in self._cache]
        if missing:
            result = self._sweep(missing)
            self._cache.setdefault("probabilities", result["probabilities"])
            for obs, est in zip(missing, result["estimates"]):
                self._cache[("estimate", str(obs))] = est
        return [self._cache[("estimate", str(o))] for o in parsed]

    def expectation(self, observable: str | PauliSum) -> float:
        """The mean of ``<observable>`` over the trajectories (see :meth:`estimate`)."""
        return self.estimate(observable).mean

    def probabilities(self, qubits: Sequence[int] | None = None) -> np.ndarray:
        """The mean distribution over the trajectories (all qubits, or a marginal)."""
        if "probabilities" not in self._cache:
            self._cache["probabilities"] = self._sweep([])["probabilities"]
        p = self._cache["probabilities"]
        if qubits is None:
            return p.copy()
        return marginalize(p, as_qubit_tuple(qubits, self.n_qubits))

    def sample(
        self, shots: int, seed: Seed = None, qubits: Sequence[int] | None = None
    ) -> dict[str, int]:
        """Counts drawn from the mean distribution (one trajectory per shot, in law)."""

        def distribution(qs: tuple[int, ...] | None) -> np.ndarray:
            return sampling.host_distribution(self.probabilities(qs))

        return sampling.sample_distribution(distribution, self.n_qubits, shots, seed, qubits)

    def measure(self, qubits: Sequence[int] | None = None, seed: Seed = None) -> str:
        """Draw an outcome of ``qubits`` from the mean distribution and post-select every
        later result on it (trajectories weighted by their probability of the outcome)."""
        qs = (
            tuple(range(self.n_qubits)) if qubits is None else as_qubit_tuple(qubits, self.n_qubits)
        )
        p = sampling.host_distribution(self.probabilities(qs))
        outcome = sampling.draw_outcome(p, seed)
        self._postselected.append((qs, outcome))
        self._cache.clear()
        return sampling.bitstring(outcome, len(qs))


def _project(state: StateVector, qubits: tuple[int, ...], outcome: int) -> float:
    """Project ``state`` on ``outcome`` of ``qubits``; returns the outcome's probability."""
    p = state.backend.to_numpy(state.probabilities(qubits))
    weight = float(np.real(p[outcome]))
    if weight <= 0:
        return 0.0
    ns = state.numbers
    diagonal = [ns.zero] * p.size
    diagonal[outcome] = ns.one / ns.sqrt(ns.scalar(weight))
    state.backend.apply_diagonal(state.amplitudes, ns.array(diagonal), qubits)
    return weight


def _real(value: Any, obs: PauliSum) -> float:
    z = complex(value)
    if abs(z.imag) > 1e-9 * max(1.0, abs(z.real)):
        raise ArgumentValueError(f"trajectory averages need a Hermitian observable, {obs} is not")
    return z.real


def _weighted_estimate(values: np.ndarray, weights: np.ndarray) -> Estimate:
    """Weighted mean and its standard error (effective sample size for unequal weights)."""
    total = weights.sum()
    mean = float((weights * values).sum() / total)
    n_eff = total**2 / float((weights**2).sum())
    if n_eff <= 1:
        return Estimate(mean, math.inf, len(values))
    variance = float((weights * (values - mean) ** 2).sum() / total) * n_eff / (n_eff - 1)
    return Estimate(mean, math.sqrt(variance / n_eff), int(np.count_nonzero(weights)))


def run_seeded(
    runner: TrajectoryRunner,
    seeds: Sequence[int] | np.ndarray,
    postselected: Sequence[tuple[tuple[int, ...], int]],
    observables: Sequence[PauliSum],
    bar: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One trajectory per seed: the weighted sum of their probabilities, each observable's
    value per trajectory and each trajectory's post-selection weight."""
    n_qubits = runner.initial.n_qubits
    probabilities = np.zeros(1 << n_qubits)
    values = np.zeros((len(observables), len(seeds)))
    weights = np.ones(len(seeds))
    for t, seed in enumerate(seeds):
        rng = np.random.default_rng(int(seed))
        state = runner.run(rng)
        for qubits, outcome in postselected:
            weights[t] *= _project(state, qubits, outcome)
            if weights[t] == 0:
                break
        if weights[t] > 0:
            p = state.backend.to_numpy(state.probabilities())
            probabilities += weights[t] * np.asarray(p, dtype=np.float64)
            for k, obs in enumerate(observables):
                values[k, t] = _real(state.expectation(obs), obs)
        if bar is not None:
            bar.update(t + 1)
    return probabilities, values, weights


def trajectory_chunk(
    circuit: Circuit,
    initial: StateVector,
    seeds: Sequence[int] | np.ndarray,
    postselected: Sequence[tuple[tuple[int, ...], int]],
    observables: Sequence[PauliSum],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`run_seeded` for a chunk of trajectories, in a worker (the plan built there)."""
    runner = TrajectoryRunner(circuit, initial, initial.options.fuse)
    return run_seeded(runner, seeds, postselected, observables)


def run_trajectories(request: SimulationRequest) -> TrajectoryState:
    """``method="trajectories"``: ``request.options.trajectories`` state-vector runs of the
    circuit, averaged (machine numbers; noisy circuits for sizes a density matrix cannot
    hold)."""
    numbers = request.numbers or get_number_system("complex128")
    check_bound(request.circuit, numbers)
    options = TrajectoryOptions.of(request.options)
    initial = initial_state(
        request.circuit.n_qubits, request.initial, numbers, request.backend, request.device,
        options,
    )  # fmt: skip
    runner = TrajectoryRunner(request.circuit, initial, options.fuse)  # validates the circuit
    return TrajectoryState(request.circuit, initial, options.trajectories, request.seed, runner)
