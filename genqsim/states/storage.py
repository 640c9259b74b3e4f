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

from ..errors import StateFileError
from ..numbers import NumberSystem, get_number_system
from .density import DensityMatrix, DensityOptions
from .options import RunOptions
from .saving import FORMAT, _npz_path
from .statevector import initial_state


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
    kind_options = RunOptions if header["kind"] == "statevector" else DensityOptions
    known = {f.name for f in dataclasses.fields(kind_options)}
    options = kind_options(**{k: v for k, v in header["options"].items() if k in known})
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
