"""Variants of a base stage: edits that change one or more ludemes, drawn with probability
2^-(bits of the edit), so small changes are common and large ones rare.

An edit is coded like a stage (gdl/bits.py): the number of changes m ≥ 1 (Elias gamma: one change
half the time), then for each change its kind, uniform among the family's kinds, then its
parameters, each a uniform choice or a gamma integer. Drawing every field at random draws an edit
with probability 2^-(its bits). A change that does not apply to the stage (turning over-blocked
captures on where there is no capture) or that breaks a limit or a static check rejects the whole
draw, which keeps the accepted variants' probabilities ∝ 2^-(bits of the edit).

Kinds of change (FAMILIES names the kinds each family draws from):

| change          | parameters                                                 | bits                 |
|-----------------|------------------------------------------------------------|----------------------|
| board size      | the new side(s) (renormalised gamma); cells kept centred   | side code            |
| board shape     | another kind of board (a rectangle: its new columns)       | 1 (+ side code)      |
| blocked cells   | how many k, symmetric or not, then k cells                 | γ(k) + 1 + k lg N    |
| unblock         | every blocked cell becomes playable                        | 0                    |
| setup pieces    | how many k, then each: which piece, to which cell          | γ(k) + k lg(P·N)     |
| over-blocked    | which custodial effect turns its over-blocked flag over    | lg E                 |
| capture kind    | which custodial effect turns from flip to remove or back   | lg E                 |
| capture rays    | which effect, then new directions (the language's code)    | lg E + DIRS          |
| turn order      | another of the three orders                                | 1                    |
| pass rule       | `pass forced` added or removed                             | 0                    |
| result          | which end, then another of the five results                | lg ends + 2          |
| move cap        | an `after N plies` end (N gamma), its result               | γ(N) + lg 5          |
| line length     | which line end, then one longer or one shorter             | lg lines + 1         |

The arena family restricts the kinds to the Othello AI Arena's private stages: board size, blocked
cells, over-blocked captures, turn order (alternate and fewer-pieces only), result (most-pieces and
fewest-pieces only) and setup pieces.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Callable

from ..gdl import ast as A
from ..gdl import bits as B
from ..gdl import check
from ..gdl.printer import text
from .prior import Draw, Limits, OutOfLimits


class NotApplicable(Exception):
    """The change drawn has nothing to change in this stage: the draw is rejected whole."""


@dataclass(frozen=True)
class Change:
    """One kind of change: its name, and how to draw it: (coder, stage, family) → the changed stage
    (what changed is said by `describe`, from the net difference to the base)."""

    name: str
    draw: Callable


def _board_size(c: Draw, s: A.Stage, family: str) -> A.Stage:
    b = s.board
    if isinstance(b, A.RectBoard):
        board = A.RectBoard(c.side(None), c.side(None), b.wrap)
    else:
        board = type(b)(c.side(None), b.wrap)
    if (board.rows, board.cols) == (b.rows, b.cols):
        raise NotApplicable("the same size")
    # half the growth, rounded toward zero: one row more then one row less is the same board
    dr, dc = int((board.rows - b.rows) / 2), int((board.cols - b.cols) / 2)

    def moved(items) -> tuple:
        out = []
        for cell in A.expand(items):
            r, col = cell.row + dr, cell.col + dc
            if 0 <= r < board.rows and 0 <= col < board.cols:
                out.append(A.Cell(r, col))
        return tuple(out)

    setup = tuple(A.Setup(x.player, moved(x.cells)) for x in s.setup)
    if any(not x.cells for x in setup):
        raise NotApplicable("a player's setup falls off the board")
    return replace(s, board=board, blocked=moved(s.blocked), setup=setup)


def _board_shape(c: Draw, s: A.Stage, family: str) -> A.Stage:
    b = s.board
    kind = c.choice(None, tuple(k for k in A.BOARD_KINDS if k is not type(b)))
    if kind is A.RectBoard:
        board = A.RectBoard(b.rows, c.side(None), b.wrap)  # a square's or rhombus's rows, new columns
        if board.cols < b.cols and any(cell.col >= board.cols for cell in A.expand(s.blocked + sum((x.cells for x in s.setup), ()))):
            raise NotApplicable("cells fall off the narrower board")
    elif b.rows != b.cols:
        raise NotApplicable("a rectangle that is not square has no square or hex form")
    else:
        board = kind(b.rows, b.wrap)
    return replace(s, board=board)


def _orbit(cell: A.Cell, rows: int, cols: int) -> set[tuple[int, int]]:
    """The cell and its images under the rectangle's four symmetries (the square's, when it is one,
    also under the diagonal reflections)."""
    r, c = cell.row, cell.col
    out = {(r, c), (rows - 1 - r, c), (r, cols - 1 - c), (rows - 1 - r, cols - 1 - c)}
    if rows == cols:
        out |= {(c2, r2) for r2, c2 in list(out)}
    return out


def _blocked_cells(c: Draw, s: A.Stage, family: str) -> A.Stage:
    rows, cols = s.board.rows, s.board.cols
    k = c.integer(None, "cells changed")
    symmetric = c.choice(None, B.FLAGS)
    cells: set[tuple[int, int]] = set()
    for _ in range(k):
        cell = c.cell(None, rows, cols)
        cells |= _orbit(cell, rows, cols) if symmetric else {(cell.row, cell.col)}
    new = sorted(cells - s.blocked_cells)
    if not new:
        raise NotApplicable("every cell drawn is blocked already")
    return replace(s, blocked=tuple(A.expand(s.blocked)) + tuple(A.Cell(r, col) for r, col in new))


def _unblock(c: Draw, s: A.Stage, family: str) -> A.Stage:
    if not s.blocked:
        raise NotApplicable("no blocked cell")
    return replace(s, blocked=())


def _setup_pieces(c: Draw, s: A.Stage, family: str) -> A.Stage:
    rows, cols = s.board.rows, s.board.cols
    pieces = [(x.player, cell) for x in s.setup for cell in A.expand(x.cells)]
    if not pieces:
        raise NotApplicable("no setup")
    k = c.integer(None, "pieces moved")
    for _ in range(k):
        i = c.choice(None, range(len(pieces)))
        pieces[i] = (pieces[i][0], c.cell(None, rows, cols))
    setup = tuple(A.Setup(p, tuple(cell for q, cell in pieces if q == p)) for p in s.players.names)
    setup = tuple(x for x in setup if x.cells)
    return replace(s, setup=setup)


def _custodial(s: A.Stage) -> list[tuple[int, int]]:
    return [(i, j) for i, m in enumerate(s.moves) for j, e in enumerate(m.effects)
            if isinstance(e, (A.FlipCustodial, A.RemoveCustodial))]


def _with_effect(s: A.Stage, where: tuple[int, int], effect) -> A.Stage:
    i, j = where
    rule = s.moves[i]
    effects = rule.effects[:j] + (effect,) + rule.effects[j + 1:]
    return replace(s, moves=s.moves[:i] + (replace(rule, effects=effects),) + s.moves[i + 1:])


def _pick(c: Draw, options: list, what: str):
    if not options:
        raise NotApplicable(f"no {what}")
    return options[c.choice(None, range(len(options)))]


def _over_blocked(c: Draw, s: A.Stage, family: str) -> A.Stage:
    where = _pick(c, _custodial(s), "custodial capture")
    e = s.moves[where[0]].effects[where[1]]
    return _with_effect(s, where, replace(e, over_blocked=not e.over_blocked))


def _capture_kind(c: Draw, s: A.Stage, family: str) -> A.Stage:
    where = _pick(c, _custodial(s), "custodial capture")
    e = s.moves[where[0]].effects[where[1]]
    kind = A.RemoveCustodial if isinstance(e, A.FlipCustodial) else A.FlipCustodial
    return _with_effect(s, where, kind(e.directions, e.over_blocked))


def _capture_rays(c: Draw, s: A.Stage, family: str) -> A.Stage:
    options = [(i, j) for i, m in enumerate(s.moves) for j, e in enumerate(m.effects) if hasattr(e, "directions")]
    where = _pick(c, options, "capture with directions")
    e = s.moves[where[0]].effects[where[1]]
    directions = B.code_node(c, A.Directions)
    if directions == e.directions:
        raise NotApplicable("the same directions")
    return _with_effect(s, where, replace(e, directions=directions))


ARENA_TURNS = (A.Alternate, A.FewerPieces)
ARENA_RESULTS = (A.MostPieces, A.FewestPieces)


def _turn_order(c: Draw, s: A.Stage, family: str) -> A.Stage:
    kinds = ARENA_TURNS if family == "arena" else A.TURN_ORDERS
    others = tuple(k for k in kinds if k is not type(s.turn))
    if type(s.turn) not in kinds:
        raise NotApplicable("a turn order outside the family")
    return replace(s, turn=c.choice(None, others)())


def _pass_rule(c: Draw, s: A.Stage, family: str) -> A.Stage:
    return replace(s, pass_rule=A.PassForced() if s.pass_rule is None else None)


def _result(c: Draw, s: A.Stage, family: str) -> A.Stage:
    kinds = ARENA_RESULTS if family == "arena" else A.RESULTS
    options = [i for i, e in enumerate(s.ends) if type(e.result) in kinds]
    i = _pick(c, options, "end with a result to change")
    end = s.ends[i]
    new = A.End(end.condition, c.choice(None, tuple(k for k in kinds if k is not type(end.result)))())
    return replace(s, ends=s.ends[:i] + (new,) + s.ends[i + 1:])


def _move_cap(c: Draw, s: A.Stage, family: str) -> A.Stage:
    end = A.End(A.AfterPlies(c.integer(None, "plies")), c.choice(None, A.RESULTS)())
    return replace(s, ends=s.ends + (end,))


def _line_length(c: Draw, s: A.Stage, family: str) -> A.Stage:
    i = _pick(c, [i for i, e in enumerate(s.ends) if isinstance(e.condition, A.Line)], "line end")
    end = s.ends[i]
    length = end.condition.length + (1 if c.choice(None, B.FLAGS) else -1)
    if length < 1:
        raise NotApplicable("a line shorter than one")
    new = A.End(replace(end.condition, length=length), end.result)
    return replace(s, ends=s.ends[:i] + (new,) + s.ends[i + 1:])


CHANGES = {c.name: c for c in (
    Change("board size", _board_size), Change("board shape", _board_shape), Change("blocked cells", _blocked_cells), Change("unblock", _unblock),
    Change("setup pieces", _setup_pieces), Change("over-blocked", _over_blocked),
    Change("capture kind", _capture_kind), Change("capture rays", _capture_rays),
    Change("turn order", _turn_order), Change("pass rule", _pass_rule), Change("result", _result),
    Change("move cap", _move_cap), Change("line length", _line_length),
)}
FAMILIES: dict[str, tuple[str, ...]] = {
    "all": tuple(CHANGES),
    "arena": ("board size", "blocked cells", "over-blocked", "turn order", "result", "setup pieces"),
}
# Variants stay near their base: boards of 4 to 12 (the Arena's private stages are 6 to 10) when a change draws a
# side (a base's own board stays as it is), at most 144 cells, at most 4 changes, 16 cells or
# pieces per change, caps of 1024 plies.
VARIANT_LIMITS = Limits(min_side=4, max_side=12, max_cells=144, maxima={
    "changes": 4, "cells changed": 16, "pieces moved": 16, "plies": 1024, "direction words": 4})


@dataclass(frozen=True)
class Edited:
    """One draw of the edit model: the variant (None if rejected), the edit's bits, what changed
    in one line ("" when no variant came of it), and why it was rejected ("not applicable: ...",
    "limit: ...", "invalid: ...")."""

    stage: A.Stage | None
    bits: float | None
    changes: str
    rejected: str | None


def edit(base: A.Stage, rng: random.Random, family: str = "all", limits: Limits = VARIANT_LIMITS,
         name: str = "") -> Edited:
    """One variant of `base` drawn from the edit model (see the module docstring)."""
    kinds = FAMILIES[family]
    coder = Draw(rng, limits)
    stage = base
    try:
        m = coder.integer(None, "changes")  # gamma, like a list's length
        for _ in range(m):
            stage = CHANGES[coder.choice(None, kinds)].draw(coder, stage, family)
        if stage == base:
            raise NotApplicable("the changes undo each other")
        if stage.board.rows * stage.board.cols > limits.max_cells:
            raise OutOfLimits(f"board above {limits.max_cells} cells")
    except NotApplicable as err:
        return Edited(None, None, "", f"not applicable: {err}")
    except OutOfLimits as err:
        return Edited(None, None, "", f"limit: {err.what}")
    stage = replace(stage, name=name or stage.name)
    said = describe(base, stage)
    errors = [d for d in check(stage) if d.is_error]
    if errors:
        return Edited(stage, coder.bits, said, f"invalid: {errors[0].code}")
    return Edited(stage, coder.bits, said, None)


def describe(base: A.Stage, stage: A.Stage) -> str:
    """What differs between two stages, in one line, statement by statement (the net effect of an
    edit: two changes that undo each other are not mentioned)."""
    out = []
    if base.board != stage.board:
        out.append(f"{text(base.board)} → {text(stage.board)}")
    for what, old, new in (("blocked", base.blocked_cells, stage.blocked_cells),
                           *((f"setup {p}", _cells_of(base, p), _cells_of(stage, p)) for p in stage.players.names)):
        gone, added = sorted(old - new), sorted(new - old)
        if gone or added:
            out.append(what + "".join(f" -{A.cell_name(*c)}" for c in gone) + "".join(f" +{A.cell_name(*c)}" for c in added))
    for a, b in zip(base.moves, stage.moves):
        if a.kind != b.kind:
            out.append(f"move {text(a.kind)} → move {text(b.kind)}")
        out += _pairs([text(e) for e in a.effects], [text(e) for e in b.effects])
    out += _pairs([f"move {text(m.kind)}" for m in base.moves], [f"move {text(m.kind)}" for m in stage.moves],
                  start=min(len(base.moves), len(stage.moves)))
    if type(base.turn) is not type(stage.turn):
        out.append(f"{text(base.turn)} → {text(stage.turn)}")
    if (base.pass_rule is None) != (stage.pass_rule is None):
        out.append("pass forced " + ("added" if stage.pass_rule is not None else "removed"))
    out += _pairs([text(e) for e in base.ends], [text(e) for e in stage.ends])
    return "; ".join(out)


def _cells_of(s: A.Stage, player: str) -> frozenset[tuple[int, int]]:
    return frozenset((c.row, c.col) for x in s.setup if x.player == player for c in A.expand(x.cells))


def _pairs(old: list[str], new: list[str], start: int = 0) -> list[str]:
    """The lines that differ, position by position from `start`: "a → b", "b added", "a removed"."""
    out = []
    for i in range(start, max(len(old), len(new))):
        a, b = old[i] if i < len(old) else None, new[i] if i < len(new) else None
        if a != b:
            out.append(f"{b} added" if a is None else f"{a} removed" if b is None else f"{a} → {b}")
    return out
