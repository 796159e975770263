"""The reference interpreter, rule concept by rule concept, on scripted positions.

Diagrams: `.` empty, `X` the first player's piece, `O` the second's, `#` blocked; row 1 on top,
column a on the left. Stages are built from AST nodes (the parser is tested on its own).
"""
from __future__ import annotations

import numpy as np
import pytest

from ludica.gdl.ast import (
    CONDITIONS, EFFECT_KINDS, MOVE_KINDS, RESULTS, TURN_ORDERS, AfterPlies, AgainAfterCapture,
    BoardFull, Cell, CellRange, Clone, Connect, ConvertAdjacent, Directions, Draw, End, FlipCustodial,
    Heading, HexBoard, Jump, Line, MostPieces, MoveRule, MoverLoses, MoverWins, NoMoves, NoPieces,
    PassForced, PlaceAdjacent, PlaceEmpty, PlaceGravity, Players, ReachFarRow, RectBoard,
    RemoveCustodial, RequireCapture, Setup, Slide, SquareBoard, Stage, Step,
)
from ludica.gdl.game import PASS, Move, perft
from ludica.gdl.interpreter import State, reference
from ludica.gdl.interpreter import effects, ends, moves, turns
from ludica.gdl.interpreter.topology import Topology

_SYMBOLS = {".": 0, "X": 1, "O": 2, "#": -1}


def make_stage(board=SquareBoard(3), moves=(MoveRule(PlaceEmpty()),), ends=(), players=("x", "o"), **rest) -> Stage:
    return Stage(name="test", board=board, players=Players(players), moves=moves, ends=ends, **rest)


def position(game, diagram: str, to_move: int = 0, ply: int = 0) -> State:
    """A state from a diagram; the mover is the other side."""
    rows = [line.split() for line in diagram.strip().splitlines()]
    cells = tuple(_SYMBOLS[ch] for row in rows for ch in row)
    assert (len(rows), len(rows[0])) == (game.rows, game.cols), "diagram does not fit the board"
    blocked = game.board(game.initial_state()) < 0
    assert np.array_equal(np.array(cells).reshape(game.rows, game.cols) < 0, blocked), "blocked cells differ"
    return State(cells, to_move=to_move, mover=1 - to_move, ply=ply)


def legal(game, state) -> list[str]:
    return [str(m) for m in game.legal_moves(state)]


def play(game, state, *texts: str) -> State:
    for text in texts:
        state = game.apply(state, game.parse_move(text))
    return state


def dirs(*words: str) -> Directions:
    return Directions(words)


TIC_TAC_TOE = make_stage(ends=(End(Line(3), MoverWins()), End(BoardFull(), Draw())))
CONNECT_FOUR = make_stage(
    board=RectBoard(6, 7),
    players=("red", "yellow"),
    moves=(MoveRule(PlaceGravity()),),
    ends=(End(Line(4), MoverWins()), End(BoardFull(), Draw())),
)
BREAKTHROUGH = make_stage(
    board=SquareBoard(5),
    players=("white", "black"),
    forward=(Heading("white", "down"), Heading("black", "up")),
    setup=(Setup("white", (CellRange(Cell(0, 0), Cell(0, 4)),)), Setup("black", (CellRange(Cell(4, 0), Cell(4, 4)),))),
    moves=(
        MoveRule(Step(dirs("forward", "forward-diagonal"), "empty")),
        MoveRule(Step(dirs("forward-diagonal"), "enemy")),
    ),
    ends=(End(ReachFarRow(), MoverWins()), End(NoPieces(), MoverWins())),
)
ATAXX = make_stage(
    board=SquareBoard(5),
    players=("red", "blue"),
    setup=(Setup("red", (Cell(0, 0), Cell(4, 4))), Setup("blue", (Cell(0, 4), Cell(4, 0)))),
    moves=(MoveRule(Clone(1), (ConvertAdjacent(),)), MoveRule(Jump(2), (ConvertAdjacent(),))),
    pass_rule=PassForced(),
    ends=(End(NoMoves(), MostPieces()), End(NoPieces(), MoverWins())),
)


# --- the contract ---------------------------------------------------------------------------------


def test_every_ast_class_has_its_function():
    assert set(moves._GENERATORS) == set(MOVE_KINDS) == set(moves._VACATES_ORIGIN)
    assert set(effects._EFFECTS) == set(EFFECT_KINDS)
    assert set(turns._TURN) == set(TURN_ORDERS)
    assert set(ends._CONDITIONS) == set(CONDITIONS)
    assert set(ends._RESULTS) == set(RESULTS)


def test_initial_state_setup_blocked_and_board_encoding():
    stage = make_stage(
        board=RectBoard(2, 3),
        blocked=(Cell(1, 2),),
        setup=(Setup("o", (Cell(0, 0),)), Setup("x", (CellRange(Cell(0, 1), Cell(1, 1)),))),
    )
    game = reference(stage)
    s = game.initial_state()
    assert (game.rows, game.cols, game.players) == (2, 3, ("x", "o"))
    assert s == State((2, 1, 0, 0, 1, -1), to_move=0, mover=1, ply=0)
    b = game.board(s)
    assert b.shape == (2, 3) and b.tolist() == [[2, 1, 0], [0, 1, -1]]
    assert hash(s) == hash(State((2, 1, 0, 0, 1, -1), 0, 1, 0))


def test_move_order_placements_then_piece_moves_row_major():
    # The step rule is written first, but placements always come first.
    #   a b c
    # 1 X . .
    # 2 . . .
    # 3 . . X
    game = reference(make_stage(moves=(MoveRule(Step()), MoveRule(PlaceEmpty()))))
    s = position(game, """
        X . .
        . . .
        . . X
    """)
    assert legal(game, s) == [
        "b1", "c1", "a2", "b2", "c2", "a3", "b3",
        "a1-b1", "a1-a2", "a1-b2", "c3-b2", "c3-c2", "c3-b3",
    ]


def test_apply_returns_a_new_state_and_leaves_the_old_one_alone():
    game = reference(TIC_TAC_TOE)
    s0 = game.initial_state()
    before = State(tuple(s0.cells), s0.to_move, s0.mover, s0.ply)
    s1, taken = game.apply_counted(s0, Move.parse("b2"))
    assert s0 == before and game.initial_state() == before
    assert s1 == State((0, 0, 0, 0, 1, 0, 0, 0, 0), to_move=1, mover=0, ply=1) and taken == 0


def test_apply_of_an_illegal_move_raises_naming_it_and_the_legal_ones():
    game = reference(TIC_TAC_TOE)
    s = play(game, game.initial_state(), "a1")
    with pytest.raises(ValueError, match=r"illegal move 'a1': legal moves are b1 c1 a2 b2 c2 a3 b3 c3$"):
        game.apply(s, Move.parse("a1"))
    with pytest.raises(ValueError, match="illegal move 'pass'"):
        game.apply(s, PASS)
    over = play(game, game.initial_state(), "a1", "a2", "b1", "b2", "c1")
    assert game.is_terminal(over) and game.legal_moves(over) == []
    with pytest.raises(ValueError, match="the game is over"):
        game.apply(over, Move.parse("c3"))


def test_parse_move():
    game = reference(TIC_TAC_TOE)
    assert game.parse_move("b2-c3") == Move((1, 1), (2, 2))
    assert game.parse_move("pass") == PASS
    with pytest.raises(ValueError, match="not a move"):
        game.parse_move("b")


def test_stages_the_interpreter_cannot_run_are_refused():
    with pytest.raises(ValueError, match="needs a heading"):
        reference(make_stage(moves=(MoveRule(Step(dirs("forward"))),)))
    with pytest.raises(ValueError, match="no direction 'se' on a hex board"):
        reference(make_stage(board=HexBoard(3), moves=(MoveRule(Step(dirs("se"))),)))
    with pytest.raises(ValueError, match="'z', which is not a player"):
        reference(make_stage(setup=(Setup("z", (Cell(0, 0),)),)))
    with pytest.raises(ValueError, match="off the 3x3 board"):
        reference(make_stage(setup=(Setup("x", (Cell(3, 0),)),)))
    with pytest.raises(ValueError, match="needs a heading"):
        reference(make_stage(ends=(End(ReachFarRow(), MoverWins()),)))


# --- directions, distances ------------------------------------------------------------------------


@pytest.mark.parametrize("board, heading, word, expected", [
    (SquareBoard(3), "down", "forward-diagonal", ("se", "sw")),
    (SquareBoard(3), "up", "forward", ("n",)),
    (SquareBoard(3), "right", "forward-diagonal", ("ne", "se")),
    (SquareBoard(3), "left", "backward", ("e",)),
    (SquareBoard(3), "left", "sideways", ("n", "s")),
    (HexBoard(3), "down", "forward", ("s", "sw")),
    (HexBoard(3), "down", "backward", ("n", "ne")),
    (HexBoard(3), "up", "forward-diagonal", ()),
    (HexBoard(3), "right", "forward", ("ne", "e")),
    (HexBoard(3), "up", "diagonal", ()),
    (HexBoard(3), "up", "orthogonal", ("n", "ne", "e", "s", "sw", "w")),
])
def test_direction_words(board, heading, word, expected):
    topo = Topology(make_stage(board=board, forward=(Heading("x", heading), Heading("o", "up"))))
    assert tuple(topo.names[d] for d in topo.resolve(dirs(word), 0)) == expected


def test_hex_adjacency():
    # On the Hex rhombus b2 touches b1 c1 a2 c2 a3 b3, not a1 or c3:
    #    a b c
    #  1  . . .
    #  2   . X .
    #  3    . . .
    game = reference(make_stage(board=HexBoard(3), moves=(MoveRule(PlaceAdjacent()),)))
    s = position(game, """
        . . .
        . X .
        . . .
    """)
    assert legal(game, s) == ["b1", "c1", "a2", "c2", "a3", "b3"]


def test_hex_distance_for_clone():
    # From the centre of hex 3 only a1 and c3 are two steps away; a clone is named by its cell.
    game = reference(make_stage(board=HexBoard(3), moves=(MoveRule(Clone(2)),)))
    s = position(game, """
        . . .
        . X .
        . . .
    """)
    assert legal(game, s) == ["a1", "c3"]


def test_jump_distance_counts_blocked_cells_and_wraps_the_short_way():
    # A wall of blocked cells does not make column c farther away, and the jump goes over it.
    wall = (CellRange(Cell(0, 1), Cell(4, 1)),)
    plain = reference(make_stage(board=SquareBoard(5), blocked=wall, moves=(MoveRule(Jump(2)),)))
    s = position(plain, """
        X # . . .
        . # . . .
        . # . . .
        . # . . .
        . # . . .
    """)
    assert legal(plain, s) == ["a1-c1", "a1-c2", "a1-a3", "a1-c3"]
    wrapped = reference(make_stage(board=SquareBoard(5, wrap=True), moves=(MoveRule(Jump(2)),)))
    s = position(wrapped, """
        X . . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
    """)
    found = legal(wrapped, s)
    assert len(found) == 16  # rows 3-4 whole, and columns c-d of rows 1, 2, 5
    assert "a1-d4" in found and "a1-c5" in found and "a1-e1" not in found and "a1-b2" not in found


# --- placements -----------------------------------------------------------------------------------


def test_gravity_lowest_empty_cell_of_each_column():
    # Column a is full; b drops to b4; c drops past the blocked c3 to c4; d lands on d4's piece.
    #   a b c d
    # 1 X . . .
    # 2 O . . .
    # 3 X . # .
    # 4 O . . X
    game = reference(make_stage(board=SquareBoard(4), blocked=(Cell(2, 2),), moves=(MoveRule(PlaceGravity()),)))
    s = position(game, """
        X . . .
        O . . .
        X . # .
        O . . X
    """)
    assert legal(game, s) == ["d3", "b4", "c4"]


def test_connect_four_drop_and_win():
    game = reference(CONNECT_FOUR)
    s = play(game, game.initial_state(), "d6", "e6", "d5", "e5", "d4", "e4")
    assert legal(game, s) == ["d3", "e3", "a6", "b6", "c6", "f6", "g6"] and not game.is_terminal(s)
    s = play(game, s, "d3")
    assert game.is_terminal(s) and game.winner(s) == 0 and game.returns(s) == (1.0, -1.0)


# --- Hex: connection ------------------------------------------------------------------------------

HEX = make_stage(
    board=HexBoard(4),
    players=("red", "blue"),
    ends=(End(Connect(("top-bottom", "left-right")), MoverWins()),),
)


def test_hex_connection_wins_and_an_almost_chain_does_not():
    # Red (X) joins top and bottom: c1 b2 b3 a4 is a chain on the rhombus, c1 b2 c3 a4 is not
    # (b2 and c3 only touch on a square board).
    #    a b c d
    #  1  . . X .
    #  2   O X O .
    #  3    . ? . O
    #  4     X . . O
    game = reference(HEX)
    s = position(game, """
        . . X .
        O X O .
        . . . O
        X . . O
    """)
    won = game.apply(s, Move.parse("b3"))
    assert game.is_terminal(won) and game.winner(won) == 0
    almost = game.apply(s, Move.parse("c3"))
    assert not game.is_terminal(almost) and game.winner(almost) is None and game.returns(almost) == (0.0, 0.0)


def test_hex_blue_connects_left_right():
    game = reference(HEX)
    s = position(game, """
        X . X .
        O O . .
        X X O O
        X . . .
    """, to_move=1)
    won = game.apply(s, Move.parse("c2"))  # a2 b2 c2 c3 d3: c2-c3 is s
    assert game.is_terminal(won) and game.winner(won) == 1 and game.returns(won) == (-1.0, 1.0)
    assert not game.is_terminal(game.apply(s, Move.parse("d2")))


def test_connect_on_a_square_board_joins_through_orthogonal_steps_only():
    game = reference(make_stage(ends=(End(Connect(("top-bottom", "left-right")), MoverWins()),)))
    diagonal = position(game, """
        X . .
        . X .
        . . X
    """, to_move=1)
    assert not game.is_terminal(diagonal)
    column = position(game, """
        . X .
        . X O
        O X .
    """, to_move=1)
    assert game.is_terminal(column) and game.winner(column) == 0
    row = position(game, """
        . X .
        O O O
        X X .
    """, to_move=0)  # O just moved: left-right
    assert game.is_terminal(row) and game.winner(row) == 1


@pytest.mark.parametrize("heading, far", [
    ("down", "a3 b3 c3"), ("up", "a1 b1 c1"), ("right", "c1 c2 c3"), ("left", "a1 a2 a3"),
])
def test_far_rows(heading, far):
    topo = Topology(make_stage(forward=(Heading("x", heading), Heading("o", "up"))))
    assert topo.far_row(0) == {topo.index(m.dst[0], m.dst[1]) for m in map(Move.parse, far.split())}


# --- Breakthrough: forward steps, diagonal capture, far row, no pieces ----------------------------


def test_breakthrough_forward_step_and_diagonal_capture_only():
    # White (X) heads down: b2 may go to a3 (empty, diagonal), capture on c3, not take b3 ahead.
    #   a b c d e
    # 1 . . . . .
    # 2 . X . . .
    # 3 . O O . .
    game = reference(BREAKTHROUGH)
    s = position(game, """
        . . . . .
        . X . . .
        . O O . .
        . . . . .
        . . . O .
    """)
    assert legal(game, s) == ["b2-a3", "b2-c3"]
    after, taken = game.apply_counted(s, Move.parse("b2-c3"))
    assert taken == 1 and game.board(after)[1:3].tolist() == [[0, 0, 0, 0, 0], [0, 2, 1, 0, 0]]
    # Black (O) heads up.
    assert legal(game, after) == ["b3-a2", "b3-b2", "b3-c2", "d5-c4", "d5-d4", "d5-e4"]


def test_breakthrough_initial_moves():
    game = reference(BREAKTHROUGH)
    s = game.initial_state()
    assert legal(game, s)[:5] == ["a1-a2", "a1-b2", "b1-a2", "b1-b2", "b1-c2"] and len(legal(game, s)) == 13


def test_breakthrough_reaching_the_far_row_wins():
    game = reference(BREAKTHROUGH)
    s = position(game, """
        . . . . .
        . . O . .
        . . . . .
        X . . . .
        . . . . O
    """)
    won = game.apply(s, Move.parse("a4-a5"))
    assert game.is_terminal(won) and game.winner(won) == 0
    s = position(game, """
        . . . X .
        . . O . .
        . . . . .
        X . . . .
        . . . . .
    """, to_move=1)
    won = game.apply(s, Move.parse("c2-c1"))
    assert game.is_terminal(won) and game.winner(won) == 1


def test_breakthrough_taking_the_last_piece_wins():
    game = reference(BREAKTHROUGH)
    s = position(game, """
        . . . . .
        . X . . .
        . . O . .
        . . . . .
        . . . . .
    """)
    won = game.apply(s, Move.parse("b2-c3"))
    assert game.is_terminal(won) and game.winner(won) == 0
    assert not game.is_terminal(game.apply(s, Move.parse("b2-b3")))


# --- Ataxx: clone, jump, convert ------------------------------------------------------------------


def test_ataxx_clone_keeps_the_origin_jump_vacates_it_both_convert():
    #   a b c d e
    # 1 X . . . .
    # 2 . . . . .
    # 3 . . O . .
    game = reference(ATAXX)
    s = position(game, """
        X . . . .
        . . . . .
        . . O . .
        . . . . .
        . . . . O
    """)
    # clones (named by their cell, listed first), then jumps
    assert legal(game, s) == ["b1", "a2", "b2", "a1-c1", "a1-c2", "a1-a3", "a1-b3"]
    cloned, taken = game.apply_counted(s, Move.parse("b2"))  # clone 1: a1 stays
    assert taken == 1 and game.board(cloned)[:3].tolist() == [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0]]
    jumped, taken = game.apply_counted(s, Move.parse("a1-c2"))  # jump 2: a1 empties
    assert taken == 1 and game.board(jumped)[:3].tolist() == [[0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0]]


def test_clones_reaching_one_cell_from_two_pieces_are_one_move():
    #   a b c
    # 1 X . X      b1 and b2 are next to both pieces: each is one clone move, not two
    # 2 . . .
    game = reference(make_stage(board=SquareBoard(3), moves=(MoveRule(Clone(1)),)))
    s = position(game, """
        X . X
        . . .
        . . .
    """)
    assert legal(game, s) == ["b1", "a2", "b2", "c2"]


def test_ataxx_initial_position_and_taking_every_piece():
    game = reference(ATAXX)
    assert len(game.legal_moves(game.initial_state())) == 2 * (3 + 5)
    s = position(game, """
        X . . . .
        . . . . .
        . . O . .
        . . . . .
        . . . . .
    """)
    won = game.apply(s, Move.parse("a1-c2"))  # blue has nothing left: red may still move, so no-moves
    assert game.legal_moves(won) == []         # does not hold, no-pieces does
    assert game.is_terminal(won) and game.winner(won) == 0


# --- custodial capture ----------------------------------------------------------------------------

CUSTODIAN = make_stage(
    board=SquareBoard(5),
    moves=(MoveRule(PlaceEmpty(), (RemoveCustodial(dirs("orthogonal")),)),),
    ends=(End(BoardFull(), MostPieces()),),
)


def test_remove_custodial_removes_orthogonal_runs_only():
    # X on a1 encloses b1 along the row (removed); b2 on the diagonal stays: orthogonal only.
    #   a b c
    # 1 * O X
    # 2 . O .
    # 3 . . X
    game = reference(CUSTODIAN)
    s = position(game, """
        . O X . .
        . O . . .
        . . X . .
        . . . . .
        . . . . .
    """)
    after, taken = game.apply_counted(s, Move.parse("a1"))
    assert taken == 1 and game.board(after)[:2].tolist() == [[1, 0, 1, 0, 0], [0, 2, 0, 0, 0]]


def test_again_after_capture():
    game = reference(make_stage(
        board=SquareBoard(5), moves=CUSTODIAN.moves, ends=CUSTODIAN.ends, turn=AgainAfterCapture()))
    s = position(game, """
        . O X . .
        . O . . .
        . . X . .
        . . . . .
        . . . . .
    """)
    again = game.apply(s, Move.parse("a1"))
    assert (again.to_move, again.mover) == (0, 0)
    other = game.apply(again, Move.parse("e5"))
    assert (other.to_move, other.mover) == (1, 0)


def test_require_capture_counts_only_the_effects_before_it():
    #   a b c
    # 1 X . .
    # 2 . O O
    # 3 . . .
    def game_with(effects):
        return reference(make_stage(moves=(MoveRule(Step(target="any"), effects),)))

    diagram = """
        X . .
        . O O
        . . .
    """
    after = game_with((ConvertAdjacent(), RequireCapture()))
    assert legal(after, position(after, diagram)) == ["a1-b1", "a1-a2", "a1-b2"]
    before = game_with((RequireCapture(), ConvertAdjacent()))
    s = position(before, diagram)
    assert legal(before, s) == ["a1-b2"]  # only the arrival capture counts
    assert before.apply_counted(s, Move.parse("a1-b2"))[1] == 2  # the capture count counts all


# --- lines ----------------------------------------------------------------------------------------


def test_tic_tac_toe_row_win_and_draw():
    game = reference(TIC_TAC_TOE)
    s = play(game, game.initial_state(), "a1", "a2", "b1", "b2")
    assert not game.is_terminal(s)
    won = play(game, s, "c1")
    assert game.is_terminal(won) and game.winner(won) == 0 and game.legal_moves(won) == []
    drawn = play(game, game.initial_state(), "a1", "b1", "c1", "b2", "a2", "c2", "b3", "a3", "c3")
    assert game.is_terminal(drawn) and game.winner(drawn) is None and game.returns(drawn) == (0.0, 0.0)


@pytest.mark.parametrize("diagram", [
    "X . . .\n. X . .\n. . X .\n. . . .",  # nw-se
    ". . . .\n. . X .\n. X . .\nX . . .",  # ne-sw
    ". . . X\n. . . X\n. . . X\n. . . .",  # n-s
    ". . . .\n. . . .\n. . . .\n. X X X",  # e-w
])
def test_line_along_every_axis(diagram):
    game = reference(make_stage(board=SquareBoard(4), ends=(End(Line(3), MoverWins()),)))
    s = position(game, diagram, to_move=1)  # X just moved
    assert game.is_terminal(s) and game.winner(s) == 0
    assert not game.is_terminal(State(s.cells, to_move=0, mover=1))  # O has no line


def test_line_exact_overline_does_not_win():
    # X fills c1: four in a row. `line 3` wins, `line 3 exact` does not; a3 b3 c3 is exactly three.
    diagram = """
        X X . X .
        . . . . .
        X X . . .
        . . . . .
        . . . . .
    """
    loose = reference(make_stage(board=SquareBoard(5), ends=(End(Line(3), MoverWins()),)))
    exact = reference(make_stage(board=SquareBoard(5), ends=(End(Line(3, exact=True), MoverWins()),)))
    assert loose.is_terminal(play(loose, position(loose, diagram), "c1"))
    assert not exact.is_terminal(play(exact, position(exact, diagram), "c1"))
    s = play(exact, position(exact, diagram), "c3")
    assert exact.is_terminal(s) and exact.winner(s) == 0


def test_misere_mover_loses():
    game = reference(make_stage(ends=(End(Line(3), MoverLoses()), End(BoardFull(), Draw()))))
    s = play(game, game.initial_state(), "a1", "a2", "b1", "b2", "c1")
    assert game.is_terminal(s) and game.winner(s) == 1 and game.returns(s) == (-1.0, 1.0)


def test_line_runs_across_the_seam_of_a_wrapped_board():
    game = reference(make_stage(board=SquareBoard(4, wrap=True), ends=(End(Line(3), MoverWins()),)))
    s = position(game, """
        X . . X
        . . . .
        . . . .
        . . . .
    """)
    assert not game.is_terminal(s)
    won = game.apply(s, Move.parse("c1"))  # c1 d1, then a1 across the seam
    assert game.is_terminal(won) and game.winner(won) == 0


# --- wrapped boards -------------------------------------------------------------------------------


def test_step_across_the_edge_of_a_wrapped_board():
    rule = (MoveRule(Step(dirs("e"))),)
    diagram = """
        . . X
        . . .
        . . .
    """
    plain = reference(make_stage(moves=rule))
    wrapped = reference(make_stage(board=SquareBoard(3, wrap=True), moves=rule))
    assert legal(plain, position(plain, diagram)) == []
    assert legal(wrapped, position(wrapped, diagram)) == ["c1-a1"]


def test_custodial_ray_wraps_round_and_closes():
    # Placing on c1: east runs d1 e1 then, round the seam, meets a1.
    othello = (MoveRule(PlaceEmpty(), (FlipCustodial(), RequireCapture())),)
    plain = reference(make_stage(board=RectBoard(1, 5), moves=othello))
    wrapped = reference(make_stage(board=RectBoard(1, 5, wrap=True), moves=othello))
    assert legal(plain, position(plain, "X . . O O")) == []
    s = position(wrapped, "X . . O O")
    assert legal(wrapped, s) == ["c1"]
    assert wrapped.board(wrapped.apply(s, Move.parse("c1"))).tolist() == [[1, 0, 1, 1, 1]]


def test_custodial_ray_stops_when_it_comes_back_to_its_start():
    # On a ring of four, a1 . O O O: the ray from a1 comes back to a1 itself, which does not
    # close it, so nothing is taken and a1 is not a legal move.
    othello = (MoveRule(PlaceEmpty(), (FlipCustodial(), RequireCapture())),)
    game = reference(make_stage(board=RectBoard(1, 4, wrap=True), moves=othello))
    s = position(game, ". O O O")
    assert game.available_moves(s) == {}
    assert game.is_terminal(s) and game.winner(s) is None


# --- slides ---------------------------------------------------------------------------------------

SLIDE_DIAGRAM = """
    . . . . .
    . O . . .
    . X . # .
    . . . . .
    . X . . .
"""


@pytest.mark.parametrize("target, expected", [
    ("empty", ["b3-a3", "b3-c3", "b3-b4", "b5-b4", "b5-a5", "b5-c5", "b5-d5", "b5-e5"]),
    ("enemy", ["b3-b2"]),
    ("any", ["b3-b2", "b3-a3", "b3-c3", "b3-b4", "b5-b4", "b5-a5", "b5-c5", "b5-d5", "b5-e5"]),
])
def test_slide_stops_at_pieces_blocked_cells_and_the_edge(target, expected):
    game = reference(make_stage(
        board=SquareBoard(5), blocked=(Cell(2, 3),), moves=(MoveRule(Slide(dirs("orthogonal"), target)),)))
    assert legal(game, position(game, SLIDE_DIAGRAM)) == expected


# --- duplicate moves ------------------------------------------------------------------------------


def test_first_rule_wins_on_duplicate_moves():
    #   a b c
    # 1 X . .
    # 2 . O .
    converting = MoveRule(Step(dirs("e")), (ConvertAdjacent(),))
    plain = MoveRule(Step())
    diagram = """
        X . .
        . O .
        . . .
    """
    first = reference(make_stage(moves=(converting, plain)))
    s = first.apply(position(first, diagram), Move.parse("a1-b1"))
    assert first.board(s)[1, 1] == 1
    second = reference(make_stage(moves=(plain, converting)))
    s = second.apply(position(second, diagram), Move.parse("a1-b1"))
    assert second.board(s)[1, 1] == 2


def test_a_move_refused_by_one_rule_is_played_by_the_next_that_allows_it():
    # Rule 1 converts and requires a capture; rule 2 steps plainly. Only a1-b2 reaches c3.
    game = reference(make_stage(moves=(
        MoveRule(Step(), (ConvertAdjacent(), RequireCapture())),
        MoveRule(Step()),
    )))
    s = position(game, """
        X . .
        . . .
        . . O
    """)
    assert legal(game, s) == ["a1-b1", "a1-a2", "a1-b2"]
    assert game.apply_counted(s, Move.parse("a1-b1"))[1] == 0
    assert game.apply_counted(s, Move.parse("a1-b2"))[1] == 1


# --- passes, ply limits, draws --------------------------------------------------------------------


def test_without_a_move_or_an_end_rule_the_game_is_drawn():
    #   X O .   X cannot step east; O could, but X is to move.
    stuck = "X O ."
    rule = (MoveRule(Step(dirs("e"))),)
    game = reference(make_stage(board=RectBoard(1, 3), moves=rule, ends=(End(BoardFull(), MoverWins()),)))
    s = position(game, stuck)
    assert game.legal_moves(s) == [] and game.is_terminal(s) and game.winner(s) is None
    assert game.returns(s) == (0.0, 0.0)
    # With `pass forced` X passes instead, and O moves.
    passing = reference(make_stage(board=RectBoard(1, 3), moves=rule, pass_rule=PassForced()))
    s = position(passing, stuck)
    assert passing.legal_moves(s) == [PASS]
    after, taken = passing.apply_counted(s, PASS)
    assert after == State(s.cells, to_move=1, mover=0, ply=1) and taken == 0
    assert legal(passing, after) == ["b1-c1"]
    # Neither side can move: no pass either, and a draw.
    s = position(passing, "X O O")
    assert passing.legal_moves(s) == [] and passing.is_terminal(s) and passing.winner(s) is None


def test_after_n_plies():
    game = reference(make_stage(ends=(End(AfterPlies(3), MostPieces()),)))
    s = play(game, game.initial_state(), "a1", "b1")
    assert s.ply == 2 and not game.is_terminal(s)
    s = play(game, s, "c1")
    assert game.is_terminal(s) and game.winner(s) == 0


def test_ends_are_tested_on_the_initial_position_with_the_last_player_as_mover():
    # X has no piece at the start: `no-pieces` holds at once, and the mover is o.
    game = reference(make_stage(
        moves=(MoveRule(Step()),), setup=(Setup("o", (Cell(1, 1),)),), ends=(End(NoPieces(), MoverWins()),)))
    s = game.initial_state()
    assert s.mover == 1 and game.is_terminal(s) and game.winner(s) == 1


def test_ends_are_tested_in_order():
    # The board is full and X has a line: the first end written decides.
    diagram = """
        X X X
        O O X
        X O O
    """
    line_first = reference(make_stage(ends=(End(Line(3), MoverWins()), End(BoardFull(), Draw()))))
    full_first = reference(make_stage(ends=(End(BoardFull(), Draw()), End(Line(3), MoverWins()))))
    assert line_first.winner(position(line_first, diagram, to_move=1)) == 0
    s = position(full_first, diagram, to_move=1)
    assert full_first.is_terminal(s) and full_first.winner(s) is None


# --- perft ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth, leaves", [(1, 9), (2, 72), (3, 504), (4, 3024), (5, 15120), (6, 56160)])
def test_tic_tac_toe_perft(depth, leaves):
    assert perft(reference(TIC_TAC_TOE), depth) == leaves


@pytest.mark.slow
@pytest.mark.parametrize("depth, leaves", [(7, 154944), (8, 255168), (9, 255168)])
def test_tic_tac_toe_perft_deep(depth, leaves):
    assert perft(reference(TIC_TAC_TOE), depth) == leaves


@pytest.mark.parametrize("depth, leaves", [(1, 7), (2, 49), (3, 343), (4, 2401), (5, 16807)])
def test_connect_four_perft(depth, leaves):
    assert perft(reference(CONNECT_FOUR), depth) == leaves
