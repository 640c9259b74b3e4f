"""A model on paper of distributed runs too large for this machine: QFT and random circuits of
n = 36-44 qubits on 2**k nodes joined by a 200 Gb/s network.

The exchanges are not estimated: the schedule is a function of the plan alone
(:func:`genqsim.distributed.schedule.schedule`), so this script builds each plan, schedules it
from the layout a fresh state would take, and counts the swaps of positions exactly (each
sends half of a node's slice). The baseline keeps one layout, as QuEST's distributed mode
does: every dense or permutation gate on a rank qubit exchanges the node's whole slice, and a
SWAP between a rank and a local qubit half of it.

Compute time is the measured single-process time per amplitude of the same circuit family
(``--measured-n``, run here first), scaled by the slice size and by n (the number of passes
over memory grows with the qubit count for both families), and by the ratio of this
machine's copy bandwidth (measured) to a node's (``--node-gbs``): the kernels are bound by
memory bandwidth. Communication and compute are added (no overlap), so the figures are an
upper bound for a run that overlaps them.

    python benchmarks/mpi_model.py [--measured-n 24] [--network-gbit 200] [--node-gib 256]
                                   [--node-gbs 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import genqsim as gq
from genqsim.distributed.layout import QubitLayout, initial_layout, is_plain_swap, needs_locality
from genqsim.distributed.schedule import Swap, schedule
from genqsim.plan import GATE_CALLS, build_plan
from genqsim.plan.fusion import fuse_circuit

BYTES = 16  # complex128


def family(name: str, n: int, depth: int) -> gq.Circuit:
    if name == "qft":
        return gq.library.qft(n)
    return gq.library.random_circuit(n, depth, seed=1)


def plan_of(circuit: gq.Circuit) -> list:
    numbers = gq.get_number_system("complex128")
    return build_plan(fuse_circuit(circuit, numbers, 1, 1), numbers, False)


def slices_sent(plan: list, n: int, k: int) -> tuple[float, float]:
    """Slices each node sends: with remapping (the schedule's swaps), and keeping one layout."""
    local = n - k
    start = initial_layout(n, local, plan)
    swaps = sum(1 for step in schedule(plan, start.copy()) if isinstance(step, Swap))
    fixed = QubitLayout(n, local)
    baseline = 0.0
    for item in plan:
        remote = [q for q in needs_locality(item) if not fixed.is_local(q)]
        if not remote:
            if is_plain_swap(item) and any(not fixed.is_local(q) for q in item.targets):
                baseline += 0.5
            continue
        if isinstance(item, GATE_CALLS):
            baseline += len(remote)  # a whole slice per rank target
    return swaps * 0.5, baseline


def measured_seconds_per_amplitude(name: str, n: int, depth: int) -> float:
    circuit = family(name, n, depth)
    gq.simulate(family(name, 10, depth))  # load the kernels
    start = time.perf_counter()
    gq.simulate(circuit)
    return (time.perf_counter() - start) / (1 << n)


def copy_bandwidth() -> float:
    """Bytes per second this machine reads and writes copying a 1 GiB array (best of 3)."""
    a = np.ones(1 << 27)
    b = np.empty_like(a)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        np.copyto(b, a)
        best = min(best, time.perf_counter() - start)
    return 2 * a.nbytes / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--measured-n", type=int, default=24)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--network-gbit", type=float, default=200.0)
    parser.add_argument("--node-gib", type=float, default=256.0, help="memory per node")
    parser.add_argument("--node-gbs", type=float, default=200.0, help="node memory GB/s")
    args = parser.parse_args()
    network = args.network_gbit * 1e9 / 8  # bytes per second per node, each direction
    here = copy_bandwidth()
    scale = here / (args.node_gbs * 1e9)
    print(f"network {args.network_gbit:.0f} Gb/s per node; {args.node_gib:.0f} GiB and "
          f"{args.node_gbs:.0f} GB/s of memory per node; compute measured here at "
          f"n = {args.measured_n} ({gq.get_num_threads()} threads, copy bandwidth "
          f"{here / 1e9:.1f} GB/s), scaled by {scale:.3f}")  # fmt: skip
    print(f"{'circuit':10} {'n':>3} {'nodes':>6} {'GiB/node':>9} {'slices sent':>12} "
          f"{'fixed':>6} {'compute s':>10} {'comm s':>8} {'comm fixed s':>13} "
          f"{'total / fixed':>13}")  # fmt: skip
    for name in ("qft", "random"):
        per_amplitude = measured_seconds_per_amplitude(name, args.measured_n, args.depth)
        for n in (36, 38, 40, 42, 44):
            plan = plan_of(family(name, n, args.depth))
            k = 0
            while (1 << (n - k)) * BYTES > args.node_gib * 2**30:
                k += 1
            for kk in (k, k + 2):
                slice_bytes = (1 << (n - kk)) * BYTES
                remapped, fixed = slices_sent(plan, n, kk)
                compute = per_amplitude * (1 << (n - kk)) * n / args.measured_n * scale
                comm, comm_fixed = (x * slice_bytes / network for x in (remapped, fixed))
                ratio = (compute + comm) / (compute + comm_fixed)
                print(f"{name:10} {n:3d} {1 << kk:6d} {slice_bytes / 2**30:9.0f} "
                      f"{remapped:12.1f} {fixed:6.1f} {compute:10.1f} {comm:8.1f} "
                      f"{comm_fixed:13.1f} {ratio:13.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
