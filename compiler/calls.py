"""Calls from Python on the generic form: one kernel call per question, two arrays for the
program (program.pack), a work buffer owned by the caller, so that a call allocates nothing."""
import numpy as np

from . import codes as K
from .jit import inline, kernel
from .positions import advance, status
from .program import unpack


@kernel
def work_size(flat, bb_mask):
    """How many int32 the work buffer of moves_of/advance_from needs."""
    P = unpack(flat, bb_mask)
    return 4 * (P.game[K.G_CELLS] + K.STATE_EXTRA) + P.rays.shape[0] * P.rays.shape[2] + 8


@inline
def _status_into(state, P, wbuf, out):
    size, m = P.game[K.G_CELLS], P.game[K.G_MAX_MOVES]
    r = P.rays.shape[0] * P.rays.shape[2] + 8
    b = size + K.STATE_EXTRA
    cells = wbuf[3 * b: 3 * b + state.shape[0]]  # a copy: states from Python are read-only
    cells[:] = state
    work = (wbuf[:b], wbuf[4 * b: 4 * b + r], out[3: 3 + m], out[3 + m: 3 + 2 * m], out[3 + 2 * m: 3 + 3 * m],
            wbuf[b: 2 * b], wbuf[2 * b: 3 * b])
    n, over, won = status(cells, P, work)
    out[0], out[1], out[2] = n, over, won


@kernel
def moves_of(state, flat, bb_mask, wbuf, out):
    """status() for Python: out[0] = moves, out[1] = over, out[2] = winner, then the moves'
    origins, destinations and rules, max_moves each. `wbuf` (work_size int32) is scratch space
    owned by the caller."""
    _status_into(state, unpack(flat, bb_mask), wbuf, out)


@kernel
def advance_from(state, child, r, src, dst, flat, bb_mask, wbuf, out):
    """advance() then moves_of() for Python, in one call: `child` (a new array) becomes the
    position after the move, and `out` receives its status. Returns the pieces taken (K.BAD_CODE
    for a code without a branch; `out` is then left alone)."""
    P = unpack(flat, bb_mask)
    b = P.game[K.G_CELLS] + K.STATE_EXTRA
    cells = wbuf[3 * b: 3 * b + state.shape[0]]  # a copy: states from Python are read-only
    cells[:] = state
    taken = advance(cells, child, True, np.int32(r), np.int32(src), np.int32(dst), P, wbuf[4 * b:])
    if taken == K.BAD_CODE:
        return taken
    _status_into(child, P, wbuf, out)
    return taken
