"""The rules in plain English (gdl/english.py): golden texts for the bundled stages (each read by a
person against its .gdl file), what the Othello and tic-tac-toe relatives change from their base,
and for every stage the sampler draws (fresh stages and variants): rules without error, with no
placeholder left, that differ from the base's whenever the game does.

Goldens are compared with their whitespace folded (they are wrapped to fit here); the line breaks
that carry meaning (numbered lists) are checked on their own.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ludica import gdl
from ludica.cli import main
from ludica.gdl import ast as A
from ludica.gdl import geometry
from ludica.sampler import edits, prior
from ludica.sampler.prior import generator

STAGES = Path(__file__).resolve().parents[1] / "stages"


def load(name: str) -> A.Stage:
    return gdl.load(STAGES / f"{name}.gdl")


def folded(text: str) -> str:
    return " ".join(text.split())


RULES = {
    "standard-8x8": """\
The game is played on a square board of 8 by 8 cells. Columns are lettered a to h from left to right
and rows are numbered 1 to 8 from top to bottom, so a1 is the top-left cell and h8 the bottom-right
one. Directions are named as on a compass with north at the top: n points to row 1, s to the bottom,
e to the right, w to the left, and ne, se, sw, nw are the diagonals between them.

There are two players, black and white. At the start, black has pieces on e4 and d5; white has
pieces on d4 and e5; every other cell is empty. Each player has a single kind of piece, with no
limit on how many.

The first to move is black. The players take turns, one move each.

On your turn, put a new piece on any empty cell. Then, looking from the cell just played in each of
the 8 directions, every unbroken line of one or more of your opponent's pieces closed at its far end
by one of your pieces is flipped: those pieces become yours; an empty cell, a blocked cell or the
board's edge ends a line with nothing taken. All the lines are read on the board as it was before
any of them is taken. This move is allowed only if it flips at least one piece. In the game's
record, a move that puts a new piece is written as its cell (such as c3) and a pass is written as
pass.

If you have no legal move but your opponent has one, you must pass: passing is then your only move.
If neither player can move, nobody passes.

The game ends as soon as this holds, checked on the starting position and after every move and pass:
if the player to move has no legal move (not even a pass), the player with more pieces on the board
wins (a draw if both have as many).
""",
    "tic-tac-toe": """\
The game is played on a square board of 3 by 3 cells. Columns are lettered a to c from left to right
and rows are numbered 1 to 3 from top to bottom, so a1 is the top-left cell and c3 the bottom-right
one.

There are two players, x and o. The board starts empty. Each player has a single kind of piece, with
no limit on how many.

The first to move is x. The players take turns, one move each.

On your turn, put a new piece on any empty cell. In the game's record, a move that puts a new piece
is written as its cell (such as c3).

There is no passing: a player who has no legal move cannot move at all.

The game ends as soon as one of these holds; they are checked in this order on the starting position
and after every move and pass, and the first that holds decides:
1. If the player who just moved has at least 3 pieces in an unbroken straight line along a row, a
    column or a diagonal, the player who just moved wins.
2. If no empty cell is left on the board, the game is a draw.
Before the first move, the player who just moved is taken to be o. If no end holds but the player to
move has no legal move at all, the game ends in a draw.
""",
    "connect-four": """\
The game is played on a rectangular board of 6 rows by 7 columns. Columns are lettered a to g from
left to right and rows are numbered 1 to 6 from top to bottom, so a1 is the top-left cell and g6 the
bottom-right one.

There are two players, red and yellow. The board starts empty. Each player has a single kind of
piece, with no limit on how many.

The first to move is red. The players take turns, one move each.

On your turn, put a new piece on the lowest empty cell of any column, as if dropped from the top
(the empty cell of the column nearest the bottom edge; blocked cells do not stop it). In the game's
record, a move that puts a new piece is written as its cell (such as c3).

There is no passing: a player who has no legal move cannot move at all.

The game ends as soon as one of these holds; they are checked in this order on the starting position
and after every move and pass, and the first that holds decides:
1. If the player who just moved has at least 4 pieces in an unbroken straight line along a row, a
    column or a diagonal, the player who just moved wins.
2. If no empty cell is left on the board, the game is a draw.
Before the first move, the player who just moved is taken to be yellow. If no end holds but the
player to move has no legal move at all, the game ends in a draw.
""",
    "hex-11": """\
The game is played on a rhombus of 11 by 11 hexagonal cells, as in Hex. Columns are lettered a to k
from left to right and rows are numbered 1 to 11 from top to bottom, so a1 is the top-left cell and
k11 the bottom-right one. Each row is shifted half a cell to the right of the row above it, so a
cell touches up to six others: n and ne in the row above, w and e in its own row, sw and s in the
row below.

There are two players, red and blue. The board starts empty. Each player has a single kind of piece,
with no limit on how many.

The first to move is red. The players take turns, one move each.

On your turn, put a new piece on any empty cell. In the game's record, a move that puts a new piece
is written as its cell (such as c3).

There is no passing: a player who has no legal move cannot move at all.

The game ends as soon as this holds, checked on the starting position and after every move and pass:
if the pieces of the player who just moved join that player's two sides (for red, the top and bottom
rows, rows 1 and 11; for blue, the left and right columns, columns a and k) in an unbroken chain,
each piece next to the one before it in any of the 6 directions, the player who just moved wins.
Before the first move, the player who just moved is taken to be blue. If no end holds but the player
to move has no legal move at all, the game ends in a draw.
""",
    "breakthrough": """\
The game is played on a square board of 8 by 8 cells. Columns are lettered a to h from left to right
and rows are numbered 1 to 8 from top to bottom, so a1 is the top-left cell and h8 the bottom-right
one. Directions are named as on a compass with north at the top: n points to row 1, s to the bottom,
e to the right, w to the left, and ne, se, sw, nw are the diagonals between them.

There are two players, white and black. At the start, white has pieces on every cell of rows 1 and
2; black has pieces on every cell of rows 7 and 8; every other cell is empty. Each player has a
single kind of piece, with no limit on how many. Forward means: for white, down the board, towards
row 8; for black, up the board, towards row 1.

The first to move is white. The players take turns, one move each.

On your turn, make one of these moves:
1. Move one of your pieces one cell in any direction that is straight forward or diagonally forward
    (for white se, s or sw; for black n, ne or nw), onto an empty cell.
2. Move one of your pieces one cell in any direction that is diagonally forward (for white se or sw;
    for black ne or nw), onto a cell holding a piece of your opponent's, which is captured (removed
    from the board).
If one move (the same cell, or the same start and end cells) fits more than one of these, the first
of them that allows it is the one played. In the game's record, a move of a piece is written as its
start and end cells (such as b2-b3).

There is no passing: a player who has no legal move cannot move at all.

The game ends as soon as one of these holds; they are checked in this order on the starting position
and after every move and pass, and the first that holds decides:
1. If a piece of the player who just moved stands on that player's far row (for white, row 8; for
    black, row 1), the player who just moved wins.
2. If the player to move has no piece on the board, the player who just moved wins.
Before the first move, the player who just moved is taken to be black. If no end holds but the
player to move has no legal move at all, the game ends in a draw.
""",
    "ataxx": """\
The game is played on a square board of 7 by 7 cells. Columns are lettered a to g from left to right
and rows are numbered 1 to 7 from top to bottom, so a1 is the top-left cell and g7 the bottom-right
one. Directions are named as on a compass with north at the top: n points to row 1, s to the bottom,
e to the right, w to the left, and ne, se, sw, nw are the diagonals between them.

There are two players, red and blue. At the start, red has pieces on a1 and g7; blue has pieces on
g1 and a7; every other cell is empty. Each player has a single kind of piece, with no limit on how
many.

The first to move is red. The players take turns, one move each.

On your turn, make one of these moves:
1. Put a new piece on an empty cell exactly 1 cell away from one of your pieces, whatever lies
    between; that piece stays where it is (the distance is the fewest one-cell steps in any of the 8
    directions that lead there, counting blocked cells). Then every piece of your opponent's on a
    cell next to the cell just played (in any of the 8 directions) becomes yours.
2. Move one of your pieces to an empty cell exactly 2 cells away, whatever lies between (the
    distance is the fewest one-cell steps in any of the 8 directions that lead there, counting
    blocked cells). Then every piece of your opponent's on a cell next to the cell just played (in
    any of the 8 directions) becomes yours.
If one move (the same cell, or the same start and end cells) fits more than one of these, the first
of them that allows it is the one played. In the game's record, a move that puts a new piece is
written as its cell (such as c3), a move of a piece is written as its start and end cells (such as
b2-b3) and a pass is written as pass.

If you have no legal move but your opponent has one, you must pass: passing is then your only move.
If neither player can move, nobody passes.

The game ends as soon as one of these holds; they are checked in this order on the starting position
and after every move and pass, and the first that holds decides:
1. If the player to move has no piece on the board, the player who just moved wins.
2. If the player to move has no legal move (not even a pass), the player with more pieces on the
    board wins (a draw if both have as many).
3. If 400 plies have been played in all (each move and each pass is one ply), the player with more
    pieces on the board wins (a draw if both have as many).
Before the first move, the player who just moved is taken to be blue.
""",
    "custodian": """\
The game is played on a square board of 7 by 7 cells. Columns are lettered a to g from left to right
and rows are numbered 1 to 7 from top to bottom, so a1 is the top-left cell and g7 the bottom-right
one. Directions are named as on a compass with north at the top: n points to row 1, s to the bottom,
e to the right, w to the left, and ne, se, sw, nw are the diagonals between them.

There are two players, black and white. The board starts empty. Each player has a single kind of
piece, with no limit on how many.

The first to move is black. The players take turns, one move each.

On your turn, put a new piece on any empty cell. Then, looking from the cell just played in each of
the 4 orthogonal directions (n, e, s and w), every unbroken line of one or more of your opponent's
pieces closed at its far end by one of your pieces is removed from the board; an empty cell, a
blocked cell or the board's edge ends a line with nothing taken. All the lines are read on the board
as it was before any of them is taken. In the game's record, a move that puts a new piece is written
as its cell (such as c3).

There is no passing: a player who has no legal move cannot move at all.

The game ends as soon as one of these holds; they are checked in this order on the starting position
and after every move and pass, and the first that holds decides:
1. If no empty cell is left on the board, the player with more pieces on the board wins (a draw if
    both have as many).
2. If 80 plies have been played in all (each move and each pass is one ply), the player with more
    pieces on the board wins (a draw if both have as many).
If no end holds but the player to move has no legal move at all, the game ends in a draw.
""",
    "dice-race": """\
The game is played on a rectangular board of 3 rows by 12 columns. Columns are lettered a to l from
left to right and rows are numbered 1 to 3 from top to bottom, so a1 is the top-left cell and l3 the
bottom-right one. Directions are named as on a compass with north at the top: n points to row 1, s
to the bottom, e to the right, w to the left, and ne, se, sw, nw are the diagonals between them.

There are two players, white and black. At the start, white has pieces on a1, a2 and a3; black has
pieces on l1, l2 and l3; every other cell is empty. Each player has a single kind of piece, with no
limit on how many. Forward means: for white, to the right, towards column l; for black, to the left,
towards column a.

The first to move is white. The players take turns, one move each. Before every turn, one die of 6
faces is thrown for the player to move, at random and anew each time (each face as likely); the
roll, from 1 to 6, is seen by both players.

On your turn, move one of your pieces exactly as many cells as this turn's roll in a straight line
in any direction that is straight forward (for white e; for black w), passing over whatever lies
between, onto an empty cell or a cell holding a piece of your opponent's, which is then captured
(removed from the board). In the game's record, a move of a piece is written as its start and end
cells (such as b2-b3) and a pass is written as pass.

If you have no legal move but your opponent has one, you must pass: passing is then your only move.
If neither player can move, nobody passes. With dice, your legal moves are those your roll gives
you, and your opponent has a move when some roll would give it one.

The game ends as soon as one of these holds; they are checked in this order on the starting position
and after every move and pass, and the first that holds decides:
1. If a piece of the player who just moved stands on that player's far row (for white, column l; for
black, column a), the player who just moved wins.
2. If the player to move has no piece on the board, the player who just moved wins.
Before the first move, the player who just moved is taken to be black. If no end holds but the
player to move has no legal move at all, the game ends in a draw.

""",
}
# What a stage made dark (`hidden opponent-pieces`, `refused retry`) says it changed, whatever its base
MADE_DARK = """\
What is hidden is new: "You do not see your opponent's moves. You see your own pieces at all times,
and every other cell as you last saw it: as it was at the start, as your own move left it, as it
became when one of your pieces was taken or changed side there, or as a refused try showed it. You
choose your move among those your view of the board allows (a try); the true board may refuse it." A
refused try is new: "A try the true board refuses is not played: you are told so, you see what is
truly on the cell it was to reach, and you try again."
"""
CHANGES = {
    ("standard-8x8", "othello-10x10"): """\
The board: now "a square board of 10 by 10 cells" (it was "a square board of 8 by 8 cells").
At the start, black now also has pieces on f5 and e6; black no longer has pieces on e4 and d5.
At the start, white now also has a piece on f6; white no longer has a piece on d4.
""",
    ("standard-8x8", "othello-split-setup"): """\
At the start, black now also has a piece on d4; black no longer has a piece on d5.
At the start, white now also has a piece on d5; white no longer has a piece on d4.
""",
    ("standard-8x8", "partial-c-squares-cw"): """\
The cells b1, h2, a7 and g8 are now blocked.
""",
    ("standard-8x8", "reverse-othello"): """\
End rule 1: now "If the player to move has no legal move (not even a pass), the player with fewer
pieces on the board wins (a draw if both have as many)." (it was "If the player to move has no legal
move (not even a pass), the player with more pieces on the board wins (a draw if both have as
many).").
""",
    ("standard-8x8", "small-board-6x6"): """\
The board: now "a square board of 6 by 6 cells" (it was "a square board of 8 by 8 cells").
At the start, black now also has pieces on d3 and c4; black no longer has pieces on e4 and d5.
At the start, white now also has a piece on c3; white no longer has a piece on e5.
""",
    ("standard-8x8", "fewer-pieces-continue"): """\
The turn order: now "After each move, the player with strictly fewer pieces on the board moves next,
even if that is the player who just moved; with as many pieces each, the other player moves next."
(it was "The players take turns, one move each.").
""",
    ("standard-8x8", "c-squares-occlusion-agnostic"): """\
The cells b1, h2, a7 and g8 are now blocked.
In move 1, effect 1: now "Then, looking from the cell just played in each of the 8 directions, every
unbroken line of one or more of your opponent's pieces closed at its far end by one of your pieces
is flipped: those pieces become yours; an empty cell or the board's edge ends a line with nothing
taken, but a blocked cell is skipped over, neither taken nor ending the line. All the lines are read
on the board as it was before any of them is taken." (it was "Then, looking from the cell just
played in each of the 8 directions, every unbroken line of one or more of your opponent's pieces
closed at its far end by one of your pieces is flipped: those pieces become yours; an empty cell, a
blocked cell or the board's edge ends a line with nothing taken. All the lines are read on the board
as it was before any of them is taken.").
""",
    ("tic-tac-toe", "misere-tic-tac-toe"): """\
End rule 1: now "If the player who just moved has at least 3 pieces in an unbroken straight line
along a row, a column or a diagonal, the player who just moved loses." (it was "If the player who
just moved has at least 3 pieces in an unbroken straight line along a row, a column or a diagonal,
the player who just moved wins.").
""",
    ("tic-tac-toe", "mnk-5-6-4"): """\
The board: now "a rectangular board of 5 rows by 6 columns" (it was "a square board of 3 by 3
cells").
End rule 1: now "If the player who just moved has at least 4 pieces in an unbroken straight line
along a row, a column or a diagonal, the player who just moved wins." (it was "If the player who
just moved has at least 3 pieces in an unbroken straight line along a row, a column or a diagonal,
the player who just moved wins.").
""",
    ("tic-tac-toe", "gomoku"): """\
The board: now "a square board of 15 by 15 cells" (it was "a square board of 3 by 3 cells").
End rule 1: now "If the player who just moved has exactly 5 pieces in an unbroken straight line
along a row, a column or a diagonal (a longer line does not count), the player who just moved wins."
(it was "If the player who just moved has at least 3 pieces in an unbroken straight line along a
row, a column or a diagonal, the player who just moved wins.").
""",
    ("tic-tac-toe", "phantom-tic-tac-toe"): MADE_DARK,
    ("phantom-tic-tac-toe", "phantom-tic-tac-toe-abrupt"): """\
A refused try: now "A try the true board refuses is not played: you are told so, you see what is
truly on the cell it was to reach, and your turn is over." (it was "A try the true board refuses is
not played: you are told so, you see what is truly on the cell it was to reach, and you try
again.").
""",
    ("hex-11", "dark-hex-11"): MADE_DARK,
    ("dark-hex-11", "dark-hex-5"): """\
The board: now "a rhombus of 5 by 5 hexagonal cells, as in Hex" (it was "a rhombus of 11 by 11
hexagonal cells, as in Hex").
""",
    ("dark-hex-11", "dark-hex-3"): """\
The board: now "a rhombus of 3 by 3 hexagonal cells, as in Hex" (it was "a rhombus of 11 by 11
hexagonal cells, as in Hex").
""",
    ("connect-four", "phantom-connect-four"): MADE_DARK,
    ("standard-8x8", "dark-othello"): MADE_DARK,
    ("breakthrough", "dark-breakthrough"): MADE_DARK + """\
Reveal 1 is new: "After every move played, each player also sees, as they truly are, the cells its
moves could reach on the true board if it were to move now."
""",
    ("standard-8x8", "othello-random-setup"): """\
At the start, black no longer has pieces on e4 and d5. At the start, white no longer has pieces on
d4 and e5. Random setup 1 is new: "two of black's pieces placed at random on empty cells among d4,
e4, d5 and e5". Random setup 2 is new: "two of white's pieces placed at random on empty cells among
d4, e4, d5 and e5".
""",
    ("standard-8x8", "othello-random-blocks"): """\
Random blocked cells 1 is new: "four cells among every cell of rows 1, 2, 3, 4, 5, 6, 7 and 8
blocked at random".
""",
}


@pytest.mark.parametrize("name", RULES)
def test_the_rules_of_a_bundled_stage(name):
    assert folded(gdl.rules_text(load(name))) == folded(RULES[name])


@pytest.mark.parametrize("base, variant", CHANGES, ids="-".join)
def test_what_a_bundled_relative_changes(base, variant):
    said = gdl.changes(load(base), load(variant))
    assert folded(" ".join(said)) == folded(CHANGES[base, variant])
    assert len(said) == len(edits.describe(load(base), load(variant)).split("; "))


def test_every_bundled_stage_has_golden_rules_or_a_golden_change():
    named = set(RULES) | {variant for _, variant in CHANGES}
    assert named == {p.stem for p in STAGES.glob("*.gdl")}


def test_the_paragraphs_come_in_order_and_lists_are_numbered():
    paragraphs = gdl.rules(load("breakthrough"))
    assert [p.split()[0] for p in paragraphs] == ["The", "There", "The", "On", "There", "The"]
    assert paragraphs[3].splitlines()[1].startswith("1. Move") and paragraphs[3].splitlines()[2].startswith("2. Move")
    assert gdl.rules_text(load("breakthrough")) == "\n\n".join(paragraphs) + "\n"


def test_ludica_show_prints_the_rules(capsys):
    assert main(["show", "hex-11", "--rules"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Hex 11x11\n\n") and folded(RULES["hex-11"]) in folded(out)


# --- every stage the sampler draws ------------------------------------------------------------------


def accepted_fresh(seed: int) -> A.Stage:
    """The first stage of the whole language's prior, for this seed, that the checks accept."""
    for number in range(5000):
        drawn = prior.draw(generator(seed, number))
        if drawn.rejected is None:
            return drawn.stage
    raise AssertionError(f"no fresh stage accepted in 5000 draws of seed {seed}")


def meaning(stage: A.Stage) -> A.Stage:
    """The stage with what the rules cannot show made alike: its name (a label), how its cells are
    written (order, ranges, repeats, spread over several lines) and which direction words name a
    set of directions (`orthogonal` or `n e s w`): the rules say the cells and the directions."""
    is_hex = geometry.hexagonal(stage.board)
    headings = [next((h.heading for h in stage.forward if h.player == p), None) for p in stage.player_names]

    def directions(d: A.Directions) -> A.Directions:
        resolved = []
        for heading in headings:
            try:
                resolved.append(" ".join(geometry.resolve(d.words, is_hex, heading)))
            except geometry.DirectionError:
                resolved.append("?" + " ".join(d.words))
        return A.Directions(tuple(resolved))

    def node(n):
        if dataclasses.is_dataclass(n) and isinstance(getattr(n, "directions", None), A.Directions):
            return dataclasses.replace(n, directions=directions(n.directions))
        return n

    def cells(items) -> tuple[A.Cell, ...]:
        return tuple(sorted(set(A.expand(items)), key=lambda c: (c.row, c.col)))

    setup = tuple(A.Setup(p, cells(tuple(c for s in stage.setup if s.player == p for c in s.cells)))
                  for p in stage.player_names)
    moves = tuple(A.MoveRule(node(m.kind), tuple(node(e) for e in m.effects)) for m in stage.moves)
    return dataclasses.replace(stage, name="", blocked=cells(stage.blocked), setup=setup, moves=moves)


BASES = ("standard-8x8", "breakthrough", "ataxx", "connect-four", "hex-11", "custodian")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6))
def test_every_fresh_stage_gets_rules(seed):
    stage, other = accepted_fresh(seed), accepted_fresh(seed + 1)
    text = gdl.rules_text(stage)
    assert "{" not in text and "}" not in text
    assert all(f" {name}" in text for name in stage.player_names)
    if meaning(stage) != meaning(other):
        assert text != gdl.rules_text(other)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BASES), st.sampled_from(sorted(edits.FAMILIES)), st.integers(0, 10**6))
@example("breakthrough", "all", 2705)  # a piece moved to a cell its own kind already held
def test_every_variant_gets_rules_that_differ_when_the_game_does(name, family, seed):
    base = load(name)
    if family != "all" and name != "standard-8x8":
        family = "all"  # the arena family edits Othello stages only
    edited = edits.edit(base, generator(seed, 0), family)
    if edited.stage is None or edited.rejected is not None:
        return
    text = gdl.rules_text(edited.stage)
    assert "{" not in text and "}" not in text
    if meaning(edited.stage) != meaning(base):
        assert text != gdl.rules_text(base), f"{edited.changes}: the rules read the same"
    said = gdl.changes(base, edited.stage)
    assert len(said) == len(edited.changes.split("; ")), (said, edited.changes)
    assert gdl.changes(base, base) == [] and gdl.changes(edited.stage, edited.stage) == []


def test_directions_that_name_the_same_set_read_the_same():
    """The one change the rules cannot show, besides names and how cells are written: direction
    words that name the same directions (a capture-rays edit from `all` to `orthogonal diagonal`)."""
    base = load("standard-8x8")
    flip = base.moves[0].effects[0]
    same = dataclasses.replace(flip, directions=A.Directions(("orthogonal", "diagonal")))
    other = dataclasses.replace(flip, directions=A.Directions(("orthogonal",)))
    def with_flip(effect):
        return dataclasses.replace(base, moves=(A.MoveRule(base.moves[0].kind, (effect,) + base.moves[0].effects[1:]),))
    assert gdl.rules_text(with_flip(same)) == gdl.rules_text(base)
    assert gdl.rules_text(with_flip(other)) != gdl.rules_text(base)
    assert "in each of the 4 orthogonal directions (n, e, s and w)" in gdl.rules_text(with_flip(other))
