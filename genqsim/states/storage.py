"""Saving states to files and loading them back, with what they are: kind, qubits, number
system, classical bits, run options, the genqsim version that wrote them, and the user's
own metadata.

The file is a NumPy ``.npz`` archive read without pickle: a JSON header and the arrays.
Machine numbers are stored as they are (``complex128``/``complex64``); the other number
systems write each number as text through their own ``encode`` (SymPy and SymEngine
expressions as ``srepr``, mpmath numbers and balls as exact mantissa/exponent pairs), so a
loaded state holds the same numbers. Symbolic text is evaluated as Python when read: load
symbolic states only from files you trust, as with pickles.
"""

from __future__ import annotations

import dataclasses
import json
import os
import zipfile
from typing import Any

import numpy as np

from ..errors import ArgumentTypeError, StateFileError
from ..numbers import NumberSystem, get_number_system
from ..version import __version__
from .density import DensityMatrix
from .options import RunOptions
from .statevector import StateVector, initial_state

FORMAT = "genqsim-state/1"
"""Written into every file; a reader refuses formats it does not know."""


def save_state(
    state: StateVector | DensityMatrix,
    path: str | os.PathLike[str],
    metadata: dict[str, Any] | None = None,
) -> None:
    """Write ``state`` (a :class:`StateVector` or :class:`DensityMatrix`, on any device) to
    ``path`` (``.npz`` is appended when missing, as NumPy does). ``metadata``: your own
    JSON-serialisable details (circuit name, parameters, notes), returned by
    ``load_state(path, with_metadata=True)``."""
    path = _npz_path(path)
    members: dict[Any, Any]
    if isinstance(state, StateVector):
        kind, members = "statevector", {(): state.amplitudes}
    elif isinstance(state, DensityMatrix):
        kind, members = "density_matrix", state._members
    else:
        raise ArgumentTypeError(
            f"save_state() takes a StateVector or a DensityMatrix, got {type(state).__name__} "
            "(a distributed state: save its gather() on rank 0)"
        )
    try:
        user = json.loads(json.dumps(metadata or {}))
    except (TypeError, ValueError) as exc:
        raise ArgumentTypeError(f"metadata must be JSON-serialisable: {exc}") from None
    if not isinstance(user, dict):
        raise ArgumentTypeError(f"metadata must be a dict, got {type(metadata).__name__}")
    header = {
        "format": FORMAT,
        "kind": kind,
        "n_qubits": state.n_qubits,
        "numbers": state.numbers.name,
        "genqsim_version": __version__,
        "clbits": {str(b): v for b, v in state.clbits.items()},
        "records": [[[int(b), int(v)] for b, v in record] for record in members],
        "options": dataclasses.asdict(state.options),
        "metadata": user,
    }
    arrays = {
        f"member_{i}": _to_storage(state.backend.to_numpy(vec), state.numbers)
        for i, vec in enumerate(members.values())
    }
    arrays["header"] = np.array(json.dumps(header))
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]


def load_state(
    path: str | os.PathLike[str],
    *,
    backend: str | None = None,
    device: str | None = None,
    with_metadata: bool = False,
) -> Any:
    """The state saved at ``path``, in its own number system, on the backend ``backend`` or
    ``device`` imply (the default for its numbers otherwise); with ``with_metadata``, a pair
    ``(state, header)`` where ``header["metadata"]`` is what was passed to
    :func:`save_state`."""
    path = _npz_path(path)
    header, arrays = _read(path)
    numbers = get_number_system(header["numbers"])
    n = header["n_qubits"]
    known = {f.name for f in dataclasses.fields(RunOptions)}
    options = RunOptions(**{k: v for k, v in header["options"].items() if k in known})
    with numbers.context():
        vectors = [_from_storage(arrays[f"member_{i}"], numbers, path)
                   for i in range(len(header["records"]))]  # fmt: skip
    if header["kind"] == "statevector":
        if len(vectors) != 1 or vectors[0].shape != (1 << n,):
            raise StateFileError(f"{path}: the amplitudes do not match {n} qubits")
        state: Any = initial_state(n, vectors[0], numbers, backend, device, options)
        state.clbits = {int(b): v for b, v in header["clbits"].items()}
    else:
        state = _density_matrix(n, header, vectors, numbers, backend, device, options, path)
    return (state, header) if with_metadata else state


def _npz_path(path: str | os.PathLike[str]) -> str:
    """The file name with ``.npz``, as ``numpy.savez`` writes it, so saving and loading
    the same name agree."""
    name = os.fspath(path)
    return name if name.endswith(".npz") else name + ".npz"


def _density_matrix(n: int, header: dict[str, Any], vectors: list[np.ndarray],
                    numbers: NumberSystem, backend: str | None, device: str | None,
                    options: RunOptions, path: Any) -> DensityMatrix:  # fmt: skip
    from .density import _backend

    if any(v.shape != (1 << (2 * n),) for v in vectors):
        raise StateFileError(f"{path}: the matrix does not match {n} qubits")
    chosen = _backend(numbers, device, backend)
    records = [tuple(tuple(pair) for pair in record) for record in header["records"]]
    members = {r: chosen.asarray(v, numbers) for r, v in zip(records, vectors)}
    return DensityMatrix._make(n, members, numbers, chosen, options)


def _to_storage(values: np.ndarray, numbers: NumberSystem) -> np.ndarray:
    """Machine numbers as they are; other numbers as text (a NumPy string array, which
    loads without pickle)."""
    if values.dtype != object:
        return values
    with numbers.context():
        return np.array([numbers.encode(v) for v in values.reshape(-1)], dtype=str)


def _from_storage(stored: np.ndarray, numbers: NumberSystem, path: Any) -> np.ndarray:
    if numbers.dtype.kind == "c":
        if stored.dtype != numbers.dtype:
            raise StateFileError(f"{path}: {stored.dtype} values for {numbers.name} numbers")
        return stored
    if stored.dtype.kind != "U":
        raise StateFileError(f"{path}: expected {numbers.name} numbers as text")
    out = np.empty(stored.shape, dtype=object)
    out[:] = [numbers.decode(str(t)) for t in stored]
    return out


def _read(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The header and arrays of a state file, or a typed error saying what is wrong."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except FileNotFoundError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise StateFileError(f"{path}: not a state saved by genqsim ({exc})") from None
    if "header" not in arrays:
        raise StateFileError(f"{path}: not a state saved by genqsim (no header)")
    try:
        header = json.loads(str(arrays.pop("header")))
    except ValueError as exc:
        raise StateFileError(f"{path}: damaged header ({exc})") from None
    if header.get("format") != FORMAT:
        raise StateFileError(
            f"{path}: format {header.get('format')!r}; this genqsim reads {FORMAT!r}"
        )
    if header.get("kind") not in ("statevector", "density_matrix"):
        raise StateFileError(f"{path}: unknown kind of state {header.get('kind')!r}")
    return header, arrays
