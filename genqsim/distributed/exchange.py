"""Moving amplitudes between ranks: pairwise, buffer-based ``Sendrecv`` in bounded chunks.

Every exchange pairs a rank with one partner and swaps (or combines) a *subspace* of their
slices: the amplitudes whose local index has given bits at given positions. Both partners walk
their subspace in the same order, one chunk of at most ``chunk`` amplitudes at a time, through
two preallocated host buffers, so an exchange never needs a second copy of the state and small
chunks in tests exercise the same code as large ones. The buffers are plain NumPy arrays
(never pickled objects); slices on a GPU are staged through them.

:class:`CommunicationStats` counts what a state sent, for the benchmark and for the tests
that check each call class against its minimum traffic.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..backends import Backend
from ..numbers import NumberSystem

DEFAULT_CHUNK = 1 << 20
"""Amplitudes per message (16 MiB of complex128): large enough to reach the network's
bandwidth, small enough that the two staging buffers are noise next to the state."""


@dataclass
class CommunicationStats:
    """What a distributed state has sent so far (this rank's share).

    ``bytes_sent``: payload bytes this rank sent; ``messages``: ``Sendrecv`` calls;
    ``seconds``: wall time inside them; ``calls``: gate calls by how they ran (``local``,
    ``diagonal`` on rank bits, ``rank_controlled``, ``skipped`` where a rank-bit control
    failed, ``exchange`` for a pairwise combination, ``swap`` for a swap of positions,
    ``relabel`` for SWAP gates absorbed by the layout)."""

    bytes_sent: int = 0
    messages: int = 0
    seconds: float = 0.0
    calls: dict[str, int] = field(default_factory=dict)

    def count(self, kind: str) -> None:
        self.calls[kind] = self.calls.get(kind, 0) + 1

    def snapshot(self) -> CommunicationStats:
        return CommunicationStats(self.bytes_sent, self.messages, self.seconds, dict(self.calls))


def subspace(local: Any, local_qubits: int, fixed: Mapping[int, int]) -> Any:
    """The view of ``local`` (``2**local_qubits`` amplitudes) on the indices whose bit at each
    position ``p`` in ``fixed`` is ``fixed[p]``: runs of free bits become single axes, so the
    view has at most ``len(fixed) + 1`` dimensions whatever the size."""
    shape: list[int] = []
    index: list[Any] = []
    top = local_qubits
    for p in sorted(fixed, reverse=True):
        if top - p - 1 > 0:
            shape.append(1 << (top - p - 1))
            index.append(slice(None))
        shape.append(2)
        index.append(fixed[p])
        top = p
    if top > 0:
        shape.append(1 << top)
        index.append(slice(None))
    return local.reshape(shape)[(*index, ...)]  # a view even when every bit is fixed


def pieces(view: Any, chunk: int) -> Iterator[Any]:
    """``view`` in consecutive (C-order) pieces of ``min(chunk, view.size)`` amplitudes; the
    order depends only on the view's shape, so two partners with equal shapes agree."""
    if view.size <= chunk:
        yield view
        return
    first = view.shape[0]
    rest = view.size // first
    if rest >= chunk:
        for j in range(first):
            yield from pieces(view[j, ...], chunk)  # a 0-d view, not a scalar, at the end
    else:
        step = chunk // rest
        for j in range(0, first, step):
            yield view[j : j + step]


class Exchanger:
    """Pairwise exchanges of one rank with its partners, through two chunk-sized buffers."""

    def __init__(self, comm: Any, backend: Backend, numbers: NumberSystem, chunk: int) -> None:
        self.comm = comm
        self.chunk = chunk
        self.backend = backend
        self.numbers = numbers
        self.on_device = backend.device != "cpu"  # slices there are staged through the host
        self._send = np.empty(0, dtype=numbers.dtype)
        self._recv = np.empty(0, dtype=numbers.dtype)
        self.stats = CommunicationStats()

    def _buffers(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        if self._send.size < size:
            self._send = np.empty(size, dtype=self._send.dtype)
            self._recv = np.empty(size, dtype=self._recv.dtype)
        return self._send[:size], self._recv[:size]

    def _sendrecv(self, piece: Any, partner: int) -> np.ndarray:
        """Send ``piece`` to ``partner`` and return what it sent back (same shape, host)."""
        send, recv = self._buffers(piece.size)
        if self.on_device:
            send[...] = self.backend.to_numpy(piece).reshape(-1)
        else:
            send.reshape(piece.shape)[...] = piece
        start = time.perf_counter()
        self.comm.Sendrecv(send, dest=partner, recvbuf=recv, source=partner)
        self.stats.seconds += time.perf_counter() - start
        self.stats.bytes_sent += send.nbytes
        self.stats.messages += 1
        return recv.reshape(piece.shape)

    def _on_device(self, values: np.ndarray) -> Any:
        """Received values where the slice lives."""
        return self.backend.asarray(values, self.numbers) if self.on_device else values

    def swap(self, view: Any, partner: int) -> None:
        """Trade ``view`` for the partner's view of the same shape."""
        for piece in pieces(view, self.chunk):
            piece[...] = self._on_device(self._sendrecv(piece, partner))

    def combine(self, view: Any, partner: int, own: complex, other: complex) -> None:
        """``view <- own * view + other * partner's view`` (a one-qubit gate whose target is the
        rank bit the two partners differ in; ``own``/``other`` are this rank's row of it)."""
        for piece in pieces(view, self.chunk):
            received = self._on_device(self._sendrecv(piece, partner))
            if own == 0:
                piece[...] = received if other == 1 else other * received
            else:
                if own != 1:
                    piece *= own
                piece += other * received if other != 1 else received
