"""The straight-code playouts (compiler/families/) play
exactly the games the generic kernels play: same lengths, same results, for a seed, on every stage
they take."""
import random

import numpy as np
import pytest

from ludica import compiler, gdl, stages

from bundled import PERFECT

FAMILIES = {"standard-8x8": "othello", "c-squares-occlusion-agnostic": "othello", "tic-tac-toe": "placement",
            "misere-tic-tac-toe": "placement", "gomoku": "placement", "connect-four": "placement",
            "hex-11": "placement", "breakthrough": "pieces", "ataxx": None}


def same_games(game, n: int, seed: int, state=None, max_plies: int = 100_000) -> None:
    fast = game.playouts(n, seed=seed, state=state, max_plies=max_plies)
    generic = game.playouts(n, seed=seed, state=state, max_plies=max_plies, generic=True)
    assert np.array_equal(fast.lengths, generic.lengths), f"{game.stage.name}: lengths differ"
    assert np.array_equal(fast.returns, generic.returns), f"{game.stage.name}: results differ"
    assert fast.cut == generic.cut


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_bundled_stages_take_the_expected_path(name):
    assert compiler.compile(gdl.load(stages.path(name))).fast_playouts == FAMILIES[name]


@pytest.mark.parametrize("name", sorted(PERFECT))  # the hidden ones: tests/test_dark_kernels.py
def test_same_games_on_bundled_stages(name):
    game = compiler.compile(gdl.load(stages.path(name)))
    if game.fast_playouts is None:
        pytest.skip("no straight-code path for this stage")
    n = 30 if name in ("gomoku", "hex-11", "othello-10x10") else 300
    same_games(game, n, seed=11)


def test_same_games_from_a_position_in_progress():
    game = compiler.compile(gdl.load(stages.path("connect-four")))
    state = game.initial_state()
    for text in ("d6", "d5", "c6", "e6"):
        state = game.apply(state, game.parse_move(text))
    same_games(game, 500, seed=3, state=state)


# x already has three in a row (a line) or joins its top and bottom rows (a connection) at the
# start. Before the first move the mover is o (the last player), who has neither; x's first move,
# wherever it goes, makes x the mover with the line or the connection: x wins after one ply. A
# test around the new cell alone would miss it.
ALREADY_HELD = {"line": ("a1 b1 c1", "line 3"), "connection": ("a1 a2 a3", "connect top-bottom left-right")}


@pytest.mark.parametrize("held", sorted(ALREADY_HELD))
def test_a_start_that_already_holds_an_end_is_tested_whole(held):
    cells, end = ALREADY_HELD[held]
    text = f"board square 3\nplayers x o\nsetup x {cells}\nmove place empty\nend {end}: mover wins\nend board-full: draw\n"
    game = compiler.compile(gdl.loads(text))
    assert game.fast_playouts == "placement"
    same_games(game, 200, seed=1)
    runs = game.playouts(200, seed=1)
    assert (runs.lengths == 1).all() and (runs.returns[:, 0] == 1).all()


BREAKTHROUGH = stages.path("breakthrough").read_text()


def test_same_breakthrough_games_from_positions_in_progress():
    game = compiler.compile(gdl.load(stages.path("breakthrough")))
    rng = random.Random(7)
    state, later = game.initial_state(), []
    while not game.is_terminal(state):  # one random game; keep a position every few plies
        state = game.apply(state, rng.choice(game.legal_moves(state)))
        if len(later) < 12 and rng.random() < 0.3:
            later.append(state)
    for start in later[::3]:
        same_games(game, 300, seed=5, state=start)
        same_games(game, 100, seed=6, state=start, max_plies=9)
    # many starts in one call: game g starts from starts[g % len(starts)] on both paths
    starts = np.ascontiguousarray(np.stack(later))
    fast = game._run(starts, 400, 9, 1, 25)
    generic = game._run(starts, 400, 9, 1, 25, generic=True)
    assert np.array_equal(fast.lengths, generic.lengths) and np.array_equal(fast.returns, generic.returns)


@pytest.mark.parametrize("change, path", [
    ("", "pieces"),
    ("move step forward forward-diagonal to empty\n", "pieces"),
    ("pass forced\nturn again-after-capture\nend no-moves: draw\nend after 40 plies: most-pieces\n", "pieces"),
    ("end line 3: mover wins\nend connect top-bottom top-bottom: mover loses\nend board-full: draw\n", "pieces"),
    ("move slide forward to empty\n", None),
    ("move jump 2 to empty\n", None),
    ("move clone 1 to empty\n", None),
    ("move step forward to enemy\n  flip custodial all\n", None),
    ("board square 9\n", None),  # 81 cells: more than a bitboard holds
    ("board square 8 wrap\n", None),
])
def test_stepping_family_membership_and_games(change, path):
    text = BREAKTHROUGH + change if not change.startswith("board") else BREAKTHROUGH.replace("board square 8\n", change)
    game = compiler.compile(gdl.loads(text))
    assert game.fast_playouts == path
    same_games(game, 100, seed=4)


def test_same_games_under_gravity_past_holes_and_floating_pieces():
    # A column's next legal cell after a move is the next empty one up, past blocked cells (b3)
    # and pieces the setup left in the air (a1, c2, d2: row 1 is the top).
    text = ("board rect 5 4\nplayers x o\nblocked b3 c4\nsetup x a1 c2\nsetup o d2\nmove place gravity\n"
            "end line 3: mover wins\nend board-full: draw\n")
    game = compiler.compile(gdl.loads(text))
    assert game.fast_playouts == "placement"
    same_games(game, 300, seed=4)


# --- connect ends: a union-find of the pieces and sides (compiler/ends.py) ----------------------

CONNECT_STAGES = {
    "hex on a torus": "board hex 5 wrap\nplayers x o\nmove place empty\nend connect top-bottom left-right: mover wins\n",
    "wrapped rectangle with holes, a line too": (
        "board rect 3 7 wrap\nplayers x o\nblocked b2 f1\nmove place empty\n"
        "end line 4: mover loses\nend connect left-right top-bottom: mover wins\nend board-full: draw\n"),
    "one row: every piece is on both of x's sides": (
        "board rect 1 5\nplayers x o\nmove place empty\nend connect top-bottom left-right: mover wins\n"),
    "gravity, same sides, fewer-pieces turn": (
        "board square 4\nplayers x o\nturn fewer-pieces\nmove place gravity\n"
        "end connect top-bottom top-bottom: mover wins\nend board-full: draw\n"),
    "two connect ends, a union-find each (one would join groups through a side)": (
        "board hex 4\nplayers x o\nsetup o a2 b3\nmove place empty\nend connect left-right left-right: mover loses\n"
        "end connect top-bottom left-right: mover wins\n"),
}


@pytest.mark.parametrize("name", sorted(CONNECT_STAGES))
def test_same_games_on_connect_stages(name):
    game = compiler.compile(gdl.loads(CONNECT_STAGES[name]))
    assert game.fast_playouts == "placement"
    same_games(game, 300, seed=7)
    same_games(game, 300, seed=8, max_plies=3)


def test_hex_from_positions_in_progress():
    game = compiler.compile(gdl.load(stages.path("hex-11")))
    rng = random.Random(5)
    state = game.initial_state()
    for ply in range(80):
        if game.is_terminal(state):
            break
        if ply % 16 == 0:
            same_games(game, 40, seed=ply, state=state)
        state = game.apply(state, rng.choice(game.legal_moves(state)))


def test_each_start_keeps_its_own_connections():
    # Games from several starts in one batch (game g from start g % 3): the empty board, one where
    # x already joins its sides (o the mover, x to move: x wins with its first move, whatever it
    # is) and one with a few pieces of each, whose groups are joined before play.
    text = "board hex 4\nplayers x o\nmove place empty\nend connect top-bottom left-right: mover wins\n"
    game = compiler.compile(gdl.loads(text))
    joined = game.initial_state().copy()
    joined[[0, 4, 8, 12]] = 1  # column a, top to bottom
    joined[[3, 7, 10]] = 2
    going = game.initial_state()
    for move in ("b2", "c1", "b3", "c2"):
        going = game.apply(going, game.parse_move(move))
    starts = np.ascontiguousarray([game.initial_state(), joined, going], dtype=np.int32)
    fast = game._run(starts, 300, seed=2, threads=1, max_plies=100_000)
    generic = game._run(starts, 300, seed=2, threads=1, max_plies=100_000, generic=True)
    assert np.array_equal(fast.lengths, generic.lengths) and np.array_equal(fast.returns, generic.returns)
    assert (fast.lengths[1::3] == 1).all() and (fast.returns[1::3, 0] == 1).all()


# Random stages of every family are compared in tests/test_compiled.py (check_fast_family).
