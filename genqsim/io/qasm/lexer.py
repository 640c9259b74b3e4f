"""Tokens of OpenQASM 2.0 source, each with its line and column (1-based) for error messages.

The lexer streams: it reads one line at a time from any iterable of lines (an open file), so a
malformed file fails at its first bad character without the rest being read, and a large one
is never held as a list of tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from ...errors import GenqsimError


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
    \s*(?:
    (?P<comment>//.*|/\*.*?\*/)
    |(?P<open>/\*)
    |(?P<real>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)
    |(?P<int>\d+)
    |(?P<id>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<string>"[^"\n]*")
    |(?P<op>->|==|[;,()\[\]{}+\-*/^])
    |(?P<bad>\S)
    )
    """,
    re.X,
)
"""One token after any white space; the named group that matched is its kind."""


class Lexer:
    """Tokens of lines read one at a time, with the current line and position open to the
    parser: it may take a whole simple statement off :attr:`text` at once and go on with
    :meth:`token` from the position it sets (:attr:`pos`).

    Given the whole text as one string, the lexer cuts each line off it as it comes to it,
    and keeps the text open as :attr:`whole` (with :attr:`line_start`, where :attr:`text`
    begins in it): the simple-statement reader then reads on across lines in one string and
    moves the lexer to where it stopped (:meth:`seek`)."""

    def __init__(self, lines: str | Iterable[str], source: str | None = None) -> None:
        self.source = source
        self.whole: str | None = None
        self._lines: Iterator[tuple[int, str]] = iter(())
        if isinstance(lines, str):
            self.whole = lines
        else:
            numbered = enumerate(lines, 1)
            # only a file read as text can fail to decode, and say so at its line
            is_sequence = isinstance(lines, (list, tuple))
            self._lines = numbered if is_sequence else _decoded(numbered, source)
        self.line_no, self.text, self.pos = 0, "", 0
        self.line_start = 0  # with the whole text: the offset of ``text`` in it
        self._given_back: list[tuple[int, str]] = []  # lines to read again, the next last

    def next_line(self) -> bool:
        """Move to the start of the next line; ``False`` (staying put) at the end."""
        whole = self.whole
        if whole is not None:
            start = self.line_start + len(self.text)
            if start >= len(whole):
                self.pos = len(self.text)
                return False
            end = whole.find("\n", start) + 1 or len(whole)
            self.line_no += 1
            self.line_start, self.text, self.pos = start, whole[start:end], 0
            return True
        if self._given_back:
            line: tuple[int, str] | None = self._given_back.pop()
        else:
            line = next(self._lines, None)
        if line is None:
            self.pos = len(self.text)
            return False
        (self.line_no, self.text), self.pos = line, 0
        return True

    def seek(self, offset: int) -> None:
        """With the whole text: move to ``offset`` in it, at or after the current line."""
        whole = self.whole
        assert whole is not None and offset >= self.line_start
        self.line_no += whole.count("\n", self.line_start, offset)
        start = whole.rfind("\n", 0, offset) + 1
        end = whole.find("\n", offset) + 1 or len(whole)
        self.line_start, self.text, self.pos = start, whole[start:end], offset - start

    def rewind(self, line: tuple[int, str], pos: int, read_since: list[tuple[int, str]]) -> None:
        """Line by line: go back to ``pos`` on ``line`` (a line number and its text), to read
        the lines ``read_since`` (numbered, in order) again after it."""
        assert self.whole is None
        self._given_back.extend(reversed(read_since))
        (self.line_no, self.text), self.pos = line, pos

    def token(self) -> Token:
        """The next token from :attr:`pos` on, or an ``eof`` token at the end of the input;
        raises ``QasmError`` at a character it cannot read."""
        while True:
            m = _TOKEN.match(self.text, self.pos)
            if m is None:  # only white space left on this line
                if not self.next_line():
                    return self._eof()
                continue
            self.pos = m.end()
            kind = m.lastgroup
            assert kind is not None  # every alternative is a named group
            if kind == "comment":
                continue
            start = m.start(kind)
            if kind == "open":  # a block comment that goes on past this line
                self._skip_comment(start)
                continue
            if kind == "bad":
                ch = m.group(kind)
                what = "unterminated string" if ch == '"' else f"unexpected character {ch!r}"
                raise QasmError(what, self.line_no, start + 1, self.source)
            return Token(kind, m.group(kind), self.line_no, start + 1)  # type: ignore[arg-type]

    def _eof(self) -> Token:
        if self.text.endswith("\n"):
            return Token("eof", "", self.line_no + 1, 1)
        return Token("eof", "", max(self.line_no, 1), len(self.text) + 1)

    def _skip_comment(self, start: int) -> None:
        """Read on from the ``/*`` at ``start`` of the current line to its ``*/``."""
        first = (self.line_no, start + 1)
        end = self.text.find("*/", start + 2)
        while end < 0:
            if not self.next_line():
                raise QasmError("unterminated block comment", *first, self.source)
            end = self.text.find("*/")
        self.pos = end + 2


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
