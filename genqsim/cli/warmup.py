"""``genqsim warmup``: compile the kernels a typical run uses, once, ahead of time, on every
compiled CPU backend (those with the ``ThreadScoped`` capability: Numba's, and any plugin's).

Numba compiles a kernel the first time a process calls it and keeps the machine code in its
on-disk cache (``cache=True``), so only the first run after installing (or upgrading) pays
for compilation, about 5-30 s depending on what it touches. ``genqsim warmup`` pays that cost
at a moment of the user's choosing: it runs small representative workloads (dense, diagonal
and permutation gates, fused blocks, expectation values, sampling, parameter sweeps, adjoint
gradients, the shot loop of dynamic circuits) in both machine precisions, on a state just
large enough for the serial kernel builds and on one large enough for the threaded builds,
cache-blocked runs and default fusion. Later processes load the kernels from the cache.

Numba compiles on one CPU at a time per process, and the two precisions' kernels are
separate specialisations, so where the process may use two CPUs or more each precision
compiles in its own process (``spawn``ed, so no thread runtime is forked), the two side by
side; their kernels land in the same on-disk cache. Kernel choices measured per machine
(the serial/threaded switch, how phases run) are measured once the compiling is done, when
nothing else of genqsim's runs beside the measurement; the compiling processes take the
defaults meanwhile.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from ..backends import (
    KernelCache,
    ThreadScoped,
    available_backends,
    capability,
    get_backend,
    min_state_qubits,
)
from ..circuit.circuit import Circuit
from ..library import ghz, hardware_efficient, qft, random_circuit
from ..numbers import get_number_system
from ..plan.build import DEFAULT_FUSION_MIN_QUBITS
from ..states import simulate
from ..states.branching import COMPILED_SHOTS_MAX_QUBITS
from ..support.cpus import usable_cpus

Step = tuple[str, Callable[[], object]]
Timing = tuple[str, str, int, float]
"""``(workload, numbers, qubits, seconds)`` of one warm-up step."""

PRECISIONS = ("complex128", "complex64")

SWEEP_QUBITS = 10
"""Qubits of the circuit a warm-up sweep runs (at as many points as a large state needs)."""


def _steps(n: int, numbers: str, backend: str) -> list[Step]:
    """The workloads on ``n`` qubits in ``numbers``: each touches a family of kernels."""
    dense = random_circuit(n, depth=2, seed=0)
    structured = qft(n)
    ansatz = hardware_efficient(n, 1)
    values = {p: 0.1 * (k + 1) for k, p in enumerate(ansatz.parameters)}

    def gates() -> object:
        psi = simulate(dense, numbers=numbers, backend=backend, fuse=False)
        psi.apply(ghz(n), fuse=False)
        low_and_high = Circuit(n).swap(0, n - 1).cp(0.2, 1, n - 1)  # straight low chunks
        psi.apply(low_and_high, fuse=False)
        return psi.apply(Circuit(n).ccx(0, 1, 2).rzz(0.3, 1, 2), fuse=False)

    def fused() -> object:
        simulate(dense, numbers=numbers, backend=backend, fuse=True)
        return simulate(structured, numbers=numbers, backend=backend, fuse=True)

    def measured() -> object:
        psi = simulate(dense, numbers=numbers, backend=backend)
        psi.probabilities()
        psi.sample(100, seed=0)
        return psi.expectation("Z0 Z1 + 0.5*X2 + Y0")

    def gradients() -> object:
        from ..differentiation.gradients import gradient

        return gradient(ansatz, "Z0", values, mode="adjoint", backend=backend)

    def dynamic() -> object:
        from ..circuit import channels
        from ..states.counting import counts

        # measurements into the bits an if/else tests, a reset, a while loop and both kinds
        # of channel: every row of the compiled shot loop (small states only)
        c = Circuit(n, n_clbits=2).h(0).measure(0, 0).reset(1)
        c.if_(0, 1, Circuit(n).x(1).measure(1, 0), orelse=Circuit(n).cx(0, 1).rz(0.3, 1))
        c.while_(0, 1, Circuit(n).h(0).measure(0, 0).ry(0.7, 2))
        c.depolarizing(0.1, 1).append(channels.amplitude_damping(0.2), 2)
        return counts(c.measure(2, 1), 100, seed=0, numbers=numbers, backend=backend)

    def swept() -> object:
        from ..states.expectations import expectation

        # as many amplitudes over all points as one state of n qubits: the same kernel build
        width = min(n, SWEEP_QUBITS)
        small = hardware_efficient(width, 1)
        points = max(2, 1 << (n - width))
        grid = {p: np.full(points, 0.1 * (k + 1)) for k, p in enumerate(small.parameters)}
        return expectation(small, "Z0 Z1 + X0", values=grid, numbers=numbers, backend=backend)

    steps: list[Step] = [
        ("gates", gates),
        ("fused blocks", fused),
        ("measurements", measured),
        ("sweeps", swept),
    ]
    if numbers == "complex128":
        steps.append(("adjoint gradients", gradients))
    if numbers == "complex64" and n <= COMPILED_SHOTS_MAX_QUBITS:
        # the shot loop runs in complex128 for every state: compiled beside the complex64
        # kernels, which take less time than the complex128 ones with the adjoint gradients
        steps.append(("dynamic circuits", dynamic))
    return steps


def warm_precision(
    backend: str, numbers: str, sizes: tuple[int, ...], beside_others: bool = False
) -> list[Timing]:
    """Every workload in ``numbers`` at each of ``sizes`` on ``backend``, timed (a function
    of the module, so a worker process can run it). ``beside_others``: other compiling
    processes run at the same time, so kernel choices are not measured here
    (:meth:`~backends.protocol.ThreadScoped.choices_deferred`)."""
    done: list[Timing] = []
    scoped = capability(get_backend(backend), ThreadScoped)
    deferred = scoped.choices_deferred() if beside_others and scoped else contextlib.nullcontext()
    with deferred, _quietly(backend):  # warmup's report says what compiles
        for n in sizes:
            for name, step in _steps(n, numbers, backend):
                t0 = time.perf_counter()
                step()
                done.append((name, numbers, n, time.perf_counter() - t0))
    cache = capability(get_backend(backend), KernelCache)
    if cache is not None:  # the command line's first runs need not answer on NumPy now
        cache.mark_kernels_compiled(get_number_system(numbers))
    return done


def _quietly(backend: str) -> contextlib.AbstractContextManager[object]:
    """Within it, ``backend`` compiles without its one-line notice on stderr."""
    cache = capability(get_backend(backend), KernelCache)
    return contextlib.nullcontext() if cache is None else cache.compile_progress(lambda _: None)


def warmup(report: Callable[[str], None] | None = print, processes: int | None = None) -> float:
    """Compile (or load from the cache) the common kernels; returns the seconds it took.
    ``report`` receives one line per workload (``None``: silent). ``processes``: how many
    precisions compile at once, each in its own process (``None``: as many as the CPUs this
    process may use allow; 1: all in this process, one after the other)."""
    compiled: dict[str, ThreadScoped] = {}
    for name in available_backends():
        scoped = capability(get_backend(name), ThreadScoped)
        if scoped is not None:
            compiled[name] = scoped
    if not compiled:
        if report:
            report("no compiled backend is available: nothing to compile (runs use NumPy)")
        return 0.0
    start = time.perf_counter()
    jobs: list[tuple[str, str, tuple[int, ...]]] = []
    for backend, scoped in compiled.items():
        # the smallest state it is picked for (its serial build), and one above any threaded
        # switch, large enough for the default fusion
        small = min_state_qubits(backend) or min(scoped.warmup_qubits())
        large = max(max(scoped.warmup_qubits()), DEFAULT_FUSION_MIN_QUBITS)
        jobs += [(backend, numbers, (small, large)) for numbers in PRECISIONS]
    workers = min(len(jobs), usable_cpus()) if processes is None else max(1, processes)

    def told(backend: str, timings: list[Timing]) -> None:
        if report is None:
            return
        where = f"{backend}: " if len(compiled) > 1 else ""
        for name, numbers, n, took in timings:
            report(f"{where}{name:<18} {numbers:<10} {n:>2} qubits  {took:6.2f} s")

    if workers == 1:
        for scoped in compiled.values():
            scoped.calibrate()  # compiles kernels the workloads need anyway
        for backend, numbers, sizes in jobs:
            told(backend, warm_precision(backend, numbers, sizes))
    else:
        # measured after the workers: side by side with them, a measurement would time
        # their compiling, and its kernels are compiled by then (before the workers, their
        # compiling in this process alone held back both: about 20 s on a 2-core EPYC)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            running = [(job[0], pool.submit(warm_precision, *job, True)) for job in jobs]
            for backend, future in running:
                told(backend, future.result())
        for backend, scoped in compiled.items():
            with _quietly(backend):  # this report says what runs: no compile notice
                scoped.calibrate()
    total = time.perf_counter() - start
    if report:
        for backend, scoped in compiled.items():
            for line in scoped.kernel_choices():
                report(f"{backend} kernels: {line}")
        report(f"kernels ready in {total:.1f} s (later runs load them from the kernel cache)")
    return total
