"""Pure placement games: stages whose one move rule is `place empty` or `place gravity` with no
effects (tic-tac-toe, m,n,k-games, Gomoku, Connect Four, Hex), with any turn order and ends.

A cell only ever goes from empty to a piece, so the ends are read in their placed form (ends.py):
around the cell just played, connections in a union-find, once the start position has been tested
whole (if a player already has a line or a connection there, the game is played by the generic
kernels). The legal moves (row-major, the generic order) are listed once a game, then kept up to
date as each cell fills, instead of scanning the board again every ply. It plays the generic
kernels' very games for a seed (tests/test_fast_playouts.py, tests/test_compiled.py).
"""
from __future__ import annotations

import numpy as np

from .. import codes as K
from ..arrays import copy_into
from ..calls import find, listing, scratch, step_arrays
from ..ends import count, counted, holds_cells, holds_placed, join_placed, line_through, start_sets, winner
from ..jit import inline, kernel, leaf
from ..positions import misfit
from ..playouts import playouts as generic_playouts
from ..program import (T_AXES, T_ENDS, T_GAME, T_LINE_CYCLIC, T_LINE_LEN, T_LINES, T_NBR, T_OPPOSITE, T_ORTH,
                       T_REGIONS, T_RULES, pack, table1, table2)
from ..rng import draw, game_generator
from ..turns import next_player, uses_counts

NAME = "placement"
HANDLES = K.coverage(
    moves={K.PLACE_EMPTY, K.PLACE_GRAVITY}, targets={K.TARGET_EMPTY},
    turns={K.ALTERNATE, K.FEWER_PIECES, K.AGAIN_AFTER_CAPTURE},
    conditions={K.NO_MOVES, K.BOARD_FULL, K.LINE, K.REACH_FAR_ROW, K.CONNECT, K.NO_PIECES, K.AFTER_PLIES},
    results={K.MOVER_WINS, K.MOVER_LOSES, K.MOST_PIECES, K.FEWEST_PIECES, K.DRAW})
EXCLUDES = K.coverage(moves={K.PLACE_ADJACENT, K.STEP, K.SLIDE, K.JUMP, K.CLONE},
                      targets={K.TARGET_ENEMY, K.TARGET_ANY}, effects={K.FLIP, K.REMOVE, K.CONVERT, K.REQUIRE})


def applies(program) -> tuple | None:
    """The tables of `playouts` (the packed program, the longest line per axis), or None for a stage
    of another shape."""
    rules = program.rules
    if rules.shape[0] != 1 or rules[0, K.R_N_EFFECTS] != 0:
        return None
    rings = np.array([_ring(program.nbr, int(d)) for d in program.axes], dtype=np.int32)
    return pack(program), program.bb_mask, rings


def _ring(nbr: np.ndarray, d: int) -> int:
    """How many cells a line along direction d holds at most (a ring's length on a wrapped board)."""
    longest = 0
    n_cells = nbr.shape[1]
    for i in range(n_cells):
        j, n = int(nbr[d, i]), 1
        while j >= 0 and j != i and n <= n_cells:
            j, n = int(nbr[d, j]), n + 1
        longest = max(longest, n)
    return longest


@leaf
def _first_end_whole(cells, n, ints, space, board_only):
    """The first end that holds on the whole board (the cells form), -1 if none, K.BAD_CODE for a
    code without a branch. With board_only, only the board conditions are read: those that counts
    alone do not decide (holds_placed reads the others from counts, exactly, and these around the
    last cell only). `space`: 2 * (n_cells + 1) int32 of scratch."""
    ends, regions, nbr = table2(ints, T_ENDS), table2(ints, T_REGIONS), table2(ints, T_NBR)
    lines, line_len, line_cyclic = table2(ints, T_LINES), table1(ints, T_LINE_LEN), table1(ints, T_LINE_CYCLIC)
    orth = table1(ints, T_ORTH)
    size = nbr.shape[1]
    stack, seen = space[: size + 1], space[size + 1:]
    for e in range(ends.shape[0]):
        cond, param = ends[e, K.E_CONDITION], ends[e, K.E_PARAM]
        if board_only and counted(cond, param, 1, 1, 1, 0) != K.UNKNOWN:
            continue
        holds = holds_cells(cells, cond, param, ends[e, K.E_EXACT], n, lines, line_len, line_cyclic, regions, nbr, orth,
                            stack, seen)
        if holds == K.UNKNOWN:
            return K.BAD_CODE
        if holds:
            return e
    return -1


@kernel
def _decided(starts, flat):
    """bool[len(starts)]: whether a board condition (line, connect, far row) already holds for
    either player in each start, read whole as the generic kernels read it."""
    whole = np.zeros(starts.shape[0], np.bool_)
    size = table1(flat, T_GAME)[K.G_CELLS]
    space = np.empty(2 * (size + 1), np.int32)
    probe = np.empty(starts.shape[1], np.int32)
    for s in range(starts.shape[0]):
        copy_into(probe, starts[s])
        for mover in range(2):
            probe[size + K.MOVER] = mover
            # (typed values, not literals: numba would compile a literal's own version)
            if _first_end_whole(probe, np.int64(1), flat, space, np.bool_(True)) != -1:
                whole[s] = True
    return whole


@inline
def _insert(moves, n, i):
    """Put cell i into the row-major list moves[:n]; returns how many."""
    b = n
    while b > 0 and moves[b - 1] > i:
        moves[b] = moves[b - 1]
        b -= 1
    moves[b] = i
    return n + 1


@leaf
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


@inline
def _drop(moves, n, k):
    """The legal moves of `place empty` once moves[k] is played: the others, still row-major (one
    cell left the empties, nothing else changed). Returns how many."""
    for b in range(k, n - 1):
        moves[b] = moves[b + 1]
    return n - 1


@inline
def _refill(moves, n, k, state, cols):
    """The legal moves of `place gravity` once moves[k] is played: the column's next empty cell up
    (past pieces and blocked cells: everything below is filled) takes its place, if there is one."""
    i = moves[k] - cols
    while i >= 0 and state[i] != 0:
        i -= cols
    n = _drop(moves, n, k)
    return _insert(moves, n, i) if i >= 0 else n


@leaf
def _play(state, x, max_plies, moves, counts, sets, connect, gravity, game, ends, nbr, axes, opposite, regions, orth,
          ring):
    """One random game from `state` (played on it), drawing from generator x, whose start holds no
    line nor connection. Returns (plies, winner: 0, 1, K.NONE a draw, K.CUT, K.BAD_CODE). `sets`
    are the connect ends' union-finds of the start. (The tables come one by one rather than as the
    Program: a call hands over only the arrays it reads.)"""
    size, rows, cols, turn = game[K.G_CELLS], game[K.G_ROWS], game[K.G_COLS], game[K.G_TURN]
    counts[0], counts[1] = count(state, size, 1), count(state, size, 2)
    empties = count(state, size, 0)
    player, ply = state[size + K.TO_MOVE], state[size + K.PLY]
    last = np.int64(-1)  # the cell just played (none at the start; not a literal: see _any_connect)
    plies = 0
    n = _legal_moves(state, moves, gravity, rows, cols, size)
    while True:
        mover = state[size + K.MOVER]
        on_far_row = last >= 0 and regions[mover, last] != 0
        for e in range(ends.shape[0]):  # the first end that holds, in the stage's order
            cond, param = ends[e, K.E_CONDITION], ends[e, K.E_PARAM]
            holds = holds_placed(cond, param, n, empties, counts[player], ply, last, on_far_row, sets, e, mover, size)
            if holds == K.NEEDS_BOARD:  # a line: the kernel call stays out of the inlined helper
                holds = line_through(state, last, mover + 1, param, ends[e, K.E_EXACT] != 0, nbr, axes, opposite, ring)
            if holds == K.UNKNOWN:
                return plies, K.BAD_CODE
            if holds:
                return plies, winner(ends[e, K.E_RESULT], mover, counts[0], counts[1])
        if n == 0:
            return plies, K.NONE
        if plies >= max_plies:
            return plies, K.CUT
        x, k = draw(x, n)
        last = moves[k]
        state[last] = player + 1
        if connect:
            join_placed(sets, state, last, nbr, orth, ends, regions, size)
        counts[player] += 1
        empties -= 1
        state[size + K.MOVER] = player
        nxt = next_player(turn, player, counts[player], counts[1 - player], 0)  # a placement takes nothing
        if nxt == K.BAD_CODE:
            return plies, K.BAD_CODE
        player = np.int32(nxt)
        state[size + K.TO_MOVE] = player
        ply += 1
        state[size + K.PLY] = ply
        plies += 1
        n = _refill(moves, n, k, state, cols) if gravity else _drop(moves, n, k)


@kernel
def _any_connect(ends):
    """Whether some end is a connection. (A function, not a flag set in a loop: numba would type a
    flag that starts as `False` as the literal False, and compile what it is passed to twice.)"""
    for e in range(ends.shape[0]):
        if ends[e, K.E_CONDITION] == K.CONNECT:
            return True
    return False


@kernel
def _playouts(starts, whole, first_game, seed, max_plies, flat, ring, lengths, winners):
    """The games of the batch whose start is not `whole` (the others are left to the caller)."""
    game, ends, nbr, regions = table1(flat, T_GAME), table2(flat, T_ENDS), table2(flat, T_NBR), table2(flat, T_REGIONS)
    axes, opposite, orth = table1(flat, T_AXES), table1(flat, T_OPPOSITE), table1(flat, T_ORTH)
    size = game[K.G_CELLS]
    gravity = table2(flat, T_RULES)[0, K.R_KIND] == K.PLACE_GRAVITY
    connect = _any_connect(ends)
    sets_of = np.empty((starts.shape[0], ends.shape[0], size + 4), np.int32)  # each start's union-finds
    state = np.empty(starts.shape[1], np.int32)
    for s in range(starts.shape[0]):
        if connect and not whole[s]:
            copy_into(state, starts[s])  # a writeable copy, as in play: the union-find code compiles once
            start = start_sets(state, nbr, orth, ends, regions, size)
            for e in range(ends.shape[0]):
                copy_into(sets_of[s, e], start[e])
    moves = np.empty(size, np.int32)
    counts = np.zeros(2, np.int64)
    sets = np.empty(sets_of.shape[1:], np.int32)
    for g in range(lengths.shape[0]):
        number = first_game + g
        start = number % starts.shape[0]
        if whole[start]:
            continue
        copy_into(state, starts[start])
        if connect:
            for e in range(ends.shape[0]):
                copy_into(sets[e], sets_of[start, e])
        lengths[g], winners[g] = _play(state, game_generator(seed, number), max_plies, moves, counts, sets, connect,
                                       gravity, game, ends, nbr, axes, opposite, regions, orth, ring)


def playouts(tables, starts, first_game, seed, max_plies, lengths, winners) -> None:
    flat, bb_mask, ring = tables
    whole = _decided(starts, flat)
    if whole.any():  # a line or a connection at a start: its games test everything, as generic play does
        # (only a start built so, never a reachable one: the generic kernels compile only then)
        if whole.all():
            generic_playouts(starts, first_game, seed, max_plies, flat, bb_mask, lengths, winners)
            return
        for g in np.flatnonzero(whole[(first_game + np.arange(lengths.shape[0])) % starts.shape[0]]):
            generic_playouts(starts, first_game + g, seed, max_plies, flat, bb_mask, lengths[g:g + 1],
                             winners[g:g + 1])
    _playouts(starts, whole, first_game, seed, max_plies, flat, ring, lengths, winners)


@leaf
def _status(cells, n, ints, space):
    """(moves, over, winner) of a position with n legal moves, its ends read on the whole board (the
    cells form: a position from Python has no history)."""
    e = _first_end_whole(cells, n, ints, space, np.bool_(False))
    if e == K.BAD_CODE:
        return 0, True, K.BAD_CODE
    if e >= 0:
        size = table1(ints, T_GAME)[K.G_CELLS]
        return 0, True, winner(table2(ints, T_ENDS)[e, K.E_RESULT], cells[size + K.MOVER], count(cells, size, 1),
                               count(cells, size, 2))
    return n, n == 0, K.NONE


def step_tables(program, tables) -> tuple[np.ndarray, np.ndarray]:
    """The two arrays of `step`: the packed program, scratch for a connection's search, the listing."""
    return step_arrays(program, tables, 2 * (program.nbr.shape[1] + 1))


@kernel
def step(state, slab, row, code, known, ints, bits):
    """calls.step for the family. The legal moves are the same for both sides (no forced pass ever
    applies), and once a cell is played they are the parent's, that cell dropped (or its column's
    next cell up), as in the playouts. Reads only the tables it needs (unpack would view all)."""
    if known < 0 and misfit(state, slab.shape[1]):  # a state from outside the game: checked once
        return 0, 0, True, K.BAD_STATE
    game = table1(ints, T_GAME)
    size, rows, cols, m = game[K.G_CELLS], game[K.G_ROWS], game[K.G_COLS], game[K.G_MAX_MOVES]
    out, space = listing(ints, m), scratch(ints, m, 2 * (size + 1))
    gravity = table2(ints, T_RULES)[0, K.R_KIND] == K.PLACE_GRAVITY
    child = slab[row]
    copy_into(child, state)
    n = known
    if n < 0 or code == K.STATUS_ONLY:
        n, over, won = _status(child, _legal_moves(child, out, gravity, rows, cols, size), ints, space)
        out[m: m + n] = 0
        if code == K.STATUS_ONLY or won == K.BAD_CODE:
            return 0, n, over, won
    k = find(out, n, code)
    if k < 0:
        return 0, n, False, K.ILLEGAL
    player = state[size + K.TO_MOVE]
    child[code] = player + 1
    turn = game[K.G_TURN]
    mine = theirs = 0
    if uses_counts(turn):
        mine, theirs = count(child, size, player + 1), count(child, size, 2 - player)
    nxt = next_player(turn, player, mine, theirs, 0)  # a placement takes nothing
    if nxt == K.BAD_CODE:
        return K.BAD_CODE, 0, True, K.BAD_CODE
    child[size + K.TO_MOVE], child[size + K.MOVER], child[size + K.PLY] = nxt, player, state[size + K.PLY] + 1
    n = _refill(out, n, k, child, cols) if gravity else _drop(out, n, k)
    out[m: m + n] = 0
    n, over, won = _status(child, n, ints, space)
    return 0, n, over, won
