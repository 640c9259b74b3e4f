"""Per-shot classical bits of a circuit, as the front doors hand them over (Qiskit's
``BitArray`` and memory, Cirq's measurement records): drawn by :func:`genqsim.counts`, then
spread into rows in a uniformly random order, which is how independent shots are ordered."""

from __future__ import annotations

import numpy as np

from ..circuit.circuit import Circuit
from ..states.counting import counted_register, counts
from .options import SimulateSettings


def shot_bits(
    circuit: Circuit,
    shots: int,
    generator: np.random.Generator,
    settings: SimulateSettings,
    tally: dict[str, int] | None = None,
) -> np.ndarray:
    """The classical bits of every shot, shape ``(shots, n_clbits)`` (column ``j`` is bit
    ``j``); all zeros when the circuit writes no classical bit. ``tally``: the shots' counts
    if they are drawn already (from a sweep, :func:`~genqsim.states.counting.counts_at_points`)."""
    width = len(circuit.result_clbits)  # the scratch bits of classical variables left out
    if width == 0 or shots == 0 or counted_register(circuit) != "classical bits":
        return np.zeros((shots, width), dtype=np.uint8)
    if tally is None:
        tally = counts(circuit, shots, generator, readout=settings.noise, **settings.options)
    table = np.array([[ch == "1" for ch in reversed(key)] for key in tally], dtype=np.uint8)
    rows = np.repeat(table, list(tally.values()), axis=0)
    return generator.permutation(rows, axis=0)
