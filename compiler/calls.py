"""Calls from Python: one kernel call per move. `step` plays a move given by its code (codes.py)
and leaves the status and the moves of the position it leads to; the caller owns every buffer
(a slab the child is written into, the `out` listing, scratch space), so a call allocates nothing.

The contract, shared by the generic form below and every family's `step`:

    step(state, slab, row, code, known, ints, bits) -> (taken, moves, over, winner)

`state` is a read-only position. `ints` (int32) and `bits` (uint64) hold the tables, scratch space
and, in the last 2 * max_moves int32 of `ints`, the listing `out`: the moves as codes
(out[:max_moves]), then their rules (out[max_moves:]). Every array argument is unboxed at every
call (about 0.1 µs each, a tenth of a whole call), hence two arrays for all of that
(`with_listing`). `known` is the number of moves of `state` when `out` already lists them (the
caller's last call left them), else -1 and the step lists them first. The move `code` must be one
of them: its child is written into slab[row] and `out` then lists the child's moves. With
code = K.STATUS_ONLY nothing is played and `out` lists the moves of `state` itself (slab[row] is
a free row of the caller's: a step may use it as scratch). Returns the pieces the move took and
the status of the position `out` now describes (moves, over, winner); the winner is K.ILLEGAL for
a move that is not among the legal ones (`out` then lists those) and K.BAD_CODE for a rule code
without a branch.
"""
import numpy as np

from . import codes as K
from .arrays import copy_into
from .jit import inline, leaf
from .ply import listing, step_kernel
from .positions import advance, status
from .program import T_GAME, Program, pack, unpack


def with_listing(ints: np.ndarray, scratch: int, max_moves: int) -> tuple[np.ndarray, np.ndarray]:
    """`ints` followed by `scratch` int32 of scratch space and the listing `out`, and a view of `out`
    (for the caller to read)."""
    whole = np.concatenate([ints, np.zeros(scratch + 2 * max_moves, np.int32)])
    return whole, whole[whole.shape[0] - 2 * max_moves:]


def step_arrays(program: Program, tables: tuple, scratch: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A family step's two arrays, from its tables (ints, bits, ...): `ints` with `scratch` int32 of
    scratch space and the listing appended (with_listing), and `bits`."""
    return with_listing(tables[0], scratch, int(program.game[K.G_MAX_MOVES]))[0], tables[1]


@inline
def scratch(ints, m, k):
    """The k int32 of scratch space before the listing.

    ints: int32[n_packed + scratch + 2 * m] — a step's `ints` (with_listing); m: max_moves
    -> space: int32[k] — a view
    """
    end = ints.shape[0] - 2 * m
    return ints[end - k: end]


encode = inline(K.move_code)  # the move src→dst as its code
decode = inline(K.move_cells)  # a code as (origin, destination)


@inline
def work_size(n_cells, max_moves, n_dirs, ray_length):
    """How many int32 of scratch the generic `step` needs (scalars: Python calls it too, and no
    kernel compiles for it)."""
    return 4 * (n_cells + K.STATE_EXTRA) + n_dirs * ray_length + 8 + 2 * max_moves


def tables(program: Program) -> tuple[np.ndarray, np.ndarray]:
    """The two arrays of the generic `step` (the packed program, scratch, the listing)."""
    cells, m = int(program.game[K.G_CELLS]), int(program.game[K.G_MAX_MOVES])
    scratch_size = work_size(cells, m, program.rays.shape[0], program.rays.shape[2])
    return with_listing(pack(program), scratch_size, m)[0], program.bb_mask


@inline
def _copy(state, wbuf):
    """A writable copy of a read-only state, in the work buffer: the kernels are compiled for
    writable arrays (a read-only one would compile all of them a second time).

    state: int32[n_cells + 4] — read only
    wbuf: int32[work_size] — the step's scratch (_list lays it out)
    -> cells: int32[n_cells + 4] — the copy, a view of wbuf
    """
    b = state.shape[0]
    cells = wbuf[3 * b: 4 * b]
    copy_into(cells, state)
    return cells


@leaf
def _list(cells, ints, bits, wbuf, out):
    """The status of the position `cells` (n_moves, over, winner); `out` lists its moves.

    cells: int32[n_cells + 4] — the position, writable (_copy's, or a slab row)
    ints: int32[n_packed + work_size + 2 * max_moves] — the packed program, scratch, the listing
    bits: uint64[n_dirs] — the bit masks (program.FIELDS' bb_mask)
    wbuf: int32[work_size] — scratch: positions.new_work's buffers laid end to end
    out: int32[2 * max_moves] — written: the moves' codes, then their rules
    """
    P = unpack(ints, bits)
    size, m = P.game[K.G_CELLS], P.game[K.G_MAX_MOVES]
    r = P.rays.shape[0] * P.rays.shape[2] + 8
    b = size + K.STATE_EXTRA
    srcs, dsts = wbuf[4 * b + r: 4 * b + r + m], wbuf[4 * b + r + m: 4 * b + r + 2 * m]
    work = (wbuf[:b], wbuf[4 * b: 4 * b + r], srcs, dsts, out[m: 2 * m], wbuf[b: 2 * b], wbuf[2 * b: 3 * b])
    n, over, won = status(cells, P, work)
    for k in range(n):
        out[k] = encode(srcs[k], dsts[k], size)
    return n, over, won


@inline
def _describe(state, child, ints, bits):
    """ply.step_kernel's `describe` for the generic form: the status (moves, over, winner) of a
    writable copy of `state`, its moves listed.

    state: int32[n_cells + 4] — the position, read only
    child: int32[n_cells + 4] — a free row, not read
    ints: int32[n_packed + work_size + 2 * max_moves] — the packed program, scratch, the listing
    bits: uint64[n_dirs] — the bit masks
    """
    P = unpack(ints, bits)
    size, m = P.game[K.G_CELLS], P.game[K.G_MAX_MOVES]
    wbuf = scratch(ints, m, work_size(size, m, P.rays.shape[0], P.rays.shape[2]))
    return _list(_copy(state, wbuf), ints, bits, wbuf, listing(ints, m))


@inline
def _play(state, child, k, code, n, ints, bits):
    """ply.step_kernel's `play` for the generic form: listed move k (its rule read from the
    listing) played into `child`, whose moves are then listed: (taken, moves, over, winner).

    state: int32[n_cells + 4] — the position, read only
    child: int32[n_cells + 4] — written (a slab row)
    ints: int32[n_packed + work_size + 2 * max_moves] — the packed program, scratch, the listing
    bits: uint64[n_dirs] — the bit masks
    """
    P = unpack(ints, bits)
    size, m = P.game[K.G_CELLS], P.game[K.G_MAX_MOVES]
    out, wbuf = listing(ints, m), scratch(ints, m, work_size(size, m, P.rays.shape[0], P.rays.shape[2]))
    src, dst = decode(code, size)
    taken = advance(_copy(state, wbuf), child, True, out[m + k], np.int32(src), np.int32(dst), P,
                    wbuf[4 * state.shape[0]:])
    if taken == K.BAD_CODE:
        return taken, 0, True, K.BAD_CODE
    n, over, won = _list(child, ints, bits, wbuf, out)
    return taken, n, over, won


step = step_kernel(T_GAME, _describe, _play)  # the generic form of the contract above
