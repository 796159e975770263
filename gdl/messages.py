"""The catalogue of diagnostics: every message a stage file can get, as data.

Each entry has a stable code, a severity and a text with named fields. tests/test_errors.py holds,
beside each code, a small bad stage that must yield it, so a message cannot silently drift or
disappear.
"""
from __future__ import annotations

from typing import NamedTuple


class Message(NamedTuple):
    severity: str  # "error" or "warning"
    text: str


MESSAGES: dict[str, Message] = {
    # --- syntax: one statement per line (gdl/parser.py) ---
    "syntax.unknown-statement": Message("error", "unknown statement {word!r}"),
    "syntax.unexpected-token": Message("error", "unexpected {found}; expected {expected}"),
    "syntax.unexpected-character": Message("error", "unexpected character {char!r}; expected {expected}"),
    "syntax.unexpected-end": Message("error", "the statement ends too early; expected {expected}"),
    "syntax.stray-indent": Message("error", "indented line under `{keyword}`: only the effects of a `move` are indented"),
    "syntax.indent-at-start": Message("error", "indented line with no statement above it"),
    "syntax.unclosed-string": Message("error", "unclosed string: a quoted name ends with '\"' on the same line"),
    # --- structure: statements a stage needs once (gdl/parser.py) ---
    "stage.missing-statement": Message("error", "no `{keyword}` statement: {why}"),
    "stage.duplicate-statement": Message("error", "a second `{keyword}` statement (the first is on line {first_line}); a stage has one"),
}
