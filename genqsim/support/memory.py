"""How much memory a state may take: checked before allocating, so a too-large request fails
with a message instead of an out-of-memory kill halfway through."""

from __future__ import annotations

import os

from ..errors import StateTooLargeError

MAX_QUBITS = 62
"""Basis indices are int64; beyond this the index arithmetic itself would overflow."""

ALWAYS_FITS = 1 << 20
"""States of at most this many bytes are not checked against free memory (unless
``GENQSIM_MEMORY_LIMIT`` is set): a process that runs at all has a MiB to spare."""

LIMIT_ENV = "GENQSIM_MEMORY_LIMIT"
"""Environment variable: a byte count that caps state size below what the machine has free."""


def _cgroup_limit() -> int | None:
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as fh:
                text = fh.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 1 << 60:
            return int(text)
    return None


def available_memory() -> int:
    """Bytes a new state may use: free memory (MemAvailable), capped by the cgroup limit and
    by ``GENQSIM_MEMORY_LIMIT`` when set."""
    candidates = []
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    candidates.append(int(line.split()[1]) * 1024)
                    break
    except OSError:
        pass
    if not candidates:
        try:
            candidates.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError, AttributeError):
            pass
    limit = _cgroup_limit()
    if limit is not None:
        candidates.append(limit)
    env = os.environ.get(LIMIT_ENV)
    if env:
        try:
            candidates.append(int(float(env)))
        except ValueError:
            raise StateTooLargeError(f"{LIMIT_ENV}={env!r} is not a byte count") from None
    return min(candidates) if candidates else 1 << 62


def format_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n:.1f} PiB"


def check_state_fits(n_qubits: int, bytes_per_amplitude: int) -> None:
    """Raise ``StateTooLargeError`` unless ``2**n_qubits`` amplitudes fit in free memory."""
    if n_qubits > MAX_QUBITS:
        raise StateTooLargeError(f"{n_qubits} qubits exceeds the maximum of {MAX_QUBITS}")
    needed = (1 << n_qubits) * bytes_per_amplitude
    if needed <= ALWAYS_FITS and not os.environ.get(LIMIT_ENV):
        return  # not worth reading /proc for (sweeps make thousands of small states)
    free = available_memory()
    if needed > free:
        raise StateTooLargeError(
            f"a {n_qubits}-qubit state needs {format_bytes(needed)} "
            f"({bytes_per_amplitude} bytes x 2**{n_qubits} amplitudes) but only "
            f"{format_bytes(free)} is available"
        )
