"""Whole games inside the kernel, on cells: random playouts and perft (the move-tree count). The
families (families/) play the very same random games for a seed, faster."""
import numpy as np

from . import codes as K
from .arrays import copy_into
from .jit import inline, kernel
from .ply import playout_kernel
from .positions import advance, new_work, status
from .program import unpack
from .rng import throw


@inline
def _begin(starts, number, P, work):
    """ply.playout_kernel's `begin` on cells: game `number`'s start copied into work's state;
    returns 0 (the position is that state, played in place).

    starts: int32[n_starts, n_cells + 4] — the batch's start positions
    P: Program — the stage's tables (not read)
    work: tuple — (positions.new_work's buffers, the state int32[n_cells + 4], played in place)
    """
    copy_into(work[1], starts[number % starts.shape[0]])
    return 0  # the position is the state in work, played in place


@inline
def _status(position, P, work):
    """ply.playout_kernel's `status` on cells: positions.status of work's state (moves, over,
    winner), and 0 for `listed` (the moves stay in work's lists).

    P: Program — the stage's tables
    work: tuple — (positions.new_work's buffers, the state int32[n_cells + 4])
    """
    moves, over, won = status(work[1], P, work[0])
    return moves, over, won, 0


@inline
def _advance(position, listed, k, P, work):
    """ply.playout_kernel's `advance` on cells: the k-th listed move played on work's state;
    returns (0, whether a code had no branch).

    P: Program — the stage's tables
    work: tuple — (positions.new_work's buffers, their move lists filled, the state int32[n_cells + 4])
    """
    buffers, state = work
    msrc, mdst, mrule = buffers[2], buffers[3], buffers[4]
    return 0, advance(state, state, False, mrule[k], msrc[k], mdst[k], P, buffers[1]) == K.BAD_CODE


@inline
def _throw(x, position, P, work):
    """ply.playout_kernel's `throw` on cells: positions.throw into work's state; returns x.

    P: Program — the stage's tables
    work: tuple — (positions.new_work's buffers, the state int32[n_cells + 4])
    """
    return throw(x, work[1], P)


_games = playout_kernel(_begin, _status, _advance, _throw)


@kernel
def playouts(starts, first_game, seed, max_plies, flat, bb_mask, lengths, winners):
    """ply.playout_kernel's games on cells, the generic form.

    starts: int32[n_starts, n_cells + 4] — the positions games begin from, read only
    flat: int32[n_packed] — the program's tables (program.pack)
    bb_mask: uint64[n_dirs] — the program's bit masks
    lengths, winners: int32[games] — written: each game's plies and winner
    first_game, seed, max_plies: the first game's number, the batch's seed, the cap on plies
    """
    P = unpack(flat, bb_mask)
    _games(starts, first_game, seed, max_plies, P, (new_work(P), np.empty(starts.shape[1], np.int32)), lengths,
           winners)


@kernel
def perft(state, depth, flat, bb_mask):
    """Leaves of the move tree at `depth` (a forced pass is one ply; a finished game is a leaf),
    depth-first with one state and one move list per level; K.BAD_CODE for a code without a branch.

    state: int32[n_cells + 4] — the root position, read only
    flat: int32[n_packed] — the program's tables (program.pack)
    bb_mask: uint64[n_dirs] — the program's bit masks
    """
    P = unpack(flat, bb_mask)
    size = state.shape[0]
    maxm = P.game[K.G_MAX_MOVES]
    states = np.empty((depth + 1, size), np.int32)
    msrc = np.empty((depth + 1, maxm), np.int32)
    mdst = np.empty((depth + 1, maxm), np.int32)
    mrule = np.empty((depth + 1, maxm), np.int32)
    count = np.zeros(depth + 1, np.int64)
    index = np.zeros(depth + 1, np.int64)
    work = new_work(P)
    states[0] = state
    leaves = 0
    level = 0
    n, over, won = status(states[0], P, work)
    if won == K.BAD_CODE:
        return K.BAD_CODE
    if depth == 0 or over:
        return 1
    count[0] = n
    msrc[0, :n], mdst[0, :n], mrule[0, :n] = work[2][:n], work[3][:n], work[4][:n]
    while level >= 0:
        if index[level] == count[level]:
            level -= 1
            continue
        k = index[level]
        index[level] += 1
        child = states[level + 1]
        if advance(states[level], child, True, mrule[level, k], msrc[level, k], mdst[level, k], P,
                   work[1]) == K.BAD_CODE:
            return K.BAD_CODE
        if level + 1 == depth:
            leaves += 1
            continue
        n, over, won = status(child, P, work)
        if won == K.BAD_CODE:
            return K.BAD_CODE
        if over:
            leaves += 1
            continue
        level += 1
        count[level] = n
        index[level] = 0
        msrc[level, :n], mdst[level, :n], mrule[level, :n] = work[2][:n], work[3][:n], work[4][:n]
    return leaves
