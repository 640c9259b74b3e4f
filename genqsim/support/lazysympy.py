"""SymPy on demand: type checks that never import it, so numeric runs start without it.

No SymPy object can exist before SymPy has been imported, so :func:`is_sympy` answers
``False`` at no cost until then; code that builds SymPy objects imports SymPy where it does
so. ``import genqsim`` and a numeric ``genqsim run`` therefore skip SymPy's import (about
0.7 s here).
"""

from __future__ import annotations

import sys
from typing import Any


def is_sympy(value: Any) -> bool:
    """Whether ``value`` is a SymPy expression (``sympy.Basic``)."""
    sympy = sys.modules.get("sympy")
    return sympy is not None and isinstance(value, sympy.Basic)


def is_sympy_matrix(value: Any) -> bool:
    """Whether ``value`` is a SymPy matrix."""
    sympy = sys.modules.get("sympy")
    return sympy is not None and isinstance(value, sympy.MatrixBase)


def same_value(a: Any, b: Any) -> bool:
    """``a == b``, symbolically when either side is a SymPy expression."""
    if is_sympy(a) or is_sympy(b):
        import sympy

        return bool(sympy.sympify(a) == sympy.sympify(b))
    return bool(a == b)
