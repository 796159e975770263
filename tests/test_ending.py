"""Why a game ended (gdl/ending.py): on every bundled stage the reason agrees with the winner the
compiled engine reports, and on scripted positions it is said word for word.

Diagrams: `.` empty, `X` the first player's piece, `O` the second's; row 1 on top, column a on the left.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from ludica.compiler import playable
from ludica.gdl import ast as A
from ludica.gdl import load
from ludica.gdl.ending import counts_pieces, explain
from ludica.gdl.interpreter import State

STAGES = sorted((Path(__file__).parent.parent / "stages").glob("*.gdl"))
_SYMBOLS = {".": 0, "X": 1, "O": 2, "#": -1}


def _stage(name: str) -> A.Stage:
    return load(Path(__file__).parent.parent / "stages" / f"{name}.gdl")


def _position(diagram: str, mover: int, ply: int = 0) -> State:
    cells = tuple(_SYMBOLS[ch] for line in diagram.strip().splitlines() for ch in line.split())
    return State(cells, to_move=1 - mover, mover=mover, ply=ply)


@pytest.mark.parametrize("path", STAGES, ids=[p.stem for p in STAGES])
def test_the_reason_agrees_with_the_engines_winner_on_every_bundled_stage(path):
    stage = load(path)
    game = playable(stage)  # a hidden stage's game of tries: its end is judged on the true position
    names = stage.player_names
    for seed in range(6):
        rng, state = random.Random(seed), game.initial_state()
        while not game.is_terminal(state):
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        ending, board = game.ending(state), game.board(state)
        won = game.winner(state)
        assert ending.winner == won, f"{path.stem}, seed {seed}: {ending}"
        said = "a draw" if won is None else f"{names[won]} wins"
        assert said in ending.result and ending.result in str(ending), f"{path.stem}, seed {seed}: {ending}"
        assert ending.end in stage.ends  # the language's own draw (no end holds, no move) never comes here
        # counts where the deciding result counts pieces, and they are the board's
        pieces = (int((board == 1).sum()), int((board == 2).sum()))
        assert ending.counts == (pieces if ending.end.result.counts_pieces else None)
        # the cells shown are the mover's pieces (the line, the piece on its far row, the chain), said
        mover = int(game.position(state)[game.rows * game.cols + 1])
        assert not ending.cells or (ending.cells[0] in ending.reason and ending.cells[-1] in ending.reason)
        for name in ending.cells:
            col, row = ord(name[0]) - ord("a"), int(name[1:]) - 1
            assert board[row, col] == mover + 1, f"{path.stem}, seed {seed}: {name} in {ending}"


def _gomoku_five() -> str:
    """A 15x15 board (too wide to draw here) with five of white's in row 5."""
    rows = [[". "] * 15 for _ in range(15)]
    for c in range(3, 8):
        rows[4][c] = "O "
    return "\n".join("".join(r) for r in rows)


GOLDEN = [
    ("tic-tac-toe", "X X X\nO O .\n. . .", 0, "x made three in a row at a1 b1 c1: x wins"),
    ("tic-tac-toe", "X O X\nX O O\nO X X", 0, "the board is full: a draw"),
    ("misere-tic-tac-toe", "X O .\nX O .\nX . .", 0, "x made three in a row at a1 a2 a3: x loses, so o wins"),
    ("gomoku", _gomoku_five(), 1, "white made exactly five in a row at d5 e5 f5 g5 h5: white wins"),
    ("breakthrough", ". . . . . . . .\n" * 2 + ". . . . . . . .\n" * 4 + ". . . O . . . .\n. . . X . . . .", 0,
     "white reached row 8 at d8: white wins"),
    ("breakthrough", ". . . . . . . .\n" * 4 + ". . . X . . . .\n" + ". . . . . . . .\n" * 3, 0,
     "black has no piece left: white wins"),
    ("standard-8x8", "X X X X X X X X\n" * 5 + "O O O O O O O O\n" * 3, 1,
     "neither black nor white can move: black wins with more pieces, 40 to 24"),
    ("reverse-othello", "X X X X X X X X\n" * 4 + "O O O O O O O O\n" * 4, 1,
     "neither black nor white can move: a draw, 32 pieces each"),
]


@pytest.mark.parametrize("name, diagram, mover, said", GOLDEN)
def test_an_ending_is_said_in_the_rules_words(name, diagram, mover, said):
    assert str(explain(_stage(name), _position(diagram, mover))) == said


def test_a_chain_that_joins_a_players_sides_is_said_from_side_to_side():
    stage = _stage("hex-11")
    cells = ["."] * 121
    for r in range(11):
        cells[r * 11] = "X"  # column a, top to bottom: red's sides are the top and bottom rows
    ending = explain(stage, _position("\n".join(" ".join(cells[r * 11:(r + 1) * 11]) for r in range(11)), 0))
    assert str(ending) == ("red joined the top and bottom rows, rows 1 and 11, with a chain of 11 pieces from a1 to "
                           "a11: red wins")
    assert ending.cells == tuple(f"a{r}" for r in range(1, 12)) and ending.counts is None


def test_a_cap_on_plies_is_said_with_the_counts_it_is_decided_by():
    stage = _stage("custodian")
    diagram = "X X . . . . .\n" + "O O O . . . .\n" + ". . . . . . .\n" * 5
    ending = explain(stage, _position(diagram, 1, ply=80))
    assert str(ending) == "80 plies have been played: white wins with more pieces, 3 to 2"
    assert ending.counts == (2, 3)


def test_a_side_left_without_a_move_and_no_end_rule_is_a_draw_said_so():
    stage = A.Stage(name="stuck", board=A.SquareBoard(2), players=A.Players(("x", "o")),
                    moves=(A.MoveRule(A.Step(A.Directions(("n",)))),), ends=())
    ending = explain(stage, _position("X .\n. .", 1))
    assert str(ending) == "x has no legal move and no end rule holds: a draw" and ending.end is None


def test_a_position_that_does_not_end_the_game_is_refused():
    with pytest.raises(ValueError, match="not over"):
        explain(_stage("tic-tac-toe"), _position("X . .\n. . .\n. . .", 0))


def test_only_a_stage_whose_results_count_pieces_counts_them():
    assert [p.stem for p in STAGES if counts_pieces(load(p))] == [
        "ataxx", "c-squares-occlusion-agnostic", "custodian", "dark-othello", "fewer-pieces-continue", "othello-10x10",
        "othello-random-blocks", "othello-random-setup", "othello-split-setup", "partial-c-squares-cw", "reverse-othello", "small-board-6x6", "standard-8x8"]
