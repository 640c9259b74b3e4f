"""Sampling, shared by every state kind: seeds, bitstring keys, counts drawn from a
distribution, and counts over a circuit's classical bits.

Bitstrings put the highest qubit (or classical bit) leftmost, as Qiskit prints them; with
``qubits`` given, ``qubits[0]`` is the rightmost character.
"""

from __future__ import annotations

import inspect
import numbers as _abc
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ArgumentTypeError, ArgumentValueError, InvalidProbabilityError, ShotsError
from ..validation import as_qubit_tuple

if TYPE_CHECKING:
    from ..circuit import Circuit
    from .protocol import Seed, State

NORMALISATION_TOLERANCE = 1e-4
"""How far a distribution's total may stray from one before sampling refuses it."""


def rng(seed: Seed) -> np.random.Generator:
    """A generator from a seed (a generator passes through, so draws continue its stream)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def check_shots(shots: Any) -> int:
    """``shots`` as an int, or :class:`~genqsim.ShotsError` for a negative or non-integer."""
    if isinstance(shots, bool) or not isinstance(shots, (_abc.Integral, np.integer)) or shots < 0:
        raise ShotsError(f"shots must be a non-negative integer, got {shots!r}")
    return int(shots)


def bitstring(index: int, width: int) -> str:
    """Basis index as a bitstring of ``width`` characters, bit 0 rightmost."""
    return format(int(index), f"0{width}b") if width else ""


def check_normalised(total: float) -> None:
    """Refuse a distribution whose total is not one (to :data:`NORMALISATION_TOLERANCE`)."""
    if not abs(total - 1.0) <= NORMALISATION_TOLERANCE:
        raise InvalidProbabilityError(
            f"state is not normalised (total probability {total:.6g}); call normalize() first"
        )


def host_distribution(p: Any, to_float: Callable[[Any], float] | None = None) -> np.ndarray:
    """A float64 distribution from a host array of probabilities (``to_float`` turns entries
    of other number systems into floats), checked finite, non-negative and normalised, then
    scaled to sum to one."""
    if p.dtype == object:
        convert = to_float or float
        p = np.array([convert(v) for v in p], dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    if not np.all(np.isfinite(p)) or np.any(p < -1e-12):
        raise InvalidProbabilityError("probabilities are negative or not finite")
    total = float(p.sum())
    check_normalised(total)
    return np.asarray(np.clip(p, 0.0, None) / total)


def draw_counts(p: np.ndarray, shots: int, seed: Seed, width: int) -> dict[str, int]:
    """Counts of ``shots`` draws from the normalised distribution ``p``, keyed by bitstring."""
    counts = rng(seed).multinomial(shots, p)
    return {bitstring(int(i), width): int(counts[i]) for i in np.flatnonzero(counts)}


def sample_distribution(
    distribution: Callable[[tuple[int, ...] | None], np.ndarray],
    n_qubits: int,
    shots: Any,
    seed: Seed,
    qubits: Sequence[int] | None,
) -> dict[str, int]:
    """``State.sample`` for a state with a host distribution: checks ``shots`` and
    ``qubits``, asks ``distribution(qubits)`` for the normalised probabilities (all, or the
    marginal), and draws."""
    shots = check_shots(shots)
    qs = None if qubits is None else as_qubit_tuple(qubits, n_qubits)
    width = n_qubits if qs is None else len(qs)
    return draw_counts(distribution(qs), shots, seed, width)


def keyed_counts(drawn: Mapping[int, int], width: int) -> dict[str, int]:
    """``{basis index: count}`` as ``{bitstring: count}``, in index order."""
    return {bitstring(i, width): c for i, c in sorted(drawn.items())}


def draw_outcome(p: np.ndarray, seed: Seed) -> int:
    """One index drawn from the normalised distribution ``p``."""
    return int(rng(seed).choice(p.size, p=p))


def counts(
    circuit: Circuit,
    shots: int,
    seed: Seed = None,
    readout: Any = None,
    **simulate_options: Any,
) -> dict[str, int]:
    """Measurement counts of ``shots`` runs of ``circuit``: over the classical bits when the
    circuit measures (bit ``n_clbits-1`` leftmost), else over every qubit.

    With a method whose state keeps every measurement branch (``method="density_matrix"``, and
    what ``method="auto"``, the default, picks for small noisy circuits) the exact
    distribution of the classical bits is computed once (mid-circuit measurements and
    conditionals included) and the shots drawn from it. Otherwise circuits with mid-circuit
    measurements, resets, noise channels or conditionals run once per shot (one trajectory
    each, the plan built once); others are simulated once
    and sampled. ``readout``: a :class:`~genqsim.noise.NoiseModel` or its ``readout``, whose
    confusion matrices change the reported bits. ``simulate_options`` go to
    :func:`genqsim.simulate` (``method``, ``numbers``, ``initial``, ...)."""
    from .registry import AUTO, choose_method, method_spec, simulate

    shots = check_shots(shots)
    readout, errors = _readout_errors(readout, circuit)
    rest, terminal = circuit.split_terminal_measurements()
    generator = rng(seed)
    measured = [q for q, _ in terminal]
    on_clbits = counted_register(circuit) == "classical bits"
    method = simulate_options.get("method", AUTO)
    if method == AUTO:
        shared = inspect.signature(simulate).parameters  # the rest are a method's options
        own = {k: v for k, v in simulate_options.items() if k not in shared}
        method = choose_method(rest, None, own)
    simulate_options = {**simulate_options, "method": method}
    if method_spec(method).ensemble:
        mixed = simulate(rest, **simulate_options)
        if on_clbits:
            distribution = mixed.record_distribution(terminal, circuit.n_clbits)
        else:
            p = mixed._numeric_distribution(None)
            distribution = {bitstring(i, circuit.n_qubits): float(v) for i, v in enumerate(p)}
        if errors:
            distribution = readout.apply_to_distribution(distribution, errors)
        keys = list(distribution)
        drawn = generator.multinomial(shots, np.array([distribution[k] for k in keys]))
        return {k: int(c) for k, c in zip(keys, drawn) if c}
    if rest.has_non_unitary:
        tally = _per_shot(circuit, rest, terminal, measured, shots, generator, simulate_options)
    else:
        state = simulate(rest, **simulate_options)
        if not terminal:
            tally = state.sample(shots, seed=generator)
        else:
            tally = _on_clbits(state, terminal, circuit.n_clbits, shots, generator)
    if errors:
        tally = readout.apply_to_counts(tally, errors, generator)
    return tally


def memory(source: Circuit | State, shots: int, seed: Seed = None, **options: Any) -> list[str]:
    """The outcome of every shot, in shot order (Qiskit's ``memory=True``): of
    :func:`counts` for a circuit (``options`` as there), of ``state.sample`` for a state
    (``qubits=`` there). The list tallies to the counts drawn with the same seed; its order
    is a uniformly random arrangement of them, which is how independent shots are ordered."""
    from ..circuit import Circuit

    generator = rng(seed)
    if isinstance(source, Circuit):
        tally = counts(source, shots, generator, **options)
    elif hasattr(source, "sample"):
        tally = source.sample(shots, seed=generator, **options)
    else:
        raise ArgumentTypeError(f"memory() takes a Circuit or a state, got {type(source).__name__}")
    outcomes = np.repeat(np.array(list(tally), dtype=object), list(tally.values()))
    return [str(o) for o in generator.permutation(outcomes)]


def counted_register(circuit: Circuit) -> str:
    """What :func:`counts` of ``circuit`` counts: ``"classical bits"`` when the circuit
    measures (or writes classical bits mid-circuit), else ``"qubits"``."""
    rest, terminal = circuit.split_terminal_measurements()
    on_clbits = bool(terminal) or (rest.n_clbits > 0 and rest.has_non_unitary)
    return "classical bits" if on_clbits else "qubits"


def _readout_errors(readout: Any, circuit: Circuit) -> tuple[Any, dict[int, Any]]:
    """The readout and the confusion matrix of each classical bit, from a noise model or its
    readout."""
    if readout is None:
        return None, {}
    from ..noise import NoiseModel, Readout

    if isinstance(readout, NoiseModel):
        readout = readout.readout
    if not isinstance(readout, Readout):
        raise ArgumentTypeError(
            f"readout= takes a NoiseModel or its .readout, got {type(readout).__name__}"
        )
    return readout, readout.clbit_errors(circuit)


def _per_shot(
    circuit: Circuit,
    rest: Circuit,
    terminal: list[tuple[int, int]],
    measured: list[int],
    shots: int,
    generator: np.random.Generator,
    simulate_options: dict[str, Any],
) -> dict[str, int]:
    """One trajectory per shot, the plan built once (state vectors)."""
    from ..numbers import get_number_system
    from .registry import get_method
    from .statevector import initial_state, run_statevector
    from .trajectories import TrajectoryRunner, run_trajectories

    method = simulate_options["method"]
    if get_method(method) not in (run_statevector, run_trajectories):
        raise ArgumentValueError(
            f"per-shot counts run state vectors; method={method!r} cannot run this circuit "
            "shot by shot (use method='density_matrix' for exact counts)"
        )
    numbers = get_number_system(simulate_options.get("numbers") or "complex128")
    initial = initial_state(
        circuit.n_qubits,
        simulate_options.get("initial"),
        numbers,
        simulate_options.get("backend"),
        simulate_options.get("device"),
    )
    runner = TrajectoryRunner(rest, initial, simulate_options.get("fuse"))
    tally: dict[str, int] = {}
    for _ in range(shots):
        state = runner.run(generator)
        bits = dict(state.clbits)
        if terminal:
            (drawn,) = state.sample(1, seed=generator, qubits=measured)
            for (_, c), bit in zip(terminal, reversed(drawn)):
                bits[c] = int(bit)
        if circuit.n_clbits:
            key = "".join(str(bits.get(c, 0)) for c in reversed(range(circuit.n_clbits)))
        else:
            (key,) = state.sample(1, seed=generator)
        tally[key] = tally.get(key, 0) + 1
    return dict(sorted(tally.items()))


def _on_clbits(
    state: State, terminal: list[tuple[int, int]], n_clbits: int, shots: int, seed: Seed
) -> dict[str, int]:
    raw = state.sample(shots, seed=seed, qubits=[q for q, _ in terminal])
    out: dict[str, int] = {}
    for bits, count in raw.items():
        clbits = ["0"] * n_clbits
        for (_, c), bit in zip(terminal, reversed(bits)):
            clbits[n_clbits - 1 - c] = bit
        key = "".join(clbits)
        out[key] = out.get(key, 0) + count
    return dict(sorted(out.items()))
