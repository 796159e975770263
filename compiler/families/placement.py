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

from collections import namedtuple

from .. import codes as K
from ..arrays import copy_into
from ..calls import scratch, step_arrays
from ..bitboards import sides_of
from ..ends import (count, counted, end_rule, first_end_cells, first_end_placed, holds_cells, join_placed, pieces_cells,
                    start_sets)
from ..jit import inline, kernel, leaf
from ..playouts import playouts as generic_playouts
from ..ply import listing, playout_kernel, step_kernel
from ..program import Layout, pack, table1, table2
from ..turns import next_player, uses_counts

NAME = "placement"
HANDLES = K.coverage(
    moves={K.PLACE_EMPTY, K.PLACE_GRAVITY}, targets={K.TARGET_EMPTY},
    turns={K.ALTERNATE, K.FEWER_PIECES, K.AGAIN_AFTER_CAPTURE},
    conditions={K.NO_MOVES, K.BOARD_FULL, K.LINE, K.REACH_FAR_ROW, K.CONNECT, K.NO_PIECES, K.AFTER_PLIES},
    results={K.MOVER_WINS, K.MOVER_LOSES, K.MOST_PIECES, K.FEWEST_PIECES, K.DRAW})
EXCLUDES = K.coverage(moves={K.PLACE_ADJACENT, K.STEP, K.SLIDE, K.JUMP, K.CLONE, K.ADVANCE},
                      targets={K.TARGET_ENEMY, K.TARGET_ANY}, effects={K.FLIP, K.REMOVE, K.CONVERT, K.REQUIRE})


# The family's int32 tables, packed in `ints` in this order (applies); `bits` is the bit masks.
_LAYOUT = Layout("ends", "game", "rules", "nbr", "axes", "opposite", "regions", "orth", "lines", "line_len",
                 "line_cyclic", "ring", "bb_shift")
(_ENDS, _GAME, _RULES, _NBR, _AXES, _OPPOSITE, _REGIONS, _ORTH, _LINES, _LINE_LEN, _LINE_CYCLIC,
 _RING, _BB_SHIFT) = map(_LAYOUT.number, _LAYOUT.names)
# What the kernels read, by name: each table a view of `ints`, and the bit masks (`bits`).
Tables = namedtuple("Tables", [*_LAYOUT.names, "bb_mask"])


def named_tables(program) -> dict[str, np.ndarray]:
    """The family's tables of a program by name (Tables' fields): the program's, and the longest
    line per axis (ring)."""
    named = {name: getattr(program, name) for name in Tables._fields if name != "ring"}
    named["ring"] = np.array([_ring(program.nbr, int(d)) for d in program.axes], dtype=np.int32)
    return named


def applies(program) -> tuple | None:
    """The tables of `playouts` and `step`: the family's packed in one array (see unpack), the bit
    masks, and the whole program packed (for the starts the generic kernels play); None for a
    stage of another shape."""
    rules = program.rules
    if rules.shape[0] != 1 or rules[0, K.R_N_EFFECTS] != 0:
        return None
    named = named_tables(program)
    return _LAYOUT.pack(**{name: named[name] for name in _LAYOUT.names}), named["bb_mask"], pack(program)


@inline
def unpack(ints, bits):
    """The Tables of applies' `ints` (views, no copies) and `bits`.

    ints: int32[n_packed] — the family's tables (applies; a step's: then scratch and the listing)
    bits: uint64[n_dirs] — the bit masks (bb_mask)
    -> tables: Tables — each table by name
    """
    return Tables(ends=table2(ints, _ENDS), game=table1(ints, _GAME), rules=table2(ints, _RULES),
                  nbr=table2(ints, _NBR), axes=table1(ints, _AXES), opposite=table1(ints, _OPPOSITE),
                  regions=table2(ints, _REGIONS), orth=table1(ints, _ORTH), lines=table2(ints, _LINES),
                  line_len=table1(ints, _LINE_LEN), line_cyclic=table1(ints, _LINE_CYCLIC), ring=table1(ints, _RING),
                  bb_shift=table1(ints, _BB_SHIFT), bb_mask=bits)


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


@inline
def _holds_on_board(cond, param, exact, e, moves, mover, at, tables):
    """An end read on the whole board, the board conditions only: those that counts alone do not
    decide (holds_placed reads the others from counts, exactly, and these around the last cell only).

    at: tuple — (state int32[n_cells + 4], stack int32[n_cells + 1], seen int32[n_cells + 1])
    tables: Tables — the family's tables
    """
    if counted(cond, param, 1, 1, 1, 0) != K.UNKNOWN:
        return K.HOLDS_NOT
    state, stack, seen = at
    return holds_cells(state, cond, param, exact, moves, tables.lines, tables.line_len, tables.line_cyclic,
                       tables.regions, tables.nbr, tables.orth, stack, seen)


_first_board_end = end_rule(_holds_on_board, pieces_cells)


@leaf
def _board_decides(cells, tables, space):
    """Whether a board condition already holds on `cells` (or a code without a branch is met).

    cells: int32[n_cells + 4] — the position, read
    tables: Tables — the family's tables
    space: int32[2 * (n_cells + 1)] — scratch for a connection's search
    """
    size = tables.nbr.shape[1]
    over, _ = _first_board_end(tables.ends, 1, cells[size + K.MOVER], (cells, space[: size + 1], space[size + 1:]),
                               tables)
    return over


@kernel
def _decided(starts, ints, bits):
    """Whether a board condition (line, connect, far row) already holds for either player in each
    start, read whole as the generic kernels read it.

    starts: int32[n_starts, n_cells + 4] — the batch's start positions, read only
    ints: int32[n_packed] — the family's tables (applies; a step's: then scratch and the listing)
    bits: uint64[n_dirs] — the bit masks (not read)
    -> whole: bool[n_starts] — a new array
    """
    tables = unpack(ints, bits)
    whole = np.zeros(starts.shape[0], np.bool_)
    size = tables.game[K.G_CELLS]
    space = np.empty(2 * (size + 1), np.int32)
    probe = np.empty(starts.shape[1], np.int32)
    for s in range(starts.shape[0]):
        copy_into(probe, starts[s])
        for mover in range(2):
            probe[size + K.MOVER] = mover
            if _board_decides(probe, tables, space):
                whole[s] = True
    return whole


@inline
def _insert(moves, n, i):
    """Put cell i into the row-major list moves[:n]; returns how many.

    moves: int32[at least n + 1] — the legal cells (work's, or a step's listing), changed in place
    """
    b = n
    while b > 0 and moves[b - 1] > i:
        moves[b] = moves[b - 1]
        b -= 1
    moves[b] = i
    return n + 1


@leaf
def _legal_moves(state, moves, gravity, rows, cols, size):
    """The legal moves into `moves`, row-major (the generic kernels' order); returns how many.

    state: int32[n_cells + 4] — the position, read; gravity: `place gravity` (else `place empty`)
    moves: int32[at least n_cells] — written: the legal cells (work's, or a step's listing)
    """
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
    cell left the empties, nothing else changed). Returns how many.

    moves: int32[at least n] — the legal cells, changed in place
    """
    # unsigned indices: numba adds no negative-index wrap, so LLVM vectorizes the shift (Hex 11's
    # plies ran 1.3x faster, measured)
    for b in range(np.uint64(k), np.uint64(n - 1)):
        moves[b] = moves[b + np.uint64(1)]
    return n - 1


@inline
def _next_up(state, cell, cols):
    """Under `place gravity`, the cell that becomes playable once `cell` is filled: its column's next
    empty cell up (past pieces and blocked cells: everything below is filled), or -1.

    state: int32[n_cells + 4] — the position after the move, read
    """
    i = cell - cols
    while i >= 0 and state[i] != 0:
        i -= cols
    return i


@inline
def _refill(moves, n, k, state, cols):
    """The legal moves of `place gravity` once moves[k] is played: the column's next empty cell up
    takes its place, if there is one (_next_up).

    moves: int32[at least n] — the legal cells, changed in place
    state: int32[n_cells + 4] — the position after the move, read
    """
    i = _next_up(state, moves[k], cols)
    n = _drop(moves, n, k)
    return _insert(moves, n, i) if i >= 0 else n


@inline
def _first_position(starts, start, tables, work, listing):
    """The first position of a game from starts[start] (player to move, ply, moves, the cell just
    played, empty cells): the start's cells in work's state, and what _playouts read of the start
    once a batch: its moves listed (if `listing`: the dark form only counts them), its pieces counted
    (and on a board of at most 64 cells, as bitboards), its union-finds (reading them again every
    game cost tic-tac-toe's games a quarter of their time, measured).

    starts: int32[n_starts, n_cells + 4] — the batch's start positions
    tables: Tables — the family's tables
    work: tuple — (state int32[n_cells + 4], moves int32[n_cells], counts int64[2], sets
        int32[n_ends, n_cells + 4], sets_of int32[n_starts, n_ends, n_cells + 4], connect, gravity,
        sides uint64[2]: each player's pieces as a bitboard, firsts int64[n_starts, 4]: each start's
        moves, pieces of each player and empty cells, moves_of int32[n_starts, n_cells]: each
        start's moves listed, sides_at uint64[n_starts, 2]: each start's sides)
    listing: a constant (a flag of the caller's code, not of the game)
    """
    state, moves, counts, sets, sets_of, connect, gravity, sides, firsts, moves_of, sides_at = work
    game = tables.game
    size = game[K.G_CELLS]
    copy_into(state, starts[start])
    if connect:
        for e in range(sets.shape[0]):
            copy_into(sets[e], sets_of[start, e])
    first = firsts[start]
    counts[0], counts[1] = first[1], first[2]
    sides[0], sides[1] = sides_at[start, 0], sides_at[start, 1]
    n = first[0]
    if listing:
        listed = moves_of[start]
        for i in range(n):
            moves[i] = listed[i]
    # the cell just played: none at the start (not a literal: see _any_connect)
    return (np.int64(state[size + K.TO_MOVE]), np.int64(state[size + K.PLY]), n, np.int64(-1), first[3])


@inline
def _begin(starts, number, tables, work):
    """ply.playout_kernel's begin: the first position, its moves listed (_first_position).

    starts: int32[n_starts, n_cells + 4] — the batch's start positions
    tables: Tables — the family's tables
    work: tuple — _first_position's
    """
    return _first_position(starts, number % starts.shape[0], tables, work, True)


@inline
def _ply_status(position, tables, work):
    """ply.playout_kernel's status, in the placed form: a start holds no line nor connection
    (playouts), so what holds now holds through the cell just played.

    position: tuple — (player to move, ply, moves listed, the cell just played, empty cells): int64
    tables: Tables — the family's tables
    work: tuple — _begin's (its state, moves, counts and sets read and written)
    """
    player, ply, n, last, empties = position
    state, counts, sets, sides = work[0], work[2], work[3], work[7]
    mover = state[tables.nbr.shape[1] + K.MOVER]
    on_far_row = last >= 0 and tables.regions[mover, last] != 0
    over, won = first_end_placed(tables.ends, n, mover,
                                 (state, counts, empties, player, ply, last, on_far_row, sets, sides[mover]), tables)
    return n, over, won, 0


@inline
def _fill(position, last, tables, work):
    """The mover's piece on the empty cell `last`: the state, counts, sides and union-finds, the
    next player; not the moves listed (the position's n is the parent's). Returns (position, bad).

    position: tuple — _ply_status's
    tables: Tables — the family's tables
    work: tuple — _begin's (its state, counts, sets and sides read and written)
    """
    player, ply, n, _, empties = position
    state, _, counts, sets, _, connect, _, sides, _, _, _ = work
    game = tables.game
    size = game[K.G_CELLS]
    state[last] = player + 1
    if game[K.G_BITBOARD]:
        sides[player] |= np.uint64(1) << np.uint64(last)
    if connect:
        join_placed(sets, state, last, tables.nbr, tables.orth, tables.ends, tables.regions, size)
    counts[player] += 1
    state[size + K.MOVER] = player
    nxt = next_player(game[K.G_TURN], player, counts[player], counts[1 - player], 0)  # a placement takes nothing
    if nxt == K.BAD_CODE:
        return position, True
    state[size + K.TO_MOVE] = nxt
    state[size + K.PLY] = ply + 1
    return (np.int64(nxt), ply + 1, n, last, empties - 1), False


@inline
def _advance(position, listed, k, tables, work):
    """The k-th listed cell, filled (_fill); the list kept up to date (_drop, _refill).

    position: tuple — _ply_status's
    tables: Tables — the family's tables
    work: tuple — _begin's (its state, moves, counts and sets read and written)
    """
    moves, gravity = work[1], work[6]
    n = position[2]
    position, bad = _fill(position, np.int64(moves[k]), tables, work)
    if bad:
        return position, True
    n = _refill(moves, n, k, work[0], tables.game[K.G_COLS]) if gravity else _drop(moves, n, k)
    player, ply, _, last, empties = position
    return (player, ply, np.int64(n), last, empties), False


_games = playout_kernel(_begin, _ply_status, _advance)


@kernel
def _any_connect(ends):
    """Whether some end is a connection. (A function, not a flag set in a loop: numba would type a
    flag that starts as `False` as the literal False, and compile what it is passed to twice.)

    ends: int32[n_ends, E_COLS] — the program's ends
    """
    for e in range(ends.shape[0]):
        if ends[e, K.E_CONDITION] == K.CONNECT:
            return True
    return False


@kernel
def _start_work(starts, tables):
    """_begin's work for a batch: what it reads of each start, read once (see _begin).

    starts: int32[n_starts, n_cells + 4] — the positions games begin from, read only
    tables: Tables — the family's tables
    -> work: tuple — _begin's
    """
    ends, size = tables.ends, tables.game[K.G_CELLS]
    connect = _any_connect(ends)
    sets_of = np.empty((starts.shape[0], ends.shape[0], size + 4), np.int32)  # each start's union-finds
    state = np.empty(starts.shape[1], np.int32)
    game, gravity = tables.game, tables.rules[0, K.R_KIND] == K.PLACE_GRAVITY
    firsts = np.empty((starts.shape[0], 4), np.int64)  # what _begin reads of each start
    moves_of = np.empty((starts.shape[0], size), np.int32)
    sides_at = np.zeros((starts.shape[0], 2), np.uint64)
    for s in range(starts.shape[0]):
        copy_into(state, starts[s])  # a writeable copy, as in play: the union-find code compiles once
        if connect:
            start = start_sets(state, tables.nbr, tables.orth, ends, tables.regions, size)
            for e in range(ends.shape[0]):
                copy_into(sets_of[s, e], start[e])
        firsts[s, 0] = _legal_moves(state, moves_of[s], gravity, game[K.G_ROWS], game[K.G_COLS], size)
        firsts[s, 1], firsts[s, 2], firsts[s, 3] = count(state, size, 1), count(state, size, 2), count(state, size, 0)
        if game[K.G_BITBOARD]:
            sides_at[s, 0], sides_at[s, 1], _ = sides_of(state, size)
    return (state, np.empty(size, np.int32), np.zeros(2, np.int64), np.empty(sets_of.shape[1:], np.int32), sets_of,
            connect, gravity, np.zeros(2, np.uint64), firsts, moves_of, sides_at)


@kernel
def _playouts(starts, first_game, seed, max_plies, ints, bits, lengths, winners):
    """playouts.playouts' job for the family: the games of ply.playout_kernel in the placed form.

    starts: int32[n_starts, n_cells + 4] — the positions games begin from, read only
    ints: int32[n_packed] — the family's tables (applies; a step's: then scratch and the listing)
    bits: uint64[n_dirs] — the bit masks (a line on a board of at most 64 cells is read on bitboards)
    lengths, winners: int32[games] — written: each game's plies and winner
    """
    tables = unpack(ints, bits)
    _games(starts, first_game, seed, max_plies, tables, _start_work(starts, tables), lengths, winners)


def playouts(tables, starts, first_game, seed, max_plies, lengths, winners) -> None:
    ints, bb_mask, flat = tables
    whole = _decided(starts, ints, bb_mask)
    if whole.all():  # a line or a connection at every start: the generic kernels play (only a start
        # built so, never a reachable one: they compile only then)
        generic_playouts(starts, first_game, seed, max_plies, flat, bb_mask, lengths, winners)
        return
    _playouts(starts, first_game, seed, max_plies, ints, bb_mask, lengths, winners)
    if whole.any():  # the placed form cannot read a line or a connection there: those games again, generic
        for g in np.flatnonzero(whole[(first_game + np.arange(lengths.shape[0])) % starts.shape[0]]):
            generic_playouts(starts, first_game + g, seed, max_plies, flat, bb_mask, lengths[g:g + 1],
                             winners[g:g + 1])


@leaf
def _status(cells, n, tables, space):
    """(moves, over, winner) of a position with n legal moves, its ends read on the whole board (the
    cells form: a position from Python has no history).

    cells: int32[n_cells + 4] — the position, read
    tables: Tables — the family's tables
    space: int32[2 * (n_cells + 1)] — scratch for a connection's search
    """
    size = tables.nbr.shape[1]
    over, won = first_end_cells(tables.ends, n, cells[size + K.MOVER], (cells, space[: size + 1], space[size + 1:]),
                                tables)
    if over:
        return 0, True, won
    return n, False, K.NONE


def step_tables(program, tables) -> tuple[np.ndarray, np.ndarray]:
    """The two arrays of `step`: the family's tables, scratch for a connection's search, the listing."""
    return step_arrays(program, tables, 2 * (program.nbr.shape[1] + 1))


@inline
def _describe(state, child, ints, bits):
    """ply.step_kernel's `describe` for the family: the legal moves are the same for both sides
    (no forced pass ever applies).

    state: int32[n_cells + 4] — the position, read only
    child: int32[n_cells + 4] — written: a writable copy of `state` to read
    ints: int32[n_packed + 2 * (n_cells + 1) + 2 * max_moves] — the tables, scratch, the listing
    bits: uint64[n_dirs] — the bit masks (not read)
    """
    tables = unpack(ints, bits)
    game = tables.game
    size, rows, cols, m = game[K.G_CELLS], game[K.G_ROWS], game[K.G_COLS], game[K.G_MAX_MOVES]
    out, space = listing(ints, m), scratch(ints, m, 2 * (size + 1))
    gravity = tables.rules[0, K.R_KIND] == K.PLACE_GRAVITY
    copy_into(child, state)  # a writable copy: the kernels are compiled for writable arrays
    n, over, won = _status(child, _legal_moves(child, out, gravity, rows, cols, size), tables, space)
    for i in range(m, m + n):
        out[i] = 0
    return n, over, won


@inline
def _play_move(state, child, k, code, n, ints, bits):
    """Once a cell is played the legal moves are the parent's, that cell dropped (or its column's
    next cell up), as in the playouts.

    state: int32[n_cells + 4] — the position, read only
    child: int32[n_cells + 4] — written (a slab row)
    ints: int32[n_packed + 2 * (n_cells + 1) + 2 * max_moves] — the tables, scratch, the listing
    bits: uint64[n_dirs] — the bit masks (not read)
    """
    tables = unpack(ints, bits)
    game = tables.game
    size, cols, m = game[K.G_CELLS], game[K.G_COLS], game[K.G_MAX_MOVES]
    out, space = listing(ints, m), scratch(ints, m, 2 * (size + 1))
    gravity = tables.rules[0, K.R_KIND] == K.PLACE_GRAVITY
    copy_into(child, state)
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
    for i in range(m, m + n):
        out[i] = 0
    n, over, won = _status(child, n, tables, space)
    return 0, n, over, won


step = step_kernel(_GAME, _describe, _play_move)  # calls.step for the family


# --- hidden information: the family's games of tries (compiler/information.py is the generic form) ---
# In a pure placement game a cell only fills, so a player's view errs only by showing empty a cell its
# opponent filled: the moves its view allows are the truth's and more, a try is played exactly when
# its cell is empty in truth, and a refused try shows the cell taken, so it is never offered again.
# Each player's tries are a set of cells, a bitmap (cell i: bit i % 64 of word i // 64); its k-th try
# is its k-th cell in row-major order, as in a list (_select): a try clears its bit (and under
# gravity sets the column's next cell up) instead of shifting a list (measured against sorted lists:
# dark Hex 5x5 and 11x11 and phantom tic-tac-toe 8-11% faster, dark Hex 3x3 12% slower).
_ONES, _HIGHS = np.uint64(0x0101010101010101), np.uint64(0x8080808080808080)


@kernel
def _bytes_select():
    """The table of _select within a byte: entry 8 * b + r is the bit number of the r-th set bit of
    the byte b (lowest first; 0 where b has no r-th bit).

    -> in_byte: uint8[2048] — a new array
    """
    in_byte = np.zeros(2048, np.uint8)
    for b in range(256):
        r = 0
        for i in range(8):
            if (b >> i) & 1:
                in_byte[8 * b + r] = i
                r += 1
    return in_byte


@inline
def _select(tries, k, in_byte):
    """The k-th cell (from 0, row-major) of the bitmap `tries`, which holds more than k: the word
    holding it, then its byte, found with a byte-wise count (broadword selection, no branch within
    a word), then the bit, in the table.

    tries: uint64[n_words] — one player's tries, bit i % 64 of word i // 64 for cell i
    in_byte: uint8[2048] — _bytes_select's table
    """
    w = 0
    while True:
        word = tries[w]
        s = word - ((word >> np.uint64(1)) & np.uint64(0x5555555555555555))
        s = (s & np.uint64(0x3333333333333333)) + ((s >> np.uint64(2)) & np.uint64(0x3333333333333333))
        sums = ((s + (s >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)) * _ONES  # byte b: bits of bytes 0..b
        held = np.int64(sums >> np.uint64(56))
        if k < held:
            break
        k -= held
        w += 1
    below = (((np.uint64(k) * _ONES) | _HIGHS) - sums) & _HIGHS  # the bytes holding at most k bits up to them
    place = (((below >> np.uint64(7)) * _ONES) >> np.uint64(56)) << np.uint64(3)  # the cell's byte, 8 * its index
    rank = np.uint64(k) - (((sums << np.uint64(8)) >> place) & np.uint64(0xFF))  # its rank within that byte
    return 64 * w + np.int64(place) + np.int64(in_byte[((word >> place) & np.uint64(0xFF)) * np.uint64(8) + rank])


@inline
def _flip(tries, cell):
    """Cell `cell` into or out of the bitmap `tries`, changed in place.

    tries: uint64[n_words] — a player's tries, one bit a cell, row-major (n_words = ceil(n_cells / 64))
    """
    tries[cell >> 6] ^= np.uint64(1) << np.uint64(cell & 63)


@inline
def _dark_begin(starts, number, tables, work):
    """The first position (_first_position: the truth's moves counted, not listed), each player's
    view the start (public), its tries the start's moves.

    starts: int32[n_starts, n_cells + 4] — the batch's start positions
    tables: Tables — the family's tables
    work: tuple — (_begin's work, views int32[2, n_cells]: each player's view (only gravity reads
        one), tries uint64[2, n_words]: each player's tries as a bitmap, counts int64[2]: how
        many, information int32[2]: the hiding's and the refusal's codes, tries_at uint64[n_starts,
        n_words]: each start's moves as a bitmap, in_byte uint8[2048]: _bytes_select's table)
    """
    base, views, tries, counts, tries_at = work[0], work[1], work[2], work[3], work[5]
    start = number % starts.shape[0]
    position = _first_position(starts, start, tables, base, False)  # the truth's moves are only counted
    for p in range(2):
        if base[6]:
            copy_into(views[p], base[0][: views.shape[1]])
        for w in range(tries.shape[1]):
            tries[p, w] = tries_at[start, w]
        counts[p] = position[2]
    return position, False


@inline
def _dark_status(position, tables, work):
    """ply.playout_kernel's status: the truth's ends (_ply_status), and the tries of the player to
    move (listed: 0). After a refused try the board is as it was, going on: its ends are not read
    again. (Under `refused lose-turn` only the side to move changed, and the one end that reads it,
    no-pieces, cannot hold: the refused cell holds a piece of the new side to move.)

    position: tuple — (_ply_status's position of the truth, whether the last try was refused)
    tables: Tables — the family's tables
    work: tuple — _dark_begin's
    """
    truth, refused = position
    if not refused:
        n, over, won, _ = _ply_status(truth, tables, work[0])
        if over:
            return 0, True, won, 0
    return work[3][truth[0]], False, K.NONE, 0


@inline
def _dark_advance(position, listed, k, tables, work):
    """The k-th try of the player to move: played if its cell is empty in truth (_fill), else
    refused (the cell seen taken; the turn lost under `refused lose-turn`). Returns (position, bad).

    position: tuple — _dark_status's
    tables: Tables — the family's tables
    work: tuple — _dark_begin's
    """
    base, views, tries, counts, information, in_byte = work[0], work[1], work[2], work[3], work[4], work[6]
    player, ply, n, last, empties = position[0]
    state, gravity = base[0], base[6]
    cols = tables.game[K.G_COLS]
    mine = tries[player]
    cell = _select(mine, k, in_byte)
    _flip(mine, cell)
    if gravity:  # played or refused, the player sees what is there now; its column's next cell up
        view = views[player]
        view[cell] = state[cell] if state[cell] != 0 else player + 1
        up = _next_up(view, cell, cols)
        if up >= 0:
            _flip(mine, up)
        else:
            counts[player] -= 1
    else:
        counts[player] -= 1
    if state[cell] == 0:  # played: the truth's moves are only counted (its list is not read)
        truth, bad = _fill(position[0], cell, tables, base)
        if gravity and _next_up(state, cell, cols) >= 0:
            return (truth, False), bad
        player, ply, _, last, empties = truth
        return ((player, ply, n - 1, last, empties), False), bad
    if information[1] == K.LOSE_TURN:
        state[tables.game[K.G_CELLS] + K.TO_MOVE] = 1 - player
        return ((np.int64(1 - player), ply, n, last, empties), True), False
    return (position[0], True), information[1] != K.RETRY


_dark_games = playout_kernel(_dark_begin, _dark_status, _dark_advance)


@kernel
def _dark_playouts(starts, first_game, seed, max_tries, ints, bits, information, lengths, winners):
    """compiler/information.py's games of tries for the family (a start holds no line nor connection).

    starts: int32[n_starts, n_cells + 4] — the true positions games begin from, read only
    ints: int32[n_packed] — the family's tables (applies)
    bits: uint64[n_dirs] — the bit masks
    information: int32[2] — the hiding's and the refusal's codes (program.information)
    lengths, winners: int32[games] — written: each game's tries and winner
    """
    tables = unpack(ints, bits)
    size = tables.game[K.G_CELLS]
    base = _start_work(starts, tables)
    words = (size + 63) // 64
    tries_at = np.zeros((starts.shape[0], words), np.uint64)
    for s in range(starts.shape[0]):
        for i in range(base[8][s, 0]):
            _flip(tries_at[s], base[9][s, i])
    work = (base, np.empty((2, size), np.int32), np.empty((2, words), np.uint64), np.zeros(2, np.int64),
            information.copy(), tries_at, _bytes_select())
    _dark_games(starts, first_game, seed, max_tries, tables, work, lengths, winners)


def dark_playouts(tables, starts, first_game, seed, max_tries, information, lengths, winners) -> bool:
    """The family's games of tries; False (nothing played) for starts it cannot read in the placed
    form (a line or a connection already there) or a stage with `reveal` lines, which this form does
    not show: compiler/information.py plays those."""
    ints, bb_mask, _ = tables
    if information[2] != 0 or _decided(starts, ints, bb_mask).any():
        return False
    _dark_playouts(starts, first_game, seed, max_tries, ints, bb_mask, information, lengths, winners)
    return True
