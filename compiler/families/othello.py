"""The Othello family, on bitboards: the Arena's stages and every stage whose one move rule is
`place empty` + `flip custodial DIRS [over-blocked]` + `require capture`, on a board of at most 64
cells without wrap, with any turn order, pass rule, ends and results.

Each side is a uint64 (bitboards.py). The legal cells of a position are one Kogge-Stone pass per
direction (effects.custodial_targets_stepped, with step tables made once per stage), the k-th legal
move is the k-th set bit (row-major, the generic order), and a move's flips are
effects.custodial_taken_stepped: so the family plays the generic
kernels' very games for a seed (tests/test_fast_playouts.py, tests/test_compiled.py). It also
answers calls from Python (`step`) without unpacking the program.
"""
from __future__ import annotations

import numpy as np

from collections import namedtuple

from .. import codes as K
from ..arrays import copy_into
from ..bitboards import (ONE, first_position, full, index_of, lowest, popcount, region_bits, sides_of, step_table,
                         turn_of)
from ..calls import step_arrays
from ..effects import custodial_taken_stepped, custodial_targets_stepped
from ..ends import end_rule, holds_bits, pieces_bits
from ..jit import inline, kernel, leaf
from ..ply import describe_bits, listing, playout_kernel, step_kernel
from ..program import Layout, table1, table2
from ..turns import next_player_bits

NAME = "othello"
HANDLES = K.coverage(
    moves={K.PLACE_EMPTY}, targets={K.TARGET_EMPTY}, effects={K.FLIP, K.REQUIRE},
    turns={K.ALTERNATE, K.FEWER_PIECES, K.AGAIN_AFTER_CAPTURE},
    conditions={K.NO_MOVES, K.BOARD_FULL, K.NO_PIECES, K.AFTER_PLIES, K.REACH_FAR_ROW},
    results={K.MOVER_WINS, K.MOVER_LOSES, K.MOST_PIECES, K.FEWEST_PIECES, K.DRAW})
# A line or a connection needs the board's tables in the ply loop: handing them to _status slowed
# standard Othello's playouts by about 8% where never read (measured before the step tables, when
# the family played about 40,000 a second), so such stages go to the generic kernels.
EXCLUDES = K.coverage(moves={K.PLACE_GRAVITY, K.PLACE_ADJACENT, K.STEP, K.SLIDE, K.JUMP, K.CLONE, K.ADVANCE},
                      targets={K.TARGET_ENEMY, K.TARGET_ANY}, effects={K.REMOVE, K.CONVERT},
                      conditions={K.LINE, K.CONNECT})


# The family's int32 tables, packed in `ints` in this order (applies), and the uint64 ones in `bits`:
# the far rows, then the step tables.
_LAYOUT = Layout("ends", "game", "over_blocked")
_ENDS, _GAME, _OVER_BLOCKED = map(_LAYOUT.number, _LAYOUT.names)
# What the kernels read, by name: each table a view of the two arrays that cross a call from Python.
# (No orthogonal directions nor line axes: line and connect ends are not the family's.)
Tables = namedtuple("Tables", [*_LAYOUT.names, "far_rows", "back_steps", "steps"])


def named_tables(program) -> dict[str, np.ndarray]:
    """The family's tables of a program by name (Tables' fields): the ends, the game row,
    over-blocked, the far rows as bitboards (regions 0 and 1: the family has no connect end), and
    per player the step tables (bitboards.step_table) of the flip's directions, backwards (legal
    cells: runs grown from the closing pieces) and forwards (the pieces a move takes)."""
    dirs = program.effect_dirs[0, 0]

    def steps(opposite):
        return np.stack([step_table(dirs[p], program.bb_shift, program.bb_mask, opposite) for p in (0, 1)])

    return dict(ends=program.ends, game=program.game,
                over_blocked=np.array([program.effects[0, 0, K.FX_OVER_BLOCKED]], np.int32),
                far_rows=region_bits(program.regions[:2]), back_steps=steps(program.opposite), steps=steps(None))


def applies(program) -> tuple | None:
    """The tables of `playouts` and `step`, packed in two arrays (see unpack), or None for a
    stage of another shape."""
    rules, effects = program.rules, program.effects
    if not program.game[K.G_BITBOARD] or rules.shape[0] != 1 or rules[0, K.R_N_EFFECTS] != 2:
        return None
    if (rules[0, K.R_KIND], effects[0, 0, K.FX_KIND], effects[0, 1, K.FX_KIND]) != (K.PLACE_EMPTY, K.FLIP, K.REQUIRE):
        return None
    named = named_tables(program)
    ints = _LAYOUT.pack(**{name: named[name] for name in _LAYOUT.names})
    return ints, np.concatenate([named["far_rows"], named["back_steps"].ravel(), named["steps"].ravel()])


@inline
def unpack(ints, bits):
    """The Tables of applies' two arrays (views, no copies).

    ints: int32[n_packed] — the family's tables (applies; a step's: then the listing, 2 * max_moves)
    bits: uint64[2 + 12 * n_dirs] — each player's far row as a bitboard, then two step tables
      (back_steps, steps) of uint64[2, 3, n_dirs]: per player, a direction's mask, left and right shift
    -> tables: Tables — each table by name
    """
    half = (bits.shape[0] - 2) // 2  # two step tables of 2 players x 3 rows x n_dirs
    shape = (2, 3, half // 6)
    return Tables(ends=table2(ints, _ENDS), game=table1(ints, _GAME), over_blocked=table1(ints, _OVER_BLOCKED),
                  far_rows=bits[:2], back_steps=bits[2:2 + half].reshape(shape),
                  steps=bits[2 + half:].reshape(shape))


@inline
def _holds(cond, param, exact, e, moves, mover, at, tables):
    """ends.end_rule's reading of an end on bitboards, without the board's tables: line and connect
    are not the family's (HANDLES), so their tables stay out of the ply loop.

    at: tuple — (empty cells, the side to move's pieces, first player's, second's: uint64; ply)
    tables: Tables — far_rows (uint64[2], as bitboards) read
    """
    empty, to_move, first, second, ply = at
    holds = holds_bits(cond, param, moves, empty, to_move, first if mover == 0 else second, tables.far_rows[mover],
                       ply)
    return K.UNKNOWN if holds == K.NEEDS_BOARD else holds


_first_end = end_rule(_holds, pieces_bits)


@inline
def _status(first, second, blocked, all_cells, player, mover, ply, tables):
    """(legal cells, moves available, over, winner) of a position (`first`, `second`: the players'
    pieces); a forced pass counts as the one move available when `legal` is empty.

    first, second, blocked, all_cells: uint64 bitboards; player, mover, ply: int64
    tables: Tables — the family's tables (unpack)
    """
    me, op = (first, second) if player == 0 else (second, first)
    empty = all_cells & ~(me | op | blocked)
    over, back = tables.over_blocked[0] != 0, tables.back_steps
    legal = custodial_targets_stepped(me, op, empty, blocked, over, back[player])
    available = popcount(legal)
    if available == 0 and tables.game[K.G_PASS] != 0:
        if custodial_targets_stepped(op, me, empty, blocked, over, back[1 - player]) != 0:
            available = 1
    over_now, won = _first_end(tables.ends, available, mover, (empty, me, first, second, ply), tables)
    return legal, available, over_now, won


@inline
def _place(first, second, player, at, flips, turn):
    """Put the player's piece on `at` and turn `flips` over (custodial_taken: computed by the caller,
    so that this inlined helper takes no table and calls no kernel); returns the two sides and who
    moves next."""
    me, op = (first, second) if player == 0 else (second, first)
    me |= flips | (ONE << np.uint64(at))
    op &= ~flips
    nxt = next_player_bits(turn, player, me, op, flips != 0)
    return (me, op, nxt) if player == 0 else (op, me, nxt)


@inline
def _begin(starts, number, tables, work):
    """ply.playout_kernel's `begin`: game `number`'s start as bitboards (bitboards.first_position).

    starts: int32[n_starts, n_cells + 4] — the batch's start positions
    tables: Tables — the family's tables (the game row read)
    """
    return first_position(starts, number, tables.game[K.G_CELLS])


@inline
def _ply_status(position, tables, work):
    """ply.playout_kernel's status: the legal cells are what advance needs.

    position: tuple — (first player's pieces, second's, blocked cells, every cell: uint64 bitboards;
        player to move, mover, ply: int64)
    tables: Tables — the family's tables
    """
    first, second, blocked, all_cells, player, mover, ply = position
    legal, available, over_now, won = _status(first, second, blocked, all_cells, player, mover, ply, tables)
    return available, over_now, won, legal


@inline
def _advance(position, legal, k, tables, work):
    """The k-th legal cell (the k-th set bit), or the forced pass when there is none. (The sides are
    scalars of the position, not an array: the loop keeps them in registers.)

    position: tuple — _ply_status's
    legal: a uint64 bitboard (_ply_status's); k: which of its cells
    tables: Tables — the family's tables
    """
    first, second, blocked, all_cells, player, mover, ply = position
    if legal == 0:  # a forced pass
        return (first, second, blocked, all_cells, 1 - player, player, ply + 1), False
    for _ in range(k):
        legal &= legal - ONE
    at = index_of(lowest(legal))
    me, op = (first, second) if player == 0 else (second, first)
    flips = custodial_taken_stepped(me, op, blocked, at, tables.over_blocked[0] != 0, tables.steps[player])
    first, second, nxt = _place(first, second, player, at, flips, tables.game[K.G_TURN])
    return (first, second, blocked, all_cells, np.int64(nxt), player, ply + 1), nxt == K.BAD_CODE


_games = playout_kernel(_begin, _ply_status, _advance)


@kernel
def _playouts(starts, first_game, seed, max_plies, ints, bits, lengths, winners):
    """playouts.playouts' job for the family: the games of ply.playout_kernel on bitboards.

    starts: int32[n_starts, n_cells + 4] — the positions games begin from, read only
    ints: int32[n_packed] — the family's tables (applies; a step's: then the listing, 2 * max_moves)
    bits: uint64[2 + 12 * n_dirs] — the far rows, then the step tables (see unpack)
    lengths, winners: int32[games] — written: each game's plies and winner
    """
    _games(starts, first_game, seed, max_plies, unpack(ints, bits), 0, lengths, winners)  # (no scratch)


def playouts(tables, starts, first_game, seed, max_plies, lengths, winners) -> None:
    _playouts(starts, first_game, seed, max_plies, *tables, lengths, winners)


@leaf
def _list(first, second, blocked, player, mover, ply, ints, bits, out):
    """The status of a position (moves, over, winner); `out` lists its moves (calls.step).

    first, second, blocked: uint64 bitboards; player, mover, ply: int64
    ints: int32[n_packed + 2 * max_moves] — the family's tables, then the listing
    bits: uint64[2 + 12 * n_dirs] — the far rows, then the step tables (see unpack)
    out: int32[2 * max_moves] — written: the moves' codes, then their rules (the listing)
    """
    tables = unpack(ints, bits)
    size, m = tables.game[K.G_CELLS], tables.game[K.G_MAX_MOVES]
    legal, available, over_now, won = _status(first, second, blocked, full(size), player, mover, ply, tables)
    if over_now:
        return 0, True, won
    if legal == 0:  # a forced pass
        out[0], out[m] = K.PASS_CODE, -1
    k = 0
    while legal != 0:
        out[k], out[m + k] = index_of(lowest(legal)), 0
        legal &= legal - ONE
        k += 1
    return available, False, K.NONE


step_tables = step_arrays  # the two arrays of `step`: the family's tables and the listing


@inline
def _play_move(state, child, k, code, n, ints, bits):
    """ply.step_kernel's `play` for the family: a placement by its cell, its flips by bitboards.

    state: int32[n_cells + 4] — the position, read only
    child: int32[n_cells + 4] — written (a slab row)
    ints: int32[n_packed + 2 * max_moves] — the family's tables, then the listing
    bits: uint64[2 + 12 * n_dirs] — the far rows, then the step tables (see unpack)
    """
    game = table1(ints, _GAME)
    size = game[K.G_CELLS]
    first, second, blocked = sides_of(state, size)
    player, mover, ply = turn_of(state, size)
    copy_into(child, state)
    taken = 0
    nxt = 1 - player  # a pass
    if code != K.PASS_CODE:
        tables = unpack(ints, bits)
        me, op = (first, second) if player == 0 else (second, first)
        flips = custodial_taken_stepped(me, op, blocked, code, tables.over_blocked[0] != 0, tables.steps[player])
        first, second, nxt = _place(first, second, player, code, flips, game[K.G_TURN])
        if nxt == K.BAD_CODE:
            return K.BAD_CODE, 0, True, K.BAD_CODE
        taken = popcount(flips)
        child[code] = player + 1
        while flips != 0:
            child[index_of(lowest(flips))] = player + 1
            flips &= flips - ONE
    child[size + K.TO_MOVE], child[size + K.MOVER], child[size + K.PLY] = nxt, player, ply + 1
    n, over_now, won = _list(first, second, blocked, nxt, player, ply + 1, ints, bits,
                             listing(ints, game[K.G_MAX_MOVES]))
    return taken, n, over_now, won


step = step_kernel(_GAME, describe_bits(_GAME, _list), _play_move)  # calls.step for the family
