"""Diagnostics: what is wrong in a stage file, where, and how to fix it.

A `Diagnostic` names a message of the catalogue (gdl/messages.py) by its code, fills in the
message's fields, and points at a span of the source. Rendered, it reads like a compiler's:

    stages/holes.gdl:2:11: error: unknown cell 'j9' (the board is 8x8: a1..h8)
    blocked b1 j9
               ^^
    hint: cells are a column letter a..h and a row number 1..8

`StageError` carries every diagnostic of a file (all errors at once, not only the first) and is
the stage author's fault; it subclasses ValueError.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable

from .ast import Span
from .messages import MESSAGES


@dataclass(frozen=True)
class Diagnostic:
    code: str
    span: Span | None
    fields: dict = field(default_factory=dict, compare=False)
    hint: str | None = None

    @property
    def severity(self) -> str:
        return MESSAGES[self.code].severity

    @property
    def message(self) -> str:
        return MESSAGES[self.code].text.format(**self.fields)

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def render(self, source: str | None = None, path: str | None = None) -> str:
        where = path or "<stage>"
        if self.span is not None:
            where += f":{self.span.line}:{self.span.column}"
        out = [f"{where}: {self.severity}: {self.message}"]
        if self.span is not None and source is not None:
            lines = source.splitlines()
            if 0 < self.span.line <= len(lines):
                text = lines[self.span.line - 1].rstrip()
                start = self.span.column - 1
                if self.span.end_line == self.span.line:
                    width = max(1, self.span.end_column - self.span.column)
                else:
                    width = max(1, len(text) - start)
                text, start, width = _excerpt(text, start, width)
                out.append(text)
                out.append(" " * start + "^" * width)
        if self.hint:
            out.append(f"hint: {self.hint}")
        return "\n".join(out)


EXCERPT = 100  # characters of a source line shown under a message: a longer line is cut around the span


def _excerpt(text: str, start: int, width: int) -> tuple[str, int, int]:
    """(the part of a line shown, where the span starts in it, how much of the span it shows)."""
    if len(text) <= EXCERPT:
        return text, start, width
    left = max(0, min(start - 20, len(text) - EXCERPT))
    before, after = "…" if left else "", "…" if left + EXCERPT < len(text) else ""
    start = start - left + len(before)
    return before + text[left:left + EXCERPT] + after, start, max(1, min(width, EXCERPT + len(before) - start))


def diagnostic(code: str, span: Span | None, hint: str | None = None, **fields) -> Diagnostic:
    if code not in MESSAGES:
        raise KeyError(f"internal error: no message {code!r} in the catalogue")
    return Diagnostic(code, span, fields, hint)


def render_all(diagnostics: Iterable[Diagnostic], source: str | None, path: str | None) -> str:
    return "\n".join(d.render(source, path) for d in sort(diagnostics))


def sort(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    def key(d: Diagnostic):
        return (d.span.line, d.span.column) if d.span else (0, 0)

    return sorted(diagnostics, key=key)


class LudicaError(Exception):
    """Base of ludica's errors."""


class IllegalMoveError(LudicaError, ValueError):
    """A move or action that is not legal in the position it was played in. The message names it and
    the position's legal moves; `move` (a Move or an action), `legal` (the legal moves) and `state`
    (a copy of the position) say the same as data. Across the rules oracle only the message
    travels; the oracle's client makes the error again from the move it was given and the position."""

    def __init__(self, message: str, move=None, legal: tuple | None = None, state=None):
        super().__init__(message)
        self.move, self.legal, self.state = move, legal, state


class StageError(LudicaError, ValueError):
    """A stage file (or AST) is wrong: the stage author's fault. Holds every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic], source: str | None = None, path: str | None = None):
        self.diagnostics = sort(diagnostics)
        self.source = source
        self.path = path
        super().__init__(render_all(self.diagnostics, source, path))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]


class StageFileError(LudicaError, ValueError):
    """A stage file that cannot be read as text: a folder, or bytes that are not UTF-8."""


class InternalError(LudicaError, RuntimeError):
    """A bug in ludica itself, not in a stage or an agent."""

    def __init__(self, what: str):
        super().__init__(f"internal error: {what}\nThis is a bug in ludica; please report it with the input that caused it.")
