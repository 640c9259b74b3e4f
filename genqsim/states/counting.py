"""Counts and per-shot memory of circuits: the one place shots of a whole circuit are drawn,
over the classical bits when it measures (exact distributions from a method that keeps every
measurement branch, shot by shot for the others: the shots in groups that split at each
measurement, :mod:`.branching`), with readout errors applied.

Above the state kinds: it runs circuits through :func:`~genqsim.states.registry.simulate`
and, for per-shot runs, the state vector's trajectory runner.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import Executor
from typing import Any

import numpy as np

from ..backends import ShotGroupRunner, backend_for, capability, get_backend
from ..circuit.circuit import Circuit
from ..circuit.noise import NoiseModel, Readout
from ..errors import ArgumentTypeError, ArgumentValueError
from ..numbers import get_number_system
from ..plan.build import plan_for_backend
from .branching import compiled_records, exact_branches, grouped_runs
from .chunks import broadcast_points, run_points
from .options import RunOptions
from .protocol import Seed, State
from .registry import AUTO, choose_method, get_method, method_spec, simulate, swept_states
from .sampling import bitstring, check_shots, rng, terminal_columns
from .statevector import initial_state, run_statevector
from .swept import run_statevector_point
from .trajectories import run_trajectories

SIMULATE_PARAMETERS = frozenset(inspect.signature(simulate).parameters)
"""What :func:`simulate` takes for every method; any other keyword is a method's option."""


def counts(
    circuit: Circuit,
    shots: int,
    seed: Seed = None,
    readout: Any = None,
    *,
    values: Mapping[Any, Any] | None = None,
    executor: Executor | None = None,
    chunk_size: int | None = None,
    **simulate_options: Any,
) -> Any:
    """Measurement counts of ``shots`` runs of ``circuit``: over the classical bits when the
    circuit measures (bit ``n_clbits-1`` leftmost), else over every qubit.

    With a method whose state keeps every measurement branch (``method="density_matrix"``, and
    what ``method="auto"``, the default, picks for small noisy circuits) the exact
    distribution of the classical bits is computed once (mid-circuit measurements and
    conditionals included) and the shots drawn from it. Otherwise circuits with mid-circuit
    measurements, resets, noise channels, conditionals or while loops run shot by shot (the
    shots in groups that split at each measurement or channel, each group on its own state:
    :mod:`genqsim.states.branching`; the plan built once); others are simulated once and
    sampled. ``readout``: a
    :class:`~genqsim.circuit.noise.NoiseModel` or its ``readout``, whose confusion matrices
    change the reported bits. ``simulate_options`` go to :func:`genqsim.simulate`
    (``method``, ``numbers``, ``initial``, ...).

    ``values`` binds the circuit's parameters; arrays broadcast as NumPy's do, and the result
    is an object array of counts of their broadcast shape (plain counts when no value is an
    array). Each point draws from its own
    child of ``SeedSequence(seed)``, so the counts do not depend on how the points are run:
    here, or in chunks of ``chunk_size`` on ``executor`` (any ``concurrent.futures.Executor``,
    a Dask client's ``get_executor()`` included; :mod:`genqsim.states.chunks`)."""
    if values is not None or executor is not None:
        return _swept_counts(
            circuit, shots, seed, readout, values or {}, executor, chunk_size, simulate_options
        )
    tally = _counts_on_every_bit(circuit, shots, seed, readout, simulate_options)
    return _without_scratch(tally, circuit)


def record_distribution(circuit: Circuit, **simulate_options: Any) -> dict[str, float]:
    """The exact distribution of ``circuit``'s classical record (its bits as :func:`counts`
    reports them: bit ``n_clbits-1`` leftmost, scratch bits left out), every measurement
    branch kept by a method whose state keeps them all (``method="density_matrix"``, the
    default). Probabilities as floats; outcomes of probability zero left out."""
    method = simulate_options.setdefault("method", "density_matrix")
    if not method_spec(method).ensemble:
        raise ArgumentValueError(
            f"an exact record distribution needs a method that keeps every measurement "
            f"branch (method='density_matrix'), got method={method!r}: draw counts instead"
        )
    rest, terminal = circuit.split_terminal_measurements()
    mixed = simulate(rest, **simulate_options)
    found = mixed.record_distribution(terminal, circuit.n_clbits)
    return _without_scratch({k: float(v) for k, v in found.items() if v > 0}, circuit)


def _without_scratch(tally: dict[str, Any], circuit: Circuit) -> dict[str, Any]:
    """``tally`` (counts or probabilities, keys over every classical bit, bit
    ``n_clbits-1`` leftmost) with the circuit's scratch bits
    (:attr:`~genqsim.circuit.circuit.Circuit.scratch_clbits`, a program's working memory)
    left out."""
    if not circuit.scratch_clbits or counted_register(circuit) != "classical bits":
        return tally
    n = circuit.n_clbits
    kept = [n - 1 - c for c in reversed(circuit.result_clbits)]
    out: dict[str, Any] = {}
    for key, k in tally.items():
        shown = "".join(key[i] for i in kept)
        out[shown] = out.get(shown, 0) + k
    return dict(sorted(out.items()))


def _counts_on_every_bit(
    circuit: Circuit,
    shots: int,
    seed: Seed,
    readout: Any,
    simulate_options: dict[str, Any],
) -> dict[str, int]:
    """:func:`counts` of one point, over every classical bit (scratch bits too)."""
    shots = check_shots(shots)
    readout, errors = _readout_errors(readout, circuit)
    rest, terminal = circuit.split_terminal_measurements()
    generator = rng(seed)
    on_clbits = counted_register(circuit) == "classical bits"
    method = simulate_options.get("method", AUTO)
    if method == AUTO:  # chosen as simulate chooses, from the numbers and the method's options
        numbers = simulate_options.get("numbers")
        own = {k: v for k, v in simulate_options.items() if k not in SIMULATE_PARAMETERS}
        method = choose_method(rest, None if numbers is None else get_number_system(numbers), own)
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
        tally = _per_shot(circuit, rest, terminal, shots, generator, simulate_options)
        if errors:
            tally = readout.apply_to_counts(tally, errors, generator)
        return tally
    state = simulate(rest, **simulate_options)
    return _drawn(state, circuit, terminal, shots, generator, readout, errors)


def _drawn(
    state: State,
    circuit: Circuit,
    terminal: list[tuple[int, int]],
    shots: int,
    generator: np.random.Generator,
    readout: Any,
    errors: dict[int, Any],
) -> dict[str, int]:
    """Counts of ``shots`` draws from ``state`` (the final state of a unitary ``circuit``
    without its ``terminal`` measurements), on the classical bits those write if any, with
    the readout's ``errors``."""
    if not terminal:
        tally = state.sample(shots, seed=generator)
    else:
        tally = _on_clbits(state, terminal, circuit.n_clbits, shots, generator)
    if errors:
        tally = readout.apply_to_counts(tally, errors, generator)
    return tally


def counts_at_points(
    circuit: Circuit,
    values: Mapping[Any, Any],
    shots: int,
    generators: Iterable[np.random.Generator],
    readout: Any = None,
    **simulate_options: Any,
) -> tuple[tuple[int, ...], Iterator[dict[str, int]]] | None:
    """The broadcast shape of the parameter arrays in ``values`` and the counts of
    ``circuit`` at every point, in C order, point ``i`` drawn from the ``i``-th of
    ``generators`` (one generator repeated, or one per point), from the states of one
    broadcast sweep: what ``counts(circuit.bind(point), shots, generator, readout, ...)``
    draws point after point. ``None`` where no sweep serves the circuit and options (then
    bind and count each point)."""
    sweep = swept_states(circuit, values, simulate_options)
    if sweep is None:
        return None
    check_shots(shots)
    readout, errors = _readout_errors(readout, circuit)
    _, terminal = circuit.split_terminal_measurements()
    drawn = (
        _drawn(state, circuit, terminal, shots, generator, readout, errors)
        for state, generator in zip(sweep.states(), generators)
    )
    return sweep.shape, drawn


def _swept_counts(
    circuit: Circuit,
    shots: int,
    seed: Seed,
    readout: Any,
    values: Mapping[Any, Any],
    executor: Executor | None,
    chunk_size: int | None,
    simulate_options: dict[str, Any],
) -> Any:
    """:func:`counts` at every point of ``values``: an object array of counts of their
    broadcast shape (the counts themselves when no value is an array)."""
    check_shots(shots)
    if executor is None:  # one plan, every point's state from the fast kernels
        own: Iterator[np.random.Generator]
        if all(np.ndim(v) == 0 for v in values.values()):
            own = itertools.repeat(rng(seed))  # one point draws as its bound circuit does
        else:
            family: Any = rng(seed).bit_generator.seed_seq
            # spawning one child at a time gives the children spawn(count) gives
            own = (np.random.default_rng(family.spawn(1)[0]) for _ in itertools.count())
        swept = counts_at_points(circuit, values, shots, own, readout, **simulate_options)
        if swept is not None:
            return _shaped(list(swept[1]), swept[0])
    shape, points = broadcast_points(values)
    if not shape and executor is None:
        bound = circuit.bind(points[0]) if points[0] else circuit
        return counts(bound, shots, seed, readout, **simulate_options)
    seeds = _point_seeds(seed, len(points))
    task = functools.partial(_counts_point, shots=shots, readout=readout,
                             simulate_options=simulate_options)  # fmt: skip
    found = run_points(task, circuit, points, seeds, executor, chunk_size)
    return _shaped(found, shape)


def _point_seeds(seed: Seed, count: int) -> list[Any]:
    """One child of ``SeedSequence(seed)`` per point: a point's draws do not depend on how
    the points are run."""
    return rng(seed).bit_generator.seed_seq.spawn(count)  # type: ignore[attr-defined]


def _shaped(found: list[dict[str, int]], shape: tuple[int, ...]) -> Any:
    """The counts of a sweep as an object array of its broadcast ``shape`` (the counts
    themselves for the shape ``()``)."""
    if not shape:
        return found[0]
    out = np.empty(len(found), dtype=object)
    out[:] = found
    return out.reshape(shape)


def _counts_point(
    circuit: Circuit, seed: Any, shots: int, readout: Any, simulate_options: dict[str, Any]
) -> dict[str, int]:
    """:func:`counts` at one bound point, drawing from the point's own seed."""
    return counts(circuit, shots, np.random.default_rng(seed), readout, **simulate_options)


def memory(source: Circuit | State, shots: int, seed: Seed = None, **options: Any) -> list[str]:
    """The outcome of every shot, in shot order (Qiskit's ``memory=True``): of
    :func:`counts` for a circuit (``options`` as there), of ``state.sample`` for a state
    (``qubits=`` there). The list tallies to the counts drawn with the same seed; its order
    is a uniformly random arrangement of them, which is how independent shots are ordered."""
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
    shots: int,
    generator: np.random.Generator,
    simulate_options: dict[str, Any],
) -> dict[str, int]:
    """The shots run in groups that split at each measurement (state vectors, see
    :mod:`genqsim.states.branching`, the plan built once; MPS, see
    :meth:`~genqsim.mps.state.MPSState.shot_groups`), or in the compiled shot loop where
    the backend has one."""
    if method_spec(simulate_options["method"]).name == "mps":
        groups = _mps_groups(circuit.n_qubits, rest, shots, generator, simulate_options)
        return _tally(groups, circuit, terminal, generator)
    plan, initial = _shot_plan(rest, simulate_options)
    record_bits = circuit.n_clbits or circuit.n_qubits  # no bits: every qubit is counted
    ends = terminal if circuit.n_clbits else [(q, q) for q in range(circuit.n_qubits)]
    numbers = get_number_system(simulate_options.get("numbers") or "complex128")
    records = compiled_records(plan, initial, ends, record_bits, shots, generator,
                               _shot_loop(simulate_options, numbers))  # fmt: skip
    if records is not None:
        return {bitstring(r, record_bits): k for r, k in sorted(records.items())}
    groups = grouped_runs(plan, initial, shots, generator)
    return _tally(groups, circuit, terminal, generator)


def shot_groups(
    circuit: Circuit, shots: int, seed: Seed = None, **simulate_options: Any
) -> Iterator[tuple[State, int]]:
    """``(state, shots)`` for groups of the ``shots`` of ``circuit`` that share one history
    of mid-circuit outcomes and channel draws, in turn: the state at the end of the circuit,
    every measurement made (none left to sampling) and the group's classical bits in
    ``state.clbits`` (a state is the group's own until the next one is asked for). For front
    doors that measure each shot's final state in several bases (PennyLane's one-shot
    mid-circuit measurements). State vectors (``method="statevector"`` or
    ``"trajectories"``, the default) and MPS (``method="mps"``)."""
    shots = check_shots(shots)
    generator = rng(seed)
    kept, options = _history_run(circuit, simulate_options)
    if method_spec(options["method"]).name == "mps":
        return iter(_mps_groups(circuit.n_qubits, kept, shots, generator, options))
    plan, initial = _shot_plan(kept, options)
    return grouped_runs(plan, initial, shots, generator)


def branch_states(circuit: Circuit, **simulate_options: Any) -> Iterator[tuple[State, float]]:
    """``(state, probability)`` for each history of mid-circuit outcomes and channel branches
    of ``circuit`` with a nonzero probability, in turn: the state at the end of the circuit
    (normalised), every measurement made and the branch's classical bits in
    ``state.clbits`` (a state is the branch's own until the next one is asked for). The
    probabilities sum to 1: the exact mixture a density matrix holds, as state vectors, for
    front doors that need each branch's state (PennyLane's tree traversal without shots).
    State vectors (``method="statevector"``, the default, or ``"trajectories"``)."""
    kept, options = _history_run(circuit, simulate_options)
    if method_spec(options["method"]).name == "mps":
        raise ArgumentValueError(
            "the exact branches of a circuit's mid-circuit measurements run on state "
            "vectors: use method='statevector' (or shots, which MPS runs)"
        )
    plan, initial = _shot_plan(kept, options)
    return exact_branches(plan, initial)


def _history_run(
    circuit: Circuit, simulate_options: dict[str, Any]
) -> tuple[Circuit, dict[str, Any]]:
    """A copy of ``circuit`` whose terminal measurements are made where they stand, and the
    options of a run of one history at a time (``"auto"``: state vectors)."""
    method = simulate_options.get("method", AUTO)
    options = {**simulate_options, "method": "statevector" if method == AUTO else method}
    return circuit.copy().keep_measurements(), options


def _mps_groups(
    n_qubits: int,
    rest: Circuit,
    shots: int,
    generator: np.random.Generator,
    simulate_options: dict[str, Any],
) -> Iterable[tuple[State, int]]:
    start = simulate(Circuit(n_qubits), **simulate_options)  # initial, options
    return start.shot_groups(rest, shots, generator)  # type: ignore[attr-defined,no-any-return]


def _shot_plan(rest: Circuit, simulate_options: dict[str, Any]) -> tuple[Any, Any]:
    """The plan of ``rest`` and the initial state vector its shots start from, for the
    options' method (one that runs state vectors shot by shot)."""
    method = simulate_options["method"]
    if get_method(method) not in (run_statevector, run_statevector_point, run_trajectories):
        instead = (
            "method='statevector' or 'mps'"
            if rest.has_loops
            else "method='density_matrix' for exact counts, or 'mps'"
        )
        raise ArgumentValueError(
            f"per-shot counts run state vectors and MPS; method={method!r} cannot run this "
            f"circuit shot by shot (use {instead})"
        )
    numbers = get_number_system(simulate_options.get("numbers") or "complex128")
    shared = {k: v for k, v in simulate_options.items() if k in ("threads", "fuse", "progress")}
    initial = initial_state(
        rest.n_qubits,
        simulate_options.get("initial"),
        numbers,
        simulate_options.get("backend"),
        simulate_options.get("device"),
        RunOptions(**shared),  # the threads (and progress bar) of the run
    )
    with numbers.context():
        plan = plan_for_backend(rest, numbers, initial.backend, simulate_options.get("fuse"))
    return plan, initial


def _tally(
    groups: Iterable[tuple[Any, int]],
    circuit: Circuit,
    terminal: list[tuple[int, int]],
    generator: np.random.Generator,
) -> dict[str, int]:
    """Counts of groups of shots, each ``(state, shots)`` with its record in the state's
    classical bits, the terminal measurements drawn from its state."""
    measured, columns = terminal_columns(terminal)
    tally: dict[str, int] = {}
    for state, group_shots in groups:
        if not circuit.n_clbits:
            for key, k in state.sample(group_shots, seed=generator).items():
                tally[key] = tally.get(key, 0) + k
            continue
        drawn = state.sample(group_shots, seed=generator, qubits=measured) if terminal else {}
        for outcome, k in drawn.items() or [("", group_shots)]:
            bits = dict(state.clbits)
            for j, c in columns:  # outcome: measured[-1] leftmost
                bits[c] = int(outcome[-1 - j])
            key = "".join(str(bits.get(c, 0)) for c in reversed(range(circuit.n_clbits)))
            tally[key] = tally.get(key, 0) + k
    return dict(sorted(tally.items()))


def _shot_loop(simulate_options: dict[str, Any], numbers: Any) -> ShotGroupRunner | None:
    """The compiled shot loop of the backend the options name, or where they name none, of
    the backend that would hold a large state of ``numbers`` on their device (small states
    start on the generic routines, which have none); ``None`` where that backend has none."""
    chosen = simulate_options.get("backend")
    if chosen is None:
        backend = backend_for(numbers, simulate_options.get("device"))
    else:
        backend = get_backend(chosen) if isinstance(chosen, str) else chosen
    return capability(backend, ShotGroupRunner)


def _on_clbits(
    state: State, terminal: list[tuple[int, int]], n_clbits: int, shots: int, seed: Seed
) -> dict[str, int]:
    qubits, columns = terminal_columns(terminal)
    raw = state.sample(shots, seed=seed, qubits=qubits)
    out: dict[str, int] = {}
    for bits, count in raw.items():
        clbits = ["0"] * n_clbits
        for j, c in columns:  # bits: qubits[-1] leftmost
            clbits[n_clbits - 1 - c] = bits[-1 - j]
        key = "".join(clbits)
        out[key] = out.get(key, 0) + count
    return dict(sorted(out.items()))
