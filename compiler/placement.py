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

A connect end keeps a union-find of the cells and of one node per side per player: each piece is
joined, when placed, with its owner's orthogonal neighbours and with the nodes of the sides it
lies on, so "does the mover join its sides" is two finds a ply instead of a search of the new
cell's group.

The legal moves (row-major, as the generic kernels list them) are listed once a game, then kept up
to date as each cell fills, instead of scanning the board again every ply.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..gdl import ast as A
from . import kernels as K

_OPTS = dict(cache=True, nogil=True, boundscheck=False)
_INLINE = dict(_OPTS, inline="always")


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


# --- the connect ends: a union-find of the pieces and the sides -----------------------------------
# Each connect end has its own union-find: its side nodes join every piece on a side, so sides of
# two ends in one union-find would join groups that do not touch (through the other end's side).


@njit(**_INLINE)
def _side_node(size, player, side):
    """The node of the player's `side` (0 the first, 1 the second) of a connect end, past the cells."""
    return size + 2 * player + side


@njit(**_INLINE)
def _find(parent, i):
    """The root of i's set, halving the path on the way (each node visited skips to its grandparent)."""
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(**_INLINE)
def _union(parent, a, b):
    """Merge a's and b's sets. The larger root stays the root, so the side nodes (past the cells)
    stay roots and a side test is short."""
    a, b = _find(parent, a), _find(parent, b)
    if a < b:
        parent[a] = b
    elif b < a:
        parent[b] = a


@njit(**_INLINE)
def _join(parent, cells, at, nbr, orth, first, second, size):
    """Put the piece on `at` into one connect end's sets: with its owner's pieces one orthogonal
    step away (the adjacency kernels._connects walks) and with its owner's side nodes of the sides
    (regions `first`, `second`) that hold `at`."""
    mine = cells[at]
    for d in range(nbr.shape[0]):
        j = nbr[d, at]
        if orth[d] != 0 and j >= 0 and cells[j] == mine:
            _union(parent, at, j)
    if first[at] != 0:
        _union(parent, at, _side_node(size, mine - 1, 0))
    if second[at] != 0:
        _union(parent, at, _side_node(size, mine - 1, 1))


@njit(**_OPTS)
def _join_all(sets, cells, at, nbr, orth, ends, regions, size):
    """Put the piece on `at` into the union-find of every connect end (sets[e] for end e)."""
    player = cells[at] - 1
    for e in range(ends.shape[0]):
        if ends[e, 0] == K.CONNECT:
            side = ends[e, 1] + 2 * player  # the owner's two regions
            _join(sets[e], cells, at, nbr, orth, regions[side], regions[side + 1], size)


@njit(**_OPTS)
def _start_sets(cells, nbr, orth, ends, regions, size):
    """The connect ends' union-finds of a position, int32[n_ends, cells + 4]: every node alone,
    then every piece joined as if just placed (a join only looks at the cells: any order will do)."""
    sets = np.empty((ends.shape[0], size + 4), np.int32)
    for e in range(ends.shape[0]):
        sets[e] = np.arange(size + 4)
    for i in range(size):
        if cells[i] > 0:
            _join_all(sets, cells, i, nbr, orth, ends, regions, size)
    return sets


@njit(**_INLINE)
def _sides_joined(parent, mover, size):
    """Whether some group of the mover's touches both its sides of a connect end (a path between
    the two side nodes leaves the first side for the last time through one group)."""
    return _find(parent, _side_node(size, mover, 0)) == _find(parent, _side_node(size, mover, 1))


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


@njit(**_INLINE)
def _insert(moves, n, i):
    """Put cell i into the row-major list moves[:n]; returns how many."""
    b = n
    while b > 0 and moves[b - 1] > i:
        moves[b] = moves[b - 1]
        b -= 1
    moves[b] = i
    return n + 1


@njit(**_OPTS)
def _legal_moves(state, moves, gravity, rows, cols, size):
    """The legal moves into `moves`, row-major (the generic kernels' order); returns how many."""
    n = 0
    if gravity:  # the lowest empty cell of each column, then in row-major order
        for c in range(cols):
            for r in range(rows - 1, -1, -1):
                if state[r * cols + c] == 0:
                    n = _insert(moves, n, r * cols + c)
                    break
    else:
        for i in range(size):
            if state[i] == 0:
                moves[n] = i
                n += 1
    return n


@njit(**_INLINE)
def _drop(moves, n, k):
    """The legal moves of `place empty` once moves[k] is played: the others, still row-major (one
    cell left the empties, nothing else changed). Returns how many."""
    for b in range(k, n - 1):
        moves[b] = moves[b + 1]
    return n - 1


@njit(**_INLINE)
def _refill(moves, n, k, state, cols):
    """The legal moves of `place gravity` once moves[k] is played: the column's next empty cell up
    (past pieces and blocked cells: everything below is filled) takes its place, if there is one."""
    i = moves[k] - cols
    while i >= 0 and state[i] != 0:
        i -= cols
    n = _drop(moves, n, k)
    return _insert(moves, n, i) if i >= 0 else n


@njit(**_OPTS)
def _tally(state, counts, size):
    """Each player's pieces into `counts`; returns the empty cells."""
    counts[:] = 0
    empties = 0
    for i in range(size):
        v = state[i]
        if v > 0:
            counts[v - 1] += 1
        elif v == 0:
            empties += 1
    return empties


@njit(**_OPTS)
def _play(state, x, max_plies, moves, counts, sets, connect, gravity, turn, rows, cols, ends, nbr, orth, regions,
          axes, opposite, ring):
    """One random game from `state` (played on it), drawing from generator x, whose start holds no
    line nor connection. Returns (plies, winner: 0, 1, -1 a draw, -2 cut at max_plies). `sets` are
    the connect ends' union-finds of the start. The end test stays in this loop: a call per ply
    cost more than the test itself on small boards."""
    size = rows * cols
    empties = _tally(state, counts, size)
    player, ply = state[size + K.TO_MOVE], state[size + K.PLY]
    last = -1  # the cell just played (none at the start)
    plies = 0
    n = _legal_moves(state, moves, gravity, rows, cols, size)
    while True:
        mover = state[size + K.MOVER]
        for e in range(ends.shape[0]):  # the first end that holds, in the stage's order
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
                # No connection at the start and each ply tested: a connection now is new, the
                # mover's, through `last`, as kernels._connects would find it.
                holds = _sides_joined(sets[e], mover, size)
            else:  # REACH_FAR_ROW
                holds = regions[mover][last] != 0
            if holds:
                return plies, K._winner(state, ends[e, 3], size)
        if n == 0:
            return plies, K.NONE
        if plies >= max_plies:
            return plies, -2
        x, k = K.draw(x, n)
        last = moves[k]
        state[last] = player + 1
        if connect:
            _join_all(sets, state, last, nbr, orth, ends, regions, size)
        counts[player] += 1
        empties -= 1
        state[size + K.MOVER] = player
        if turn == K.FEWER_PIECES:
            player = player if counts[player] < counts[1 - player] else 1 - player
        else:  # alternate; again-after-capture never captures here
            player = 1 - player
        state[size + K.TO_MOVE] = player
        ply += 1
        state[size + K.PLY] = ply
        plies += 1
        n = _refill(moves, n, k, state, cols) if gravity else _drop(moves, n, k)


@njit(**_OPTS)
def playouts(starts, first_game, seed, max_plies, flat, bbmask, axes, opposite, ring, lengths, winners):
    """kernels.playouts for pure placement games: the same games, tested around the new cell."""
    P = K.unpack(flat, bbmask)
    nbr, ends, game, regions, orth = P[0], P[12], P[13], P[14], P[15]
    size, rows, cols = game[K.G_CELLS], game[K.G_ROWS], game[K.G_COLS]
    gravity = P[6][0, K.R_KIND] == K.PLACE_GRAVITY
    connect = False
    for e in range(ends.shape[0]):
        connect |= ends[e, 0] == K.CONNECT
    whole = np.zeros(starts.shape[0], np.bool_)
    start_sets = np.empty((starts.shape[0], ends.shape[0], size + 4), np.int32)  # each start's union-finds
    for s in range(starts.shape[0]):
        whole[s] = _decided_anywhere(starts[s], flat, bbmask)
        if connect:
            start_sets[s] = _start_sets(starts[s], nbr, orth, ends, regions, size)
    state = np.empty(starts.shape[1], np.int32)
    moves = np.empty(size, np.int32)
    counts = np.zeros(2, np.int64)
    sets = np.empty(start_sets.shape[1:], np.int32)
    for g in range(lengths.shape[0]):
        number = first_game + g
        start = number % starts.shape[0]
        if whole[start]:  # a line or a connection at the start: test everything, as generic play does
            K.playouts(starts, number, seed, max_plies, flat, bbmask, lengths[g:g + 1], winners[g:g + 1])
            continue
        state[:] = starts[start]
        if connect:
            sets[:] = start_sets[start]
        lengths[g], winners[g] = _play(state, K.game_generator(seed, number), max_plies, moves, counts, sets, connect,
                                       gravity, game[K.G_TURN], rows, cols, ends, nbr, orth, regions, axes, opposite,
                                       ring)
