"""QPY, Qiskit's binary circuit format (``qiskit.qpy.dump``): ``gq.qpy.load(path)`` reads
a file's circuits, ``gq.qpy.dump(circuits, path)`` writes genqsim circuits. Both need Qiskit
(``pip install 'genqsim[interop]'``), whose reader and writer handle the bytes; circuits are
converted as :func:`genqsim.from_qiskit` and :func:`genqsim.to_qiskit` convert them (control
flow, classical variables, annotated operations and Cliffords included)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from ..circuit.circuit import Circuit
from ..errors import ArgumentTypeError, CircuitSourceError

MAGIC = b"QISKIT"
"""The first bytes of every QPY file."""

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def is_qpy(path: str | os.PathLike) -> bool:
    """Whether the file at ``path`` starts as a QPY file does (unreadable files: no)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def load(path: str | os.PathLike) -> list[Circuit]:
    """Every circuit of the QPY file at ``path``, in its order (a file holds one or more).
    Raises ``CircuitSourceError`` for a file that cannot be read, is not QPY, is damaged,
    was written by a newer Qiskit than the one installed, or holds a program that is no
    circuit (a pulse schedule)."""
    try:
        from qiskit import qpy
        from qiskit.circuit import QuantumCircuit
    except ImportError:
        raise CircuitSourceError(
            "reading QPY files needs Qiskit: pip install 'genqsim[interop]'"
        ) from None
    from .interop import from_qiskit

    p = Path(path)
    if not p.is_file():
        raise CircuitSourceError(f"{str(p)!r}: no such file")
    if not is_qpy(p):
        problem = "cannot be read" if not os.access(p, os.R_OK) else "is not a QPY file"
        raise CircuitSourceError(
            f"{str(p)!r} {problem} (a QPY file starts with {MAGIC.decode()!r}; "
            "Qiskit writes one with qiskit.qpy.dump)"
        )
    try:
        with p.open("rb") as f:
            programs = qpy.load(f)
    except Exception as exc:  # Qiskit's reader raises QpyError, struct.error, ValueError, ...
        import qiskit

        message = str(getattr(exc, "message", exc))  # QiskitError's str() is a repr
        lines = _ANSI.sub("", message).strip().splitlines() or [type(exc).__name__]
        found = [re.sub(r"^\d+:\s*", "", ln.strip()) for ln in lines
                 if "Error:" in ln or "While parsing" in ln]  # fmt: skip
        detail = "; ".join(found) or lines[0].strip()
        raise CircuitSourceError(
            f"{str(p)!r}: Qiskit {qiskit.__version__}'s QPY reader refuses it: {detail}"
        ) from None
    others = sorted({type(x).__name__ for x in programs if not isinstance(x, QuantumCircuit)})
    if others:
        raise CircuitSourceError(
            f"{str(p)!r} holds programs that are no circuits ({', '.join(others)}): "
            "genqsim reads QuantumCircuit programs"
        )
    return [from_qiskit(qc) for qc in programs]


def dump(circuits: Circuit | Sequence[Circuit], path: str | os.PathLike) -> None:
    """Write one circuit or several to ``path`` as QPY, each converted as
    :func:`genqsim.to_qiskit` converts it (free parameters become Qiskit parameters);
    Qiskit's ``qiskit.qpy.load`` and :func:`load` read the file back. A circuit that has no
    Qiskit form (a noise channel) raises before anything is written."""
    try:
        from qiskit import qpy
    except ImportError:
        raise CircuitSourceError(
            "writing QPY files needs Qiskit: pip install 'genqsim[interop]'"
        ) from None
    from .interop import to_qiskit

    many = [circuits] if isinstance(circuits, Circuit) else list(circuits)
    if not many or not all(isinstance(c, Circuit) for c in many):
        raise ArgumentTypeError("dump takes a genqsim Circuit or a non-empty list of them")
    programs = [to_qiskit(c) for c in many]
    with Path(path).open("wb") as f:
        qpy.dump(programs, f)


__all__ = ["MAGIC", "dump", "is_qpy", "load"]
