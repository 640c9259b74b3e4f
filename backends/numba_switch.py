"""Where the Numba kernels switch from their serial build to their threaded one, measured on
this machine for each thread count and kept on disk.

Every kernel exists twice (:mod:`.numba_kernels`): threads pay for themselves only once a
pass over the state outlasts waking them, and where that happens depends on the CPU, its
caches and its threading runtime (on a 2-core AMD EPYC Zen 3 the threaded build of a
one-qubit gate takes 0.81-1.13 of the serial time at 2**14 amplitudes, 0.63-0.76 at 2**15
and 0.43-0.60 at 2**20). With one thread the serial build always runs:
it is as fast and never touches the threading runtime, whose idle threads spin.

The measurement times a one-qubit dense gate (the commonest kernel) on the lowest and the
highest qubit, both builds, at 2**12 to 2**20 amplitudes, in :data:`PASSES` interleaved
passes (best of each), and takes the smallest size from which the threaded build is clearly
faster (by :data:`MARGIN`) at every larger size too. It takes about a second with the
import, once per machine, thread count, CPU and kernel source: the result is kept in
``$GENQSIM_CACHE_DIR`` (default ``~/.cache/genqsim``) and read back by later processes. A
measurement taken while other processes kept these CPUs busy is not kept at once (a switch
measured during a test run or a build would otherwise stay for good): the next process
measures again (:func:`settled_choice`). ``GENQSIM_PARALLEL_MIN_QUBITS=N`` sets the switch
and skips the measurement.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import numba
import numpy as np

from ..support.cpus import affinity_cpus
from . import numba_kernels as K
from .numba_cache import all_sources_digest, cache_folder, target_cpu

CANDIDATE_QUBITS = range(12, 21)
"""Sizes tried; threads that do not win by 2**20 amplitudes start above it."""

MARGIN = 0.85
"""The threaded build counts as faster when it takes at most this share of the serial time."""

PASSES = 7
"""Timings of each size, build and qubit in one measurement; the best of them counts."""

REPEATS = 3
"""Measurements of the switch, each about 0.15 s on a 2-core EPYC; their median is kept (on
a virtual machine the threaded build can stall for a moment with no other process running:
one of five measurements there put every ratio at 1.1-3.9)."""

BUSY_CORES = 0.3
"""Other processes' use of this process's CPUs during a measurement (in cores) above which
the result is not kept at once (:func:`settled_choice`)."""

BUSY_TRIES = 3
"""Busy measurements in a row after which their combined choice is kept anyway."""

BUSY_SUFFIX = "(measured busy)"
"""Marks the entry that holds the busy measurements of a choice not kept yet."""

_lock = threading.Lock()
_known: dict[int, int] = {}
_deferring = [0]
"""How many :func:`deferred` blocks are open in this process."""
_provisional: dict[str, Any] = {}
"""The choices taken at their defaults within :func:`deferred` blocks, by name: never taken
for measured, forgotten when the last block closes."""


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within it, kernel choices not kept for this machine yet are not measured: they take
    their defaults, nothing is kept, and a later call outside measures
    (:func:`settled_choice`). ``genqsim warmup``'s compiling processes run in it: side by
    side, each would time the other's compiling."""
    _deferring[0] += 1
    try:
        yield
    finally:
        _deferring[0] -= 1
        if not _deferring[0]:
            _provisional.clear()


def parallel_min_qubits(threads: int) -> int:
    """States of at least ``2**this`` amplitudes run the threaded kernels with ``threads``
    threads (the environment's setting, else this machine's kept or fresh measurement;
    within :func:`deferred`, the smallest candidate while none is kept)."""
    fixed = os.environ.get("GENQSIM_PARALLEL_MIN_QUBITS")
    if fixed:
        return int(fixed)
    found = _known.get(threads)
    if found is not None:
        return found
    with _lock:
        if threads in _known:
            return _known[threads]
        what = f"where {threads} threads pay off on this CPU"
        value, settled = settled_choice(
            str(threads), what, lambda: measure_switch(threads), _median, min(CANDIDATE_QUBITS)
        )
        if settled:
            _known[threads] = int(value)
        return int(value)


def largest_switch() -> int:
    """The largest switch there can be: the environment's setting, else just past the
    candidate sizes."""
    fixed = os.environ.get("GENQSIM_PARALLEL_MIN_QUBITS")
    return int(fixed) if fixed else CANDIDATE_QUBITS.stop


def known_switches() -> dict[int, int]:
    """The switches measured or read so far in this process, by thread count, and those kept
    on disk for this machine (for ``genqsim info``)."""
    kept = _read_cache().get(_machine_key(), {})
    measured = {int(t): int(n) for t, n in kept.items() if t.isdigit()}
    return {**measured, **_known}


def kept_choice(name: str) -> object | None:
    """Another kernel choice measured on this machine and kept beside the switch (under its
    machine key, by ``name``), or ``None``."""
    return _read_cache().get(_machine_key(), {}).get(name)


def _median(values: list[Any]) -> int:
    """The middle of the switches measured (the lower middle of an even count)."""
    ordered = sorted(int(v) for v in values)
    return ordered[(len(ordered) - 1) // 2]


def measure_switch(threads: int, candidates: range | None = None) -> int:
    """The median over :data:`REPEATS` measurements of the switch from
    :func:`switch_from_ratios` of the threaded/serial time ratios of a one-qubit gate at the
    candidate sizes (:func:`measure_ratios`) with ``threads`` threads."""
    candidates = CANDIDATE_QUBITS if candidates is None else candidates
    saved = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        found = [switch_from_ratios(measure_ratios(candidates)) for _ in range(REPEATS)]
    finally:
        numba.set_num_threads(saved)
    return _median(found)


def switch_from_ratios(ratios: dict[int, float]) -> int:
    """The smallest size from which the threaded build takes at most :data:`MARGIN` of the
    serial time at that size and every larger one measured; past the largest when it does
    not win there. One slow size near the top keeps the switch above it; one lucky size
    lower down does not pull it down."""
    switch = max(ratios) + 1
    for n in sorted(ratios, reverse=True):
        if ratios[n] > MARGIN:
            break
        switch = n
    return switch


def measure_ratios(candidates: range) -> dict[int, float]:
    """For each size ``n``, the threaded build's time of a one-qubit gate over the serial
    build's at ``2**n`` amplitudes: the worse of the lowest and the highest qubit, each
    build's best of :data:`PASSES` timings. Each pass times every size and alternates which
    build goes first, so a moment's load elsewhere spoils one timing of some cells, not
    every timing of one size."""
    gate = np.array([[1, 1], [1, -1]], dtype=np.complex128) / np.sqrt(2)
    builds = (K.SERIAL.apply_1q, K.PARALLEL.apply_1q)
    states = {n: _random_state(n) for n in candidates}
    cells = [(n, fixed_positions(target)) for n in candidates for target in (0, n - 1)]
    best = np.full((len(cells), 2), np.inf)
    for n, fixed in cells:  # compiled (or loaded) before timing
        for build in builds:
            build(states[n], gate, int(fixed[0]), fixed, 0)
    for sweep in range(PASSES):
        for c, (n, fixed) in enumerate(cells):
            for b in (0, 1) if sweep % 2 == 0 else (1, 0):
                best[c, b] = min(best[c, b], _seconds(builds[b], states[n], gate, fixed))
    ratios = best[:, 1] / best[:, 0]
    return {n: float(max(ratios[2 * i], ratios[2 * i + 1])) for i, n in enumerate(candidates)}


def fixed_positions(*qubits: int) -> np.ndarray:
    """A kernel's ``fixed`` argument for a gate on ``qubits`` as the backend passes it:
    read-only (Numba compiles a kernel again for a writable array: timing with one compiled
    the one-qubit gate's two builds a second time, about 8 s of a first run on a 2-core
    EPYC Zen 4)."""
    fixed = np.array(sorted(qubits), dtype=np.int64)
    fixed.flags.writeable = False
    return fixed


def _random_state(n: int) -> np.ndarray:
    rng = np.random.default_rng(n)
    return (rng.normal(size=1 << n) + 1j * rng.normal(size=1 << n)) / np.sqrt(2 << n)


def _seconds(kernel, state, gate, fixed) -> float:  # type: ignore[no-untyped-def]
    """One timing of a one-qubit kernel on ``fixed[0]``, over at least 2**19 amplitudes
    (about half a millisecond), per call."""
    calls = max(1, (1 << 19) // state.size)
    target = int(fixed[0])
    start = time.perf_counter()
    for _ in range(calls):
        kernel(state, gate, target, fixed, 0)
    return (time.perf_counter() - start) / calls


def settled_choice(
    name: str,
    what: str,
    measure: Callable[[], Any],
    combine: Callable[[list[Any]], Any],
    default: Any,
) -> tuple[Any, bool]:
    """A kernel choice kept on disk for this machine under ``name``, else measured now, and
    whether it is settled for this process (``False``: ``default``, taken within
    :func:`deferred`, to be measured by a later call).

    A measurement taken while other processes kept the CPUs this process may use busy (more
    than :data:`BUSY_CORES` cores' worth, :class:`OtherProcesses`) serves this process only
    and is kept aside: the next process measures again, and after :data:`BUSY_TRIES` busy
    measurements in a row, ``combine`` of them is kept (a machine that is always that busy
    gets the choice made under its usual load). A quiet measurement is kept at once.
    ``what`` completes the stderr notes ("measuring <what> ...")."""
    if _deferring[0] and name in _provisional:
        return _provisional[name], False
    kept = kept_choice(name)
    if kept is not None:
        return kept, True
    if _deferring[0]:
        _provisional[name] = default
        return default, False
    note = f"genqsim: measuring {what} (once per machine, kept in {cache_file()}) ..."
    print(note, file=sys.stderr, flush=True)
    with OtherProcesses() as others:
        found = measure()
    cache = _read_cache()  # read again: another process may have kept something meanwhile
    entry = cache.setdefault(_machine_key(), {})
    aside = f"{name} {BUSY_SUFFIX}"
    if others.cores <= BUSY_CORES:
        entry[name] = found
        entry.pop(aside, None)
    else:
        tries = [*entry.get(aside, []), found]
        if len(tries) >= BUSY_TRIES:
            entry[name] = combine(tries)
            entry.pop(aside, None)
            verdict = f"kept the choice made under that load ({len(tries)} tries)"
        else:
            entry[aside] = tries
            verdict = (f"used by this process only, measured again by the next (try "
                       f"{len(tries)} of {BUSY_TRIES})")  # fmt: skip
        print(f"genqsim: other processes used {others.cores:.1f} of the {others.cpus} CPUs "
              f"this process may use while measuring {what}: {verdict}",
              file=sys.stderr, flush=True)  # fmt: skip
    _write_cache(cache)
    return entry.get(name, found), True


class OtherProcesses:
    """How busy other processes kept the CPUs this process may use during a ``with`` block.

    :attr:`cores` is their CPU time over the block's wall time, in cores: the busy time of
    those CPUs in ``/proc/stat`` less this process's own (all its threads). Where
    ``/proc/stat`` cannot be read (not Linux) it stays 0 and the block counts as quiet."""

    def __init__(self) -> None:
        self.cores = 0.0
        self.cpus = affinity_cpus()
        self._start: tuple[float, float, float] | None = None

    def __enter__(self) -> OtherProcesses:
        self._start = _cpu_seconds()
        return self

    def __exit__(self, *exc: object) -> None:
        end = _cpu_seconds()
        if self._start is None or end is None or end[0] <= self._start[0]:
            return
        busy, own = end[1] - self._start[1], end[2] - self._start[2]
        self.cores = max(0.0, (busy - own) / (end[0] - self._start[0]))


def _cpu_seconds() -> tuple[float, float, float] | None:
    """Wall seconds now, the busy seconds since boot of the CPUs this process may use (user,
    nice, system, irq and softirq time in ``/proc/stat``) and this process's own CPU
    seconds; ``None`` where ``/proc/stat`` cannot be read."""
    try:
        allowed = {f"cpu{c}" for c in os.sched_getaffinity(0)}
        lines = Path("/proc/stat").read_text().splitlines()
    except (AttributeError, OSError):
        return None
    ticks = 0
    for line in lines:
        fields = line.split()
        if fields and fields[0] in allowed:
            ticks += sum(int(fields[i]) for i in (1, 2, 3, 6, 7))
    own = os.times()
    return time.monotonic(), ticks / os.sysconf("SC_CLK_TCK"), own.user + own.system


@cache
def _machine_key() -> str:
    """What the measurement depends on: the CPU (model and the target Numba compiles for),
    the Numba version, and the source of the kernels and of these measurements."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    kernels = all_sources_digest()
    return f"{model} | {target_cpu()} | numba {numba.__version__} | {kernels}"


def cache_file() -> Path:
    """``$GENQSIM_CACHE_DIR/calibration.json`` (default under ``$XDG_CACHE_HOME`` or
    ``~/.cache``)."""
    return cache_folder() / "calibration.json"


def _read_cache() -> dict:
    try:
        found = json.loads(cache_file().read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _write_cache(content: dict) -> None:
    """Written whole and renamed into place, so processes measuring at once never read half
    a file; a cache that cannot be written is skipped (the measurement is redone later)."""
    target = cache_file()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        with os.fdopen(handle, "w") as out:
            json.dump(content, out, indent=1)
        os.replace(temporary, target)
    except OSError:
        pass
