"""What the tests take from genqsim's registries: every installed backend, number system and
simulation method, so one registered later is tested everywhere these lists are used,
without an edit to the test files."""

from __future__ import annotations

import genqsim as gq


def _device(name: str) -> str:
    return gq.get_backend(name).device


CPU_BACKENDS = [name for name in gq.available_backends() if _device(name) == "cpu"]
"""Backends that run on host arrays (the generic NumPy one, Numba's, and any plugin's)."""

NUMBER_SYSTEMS = gq.available_number_systems()
"""Every registered number system."""

MACHINE_NUMBERS = [n for n in NUMBER_SYSTEMS if gq.get_number_system(n).dtype.kind == "c"]
"""The number systems stored as complex machine arrays (run on the compiled kernels)."""

OBJECT_NUMBERS = [n for n in NUMBER_SYSTEMS if n not in MACHINE_NUMBERS]
"""The number systems stored as object arrays (run through the generic routine)."""

FLOAT_ANGLE_OBJECT_NUMBERS = [n for n in OBJECT_NUMBERS if gq.get_number_system(n).float_angles]
"""Object-array systems that take circuits with float angles (random circuits): all but the
exact fields that need angles as rational multiples of pi (``trig``)."""

METHODS = gq.available_methods()
"""Every registered simulation method."""
