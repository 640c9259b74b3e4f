"""Fuzzing the OpenQASM readers: programs built from the grammar and valid files mutated at
random either read as circuits or fail with a ``QasmError`` that names a line and column,
each within a bounded time. Nothing else may escape (no IndexError, RecursionError,
OverflowError, ...), and nothing may hang: gate definitions that call each other twice
(``gate g1 a { g0 a; g0 a; }``, ...) grow exponentially and are refused at a bound."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import genqsim as gq
from genqsim.io.qasm.lexer import QasmError
from genqsim.io.qasm.parser import MAX_GATE_OPERATIONS

VALID = sorted((Path(__file__).parent / "qasm" / "valid").glob("*.qasm"))
SECONDS = 10.0
"""The most one read may take (the largest bounded expansion takes a few seconds)."""

TOKENS = (
    ";", "{", "}", "(", ")", "[", "]", ",", "->", "==", "+", "-", "*", "/", "^", "\n", " ",
    "qreg", "creg", "gate", "opaque", "measure", "reset", "barrier", "if", "include", "U", "CX",
    "h", "cx", "ccx", "u3", "rz", "mcx", "q", "c", "a", "b", "pi", "0", "1", "-1", "2.5",
    "99999999999", "1e400", "sin(", "ln(0)", "1/0", "sqrt(-1)", '"qelib1.inc"', '"nosuch.inc"',
    "OPENQASM 2.0;", "/*", "*/", "//", "\u00e9", "\x00",
)  # fmt: skip
"""What a mutation inserts: the language's words and symbols, and values at its edges."""


def read_bounded(reader, text: str) -> None:
    """Read ``text``: a circuit, or a located ``QasmError``; within :data:`SECONDS`."""
    start = time.perf_counter()
    try:
        circuit = reader(text)
    except QasmError as exc:
        assert exc.line is not None and exc.column is not None, str(exc)
        assert exc.line >= 1 and exc.column >= 1, str(exc)
    else:
        assert isinstance(circuit, gq.Circuit)
    assert time.perf_counter() - start < SECONDS


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A valid file with one to four edits: a slice deleted, duplicated or replaced by a
    token, or a token inserted."""
    text = draw(st.sampled_from(VALID)).read_text()
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        j = min(len(text), i + draw(st.integers(0, 12)))
        kind = draw(st.sampled_from(["delete", "duplicate", "replace", "insert"]))
        token = draw(st.sampled_from(TOKENS))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif kind == "replace":
            text = text[:i] + token + text[j:]
        else:
            text = text[:i] + token + text[i:]
    return text


NAMES = st.sampled_from(["q", "r", "c", "a", "g", "h", "cx", "u3", "mygate"])
INDEX = st.integers(-1, 5)
ANGLE = st.sampled_from(["pi/2", "0.3", "-pi", "theta", "1e-300", "2*pi*0.25", "sin(pi)"])


@st.composite
def grammar_program(draw: st.DrawFn) -> str:
    """A program of declarations, definitions, calls, measurements and conditionals, with
    names, indices and arities drawn freely (so many are wrong in some way)."""
    lines = ["OPENQASM 2.0;"]
    if draw(st.booleans()):
        lines.append('include "qelib1.inc";')
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["qreg", "creg", "gate", "call", "measure", "if", "barrier"]))
        name = draw(NAMES)
        if kind in ("qreg", "creg"):
            lines.append(f"{kind} {name}[{draw(st.integers(0, 6))}];")
        elif kind == "gate":
            params = draw(st.sampled_from(["", "(theta)", "(theta, phi)"]))
            body = draw(st.sampled_from(["h a;", "cx a, b;", "U(theta, 0, 0) a;", "g a;", ""]))
            lines.append(f"gate {name}{params} a, b {{ {body} }}")
        elif kind == "call":
            gate = draw(st.sampled_from(["h", "cx", "u3", "rz", "ccx", "g", "mygate", "U", "CX"]))
            n_params = draw(st.integers(0, 3))
            params = f"({', '.join(draw(ANGLE) for _ in range(n_params))})" if n_params else ""
            args = ", ".join(
                f"{draw(NAMES)}[{draw(INDEX)}]" if draw(st.booleans()) else draw(NAMES)
                for _ in range(draw(st.integers(1, 3)))
            )
            lines.append(f"{gate}{params} {args};")
        elif kind == "measure":
            lines.append(f"measure {draw(NAMES)}[{draw(INDEX)}] -> {draw(NAMES)}[{draw(INDEX)}];")
        elif kind == "if":
            lines.append(f"if ({draw(NAMES)} == {draw(st.integers(-1, 9))}) x {draw(NAMES)}[0];")
        else:
            lines.append(f"barrier {draw(NAMES)};")
    return "\n".join(lines)


FUZZ = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


@FUZZ
@given(mutated())
def test_mutated_valid_files_read_or_fail_at_a_line_and_column(text):
    read_bounded(gq.qasm.loads, text)


@FUZZ
@given(grammar_program())
def test_grammar_built_programs_read_or_fail_at_a_line_and_column(text):
    read_bounded(gq.qasm.loads, text)


@settings(max_examples=60, deadline=None, database=None)
@given(mutated())
def test_the_openqasm3_reader_fails_at_a_line_and_column_too(text):
    pytest.importorskip("openqasm3")
    read_bounded(gq.qasm.loads3, "OPENQASM 3.0;\n" + text.replace("OPENQASM 2.0;", ""))


@pytest.mark.parametrize("reader, header", [
    (gq.qasm.loads, 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[1];'),
    (gq.qasm.loads3, 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[1] q;'),
], ids=["openqasm2", "openqasm3"])  # fmt: skip
def test_exponentially_growing_definitions_are_refused_not_expanded(reader, header):
    pytest.importorskip("openqasm3")
    lines = [header, "gate g0 a { h a; }"]
    lines += [f"gate g{i} a {{ g{i - 1} a; g{i - 1} a; }}" for i in range(1, 41)]
    lines.append("g40 q[0];")
    start = time.perf_counter()
    with pytest.raises(QasmError, match=f"more than {MAX_GATE_OPERATIONS:,} operations") as err:
        reader("\n".join(lines))
    assert err.value.line is not None
    assert time.perf_counter() - start < 30
