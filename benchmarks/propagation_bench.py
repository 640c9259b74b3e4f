"""Linear error propagation of uncertain gate angles: the fast path (``gq.propagate``: one
adjoint sweep for an expectation, forward tangents for probabilities) against the object
path (``numbers="uncertain"``: ``uncertainties`` values in every amplitude) and against a
plain adjoint gradient of the same circuit, the cost the fast path aims to stay near.

    python benchmarks/propagation_bench.py [--threads 1] [--object-max 6] [--dual-max 8]

The circuit: ``layers`` of RY and RZ on every qubit, one ``ufloat`` angle per gate, and a CX
chain. Second-order propagation (mean and spread with the Hessian's terms) is timed against
the same gradient, linear propagation and Monte Carlo draws. Ratios are printed; nothing is
asserted.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from uncertainties import ufloat

import genqsim as gq


def circuit(n: int, n_angles: int, symbolic: bool = False) -> tuple[gq.Circuit, dict]:
    """RY/RZ layers with ``n_angles`` angles (ufloats, or symbols with their nominal
    values for the plain gradient) and CX chains between the layers."""
    rng = np.random.default_rng(n * 1000 + n_angles)
    nominal = rng.uniform(-np.pi, np.pi, n_angles)
    symbols = gq.parameters(f"a0:{n_angles}")
    values = dict(zip(symbols, nominal))
    c = gq.Circuit(n)
    for k in range(n_angles):
        q = (k // 2) % n
        angle = symbols[k] if symbolic else ufloat(nominal[k], 0.01)
        (c.ry if k % 2 == 0 else c.rz)(angle, q)
        if q == n - 1 and k % 2 == 1:
            for a in range(n - 1):
                c.cx(a, a + 1)
    return c, values


def best_of(function, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - t0)
    return best


def second_order(dual_max: int) -> None:
    """``Propagation.second_order`` (value, gradient and exact Hessian from one curvature
    sweep) against one plain adjoint gradient, linear propagation (``expectation``) and
    1,000 Monte Carlo draws of the angles as one broadcast sweep; the mean agrees with the
    draws' to a few standard errors. Up to ``dual_max`` qubits also the Hessian forward
    over reverse on dual numbers (object arrays), the route taken before."""
    from genqsim.differentiation.gradients import _hvp, _parameter_values
    from genqsim.states.tangent import real_terms

    print("\nsecond order (<Z0>, exact Hessian) vs one gradient, linear propagation, Monte Carlo")
    print(
        f"{'n':>3} {'angles':>6} {'gradient s':>11} {'linear s':>9} {'second s':>9} "
        f"{'/gradient':>9} {'/linear':>8} {'MC 1000 s':>10} {'mean - MC, SE':>14} "
        f"{'dual Hessian s':>15}"
    )
    rng = np.random.default_rng(5)
    for n, n_angles in ((8, 24), (10, 30), (12, 36), (16, 48)):
        c, _ = circuit(n, n_angles)
        plain, values = circuit(n, n_angles, symbolic=True)
        run = gq.propagate(c)
        estimate = run.second_order("Z0")  # plans the sweeps once, as an optimiser would
        repeat = 5 if n < 16 else 3
        gradient = best_of(lambda: gq.gradient(plain, "Z0", values, mode="adjoint"), repeat)  # noqa: B023
        linear = best_of(lambda: run.expectation("Z0"), repeat)  # noqa: B023
        second = best_of(lambda: run.second_order("Z0"), repeat)  # noqa: B023
        nominal = np.array(list(values.values()))
        draws = rng.normal(nominal, 0.01, (1000, n_angles))
        sample = dict(zip(values, draws.T))
        t0 = time.perf_counter()
        drawn = np.asarray(gq.expectation(plain, "Z0", values=sample))
        monte_carlo = time.perf_counter() - t0
        standard_errors = (estimate.mean - drawn.mean()) / (drawn.std() / np.sqrt(drawn.size))
        dual = ""
        if n <= dual_max:
            vals = _parameter_values(plain, values)
            terms = real_terms("Z0", n)
            t0 = time.perf_counter()
            for row in np.eye(n_angles):
                _hvp(plain, terms, vals, row)
            dual = f"{time.perf_counter() - t0:.2f}"
        print(
            f"{n:>3} {n_angles:>6} {gradient:>11.4f} {linear:>9.4f} {second:>9.4f} "
            f"{second / gradient:>9.1f} {second / linear:>8.1f} {monte_carlo:>10.3f} "
            f"{standard_errors:>14.1f} {dual:>15}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--object-max", type=int, default=8, help="largest n for the object path")
    parser.add_argument(
        "--dual-max", type=int, default=8, help="largest n for the dual-number Hessian"
    )
    args = parser.parse_args()
    gq.set_num_threads(args.threads)
    print(f"threads: {args.threads}")

    print("\n<Z0>: fast path vs object path (same standard deviation to 1e-12 relative)")
    print(
        f"{'n':>3} {'angles':>6} {'object s':>10} {'fast s':>10} {'speed-up':>9} "
        f"{'rel. sigma diff':>16}"
    )
    for n in (4, 6, 8):
        c, _ = circuit(n, 2 * n)
        run = gq.propagate(c)
        fast_value = run.expectation("Z0")
        fast = best_of(lambda: gq.propagate(c).expectation("Z0"), 3)  # noqa: B023
        if n <= args.object_max:
            t0 = time.perf_counter()
            reference = gq.simulate(c, numbers="uncertain").expectation("Z0")
            slow = time.perf_counter() - t0
            diff = abs(fast_value.std_dev - reference.std_dev) / reference.std_dev
            print(
                f"{n:>3} {2 * n:>6} {slow:>10.3f} {fast:>10.4f} {slow / fast:>8.0f}x {diff:>16.1e}"
            )
        else:
            print(f"{n:>3} {2 * n:>6} {'(skipped)':>10} {fast:>10.4f}")

    print("\n<Z0> with uncertain angles vs a plain adjoint gradient of the same circuit")
    print(f"{'n':>3} {'angles':>6} {'gradient s':>11} {'propagate s':>12} {'ratio':>6}")
    for n, n_angles in ((12, 24), (16, 32), (20, 40)):
        c, _ = circuit(n, n_angles)
        plain, values = circuit(n, n_angles, symbolic=True)
        repeat = 3 if n < 20 else 2
        gradient = best_of(lambda: gq.gradient(plain, "Z0", values, mode="adjoint"), repeat)  # noqa: B023
        propagated = best_of(lambda: gq.propagate(c).expectation("Z0"), repeat)  # noqa: B023
        print(
            f"{n:>3} {n_angles:>6} {gradient:>11.3f} {propagated:>12.3f} "
            f"{propagated / gradient:>6.2f}"
        )

    second_order(args.dual_max)

    print("\nprobabilities with uncertain angles (forward tangents, one uncertainties value each)")
    print(f"{'n':>3} {'angles':>6} {'seconds':>8}")
    for n, n_angles in ((12, 24), (16, 32)):
        c, _ = circuit(n, n_angles)
        seconds = best_of(lambda: gq.propagate(c).probabilities(), 1)  # noqa: B023
        print(f"{n:>3} {n_angles:>6} {seconds:>8.2f}")


if __name__ == "__main__":
    main()
