"""Tokens of OpenQASM 2.0 source, each with its line and column (1-based) for error messages.

The lexer streams: it reads one line at a time from any iterable of lines (an open file), so a
malformed file fails at its first bad character without the rest being read, and a large one
is never held as a list of tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from ..errors import GenqsimError


class QasmError(GenqsimError, ValueError):
    """Malformed or unsupported OpenQASM; the message starts with ``line L, column C``."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 source: str | None = None) -> None:  # fmt: skip
        self.line, self.column, self.source = line, column, source
        self.message = message
        where = ""
        if line is not None:
            where = f"{source + ': ' if source else ''}line {line}, column {column}: "
        super().__init__(where + message)

    def with_hint(self, hint: str) -> QasmError:
        """The same error, at the same place, with ``hint`` appended to its message."""
        return QasmError(f"{self.message} ({hint})", self.line, self.column, self.source)


class Token(NamedTuple):
    kind: str  # id, int, real, string, op, eof
    text: str
    line: int
    column: int


_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
    |(?P<comment>//.*|/\*.*?\*/)
    |(?P<open>/\*)
    |(?P<real>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)
    |(?P<int>\d+)
    |(?P<id>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<string>"[^"\n]*")
    |(?P<op>->|==|[;,()\[\]{}+\-*/^])
    |(?P<bad>.)
    """,
    re.X,
)
_SKIP = frozenset(("ws", "comment"))


def iter_tokens(lines: Iterable[str], source: str | None = None) -> Iterator[Token]:
    """The tokens of ``lines`` (each with or without its newline), then one ``eof`` token;
    raises ``QasmError`` at the first character it cannot read, when the lexer gets there."""
    numbered = enumerate(lines, 1)
    line_no, text = 0, ""
    for line_no, text in _decoded(numbered, source):
        pos = 0
        while True:
            for m in _TOKEN.finditer(text, pos):
                kind = m.lastgroup
                if kind in _SKIP:
                    continue
                if kind == "open":  # a block comment that goes on past this line
                    line_no, text, pos = _skip_comment(numbered, line_no, text, m.start(), source)
                    break
                if kind == "bad":
                    ch = m.group()
                    what = "unterminated string" if ch == '"' else f"unexpected character {ch!r}"
                    raise QasmError(what, line_no, m.start() + 1, source)
                yield Token(kind, m.group(), line_no, m.start() + 1)  # type: ignore[arg-type]
            else:
                break
    if text.endswith("\n"):
        yield Token("eof", "", line_no + 1, 1)
    else:
        yield Token("eof", "", max(line_no, 1), len(text) + 1)


def _decoded(numbered: Iterator[tuple[int, str]], source: str | None) -> Iterator[tuple[int, str]]:
    """The numbered lines, with a file's decoding error reported at its line."""
    line_no = 0
    try:
        for line_no, text in numbered:
            yield line_no, text
    except UnicodeDecodeError as exc:
        raise QasmError(
            f"not an OpenQASM text file: byte {exc.start} of a chunk is not UTF-8",
            line_no + 1, 1, source,
        ) from None  # fmt: skip


def _skip_comment(
    numbered: Iterator[tuple[int, str]], line_no: int, text: str, start: int, source: str | None
) -> tuple[int, str, int]:
    """Read on from the ``/*`` at ``start`` of ``text`` to its ``*/``: the line number, the
    line and the position just after the comment."""
    first = (line_no, start + 1)
    for line_no, text in _decoded(numbered, source):
        end = text.find("*/")
        if end >= 0:
            return line_no, text, end + 2
    raise QasmError("unterminated block comment", *first, source)


def tokenize(text: str, source: str | None = None) -> list[Token]:
    """All tokens of ``text`` (see :func:`iter_tokens`)."""
    return list(iter_tokens(split_lines(text), source))


def split_lines(text: str) -> list[str]:
    """``text`` cut after each newline (only ``\\n`` ends a line, as in a file read as text)."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
