"""Host cost of ``StateVector.apply`` on small states, where planning rivals the kernels:
the whole call, the plan alone (``plan_for_backend``) and the run of a pre-built plan, for one
H gate on 12 qubits (NumPy and Numba backends) and 20 qubits (Numba), and the whole call for
a random circuit of depth 2. Best of 5 rounds, microseconds. Not a test.

    python benchmarks/apply_overhead.py
"""

from __future__ import annotations

import time
from collections.abc import Callable

import genqsim as gq
from genqsim.plan.build import plan_for_backend, run_plan


def best_us(job: Callable[[], object], calls: int) -> float:
    """Best mean time of ``calls`` calls of ``job`` over five rounds, after a warm-up."""
    for _ in range(50):
        job()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            job()
        best = min(best, (time.perf_counter() - start) / calls * 1e6)
    return best


def report(n: int, backend: str) -> None:
    """One case: one H gate, then a random circuit of depth 2, on ``n`` qubits."""
    psi = gq.zeros(n, backend=backend)
    one = gq.Circuit(n).h(3)
    plan = plan_for_backend(one, psi.numbers, psi.backend, None)
    calls = 5000 if n == 12 else 500
    whole = best_us(lambda: psi.apply(one), calls)
    planning = best_us(lambda: plan_for_backend(one, psi.numbers, psi.backend, None), calls)
    running = best_us(lambda: run_plan(plan, psi.backend, psi.amplitudes), calls)
    print(f"n={n} {backend}, one H: apply {whole:.1f} us = plan {planning:.1f} us + run "
          f"{running:.1f} us + the rest")  # fmt: skip
    layered = gq.library.random_circuit(n, 2, seed=1)
    print(f"   random circuit, depth 2 ({len(layered)} operations): apply "
          f"{best_us(lambda: psi.apply(layered), calls // 10):.1f} us")  # fmt: skip


def main() -> None:
    for n, backend in ((12, "numba"), (12, "numpy"), (20, "numba")):
        report(n, backend)


if __name__ == "__main__":
    main()
