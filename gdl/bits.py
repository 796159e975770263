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
|               | each: kind (place empty, place gravity, place     | 8        | 3                  |
|               |   adjacent, step, slide, jump, clone, advance)    |          |                    |
|               | step, slide, advance: DIRS, then the target       | 3        | DIRS + lg 3        |
|               |   (empty, enemy, any)                             |          |                    |
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
| `hidden`      | hidden information or not (every stage pays it)   | 2        | 1                  |
|               | if hidden: what: opponent-pieces                  | 1        | 0                  |
| `refused`     | if hidden: retry, lose-turn                       | 2        | 1                  |
| `announce`    | if hidden: number of announcements A ≥ 0          | γ        | γ(A + 1)           |
|               | each: turn-count, refusals, captures              | 3        | lg 3               |
| `reveal`      | if hidden: number of reveals V ≥ 0                | γ        | γ(V + 1)           |
|               | each: adjacent, capture, reachable                | 3        | lg 3               |
| chance        | chance or none (every stage pays)                 | 2        | 1                  |
| `roll`        | if chance: dice or not                            | 2        | 1                  |
|               | if dice: how many K (1..4), faces N (2..20)       | 4, 19    | 2 + lg 19          |
| `blocked random` | if chance: number of lines R ≥ 0               | γ        | γ(R + 1)           |
|               | each: how many n ≥ 1, then its cell items L ≥ 1   | γ, γ     | γ(n) + γ(L) + items |
| `setup random`| if drawn: number of lines S (≥ 1 when R = 0 and   | γ        | γ(S + 1), or γ(S)  |
|               |   no dice)                                        |          |                    |
|               | each: its player, how many n ≥ 1, its cell items  | 2, γ, γ  | 1 + γ(n) + γ(L) + items |

Alternatives are numbered in the order of the tuples of gdl/ast.py (BOARD_KINDS, MOVE_KINDS,
EFFECT_KINDS, TURN_ORDERS, CONDITIONS, RESULTS, HIDINGS, REFUSALS, ANNOUNCEMENTS, REVEALS, DIRECTION_WORDS, TARGETS,
HEADINGS, SIDE_PAIRS);
a cell is numbered row × cols + col; false comes before true. A stage has one `game`, `board`,
`players`, `turn`, `pass`, `hidden` and `refused` field each; lists (blocked items, forward, setups,
moves, effects, ends, announcements, words) are coded in the order of the AST. The information lines
(issue 33) added one bit to every stage: the choice of perfect information; the random lines another:
the choice of no chance (a fixed start and no dice). The `advance` move kind made every move rule's
kind cost 3 bits, not lg 7; dice cost a stage with a random start one bit more.

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

One definition, three readers. The code is written once, as one function per node class (the
table `_CODES`; a concept's is built from the forms its fields declare in gdl/ast.py, one code per
form in `_FORM_CODES`) that asks a `Coder` for each field in turn and builds the node from the answers:
`Measure` sums the bits of a stage's fields (description_length, bits_breakdown) and records its
code word (`encode`), `Replay` reads a code word back (`decode`), and the sampler's `Draw`
(sampler/prior.py) draws each field at random. So what is measured, decoded and drawn cannot drift
apart: tests/test_prior.py decodes every stage from its own word at exactly its length.

`bits_breakdown(stage)` lists the cost statement by statement (the counts of the lists as their
own entries); its entries sum to `description_length(stage)`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Sequence

from . import ast as A
from .diagnostics import LudicaError
from .printer import text

SIDE_MAX = A.MAX_BOARD_SIDE
# Σ_{n=1}^{26} 2^-γ(n) = 1/2 + 1/4 + 1/8 + 1/16 + 11/512 = 491/512: the gamma codes of the sides
# a board can have. Dividing by it makes the side code complete over 1..26.
SIDE_KRAFT = 491 / 512
FLAGS = (False, True)
DICE = tuple(range(1, A.MAX_DICE + 1))  # a roll's dice, then its faces (gdl/checks/chance.py's bounds)
FACES = tuple(range(2, A.MAX_FACES + 1))

# The integer fields of the code (each an Elias gamma integer), by the name a coder is given: a
# sampler's limits are set per field (sampler/prior.py).
INTEGER_FIELDS = ("blocked items", "setups", "setup items", "moves", "effects",
                  "direction words", "distance", "ends", "line length", "plies",
                  "random blocked", "random setups", "random count", "random items")
# The lists that may be empty: their integer is the count + 1 (a limit on them counts items).
COUNTS_FROM_ZERO = ("blocked items", "setups", "effects", "random blocked")


class NotCodable(LudicaError, ValueError):
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


def choice_bits(value: Any, alternatives: Sequence) -> float:
    """lg n: the cost of choosing `value` uniformly among n alternatives."""
    if value not in alternatives:
        raise NotCodable(f"{value!r} is not one of {tuple(alternatives)!r}")
    return math.log2(len(alternatives))


def count_bits(n: int, *, may_be_empty: bool) -> int:
    """The length of a list: γ(n + 1) when it may be empty, γ(n) when it never is."""
    if not may_be_empty and n == 0:
        raise NotCodable("an empty list where the code needs at least one item")
    return gamma_bits(n + 1 if may_be_empty else n)


# --- coders: what reads or writes the fields -----------------------------------------------------


class Coder:
    """One reader or writer of the code. The code (the functions below) asks it for each field in
    turn, giving the field's value when there is a stage to code (None when there is none, as
    when decoding or drawing), and builds the stage from the values it returns. So measuring,
    decoding and drawing go through one definition of the code and cannot drift apart."""

    def choice(self, value: Any, alternatives: Sequence) -> Any:
        """A uniform choice among the alternatives: lg n bits."""
        raise NotImplementedError

    def integer(self, value: int | None, field: str) -> int:
        """An integer n ≥ 1 in the Elias gamma code: γ(n) bits. `field` names it (INTEGER_FIELDS)."""
        raise NotImplementedError

    def side(self, value: int | None) -> int:
        """A board side in 1..26: the renormalised gamma code (side_bits)."""
        raise NotImplementedError

    def cell(self, value: A.Cell | None, rows: int, cols: int) -> A.Cell:
        """A cell of the board, uniform among its rows × cols cells."""
        raise NotImplementedError

    def hidden(self, value: bool | None) -> bool:
        """Whether the stage hides information: a choice between two, like any flag, kept apart so
        that a sampler may hold it fixed (sampler/prior.py's Draw, while the kernels lack it)."""
        return self.choice(value, FLAGS)

    def chance(self, value: bool | None) -> bool:
        """Whether the stage's start is drawn at random: a flag kept apart, as `hidden` is, so that
        a sampler may hold it fixed (sampler/prior.py's Draw, while the kernels lack chance)."""
        return self.choice(value, FLAGS)

    def statement(self, describe: Callable[[], str]) -> None:
        """The fields read since the last call make one statement (for bits_breakdown)."""


class Measure(Coder):
    """Measures a stage: sums the bits of its fields and records the choices it makes (its code
    word, as integers: an alternative's index, an integer's value, a cell's index)."""

    def __init__(self, breakdown: bool = False):
        self.bits: list[float] = []
        self.choices: list[int] = []
        self.entries: list[tuple[str, float]] = []
        self._breakdown, self._mark = breakdown, 0

    def choice(self, value, alternatives):
        self.bits.append(choice_bits(value, alternatives))
        self.choices.append(alternatives.index(value))
        return value

    def integer(self, value, field):
        self.bits.append(gamma_bits(value))
        self.choices.append(value)
        return value

    def side(self, value):
        self.bits.append(side_bits(value))
        self.choices.append(value)
        return value

    def cell(self, value, rows, cols):
        if not (0 <= value.row < rows and 0 <= value.col < cols):
            where = value.name if 0 <= value.col < SIDE_MAX and value.row >= 0 else f"({value.row}, {value.col})"
            raise NotCodable(f"cell {where} is not on the {rows}x{cols} board")
        self.bits.append(math.log2(rows * cols))
        self.choices.append(value.row * cols + value.col)
        return value

    def statement(self, describe):
        if self._breakdown:
            self.entries.append((describe(), math.fsum(self.bits[self._mark:])))
            self._mark = len(self.bits)

    @property
    def total(self) -> float:
        return math.fsum(self.bits)


class Replay(Coder):
    """Decodes a code word (the choices Measure records): each field takes the next integer. It
    sums the bits it reads, so decoding a stage's own word must cost its description length."""

    def __init__(self, choices: Sequence[int]):
        self._choices, self._next = list(choices), 0
        self.bits: list[float] = []

    def _take(self) -> int:
        if self._next >= len(self._choices):
            raise NotCodable(f"the code word ends after {len(self._choices)} choices, in the middle of a stage")
        value = self._choices[self._next]
        self._next += 1
        return value

    def choice(self, value, alternatives):
        i = self._take()
        if not 0 <= i < len(alternatives):
            raise NotCodable(f"choice {self._next - 1} is {i}, but there are {len(alternatives)} alternatives")
        self.bits.append(math.log2(len(alternatives)))
        return alternatives[i]

    def integer(self, value, field):
        n = self._take()
        self.bits.append(gamma_bits(n))
        return n

    def side(self, value):
        n = self._take()
        self.bits.append(side_bits(n))
        return n

    def cell(self, value, rows, cols):
        i = self._take()
        if not 0 <= i < rows * cols:
            raise NotCodable(f"choice {self._next - 1} is cell {i}, but the board has {rows * cols} cells")
        self.bits.append(math.log2(rows * cols))
        return A.Cell(i // cols, i % cols)

    @property
    def finished(self) -> bool:
        return self._next == len(self._choices)


# --- the code: one function per node class, dispatched by a table --------------------------------


@dataclass(frozen=True)
class _Context:
    """What the code has read before a node: the board's shape and the two players."""

    rows: int
    cols: int
    players: tuple[str, str]
    name: str


Code = Callable[[Coder, Any, _Context], Any]
_CODES: dict[type, Code] = {}


def codes(*kinds: type) -> Callable[[Code], Code]:
    def register(fn: Code) -> Code:
        for kind in kinds:
            _CODES[kind] = fn
        return fn

    return register


def _node(c: Coder, kind: type, node: Any, ctx: _Context) -> Any:
    """Code a node whose class is known (read before, or fixed by its place)."""
    return _CODES[kind](c, node, ctx)


def _one_of(c: Coder, kinds: tuple[type, ...], node: Any, ctx: _Context) -> Any:
    """Code a node whose class is one of `kinds`: the class first (a uniform choice), then it."""
    if node is not None and type(node) not in kinds:
        raise NotCodable(f"no code for {type(node).__name__} here: it is not one of {[k.__name__ for k in kinds]}")
    kind = c.choice(None if node is None else type(node), kinds)
    return _node(c, kind, node, ctx)


def _field(node: Any, name: str) -> Any:
    return None if node is None else getattr(node, name)


def _count(c: Coder, items: tuple | None, field: str, *, may_be_empty: bool) -> int:
    """The length of a list: γ(n + 1) when it may be empty, γ(n) when it never is."""
    if items is not None and not may_be_empty and not items:
        raise NotCodable(f"an empty list of {field} where the code needs at least one")
    n = c.integer(None if items is None else len(items) + may_be_empty, field)
    return n - may_be_empty


def _items(c: Coder, items: tuple | None, field: str, ctx: _Context, *, may_be_empty: bool) -> tuple:
    """A list of cells and ranges: its length, then each item (cell or range, then its cells)."""
    n = _count(c, items, field, may_be_empty=may_be_empty)
    return tuple(_one_of(c, (A.Cell, A.CellRange), None if items is None else items[i], ctx) for i in range(n))


@codes(A.Cell)
def _cell(c: Coder, cell: A.Cell | None, ctx: _Context) -> A.Cell:
    return c.cell(cell, ctx.rows, ctx.cols)


@codes(A.CellRange)
def _cell_range(c: Coder, r: A.CellRange | None, ctx: _Context) -> A.CellRange:
    first = c.cell(_field(r, "first"), ctx.rows, ctx.cols)
    return A.CellRange(first, c.cell(_field(r, "last"), ctx.rows, ctx.cols))


@codes(A.Players)
def _players(c: Coder, p: A.Players | None, ctx: _Context) -> A.Players:
    return A.Players(ctx.players)  # labels: no bits (the context checked two distinct names)


@codes(A.Heading)
def _heading(c: Coder, h: A.Heading, ctx: _Context) -> A.Heading:
    """A heading whose player is known (the `forward` field codes whose each heading is)."""
    return _heading_of(c, h.player, h.heading)


def _heading_of(c: Coder, player: str, heading: str | None) -> A.Heading:
    """The player's heading: one of four (None: not known yet, when decoding or drawing)."""
    return A.Heading(player, c.choice(heading, A.HEADINGS))


def _forward(c: Coder, forward: tuple[A.Heading, ...] | None, ctx: _Context) -> tuple[A.Heading, ...]:
    """Two presence bits (has the first player a heading? the second?), a heading per player given
    (whose it is, the presence bits say), and the order bit when both are given."""
    given: dict[str, str | None] = dict.fromkeys(ctx.players)
    if forward is not None:
        for h in forward:
            if h.player not in given:
                raise NotCodable(f"`forward` names {h.player!r}, who is not one of the players {ctx.players}")
            if given[h.player] is not None:
                raise NotCodable(f"`forward` gives {h.player} two headings")
            given[h.player] = h.heading
    present = [p for p in ctx.players if c.choice(None if forward is None else given[p] is not None, FLAGS)]
    headings = tuple(_heading_of(c, p, None if forward is None else given[p]) for p in present)
    if len(headings) == 2:
        first_written_first = c.choice(None if forward is None else forward[0].player == ctx.players[0], FLAGS)
        if not first_written_first:
            headings = headings[::-1]
    return headings


@codes(A.Setup)
def _setup(c: Coder, s: A.Setup | None, ctx: _Context) -> A.Setup:
    player = c.choice(_field(s, "player"), ctx.players)
    return A.Setup(player, _items(c, _field(s, "cells"), "setup items", ctx, may_be_empty=False))


@codes(A.Directions)
def _directions(c: Coder, d: A.Directions | None, ctx: _Context) -> A.Directions:
    words = _field(d, "words")
    n = _count(c, words, "direction words", may_be_empty=False)
    return A.Directions(tuple(c.choice(None if words is None else words[i], A.DIRECTION_WORDS) for i in range(n)))


def _words(c: Coder, form: A.Words, words: tuple | None) -> tuple:
    if words is not None and len(words) != form.count:
        raise NotCodable(f"`{form.terminal.lower()}` takes {form.count} words, not {len(words)}")
    return tuple(c.choice(None if words is None else words[i], form.words) for i in range(form.count))


# A field's code by its form: (coder, form, value or None, context) -> the value read.
_FORM_CODES: dict[type, Callable[[Coder, Any, Any, _Context], Any]] = {
    A.Side: lambda c, form, v, ctx: c.side(v),
    A.Count: lambda c, form, v, ctx: c.integer(v, form.name),
    A.Flag: lambda c, form, v, ctx: c.choice(v, FLAGS),
    A.Word: lambda c, form, v, ctx: c.choice(v, form.words),
    A.Words: lambda c, form, v, ctx: _words(c, form, v),
    A.DirectionList: lambda c, form, v, ctx: _node(c, A.Directions, v, ctx),
}


def _concept(kind: type) -> Code:
    """A concept: its class is chosen by the caller; then each field in order, by its form."""
    fields = A.forms(kind)

    def code(c: Coder, node, ctx: _Context):
        return kind(**{name: _FORM_CODES[type(form)](c, form, _field(node, name), ctx) for name, form in fields})

    return code


_CODES.update((kind, _concept(kind)) for kind in A.CONCEPTS)


@codes(A.MoveRule)
def _move(c: Coder, m: A.MoveRule | None, ctx: _Context) -> A.MoveRule:
    """The `move KIND` line (the kind, its parameters, the number of effects), then each effect."""
    kind = _one_of(c, A.MOVE_KINDS, _field(m, "kind"), ctx)
    effects = _statements(c, _field(m, "effects"), "effects", lambda e: _one_of(c, A.EFFECT_KINDS, e, ctx),
                          may_be_empty=True, heading=lambda n: f"move {text(kind)}", item=lambda e: f"  {text(e)}")
    return A.MoveRule(kind, effects)


@codes(A.End)
def _end(c: Coder, e: A.End | None, ctx: _Context) -> A.End:
    condition = _one_of(c, A.CONDITIONS, _field(e, "condition"), ctx)
    return A.End(condition, _one_of(c, A.RESULTS, _field(e, "result"), ctx))


def _statements(c: Coder, items: tuple | None, field: str, read: Callable[[Any], Any], *, may_be_empty: bool,
                heading: Callable[[int], str], item: Callable[[Any], str] | None = text) -> tuple:
    """A list of statements: its length (a statement of its own, described by `heading`), then each
    item read by `read`, a statement each when `item` describes it (a move rule marks its own)."""
    n = _count(c, items, field, may_be_empty=may_be_empty)
    c.statement(lambda: heading(n))
    out = []
    for i in range(n):
        out.append(read(None if items is None else items[i]))
        if item is not None:
            c.statement(lambda: item(out[-1]))
    return tuple(out)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


@codes(A.Stage)
def _stage(c: Coder, s: A.Stage | None, ctx: _Context) -> A.Stage:
    """The whole stage, statement by statement in canonical order. The board comes first: its
    cells are the alternatives of every cell read after it. `ctx` brings the labels."""
    c.statement(lambda: f'game "{ctx.name}"')
    board = _one_of(c, A.BOARD_KINDS, _field(s, "board"), ctx)
    c.statement(lambda: text(board))
    ctx = _Context(board.rows, board.cols, ctx.players, ctx.name)
    blocked = _items(c, _field(s, "blocked"), "blocked items", ctx, may_be_empty=True)
    c.statement(lambda: "blocked " + " ".join(text(i) for i in blocked) if blocked else "(no blocked cells)")
    players = _node(c, A.Players, _field(s, "players"), ctx)
    c.statement(lambda: text(players))
    forward = _forward(c, _field(s, "forward"), ctx)
    c.statement(lambda: "forward " + ", ".join(text(h) for h in forward) if forward else "(no forward)")
    setup = _statements(c, _field(s, "setup"), "setups", lambda x: _node(c, A.Setup, x, ctx), may_be_empty=True,
                        heading=lambda n: f"({_plural(n, 'setup statement')})" if n else "(no setup)")
    moves = _statements(c, _field(s, "moves"), "moves", lambda x: _node(c, A.MoveRule, x, ctx),
                        may_be_empty=False, heading=lambda n: f"({_plural(n, 'move rule')})", item=None)
    turn = _one_of(c, A.TURN_ORDERS, _field(s, "turn"), ctx)
    c.statement(lambda: text(turn))
    if s is not None and s.pass_rule is not None and type(s.pass_rule) is not A.PassForced:
        raise NotCodable(f"no code for the pass rule {s.pass_rule!r}")
    forced = c.choice(None if s is None else s.pass_rule is not None, FLAGS)
    pass_rule = _node(c, A.PassForced, None, ctx) if forced else None
    c.statement(lambda: "pass forced" if forced else "(no pass rule)")
    ends = _statements(c, _field(s, "ends"), "ends", lambda x: _node(c, A.End, x, ctx), may_be_empty=False,
                       heading=lambda n: f"({_plural(n, 'end')})")
    hidden, refused, announce, reveal = _information(c, s, ctx)
    random_blocked, random_setup, roll = _chance(c, s, ctx)
    return A.Stage(ctx.name, board, players, moves, ends, blocked=blocked, forward=forward, setup=setup, turn=turn,
                   pass_rule=pass_rule, hidden=hidden, refused=refused, announce=announce, reveal=reveal,
                   random_blocked=random_blocked, random_setup=random_setup, roll=roll)


@codes(A.Roll)
def _roll(c: Coder, r: A.Roll | None, ctx: _Context) -> A.Roll:
    return A.Roll(c.choice(_field(r, "dice"), DICE), c.choice(_field(r, "faces"), FACES))


@codes(A.RandomBlocked)
def _random_blocked(c: Coder, b: A.RandomBlocked | None, ctx: _Context) -> A.RandomBlocked:
    count = c.integer(_field(b, "count"), "random count")
    return A.RandomBlocked(count, _items(c, _field(b, "cells"), "random items", ctx, may_be_empty=False))


@codes(A.RandomSetup)
def _random_setup(c: Coder, r: A.RandomSetup | None, ctx: _Context) -> A.RandomSetup:
    player = c.choice(_field(r, "player"), ctx.players)
    count = c.integer(_field(r, "count"), "random count")
    return A.RandomSetup(player, count, _items(c, _field(r, "cells"), "random items", ctx, may_be_empty=False))


def _chance(c: Coder, s: A.Stage | None, ctx: _Context) -> tuple[tuple, tuple, A.Roll | None]:
    """The chance lines: whether there is any chance (a bit every stage pays), then, only for a stage
    with chance, whether it throws dice and which, its `blocked random` lines (R ≥ 0) and its `setup
    random` lines (S ≥ 1 when R = 0 and no dice: chance draws something, so the code names no stage
    twice)."""
    drawn = c.chance(None if s is None else s.chance)
    if not drawn:
        c.statement(lambda: "(no chance)")
        return (), (), None
    roll = _field(s, "roll")
    if c.choice(None if s is None else roll is not None, FLAGS):
        roll = _node(c, A.Roll, roll, ctx)
        c.statement(lambda: text(roll))
    blocked = _statements(c, _field(s, "random_blocked"), "random blocked", lambda x: _node(c, A.RandomBlocked, x, ctx),
                          may_be_empty=True, heading=lambda n: f"({_plural(n, 'blocked random line')})")
    setup = _statements(c, _field(s, "random_setup"), "random setups", lambda x: _node(c, A.RandomSetup, x, ctx),
                        may_be_empty=bool(blocked) or roll is not None,
                        heading=lambda n: f"({_plural(n, 'setup random line')})")
    return blocked, setup, roll


def _information(c: Coder, s: A.Stage | None, ctx: _Context) -> tuple[A.Hiding | None, A.Refusal | None, tuple,
                                                                       tuple]:
    """The information lines: whether the stage hides anything (a bit every stage pays), then, only
    for one that does, what it hides, what a refused try does, its announcements and its reveals.
    `refused`, `announce` and `reveal` mean nothing without `hidden`, so the code cannot name them alone."""
    if s is not None and s.hidden is None and (s.refused is not None or s.announce or s.reveal):
        raise NotCodable("`refused`, `announce` and `reveal` mean something only with a `hidden` line")
    if s is not None and s.hidden is not None and s.refused is None:
        raise NotCodable("a `hidden` stage says what a refused try does: `refused retry` or `refused lose-turn`")
    dark = c.hidden(None if s is None else s.hidden is not None)
    if not dark:
        c.statement(lambda: "(perfect information)")
        return None, None, (), ()
    hidden = _one_of(c, A.HIDINGS, _field(s, "hidden"), ctx)
    c.statement(lambda: text(hidden))
    refused = _one_of(c, A.REFUSALS, _field(s, "refused"), ctx)
    c.statement(lambda: text(refused))
    announce = _statements(c, _field(s, "announce"), "announcements", lambda x: _one_of(c, A.ANNOUNCEMENTS, x, ctx),
                           may_be_empty=True,
                           heading=lambda n: f"({_plural(n, 'announcement')})" if n else "(no announcement)")
    reveal = _statements(c, _field(s, "reveal"), "reveals", lambda x: _one_of(c, A.REVEALS, x, ctx),
                         may_be_empty=True, heading=lambda n: f"({_plural(n, 'reveal')})" if n else "(no reveal)")
    return hidden, refused, announce, reveal


# --- the stage, and the three uses of the code ---------------------------------------------------


def code(coder: Coder, stage: A.Stage | None = None, *, name: str = "", players: tuple[str, str] = ("a", "b")
         ) -> A.Stage:
    """Run the code with `coder`: over `stage` (measuring it), or with no stage (decoding or drawing
    one, labelled `name` and `players`: labels cost nothing). Returns the stage the code read."""
    if stage is not None:
        if not isinstance(stage, A.Stage):
            raise TypeError(f"the code takes a Stage, not {type(stage).__name__}")
        name, names = stage.name, stage.players.names
        if len(names) != 2 or names[0] == names[1]:
            raise NotCodable(f"the code needs two distinct player names, not {' '.join(names)!r}")
        players = (names[0], names[1])
    return _node(coder, A.Stage, stage, _Context(0, 0, players, name))


def code_node(coder: Coder, kind: type, node=None) -> Any:
    """Run the code of one node that needs nothing read before it (directions, a move kind, an end,
    ...): e.g. to draw one field of a stage (a sampler's edit) through the stage's own code."""
    return _node(coder, kind, node, _Context(0, 0, ("a", "b"), ""))


def bits_breakdown(stage: A.Stage) -> list[tuple[str, float]]:
    """The description length statement by statement, in canonical order: (what, bits) pairs.

    Statements that are absent still cost their choice ("(no blocked cells)", "(no pass rule)");
    list lengths are their own entries ("(2 setup statements)"); a move's line carries its kind,
    parameters and number of effects, and each effect has its own (indented) entry. The bits sum
    to `description_length(stage)`. Raises NotCodable outside the code's domain.
    """
    m = Measure(breakdown=True)
    code(m, stage)
    return m.entries


def description_length(stage: A.Stage) -> float:
    """The length in bits of the stage's code word: a stage drawn from the code has probability
    exactly 2^-description_length(stage). Raises NotCodable outside the code's domain (see the
    module docstring)."""
    if not isinstance(stage, A.Stage):
        raise TypeError(f"description_length takes a Stage, not {type(stage).__name__}")
    m = Measure()
    code(m, stage)
    return m.total


def encode(stage: A.Stage) -> tuple[int, ...]:
    """The stage's code word, one integer per field: an alternative's index, an integer's value,
    a cell's index (row × cols + col). `decode` reads it back."""
    m = Measure()
    code(m, stage)
    return tuple(m.choices)


def decode(word: Sequence[int], *, name: str = "", players: tuple[str, str] = ("a", "b")) -> A.Stage:
    """The stage a code word names (labelled `name` and `players`). Raises NotCodable if the word
    is not a whole code word."""
    r = Replay(word)
    stage = code(r, None, name=name, players=players)
    if not r.finished:
        raise NotCodable(f"the code word goes on after the stage ends ({len(word)} choices)")
    return stage
