"""τ, the cost of running a stage (Schaul et al.'s run time, counted rather than timed).

τ(stage) = the mean, over the random games numbered 0 .. TAU_GAMES-1 of seed TAU_SEED, of
Σ over the positions a game passes through (its last one included) of 1 + the legal moves there,
each game cut at `max_plies`. The random games are the engine's seeded random playouts: at every
position the move of index ⌊u · n⌋ among the n legal moves in the engine's order, u from the game's
own generator (compiler/rng.py, written again below in plain Python). So τ is a property of the
game's rules alone: the same in the reference interpreter and the compiled game, on every machine,
whatever the family of kernels; K = bits + log2 τ.

Counted work tracks time: the cost of a position is dominated by listing its moves, and a game's
time by its positions (the closing note of the sampler issue gives the rank correlation with
measured time on the bundled stages).
"""
from __future__ import annotations

import math

TAU_GAMES = 64
TAU_SEED = 0
MASK = (1 << 64) - 1


def _splitmix(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def game_generator(seed: int, number: int) -> int:
    """compiler/rng.py's game_generator in plain Python."""
    return _splitmix((seed * 0x2545F4914F6CDD1D + number) & MASK)


def draw(x: int, n: int) -> tuple[int, int]:
    """compiler/rng.py's draw in plain Python: (next state, an index below n)."""
    x ^= x >> 12
    x ^= (x << 25) & MASK
    x ^= x >> 27
    return x, ((((x * 2685821657736338717) & MASK) >> 32) * n) >> 32


def counted_games(game, n: int, seed: int = TAU_SEED, max_plies: int = 10_000) -> list[tuple[int, int]]:
    """(plies, counted cost) of the random games 0..n-1 of `seed`, through the Game contract (the
    reference interpreter or a compiled game, move by move: slow, for checking the kernels)."""
    out = []
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
