"""The description length (gdl/bits.py): hand-worked values, sensible orderings, monotonicity,
labels for free, and the probability claim: 2^-bits sums exactly to the expected total over
finite sub-families (Kraft equality), and a tiny independent sampler that draws every choice
uniformly and every integer by its gamma probability hits each outcome with frequency 2^-bits."""
from __future__ import annotations

import dataclasses
import itertools
import math
import random
import textwrap
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ludica.gdl import ast as A
from ludica.gdl import check, load
from ludica.gdl import bits as B
from ludica.gdl.bits import NotCodable, bits_breakdown, description_length
from ludica.gdl.parser import parse
from ludica.gdl.printer import format as fmt

from strategies import codable_stages, stages

STAGES = Path(__file__).resolve().parents[1] / "stages"
lg = math.log2
K = lg(491 / 512)  # the renormalisation of a board side's gamma code (1..26)


def stage(text: str) -> A.Stage:
    return parse(textwrap.dedent(text))


def dl(s: A.Stage) -> float:
    return description_length(s)


# --- hand-worked values ---------------------------------------------------------------------------

MINIMAL = stage("""
    board square 1
    players a b
    move place empty
    end no-moves: draw
""")
# board: kind lg 3 + side γ(1) = 1 (+ K) + wrap 1      blocked: none, γ(0+1) = 1
# forward: two absent bits = 2                          setup: none, γ(1) = 1
# moves: γ(1) = 1, kind lg 7, no effects γ(1) = 1       turn: lg 3          pass: 1
# ends: γ(1) = 1, condition lg 7, result lg 5
MINIMAL_BITS = (lg(3) + 1 + K + 1) + 1 + 2 + 1 + (1 + lg(7) + 1) + lg(3) + 1 + (1 + lg(7) + lg(5))

TIC_TAC_TOE = stage("""
    game "Tic-tac-toe"
    board square 3
    players x o
    move place empty
    end line 3: mover wins
    end board-full: draw
""")
# board: lg 3 + γ(3) = 3 (+ K) + 1; blocked 1; forward 2; setup 1; moves 1 + lg 7 + 1; turn lg 3;
# pass 1; ends: γ(2) = 3, then line: lg 7 + γ(3) = 3 + exact 1 + lg 5, board-full: lg 7 + lg 5
TIC_TAC_TOE_BITS = ((lg(3) + 3 + K + 1) + 1 + 2 + 1 + (1 + lg(7) + 1) + lg(3) + 1
                    + 3 + (lg(7) + 3 + 1 + lg(5)) + (lg(7) + lg(5)))

OTHELLO = stage("""
    game "Standard 8x8"
    board square 8
    players black white
    setup black e4 d5
    setup white d4 e5
    move place empty
      flip custodial all
      require capture
    pass forced
    end no-moves: most-pieces
""")
# board: lg 3 + γ(8) = 7 (+ K) + 1; blocked 1; forward 2
# setup: γ(2+1) = 3, then each: player 1 + γ(2) = 3 + two cells (1 + lg 64 = 7 each) = 18
# moves: γ(1) = 1; place empty lg 7 + γ(2+1) = 3 effects; flip: 2 + directions (γ(1) = 1 + lg 15)
#   + over-blocked 1; require: 2
# turn lg 3; pass 1; ends: γ(1) = 1 + lg 7 + lg 5
OTHELLO_BITS = ((lg(3) + 7 + K + 1) + 1 + 2 + (3 + 18 + 18) + (1 + lg(7) + 3 + (2 + 1 + lg(15) + 1) + 2)
                + lg(3) + 1 + (1 + lg(7) + lg(5)))

OTHELLO_VARIANT = stage("""
    game "8x8 C-squares, occlusion-agnostic, fewer pieces continue"
    board square 8
    blocked b1 h2 g8 a7
    players black white
    setup black e4 d5
    setup white d4 e5
    move place empty
      flip custodial all over-blocked
      require capture
    turn fewer-pieces
    pass forced
    end no-moves: most-pieces
""")
# Othello's bits, except blocked: γ(4+1) = 5 + 4 cells × 7 = 33 instead of 1 (over-blocked and
# fewer-pieces cost the bit and the lg 3 their defaults cost)
OTHELLO_VARIANT_BITS = OTHELLO_BITS - 1 + 33


@pytest.mark.parametrize("s, expected", [
    (MINIMAL, MINIMAL_BITS), (TIC_TAC_TOE, TIC_TAC_TOE_BITS), (OTHELLO, OTHELLO_BITS),
    (OTHELLO_VARIANT, OTHELLO_VARIANT_BITS)], ids=["minimal", "tic-tac-toe", "othello", "othello-variant"])
def test_hand_worked_values(s, expected):
    assert dl(s) == pytest.approx(expected, abs=1e-9)


def test_hand_worked_numbers():
    assert MINIMAL_BITS == pytest.approx(21.05, abs=0.01)
    assert TIC_TAC_TOE_BITS == pytest.approx(34.17, abs=0.01)
    assert OTHELLO_BITS == pytest.approx(76.95, abs=0.01)
    assert OTHELLO_VARIANT_BITS == pytest.approx(108.95, abs=0.01)


def test_ordering_of_the_examples():
    assert dl(MINIMAL) < dl(TIC_TAC_TOE) < dl(OTHELLO) < dl(OTHELLO_VARIANT)


EVERYTHING = stage("""
    game "Everything"
    board rect 6 7 wrap
    blocked a1..b2 g6
    players red blue
    forward blue up, red down
    setup red c3..d4
    move step forward forward-diagonal to enemy
    move jump 2 to any
      convert adjacent orthogonal
      remove custodial n s over-blocked
    move clone 1 to empty
    turn again-after-capture
    end connect top-bottom left-right: mover wins
    end after 400 plies: draw
    end line 5 exact: mover loses
    end reach far-row: fewest-pieces
""")
N42 = lg(42)  # a cell of the 6x7 board
EVERYTHING_ENTRIES = [
    ('game "Everything"', 0),
    ("board rect 6 7 wrap", lg(3) + (5 + K) + (5 + K) + 1),          # γ(6) = γ(7) = 5
    ("blocked a1..b2 g6", 3 + (1 + 2 * N42) + (1 + N42)),           # γ(2+1) = 3, a range, a cell
    ("players red blue", 0),
    ("forward blue up, red down", 2 + 2 + 2 + 1),                     # presence, headings, order
    ("(1 setup statement)", 3),                                       # γ(1+1)
    ("setup red c3..d4", 1 + 1 + (1 + 2 * N42)),                      # player, γ(1), a range
    ("(3 move rules)", 3),                                            # γ(3)
    ("move step forward forward-diagonal to enemy", lg(7) + (3 + 2 * lg(15)) + lg(3) + 1),
    ("move jump 2 to any", lg(7) + 3 + lg(3) + 3),                    # γ(2) = 3; γ(2+1) = 3 effects
    ("  convert adjacent orthogonal", 2 + (1 + lg(15))),
    ("  remove custodial n s over-blocked", 2 + (3 + 2 * lg(15)) + 1),
    ("move clone 1 to empty", lg(7) + 1 + lg(3) + 1),                 # γ(1) = 1; no effects γ(1)
    ("turn again-after-capture", lg(3)),
    ("(no pass rule)", 1),
    ("(4 ends)", 5),                                                  # γ(4)
    ("end connect top-bottom left-right: mover wins", lg(7) + 2 + lg(5)),
    ("end after 400 plies: draw", lg(7) + 17 + lg(5)),                # γ(400) = 2·8 + 1
    ("end line 5 exact: mover loses", lg(7) + 5 + 1 + lg(5)),          # γ(5) = 5
    ("end reach far-row: fewest-pieces", lg(7) + lg(5)),
]


def test_breakdown_statement_by_statement():
    got = bits_breakdown(EVERYTHING)
    assert [w for w, _ in got] == [w for w, _ in EVERYTHING_ENTRIES]
    for (what, bits), (_, expected) in zip(got, EVERYTHING_ENTRIES):
        assert bits == pytest.approx(expected, abs=1e-9), what
    assert dl(EVERYTHING) == pytest.approx(math.fsum(b for _, b in EVERYTHING_ENTRIES), abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(codable_stages())
def test_breakdown_sums_to_the_description_length(s):
    entries = bits_breakdown(s)
    assert all(bits >= 0 for _, bits in entries)
    assert math.fsum(b for _, b in entries) == pytest.approx(dl(s), abs=1e-9)


def test_integer_and_side_codes():
    assert [B.gamma_bits(n) for n in (1, 2, 3, 4, 7, 8, 100, 400)] == [1, 3, 3, 5, 5, 7, 13, 17]
    for k in range(1, 12):  # Σ_{n < 2^k} 2^-γ(n) = 1 - 2^-k: the gamma code is complete
        assert sum(Fraction(1, 2 ** B.gamma_bits(n)) for n in range(1, 2 ** k)) == 1 - Fraction(1, 2 ** k)
    assert sum(2 ** -B.side_bits(n) for n in range(1, 27)) == pytest.approx(1, abs=1e-12)
    for bad in (0, 27, -1):
        with pytest.raises(NotCodable):
            B.side_bits(bad)


# --- monotonicity, flags, labels ------------------------------------------------------------------


def _growths(s: A.Stage, cell: A.Cell) -> list[tuple[str, A.Stage, A.Stage]]:
    """(what, smaller, bigger): the bigger stage has one more list item of some kind."""
    r = dataclasses.replace
    p = s.players.names
    first, more = s.moves[0], s.moves[1:]

    def with_first_move(kind=None, effects=None) -> A.Stage:
        return r(s, moves=(A.MoveRule(kind or first.kind, first.effects if effects is None else effects),) + more)

    out = [
        ("a blocked cell", s, r(s, blocked=s.blocked + (cell,))),
        ("a blocked range", s, r(s, blocked=(A.CellRange(cell, cell),) + s.blocked)),
        ("a setup statement", s, r(s, setup=s.setup + (A.Setup(p[1], (cell,)),))),
        ("a move", s, r(s, moves=s.moves + (A.MoveRule(A.PlaceEmpty()),))),
        ("an effect", s, with_first_move(effects=first.effects + (A.RequireCapture(),))),
        ("an end", s, r(s, ends=(A.End(A.NoMoves(), A.Draw()),) + s.ends)),
        ("a direction word", with_first_move(A.Step(A.Directions(("n",)))),
         with_first_move(A.Step(A.Directions(("n", "s"))))),
    ]
    if s.setup:
        grown = A.Setup(s.setup[0].player, s.setup[0].cells + (cell,))
        out.append(("a setup cell", s, r(s, setup=(grown,) + s.setup[1:])))
    if len(s.forward) < 2:
        missing = next(name for name in p if name not in {h.player for h in s.forward})
        out.append(("a heading", s, r(s, forward=s.forward + (A.Heading(missing, "up"),))))
    if isinstance(first.kind, (A.Step, A.Slide)):
        words = A.Directions(first.kind.directions.words + ("nw",))
        out.append(("a direction word", s, with_first_move(r(first.kind, directions=words))))
    return out


@settings(max_examples=60, deadline=None)
@given(codable_stages(max_side=8), st.data())
def test_adding_anything_costs_bits(s, data):
    cell = A.Cell(data.draw(st.integers(0, s.board.rows - 1)), data.draw(st.integers(0, s.board.cols - 1)))
    for what, smaller, bigger in _growths(s, cell):
        assert dl(bigger) > dl(smaller), what


@settings(max_examples=60, deadline=None)
@given(codable_stages(max_side=8), st.sampled_from(A.TURN_ORDERS))
def test_flags_cost_their_bit_either_way(s, turn):
    before = dl(s)
    board = dataclasses.replace(s.board, wrap=not s.board.wrap)
    toggled_pass = None if s.pass_rule is not None else A.PassForced()
    ends = tuple(dataclasses.replace(e, condition=dataclasses.replace(e.condition, exact=not e.condition.exact))
                 if isinstance(e.condition, A.Line) else e for e in s.ends)
    for other in (dataclasses.replace(s, board=board), dataclasses.replace(s, pass_rule=toggled_pass),
                  dataclasses.replace(s, turn=turn()), dataclasses.replace(s, ends=ends)):
        assert dl(other) == pytest.approx(before, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(codable_stages(), st.text(max_size=10).filter(lambda n: '"' not in n and len((n + ".").splitlines()) == 1),
       st.lists(st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,6}", fullmatch=True), min_size=2, max_size=2, unique=True))
def test_labels_cost_nothing(s, name, names):
    rename = dict(zip(s.players.names, names))
    relabelled = dataclasses.replace(
        s, name=name, players=A.Players(tuple(names)),
        forward=tuple(dataclasses.replace(h, player=rename[h.player]) for h in s.forward),
        setup=tuple(dataclasses.replace(x, player=rename[x.player]) for x in s.setup))
    assert dl(relabelled) == dl(s)
    assert [b for _, b in bits_breakdown(relabelled)] == [b for _, b in bits_breakdown(s)]


def test_labels_cost_nothing_on_an_example():
    renamed = stage(fmt(OTHELLO).replace("black", "noir").replace("white", "blanc")
                    .replace("Standard 8x8", "A much longer display name that says nothing about the rules"))
    assert renamed != OTHELLO and dl(renamed) == dl(OTHELLO)
    assert bits_breakdown(renamed)[0] == ('game "A much longer display name that says nothing about the rules"', 0.0)


# --- the domain -----------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(codable_stages())
def test_every_codable_stage_has_a_length(s):
    assert 0 < dl(s) < math.inf
    assert dl(parse(fmt(s))) == dl(s)


@settings(max_examples=100, deadline=None)
@given(stages())
def test_any_printable_stage_has_a_length_or_is_not_codable(s):
    try:
        bits = dl(s)
    except NotCodable:
        return
    assert bits > 0


@settings(max_examples=150, deadline=None)
@given(stages())
def test_every_valid_stage_is_codable(s):
    """The code's domain covers every stage the static checks accept: a stage without a code word
    has a check error (so `ludica check` can print the bits of every stage it passes)."""
    try:
        dl(s)
    except NotCodable as why:
        assert any(d.is_error for d in check(s)), f"no check error, but not codable: {why}"


@pytest.mark.parametrize("path", sorted(STAGES.glob("*.gdl")), ids=lambda p: p.stem)
def test_bundled_stages_are_codable(path):
    s = load(path)
    entries = bits_breakdown(s)
    assert math.fsum(b for _, b in entries) == pytest.approx(dl(s), abs=1e-9)
    assert 20 < dl(s) < 200


def test_every_node_class_has_a_cost_function():
    every = {c for c in vars(A).values() if isinstance(c, type) and issubclass(c, A.Node) and c is not A.Node}
    assert every - set(B._CODES) == set()


@pytest.mark.parametrize("why, text", [
    ("off-board cell", "board square 3\nplayers a b\nsetup a d1\nmove place empty\nend no-moves: draw\n"),
    ("off-board range", "board square 3\nplayers a b\nblocked a1..c4\nmove place empty\nend no-moves: draw\n"),
    ("three players", "board square 3\nplayers a b c\nmove place empty\nend no-moves: draw\n"),
    ("same names", "board square 3\nplayers a a\nmove place empty\nend no-moves: draw\n"),
    ("setup stranger", "board square 3\nplayers a b\nsetup c a1\nmove place empty\nend no-moves: draw\n"),
    ("forward stranger", "board square 3\nplayers a b\nforward c up\nmove place empty\nend no-moves: draw\n"),
    ("two headings", "board square 3\nplayers a b\nforward a up, a down\nmove place empty\nend no-moves: draw\n"),
    ("no move", "board square 3\nplayers a b\nend no-moves: draw\n"),
    ("no end", "board square 3\nplayers a b\nmove place empty\n"),
    ("jump 0", "board square 3\nplayers a b\nmove jump 0\nend no-moves: draw\n"),
    ("clone 0", "board square 3\nplayers a b\nmove clone 0\nend no-moves: draw\n"),
    ("line 0", "board square 3\nplayers a b\nmove place empty\nend line 0: draw\n"),
    ("after 0 plies", "board square 3\nplayers a b\nmove place empty\nend after 0 plies: draw\n"),
    ("side 0", "board rect 0 3\nplayers a b\nmove place empty\nend no-moves: draw\n"),
    ("side 27", "board square 27\nplayers a b\nmove place empty\nend no-moves: draw\n"),
])
def test_outside_the_domain_is_not_codable(why, text):
    s = parse(text)
    with pytest.raises(NotCodable):
        description_length(s)
    with pytest.raises(NotCodable):
        bits_breakdown(s)
    assert any(d.is_error for d in check(s)), "the static checks must reject what the code cannot say"


# --- Kraft equalities: Σ 2^-bits over finite sub-families, exactly ---------------------------------


def kraft(family, rest: float) -> float:
    """Σ 2^-(bits of the varied part) over a family of stages that differ only in one part, the
    rest costing `rest` bits (worked by hand from MINIMAL_BITS, never from the code under test)."""
    return math.fsum(2 ** -(dl(s) - rest) for s in family)


def with_(**fields) -> A.Stage:
    return dataclasses.replace(MINIMAL, **fields)


def all_cell_items(rows: int, cols: int):
    cells = [A.Cell(r, c) for r in range(rows) for c in range(cols)]
    return cells + [A.CellRange(a, b) for a in cells for b in cells]


def lists_upto(items, n: int, min_size: int = 0):
    for k in range(min_size, n + 1):
        yield from itertools.product(items, repeat=k)


def test_kraft_boards_are_complete():
    # every board: 26 squares, 26² rects, 26 hexes, each with and without wrap; Σ = 1 exactly
    sides = range(1, 27)
    boards = ([A.SquareBoard(n, w) for n in sides for w in (False, True)]
              + [A.HexBoard(n, w) for n in sides for w in (False, True)]
              + [A.RectBoard(r, c, w) for r in sides for c in sides for w in (False, True)])
    family = (with_(board=b) for b in boards)
    assert kraft(family, MINIMAL_BITS - (lg(3) + 1 + K + 1)) == pytest.approx(1, abs=1e-9)


def test_kraft_forward_is_complete():
    # no heading, a's, b's, both in either order: 1 + 4 + 4 + 16 + 16 = 41 stages, Σ = 1 exactly
    h = A.HEADINGS
    forwards = ([()] + [(A.Heading(p, x),) for p in "ab" for x in h]
                + [(A.Heading(p, x), A.Heading(q, y)) for p, q in ("ab", "ba") for x in h for y in h])
    assert kraft((with_(forward=f) for f in forwards), MINIMAL_BITS - 2) == pytest.approx(1, abs=1e-12)


def test_kraft_turn_and_pass_are_complete():
    family = [with_(turn=t(), pass_rule=p) for t in A.TURN_ORDERS for p in (None, A.PassForced())]
    assert kraft(family, MINIMAL_BITS - lg(3) - 1) == pytest.approx(1, abs=1e-12)


def test_kraft_blocked_lists():
    # on a 2x2 board a cell item costs 1 + lg 4 = 3 (4 cells) or 1 + 2·lg 4 = 5 (16 ranges): Σ = 1;
    # lists of 0, 1, 2 items: γ(1), γ(2), γ(3) = 1, 3, 3 bits, so Σ = 1/2 + 1/8 + 1/8 = 3/4
    # the rest: MINIMAL with side γ(2) = 3 instead of γ(1) = 1, without its blocked bit
    base = with_(board=A.SquareBoard(2))
    family = (dataclasses.replace(base, blocked=items) for items in lists_upto(all_cell_items(2, 2), 2))
    assert kraft(family, MINIMAL_BITS + 2 - 1) == pytest.approx(3 / 4, abs=1e-12)


def test_kraft_setup_lists():
    # no setup (γ(1): 1/2) or one (γ(2): 1/8) by either player (Σ 1) with 1 or 2 cell items
    # (γ(1), γ(2): 1/2 + 1/8, the items Σ 1 each): 1/2 + 1/8 · 5/8 = 37/64
    base = with_(board=A.SquareBoard(2))
    setups = [()] + [(A.Setup(p, cells),) for p in "ab" for cells in lists_upto(all_cell_items(2, 2), 2, 1)]
    family = (dataclasses.replace(base, setup=s) for s in setups)
    assert kraft(family, MINIMAL_BITS + 2 - 1) == pytest.approx(37 / 64, abs=1e-12)


def test_kraft_board_and_blocked_together():
    # the alphabet of a cell depends on the board: vary both. Boards with sides ≤ 2: a side's mass
    # is (1/2 + 1/8)/(491/512) = 320/491; blocked lists of ≤ 1 item have mass γ(1), γ(2):
    # 1/2 + 1/8 = 5/8 on every board (the items sum to 1). Σ = (square m + rect m² + hex m)/3 · 5/8.
    m = 320 / 491
    boards = ([A.SquareBoard(n, w) for n in (1, 2) for w in (False, True)]
              + [A.HexBoard(n, w) for n in (1, 2) for w in (False, True)]
              + [A.RectBoard(r, c, w) for r in (1, 2) for c in (1, 2) for w in (False, True)])
    family = (with_(board=b, blocked=items) for b in boards
              for items in lists_upto(all_cell_items(b.rows, b.cols), 1))
    assert kraft(family, MINIMAL_BITS - (lg(3) + 1 + K + 1) - 1) == pytest.approx((2 * m + m * m) / 3 * 5 / 8, abs=1e-12)


def test_kraft_directions():
    # `step DIRS to empty` with every list of 1 or 2 words (15 + 225): γ(1), γ(2) → 1/2 + 1/8
    words = A.DIRECTION_WORDS
    # the rest: MINIMAL, whose move now also chooses a target (lg 3)
    family = (with_(moves=(A.MoveRule(A.Step(A.Directions(w))),)) for w in lists_upto(words, 2, 1))
    assert kraft(family, MINIMAL_BITS + lg(3)) == pytest.approx(5 / 8, abs=1e-12)


def test_kraft_move_rules():
    # one move rule (γ(1): 1/2) of any kind: the three placements (3/7), step and slide with one
    # word (each 1/7 · 1/2), jump and clone with distance ≤ 3 (each 1/7 · 3/4), any target (Σ 1);
    # with no effect (γ(1): 1/2) or one (γ(2): 1/8): flip and remove with one word and either
    # over-blocked flag (1/4 · 1/2 each), convert with one word (1/4 · 1/2), require (1/4).
    # Σ = 1/2 · (3 + 1/2 + 1/2 + 3/4 + 3/4)/7 · (1/2 + 1/8 · 5/8)
    one_word = [A.Directions((w,)) for w in A.DIRECTION_WORDS]
    kinds = ([A.PlaceEmpty(), A.PlaceGravity(), A.PlaceAdjacent()]
             + [k(d, t) for k in (A.Step, A.Slide) for d in one_word for t in A.TARGETS]
             + [k(n, t) for k in (A.Jump, A.Clone) for n in (1, 2, 3) for t in A.TARGETS])
    effects = ([k(d, ob) for k in (A.FlipCustodial, A.RemoveCustodial) for d in one_word for ob in (False, True)]
               + [A.ConvertAdjacent(d) for d in one_word] + [A.RequireCapture()])
    family = (with_(moves=(A.MoveRule(k, e),)) for k in kinds for e in lists_upto(effects, 1))
    expected = 1 / 2 * (3 + 1 / 2 + 1 / 2 + 3 / 4 + 3 / 4) / 7 * (1 / 2 + 1 / 8 * 5 / 8)
    assert kraft(family, MINIMAL_BITS - (1 + lg(7) + 1)) == pytest.approx(expected, abs=1e-12)


def _all_ends(max_int: int):
    ints = range(1, max_int + 1)
    conditions = ([A.NoMoves(), A.BoardFull(), A.ReachFarRow(), A.NoPieces()]
                  + [A.Line(n, x) for n in ints for x in (False, True)]
                  + [A.Connect((a, b)) for a in A.SIDE_PAIRS for b in A.SIDE_PAIRS]
                  + [A.AfterPlies(n) for n in ints])
    return [A.End(c, r()) for c in conditions for r in A.RESULTS]


def test_kraft_end_lists():
    # one or two ends (γ(1), γ(2): 1/2, 1/8); an end's condition: four plain ones, connect (Σ 1
    # over its four side pairs), line and after with integers ≤ 3 (Σ γ = 3/4 each), over 7; any
    # result (Σ 1). Σ = 1/2 · c + 1/8 · c² with c = (4 + 1 + 3/4 + 3/4)/7
    c = (4 + 1 + 3 / 4 + 3 / 4) / 7
    family = (with_(ends=e) for e in lists_upto(_all_ends(3), 2, 1))
    assert kraft(family, MINIMAL_BITS - (1 + lg(7) + lg(5))) == pytest.approx(c / 2 + c * c / 8, abs=1e-12)


# --- an independent sampler of `end` lists: frequencies match 2^-bits ------------------------------


def _gamma_sample(rng: random.Random) -> int:
    """n ≥ 1 with probability 2^-γ(n): k fair zero bits then a one, then k more bits."""
    k = 0
    while rng.random() < 0.5:
        k += 1
    return (1 << k) | rng.getrandbits(k) if k else 1


def _sample_ends(rng: random.Random) -> tuple:
    """An `end` list drawn choice by choice, as plain tuples (condition index, its parameters,
    result index): the number of ends and every integer by gamma, every choice uniformly."""
    out = []
    for _ in range(_gamma_sample(rng)):
        kind = rng.randrange(7)  # no-moves, board-full, line, reach far-row, connect, no-pieces, after
        if kind == 2:
            params = (_gamma_sample(rng), rng.randrange(2))
        elif kind == 4:
            params = (rng.randrange(2), rng.randrange(2))
        elif kind == 6:
            params = (_gamma_sample(rng),)
        else:
            params = ()
        out.append((kind, params, rng.randrange(5)))
    return tuple(out)


def _as_ends(drawn: tuple) -> tuple[A.End, ...]:
    """The AST of a drawn `end` list."""
    def condition(kind, params):
        if kind == 2:
            return A.Line(params[0], bool(params[1]))
        if kind == 4:
            return A.Connect(tuple(A.SIDE_PAIRS[i] for i in params))
        if kind == 6:
            return A.AfterPlies(params[0])
        return A.CONDITIONS[kind]()
    return tuple(A.End(condition(k, ps), A.RESULTS[r]()) for k, ps, r in drawn)


def test_sampled_frequencies_match_two_to_the_minus_bits():
    n = 40_000
    rng = random.Random(20240613)
    counts = Counter(_sample_ends(rng) for _ in range(n))
    rest = MINIMAL_BITS - (1 + lg(7) + lg(5))  # everything but the `end` list, by hand

    def p(drawn) -> float:
        return 2 ** -(dl(with_(ends=_as_ends(drawn))) - rest)

    # single outcomes: the 20 single plain ends (p = 1/2 · 1/7 · 1/5 = 1/70 each), and a few others
    plain = [((k, (), r),) for k in (0, 1, 3, 5) for r in range(5)]
    others = [((2, (3, 0), 0),), ((4, (0, 1), 4),), ((6, (1,), 2),), ((0, (), 4), (1, (), 4))]
    assert _as_ends(others[0]) == (A.End(A.Line(3), A.MoverWins()),)
    assert _as_ends(others[3]) == (A.End(A.NoMoves(), A.Draw()), A.End(A.BoardFull(), A.Draw()))
    assert p(plain[0]) == pytest.approx(1 / 70)
    for drawn in plain + others:
        expected = n * p(drawn)
        assert abs(counts[drawn] - expected) <= 4.5 * math.sqrt(expected) + 2, (drawn, counts[drawn], expected)
    # the 20 plain single ends together: 20/70 of all draws, a much tighter test
    total = sum(counts[d] for d in plain)
    expected = n * sum(p(d) for d in plain)
    assert expected == pytest.approx(n * 20 / 70)
    assert abs(total - expected) <= 4 * math.sqrt(expected)
    # importance weights: E[2^bits(s) · 1{s ∈ S}] = |S| when P(s) = 2^-bits(s); S = 44 outcomes
    # (single ends: every condition with integers ≤ 1 and connect, and every result)
    singles = [((k, (), r),) for k in (0, 1, 3, 5) for r in range(5)]
    singles += [((2, (1, x), r),) for x in (0, 1) for r in range(5)] + [((6, (1,), r),) for r in range(5)]
    singles += [((4, (a, b), 0),) for a in (0, 1) for b in (0, 1)] + [((4, (0, 0), r),) for r in (1, 2, 3, 4)]
    singles += [((2, (2, 0), 0),)]
    assert len(set(singles)) == 44
    estimate = sum(counts[d] / p(d) for d in singles) / n
    assert estimate == pytest.approx(44, rel=0.05)
