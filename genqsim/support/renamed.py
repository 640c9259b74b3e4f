"""Arguments renamed in the public API: the old keyword still works for one release, with a
``DeprecationWarning`` that names the new one."""

from __future__ import annotations

import warnings
from typing import Any

from ..errors import ArgumentTypeError


def renamed_argument(function: str, new_name: str, new: Any, old_name: str, old: Any) -> Any:
    """The value of ``new_name``, or of ``old_name`` (warned about) where only it was given;
    both at once is an error. ``None`` means not given."""
    if old is None:
        return new
    if new is not None:
        raise ArgumentTypeError(
            f"{function}() takes {new_name}= (the new name of {old_name}=), not both"
        )
    warnings.warn(
        f"{function}(..., {old_name}=...) is deprecated: use {new_name}= (in genqsim "
        f"{old_name}= names a kind of state, in simulate)",
        DeprecationWarning,
        stacklevel=3,
    )
    return old
