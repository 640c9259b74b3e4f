"""Optional dependencies: import one, or fail with a message that says how to install it."""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import GenqsimError, NumberTypeError


def require(module: str, extra: str, needed_by: str,
            error: type[GenqsimError] = NumberTypeError) -> ModuleType:  # fmt: skip
    """``module`` imported, or ``error`` naming the ``genqsim[extra]`` that provides it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise error(f"{needed_by} needs {module}: pip install 'genqsim[{extra}]'") from exc
