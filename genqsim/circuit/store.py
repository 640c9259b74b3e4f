"""Classical stores: a value written into classical bits mid-circuit, a constant or a
function of other classical bits (Qiskit's ``store`` into a bit or a register, OpenQASM 3's
``c[1] = !c[0];`` and ``c = c ^ 5;``).

A :class:`Store` is an operation on no qubit. It holds its function as a table, one entry
per value of the bits it reads, so every runner (the compiled shot loop, the grouped shot
runner, density matrices, MPS, MPI) writes its bits by a lookup, and a store is a value that
compares, hashes and pickles like any gate.
"""

from __future__ import annotations

import numbers as _abc
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import ArgumentTypeError, ArgumentValueError
from .conditional import as_clbits
from .gates import Gate, GateKind

MAX_STORE_SOURCES = 16
"""The most classical bits one store may read: its table holds one value per value of
them."""


class Store(Gate):
    """Write ``table[v]`` into the classical bits ``clbits`` (``clbits[0]`` the lowest),
    where ``v`` is the value the bits ``sources`` (``sources[0]`` the lowest; bits not yet
    written read 0) hold when the store runs. ``value`` gives the table: an integer (a
    constant, whatever the sources hold), a sequence of ``2**len(sources)`` integers, or a
    function of the sources' value, called once per value here. The sources may include
    written bits (``c[0] = !c[0]``: read before any is written)."""

    kind = GateKind.STORE

    def __init__(
        self,
        clbits: Any,
        value: int | Sequence[int] | Callable[[int], int],
        sources: Any = (),
    ) -> None:
        self.clbits = as_clbits(clbits)
        self.sources = () if _is_empty(sources) else as_clbits(sources)
        if len(self.sources) > MAX_STORE_SOURCES:
            raise ArgumentValueError(
                f"a store reads at most {MAX_STORE_SOURCES} classical bits (its table holds "
                f"a value per value of them), got {len(self.sources)}"
            )
        self.table = _table(value, len(self.sources), len(self.clbits))
        self.name = "store"
        self.n_qubits = 0
        self.params = ()

    @property
    def bits_read(self) -> frozenset[int]:
        """The classical bits the store reads (a measurement before it that writes one is no
        terminal measurement)."""
        return frozenset(self.sources)

    @property
    def bits_written(self) -> frozenset[int]:
        """The classical bits the store writes."""
        return frozenset(self.clbits)

    @property
    def label(self) -> str:
        target = _bits_text(self.clbits)
        if len(set(self.table)) == 1:
            return f"{target}={self.table[0]}"
        return f"{target}=f({_bits_text(self.sources)})"

    def inverse(self) -> Gate:
        raise ArgumentTypeError("a classical store has no inverse")

    def bind(self, mapping: Mapping) -> Gate:
        return self

    def _key(self) -> tuple:
        return (*super()._key(), self.clbits, self.sources, self.table)

    def __repr__(self) -> str:
        return f"store({self.label})"


def _is_empty(sources: Any) -> bool:
    return isinstance(sources, Sequence | np.ndarray) and len(sources) == 0


def _table(value: Any, n_sources: int, width: int) -> tuple[int, ...]:
    """The value written for each value of the sources, checked to fit ``width`` bits."""
    size = 1 << n_sources
    if callable(value):
        entries = [value(v) for v in range(size)]
    elif isinstance(value, Sequence | np.ndarray) and not isinstance(value, (str, bytes)):
        entries = list(value)
        if len(entries) != size:
            raise ArgumentValueError(
                f"a store's table holds one value per value of its {n_sources} source bit(s), "
                f"{size} in all, got {len(entries)}"
            )
    else:
        entries = [value] * size
    out = []
    for entry in entries:
        if isinstance(entry, (bool, np.bool_)):
            entry = int(entry)
        if not isinstance(entry, (_abc.Integral, np.integer)):
            raise ArgumentTypeError(f"a stored value is an integer, got {entry!r}")
        number = int(entry)
        if not 0 <= number < 1 << width:
            raise ArgumentValueError(
                f"stored value {number} does not fit in {width} classical bit(s)"
            )
        out.append(number)
    return tuple(out)


def _bits_text(bits: Sequence[int]) -> str:
    return f"c{bits[0]}" if len(bits) == 1 else f"c{list(bits)}"
