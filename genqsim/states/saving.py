"""Writing states to files (:func:`save_state`); :mod:`.storage` reads them back.

The file is a NumPy ``.npz`` archive: a JSON header (kind, qubits, number system, classical
bits, run options, the genqsim version, the user's metadata) and one array per member of
the state. Machine numbers are stored as they are; the other number systems write each
number as text through their own ``encode``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

import numpy as np

from ..errors import ArgumentTypeError
from ..numbers import NumberSystem
from ..version import __version__
from .protocol import Storable

FORMAT = "genqsim-state/1"
"""Written into every file; a reader refuses formats it does not know."""


def save_state(
    state: Any,
    path: str | os.PathLike[str],
    metadata: dict[str, Any] | None = None,
) -> None:
    """Write ``state`` (a :class:`~genqsim.StateVector` or :class:`~genqsim.DensityMatrix`,
    or any kind with :class:`~genqsim.states.protocol.Storable`, on any device) to
    ``path`` (``.npz`` is appended when missing, as NumPy does). ``metadata``: your own
    JSON-serialisable details (circuit name, parameters, notes), returned by
    ``load_state(path, with_metadata=True)``."""
    path = _npz_path(path)
    storable = state if isinstance(state, Storable) else None
    stored = None if storable is None else storable.stored()
    if stored is None:
        raise ArgumentTypeError(
            f"save_state() takes a StateVector or a DensityMatrix, got {type(state).__name__} "
            "(a distributed state: save its gather() on rank 0)"
        )
    kind, members = stored
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


def _npz_path(path: str | os.PathLike[str]) -> str:
    """The file name with ``.npz``, as ``numpy.savez`` writes it, so saving and loading
    the same name agree."""
    name = os.fspath(path)
    return name if name.endswith(".npz") else name + ".npz"


def _to_storage(values: np.ndarray, numbers: NumberSystem) -> np.ndarray:
    """Machine numbers as they are; other numbers as text (a NumPy string array, which
    loads without pickle)."""
    if values.dtype != object:
        return values
    with numbers.context():
        return np.array([numbers.encode(v) for v in values.reshape(-1)], dtype=str)
