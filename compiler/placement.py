"""Straight code for pure placement games: random playouts for stages whose one move rule is
`place empty` or `place gravity` with no effects (tic-tac-toe, m,n,k-games, Gomoku, Connect Four,
Hex), whatever their ends.

In such a game a cell only ever goes from empty to a piece, so a line, a connection or a far-row
piece the mover has after its move either goes through the cell just played or was there at its
previous move, when the same end would already have held. So the ends are tested around the new
cell only, once the start position has been tested whole (if a player already has a line or a
connection there, every position is tested whole, as the generic kernels do). It plays exactly
the games the generic kernels play for a seed (same legal order, same random draws), which
tests/test_compiled.py checks.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..gdl import ast as A
from . import kernels as K

_OPTS = dict(cache=True, nogil=True, boundscheck=False)


def applies(stage: A.Stage) -> bool:
    """Whether a stage belongs to the family this module plays."""
    return (len(stage.moves) == 1 and isinstance(stage.moves[0].kind, (A.PlaceEmpty, A.PlaceGravity))
            and not stage.moves[0].effects)


@njit(**_OPTS)
def _run_through(cells, at, d, e, mine, nbr, limit):
    """Length of the run of `mine` through `at` along directions d (forward) and e (back), capped
    at `limit` (a ring of a wrapped board would otherwise go round for ever)."""
    n = 1
    j = nbr[d, at]
    while j >= 0 and j != at and cells[j] == mine and n < limit:
        n += 1
        j = nbr[d, j]
    j = nbr[e, at]
    while j >= 0 and j != at and cells[j] == mine and n < limit:
        n += 1
        j = nbr[e, j]
    return n


@njit(**_OPTS)
def _line_at(cells, at, mine, k, exact, nbr, axes, opposite, ring):
    for a in range(axes.shape[0]):
        d = axes[a]
        n = _run_through(cells, at, d, opposite[d], mine, nbr, ring[a])
        if n == k or (n > k and not exact):
            return True
    return False


@njit(**_OPTS)
def _connected_at(cells, at, mine, start, goal, nbr, orth, stack, seen, stamp):
    """Whether the mover's group holding `at` touches both sides. `seen[i] == stamp` marks the
    cells visited by this search, so no search clears the board's marks."""
    seen[at] = stamp
    stack[0] = at
    top = 1
    touches_start = False
    touches_goal = False
    while top > 0:
        top -= 1
        i = stack[top]
        touches_start |= start[i] != 0
        touches_goal |= goal[i] != 0
        if touches_start and touches_goal:
            return True
        for d in range(nbr.shape[0]):
            j = nbr[d, i]
            if orth[d] != 0 and j >= 0 and seen[j] != stamp and cells[j] == mine:
                seen[j] = stamp
                stack[top] = j
                top += 1
    return False


@njit(**_OPTS)
def _decided_anywhere(state, flat, bbmask):
    """Whether an end other than no-moves/board-full/after could hold for either player in a
    start position (the whole board tested, by the generic kernel's rules)."""
    P = K.unpack(flat, bbmask)
    work = K.new_work(P)
    size = P[13][K.G_CELLS]
    ends = P[12]
    probe = state.copy()
    for mover in range(2):
        probe[size + K.MOVER] = mover
        for e in range(ends.shape[0]):
            cond = ends[e, 0]
            if cond == K.LINE or cond == K.CONNECT or cond == K.REACH_FAR_ROW:
                if K._holds(probe, cond, ends[e, 1], ends[e, 2], 1, size, P[0], P[3], P[4], P[5], P[14], P[15],
                            work[5], work[6]):
                    return True
    return False


@njit(**_OPTS)
def playouts(starts, first_game, seed, max_plies, flat, bbmask, axes, opposite, ring, lengths, winners):
    """kernels.playouts for pure placement games: the same games, tested around the new cell."""
    P = K.unpack(flat, bbmask)
    nbr, ends, game, regions, orth = P[0], P[12], P[13], P[14], P[15]
    size, rows, cols = game[K.G_CELLS], game[K.G_ROWS], game[K.G_COLS]
    gravity = P[6][0, K.R_KIND] == K.PLACE_GRAVITY
    turn = game[K.G_TURN]
    state = np.empty(starts.shape[1], np.int32)
    moves = np.empty(size, np.int32)
    stack = np.empty(size + 1, np.int32)
    seen = np.zeros(size + 1, np.int64)
    stamp = 0
    whole = np.zeros(starts.shape[0], np.bool_)
    for s in range(starts.shape[0]):
        whole[s] = _decided_anywhere(starts[s], flat, bbmask)
    for g in range(lengths.shape[0]):
        number = first_game + g
        x = K.game_generator(seed, number)
        start = number % starts.shape[0]
        if whole[start]:  # a line or a connection at the start: test everything, as generic play does
            K.playouts(starts, number, seed, max_plies, flat, bbmask, lengths[g:g + 1], winners[g:g + 1])
            continue
        state[:] = starts[start]
        counts = np.zeros(2, np.int64)
        empties = 0
        for i in range(size):
            v = state[i]
            if v > 0:
                counts[v - 1] += 1
            elif v == 0:
                empties += 1
        player, mover, ply = state[size + K.TO_MOVE], state[size + K.MOVER], state[size + K.PLY]
        last = -1  # the cell just played (none at the start)
        plies = 0
        while True:
            # the legal moves, row-major
            n = 0
            if gravity:  # the lowest empty cell of each column, then in row-major order
                for c in range(cols):
                    for r in range(rows - 1, -1, -1):
                        if state[r * cols + c] == 0:
                            i = r * cols + c
                            b = n
                            while b > 0 and moves[b - 1] > i:
                                moves[b] = moves[b - 1]
                                b -= 1
                            moves[b] = i
                            n += 1
                            break
            else:
                for i in range(size):
                    if state[i] == 0:
                        moves[n] = i
                        n += 1
            over = False
            won = K.NONE
            for e in range(ends.shape[0]):
                cond, param = ends[e, 0], ends[e, 1]
                if cond == K.NO_MOVES:
                    holds = n == 0
                elif cond == K.BOARD_FULL:
                    holds = empties == 0
                elif cond == K.AFTER_PLIES:
                    holds = ply >= param
                elif cond == K.NO_PIECES:
                    holds = counts[player] == 0
                elif last < 0:
                    holds = False  # nothing new on the board, and the start was tested whole
                elif cond == K.LINE:
                    holds = _line_at(state, last, mover + 1, param, ends[e, 2] != 0, nbr, axes, opposite, ring)
                elif cond == K.CONNECT:
                    stamp += 1
                    holds = _connected_at(state, last, mover + 1, regions[param + 2 * mover],
                                          regions[param + 2 * mover + 1], nbr, orth, stack, seen, stamp)
                else:  # REACH_FAR_ROW
                    holds = regions[mover][last] != 0
                if holds:
                    over = True
                    won = K._winner(state, ends[e, 3], size)
                    break
            if over or n == 0:
                winners[g] = won
                break
            if plies >= max_plies:
                winners[g] = -2
                break
            x, k = K.draw(x, n)
            last = moves[k]
            state[last] = player + 1
            counts[player] += 1
            empties -= 1
            mover = player
            state[size + K.MOVER] = mover
            if turn == K.FEWER_PIECES:
                player = player if counts[player] < counts[1 - player] else 1 - player
            else:  # alternate; again-after-capture never captures here
                player = 1 - player
            state[size + K.TO_MOVE] = player
            ply += 1
            state[size + K.PLY] = ply
            plies += 1
        lengths[g] = plies
