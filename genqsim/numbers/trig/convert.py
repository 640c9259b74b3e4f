"""SymPy expressions as trig numbers: the walk that reads matrix entries such as
``exp(I*pi/4)/sqrt(2)`` or ``cos(theta/2)``, and saved results back."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy

from ...errors import NonFiniteError, NumberTypeError
from .angles import Angle, exact_rational
from .laurent import TrigNumber

if TYPE_CHECKING:
    from .system import TrigNumbers


def from_sympy(expr: sympy.Basic, ns: TrigNumbers) -> TrigNumber:
    """``expr`` as a trig number: sums, products, integer powers, square roots of rationals,
    ``I``, and ``exp(I*angle)``, ``cos(angle)``, ``sin(angle)`` of exact angles."""
    if expr.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        raise NonFiniteError(f"{expr} is not finite")

    def walk(node: sympy.Basic) -> TrigNumber:
        if node.is_Rational or node.is_Float:
            return ns.scalar(exact_rational(node, str(node)))
        if node is sympy.I:
            return ns.I
        if node.is_Add:
            total = ns.zero
            for a in node.args:
                total = total + walk(a)
            return total
        if node.is_Mul:
            product = ns.one
            for a in node.args:
                product = product * walk(a)
            return product
        if node.is_Pow:
            base, exponent = node.args
            if exponent.is_Integer:
                return walk(base) ** int(exponent)
            if exponent in (sympy.Rational(1, 2), sympy.Rational(-1, 2)) and base.is_Rational:
                root = ns.sqrt(exact_rational(base, str(base)))
                return root if exponent > 0 else ns.one / root
            if base is sympy.E:
                return walk(sympy.exp(exponent, evaluate=False))
        if isinstance(node, sympy.exp):
            return ns.expi(Angle.parse(sympy.expand(node.args[0] / sympy.I)))
        if isinstance(node, sympy.cos):
            return ns.cos(Angle.parse(node.args[0]))
        if isinstance(node, sympy.sin):
            return ns.sin(Angle.parse(node.args[0]))
        if isinstance(node, sympy.conjugate):
            return walk(node.args[0]).conjugate()
        if isinstance(node, sympy.re):
            return walk(node.args[0]).real
        if isinstance(node, sympy.im):
            return walk(node.args[0]).imag
        if node.is_Symbol:
            raise NumberTypeError(
                f"the parameter {node} itself is not a trig number: numbers={ns.name!r} holds "
                f"polynomials in exp(i*{node}/2) (cos, sin, exp of angles), not angles"
            )
        raise NumberTypeError(
            f"cannot represent {node} exactly in numbers={ns.name!r} (it holds sums of "
            "products of exp(i*angle), cos(angle), sin(angle), rationals, i and square roots "
            "of rationals); use numbers='sympy'"
        )

    return walk(expr)
