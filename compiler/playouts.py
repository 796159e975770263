"""Whole games inside the kernel, on cells: random playouts and perft (the move-tree count). The
families (families/) play the very same random games for a seed, faster."""
import numpy as np

from . import codes as K
from .arrays import copy_into
from .jit import kernel
from .positions import advance, new_work, status
from .program import unpack
from .rng import draw, game_generator


@kernel
def playouts(starts, first_game, seed, max_plies, flat, bb_mask, lengths, winners):
    """Random games: game g (numbered from `first_game`, for reproducibility across threads)
    starts from starts[g % len(starts)] and draws its moves uniformly with its own generator,
    seeded from (seed, g). Writes plies played and the winner (0, 1, K.NONE a draw, K.CUT cut at
    max_plies, K.BAD_CODE a code without a branch) per game."""
    P = unpack(flat, bb_mask)
    work = new_work(P)
    msrc, mdst, mrule, buf = work[2], work[3], work[4], work[1]
    state = np.empty(starts.shape[1], np.int32)
    for g in range(lengths.shape[0]):
        number = first_game + g
        x = game_generator(seed, number)
        copy_into(state, starts[number % starts.shape[0]])
        plies = 0
        while True:
            n, over, won = status(state, P, work)
            if over:
                winners[g] = won
                break
            if plies >= max_plies:
                winners[g] = K.CUT
                break
            x, k = draw(x, n)
            if advance(state, state, False, mrule[k], msrc[k], mdst[k], P, buf) == K.BAD_CODE:
                winners[g] = K.BAD_CODE
                break
            plies += 1
        lengths[g] = plies


@kernel
def perft(state, depth, flat, bb_mask):
    """Leaves of the move tree at `depth` (a forced pass is one ply; a finished game is a leaf),
    depth-first with one state and one move list per level; K.BAD_CODE for a code without a branch."""
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
