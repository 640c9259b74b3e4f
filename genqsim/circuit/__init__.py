"""Circuits and what they are made of: :class:`Circuit` and :class:`Operation`
(:mod:`.circuit`), the gate table (:mod:`.gates`), channels (:mod:`.channels`), classically
controlled operations (:mod:`.conditional`), noise models (:mod:`.noise`) and drawings
(:mod:`.drawing`, :mod:`.drawing_mpl`)."""

from __future__ import annotations

from .circuit import Circuit, Operation, parameters

__all__ = ["Circuit", "Operation", "parameters"]
