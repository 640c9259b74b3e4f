"""OpenQASM 2.0 import and export: ``gq.qasm.loads/load/dumps/dump``."""

from __future__ import annotations

import os
from pathlib import Path

from ..circuit import Circuit
from .exporter import dumps
from .lexer import QasmError
from .parser import loads

__all__ = ["QasmError", "dump", "dumps", "load", "loads"]


def load(path: str | os.PathLike) -> Circuit:
    """A circuit from an OpenQASM 2.0 file (includes resolve relative to the file)."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise QasmError(f"cannot read {str(p)!r}: {exc.strerror}") from None
    return loads(text, source=str(p), base_dir=p.parent)


def dump(circuit: Circuit, path: str | os.PathLike) -> None:
    """Write ``circuit`` as OpenQASM 2.0 to ``path``."""
    Path(path).write_text(dumps(circuit))
