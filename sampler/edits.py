"""Variants of a base stage: edits that change one or more ludemes, drawn with probability
2^-(bits of the edit), so small changes are common and large ones rare.

An edit is coded like a stage (gdl/bits.py): the number of changes m ≥ 1 (Elias gamma: one change
half the time), then for each change its kind, drawn by its family's weights (FAMILIES: kind k
with probability w_k / Σ w, lg(Σ w / w_k) bits; uniform in the family "all"), then its
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
| information     | made dark (`hidden opponent-pieces`, then what a refusal does), or made perfect | 1 or 0 |
| refusal         | `refused retry` ↔ `refused lose-turn` (a dark stage)       | 0                    |
| announcement    | `announce turn-count` added or removed (a dark stage)      | 0                    |
| reveal          | a reveal (adjacent, capture, reachable) added or removed (a dark stage) | lg 3   |
| dice            | a step or slide rule made an advance (which: lg R), dice thrown for it; or other dice | lg R + 2 + lg 19 |
| random start    | the set-up pieces dealt anew each game among their cells   | 0                    |
| random blocked  | how many k cells blocked anew each game among those that start empty | γ(k)       |

The arena family restricts the kinds to the Othello AI Arena's private stages and weighs them:
board size, blocked cells, over-blocked captures, turn order (alternate and fewer-pieces only) and
result (most-pieces and fewest-pieces only) 3 each, setup pieces 1 (of 16). The dark family adds
the four changes of information, 3 each (of 28), and keeps only variants that hide information: a
dark base's variants keep its information lines unless a change alters them. The chance family adds
the three changes of chance (dice, random start, random blocked) to the arena's, 3 each (of 25), and
keeps only variants that draw something from each game's seed.

The smallest edit. Many edits give one variant: a change that moves nothing (a setup piece "moved"
to the cell it stands on) or two that undo each other cost bits and give nothing, and a piece
moved twice costs more than moving it once. A variant's probability is the sum over the edits that
give it, and the term that sums are dominated by is its smallest edit's; so a variant records the
bits of the smallest edit found that gives the same game (`smallest`: the edit drawn, its
sub-edits, and the direct edits built from the net difference), and K counts those. An edit's
word (`Edited.word`: the values drawn, change by change) is read back by `replay`, which checks
each value against what the model could draw there and costs it as drawing it would.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from collections.abc import Callable

from ..gdl import ast as A
from ..gdl import bits as B
from ..gdl import check
from ..gdl.printer import text
from ..gdl.english import Difference, differences, setup_cells
from ..gdl.diagnostics import LudicaError
from . import symmetry
from .prior import Draw, Limits, OutOfLimits, weighted_bits


class NotApplicable(LudicaError):
    """The change drawn has nothing to change in this stage: the draw is rejected whole."""


@dataclass(frozen=True)
class Change:
    """One kind of change: its name, and how to draw it: (coder, stage, family) → the changed stage
    (what changed is said by `describe`, from the net difference to the base)."""

    name: str
    draw: Callable[[B.Coder, A.Stage, str], A.Stage]


def _board_size(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    b = s.board
    board: A.BoardKind
    if isinstance(b, A.RectBoard):
        board = A.RectBoard(c.side(None), c.side(None), b.wrap)
    elif isinstance(b, (A.SquareBoard, A.HexBoard)):
        board = type(b)(c.side(None), b.wrap)
    else:
        raise TypeError(f"no size change for a board {b.keyword}: the edit model does not know its sides")
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


def _board_shape(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
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


def _blocked_cells(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
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


def _unblock(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    if not s.blocked:
        raise NotApplicable("no blocked cell")
    return replace(s, blocked=())


def _setup_pieces(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
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


CUSTODIAL = (A.FlipCustodial, A.RemoveCustodial)


def _custodial(s: A.Stage) -> list[tuple[int, int]]:
    return [(i, j) for i, m in enumerate(s.moves) for j, e in enumerate(m.effects) if isinstance(e, CUSTODIAL)]


def _with_effect(s: A.Stage, where: tuple[int, int], effect) -> A.Stage:
    i, j = where
    rule = s.moves[i]
    effects = rule.effects[:j] + (effect,) + rule.effects[j + 1:]
    return replace(s, moves=s.moves[:i] + (replace(rule, effects=effects),) + s.moves[i + 1:])


def _pick(c: B.Coder, options: list, what: str):
    if not options:
        raise NotApplicable(f"no {what}")
    return options[c.choice(None, range(len(options)))]


def _over_blocked(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    where = _pick(c, _custodial(s), "custodial capture")
    e = s.moves[where[0]].effects[where[1]]
    return _with_effect(s, where, replace(e, over_blocked=not e.over_blocked))


def _capture_kind(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    where = _pick(c, _custodial(s), "custodial capture")
    e = s.moves[where[0]].effects[where[1]]
    kind = A.RemoveCustodial if isinstance(e, A.FlipCustodial) else A.FlipCustodial
    return _with_effect(s, where, kind(e.directions, e.over_blocked))


def _capture_rays(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    options = [(i, j) for i, m in enumerate(s.moves) for j, e in enumerate(m.effects) if hasattr(e, "directions")]
    where = _pick(c, options, "capture with directions")
    e = s.moves[where[0]].effects[where[1]]
    directions = B.code_node(c, A.Directions)
    if directions == e.directions:
        raise NotApplicable("the same directions")
    return _with_effect(s, where, replace(e, directions=directions))


ARENA_TURNS = (A.Alternate, A.FewerPieces)
ARENA_RESULTS = (A.MostPieces, A.FewestPieces)


def _turn_order(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    kinds = ARENA_TURNS if family == "arena" else A.TURN_ORDERS
    others = tuple(k for k in kinds if k is not type(s.turn))
    if type(s.turn) not in kinds:
        raise NotApplicable("a turn order outside the family")
    return replace(s, turn=c.choice(None, others)())


def _pass_rule(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    return replace(s, pass_rule=A.PassForced() if s.pass_rule is None else None)


def _result(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    kinds = ARENA_RESULTS if family == "arena" else A.RESULTS
    options = [i for i, e in enumerate(s.ends) if type(e.result) in kinds]
    i = _pick(c, options, "end with a result to change")
    end = s.ends[i]
    new = A.End(end.condition, c.choice(None, tuple(k for k in kinds if k is not type(end.result)))())
    return replace(s, ends=s.ends[:i] + (new,) + s.ends[i + 1:])


def _move_cap(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    end = A.End(A.AfterPlies(c.integer(None, "plies")), c.choice(None, A.RESULTS)())
    return replace(s, ends=s.ends + (end,))


def _line_length(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    i = _pick(c, [i for i, e in enumerate(s.ends) if isinstance(e.condition, A.Line)], "line end")
    end = s.ends[i]
    length = end.condition.length + (1 if c.choice(None, B.FLAGS) else -1)
    if length < 1:
        raise NotApplicable("a line shorter than one")
    new = A.End(replace(end.condition, length=length), end.result)
    return replace(s, ends=s.ends[:i] + (new,) + s.ends[i + 1:])


def _information(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    """The stage made dark (`hidden opponent-pieces`, then what a refusal does: 1 bit), or a dark
    stage made its base again (its information lines gone)."""
    if s.hidden is not None:
        return s.without_information()
    if s.roll is not None:
        raise NotApplicable("dice on a stage with hidden information are not played yet")
    return replace(s, hidden=A.OpponentPieces(), refused=c.choice(None, REFUSALS)())


def _refusal(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    if s.refused is None:
        raise NotApplicable("no hidden information: nothing is refused")
    return replace(s, refused=(A.LoseTurn if isinstance(s.refused, A.Retry) else A.Retry)())


def _announcement(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    if s.hidden is None:
        raise NotApplicable("no hidden information: every move is seen")
    return replace(s, announce=() if s.announce else (A.TurnCount(),))


def _reveal(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    """One reveal (adjacent, capture, reachable: lg 3 bits) added to a dark stage, or taken away."""
    if s.hidden is None:
        raise NotApplicable("no hidden information: every cell is seen")
    kind = c.choice(None, A.REVEALS)
    kept = tuple(r for r in s.reveal if not isinstance(r, kind))
    return replace(s, reveal=kept if len(kept) < len(s.reveal) else (*s.reveal, kind()))


def _dice(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    """Dice: a stage without makes one of its step or slide rules an advance (same directions and
    target) and throws dice for it (how many, 1 to 4: 2 bits; their faces, 2 to 20: lg 19 bits); a
    stage with dice throws others."""
    if s.hidden is not None:
        raise NotApplicable("dice on a stage with hidden information are not played yet")
    if s.roll is None:
        rules = [i for i, m in enumerate(s.moves) if isinstance(m.kind, (A.Step, A.Slide))]
        i = _pick(c, rules, "step or slide rule to make an advance")
        kind = s.moves[i].kind
        made = replace(s.moves[i], kind=A.Advance(kind.directions, kind.target))
        s = replace(s, moves=s.moves[:i] + (made,) + s.moves[i + 1:])
    roll = A.Roll(c.choice(None, B.DICE), c.choice(None, B.FACES))
    if roll == s.roll:
        raise NotApplicable("the same dice")
    return replace(s, roll=roll)


def _random_start(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    """The start dealt at random (0 bits): every set-up piece taken off, and as many of each player's
    dealt anew, each game, among the cells they stood on (the first player's first)."""
    if s.random_setup or not s.setup:
        raise NotApplicable("no fixed setup to deal" if not s.setup else "the start is dealt already")
    cells = sorted({(cell.row, cell.col) for x in s.setup for cell in A.expand(x.cells)})
    counts = {p: len(setup_cells(s, p)) for p in s.players.names}
    dealt = tuple(A.RandomSetup(p, counts[p], tuple(A.Cell(*cell) for cell in cells))
                  for p in s.players.names if counts[p])
    return replace(s, setup=(), random_setup=dealt)


def _random_blocked(c: B.Coder, s: A.Stage, family: str) -> A.Stage:
    """Cells blocked at random, anew each game: how many k (gamma), among every cell that starts empty
    (the whole board listed: `blocked random k in a1..h8`)."""
    if s.random_blocked:
        raise NotApplicable("cells are blocked at random already")
    k = c.integer(None, "cells changed")
    # the whole board listed: a draw takes only cells still empty (gdl/interpreter/chance.py)
    whole = A.CellRange(A.Cell(0, 0), A.Cell(s.board.rows - 1, s.board.cols - 1))
    return replace(s, random_blocked=(A.RandomBlocked(k, (whole,)),))


REFUSALS = (A.Retry, A.LoseTurn)
CHANGES = {c.name: c for c in (
    Change("board size", _board_size), Change("board shape", _board_shape), Change("blocked cells", _blocked_cells), Change("unblock", _unblock),
    Change("setup pieces", _setup_pieces), Change("over-blocked", _over_blocked),
    Change("capture kind", _capture_kind), Change("capture rays", _capture_rays),
    Change("turn order", _turn_order), Change("pass rule", _pass_rule), Change("result", _result),
    Change("move cap", _move_cap), Change("line length", _line_length),
    Change("information", _information), Change("refusal", _refusal), Change("announcement", _announcement),
    Change("reveal", _reveal), Change("dice", _dice), Change("random start", _random_start), Change("random blocked", _random_blocked),
)}
# Each family's kinds of change and their weights: a change is of kind k with probability
# w_k / Σ w (lg(Σ w / w_k) bits). "all" draws its kinds uniformly. In the arena family, moving
# setup pieces weighs a third of each other kind: with the six equal, one disc of the standard board
# moved to any cell (256 games, each about as likely as one cell blocked, nearly all playable) made
# 25 of the 90 variants of seeds 1 to 3; 9 with these weights.
# The dark family is the arena family's changes with those of information, each as likely as a
# change of the arena's: its variants must hide information (a draw that leaves a stage perfect is
# rejected whole, keeping the accepted draws' probabilities ∝ 2^-bits).
ARENA = {"board size": 3, "blocked cells": 3, "over-blocked": 3, "turn order": 3, "result": 3, "setup pieces": 1}
FAMILIES: dict[str, dict[str, int]] = {
    "all": dict.fromkeys(CHANGES, 1),
    "arena": ARENA,
    "dark": {**ARENA, "information": 3, "refusal": 3, "announcement": 3, "reveal": 3},
    "chance": {**ARENA, "dice": 3, "random start": 3, "random blocked": 3},
}
HIDDEN_FAMILIES = ("dark",)  # families whose variants hide information
CHANCE_FAMILIES = ("chance",)  # families whose variants draw something from each game's seed
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
    word: tuple = ()  # the values drawn, in order: the edit's code word (replay reads it back)


def _apply(coder: Draw | _Given, base: A.Stage, family: str, limits: Limits) -> A.Stage:
    """The edit model read through `coder` (drawn, recorded or replayed): the number of changes,
    then each change's kind and parameters. NotApplicable or OutOfLimits reject it whole."""
    kinds = FAMILIES[family]
    stage = base
    m = coder.integer(None, "changes")  # gamma, like a list's length
    for _ in range(m):
        stage = CHANGES[coder.weighted(None, tuple(kinds), tuple(kinds.values()))].draw(coder, stage, family)
    if stage == base or not differences(base, stage):  # e.g. a piece moved to the cell it was on
        raise NotApplicable("the changes undo each other")
    if family in HIDDEN_FAMILIES and stage.hidden is None:
        raise NotApplicable(f"the {family} family's variants hide information; this one does not")
    if family in CHANCE_FAMILIES and not stage.chance:
        raise NotApplicable(f"the {family} family's variants play with chance; this one does not")
    if stage.board.rows * stage.board.cols > limits.max_cells:
        raise OutOfLimits(f"board above {limits.max_cells} cells")
    return stage


def edit(base: A.Stage, rng: random.Random, family: str = "all", limits: Limits = VARIANT_LIMITS,
         name: str = "") -> Edited:
    """One variant of `base` drawn from the edit model (see the module docstring)."""
    coder = _Recording(rng, limits)
    try:
        stage = _apply(coder, base, family, limits)
    except NotApplicable as err:
        return Edited(None, None, "", f"not applicable: {err}")
    except OutOfLimits as err:
        return Edited(None, None, "", f"limit: {err.what}")
    stage = replace(stage, name=name or stage.name)
    said = describe(base, stage)
    word = tuple(coder.word)
    errors = [d for d in check(stage) if d.is_error]
    if errors:
        return Edited(stage, coder.bits, said, f"invalid: {errors[0].code}", word)
    return Edited(stage, coder.bits, said, None, word)


def describe(base: A.Stage, stage: A.Stage) -> str:
    """What differs between two stages, in one line, statement by statement (the net effect of an
    edit: two changes that undo each other are not mentioned). The differences are gdl/english's,
    which says them in plain English too; this line is what manifests hold, so it keeps its words."""
    return "; ".join(_terse(d) for d in differences(base, stage))


def _terse(d: Difference) -> str:
    """One difference as a manifest writes it: `blocked -b1 +c3`, `board square 8 → board square 10`,
    `move place empty added`."""
    if d.statement in ("blocked", "setup"):
        what = "blocked" if d.statement == "blocked" else f"setup {d.player}"
        return what + "".join(f" -{A.cell_name(*c)}" for c in d.gone) + "".join(f" +{A.cell_name(*c)}" for c in d.added)

    def said(node) -> str:  # a move rule by its kind alone: its effects are differences of their own
        return f"move {text(node.kind)}" if isinstance(node, A.MoveRule) else text(node)

    if d.old is None:
        return f"{said(d.new)} added"
    if d.new is None:
        return f"{said(d.old)} removed"
    return f"{said(d.old)} → {said(d.new)}"


# --- the edit's code word: recorded when drawn, replayed to measure others ----------------------


class _Recording(Draw):
    """Draws as Draw does and keeps every value drawn: the edit's word (m, (kind, values...), ...)."""

    def __init__(self, rng: random.Random, limits: Limits):
        super().__init__(rng, limits)
        self.word: list = []

    def _keep(self, value):
        if self.word and isinstance(self.word[-1], list):
            self.word[-1].append(value)
        else:
            self.word.append(value)  # the number of changes: the word's first value
        return value

    def choice(self, value, alternatives):
        return self._keep(super().choice(value, alternatives))

    def weighted(self, value, alternatives, weights):
        kind = super().weighted(value, alternatives, weights)
        self.word.append([kind])  # a change begins with its kind
        return kind

    def integer(self, value, field):
        return self._keep(super().integer(value, field))

    def side(self, value):
        return self._keep(super().side(value))

    def cell(self, value, rows, cols):
        return self._keep(super().cell(value, rows, cols))


class NotAnEdit(LudicaError, ValueError):
    """A word the edit model does not draw here (a value out of place, past a limit, or left over)."""


class _Given(B.Coder):
    """Reads given values as the edit model's fields, checks each against what the model could
    draw there, and sums the bits that drawing it would cost (Draw's formulas)."""

    def __init__(self, values: list, limits: Limits):
        self._values, self._next, self.limits = values, 0, limits
        self.bits = 0.0

    def _take(self):
        if self._next >= len(self._values):
            raise NotAnEdit("the word ends in the middle of a change")
        self._next += 1
        return self._values[self._next - 1]

    def _among(self, alternatives):
        v = self._take()
        for a in alternatives:  # the type too: True is not the index 1
            if type(a) is type(v) and a == v:
                return a
        raise NotAnEdit(f"{v!r} is not one of {tuple(alternatives)!r}")

    def choice(self, value, alternatives):
        v = self._among(alternatives)
        self.bits += B.choice_bits(v, alternatives)
        return v

    def weighted(self, value, alternatives, weights):
        v = self._among(alternatives)
        self.bits += weighted_bits(v, alternatives, weights)
        return v

    def integer(self, value, field):
        n = self._take()
        cap = self.limits.maximum(field)
        if cap is not None and field in B.COUNTS_FROM_ZERO:
            cap += 1
        if type(n) is not int or n < 1 or (cap is not None and n > cap):
            raise NotAnEdit(f"{field}: {n!r} is not drawn within the limits")
        self.bits += B.gamma_bits(n)
        return n

    def side(self, value):
        n = self._take()
        if type(n) is not int or not self.limits.min_side <= n <= self.limits.max_side:
            raise NotAnEdit(f"a side of {n!r} is not drawn within the limits")
        self.bits += B.side_bits(n)
        return n

    def cell(self, value, rows, cols):
        c = self._take()
        if not isinstance(c, A.Cell) or not (0 <= c.row < rows and 0 <= c.col < cols):
            raise NotAnEdit(f"{c!r} is not a cell of the {rows}x{cols} board")
        self.bits += math.log2(rows * cols)
        return c

    def done(self) -> None:
        if self._next != len(self._values):
            raise NotAnEdit("the word runs on after its last change")


def _flat(word: tuple) -> list:
    m, *changes = word
    return [m] + [v for change in changes for v in change]


def replay(base: A.Stage, word: tuple, family: str = "all", limits: Limits = VARIANT_LIMITS) -> tuple[A.Stage, float]:
    """The variant an edit's word gives and the edit's bits (what drawing that word costs);
    NotAnEdit if the model would not draw it (a change that does not apply, a limit broken)."""
    coder = _Given(_flat(word), limits)
    try:
        stage = _apply(coder, base, family, limits)
    except (NotApplicable, OutOfLimits) as err:
        raise NotAnEdit(str(err)) from None
    coder.done()
    return stage, coder.bits


def smallest(base: A.Stage, stage: A.Stage, word: tuple, family: str = "all",
             limits: Limits = VARIANT_LIMITS) -> tuple[float, tuple]:
    """The bits and word of the smallest edit found that gives `stage` (the same game: the same
    canonical key) from `base`, starting from `word`, the edit drawn: the least of that word, each
    of its sub-edits (its changes in order, some left out: a change that moved nothing, or two
    that undo each other, cost bits and gave nothing), and the direct edits built from the net
    difference (each aspect changed once, in its cheapest form: a blocked change of whole mirror
    images when the cells added are, one piece moved once). A variant's probability is the sum over
    every edit that gives it; this is the largest term, found among these candidates."""
    target = symmetry.canonical_key(stage)
    _, bits = replay(base, word, family, limits)
    best = (bits, word)
    m, *changes = word
    subsets = (tuple(c for i, c in enumerate(changes) if keep >> i & 1) for keep in range(1, (1 << m) - 1))
    for word_ in [(len(sub), *sub) for sub in subsets] + _direct(base, stage, family):
        try:
            other, bits = replay(base, word_, family, limits)
        except NotAnEdit:
            continue
        # the bits first: a key costs a millisecond, and most candidates cost more than the best
        if bits < best[0] - 1e-9 and symmetry.canonical_key(other) == target:
            best = (bits, word_)
    return best


def _direct(base: A.Stage, stage: A.Stage, family: str) -> list[tuple]:
    """Words of edits that change each aspect in which `stage` differs from `base` once, in the
    order board size, blocked cells, setup pieces, effects, turn order, pass rule, results; [] if
    it differs in an aspect these do not reach (a board shape, unblocked cells, a new end...)."""
    changes: list[tuple] = []
    s = base
    if stage.board != base.board:
        was, now = base.board, stage.board
        if type(was) is not type(now) or was.wrap != now.wrap:
            return []
        change = ("board size", now.rows, now.cols) if isinstance(now, A.RectBoard) else ("board size", now.rows)
        try:
            s = _board_size(_Given(list(change[1:]), Limits(min_side=1, max_side=B.SIDE_MAX)), s, family)
        except NotApplicable:
            return []
        changes.append(change)
    if not s.blocked_cells <= stage.blocked_cells:
        return []
    added = stage.blocked_cells - s.blocked_cells
    blocked = _blocked_options(s, added) if added else [[]]
    s = replace(s, blocked=stage.blocked)
    if stage.random_setup != s.random_setup:  # the start dealt: its pieces where the base set them up
        if s.random_setup or stage.setup:
            return []
        try:
            dealt = _random_start(_Given([], VARIANT_LIMITS), s, family)
        except NotApplicable:
            return []
        if dealt.random_setup != stage.random_setup:
            return []
        s = dealt
        changes.append(("random start",))
    # setup: each piece that is not where the variant has one moves there (a player's pieces pair up in order)
    pieces = [(x.player, (c.row, c.col)) for x in s.setup for c in A.expand(x.cells)]
    moves = []
    for p in stage.players.names:
        gone, new = sorted(setup_cells(s, p) - setup_cells(stage, p)), sorted(setup_cells(stage, p) - setup_cells(s, p))
        if len(gone) != len(new):
            return []
        moves += [(pieces.index((p, g)), A.Cell(*n)) for g, n in zip(gone, new)]
    if moves:
        changes.append(("setup pieces", len(moves), *(v for move in moves for v in move)))
    chance = _direct_chance(s, stage)
    if chance is None:
        return []
    s, chance_changes = chance
    # effects: over-blocked flags, capture kinds, rays; the rules themselves must be the same
    if len(s.moves) != len(stage.moves) or any(a.kind != b.kind or len(a.effects) != len(b.effects)
                                                 for a, b in zip(s.moves, stage.moves)):
        return []
    custodial = _custodial(s)
    rays = [(i, j) for i, m in enumerate(s.moves) for j, e in enumerate(m.effects) if hasattr(e, "directions")]
    for i, (a, b) in enumerate(zip(s.moves, stage.moves)):
        for j, (e, f) in enumerate(zip(a.effects, b.effects)):
            if e == f:
                continue
            custodial_pair = isinstance(e, CUSTODIAL) and isinstance(f, CUSTODIAL)
            if not custodial_pair and type(e) is not type(f):
                return []
            if type(e) is not type(f):
                changes.append(("capture kind", custodial.index((i, j))))
            if isinstance(e, CUSTODIAL) and isinstance(f, CUSTODIAL) and e.over_blocked != f.over_blocked:
                changes.append(("over-blocked", custodial.index((i, j))))
            # e and f have directions both or neither here (one kind, or both custodial)
            directions = getattr(f, "directions", None)
            if isinstance(directions, A.Directions) and getattr(e, "directions", None) != directions:
                changes.append(("capture rays", rays.index((i, j)), len(directions.words), *directions.words))
            others = {k: v for k, v in vars(f).items() if k not in ("directions", "over_blocked", "span")}
            if others != {k: v for k, v in vars(e).items() if k not in ("directions", "over_blocked", "span")}:
                return []
    if type(stage.turn) is not type(s.turn):
        changes.append(("turn order", type(stage.turn)))
    if (stage.pass_rule is None) != (s.pass_rule is None):
        changes.append(("pass rule",))
    if len(stage.ends) != len(s.ends):
        return []
    kinds = ARENA_RESULTS if family == "arena" else A.RESULTS
    options = [i for i, e in enumerate(s.ends) if type(e.result) in kinds]
    for i, (end_was, end_now) in enumerate(zip(s.ends, stage.ends)):
        if end_was.condition != end_now.condition:
            return []
        if type(end_was.result) is not type(end_now.result):
            if i not in options:
                return []
            changes.append(("result", options.index(i), type(end_now.result)))
    if stage.hidden is None and s.hidden is not None:
        changes.append(("information",))
    elif stage.hidden is not None and s.hidden is None:
        changes.append(("information", type(stage.refused)))
    elif stage.hidden is not None and type(stage.refused) is not type(s.refused):
        changes.append(("refusal",))
    if stage.hidden is not None and bool(stage.announce) != bool(s.announce if s.hidden is not None else ()):
        changes.append(("announcement",))
    if stage.hidden is not None:  # each reveal kind the variant has and the base has not, or the reverse
        had = {type(r) for r in (s.reveal if s.hidden is not None else ())}
        shown = {type(r) for r in stage.reveal}
        changes += [("reveal", kind) for kind in A.REVEALS if (kind in had) != (kind in shown)]
    changes += chance_changes
    words = []
    for option in blocked:
        # board size first: the cells of the changes after it are the new board's
        every = changes[:1] + option + changes[1:] if changes and changes[0][0] == "board size" else option + changes
        if every:
            words.append((len(every), *every))
    return words


def _direct_chance(s: A.Stage, stage: A.Stage) -> tuple[A.Stage, list[tuple]] | None:
    """(`s` with `stage`'s dice and random blocked cells, the words of the changes that make them) or
    None if no dice or random-blocked change makes them (a dice change: the one step or slide rule
    it made an advance, then the dice)."""
    changes: list[tuple] = []
    if stage.roll != s.roll:
        if stage.roll is None:
            return None
        change: tuple = ("dice",)
        if s.roll is None:
            kinds = [(i, m.kind) for i, m in enumerate(s.moves) if isinstance(m.kind, (A.Step, A.Slide))]
            rules = [i for i, _ in kinds]
            made = [i for i, kind in kinds
                    if i < len(stage.moves) and stage.moves[i].kind == A.Advance(kind.directions, kind.target)]
            if len(made) != 1:
                return None
            i = made[0]
            s = replace(s, moves=s.moves[:i] + (stage.moves[i],) + s.moves[i + 1:])
            change += (rules.index(i),)
        changes.append((*change, stage.roll.dice, stage.roll.faces))
        s = replace(s, roll=stage.roll)
    if stage.random_blocked != s.random_blocked:
        whole = (A.CellRange(A.Cell(0, 0), A.Cell(stage.board.rows - 1, stage.board.cols - 1)),)
        if s.random_blocked or len(stage.random_blocked) != 1 or stage.random_blocked[0].cells != whole:
            return None
        changes.append(("random blocked", stage.random_blocked[0].count))
        s = replace(s, random_blocked=stage.random_blocked)
    return s, changes


def _blocked_options(s: A.Stage, added: frozenset) -> list[list[tuple]]:
    """Ways to block exactly the cells `added` in one or two blocked-cells changes: each cell
    alone; whole mirror images (one cell each) when every cell added completes one with the cells
    blocked already; or those images and the other cells apart."""
    rows, cols = s.board.rows, s.board.cols
    allowed = added | s.blocked_cells
    orbits = {frozenset(_orbit(A.Cell(*c), rows, cols)) for c in added}
    whole = sorted(min(o) for o in orbits if o <= allowed)
    covered = frozenset().union(*(o for o in orbits if o <= allowed)) & added
    rest = sorted(added - covered)

    def change(cells, symmetric):
        return ("blocked cells", len(cells), symmetric, *(A.Cell(*c) for c in cells))

    options = [[change(sorted(added), False)]]
    if whole and not rest:
        options.append([change(whole, True)])
    elif whole:
        options.append([change(whole, True), change(rest, False)])
    return options


def edit_text(word: tuple) -> list:
    """An edit's word as plain data (for the manifest): its changes, each [kind, values...], cells
    by name and rule classes by their name."""
    def plain(v):
        if isinstance(v, A.Cell):
            return v.name
        if isinstance(v, type):
            return v.__name__
        return v
    return [[plain(v) for v in change] for change in word[1:]]
