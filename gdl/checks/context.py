"""What every static check reads: the stage's context and small helpers for messages and spans."""
from __future__ import annotations

import difflib
import re
from functools import cached_property
from collections.abc import Callable, Iterable, Iterator

from .. import ast as A
from ..diagnostics import Diagnostic
from ..geometry import DirectionError, Grid, resolve
from ..printer import text as _printed

Check = Callable[["Context"], Iterable[Diagnostic]]


def collector(checks: list[Check]) -> Callable[[Check], Check]:
    """A decorator that adds a check to a module's list, in the order they are written."""
    def check(fn: Check) -> Check:
        checks.append(fn)
        return fn

    return check


# --- the context every check reads -------------------------------------------------------------------


class Context:
    """The stage being checked and what several checks derive from it."""

    def __init__(self, stage: A.Stage, partial: frozenset[str]):
        self.stage = stage
        self.partial = partial
        self.players: tuple[str, ...] = tuple(stage.players.names)
        self.geometry = Grid.of(stage.board)

    @cached_property
    def blocked_cells(self) -> frozenset[int]:
        """The blocked cells that are on the board, as the grid's cell numbers."""
        g = self.geometry
        return frozenset(g.index(r, c) for r, c in self.blocked) if g else frozenset()

    @cached_property
    def blocked(self) -> frozenset[tuple[int, int]]:
        """The blocked cells that are on the board."""
        g = self.geometry
        return frozenset((c.row, c.col) for c in A.expand(self.stage.blocked) if g and g.contains(c.row, c.col))

    @cached_property
    def headings(self) -> dict[str, str]:
        """Each player's heading: the first one given to a known player."""
        out: dict[str, str] = {}
        for h in self.stage.forward:
            if h.player in self.players:
                out.setdefault(h.player, h.heading)
        return out

    @cached_property
    def set_up(self) -> dict[str, list[tuple[int, int]]]:
        """The cells set up for each name `setup` uses (known players or not)."""
        out: dict[str, list[tuple[int, int]]] = {}
        for s in self.stage.setup:
            out.setdefault(s.player, []).extend((c.row, c.col) for c in A.expand(s.cells))
        return out

    @cached_property
    def dealt(self) -> frozenset[str]:
        """The names `setup NAME random N` deals at least one piece to, at every start."""
        return frozenset(r.player for r in self.stage.random_setup if r.count >= 1)

    @property
    def start(self) -> A.Span | None:
        """Where to point at a problem of the whole file: its first character (if it has spans)."""
        return A.Span(1, 1, 1, 1) if self.stage.span is not None else None

    def directions(self) -> Iterator[tuple[A.Directions, object]]:
        """Every direction list of the stage, with the node it belongs to."""
        for rule in self.stage.moves:
            for node in (rule.kind, *rule.effects):
                d = getattr(node, "directions", None)
                if isinstance(d, A.Directions):
                    yield d, node


def compass(g: Grid, words: Iterable[str], heading: str | None) -> frozenset[str] | None:
    """The compass directions a list of words names for a player with `heading`; None if a word
    is unknown here or needs a heading the player lacks."""
    try:
        return frozenset(resolve(words, g.is_hex, heading))
    except DirectionError:
        return None


def span_of(*nodes: object) -> A.Span | None:
    """The span of the first node that has one (the smallest node first, then its parents)."""
    for node in nodes:
        span = getattr(node, "span", None)
        if span is not None:
            return span
    return None


def where(span: A.Span | None, here: A.Span | None = None) -> str:
    """Where an earlier node is, for messages that say "(first ...)"."""
    if span is None:
        return "written earlier"
    if here is not None and here.line == span.line:
        return f"at column {span.column} of this line"
    return f"on line {span.line}"


def name_span(h: A.Heading) -> A.Span | None:
    """The player's name at the start of a `forward` entry (`white down`)."""
    s = h.span
    if s is None or s.end_line != s.line:
        return s
    return A.Span(s.line, s.column, s.line, s.column + len(h.player))


def word_spans(span: A.Span | None, words: list[str]) -> list[A.Span | None]:
    """The span of each word of a node written as words one space apart (`players black white`,
    `orthogonal diagonal`). The AST keeps no span per word, so the positions are worked out, and
    only when the node's width shows single spaces; otherwise each word gets the node's span."""
    if span is None or span.end_line != span.line or span.end_column - span.column != len(" ".join(words)):
        return [span] * len(words)
    out: list[A.Span | None] = []
    column = span.column
    for word in words:
        out.append(A.Span(span.line, column, span.line, column + len(word)))
        column += len(word) + 1
    return out


def setup_name_span(s: A.Setup) -> A.Span | None:
    """The player's name in `setup NAME CELLS`, when one space each side shows where it is."""
    first = span_of(*s.cells[:1])
    if s.span is None or first is None or first.line != s.span.line:
        return s.span
    start = s.span.column + len("setup ")
    if first.column - start != len(s.player) + 1:
        return s.span
    return A.Span(s.span.line, start, s.span.line, start + len(s.player))


def cell_label(row: object, col: object) -> str:
    if isinstance(row, int) and isinstance(col, int) and row >= 0 and 0 <= col < len(A.COLUMN_LETTERS):
        return A.cell_name(row, col)
    return f"({row}, {col})"


def show(node: object, prefix: str = "") -> str:
    """A node as the stage would print it, without the default target `to empty` (for messages)."""
    try:
        return prefix + _printed(node).removesuffix(" to empty")
    except (TypeError, AttributeError, KeyError, IndexError, ValueError):
        return prefix + type(node).__name__


def quoted_list(names: Iterable[str]) -> str:
    names = [repr(n) for n in names]
    if len(names) <= 1:
        return "".join(names) or "none"
    return ", ".join(names[:-1]) + " and " + names[-1]


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    choices = list(choices)
    by_lower = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=0.6)
    return f"did you mean {by_lower[close[0]]!r}?" if close else None


def cell_items(items: tuple[A.CellItem, ...]) -> Iterator[tuple[A.CellItem, list[A.Cell]]]:
    """Each item of a cell list with the cells it names (a range: every cell of its rectangle)."""
    for item in items:
        if isinstance(item, A.CellRange):
            yield item, list(item.cells())
        else:
            yield item, [item]


NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
CELL_LIKE = re.compile(r"[a-z][1-9][0-9]*")
# Every word of the language: a player named like one would read as the keyword.
LANGUAGE_WORDS = frozenset(
    word
    for words in (
        A.STATEMENT_KEYWORDS, A.DIRECTION_WORDS, A.TARGETS, A.HEADINGS, A.SIDE_PAIRS,
        *((cls.keyword,) for cls in A.CONCEPTS),
        *(A.form_words(form) for cls in A.CONCEPTS for _, form in A.forms(cls)),
    )
    for phrase in words
    for word in phrase.split()
)
