"""Evaluate a SymPy expression in another number system, node by node.

Gate parameters are SymPy expressions (``pi/4``, ``2*theta + 1``). A ball must enclose
``pi/4`` exactly, a dual number must carry ``d(2*theta + 1)/dtheta = 2``, an ``mpmath`` number
must be ``pi/4`` to 50 digits: none of that survives a detour through a float. Walking the
expression tree with the target system's own constants and functions gets each of them right.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import sympy

from ..errors import NumberTypeError, UnboundParameterError
from .base import Number, NumberSystem


def _power(base: Number, exponent: sympy.Basic, ns: NumberSystem) -> Number:
    if exponent.is_Integer:
        k, result, factor = abs(int(exponent)), ns.one, base
        while k:  # square and multiply
            if k & 1:
                result = result * factor
            factor = factor * factor
            k >>= 1
        return ns.one / result if exponent < 0 else result
    if exponent == sympy.Rational(1, 2):
        return ns.sqrt(base)
    if exponent == sympy.Rational(-1, 2):
        return ns.one / ns.sqrt(base)
    raise NumberTypeError(
        f"cannot evaluate the power with exponent {exponent} in numbers={ns.name!r} "
        "(integer powers and square roots are supported)"
    )


_FUNCTIONS: dict[type, Callable[[NumberSystem, Number], Number]] = {
    sympy.exp: lambda ns, x: ns.exp(x),
    sympy.cos: lambda ns, x: ns.cos(x),
    sympy.sin: lambda ns, x: ns.sin(x),
    sympy.conjugate: lambda ns, x: ns.conj(x),
    sympy.re: lambda ns, x: ns.real(x),
}


def evaluate(expr: Any, ns: NumberSystem, values: Mapping[sympy.Symbol, Number]) -> Number:
    """``expr`` (a SymPy expression) as a number of ``ns``, with ``values`` for its symbols.

    Rationals are exact quotients of integers, ``pi`` and ``E`` the system's own constants,
    floats their exact binary value. Raises ``UnboundParameterError`` for a symbol without a
    value and ``NumberTypeError`` for a function the evaluator does not know.
    """
    expr = sympy.sympify(expr)

    def walk(node: sympy.Basic) -> Number:
        if node.is_Integer:
            return ns.integer(int(node))
        if node.is_Rational:
            return ns.integer(int(node.p)) / ns.integer(int(node.q))
        if node.is_Float:
            return ns.float_value(node)
        if node is sympy.pi:
            return ns.pi
        if node is sympy.E:
            return ns.exp(ns.one)
        if node is sympy.I:
            return ns.I
        if node.is_Symbol:
            if node not in values:
                raise UnboundParameterError(
                    f"parameter {node} has no value in numbers={ns.name!r}; give it one "
                    "(circuit.bind or the number system's values)"
                )
            return values[node]
        if node.is_Add:
            args = [walk(a) for a in node.args]
            total = args[0]
            for a in args[1:]:
                total = total + a
            return total
        if node.is_Mul:
            args = [walk(a) for a in node.args]
            product = args[0]
            for a in args[1:]:
                product = product * a
            return product
        if node.is_Pow:
            return _power(walk(node.base), node.exp, ns)
        for function, apply in _FUNCTIONS.items():
            if isinstance(node, function):
                return apply(ns, walk(node.args[0]))  # type: ignore[attr-defined]
        raise NumberTypeError(f"cannot evaluate {node} in numbers={ns.name!r}")

    return walk(expr)
