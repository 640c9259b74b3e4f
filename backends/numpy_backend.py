"""The NumPy backend: the generic routines on NumPy arrays of any dtype, object included.

It is the reference implementation every other backend is tested against, and the fallback
for number types no specialised backend handles.
"""

from __future__ import annotations

from .protocol import GenericBackend


class NumpyBackend(GenericBackend):
    """Generic index arithmetic on NumPy arrays; works for every number system."""

    name = "numpy"
    priority = 0
