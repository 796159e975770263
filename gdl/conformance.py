"""The conformance check every Game must pass: run on every bundled stage, every sampled variant,
and every implementation (reference interpreter, compiled kernels).

`check_game(game, games=20, seed=0)` plays seeded random games and asserts the contract of
gdl/game.py at every position; it raises AssertionError saying what broke, where.
"""
from __future__ import annotations

import random

import numpy as np

from .game import PASS, Game, Move


def check_game(game: Game, games: int = 20, seed: int = 0, max_plies: int = 10_000) -> int:
    """Play `games` random games; return the number of positions checked."""
    rng = random.Random(seed)
    positions = 0
    for g in range(games):
        start_of = getattr(game, "start", None)  # a random start: each game from its own draw
        state = start_of(seed, g) if start_of is not None else game.initial_state()
        # the blocked cells stay those of the start (the stage's own, and any it blocks at random)
        start = game.board(state)
        blocked = {(int(r), int(c)) for r, c in zip(*np.nonzero(start == -1))}
        assert blocked >= set(game.stage.blocked_cells), f"{game.stage.name!r}: a `blocked` cell is not blocked"
        if not game.stage.random_blocked:
            assert blocked == set(game.stage.blocked_cells), f"{game.stage.name!r}: a cell is blocked that is not"
        for ply in range(max_plies + 1):
            positions += 1
            where = f"{game.stage.name!r}, game {g} (seed {seed}), ply {ply}"
            _check_position(game, state, where, blocked)
            if game.is_terminal(state):
                break
            moves = game.legal_moves(state)
            move = rng.choice(moves)
            before = game.board(state).copy()
            after, taken = game.apply_counted(state, move)
            assert np.array_equal(game.board(state), before), f"{where}: apply changed its input state"
            again = game.apply(state, move)
            assert np.array_equal(game.board(after), game.board(again)) and game.to_move(after) == game.to_move(
                again), f"{where}: apply is not deterministic"
            assert taken >= 0, f"{where}: negative capture count {taken}"
            refused = getattr(game, "refused", None)  # hidden information: a try the truth refuses
            if refused is not None and refused(after):
                assert np.array_equal(game.board(after), before) and taken == 0, f"{where}: a refused {move} changed the board"
            elif move != PASS:  # effects only ever take enemy pieces: the arrival cell is the mover's
                assert game.board(after)[move.dst] == game.to_move(state) + 1, f"{where}: {move} left no piece on {move.dst}"
            state = after
        else:
            raise AssertionError(f"{game.stage.name!r}: game {g} did not end within {max_plies} plies")
    return positions


def _check_position(game: Game, state, where: str, blocked_at_start: set[tuple[int, int]]) -> None:
    board = game.board(state)
    assert board.shape == (game.rows, game.cols), f"{where}: board shape {board.shape}"
    assert set(np.unique(board)) <= {-1, 0, 1, 2}, f"{where}: board values {sorted(set(np.unique(board)))}"
    blocked = {(int(r), int(c)) for r, c in zip(*np.nonzero(board == -1))}
    assert blocked == blocked_at_start, f"{where}: blocked cells changed"
    assert game.to_move(state) in (0, 1), f"{where}: to_move {game.to_move(state)}"
    moves = game.legal_moves(state)
    returns = game.returns(state)
    if game.is_terminal(state):
        assert moves == [], f"{where}: a terminal position has legal moves {moves}"
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0]), f"{where}: returns {returns}"
        return
    assert tuple(returns) == (0.0, 0.0), f"{where}: a game in progress has returns {returns}"
    assert moves, f"{where}: a position that is not terminal has no legal move"
    assert len(set(moves)) == len(moves), f"{where}: duplicate legal moves {moves}"
    assert all(isinstance(m, Move) for m in moves), f"{where}: legal moves must be Move values"
    if PASS in moves:
        assert moves == [PASS], f"{where}: a pass beside other moves {moves}"
    else:
        assert moves == sorted(moves, key=_order), f"{where}: legal moves out of order {moves}"
    for m in moves:
        assert game.parse_move(str(m)) == m, f"{where}: parse_move(str({m!r})) != move"
        if m.src is not None:
            assert board[m.src] == game.to_move(state) + 1, f"{where}: {m} does not start on a piece of the mover"
        if m.dst is not None:
            assert board[m.dst] != -1, f"{where}: {m} lands on a blocked cell"


def _order(m: Move):
    # placements first, by cell in row-major order; then piece moves by origin, then destination
    return (m.src is not None, m.src or (0, 0), m.dst)
