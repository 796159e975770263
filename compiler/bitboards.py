"""Bitboards for boards of at most 64 cells without wrap: a side is a uint64, bit i = cell i
(row-major), and a step in direction d is a shift by `bb_shift[d]` of the cells in `bb_mask[d]`
(those that have a neighbour that way; hex boards included). The helpers every bitboard family
shares."""
import numpy as np

from . import codes as K
from .jit import inline, kernel, leaf

ONE = np.uint64(1)


@kernel
def popcount(x):
    """The number of set bits of the uint64 bitboard `x`, as int64 (a SWAR count: numba has no
    intrinsic for it)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@inline
def lowest(b):
    """The lowest set bit of b, as a bitboard."""
    return b & (~b + ONE)


@inline
def index_of(bit):
    """The cell of a one-bit bitboard."""
    return popcount(bit - ONE)


@inline
def shift(b, d, bb_shift, bb_mask):
    """Every bit i of bitboard b moved to its neighbour in direction d (off the board: dropped).

    bb_shift: int32[n_dirs] — the bit shift of a step in each direction (program.FIELDS)
    bb_mask: uint64[n_dirs] — the cells that have a neighbour in each direction, as bits
    """
    s = bb_shift[d]
    b &= bb_mask[d]
    return b << np.uint64(s) if s > 0 else b >> np.uint64(-s)


# A step table: uint64[3, n_dirs], row STEP_MASK the cells that may step (bb_mask of the direction
# stepped, 0 for a direction not used), rows STEP_LEFT and STEP_RIGHT the shifts that step them
# (one of the two is 0). Its own shifts per direction, with no sign to test, let the loops over the
# directions run as straight code that LLVM turns into vector instructions (effects.py: a custodial
# legality test in 8 ns, against 90 ns stepping with `shift`).
STEP_MASK, STEP_LEFT, STEP_RIGHT = 0, 1, 2


@kernel
def step_table(dirs, bb_shift, bb_mask, opposite=None):
    """The step table of the directions d with dirs[d] != 0: a step in direction d, or, given the
    `opposite` of each direction, in the opposite of d (the way a custodial run is grown from the
    closing piece).

    dirs: int32[n_dirs] — 1 for the directions to step in
    bb_shift: int32[n_dirs] — the bit shift of a step each way
    bb_mask: uint64[n_dirs] — the cells with a neighbour each way
    opposite: int32[n_dirs] — the opposite of each direction, or None (step forwards)
    -> steps: uint64[3, n_dirs] — per direction its mask, left shift and right shift (0 for unused)
    """
    n = dirs.shape[0]
    steps = np.zeros((3, n), np.uint64)
    for d in range(n):
        if dirs[d] != 0:
            e = d if opposite is None else opposite[d]
            s = bb_shift[e]
            steps[STEP_MASK, d] = bb_mask[e]
            steps[STEP_LEFT, d] = s if s > 0 else 0
            steps[STEP_RIGHT, d] = -s if s < 0 else 0
    return steps


@inline
def step(b, steps, d):
    """Every bit of bitboard b moved one step by row d of a step table (off the board: dropped).

    steps: uint64[3, n_dirs] — a step table (step_table)
    """
    return ((b & steps[STEP_MASK, d]) << steps[STEP_LEFT, d]) >> steps[STEP_RIGHT, d]


@kernel
def full(size):
    """The bitboard of every cell of a board of `size` cells."""
    return np.uint64(0xFFFFFFFFFFFFFFFF) if size == 64 else (ONE << np.uint64(size)) - ONE


@leaf
def sides_of(state, size):
    """(first player's pieces, second's, blocked cells) of a state, as uint64 bitboards.

    state: int32[n_cells + 4] — a position (codes.py), read only; size: n_cells (≤ 64)
    """
    first, second, blocked = np.uint64(0), np.uint64(0), np.uint64(0)
    for i in range(size):
        v = state[i]
        if v == 1:
            first |= ONE << np.uint64(i)
        elif v == 2:
            second |= ONE << np.uint64(i)
        elif v < 0:
            blocked |= ONE << np.uint64(i)
    return first, second, blocked


@inline
def first_position(starts, number, size):
    """Game `number` of a playout batch starts from starts[number % len(starts)]: its position as
    the bitboard families keep it (ply.playout_kernel): (first player's pieces, second's, blocked
    cells, every cell, player to move, mover, ply): uint64 bitboards, then int64.

    starts: int32[n_starts, n_cells + 4] — the batch's start positions; size: n_cells
    """
    start = starts[number % starts.shape[0]]
    first, second, blocked = sides_of(start, size)
    player, mover, ply = turn_of(start, size)
    return first, second, blocked, full(size), player, mover, ply


@inline
def turn_of(state, size):
    """(player to move, mover, ply) of a state, as int64: the type a ply loop gives them once they
    change (int32 from the state would have numba compile the loop's callees once per type it
    meets while typing the loop, and a step's callees a second time).

    state: int32[n_cells + 4] — a position (codes.py); size: n_cells
    """
    return np.int64(state[size + K.TO_MOVE]), np.int64(state[size + K.MOVER]), np.int64(state[size + K.PLY])


def region_bits(regions: np.ndarray) -> np.ndarray:
    """uint64[n_regions]: each region of a program (int32[n_regions, n]) as a bitboard."""
    return np.array([sum(1 << int(i) for i in np.flatnonzero(region)) for region in regions], dtype=np.uint64)
