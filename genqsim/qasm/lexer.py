"""Tokens of OpenQASM 2.0 source, each with its line and column (1-based) for error messages."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Token:
    kind: str  # id, int, real, string, op, eof
    text: str
    line: int
    column: int


_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
    |(?P<comment>//[^\n]*|/\*.*?\*/)
    |(?P<real>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)
    |(?P<int>\d+)
    |(?P<id>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<string>"[^"\n]*")
    |(?P<op>->|==|[;,()\[\]{}+\-*/^])
    """,
    re.S | re.X,
)


def tokenize(text: str, source: str | None = None) -> list[Token]:
    """Split ``text`` into tokens; raises ``QasmError`` at the first character it cannot read."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def where(pos: int) -> tuple[int, int]:
        line = bisect.bisect_right(line_starts, pos)
        return line, pos - line_starts[line - 1] + 1

    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        if text.startswith("/*", pos) and text.find("*/", pos + 2) < 0:
            line, col = where(pos)
            raise QasmError("unterminated block comment", line, col, source)
        m = _TOKEN.match(text, pos)
        if m is None:
            line, col = where(pos)
            if text[pos] == '"':
                raise QasmError("unterminated string", line, col, source)
            raise QasmError(f"unexpected character {text[pos]!r}", line, col, source)
        kind = m.lastgroup
        if kind not in ("ws", "comment"):
            line, col = where(pos)
            tokens.append(Token(str(kind), m.group(), line, col))
        pos = m.end()
    line, col = where(len(text))
    tokens.append(Token("eof", "", line, col))
    return tokens
