"""OpenQASM import and export: ``gq.qasm.loads/load/dumps/dump`` (2.0), ``loads3``/``dumps3``
(3)."""

from __future__ import annotations

import io
import itertools
import os
import re
from collections.abc import Iterable
from pathlib import Path

from ...circuit.circuit import Circuit
from .exporter import dumps, dumps3
from .lexer import QasmError
from .parser import QasmArgumentWarning, loads
from .qasm3 import QasmTimingWarning, loads3

__all__ = [
    "QasmArgumentWarning", "QasmError", "QasmTimingWarning", "dump", "dumps", "dumps3", "load",
    "loads", "loads3",
]  # fmt: skip


WHOLE_FILE_MAX_BYTES = 1 << 20
"""Files up to this size are read whole and parsed as one text, where the fast reader takes
statements across lines; larger ones are read line by line as they are parsed."""


def load(path: str | os.PathLike, exact: bool = True) -> Circuit:
    """A circuit from an OpenQASM file: 2.0 (includes resolve relative to the file), or 3
    when its header says ``OPENQASM 3`` (the subset :func:`loads3` reads). A file larger
    than ``WHOLE_FILE_MAX_BYTES`` is read line by line as it is parsed, so a malformed one
    fails at its first error without being read to the end. ``exact=False`` reads 2.0
    parameters as Python floats (see :func:`loads`)."""
    p = Path(path)
    try:
        if p.stat().st_size <= WHOLE_FILE_MAX_BYTES:
            text = _read_whole(p)
            if _is_qasm3("".join(_header_lines(io.StringIO(text)))):
                return loads3(text, source=str(p))
            return loads(text, source=str(p), base_dir=p.parent, exact=exact)
        with p.open(encoding="utf-8") as f:
            head = _header_lines(f)
            if _is_qasm3("".join(head)):
                return loads3("".join(head) + f.read(), source=str(p))
            return loads(itertools.chain(head, f), source=str(p), base_dir=p.parent, exact=exact)
    except OSError as exc:
        raise QasmError(f"cannot read {str(p)!r}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise QasmError(
            f"{str(p)!r} is not an OpenQASM text file: byte {exc.start} is not UTF-8"
        ) from None


def _read_whole(path: Path) -> str:
    """The text of ``path`` (new lines as text mode reads them); raises ``QasmError`` at
    the line of a byte that is not UTF-8."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:  # the whole file was decoded: the offset is the file's
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        message = f"not an OpenQASM text file: byte {exc.start} is not UTF-8"
        raise QasmError(message, line, 1, str(path)) from None


def _header_lines(lines: Iterable[str]) -> list[str]:
    """The lines up to and including the first one that holds something other than blanks
    and ``//`` comments (where an ``OPENQASM`` header would be)."""
    head = []
    for line in lines:
        head.append(line)
        if re.sub(r"//.*", "", line).strip():
            break
    return head


def _is_qasm3(text: str) -> bool:
    return re.search(r"^\s*OPENQASM\s+3", re.sub(r"//[^\n]*", "", text), re.M) is not None


def dump(circuit: Circuit, path: str | os.PathLike) -> None:
    """Write ``circuit`` as OpenQASM 2.0 to ``path``."""
    Path(path).write_text(dumps(circuit))
