"""Pauli sums: observables written as text (``"Z0 Z1 + 0.5*X2"``) or built in code.

A term is a coefficient (a number or a SymPy expression, so ``"g*Z0 Z1"`` keeps ``g`` symbolic)
times a Pauli string, stored as sorted ``(qubit, letter)`` pairs. ``Xk``, ``Yk``, ``Zk``, ``Ik``
name a Pauli on qubit ``k``; factors multiply by juxtaposition or ``*``; sums, differences and
parentheses are expanded. Products of different Paulis on one qubit are refused rather than
guessed (they do not commute); equal Paulis square to the identity.
"""

from __future__ import annotations

import functools
import re
import tokenize
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from ..errors import ArgumentTypeError, NonFiniteError, PauliSyntaxError, QubitIndexError
from ..support.lazysympy import is_sympy

if TYPE_CHECKING:
    import sympy


def _read_only(matrix: np.ndarray) -> np.ndarray:
    matrix.setflags(write=False)
    return matrix


PAULI_MATRICES: dict[str, np.ndarray] = {
    "I": _read_only(np.eye(2, dtype=complex)),
    "X": _read_only(np.array([[0, 1], [1, 0]], dtype=complex)),
    "Y": _read_only(np.array([[0, -1j], [1j, 0]], dtype=complex)),
    "Z": _read_only(np.array([[1, 0], [0, -1]], dtype=complex)),
}
"""The one-qubit Pauli matrices (complex128, read-only): dense references, local operators."""

PauliString = tuple[tuple[int, str], ...]

_FACTOR = re.compile(r"(?<![A-Za-z0-9_.])([IXYZ])(\d+)(?![A-Za-z0-9_])")
_FLOAT = re.compile(r"(?<![\w.])(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][+-]?\d+)?([jJ](?!\w))?")
"""A decimal literal, imaginary with Python's ``j`` suffix (``0.5j``)."""
_LOOKS_LIKE_PAULI = re.compile(r"(?:[IXYZixyz]\d+)+|[A-Z]\d+|[IXYZ]")
"""Coefficient names refused as likely typos of Pauli factors: ``Q1``, a bare ``Z``."""


def _parse_expr(text: str, names: dict[str, Any]) -> Any:
    """SymPy's parser with implicit multiplication and ``^`` as power."""
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication,
        parse_expr,
        standard_transformations,
    )

    transforms = (*standard_transformations, implicit_multiplication, convert_xor)
    return parse_expr(text, local_dict=names, transformations=transforms)


def _pauli_symbol(letter: str, qubit: int) -> sympy.Symbol:
    import sympy

    return sympy.Symbol(f"__pauli_{letter}_{qubit}", commutative=True)


@runtime_checkable
class PauliConvertible(Protocol):
    """Observables with an exact Pauli decomposition (the matrix observables of
    :mod:`genqsim.linalg.observables`)."""

    def to_pauli_sum(self) -> PauliSum: ...


class PauliSum:
    """A linear combination of Pauli strings: ``sum_k coeff_k * P_k``."""

    def __init__(self, terms: Iterable[tuple[Any, Mapping[int, str] | PauliString]] = ()) -> None:
        import sympy

        if isinstance(terms, (str, Mapping)):
            raise ArgumentTypeError(
                f"PauliSum takes (coefficient, pauli) pairs, got {type(terms).__name__} "
                f"{terms!r}: parse text with gq.PauliSum.parse('0.5*Z0 Z1 + X2'), or pass "
                "[(0.5, {0: 'Z', 1: 'Z'}), (1, {2: 'X'})]"
            )
        combined: dict[PauliString, Any] = {}
        for term in terms:
            coeff, pauli = _checked_term(term)
            key = _normalise(pauli)
            combined[key] = combined.get(key, 0) + coeff
        for key, c in combined.items():
            if c.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
                written = " ".join(f"{p}{q}" for q, p in key)
                raise NonFiniteError(
                    f"the observable has a coefficient {c}{f' (of {written})' if written else ''} "
                    "that is not finite: every coefficient must be a finite number or expression"
                )
        self.terms: tuple[tuple[Any, PauliString], ...] = tuple(
            (c, k) for k, c in combined.items() if not c.is_zero
        )
        self._derived: dict[Any, Any] = {}

    def derived(self, key: Any, build: Callable[[], Any]) -> Any:
        """``build()``, computed once per ``key`` and kept (the terms never change): the
        coefficients converted to a number system, for sums evaluated again and again."""
        if key not in self._derived:
            self._derived[key] = build()
        return self._derived[key]

    @classmethod
    def parse(cls, text: str) -> PauliSum:
        """Parse ``"Z0 Z1 + 0.5*X2 - g*(Y0 + Y1)"``; raises ``PauliSyntaxError`` with the reason."""
        if not isinstance(text, str):
            raise PauliSyntaxError(f"expected a Pauli-sum string, got {type(text).__name__}")
        if not text.strip():
            raise PauliSyntaxError("empty Pauli-sum string")
        import sympy

        found: dict[str, sympy.Symbol] = {}

        def replace(m: re.Match) -> str:
            sym = _pauli_symbol(m.group(1), int(m.group(2)))
            found[sym.name] = sym
            return f" {sym.name} "

        literals: dict[str, sympy.Expr] = {}

        def replace_float(m: re.Match) -> str:
            # decimal literals become doubles, equal to the same numbers written in Python
            name = f"__number_{len(literals)}"
            value = sympy.Float(float(m.group(0).rstrip("jJ")))
            literals[name] = value * sympy.I if m.group(1) else value
            return f" {name} "

        rewritten = _FLOAT.sub(replace_float, _FACTOR.sub(replace, text))
        try:
            expr = _parse_expr(rewritten, {**found, **literals})
        except (SyntaxError, TypeError, ValueError, tokenize.TokenError, AttributeError) as exc:
            raise PauliSyntaxError(f"cannot parse Pauli sum {text!r}: {exc}") from None
        if not isinstance(expr, sympy.Expr):
            raise PauliSyntaxError(f"{text!r} is not a sum of Pauli terms")
        paulis = set(found.values())
        coeff_symbols = expr.free_symbols - paulis
        for sym in sorted(coeff_symbols, key=str):
            if _LOOKS_LIKE_PAULI.fullmatch(sym.name):
                raise PauliSyntaxError(f"{text!r}: {_pauli_typo_hint(sym.name)}")
        expr = expr.xreplace({s: sympy.Symbol(s.name, real=True) for s in coeff_symbols})
        expr = sympy.expand(expr)
        gens = sorted(paulis, key=lambda s: s.name)
        terms = []
        for monomial, coeff in _monomials(expr, gens):
            if coeff.free_symbols & paulis:
                raise PauliSyntaxError(
                    f"{text!r}: Pauli factors must multiply, not nest in functions"
                )
            on_qubit: dict[int, str] = {}
            for sym, power in zip(gens, monomial):
                if power % 2 == 0:
                    continue
                _, letter, qubit = sym.name.rsplit("_", 2)
                q = int(qubit)
                if letter == "I":
                    continue
                if q in on_qubit:
                    raise PauliSyntaxError(
                        f"{text!r}: two different Paulis ({on_qubit[q]}{q}, {letter}{q}) on qubit "
                        f"{q} in one term; their product depends on order, write the result"
                    )
                on_qubit[q] = letter
            terms.append((coeff, on_qubit))
        return cls(terms)

    @classmethod
    def coerce(cls, observable: str | PauliSum | PauliConvertible) -> PauliSum:
        """A ``PauliSum`` from a string, a ``PauliSum``, or a matrix observable (its exact
        Pauli decomposition, :mod:`genqsim.linalg.observables`; a bare ``scipy.sparse`` matrix goes
        through :func:`genqsim.linalg.observables.pauli_sum_of`)."""
        if isinstance(observable, PauliSum):
            return observable
        if isinstance(observable, str):
            return _parsed(observable) if cls is PauliSum else cls.parse(observable)
        if isinstance(observable, PauliConvertible):  # gq.Hermitian, gq.SparseObservable
            return observable.to_pauli_sum()
        raise ArgumentTypeError(
            "an observable is a Pauli-sum string, a PauliSum, a gq.Hermitian or a "
            f"scipy.sparse matrix, got {observable!r}"
        )

    @classmethod
    def for_state(cls, observable: str | PauliSum, n_qubits: int) -> PauliSum:
        """:meth:`coerce`, refusing an observable on qubits a state of ``n_qubits`` lacks."""
        obs = cls.coerce(observable)
        if obs.n_qubits > n_qubits:
            raise QubitIndexError(
                f"observable acts on qubit {obs.n_qubits - 1} but the state has {n_qubits} qubits"
            )
        return obs

    @property
    def n_qubits(self) -> int:
        """Smallest number of qubits the observable fits on."""
        return max((q + 1 for _, p in self.terms for q, _ in p), default=0)

    @property
    def free_symbols(self) -> set:
        """The symbols in the coefficients (``g`` in ``"g*Z0 Z1"``)."""
        out: set = set()
        for c, _ in self.terms:
            if is_sympy(c):
                out |= c.free_symbols
        return out

    def __add__(self, other: PauliSum | str) -> PauliSum:
        other = PauliSum.coerce(other)
        return PauliSum([*self.terms, *other.terms])

    def __rmul__(self, scalar: Any) -> PauliSum:
        return PauliSum([(scalar * c, p) for c, p in self.terms])

    __mul__ = __rmul__

    def __matmul__(self, other: PauliSum | str) -> PauliSum:
        """The operator product ``self @ other`` (``H @ H`` is ``H**2``: a variance's second
        moment), each pair of strings multiplied qubit by qubit with its phase."""
        import sympy

        other = PauliSum.coerce(other)
        out = []
        for c1, p1 in self.terms:
            for c2, p2 in other.terms:
                phase, product = _string_product(p1, p2)
                out.append((c1 * c2 * phase, product))
        return PauliSum([(sympy.expand(c), p) for c, p in out])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PauliSum):
            return NotImplemented
        import sympy

        mine, theirs = dict((p, c) for c, p in self.terms), dict((p, c) for c, p in other.terms)
        return mine.keys() == theirs.keys() and all(
            sympy.simplify(mine[k] - theirs[k]) == 0 for k in mine
        )

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for coeff, p in self.terms:
            word = " ".join(f"{letter}{q}" for q, letter in p)
            c = _coefficient_text(coeff)
            if not word:
                parts.append(f"({c})")  # the identity term: a bare coefficient
            else:
                parts.append(word if coeff == 1 else f"({c})*{word}")
        return " + ".join(parts)

    def __repr__(self) -> str:
        return f"PauliSum({str(self)!r})"


def _coefficient_text(c: sympy.Expr) -> str:
    """Text that parses back to the same coefficient (floats keep all 17 digits)."""
    import sympy

    return str(c.xreplace({f: sympy.Symbol(repr(float(f))) for f in c.atoms(sympy.Float)}))


_LETTER_PRODUCT = {
    ("X", "Y"): (1, "Z"), ("Y", "Z"): (1, "X"), ("Z", "X"): (1, "Y"),
    ("Y", "X"): (-1, "Z"), ("Z", "Y"): (-1, "X"), ("X", "Z"): (-1, "Y"),
}  # fmt: skip
"""``P Q = (sign * i) R`` for two different Pauli letters."""


def _string_product(p: PauliString, q: PauliString) -> tuple[Any, PauliString]:
    """``(phase, R)`` with ``P Q = phase * R`` (phase a power of ``i``)."""
    import sympy

    letters = dict(p)
    phase: Any = sympy.Integer(1)
    for qubit, b in q:
        a = letters.pop(qubit, None)
        if a is None:
            letters[qubit] = b
        elif a != b:
            sign, letters[qubit] = _LETTER_PRODUCT[(a, b)]
            phase *= sign * sympy.I
    return phase, tuple(sorted(letters.items()))


def _checked_term(term: Any) -> tuple[Any, Mapping[int, str] | PauliString]:
    """One ``(coefficient, pauli)`` pair of the constructor, its coefficient made SymPy."""
    import sympy

    if not isinstance(term, (tuple, list)) or len(term) != 2:
        raise ArgumentTypeError(
            f"a PauliSum term is a (coefficient, pauli) pair such as (0.5, {{0: 'Z'}}), "
            f"got {term!r}"
        )
    coeff, pauli = term
    try:
        value = sympy.sympify(coeff, strict=True)
    except (sympy.SympifyError, TypeError, ValueError):
        raise ArgumentTypeError(
            f"a PauliSum coefficient must be a number or SymPy expression, got {coeff!r}"
        ) from None
    if not isinstance(value, sympy.Expr):
        raise ArgumentTypeError(
            f"a PauliSum coefficient must be a number or SymPy expression, got {coeff!r}"
        )
    return value, pauli


def _normalise(pauli: Mapping[int, str] | PauliString) -> PauliString:
    items = pauli.items() if isinstance(pauli, Mapping) else pauli
    out = []
    try:
        pairs = [(q, letter) for q, letter in items]
    except (TypeError, ValueError):
        raise PauliSyntaxError(
            f"a Pauli string is a mapping {{qubit: letter}} or (qubit, letter) pairs, got {pauli!r}"
        ) from None
    for q, letter in pairs:
        integer = isinstance(q, (int, np.integer)) and not isinstance(q, bool)
        if not isinstance(letter, str) or not integer:
            raise PauliSyntaxError(
                f"a Pauli string maps qubit indices to 'X', 'Y', 'Z' or 'I', got {q!r}: {letter!r}"
            )
        if q < 0:
            raise QubitIndexError(f"qubit index {q} in a Pauli string is negative")
        letter = letter.upper()
        if letter not in "IXYZ" or len(letter) != 1:
            raise PauliSyntaxError(f"unknown Pauli {letter!r} on qubit {q}")
        if letter != "I":
            out.append((int(q), letter))
    qs = [q for q, _ in out]
    if len(set(qs)) != len(qs):
        raise PauliSyntaxError(f"qubit repeated in Pauli string {out}")
    return tuple(sorted(out))


def _pauli_typo_hint(name: str) -> str:
    """Why ``name`` is not a Pauli factor, and what was probably meant."""
    factors = re.findall(r"[IXYZixyz]\d+", name)
    if len(factors) > 1:
        fixed = " ".join(f.upper() for f in factors)
        return f"{name!r} is not one Pauli factor: separate factors with spaces, {fixed!r}"
    if name[0].islower():
        return f"{name!r} is not a Pauli factor: Pauli letters are upper case, {name.upper()!r}"
    return f"{name!r} is not a Pauli factor (write X, Y, Z or I followed by a qubit index, e.g. Z0)"


def _monomials(expr: sympy.Expr, gens: list[sympy.Symbol]):
    """``(exponents, coefficient)`` of each term of the expanded ``expr``, as a polynomial in
    the Pauli symbols ``gens`` (coefficients keep their exact or float form)."""
    import sympy

    index = {g: i for i, g in enumerate(gens)}
    merged: dict[tuple[int, ...], sympy.Expr] = {}
    for term in sympy.Add.make_args(expr):
        powers = [0] * len(gens)
        coeff = sympy.Integer(1)
        for factor in sympy.Mul.make_args(term):
            base, exponent = factor.as_base_exp()
            if base in index:
                if not (exponent.is_Integer and exponent > 0):
                    raise PauliSyntaxError(f"Pauli factor raised to {exponent}")
                powers[index[base]] += int(exponent)
            else:
                coeff *= factor
        key = tuple(powers)
        merged[key] = merged.get(key, 0) + coeff
    return list(merged.items())


def pauli_masks(pauli: PauliString) -> tuple[int, int, int]:
    """``(x_mask, z_mask, n_y)`` with ``P = i**n_y * X^x_mask Z^z_mask`` (``Y = i X Z``)."""
    x = z = n_y = 0
    for q, letter in pauli:
        if letter in "XY":
            x |= 1 << q
        if letter in "ZY":
            z |= 1 << q
        n_y += letter == "Y"
    return x, z, n_y


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> PauliSum:
    """:meth:`PauliSum.parse`, kept per string: an observable named by the same text in
    every call of an optimisation loop is parsed (with SymPy) once. A ``PauliSum`` never
    changes after it is built, so one object serves every caller."""
    return PauliSum.parse(text)
