"""OpenQASM 2.0 import and export: ``gq.qasm.loads/load/dumps/dump``."""

from __future__ import annotations

import os
from pathlib import Path

from ..circuit import Circuit
from .exporter import dumps
from .lexer import QasmError
from .parser import loads
from .qasm3 import loads3

__all__ = ["QasmError", "dump", "dumps", "load", "loads", "loads3"]


def load(path: str | os.PathLike) -> Circuit:
    """A circuit from an OpenQASM file: 2.0 (includes resolve relative to the file), or 3
    when its header says ``OPENQASM 3`` (the subset :func:`loads3` reads)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise QasmError(f"cannot read {str(p)!r}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise QasmError(
            f"{str(p)!r} is not an OpenQASM text file: byte {exc.start} is not UTF-8"
        ) from None
    if _is_qasm3(text):
        return loads3(text, source=str(p))
    return loads(text, source=str(p), base_dir=p.parent)


def _is_qasm3(text: str) -> bool:
    import re

    return re.search(r"^\s*OPENQASM\s+3", re.sub(r"//[^\n]*", "", text), re.M) is not None


def dump(circuit: Circuit, path: str | os.PathLike) -> None:
    """Write ``circuit`` as OpenQASM 2.0 to ``path``."""
    Path(path).write_text(dumps(circuit))
