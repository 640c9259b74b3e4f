"""The options of ``method="mpi"``: message size and whether qubits move between ranks."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ArgumentValueError
from ..states.options import RunOptions, option


@dataclass(frozen=True)
class MPIOptions(RunOptions):
    """``exchange_chunk``: amplitudes per MPI message (a power of two; ``None``:
    :data:`genqsim.distributed.DEFAULT_CHUNK`). ``remap``: whether qubits move between local
    and rank positions as the circuit needs them (``False`` keeps one layout and exchanges
    for every gate on a rank qubit)."""

    exchange_chunk: int | None = option(None, "amplitudes per MPI message (a power of two)")
    remap: bool = option(True, "move qubits between local and rank positions as gates need them")

    def __post_init__(self) -> None:
        super().__post_init__()
        c = self.exchange_chunk
        if c is not None and (
            isinstance(c, bool) or not isinstance(c, int) or c < 1 or c & (c - 1)
        ):
            raise ArgumentValueError(f"exchange_chunk must be a power of two, got {c!r}")
        if not isinstance(self.remap, bool):
            raise ArgumentValueError(f"remap must be a bool, got {self.remap!r}")
