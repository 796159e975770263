"""Static checks of a stage: what the grammar cannot see.

`check_stage(stage)` runs the checks of `CHECKS` in turn. Each is a small function with one
concern that yields diagnostics (errors and warnings, see gdl/messages.py), each pointing at the
smallest node it is about. A problem is reported once, where it is made, and checks avoid
reporting the consequences of a problem another check reports (an unknown player's pieces still
count as pieces; a board whose size is out of range gets no cell checks).

The checks work on any AST: one parsed from text, or one built in code without spans (then the
diagnostics have no span, but the same codes). `partial` names the statements that did not parse,
so that a check does not call a statement missing, or draw conclusions from its absence.
"""
from __future__ import annotations

import difflib
import re
from collections import Counter, deque
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Iterable, Iterator

from . import ast as A
from . import geometry
from .diagnostics import Diagnostic, diagnostic
from .parser import STATEMENT_KEYWORDS
from .printer import text as _printed

__all__ = ["check_stage", "CHECKS"]

Check = Callable[["_Context"], Iterable[Diagnostic]]
CHECKS: list[Check] = []  # run in this order; each one concern


def _check(fn: Check) -> Check:
    CHECKS.append(fn)
    return fn


def check_stage(stage: A.Stage, partial: frozenset[str] = frozenset()) -> list[Diagnostic]:
    """Every problem the static checks find in a stage (errors and warnings), in check order.

    `partial`: keywords of the statements that failed to parse (their errors are already
    reported), so that e.g. a stage whose only `move` line is misspelt is not also told it has
    no `move`.
    """
    ctx = _Context(stage, frozenset(partial))
    out: list[Diagnostic] = []
    for check in CHECKS:
        out.extend(check(ctx))
    return out


# --- board geometry (just what the checks need) ---------------------------------------------------

RELATIVE_WORDS = geometry.RELATIVE_WORDS


@dataclass(frozen=True)
class _Geometry:
    """The board as the checks see it; only built for a board of a valid size."""

    kind: str  # "square", "rect" or "hex"
    rows: int
    cols: int
    wrap: bool

    @staticmethod
    def of(board: object) -> _Geometry | None:
        if not isinstance(board, A.BOARD_KINDS):
            return None
        rows, cols = board.rows, board.cols
        if not all(isinstance(n, int) and 1 <= n <= A.MAX_BOARD_SIDE for n in (rows, cols)):
            return None
        return _Geometry(board.keyword, rows, cols, bool(board.wrap))

    @property
    def is_hex(self) -> bool:
        return self.kind == "hex"

    @property
    def dims(self) -> str:
        return f"{self.rows}x{self.cols}"

    @property
    def last(self) -> str:
        return A.cell_name(self.rows - 1, self.cols - 1)

    @property
    def steps(self) -> dict[str, tuple[int, int]]:
        return geometry.steps(self.is_hex)

    @property
    def words(self) -> tuple[str, ...]:
        """The direction words that mean something on this board."""
        return geometry.words(self.is_hex)

    def contains(self, row: object, col: object) -> bool:
        return isinstance(row, int) and isinstance(col, int) and 0 <= row < self.rows and 0 <= col < self.cols

    def cells(self) -> Iterator[tuple[int, int]]:
        return ((r, c) for r in range(self.rows) for c in range(self.cols))

    def is_empty_word(self, word: str) -> bool:
        """Whether a direction word names no direction at all on this board, for any heading."""
        return self.is_hex and word in ("diagonal", "forward-diagonal")

    def resolve(self, words: Iterable[str], heading: str | None) -> frozenset[str] | None:
        """The compass directions a list of words names for a player with `heading`; None if a
        word is unknown here or needs a heading the player lacks."""
        try:
            return frozenset(geometry.resolve(words, self.is_hex, heading))
        except geometry.DirectionError:
            return None

    def _step(self, r: int, c: int, dr: int, dc: int) -> tuple[int, int] | None:
        r, c = r + dr, c + dc
        if self.wrap:
            return r % self.rows, c % self.cols
        return (r, c) if self.contains(r, c) else None

    @cached_property
    def max_distance(self) -> int:
        """The largest king-step distance between two cells (see `jump N` in docs/language.md)."""
        if not self.wrap:
            if self.is_hex:  # axial coordinates: the far corner is (rows-1) + (cols-1) steps away
                return (self.rows - 1) + (self.cols - 1)
            return max(self.rows, self.cols) - 1
        # A torus looks the same from every cell: one breadth-first search tells every distance.
        dist = {(0, 0): 0}
        queue = deque([(0, 0)])
        while queue:
            r, c = queue.popleft()
            for dr, dc in self.steps.values():
                nxt = self._step(r, c, dr, dc)
                if nxt not in dist:
                    dist[nxt] = dist[(r, c)] + 1
                    queue.append(nxt)
        return max(dist.values())

    def longest_line(self, blocked: frozenset[tuple[int, int]]) -> int:
        """The most playable cells in a row along one line of the board (blocked cells break a
        row; on a wrapped board a line is a cycle)."""
        best = 0
        for dr, dc in (self.steps[axis] for axis in geometry.axes(self.is_hex)):
            seen: set[tuple[int, int]] = set()
            starts = [rc for rc in self.cells() if self._step(*rc, -dr, -dc) is None]
            cyclic = not starts
            if cyclic:
                starts = list(self.cells())
            for start in starts:
                if start in seen:
                    continue
                line = [start]
                nxt = self._step(*start, dr, dc)
                while nxt is not None and nxt != start:
                    line.append(nxt)
                    nxt = self._step(*nxt, dr, dc)
                seen.update(line)
                playable = [rc not in blocked for rc in line]
                if cyclic and all(playable):
                    best = max(best, len(line))
                    continue
                run = 0
                for ok in (playable + playable) if cyclic else playable:  # a cycle: read it round once more
                    run = run + 1 if ok else 0
                    best = max(best, run)
        return best


# --- the context every check reads -------------------------------------------------------------------


class _Context:
    """The stage being checked and what several checks derive from it."""

    def __init__(self, stage: A.Stage, partial: frozenset[str]):
        self.stage = stage
        self.partial = partial
        self.players: tuple[str, ...] = tuple(stage.players.names)
        self.geometry = _Geometry.of(stage.board)

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


# --- small helpers ----------------------------------------------------------------------------------


def _span(*nodes: object) -> A.Span | None:
    """The span of the first node that has one (the smallest node first, then its parents)."""
    for node in nodes:
        span = getattr(node, "span", None)
        if span is not None:
            return span
    return None


def _where(span: A.Span | None, here: A.Span | None = None) -> str:
    """Where an earlier node is, for messages that say "(first ...)"."""
    if span is None:
        return "written earlier"
    if here is not None and here.line == span.line:
        return f"at column {span.column} of this line"
    return f"on line {span.line}"


def _name_span(h: A.Heading) -> A.Span | None:
    """The player's name at the start of a `forward` entry (`white down`)."""
    s = h.span
    if s is None or s.end_line != s.line:
        return s
    return A.Span(s.line, s.column, s.line, s.column + len(h.player))


def _word_spans(span: A.Span | None, words: list[str]) -> list[A.Span | None]:
    """The span of each word of a node written as words one space apart (`players black white`,
    `orthogonal diagonal`). The AST keeps no span per word, so the positions are worked out, and
    only when the node's width shows single spaces; otherwise each word gets the node's span."""
    if span is None or span.end_line != span.line or span.end_column - span.column != len(" ".join(words)):
        return [span] * len(words)
    out, column = [], span.column
    for word in words:
        out.append(A.Span(span.line, column, span.line, column + len(word)))
        column += len(word) + 1
    return out


def _setup_name_span(s: A.Setup) -> A.Span | None:
    """The player's name in `setup NAME CELLS`, when one space each side shows where it is."""
    first = _span(*s.cells[:1])
    if s.span is None or first is None or first.line != s.span.line:
        return s.span
    start = s.span.column + len("setup ")
    if first.column - start != len(s.player) + 1:
        return s.span
    return A.Span(s.span.line, start, s.span.line, start + len(s.player))


def _cell_name(row: object, col: object) -> str:
    if isinstance(row, int) and isinstance(col, int) and row >= 0 and 0 <= col < len(A.COLUMN_LETTERS):
        return A.cell_name(row, col)
    return f"({row}, {col})"


def _show(node: object, prefix: str = "") -> str:
    """A node as the stage would print it, without the default target `to empty` (for messages)."""
    try:
        return prefix + _printed(node).removesuffix(" to empty")
    except (TypeError, AttributeError, KeyError, IndexError, ValueError):
        return prefix + type(node).__name__


def _quoted_list(names: Iterable[str]) -> str:
    names = [repr(n) for n in names]
    if len(names) <= 1:
        return "".join(names) or "none"
    return ", ".join(names[:-1]) + " and " + names[-1]


def _did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    choices = list(choices)
    by_lower = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=0.6)
    return f"did you mean {by_lower[close[0]]!r}?" if close else None


def _items(items: tuple[A.CellItem, ...]) -> Iterator[tuple[A.CellItem, list[A.Cell]]]:
    """Each item of a cell list with the cells it names (a range: every cell of its rectangle)."""
    for item in items:
        if isinstance(item, A.CellRange):
            yield item, list(item.cells())
        else:
            yield item, [item]


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_CELL_LIKE = re.compile(r"[a-z][1-9][0-9]*")
_LANGUAGE_WORDS = frozenset(
    word
    for words in (
        STATEMENT_KEYWORDS, A.DIRECTION_WORDS, A.TARGETS, A.HEADINGS, A.SIDE_PAIRS,
        ("to", "wrap", "exact", "over-blocked", "plies", "far-row", "custodial", "capture"),
        *((cls.keyword,) for cls in A.CONCEPTS),
    )
    for phrase in words
    for word in phrase.split()
)


# --- the stage's name and its players ---------------------------------------------------------------


@_check
def _game_name(ctx: _Context) -> Iterator[Diagnostic]:
    """`game "NAME"` cannot hold a quote or a line break (only an AST built in code can)."""
    name = ctx.stage.name
    for bad, what in (('"', "a quote (\")"), ("\n", "a line break"), ("\r", "a line break")):
        if isinstance(name, str) and bad in name:
            yield diagnostic("check.game-name", ctx.start, "remove it from the name", name=name, what=what)
            return


@_check
def _player_count(ctx: _Context) -> Iterator[Diagnostic]:
    if len(ctx.players) != 2:
        yield diagnostic(
            "check.player-count", _span(ctx.stage.players),
            "the engine plays two-player games: name two players, e.g. `players black white`",
            count=len(ctx.players), names=_quoted_list(ctx.players),
        )


@_check
def _player_names(ctx: _Context) -> Iterator[Diagnostic]:
    spans = _word_spans(_span(ctx.stage.players), ["players", *map(str, ctx.players)])[1:]
    seen: set[str] = set()
    for name, span in zip(ctx.players, spans):
        if name in seen:  # reported at the second mention; the name itself was judged at the first
            yield diagnostic("check.player-duplicate", span,
                             "give each player its own name, e.g. `players black white`", name=name)
            continue
        seen.add(name)
        if not (isinstance(name, str) and _NAME.fullmatch(name)):
            yield diagnostic("check.player-name-invalid", span,
                             "a name is a letter followed by letters, digits or '_', e.g. `black`", name=name)
        elif name in _LANGUAGE_WORDS or _CELL_LIKE.fullmatch(name):
            looks_like = "is also a keyword" if name in _LANGUAGE_WORDS else "looks like a cell"
            yield diagnostic("check.player-name-keyword", span, "choose another name, like `black` or `white`",
                             name=name, looks_like=looks_like)


# --- the board and its cells -----------------------------------------------------------------------


@_check
def _board_size(ctx: _Context) -> Iterator[Diagnostic]:
    board = ctx.stage.board
    if not isinstance(board, A.BOARD_KINDS) or ctx.geometry is not None:
        return
    sides = (board.rows,) if board.rows == board.cols else (board.rows, board.cols)
    size = "x".join(str(n) for n in sides)
    too_big = any(isinstance(n, int) and n > A.MAX_BOARD_SIDE for n in sides)
    hint = ("a column is one letter (a..z), so a board has at most 26 columns, and at most 26 rows" if too_big
            else "a board has at least one row and one column")
    yield diagnostic("check.board-size", _span(board), hint, size=size)


@_check
def _cells_on_board(ctx: _Context) -> Iterator[Diagnostic]:
    """Every cell of `blocked` and `setup` (a range: both corners) lies on the board."""
    g = ctx.geometry
    if g is None:
        return
    statements: list[tuple[A.CellItem, A.Setup | None]] = [(item, None) for item in ctx.stage.blocked]
    statements += [(item, s) for s in ctx.stage.setup for item in s.cells]
    for item, parent in statements:
        corners = (item.first, item.last) if isinstance(item, A.CellRange) else (item,)
        for cell in corners:
            if not g.contains(cell.row, cell.col):
                yield diagnostic(
                    "check.cell-off-board", _span(cell, item, parent),
                    f"cells are a column letter a..{A.COLUMN_LETTERS[g.cols - 1]} and a row number 1..{g.rows}",
                    cell=_cell_name(cell.row, cell.col), dims=g.dims, last=g.last,
                )


@_check
def _blocked_twice(ctx: _Context) -> Iterator[Diagnostic]:
    first: dict[tuple[int, int], A.Span | None] = {}
    for item, cells in _items(ctx.stage.blocked):
        again = [c for c in cells if (c.row, c.col) in first]
        if again:
            c = again[0]
            yield diagnostic(
                "check.blocked-twice", _span(item), "a cell is blocked once: remove the repetition",
                cell=_cell_name(c.row, c.col), first=_where(first[(c.row, c.col)], _span(item)),
            )
        for c in cells:
            first.setdefault((c.row, c.col), _span(item))


@_check
def _board_no_cell(ctx: _Context) -> Iterator[Diagnostic]:
    g = ctx.geometry
    if g is not None and len(ctx.blocked) == g.rows * g.cols:
        yield diagnostic("check.board-no-cell", _span(ctx.stage.board), "unblock at least one cell",
                         count=g.rows * g.cols, dims=g.dims)


# --- the initial position ----------------------------------------------------------------------------


@_check
def _setup_players(ctx: _Context) -> Iterator[Diagnostic]:
    for s in ctx.stage.setup:
        if s.player in ctx.players:
            continue
        hint = _did_you_mean(s.player, ctx.players)
        if hint is None and _CELL_LIKE.fullmatch(str(s.player)) and ctx.players:
            hint = f"`setup` names the player first, then the cells: `setup {ctx.players[0]} {s.player} ...`"
        yield diagnostic("check.setup-unknown-player", _setup_name_span(s), hint,
                         name=s.player, players=_quoted_list(ctx.players))


@_check
def _setup_cells(ctx: _Context) -> Iterator[Diagnostic]:
    """No piece on a blocked cell, no cell set up twice (one diagnostic per cell item)."""
    g = ctx.geometry
    first: dict[tuple[int, int], tuple[str, A.Span | None]] = {}
    for s in ctx.stage.setup:
        for item, cells in _items(s.cells):
            here = _span(item, s)
            cells = [c for c in cells if g is None or g.contains(c.row, c.col)]  # others: off the board
            on_blocked = [c for c in cells if (c.row, c.col) in ctx.blocked]
            if on_blocked:
                c = on_blocked[0]
                yield diagnostic("check.setup-blocked", here,
                                 f"blocked cells never hold a piece: remove {c.name} from `setup` or from `blocked`",
                                 cell=_cell_name(c.row, c.col), player=s.player)
            again = [c for c in cells if (c.row, c.col) in first]
            if again:
                c = again[0]
                player, span = first[(c.row, c.col)]
                yield diagnostic("check.setup-twice", here, "a cell holds one piece: remove one of the two",
                                 cell=_cell_name(c.row, c.col), first_player=player, first=_where(span, here))
            for c in cells:
                first.setdefault((c.row, c.col), (s.player, here))


# --- forward headings ---------------------------------------------------------------------------------


@_check
def _forward_players(ctx: _Context) -> Iterator[Diagnostic]:
    first: dict[str, A.Span | None] = {}
    for h in ctx.stage.forward:
        here = _name_span(h)
        if h.player not in ctx.players:
            yield diagnostic("check.forward-unknown-player", here, _did_you_mean(h.player, ctx.players),
                             name=h.player, players=_quoted_list(ctx.players))
        elif h.player in first:
            yield diagnostic("check.forward-twice", here, "a player has one heading: remove one of the two",
                             name=h.player, first=_where(first[h.player], here))
        else:
            first[h.player] = here
        if h.heading not in A.HEADINGS:
            yield diagnostic("check.invalid-value", _span(h), None,
                             what="heading", value=h.heading, choices=", ".join(A.HEADINGS))


def _suggest_headings(ctx: _Context) -> dict[str, str]:
    """A heading for every player: the given ones, else away from the player's setup (pieces at
    the top go down), else opposite to the other player's, else down for the first player."""
    out = dict(ctx.headings)
    rows = ctx.geometry.rows if ctx.geometry else 0
    for p in ctx.players:
        cells = ctx.set_up.get(p)
        if p not in out and cells and rows:
            mean = sum(r for r, _ in cells) / len(cells)
            if mean != (rows - 1) / 2:
                out[p] = "down" if mean < (rows - 1) / 2 else "up"
    opposite = {"up": "down", "down": "up", "left": "right", "right": "left"}
    for i, p in enumerate(ctx.players):
        if p not in out:
            others = [out[q] for q in ctx.players if q != p and q in out]
            out[p] = opposite.get(others[0], "up") if others else ("down" if i == 0 else "up")
    return out


@_check
def _forward_missing(ctx: _Context) -> Iterator[Diagnostic]:
    """Forward-relative directions and `reach far-row` need every player's heading."""
    if "forward" in ctx.partial:
        return
    uses: list[tuple[str, A.Span | None]] = []
    for d, node in ctx.directions():
        for word, span in zip(d.words, _word_spans(_span(d, node), list(d.words))):
            if word in RELATIVE_WORDS:
                uses.append((f"direction `{word}`", span))
                break
    for end in ctx.stage.ends:
        if isinstance(end.condition, A.ReachFarRow):
            uses.append(("`reach far-row`", _span(end.condition, end)))
    missing = [p for p in ctx.players if p not in ctx.headings]
    if not uses or not missing or any(h.player not in ctx.players for h in ctx.stage.forward):
        return  # (a heading for an unknown player is likely the missing one, misspelt: reported as such)
    spanned = [u for u in uses if u[1] is not None]
    what, span = min(spanned, key=lambda u: (u[1].line, u[1].column)) if spanned else uses[0]
    headings = _suggest_headings(ctx)
    statement = "forward " + ", ".join(f"{p} {headings[p]}" for p in dict.fromkeys(ctx.players))
    hint = (f"complete the `forward` statement: `{statement}`" if ctx.stage.forward
            else f"add the line `{statement}` (headings are up, down, left and right)")
    yield diagnostic("check.forward-missing", span, hint, what=what, who=_quoted_list(missing),
                     has="has" if len(missing) == 1 else "have")


# --- directions and other closed sets of words ----------------------------------------------------


@_check
def _direction_lists(ctx: _Context) -> Iterator[Diagnostic]:
    g = ctx.geometry
    if g is None:
        return
    kind = g.kind
    for d, node in ctx.directions():
        span = _span(d, node)
        words = tuple(d.words)
        at: dict[str, list[A.Span | None]] = {}  # each word's span(s), in order
        for w, w_span in zip(words, _word_spans(span, list(words))):
            at.setdefault(w, []).append(w_span)
        shown = f"`{' '.join(words)}`" if words else "an empty direction list"
        unknown = [w for w in dict.fromkeys(words) if w not in g.words]
        for w in unknown:
            hint = _did_you_mean(w, g.words) if w not in geometry.SQUARE_STEPS else None
            if g.is_hex and w in geometry.SQUARE_STEPS:
                hint = "hex boards have six directions: n ne e s sw w"
            yield diagnostic("check.direction-unknown", at[w][0], hint, word=w, kind=kind, names=" ".join(g.steps))
        if unknown:
            continue
        if all(g.is_empty_word(w) for w in words):
            hint = ("hex boards have no diagonals: all six directions (n ne e s sw w) are orthogonal" if words
                    else "name at least one direction, e.g. `all`")
            yield diagnostic("check.direction-none", span, hint, words=shown, kind=kind)
        else:
            for w in dict.fromkeys(w for w in words if g.is_empty_word(w)):
                yield diagnostic("check.direction-empty-word", at[w][0],
                                 "hex boards have no diagonals: all six directions are orthogonal",
                                 word=w, kind=kind, words=" ".join(words))
        for w, n in Counter(words).items():
            if n > 1:
                yield diagnostic("check.direction-duplicate", at[w][1],
                                 "a list of directions is their union: name each once",
                                 word=w, words=" ".join(words))


@_check
def _closed_words(ctx: _Context) -> Iterator[Diagnostic]:
    """Move targets and `connect` sides come from closed sets (only ASTs built in code can err)."""
    for rule in ctx.stage.moves:
        target = getattr(rule.kind, "target", "empty")
        if target not in A.TARGETS:
            yield diagnostic("check.invalid-value", _span(rule.kind, rule), None,
                             what="target", value=target, choices=", ".join(A.TARGETS))
    for end in ctx.stage.ends:
        c = end.condition
        if isinstance(c, A.Connect):
            sides = tuple(c.sides)
            if len(sides) != 2:
                yield diagnostic("check.invalid-value", _span(c, end), "`connect` takes one pair per player",
                                 what="`connect` sides", value=" ".join(sides),
                                 choices="two pairs, each top-bottom or left-right")
            for side in dict.fromkeys(sides):
                if side not in A.SIDE_PAIRS:
                    yield diagnostic("check.invalid-value", _span(c, end), None,
                                     what="side pair", value=side, choices=", ".join(A.SIDE_PAIRS))


# --- moves -----------------------------------------------------------------------------------------

_PIECE_MOVES = (A.Step, A.Slide, A.Jump, A.Clone)
_TAKING_EFFECTS = (A.FlipCustodial, A.RemoveCustodial, A.ConvertAdjacent)


@_check
def _missing_moves(ctx: _Context) -> Iterator[Diagnostic]:
    if not ctx.stage.moves and "move" not in ctx.partial:
        yield diagnostic("stage.missing-statement", ctx.start, keyword="move",
                         why="a stage needs at least one way of moving, e.g. `move place empty`")


MAX_RULES = 64  # move rules, and ends: each is tried at every position, so a game's cost grows with them


@_check
def _too_many_rules(ctx: _Context) -> Iterator[Diagnostic]:
    for what, rules in (("move rules", ctx.stage.moves), ("ends", ctx.stage.ends)):
        if len(rules) > MAX_RULES:
            first = rules[MAX_RULES]
            yield diagnostic("check.too-many-rules", _span(getattr(first, "kind", first), first),
                             "a rule written twice adds nothing: the first that allows a move plays it",
                             what=what, count=len(rules), limit=MAX_RULES)


@_check
def _moves_without_pieces(ctx: _Context) -> Iterator[Diagnostic]:
    """Piece moves (and `place adjacent`) need a piece of the mover: from `setup`, or placed by
    `place empty` or `place gravity`."""
    if {"move", "setup"} & ctx.partial:
        return  # the missing line may be the one that provides pieces
    if any(cells for cells in ctx.set_up.values()):
        return
    if any(isinstance(rule.kind, (A.PlaceEmpty, A.PlaceGravity)) for rule in ctx.stage.moves):
        return
    first = ctx.players[0] if ctx.players else "black"
    for rule in ctx.stage.moves:
        if isinstance(rule.kind, (*_PIECE_MOVES, A.PlaceAdjacent)):
            yield diagnostic("check.move-never-applies", _span(rule.kind, rule),
                             f"set up pieces, e.g. `setup {first} a1`, "
                             "or add a rule that places them, like `move place empty`",
                             move=_show(rule.kind, "move "))


@_check
def _distances(ctx: _Context) -> Iterator[Diagnostic]:
    g = ctx.geometry
    for rule in ctx.stage.moves:
        kind = rule.kind
        if not isinstance(kind, (A.Jump, A.Clone)) or not isinstance(kind.distance, int):
            continue
        move, span = _show(kind, "move "), _span(kind, rule)
        if kind.distance < 1:
            yield diagnostic("check.distance-zero", span,
                             "distance counts king steps between two cells: 1 is a neighbouring cell", move=move)
        elif g is not None and kind.distance > g.max_distance:
            yield diagnostic("check.distance-too-far", span,
                             f"on this board the distance is 1 to {g.max_distance}",
                             move=move, dims=g.dims, distance=kind.distance, most=g.max_distance)


@_check
def _require_capture(ctx: _Context) -> Iterator[Diagnostic]:
    """`require capture` counts what the move took before it: landing on an enemy and the
    effects written above it."""
    for rule in ctx.stage.moves:
        target = getattr(rule.kind, "target", "empty")
        if target not in A.TARGETS:
            continue  # reported by _closed_words
        taken = isinstance(rule.kind, _PIECE_MOVES) and target in ("enemy", "any")
        first: A.RequireCapture | None = None
        for i, effect in enumerate(rule.effects):
            if isinstance(effect, _TAKING_EFFECTS):
                taken = True
            if not isinstance(effect, A.RequireCapture):
                continue
            span = _span(effect, rule)
            if first is not None:
                yield diagnostic("check.require-capture-twice", span, "remove this one",
                                 first=_where(_span(first), span))
                continue
            first = effect
            later = [e for e in rule.effects[i + 1:] if isinstance(e, _TAKING_EFFECTS)]
            if not taken:
                hint = (f"it only counts the effects written before it: move it below `{_show(later[0])}`" if later
                        else "a move takes pieces by landing on an enemy (`to enemy` or `to any`), or with "
                             "`flip custodial`, `remove custodial` or `convert adjacent` written before it")
                yield diagnostic("check.require-capture-never", span, hint)
            elif later:
                yield diagnostic("check.require-capture-early", span,
                                 f"it only counts the effects written before it: move it below `{_show(later[0])}` "
                                 "if that should count too", effect=_show(later[0]))


def _target_covers(a: str, b: str) -> bool:
    return a == b or (a == "any" and b in ("empty", "enemy"))


def _directions_cover(ctx: _Context, a: A.Directions, b: A.Directions) -> bool:
    if set(b.words) <= set(a.words):
        return True
    g = ctx.geometry
    if g is None or not ctx.players:
        return False
    for p in ctx.players:
        ra, rb = g.resolve(a.words, ctx.headings.get(p)), g.resolve(b.words, ctx.headings.get(p))
        if ra is None or rb is None or not rb <= ra:
            return False
    return True


def _covers(ctx: _Context, a: object, b: object) -> bool:
    """Whether move kind `a` gives every (origin, destination) that `b` gives, with the same
    effect on the board (so with the same effects, an earlier `a` leaves nothing to `b`)."""
    if isinstance(b, A.PLACEMENTS):
        return type(a) is type(b) or isinstance(a, A.PlaceEmpty)
    if isinstance(b, (A.Step, A.Slide)):  # a slide that stops on the first cell is a step
        same_way = isinstance(a, A.Slide) or (isinstance(a, A.Step) and isinstance(b, A.Step))
        return (same_way and _target_covers(a.target, b.target)
                and _directions_cover(ctx, a.directions, b.directions))
    if isinstance(b, (A.Jump, A.Clone)):
        return type(a) is type(b) and a.distance == b.distance and _target_covers(a.target, b.target)
    return False


@_check
def _shadowed_moves(ctx: _Context) -> Iterator[Diagnostic]:
    """When two rules give the same move, the first one written applies: a rule whose every
    move an earlier rule (with the same effects) also gives never applies. Not said of a stage
    with too many rules: that error says it once (and this check is quadratic in the rules)."""
    rules = ctx.stage.moves
    if len(rules) > MAX_RULES:
        return
    for j, rule in enumerate(rules):
        for earlier in rules[:j]:
            if earlier.effects == rule.effects and _covers(ctx, earlier.kind, rule.kind):
                span = _span(rule.kind, rule)
                yield diagnostic(
                    "check.move-shadowed", span,
                    "when two rules give the same move, the first one written applies: remove this rule",
                    move=_show(rule.kind, "move "), first=_show(earlier.kind, "move "),
                    where=_where(_span(earlier.kind, earlier), span).removeprefix("on "),
                )
                break


# --- ends ------------------------------------------------------------------------------------------


@_check
def _missing_ends(ctx: _Context) -> Iterator[Diagnostic]:
    if not ctx.stage.ends and "end" not in ctx.partial:
        yield diagnostic("stage.missing-statement", ctx.start, keyword="end",
                         why="a stage needs at least one way to end, e.g. `end no-moves: most-pieces`")


@_check
def _line_lengths(ctx: _Context) -> Iterator[Diagnostic]:
    g = ctx.geometry
    for end in ctx.stage.ends:
        c = end.condition
        if not isinstance(c, A.Line) or not isinstance(c.length, int):
            continue
        span = _span(c, end)
        if c.length < 1:
            yield diagnostic("check.line-too-short", span, "the length of a line is at least 1",
                             condition=_show(c))
        elif g is not None:
            longest = g.longest_line(ctx.blocked)
            if c.length > longest:
                yield diagnostic("check.line-too-long", span, f"on this board the length is 1 to {longest}",
                                 condition=_show(c), dims=g.dims, longest=longest)


@_check
def _after_plies(ctx: _Context) -> Iterator[Diagnostic]:
    for end in ctx.stage.ends:
        c = end.condition
        if isinstance(c, A.AfterPlies) and isinstance(c.plies, int) and c.plies < 1:
            yield diagnostic("check.after-zero", _span(c, end),
                             "count at least 1 ply: `after 1 plies` ends the game after the first move",
                             condition=_show(c))


@_check
def _ends_at_start(ctx: _Context) -> Iterator[Diagnostic]:
    """`no-pieces` and `board-full` that already hold on the initial position end every game
    before it starts."""
    if "setup" in ctx.partial:
        return
    g = ctx.geometry
    for end in ctx.stage.ends:
        c = end.condition
        if isinstance(c, A.NoPieces) and ctx.players and not ctx.set_up.get(ctx.players[0]):
            first = ctx.players[0]
            yield diagnostic("check.no-pieces-at-start", _span(c, end),
                             f"set up pieces for {first!r} (`setup {first} ...`), or end on another condition",
                             player=first)
        if isinstance(c, A.BoardFull) and g is not None:
            playable = {rc for rc in g.cells() if rc not in ctx.blocked}
            taken = {rc for cells in ctx.set_up.values() for rc in cells}
            if playable and playable <= taken:
                yield diagnostic("check.board-full-at-start", _span(c, end),
                                 "leave at least one cell empty in the initial position")


@_check
def _connect_sides(ctx: _Context) -> Iterator[Diagnostic]:
    for end in ctx.stage.ends:
        c = end.condition
        if isinstance(c, A.Connect) and len(c.sides) == 2 and c.sides[0] == c.sides[1]:
            yield diagnostic("check.connect-same-sides", _span(c, end),
                             "in Hex each player joins its own pair of sides: `connect top-bottom left-right`",
                             sides=c.sides[0])


def _implies(a: object, b: object) -> bool:
    """Whether condition `b` holding means that `a` holds too (so an earlier `a` fires first)."""
    if a == b:
        return True
    if isinstance(a, A.Line) and isinstance(b, A.Line) and not a.exact:
        return isinstance(a.length, int) and isinstance(b.length, int) and b.length >= a.length
    if isinstance(a, A.AfterPlies) and isinstance(b, A.AfterPlies):
        return isinstance(a.plies, int) and isinstance(b.plies, int) and b.plies >= a.plies
    return False


@_check
def _unreachable_ends(ctx: _Context) -> Iterator[Diagnostic]:
    ends = ctx.stage.ends
    for j, end in enumerate(ends):
        for earlier in ends[:j]:
            if _implies(earlier.condition, end.condition):
                span = _span(end.condition, end)
                same = earlier.condition == end.condition
                hint = ("ends are tested in order and the first that holds ends the game: remove this one" if same
                        else f"`{_show(earlier.condition)}` holds whenever `{_show(end.condition)}` does; "
                             "to test this one first, write it first")
                yield diagnostic("check.end-unreachable", span, hint,
                                 first=_where(_span(earlier.condition, earlier), span))
                break
