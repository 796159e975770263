"""The ply protocol every form of the compiled game shares (the generic kernels on cells and each
family of families/), written once; a form hands in only what differs (Pgx's `Env.step`):

- the ends of a position: `ends.end_rule` (the first that holds decides, else no moves is a draw);
- `step_kernel(game_table, describe, play)`: calls.step's contract, its preamble (a state from
  outside the game checked once, the status of the position, an illegal move refused) and the move;
- `playout_kernel(begin, status, advance)`: random games inside the kernel, every form drawing the
  same moves for a seed (rng.py).

Each is a factory: it closes over the form's kernels and returns a kernel of its own, which numba
compiles once per form (and caches: jit.py keys a closure's cache on the names it closes over).
"""
import numpy as np

from . import codes as K
from .jit import inline, kernel
from .positions import misfit
from .program import table1
from .rng import draw, game_generator


@inline
def listing(ints, m):
    """The listing `out` at the end of a step's `ints` (m: max_moves)."""
    return ints[ints.shape[0] - 2 * m:]


@inline
def find(out, n, code):
    """Where `code` is among the n moves `out` lists, or -1."""
    for k in range(n):
        if out[k] == code:
            return k
    return -1


def step_kernel(game_table, describe, play):
    """calls.step for a form whose tables are packed in `ints` with the game row as table number
    `game_table`.

    `describe(state, child, ints, bits) -> (moves, over, winner)`: the status of `state` (read-only),
    its moves written into the listing (calls.listing); `child` is a free row to use as scratch.
    `play(state, child, k, code, moves, ints, bits) -> (taken, moves, over, winner)`: write the
    position after the listed move k (its code `code`, one of `moves` listed) into `child`, list its
    moves and return the pieces taken and the child's status (K.BAD_CODE as taken for a code
    without a branch)."""

    @kernel
    def step(state, slab, row, code, known, ints, bits):
        if known < 0 and misfit(state, slab.shape[1]):  # a state from outside the game: checked once
            return 0, 0, True, K.BAD_STATE
        child = slab[row]
        n = known
        if n < 0 or code == K.STATUS_ONLY:
            n, over, won = describe(state, child, ints, bits)
            if code == K.STATUS_ONLY or won == K.BAD_CODE:
                return 0, n, over, won
        k = find(listing(ints, table1(ints, game_table)[K.G_MAX_MOVES]), n, code)
        if k < 0:
            return 0, n, False, K.ILLEGAL
        return play(state, child, k, code, n, ints, bits)

    return step
