"""Where the Numba kernels switch from their serial build to their threaded one, measured on
this machine for each thread count and kept on disk.

Every kernel exists twice (:mod:`.numba_kernels`): threads pay for themselves only once a
pass over the state outlasts waking them, and where that happens depends on the CPU, its
caches and its threading runtime (on a 2-core AMD EPYC Zen 3 the threaded build of a
one-qubit gate takes 0.81-1.13 of the serial time at 2**14 amplitudes, 0.63-0.76 at 2**15
and 0.43-0.60 at 2**20). With one thread the serial build always runs:
it is as fast and never touches the threading runtime, whose idle threads spin.

The measurement times a one-qubit dense gate (the commonest kernel) on the lowest and the
highest qubit, both builds, at growing sizes, and takes the first size from which the
threaded build is clearly faster (by :data:`MARGIN`, at two sizes in a row). It takes
about a second (0.7-1.2 s there, with the import), once per machine, thread count, CPU and
kernel source: the result is kept in ``$GENQSIM_CACHE_DIR`` (default ``~/.cache/genqsim``)
and read back by later processes. ``GENQSIM_PARALLEL_MIN_QUBITS=N`` sets the switch and
skips the measurement.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
import threading
import time
from functools import cache
from pathlib import Path

import numba
import numpy as np

from . import numba_kernels as K
from .numba_cache import cache_folder, kernel_sources_digest, target_cpu

CANDIDATE_QUBITS = range(12, 21)
"""Sizes tried; threads that do not win by 2**20 amplitudes start above it."""

MARGIN = 0.85
"""The threaded build counts as faster when it takes at most this share of the serial time."""

_lock = threading.Lock()
_known: dict[int, int] = {}


def parallel_min_qubits(threads: int) -> int:
    """States of at least ``2**this`` amplitudes run the threaded kernels with ``threads``
    threads (the environment's setting, else this machine's kept or fresh measurement)."""
    fixed = os.environ.get("GENQSIM_PARALLEL_MIN_QUBITS")
    if fixed:
        return int(fixed)
    found = _known.get(threads)
    if found is not None:
        return found
    with _lock:
        if threads not in _known:
            _known[threads] = _kept_or_measured(threads)
        return _known[threads]


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


def keep_choice(name: str, value: object) -> None:
    """Keep a kernel choice measured on this machine (see :func:`kept_choice`)."""
    cache = _read_cache()
    cache.setdefault(_machine_key(), {})[name] = value
    _write_cache(cache)


def _kept_or_measured(threads: int) -> int:
    key = _machine_key()
    cache = _read_cache()
    kept = cache.get(key, {}).get(str(threads))
    if kept is not None:
        return int(kept)
    note = (f"genqsim: measuring where {threads} threads pay off on this CPU (once per "
            f"machine, kept in {cache_file()}) ...")  # fmt: skip
    print(note, file=sys.stderr, flush=True)
    found = measure_switch(threads)
    cache.setdefault(key, {})[str(threads)] = found
    _write_cache(cache)
    return found


def measure_switch(threads: int, candidates: range | None = None) -> int:
    """The smallest candidate size from which the threaded build of a one-qubit gate beats
    the serial one by :data:`MARGIN` on the lowest and the highest qubit, at that size and
    the next; past the last candidate when it never does."""
    candidates = CANDIDATE_QUBITS if candidates is None else candidates
    saved = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        first_win = None
        for n in candidates:
            if not _threads_win(n):
                first_win = None
            elif first_win is None:
                first_win = n
            else:
                return first_win  # two sizes in a row
    finally:
        numba.set_num_threads(saved)
    return first_win if first_win is not None else candidates[-1] + 1


def _threads_win(n: int) -> bool:
    """Whether the threaded build is clearly faster at ``2**n`` amplitudes."""
    rng = np.random.default_rng(n)
    state = (rng.normal(size=1 << n) + 1j * rng.normal(size=1 << n)) / np.sqrt(2 << n)
    gate = np.array([[1, 1], [1, -1]], dtype=np.complex128) / np.sqrt(2)
    for target in (0, n - 1):
        fixed = np.array([target], dtype=np.int64)
        serial = _seconds(K.SERIAL.apply_1q, state, gate, target, fixed)
        threaded = _seconds(K.PARALLEL.apply_1q, state, gate, target, fixed)
        if threaded > MARGIN * serial:
            return False
    return True


def _seconds(kernel, state, gate, target, fixed) -> float:  # type: ignore[no-untyped-def]
    """The best of seven timings of a kernel call, each over at least 2**19 amplitudes
    (about half a millisecond), so a busy moment of the machine does not decide."""
    kernel(state, gate, target, fixed, 0)  # compiled (or loaded) before timing
    calls = max(1, (1 << 19) // state.size)
    best = float("inf")
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(calls):
            kernel(state, gate, target, fixed, 0)
        best = min(best, (time.perf_counter() - start) / calls)
    return best


@cache
def _machine_key() -> str:
    """What the measurement depends on: the CPU (model and the target Numba compiles for),
    the Numba version, and the kernels' source (the digest their shared cache is kept by)."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    kernels = kernel_sources_digest()  # the kernels' cache folder's name too
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
