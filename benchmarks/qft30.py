"""A 30-qubit complex128 QFT (a 16 GiB state) with the peak resident memory it needed: the
in-place kernels allocate nothing state-sized besides the state itself.

    python benchmarks/qft30.py [n_qubits]
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np

import genqsim as gq


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    t0 = time.perf_counter()
    psi = gq.basis(1, n_qubits=n)  # QFT|1> = sum_k exp(2 pi i k / 2**n) |k> / sqrt(2**n)
    t1 = time.perf_counter()
    psi.apply(gq.library.qft(n))
    t2 = time.perf_counter()
    amps = psi.amplitudes
    k = np.array([0, 1, 2**n // 3, 2**n - 1])
    expected = np.exp(2j * np.pi * k / 2**n) / np.sqrt(2**n)
    error = float(np.max(np.abs(amps[k] - expected)) * np.sqrt(2**n))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"QFT n={n}, complex128, backend={psi.backend.name}, threads={gq.get_num_threads()}")
    print(f"state: {amps.nbytes / 2**30:.1f} GiB; allocate {t1 - t0:.1f} s; QFT {t2 - t1:.1f} s")
    print(f"peak RSS {peak / 2**30:.2f} GiB; max relative amplitude error {error:.2e}")


if __name__ == "__main__":
    main()
