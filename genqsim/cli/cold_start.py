"""The first run after installing: answer at once, compile for later runs afterwards.

A compiled backend (Numba's) compiles its kernels the first time a process needs them and
keeps them on disk for every later run on the machine; that first time takes tens of seconds
(about 35 s for README line 1 on a 2-core EPYC). When a command-line run is small enough for
the generic NumPy backend to answer in about a second (:data:`COLD_START_MAX_QUBITS`), and the
backend it would run on has not compiled for its precision yet, the run answers on NumPy
first, then compiles the kernels for later runs by running the same job again on the
compiled backend, its output discarded, with a progress line on stderr (Ctrl-C stops it; the
next run compiles what is left). The answer is the same: both backends compute in the same
precision, and seeded shots draw the same outcomes.

Only what the user left to genqsim takes this road: a run that names ``--backend`` or
``--threads``, a method other than the state vector, a larger state, or shots that run the
circuit once each (mid-circuit measurements, resets) compiles first, as before, and says so
on stderr.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from ..backends import Backend, KernelCache, backend_for, capability, get_backend
from ..numbers import NumberSystem
from .sources import Job, sampled_circuit

COLD_START_MAX_QUBITS = 16
"""Largest state vector answered on NumPy before compiling. On a 2-core EPYC (Zen 4) the
whole command on the NumPy backend takes 1.2-1.4 s up to 16 qubits (``qpe:14``, ``qft:16``,
``random:16:20``); at 20 qubits a random circuit of depth 20 takes 32 s there, longer than
compiling."""

STATEVECTOR = "statevector"


def cold_backend(args: argparse.Namespace, job: Job, method: str) -> Backend | None:
    """The compiled backend this run of ``job`` would compile for first, where the run may
    answer on NumPy before compiling (see the module's docstring); ``None`` otherwise."""
    if args.backend is not None or args.threads is not None or method != STATEVECTOR:
        return None
    numbers, n_qubits = job.numbers, job.run_circuit.n_qubits
    if n_qubits > COLD_START_MAX_QUBITS:
        return None
    if args.shots and sampled_circuit(job).runs_before_read_out:
        return None  # one run per shot: not a second's work on NumPy
    chosen = backend_for(numbers, size=1 << n_qubits)
    cache = capability(chosen, KernelCache)
    if cache is None or cache.kernels_compiled(numbers):
        return None
    if not get_backend("numpy").holds(numbers):
        return None
    return chosen


def mark_compiled(backend: object, numbers: NumberSystem) -> None:
    """After a run on ``backend`` completed: where it keeps compiled kernels, they are in its
    cache for ``numbers`` now, so later small runs need not answer on NumPy first."""
    cache = capability(backend, KernelCache)
    if cache is not None and not cache.kernels_compiled(numbers):
        cache.mark_kernels_compiled(numbers)


def announce(numbers: NumberSystem) -> None:
    """Say on stderr why this run is answered on NumPy."""
    message = (
        f"genqsim: first {numbers.name} run with these kernels on this machine: answering on "
        "the NumPy backend now, then compiling the Numba kernels for later runs (once; "
        "'genqsim warmup' compiles them all ahead of time)"
    )
    print(message, file=sys.stderr, flush=True)


class CompileProgress:
    """One stderr line that counts the kernels compiled and the seconds spent: rewritten in
    place on a terminal; elsewhere (a log) one line at the start and one at the end."""

    def __init__(self, numbers: NumberSystem, stream: Any = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.what = f"genqsim: compiling kernels for {numbers.name} for later runs"
        self.start = time.perf_counter()
        self.count = 0
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        if self.live:
            self._write(f"\r{self.what} (Ctrl-C stops) ...")
        else:
            self._write(f"{self.what} (Ctrl-C stops) ...\n")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def __call__(self, count: int) -> None:
        self.count = count
        if self.live:
            seconds = time.perf_counter() - self.start
            self._write(f"\r{self.what}: {count} compiled, {seconds:.0f} s (Ctrl-C stops) ")

    def finish(self, stopped: bool) -> None:
        seconds = time.perf_counter() - self.start
        end = "\r" if self.live else ""
        if stopped:
            self._write(f"{end}{self.what}: stopped after {self.count} kernels and {seconds:.0f} s;"
                        " the next run compiles what is left\n")  # fmt: skip
        else:
            self._write(f"{end}{self.what}: {self.count} kernels compiled in {seconds:.0f} s; "
                        "later runs load them from the cache\n")  # fmt: skip


def compile_for_later(backend: Backend, numbers: NumberSystem,
                      rerun: Callable[[str], object]) -> bool:  # fmt: skip
    """Call ``rerun(backend.name)`` (the same job on the compiled backend, which marks the
    precision compiled when it completes, :func:`mark_compiled`) with a progress line;
    ``False`` when the user stopped it."""
    cache = capability(backend, KernelCache)
    if cache is None:
        raise TypeError(f"backend {backend.name!r} keeps no compiled kernels")
    progress = CompileProgress(numbers)
    try:
        with cache.compile_progress(progress):
            rerun(backend.name)
    except KeyboardInterrupt:
        progress.finish(stopped=True)
        return False
    progress.finish(stopped=False)
    return True


def on_backend(args: argparse.Namespace, name: str) -> argparse.Namespace:
    """``args`` with ``--backend name`` and no progress bar."""
    return argparse.Namespace(**{**vars(args), "backend": name, "quiet": True})
