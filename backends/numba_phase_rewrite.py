"""Whether a one-qubit phase (T, S, Z, P) on a large state rewrites every amplitude or only
the half it changes, measured on this machine and kept on disk.

A phase on qubit ``q`` changes runs of ``2**q`` amplitudes and leaves as many untouched
between them. Storing only the changed runs moves the least data, but on some CPUs it is
slower: on a 2-core AMD EPYC Zen 4, T on qubits 3-10 of 24 qubits (runs of 128 bytes to 16 KiB
in complex128) took 12.7-25.4 ms where rewriting every amplitude, the untouched ones times 1
(:func:`~backends.numba_low_chunks.pattern_chunks`), takes about 11.5 ms like any full pass;
from 32 KiB runs on, skipping wins (6.7-9.9 ms). So both are timed once per machine on a
state larger than the caches, run length by run length, and rewriting is chosen where it
takes at most :data:`MARGIN` of the other's time. The result is kept beside the
serial/threaded switch (:mod:`.numba_switch`, same machine key) and shown by ``genqsim
info``; ``GENQSIM_PHASE_REWRITE`` (a comma list of run lengths in bytes, or ``none``) sets it
and skips the measurement.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter

import numpy as np

from . import numba_kernels as K
from . import numba_switch as switch

CANDIDATE_QUBITS = range(3, 13)
"""Qubits of a complex128 phase timed: runs of 2**7 to 2**16 bytes (below, one chunk of the
straight loops holds both sides; above, whole pages are skipped)."""

MEASURE_QUBITS = 22
"""The state timed: 2**22 complex128 amplitudes (64 MiB, larger than the caches)."""

MIN_QUBITS = 20
"""States below 2**20 amplitudes always store the changed half (in cache either is fast)."""

MARGIN = 0.9
"""Rewriting is chosen where it takes at most this share of the other's time."""

KEY = "phase_rewrite_run_bytes"

_lock = threading.Lock()
_known: list[frozenset[int]] = []


def rewrite_run_bytes() -> frozenset[int]:
    """The run lengths in bytes for which a phase rewrites every amplitude here (the
    environment's setting, else this machine's kept or fresh measurement)."""
    fixed = os.environ.get("GENQSIM_PHASE_REWRITE")
    if fixed:
        return frozenset() if fixed == "none" else frozenset(int(b) for b in fixed.split(","))
    if _known:
        return _known[0]
    with _lock:
        if _known:
            return _known[0]
        what = "how one-qubit phases run best on this CPU"
        # the default until measured (within switch.deferred): store the changed half
        kept, settled = switch.settled_choice(
            KEY, what, lambda: sorted(measure()), _most_chosen, []
        )
        found = frozenset(int(b) for b in kept)
        if settled:
            _known.append(found)
        return found


def pattern_for(state: np.ndarray, phase: complex, target: int, fixed: np.ndarray) -> np.ndarray:
    """The pattern :func:`~backends.numba_diagonal_permutation.apply_phase_1q` rewrites with
    (the interleaved floats of ``2**(target + 1)`` factors, 1 then ``phase``), or an empty
    array where it stores the changed half: controlled phases, real or small states, and run
    lengths not chosen here."""
    real = np.finfo(state.dtype).dtype
    chosen = (
        fixed.size == 1
        and state.dtype.kind == "c"
        and state.size >= 1 << MIN_QUBITS
        and target in CANDIDATE_QUBITS
        and state.itemsize << target in rewrite_run_bytes()
    )
    if not chosen:
        return np.empty(0, dtype=real)
    return phase_pattern(state.dtype, phase, target)


def phase_pattern(dtype: np.dtype, phase: complex, target: int) -> np.ndarray:
    """The interleaved floats of the ``2**(target + 1)`` factors of a phase on ``target``
    (``2**target`` ones, then as many times ``phase``), in ``dtype``'s precision."""
    factors = np.ones(2 << target, dtype=dtype)
    factors[1 << target :] = phase
    return factors.view(np.finfo(dtype).dtype)


def known_choice() -> str:
    """One line for ``genqsim info``."""
    fixed = os.environ.get("GENQSIM_PHASE_REWRITE")
    if fixed:
        runs = [] if fixed == "none" else sorted(int(b) for b in fixed.split(","))
        return _choice_line(runs, "set")
    kept = _known[0] if _known else switch.kept_choice(KEY)
    if not isinstance(kept, (list, frozenset)):
        return "one-qubit phases: not measured yet (measured at the first on a large state)"
    return _choice_line(sorted(int(b) for b in kept), "measured here")


def _choice_line(run_bytes: list[int], source: str) -> str:
    """The line :func:`known_choice` gives for the run lengths ``run_bytes`` (none: every
    phase stores only the runs it changes)."""
    if not run_bytes:
        kept = "one-qubit phases store only the amplitudes they change, at every run length"
        return f"{kept} ({source})"
    runs = ", ".join(str(b) for b in run_bytes)
    return f"one-qubit phases rewrite every amplitude for runs of {runs} bytes ({source})"


def _most_chosen(tries: list[list[int]]) -> list[int]:
    """The run lengths chosen in more than half of the tries."""
    counts = Counter(int(b) for found in tries for b in found)
    return sorted(b for b, count in counts.items() if 2 * count > len(tries))


def measure(qubits: int | None = None, candidates: range | None = None) -> frozenset[int]:
    """The run lengths in bytes (complex128: ``16 << q``) at which rewriting every amplitude
    takes at most :data:`MARGIN` of the time of storing the changed half, each timed on the
    serial kernel (the memory decides, not the threads), on a state of ``2**qubits``
    amplitudes (default :data:`MEASURE_QUBITS`) for the qubits ``candidates`` (default
    :data:`CANDIDATE_QUBITS`)."""
    qubits = MEASURE_QUBITS if qubits is None else qubits
    candidates = CANDIDATE_QUBITS if candidates is None else candidates
    rng = np.random.default_rng(qubits)
    state = rng.normal(size=1 << qubits) + 1j * rng.normal(size=1 << qubits)
    phase = np.exp(0.25j * np.pi)
    chosen = set()
    for q in candidates:
        fixed = switch.fixed_positions(q)
        pattern = phase_pattern(state.dtype, phase, q)
        half = _seconds(state, phase, q, fixed, np.empty(0))
        every = _seconds(state, phase, q, fixed, pattern)
        if every <= MARGIN * half:
            chosen.add(state.itemsize << q)
    return frozenset(chosen)


def _seconds(state, phase, q, fixed, pattern) -> float:  # type: ignore[no-untyped-def]
    """The best of five timings, after one call that compiles or loads the kernel."""
    K.SERIAL.apply_phase_1q(state, phase, q, fixed, 0, pattern)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        K.SERIAL.apply_phase_1q(state, phase, q, fixed, 0, pattern)
        best = min(best, time.perf_counter() - start)
    return best
