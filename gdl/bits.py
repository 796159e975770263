"""Description length: the bits of a canonical prefix-free code of a stage's AST.

`description_length(stage)` is l(μ) of Schaul, Togelius & Schmidhuber ("Measuring Intelligence
through Games"): the length of a code word that names the stage's rules. Every field of the code
is a uniform choice among its alternatives (log2 n bits, fractional: think arithmetic coding) or
an integer in the Elias gamma code, so drawing every choice uniformly and every integer n with
probability 2^-γ(n) draws a stage with probability exactly 2^-description_length(stage): the prior
2^-l(μ). (K(μ) = l(μ) + log2 τ(μ) adds the cost of running the stage; that is the sampler's job.)

Notation: γ(n) = 2⌊log2 n⌋ + 1, the length of the Elias gamma code of n ≥ 1 (γ(1) = 1, γ(2) = γ(3)
= 3, γ(4..7) = 5, ...); a count that may be 0 is coded as γ(count + 1). lg = log2.
N = rows × cols, the number of cells of the board, blocked ones included.

The code, field by field, in the order a decoder reads it (the board comes first, so N is known
before any cell is read):

| statement     | what is chosen                                    | among    | bits               |
|---------------|---------------------------------------------------|----------|--------------------|
| `game "NAME"` | nothing: the name is a label                      |          | 0                  |
| `board`       | kind: square, rect, hex                           | 3        | lg 3               |
|               | side(s): square, hex: one; rect: rows, cols       | 1..26, γ | γ(n) + lg(491/512) |
|               | wrap                                              | 2        | 1                  |
| `blocked`     | number of cell items L ≥ 0 (0: no `blocked`)      | γ        | γ(L + 1)           |
|               | each item: a cell or a range                      | 2        | 1                  |
|               | its cells: 1 for a cell, 2 for a range            | N each   | lg N each          |
| `players A B` | nothing: labels (two distinct names)              |          | 0                  |
| `forward`     | has the first player a heading? the second?       | 2, 2     | 2                  |
|               | each heading given: up, down, left, right         | 4        | 2 each             |
|               | if both: is the first player's written first?     | 2        | 1                  |
| `setup`       | number of setup statements S ≥ 0                  | γ        | γ(S + 1)           |
|               | each: its player, the first or the second         | 2        | 1                  |
|               | then its cell items, L ≥ 1, as for `blocked`      | γ        | γ(L) + items       |
| `move`        | number of move rules M ≥ 1                        | γ        | γ(M)               |
|               | each: kind (place empty, place gravity, place     | 7        | lg 7               |
|               |   adjacent, step, slide, jump, clone)             |          |                    |
|               | step, slide: DIRS, then the target (empty,        | 3        | DIRS + lg 3        |
|               |   enemy, any)                                     |          |                    |
|               | jump, clone: distance n ≥ 1, then the target      | γ, 3     | γ(n) + lg 3        |
|               | then the number of effects E ≥ 0                  | γ        | γ(E + 1)           |
|               | each effect: kind (flip custodial, remove         | 4        | 2                  |
|               |   custodial, convert adjacent, require capture)   |          |                    |
|               | flip, remove: DIRS, then over-blocked or not      | 2        | DIRS + 1           |
|               | convert: DIRS                                     |          | DIRS               |
| DIRS          | number of words W ≥ 1, then each word (all,       | γ, 15    | γ(W) + W lg 15     |
|               |   orthogonal, diagonal, forward, ..., n, ..., nw) |          |                    |
| `turn`        | alternate (the default, chosen all the same),     | 3        | lg 3               |
|               |   fewer-pieces, again-after-capture               |          |                    |
| `pass`        | `pass forced` or not                              | 2        | 1                  |
| `end`         | number of ends K ≥ 1                              | γ        | γ(K)               |
|               | each: condition (no-moves, board-full, line,      | 7        | lg 7               |
|               |   reach far-row, connect, no-pieces, after)       |          |                    |
|               | line: the length k ≥ 1, then exact or not         | γ, 2     | γ(k) + 1           |
|               | connect: first player's sides, then second's      | 2, 2     | 2                  |
|               |   (top-bottom, left-right)                        |          |                    |
|               | after: the number of plies p ≥ 1                  | γ        | γ(p)               |
|               | then the result (mover wins, mover loses,         | 5        | lg 5               |
|               |   most-pieces, fewest-pieces, draw)               |          |                    |

Alternatives are numbered in the order of the tuples of gdl/ast.py (BOARD_KINDS, MOVE_KINDS,
EFFECT_KINDS, TURN_ORDERS, CONDITIONS, RESULTS, DIRECTION_WORDS, TARGETS, HEADINGS, SIDE_PAIRS);
a cell is numbered row × cols + col; false comes before true. A stage has one `game`, `board`,
`players`, `turn` and `pass` field each; lists (blocked items, forward, setups, moves, effects,
ends, words) are coded in the order of the AST.

Board sides. A board has 1 to 26 rows and columns (a column is one letter). A side n is coded by
Elias gamma restricted to 1..26 and renormalised: the gamma codes of 1..26 sum to 491/512
(1/2 + 1/4 + 1/8 + 1/16 + 11/512), so a side costs γ(n) + lg(491/512) ≈ γ(n) − 0.0603 bits, and
no probability is left on sides that cannot be written.

Prefix-free and complete. Each field is a complete prefix-free code (uniform choices; gamma codes,
whose Kraft sum over n ≥ 1 is exactly 1; the renormalised side code) whose alphabet depends only
on fields read before it (N on the board; the two players are fixed), so the whole code decodes
left to right and is prefix-free, and the Kraft sum of 2^-bits over all codable stages is exactly
1: every code word names a codable stage and every codable stage has exactly one code word.
(tests/test_bits.py checks the Kraft sums of finite sub-families exactly.)

Codable stages are the stages that print and parse back (`parse(format(s)) == s`, see
tests/strategies.py) and also: board sides in 1..26; exactly two distinct player names; every cell
on the board; every `setup` and `forward` player one of the two; at most one heading per player;
at least one move and at least one end; distances, line lengths and ply caps ≥ 1. Anything else
raises `NotCodable` (a ValueError); such stages are not valid stages (gdl/checks.py rejects every
one of them, which tests/test_bits.py checks), so the code wastes no probability on them.

Labels are not rules: the game name and the player names cost nothing, and two stages that differ
only in their labels have the same length. A sampler draws the rules from this code and the labels
separately (from any distribution over names: they do not change the game).

The distribution over valid stages. The code gives the prior P(s) = 2^-bits(s) over codable
stages; many of them break a static check or are unplayable. The distribution over valid stages is
this prior conditioned on validity: P(s | valid) = 2^-bits(s) / Z, with Z the probability that a
draw is valid, which is what drawing from the code and rejecting invalid draws samples exactly.

Some consequences worth knowing: a flag costs its bit either way (`pass forced`, `wrap`,
`over-blocked`, `exact`, and the choice of `turn`, default or not), so writing `pass forced` does
not lengthen a stage; every list item (a cell, a setup, a move, an effect, an end, a direction word,
a heading) does. `board square 8` and `board rect 8 8` are different code words for the same board.

`bits_breakdown(stage)` lists the cost statement by statement (the counts of the lists as their
own entries); its entries sum to `description_length(stage)`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from . import ast as A
from .printer import text

SIDE_MAX = A.MAX_BOARD_SIDE
# Σ_{n=1}^{26} 2^-γ(n) = 1/2 + 1/4 + 1/8 + 1/16 + 11/512 = 491/512: the gamma codes of the sides
# a board can have. Dividing by it makes the side code complete over 1..26.
SIDE_KRAFT = 491 / 512


class NotCodable(ValueError):
    """The stage lies outside the code's domain (see the module docstring): it has no code word."""


def gamma_bits(n: int) -> int:
    """γ(n) = 2⌊log2 n⌋ + 1: the length of the Elias gamma code of an integer n ≥ 1."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise NotCodable(f"the Elias gamma code needs an integer ≥ 1, not {n!r}")
    return 2 * (n.bit_length() - 1) + 1


def side_bits(n: int) -> float:
    """The cost of a board side n in 1..26: gamma restricted to 1..26 and renormalised."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= SIDE_MAX:
        raise NotCodable(f"a board side is 1..{SIDE_MAX}, not {n!r}")
    return gamma_bits(n) + math.log2(SIDE_KRAFT)


def choice_bits(value: Any, alternatives: tuple) -> float:
    """lg n: the cost of choosing `value` uniformly among n alternatives."""
    if value not in alternatives:
        raise NotCodable(f"{value!r} is not one of {alternatives!r}")
    return math.log2(len(alternatives))


def count_bits(n: int, *, may_be_empty: bool) -> int:
    """The length of a list: γ(n + 1) when it may be empty, γ(n) when it never is."""
    if not may_be_empty and n == 0:
        raise NotCodable("an empty list where the code needs at least one item")
    return gamma_bits(n + 1 if may_be_empty else n)


@dataclass(frozen=True)
class _Context:
    """What the code has read before a node: the board's shape and the two players."""

    rows: int
    cols: int
    players: tuple[str, str]

    @property
    def cells(self) -> int:
        return self.rows * self.cols


# --- one cost function per node class, dispatched by a table ------------------------------------

Cost = Callable[[Any, _Context], float]
_COSTS: dict[type, Cost] = {}


def costs(*kinds: type) -> Callable[[Cost], Cost]:
    def register(fn: Cost) -> Cost:
        for kind in kinds:
            _COSTS[kind] = fn
        return fn

    return register


def _bits(node: Any, ctx: _Context) -> float:
    """The bits of one node (a board, a cell item, a move rule, an effect, an end, ...)."""
    try:
        fn = _COSTS[type(node)]
    except KeyError:
        raise NotCodable(f"no code for {type(node).__name__}: not an AST node of a stage") from None
    return fn(node, ctx)


def _kind_bits(node: Any, kinds: tuple[type, ...]) -> float:
    return choice_bits(type(node), kinds)


def _cell_index_bits(cell: A.Cell, ctx: _Context) -> float:
    if not (0 <= cell.row < ctx.rows and 0 <= cell.col < ctx.cols):
        where = cell.name if 0 <= cell.col < A.MAX_BOARD_SIDE and cell.row >= 0 else f"({cell.row}, {cell.col})"
        raise NotCodable(f"cell {where} is not on the {ctx.rows}x{ctx.cols} board")
    return math.log2(ctx.cells)


def _items_bits(items: tuple, ctx: _Context, *, may_be_empty: bool) -> float:
    return count_bits(len(items), may_be_empty=may_be_empty) + sum(_bits(i, ctx) for i in items)


def _player_bits(name: str, ctx: _Context) -> float:
    return choice_bits(name, ctx.players)


@costs(A.Cell)
def _cell(c: A.Cell, ctx: _Context) -> float:
    return 1 + _cell_index_bits(c, ctx)  # a cell item: "cell, not range", then the cell


@costs(A.CellRange)
def _cell_range(c: A.CellRange, ctx: _Context) -> float:
    return 1 + _cell_index_bits(c.first, ctx) + _cell_index_bits(c.last, ctx)


@costs(A.SquareBoard, A.HexBoard)
def _board_sized(b, ctx: _Context) -> float:
    return _kind_bits(b, A.BOARD_KINDS) + side_bits(b.size) + choice_bits(b.wrap, (False, True))


@costs(A.RectBoard)
def _board_rect(b: A.RectBoard, ctx: _Context) -> float:
    return (_kind_bits(b, A.BOARD_KINDS) + side_bits(b.n_rows) + side_bits(b.n_cols)
            + choice_bits(b.wrap, (False, True)))


@costs(A.Players)
def _players(p: A.Players, ctx: _Context) -> float:
    return 0.0  # labels; the context checked that there are two distinct names


@costs(A.Heading)
def _heading(h: A.Heading, ctx: _Context) -> float:
    return choice_bits(h.heading, A.HEADINGS)  # whose heading it is, the forward field says


@costs(A.Setup)
def _setup(s: A.Setup, ctx: _Context) -> float:
    return _player_bits(s.player, ctx) + _items_bits(s.cells, ctx, may_be_empty=False)


@costs(A.Directions)
def _directions(d: A.Directions, ctx: _Context) -> float:
    return count_bits(len(d.words), may_be_empty=False) + sum(choice_bits(w, A.DIRECTION_WORDS) for w in d.words)


@costs(A.PlaceEmpty, A.PlaceGravity, A.PlaceAdjacent)
def _placement(m, ctx: _Context) -> float:
    return _kind_bits(m, A.MOVE_KINDS)


@costs(A.Step, A.Slide)
def _directed_piece_move(m, ctx: _Context) -> float:
    return _kind_bits(m, A.MOVE_KINDS) + _bits(m.directions, ctx) + choice_bits(m.target, A.TARGETS)


@costs(A.Jump, A.Clone)
def _distance_piece_move(m, ctx: _Context) -> float:
    return _kind_bits(m, A.MOVE_KINDS) + gamma_bits(m.distance) + choice_bits(m.target, A.TARGETS)


@costs(A.FlipCustodial, A.RemoveCustodial)
def _custodial(e, ctx: _Context) -> float:
    return _kind_bits(e, A.EFFECT_KINDS) + _bits(e.directions, ctx) + choice_bits(e.over_blocked, (False, True))


@costs(A.ConvertAdjacent)
def _convert(e: A.ConvertAdjacent, ctx: _Context) -> float:
    return _kind_bits(e, A.EFFECT_KINDS) + _bits(e.directions, ctx)


@costs(A.RequireCapture)
def _require(e: A.RequireCapture, ctx: _Context) -> float:
    return _kind_bits(e, A.EFFECT_KINDS)


@costs(A.MoveRule)
def _move(m: A.MoveRule, ctx: _Context) -> float:
    return _move_line_bits(m, ctx) + sum(_bits(e, ctx) for e in m.effects)


def _move_line_bits(m: A.MoveRule, ctx: _Context) -> float:
    """The `move KIND` line: the kind and its parameters, then the number of effects."""
    return _bits(m.kind, ctx) + count_bits(len(m.effects), may_be_empty=True)


@costs(A.Alternate, A.FewerPieces, A.AgainAfterCapture)
def _turn(t, ctx: _Context) -> float:
    return _kind_bits(t, A.TURN_ORDERS)


@costs(A.PassForced)
def _pass(p: A.PassForced, ctx: _Context) -> float:
    return 1.0  # present (absent costs the same bit: see _stage_entries)


@costs(A.NoMoves, A.BoardFull, A.ReachFarRow, A.NoPieces)
def _plain_condition(c, ctx: _Context) -> float:
    return _kind_bits(c, A.CONDITIONS)


@costs(A.Line)
def _line(c: A.Line, ctx: _Context) -> float:
    return _kind_bits(c, A.CONDITIONS) + gamma_bits(c.length) + choice_bits(c.exact, (False, True))


@costs(A.Connect)
def _connect(c: A.Connect, ctx: _Context) -> float:
    if len(c.sides) != 2:
        raise NotCodable(f"`connect` names two side pairs, not {len(c.sides)}")
    return _kind_bits(c, A.CONDITIONS) + sum(choice_bits(s, A.SIDE_PAIRS) for s in c.sides)


@costs(A.AfterPlies)
def _after(c: A.AfterPlies, ctx: _Context) -> float:
    return _kind_bits(c, A.CONDITIONS) + gamma_bits(c.plies)


@costs(A.MoverWins, A.MoverLoses, A.MostPieces, A.FewestPieces, A.Draw)
def _result(r, ctx: _Context) -> float:
    return _kind_bits(r, A.RESULTS)


@costs(A.End)
def _end(e: A.End, ctx: _Context) -> float:
    return _bits(e.condition, ctx) + _bits(e.result, ctx)


@costs(A.Stage)
def _stage(s: A.Stage, ctx: _Context) -> float:
    return math.fsum(bits for _, bits in _stage_entries(s))


# --- the stage, statement by statement ----------------------------------------------------------


def _context(stage: A.Stage) -> _Context:
    names = stage.players.names
    if len(names) != 2 or names[0] == names[1]:
        raise NotCodable(f"the code needs two distinct player names, not {' '.join(names)!r}")
    board = stage.board
    if type(board) not in A.BOARD_KINDS:
        raise NotCodable(f"no code for the board {board!r}")
    for side in (board.rows, board.cols):
        side_bits(side)  # raises NotCodable outside 1..26
    return _Context(board.rows, board.cols, (names[0], names[1]))


def _forward_bits(forward: tuple[A.Heading, ...], ctx: _Context) -> float:
    """Two presence bits, a heading per player given, and the order bit when both are given."""
    players = [h.player for h in forward]
    for p in players:
        _player_bits(p, ctx)
    if len(set(players)) != len(players):
        raise NotCodable("`forward` gives a player two headings")
    order = 1.0 if len(forward) == 2 else 0.0
    return 2.0 + order + sum(_bits(h, ctx) for h in forward)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _stage_entries(stage: A.Stage) -> list[tuple[str, float]]:
    ctx = _context(stage)
    entries: list[tuple[str, float]] = [
        (f'game "{stage.name}"', 0.0),
        (text(stage.board), _bits(stage.board, ctx)),
        ("blocked " + " ".join(text(c) for c in stage.blocked) if stage.blocked else "(no blocked cells)",
         _items_bits(stage.blocked, ctx, may_be_empty=True)),
        (text(stage.players), _bits(stage.players, ctx)),
        ("forward " + ", ".join(text(h) for h in stage.forward) if stage.forward else "(no forward)",
         _forward_bits(stage.forward, ctx)),
        (f"({_plural(len(stage.setup), 'setup statement')})" if stage.setup else "(no setup)",
         count_bits(len(stage.setup), may_be_empty=True)),
    ]
    entries += [(text(s), _bits(s, ctx)) for s in stage.setup]
    entries.append((f"({_plural(len(stage.moves), 'move rule')})",
                    count_bits(len(stage.moves), may_be_empty=False)))
    for m in stage.moves:
        entries.append((f"move {text(m.kind)}", _move_line_bits(m, ctx)))
        entries += [(f"  {text(e)}", _bits(e, ctx)) for e in m.effects]
    entries.append((text(stage.turn), _bits(stage.turn, ctx)))
    entries.append(("pass forced", _bits(stage.pass_rule, ctx)) if stage.pass_rule is not None
                   else ("(no pass rule)", 1.0))
    entries.append((f"({_plural(len(stage.ends), 'end')})", count_bits(len(stage.ends), may_be_empty=False)))
    entries += [(text(e), _bits(e, ctx)) for e in stage.ends]
    return entries


def bits_breakdown(stage: A.Stage) -> list[tuple[str, float]]:
    """The description length statement by statement, in canonical order: (what, bits) pairs.

    Statements that are absent still cost their choice ("(no blocked cells)", "(no pass rule)");
    list lengths are their own entries ("(2 setup statements)"); a move's line carries its kind,
    parameters and number of effects, and each effect has its own (indented) entry. The bits sum
    to `description_length(stage)`. Raises NotCodable outside the code's domain.
    """
    return _stage_entries(stage)


def description_length(stage: A.Stage) -> float:
    """The length in bits of the stage's code word: a stage drawn from the code has probability
    exactly 2^-description_length(stage). Raises NotCodable outside the code's domain (see the
    module docstring)."""
    if not isinstance(stage, A.Stage):
        raise TypeError(f"description_length takes a Stage, not {type(stage).__name__}")
    return _bits(stage, _context(stage))
