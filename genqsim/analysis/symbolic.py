"""Working with symbolic results: simplify, convert between SymPy and SymEngine, and turn
closed forms into fast NumPy functions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ArgumentTypeError, ArgumentValueError
from ..numbers import get_number_system
from ..states.statevector import StateVector

if TYPE_CHECKING:
    import sympy


def _entries(value: Any) -> tuple[np.ndarray | None, Any]:
    """``(array, None)`` for arrays and states, ``(None, value)`` for a single expression."""
    if isinstance(value, StateVector):
        return np.asarray(value.amplitudes, dtype=object), None
    if isinstance(value, np.ndarray):
        return value, None
    return None, value


def _is_symengine(x: Any) -> bool:
    return type(x).__module__.startswith("symengine")


def _is_trig(x: Any) -> bool:
    return type(x).__module__.startswith("genqsim.numbers.trig")


def to_sympy(value: Any) -> Any:
    """SymPy form of a SymEngine expression or trig number, array or state (real parameters
    stay real; trig numbers in their shorter form, see ``TrigNumber.to_sympy``)."""
    import sympy

    if isinstance(value, StateVector):
        return StateVector(to_sympy(value.amplitudes), "sympy")
    array, single = _entries(value)
    if array is not None:
        out = np.empty(array.shape, dtype=object)
        out.reshape(-1)[:] = [to_sympy(x) for x in array.reshape(-1)]
        return out
    if _is_symengine(single):
        symengine_numbers: Any = get_number_system("symengine")
        return symengine_numbers.to_sympy(single)
    if _is_trig(single):
        return single.to_sympy()
    return sympy.sympify(single)


def to_symengine(value: Any) -> Any:
    """SymEngine form of a SymPy expression, array or state."""
    ns = get_number_system("symengine")
    if isinstance(value, StateVector):
        return StateVector(to_symengine(value.amplitudes), ns)
    array, single = _entries(value)
    if array is not None:
        out = np.empty(array.shape, dtype=object)
        out.reshape(-1)[:] = [ns.scalar(x) for x in array.reshape(-1)]
        return out
    return ns.scalar(single)


def simplify(value: Any) -> Any:
    """Simplify a symbolic result: an expression, or each entry of an array or StateVector
    (SymEngine entries are simplified with SymPy and converted back).

    Polynomials in the cosines, sines and ``exp(i*angle)`` of the parameters (what circuits
    give) come back in one canonical form, through the trig numbers: mathematically equal
    inputs give identical expressions, and nothing that cancels is left (an angle whose
    terms cancel is gone from the result). Anything else goes to SymPy's ``simplify``."""
    if isinstance(value, StateVector):
        return simplify(value.amplitudes)
    array, single = _entries(value)
    if array is not None:
        out = np.empty_like(array)
        out.reshape(-1)[:] = [simplify(v) for v in array.reshape(-1)]
        return out
    if _is_symengine(single):
        return get_number_system("symengine").simplify(single)
    if _is_trig(single):
        return single  # already canonical
    from ..numbers.trig.canonical import simplified

    return simplified(single)


def lambdify(value: Any, params: str | Sequence[Any]) -> Callable[..., Any]:
    """A NumPy function of ``params`` (symbols, or names such as ``"a b"``) evaluating
    ``value``: an expression, an array of expressions or a symbolic StateVector.

    The function broadcasts over array arguments, so one call evaluates a whole parameter
    sweep: for an array or state it returns shape ``broadcast(args).shape + (len(value),)``.
    """
    import sympy

    array, single = _entries(value)
    exprs = [to_sympy(single)] if array is None else [to_sympy(x) for x in array.reshape(-1)]
    present = {s.name: s for e in exprs for s in e.free_symbols}
    symbols = _symbols(params, present)
    unnamed = sorted(set(present.values()) - set(symbols), key=str)
    if unnamed:
        names = " ".join(str(s) for s in unnamed)
        raise ArgumentValueError(
            f"the expression depends on {', '.join(map(str, unnamed))}, which params "
            f"({params!r}) does not name: the function could not evaluate it; name every "
            f"parameter, as gq.lambdify(value, {' '.join([*map(str, symbols), names])!r})"
        )
    if array is None:
        return sympy.lambdify(symbols, exprs[0], "numpy")
    fn = sympy.lambdify(symbols, exprs, "numpy")

    def evaluate(*args: Any) -> np.ndarray:
        shape = np.broadcast(*args).shape if args else ()
        outs = [np.broadcast_to(np.asarray(v, dtype=np.complex128), shape) for v in fn(*args)]
        return np.stack(outs, axis=-1)

    return evaluate


def _symbols(params: str | Sequence[Any], present: dict[str, sympy.Symbol]) -> list[sympy.Symbol]:
    """Symbols for ``params``; a name means the symbol of that name in the expressions."""
    import sympy

    names = params.replace(",", " ").split() if isinstance(params, str) else list(params)
    out = []
    for p in names:
        if isinstance(p, str):
            out.append(present.get(p, sympy.Symbol(p, real=True)))
        elif isinstance(p, sympy.Symbol):
            out.append(p)
        else:
            raise ArgumentTypeError(f"lambdify parameters are symbols or names, got {p!r}")
    return out
