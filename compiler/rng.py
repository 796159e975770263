"""The random draws of every playout kernel: one generator per game, seeded from (seed, game
number), one way to draw a move, and one way to throw a stage's dice (`throw`). Every family draws
through these, so all of them play the same games for a seed, whatever the number of threads."""
import numpy as np

from . import codes as K
from .jit import inline, kernel


@kernel
def _splitmix(x):
    """splitmix64's output for the uint64 `x` (its increment added first): a well-mixed uint64, so
    that nearby seeds and game numbers start unrelated generators."""
    x = (x + np.uint64(0x9E3779B97F4A7C15))
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@inline
def game_generator(seed, number):
    """The random generator of game `number` of a playout batch (the same on every thread)."""
    return _splitmix(np.uint64(seed) * np.uint64(0x2545F4914F6CDD1D) + np.uint64(number))


@inline
def draw(x, n):
    """Advance the xorshift generator x and draw an index below n: returns (x, index)."""
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    return x, np.int64(((x * np.uint64(2685821657736338717)) >> np.uint64(32)) * np.uint64(n) >> np.uint64(32))


@inline
def throw(x, state, P):
    """On a stage with dice, the side to move's roll of `state` thrown from the generator x, in place
    (gdl/interpreter/chance.py's `thrown`: the same faces in the same order); returns x, drawn from
    only on a stage with dice.

    state: int32[n_cells + 4] — written: its roll
    P: Program — the stage's tables
    """
    game = P.game
    dice = game[K.G_DICE]
    if dice > 0:
        total = 0
        for _ in range(dice):
            x, face = draw(x, game[K.G_FACES])
            total += face + 1
        state[game[K.G_CELLS] + K.ROLL] = total
    return x
