"""What the OpenQASM 2.0 readers keep for the process, by a gate definition's identity (and
how a body's text reads, by that text).

A definition's identity (:attr:`~.parser.GateDef.key`) is its exactness, parameter names,
qubit argument text and body text, with the identity of every gate of the file it calls: two
definitions with one identity mean the same gate, whatever they are named and whichever file
holds them. Its expansions (per parameter values), its one expansion where its body is all
constants, and whether it is a table gate at every value are then built once per process:
files of one generator repeat the same definitions (Qiskit writes ``gate_MAJ``, ``rcccx``
or ``xx_plus_yy`` the same way in every file), and a file read again reads them again. The
operations kept are immutable values. A definition has no identity where its meaning depends
on more than that: it calls a gate defined by the token parser, or a built-in gate the file
redefines after it (:meth:`~.parser.Parser.define` then drops the identities it changes).
"""

from __future__ import annotations

import threading
from typing import Any

KEPT_MAX = 4096
"""Entries each table below keeps (the oldest dropped)."""

FIXED_BODIES: dict[tuple, Any] = {}
"""The one expansion of a body of constants (``None`` where it has none), by identity."""

EXPANSIONS: dict[tuple, Any] = {}
"""``(operations, recognised)`` of a definition's expansion, by identity, table family and
parameter values: ``recognised`` where the operations are the table gate it stands for."""

DEFINITION_PARTS: dict[str, Any] = {}
"""What a definition's text says (its name, parameter and argument names, body text and the
names it calls), by that text, for the simple reader."""

BODY_STATEMENTS: dict[tuple, Any] = {}
"""How a gate body's text reads into statements (its parameter and qubit argument names and
its first column with it), for the simple reader: reading is the larger part of defining a
gate whose body uses its parameters."""

CALL_RECORDS: dict[tuple, Any] = {}
"""What the calls of a definition record (:class:`~.recognize.CallRecords`: its composites,
one per expansion), by identity and name (a composite is named after its definition)."""

DECISIONS: dict[tuple, int | None] = {}
"""Whether a parametrised candidate is a table gate at every value (its layout, or
``None``), by identity and family (:class:`~.recognize.TableMatch`)."""


_KEEPING = threading.Lock()


def keep(table: dict[Any, Any], key: Any, value: Any) -> None:
    """``table[key] = value``, dropping the oldest entry past :data:`KEPT_MAX` (one thread at
    a time: threads that read files at once share the tables)."""
    with _KEEPING:
        while table and len(table) >= KEPT_MAX:
            del table[next(iter(table))]
        table[key] = value
