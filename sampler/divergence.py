"""Divergence: how much a policy tuned to the base stage loses on a variant, against a reference
that reads the rules. The counterfactual signal that tells agents that read a stage's rules from
agents that recall a game: on a variant that plays like its base the tuned policy keeps its score,
on one whose rules turn its knowledge around it loses.

The tuned policy looks one ply ahead and plays the move whose position Othello's cell table values
most: Σ of the table over its pieces minus the opponent's (runtime/agents/positional.py's table:
the Arena's own on 8x8, read through the walls, edges and blocked cells, on other boards). It plays
the variant's legal moves and sees the positions they lead to, as any agent does through the API,
but values them as Othello: more pieces, and corners, are good. Equal values: the first in the
engine's order. It is Othello's whatever the base (the family this is for): on another base the
figure says how far a variant moves from where that heuristic works, not from the base.

The reference is flat Monte-Carlo: from the position each legal move leads to, `playouts` random
games inside the kernel (cut at the screening's cap), and the move with the best mean result for the
mover (the first of equals). It knows nothing of Othello, but its playouts end as the variant's
rules end them, so reverse scoring or "the side with fewer pieces moves again" is in its values.

score(stage) = the tuned policy's mean score against the reference (win 1, draw or cut game 1/2,
loss 0) over `games` games, half in each seat; game k uses the same playout seeds on every stage.
divergence = score(base) − score(variant), its standard error √(se_base² + se_variant²), where a
score's se is √(p̃(1 − p̃)/n) with p̃ = (Σ scores + 1)/(n + 2): the binomial bound (draws only lower
the variance), never 0 for a sweep. The base is played `base_games` games, once a run.

Everything is seeded (the tuned policy is deterministic, the playouts are the kernel's seeded
ones): the same stage gives the same figure in any process, so a set stays reproducible to the byte.
"""
from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass

import numpy as np

from .. import compiler
from ..gdl import ast as A


@dataclass(frozen=True)
class Settings:
    """How divergence is measured: games on each variant and on the base, playouts per move of the
    reference, the seed of its playouts."""

    games: int = 40
    base_games: int = 160
    playouts: int = 2
    seed: int = 20

    def __post_init__(self):
        for name in ("games", "base_games"):
            if getattr(self, name) < 2 or getattr(self, name) % 2:
                raise ValueError(f"{name} must be even and ≥ 2 (half the games in each seat)")
        if self.playouts < 1:
            raise ValueError("playouts must be ≥ 1")

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Score:
    """The tuned policy's mean score against the reference on one stage, its standard error, the
    games played."""

    score: float
    se: float
    games: int


def _cap(stage: A.Stage) -> int:
    """The screening's cap on random games (sampler/screen.py Filters.cap by default)."""
    return max(200, 8 * stage.board.rows * stage.board.cols)


def _table(game) -> np.ndarray:
    """Othello's cell table on the game's board, as the Positional baseline reads it."""
    from ..runtime.agents import positional
    from ..runtime.api import stage_view

    return np.array(positional.weights(stage_view(game)), dtype=np.float64)


def _tuned(game, state, moves, table: np.ndarray, me: int):
    """The move whose position the table values most for `me` (the first of equals)."""
    best, value = moves[0], -math.inf
    for move in moves:
        board = game.board(game.apply(state, move))
        v = float(table[board == me + 1].sum() - table[board == 2 - me].sum())
        if v > value:
            best, value = move, v
    return best


def _reference(game, state, moves, me: int, playouts: int, seed: int, cap: int):
    """Flat Monte-Carlo: the move whose position's random playouts end best for `me`."""
    children = np.stack([game.apply(state, move) for move in moves])
    results = game.playouts_from(children, playouts, seed=seed, max_plies=cap).returns[:, :, me]
    return moves[int(np.argmax(results.mean(axis=1)))]


def _game_score(game, table: np.ndarray, tuned_seat: int, number: int, s: Settings, cap: int) -> float:
    """One game, the tuned policy in seat `tuned_seat`: its score (1, 1/2 or 0)."""
    state = game.initial_state()
    for ply in range(cap):
        if game.is_terminal(state):
            break
        moves = game.legal_moves(state)
        me = game.to_move(state)
        if len(moves) == 1:
            move = moves[0]
        elif me == tuned_seat:
            move = _tuned(game, state, moves, table, me)
        else:
            move = _reference(game, state, moves, me, s.playouts, (s.seed << 40) + (number << 16) + ply, cap)
        state = game.apply(state, move)
    winner = game.winner(state) if game.is_terminal(state) else None
    return 0.5 if winner is None else float(winner == tuned_seat)


def score(stage: A.Stage, games: int, settings: Settings = Settings()) -> Score:
    """The tuned policy's score against the reference on `stage` over `games` games (both seats)."""
    game = compiler.compile(stage.without_information())  # a dark stage: its true game (issue 33: its play through views is to come)
    table, cap = _table(game), _cap(stage)
    scores = [_game_score(game, table, k % 2, k, settings, cap) for k in range(games)]
    p = (math.fsum(scores) + 1) / (games + 2)
    return Score(math.fsum(scores) / games, math.sqrt(p * (1 - p) / games), games)


@functools.lru_cache(maxsize=8)
def base_score(base: A.Stage, settings: Settings = Settings()) -> Score:
    """score(base) over settings.base_games games, kept: every run of a process on one base (an
    evaluation resumed, the sets of a test session) plays them once. A stage is a value (frozen)."""
    return score(base, settings.base_games, settings)


def figure(base: Score, variant: Score) -> dict:
    """The manifest's figure: score(base) − score(variant) with its standard error, and the
    variant's score."""
    return {"value": round(base.score - variant.score, 4), "se": round(math.hypot(base.se, variant.se), 4),
            "score": round(variant.score, 4), "games": variant.games}
