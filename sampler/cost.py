"""τ, the cost of running a stage (Schaul et al.'s run time, counted rather than timed).

τ(stage) = the mean, over the random games numbered 0 .. TAU_GAMES-1 of seed TAU_SEED, of
Σ over the positions a game passes through (its last one included) of 1 + the legal moves there,
each game cut at `max_plies`. The random games are the engine's seeded random playouts: at every
position the move of index ⌊u · n⌋ among the n legal moves in the engine's order, u from the game's
own generator (compiler/rng.py, in plain Python in gdl/rng.py). So τ is a property of the
game's rules alone: the same in the reference interpreter and the compiled game, on every machine,
whatever the family of kernels; K = bits + log2 τ.

Counted work tracks time: the cost of a position is dominated by listing its moves, and a game's
time by its positions (the closing note of the sampler issue gives the rank correlation with
measured time on the bundled stages).
"""
from __future__ import annotations

import math

from ..gdl.rng import draw, game_generator  # the kernels' generator, in plain Python
from ..gdl.interpreter import chance

__all__ = ["TAU_GAMES", "TAU_SEED", "counted_games", "draw", "game_generator", "levin_k", "tau"]

TAU_GAMES = 64
TAU_SEED = 0


def counted_games(game, n: int, seed: int = TAU_SEED, max_plies: int = 10_000) -> list[tuple[int, int]]:
    """(plies, counted cost) of the random games 0..n-1 of `seed`, through the Game contract (the
    reference interpreter or a compiled game, move by move: slow, for checking the kernels)."""
    out = []
    roll = game.stage.roll
    for number in range(n):
        x = game_generator(seed, number)
        state = game.initial_state()
        plies = cost = 0
        while True:
            moves = [] if game.is_terminal(state) else game.legal_moves(state)
            cost += 1 + len(moves)
            if not moves or plies >= max_plies:
                break
            x, k = draw(x, len(moves))
            state = game.apply(state, moves[k])
            if roll is not None:  # the next roll, from the game's generator as the kernels throw it
                x, thrown = chance.thrown(roll, x)
                state = game.with_roll(state, thrown)
            plies += 1
        out.append((plies, cost))
    return out


def tau(costs) -> float:
    """τ from the counted costs of the games 0..TAU_GAMES-1."""
    costs = list(costs)[:TAU_GAMES]
    if len(costs) < TAU_GAMES:
        raise ValueError(f"τ is the mean over {TAU_GAMES} games, {len(costs)} given")
    return math.fsum(costs) / TAU_GAMES


def levin_k(bits: float, t: float) -> float:
    """K = bits + log2 τ."""
    return bits + math.log2(t)
