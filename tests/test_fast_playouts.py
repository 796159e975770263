"""The straight-code playouts (compiler/bitboard.py, compiler/placement.py, compiler/pieces.py) play
exactly the games the generic kernels play: same lengths, same results, for a seed, on every stage
they take."""
import random

import numpy as np
import pytest

from ludica import compiler, gdl, stages

FAMILIES = {"standard-8x8": "bitboard", "c-squares-occlusion-agnostic": "bitboard", "tic-tac-toe": "placement",
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


@pytest.mark.parametrize("name", [p.stem for p in stages.bundled()])
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


def test_a_start_that_already_has_a_line_is_tested_whole():
    # x already has three in a row at the start. Before the first move the mover is o (the last
    # player), who has no line; x's first move, wherever it goes, makes x the mover with a line:
    # x wins after one ply. A test around the new cell alone would miss that line.
    text = ("board square 3\nplayers x o\nsetup x a1 b1 c1\nmove place empty\n"
            "end line 3: mover wins\nend board-full: draw\n")
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


# Random stages of every family are compared in tests/test_compiled.py (check_fast_family).
