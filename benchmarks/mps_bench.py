"""TEBD on matrix-product states: genqsim against TeNPy (physics-tenpy), side by side in one
process, on the same quench and the same truncation settings.

    python benchmarks/mps_bench.py [--threads 1] [--sizes 32:128,64:256] [--steps 50]
                                   [--device gpu]

The run: the XXZ chain at Delta = 1 (``H = sum_i S_i . S_{i+1}``, spin-1/2 operators, open
ends) from the Neel state, second-order TEBD with ``dt = 0.05``, ``chi_max`` as given per
size, ``svd_min = 1e-10`` and no discarded-weight cutoff, total Sz conserved. Each size runs
TeNPy (``conserve="Sz"``), genqsim with ``conserve="Sz"`` and genqsim with ``conserve=None``
(the speed-up the charge blocks give), and prints the half-chain entropies (natural log, as
TeNPy reports them), the largest bond and the time ratios. Nothing is asserted. TeNPy is a
benchmark dependency: ``pip install physics-tenpy``. ``--device gpu`` keeps genqsim's blocks
on a GPU (CuPy); TeNPy runs on the CPU either way.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings


def parse_sizes(text: str) -> list[tuple[int, int]]:
    out = []
    for item in text.split(","):
        length, chi = item.split(":")
        out.append((int(length), int(chi)))
    return out


def run_tenpy(length: int, chi: int, steps: int, dt: float) -> tuple[float, float, int]:
    from tenpy.algorithms import tebd
    from tenpy.models.xxz_chain import XXZChain
    from tenpy.networks.mps import MPS

    model = XXZChain(
        {"L": length, "Jxx": 1.0, "Jz": 1.0, "hz": 0.0, "bc_MPS": "finite", "conserve": "Sz"}
    )
    psi = MPS.from_product_state(model.lat.mps_sites(), ["up", "down"] * (length // 2), bc="finite")
    options = {
        "order": 2,
        "dt": dt,
        "N_steps": steps,
        "trunc_params": {"chi_max": chi, "svd_min": 1e-10, "trunc_cut": None},
    }
    engine = tebd.TEBDEngine(psi, model, options)
    start = time.perf_counter()
    engine.run()
    elapsed = time.perf_counter() - start
    return elapsed, float(psi.entanglement_entropy()[length // 2 - 1]), max(psi.chi)


def run_genqsim(
    length: int, chi: int, steps: int, dt: float, conserve: str | None, device: str = "cpu"
) -> tuple[float, float, int]:
    import numpy as np

    from genqsim.mps import MPSState, Truncation
    from genqsim.mps.tebd import tebd

    # S_i . S_{i+1} = (X X + Y Y + Z Z) / 4 with S = sigma / 2; qubit |0> is spin up
    h = " + ".join(
        f"0.25*X{i} X{i + 1} + 0.25*Y{i} Y{i + 1} + 0.25*Z{i} Z{i + 1}" for i in range(length - 1)
    )
    state = MPSState.basis(
        "01" * (length // 2),
        conserve=conserve,
        truncation=Truncation(max_bond=chi, min_singular=1e-10),
        device=device,
    )
    start = time.perf_counter()
    tebd(state, h, dt, steps, order=2)
    elapsed = time.perf_counter() - start
    return elapsed, state.entanglement_entropy(length // 2, base=np.e), state.max_bond_dimension


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (set before import)")
    parser.add_argument("--sizes", default="32:128,64:256", help="L:chi_max pairs")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--dt", type=float, default=0.05)
    parser.add_argument("--device", choices=("cpu", "gpu"), default="cpu", help="genqsim's blocks")
    args = parser.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    warnings.filterwarnings("ignore")
    print(
        f"XXZ Delta=1 Neel quench, TEBD order 2, dt={args.dt}, {args.steps} steps, "
        f"svd_min=1e-10, {args.threads} BLAS thread(s)"
    )
    columns = ("L", 4), ("chi", 5), ("run", 16), ("seconds", 9), ("S(L/2)", 14), ("max chi", 8)
    print(" ".join(f"{name:>{width}}" for name, width in columns) + f" {'/ TeNPy':>8}")
    for length, chi in parse_sizes(args.sizes):
        t_ref, s_ref, chi_ref = run_tenpy(length, chi, args.steps, args.dt)
        print(f"{length:>4} {chi:>5} {'TeNPy Sz':>16} {t_ref:>9.2f} {s_ref:>14.10f} {chi_ref:>8}")
        for conserve in ("Sz", None):
            t, s, c = run_genqsim(length, chi, args.steps, args.dt, conserve, args.device)
            label = f"genqsim {conserve}" + (" gpu" if args.device == "gpu" else "")
            print(
                f"{length:>4} {chi:>5} {label:>16} {t:>9.2f} {s:>14.10f} {c:>8} {t / t_ref:>8.2f}"
                f"   |dS| = {abs(s - s_ref):.1e}"
            )


if __name__ == "__main__":
    main()
