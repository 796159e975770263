"""Calls from Python on the generic form: one kernel call per move (the move and the status of the
position it leads to), two arrays for the program (program.pack), a work buffer owned by the
caller, so that a call allocates nothing. A family's `step` has the same contract."""
import numpy as np

from . import codes as K
from .jit import inline, kernel
from .positions import advance, status
from .program import unpack


@kernel
def work_size(flat, bb_mask):
    """How many int32 the work buffer of `step` needs."""
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
    return n, over, won


@kernel
def step(state, child, r, src, dst, out, flat, bb_mask, wbuf):
    """A call from Python: `child` becomes the position after rule r's move src→dst (r = -1: a
    pass) and `out` receives the child's status: out[0] = moves, out[1] = over, out[2] = winner,
    then the moves' origins, destinations and rules, max_moves each. With r = K.STATUS_ONLY,
    `child` is left alone and `out` receives the status of `state` itself. Returns (pieces taken,
    moves, over, winner): the first and last are K.BAD_CODE for a code without a branch. `wbuf`
    (work_size int32) is scratch space owned by the caller, so that a call allocates nothing."""
    P = unpack(flat, bb_mask)
    if r == K.STATUS_ONLY:
        n, over, won = _status_into(state, P, wbuf, out)
        return 0, n, over, won
    b = P.game[K.G_CELLS] + K.STATE_EXTRA
    cells = wbuf[3 * b: 3 * b + state.shape[0]]  # a copy: states from Python are read-only
    cells[:] = state
    taken = advance(cells, child, True, np.int32(r), np.int32(src), np.int32(dst), P, wbuf[4 * b:])
    if taken == K.BAD_CODE:
        return taken, 0, True, K.BAD_CODE
    n, over, won = _status_into(child, P, wbuf, out)
    return taken, n, over, won
