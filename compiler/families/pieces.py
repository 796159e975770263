"""Stepping-piece games on bitboards (Breakthrough and its kin): stages on a board of at most 64
cells without wrap whose move rules are all `step DIRS [to TARGET]` with no effects, with any turn
order, pass rule, ends and results.

Without effects, every step rule plays a move src→dst the same way (the piece leaves src, lands
on dst, an enemy there is taken), so the legal list is the set of (origin, destination) pairs
that some rule allows, in the generic order: by origin, then by destination. For one origin the
destinations of the directions come in the order of their bit shifts, so the moves are kept as
one bitboard per direction (the pieces that can step that way: a shift of the target cells, the
union of every rule's targets for that direction), directions sorted by shift. The k-th move of
the list is found by walking the origins in bit order, counting the directions each has, without
writing the list down. It plays the generic kernels' very games for a seed
(tests/test_compiled.py, tests/test_fast_playouts.py).
"""
from __future__ import annotations

import numpy as np

from collections import namedtuple

from .. import codes as K
from ..arrays import copy_into
from ..bitboards import (ONE, first_position, full, index_of, lowest, popcount, region_bits, shift, sides_of,
                         turn_of)
from ..calls import decode, encode, step_arrays
from ..ends import first_end_bits
from ..jit import inline, kernel, leaf
from ..ply import describe_bits, listing, playout_kernel, step_kernel
from ..program import Layout, table1, table2
from ..turns import next_player_bits

NAME = "pieces"
HANDLES = K.coverage(
    moves={K.STEP}, targets={K.TARGET_EMPTY, K.TARGET_ENEMY, K.TARGET_ANY},
    turns={K.ALTERNATE, K.FEWER_PIECES, K.AGAIN_AFTER_CAPTURE},
    conditions={K.NO_MOVES, K.BOARD_FULL, K.LINE, K.REACH_FAR_ROW, K.CONNECT, K.NO_PIECES, K.AFTER_PLIES},
    results={K.MOVER_WINS, K.MOVER_LOSES, K.MOST_PIECES, K.FEWEST_PIECES, K.DRAW})
EXCLUDES = K.coverage(moves={K.PLACE_EMPTY, K.PLACE_GRAVITY, K.PLACE_ADJACENT, K.SLIDE, K.JUMP, K.CLONE, K.ADVANCE},
                      effects={K.FLIP, K.REMOVE, K.CONVERT, K.REQUIRE})
_EMPTY, _ENEMY = 1, 2  # target bits of a direction: where a piece may step that way


# The family's int32 tables, packed in `ints` in this order (applies), and the uint64 ones in `bits`.
_LAYOUT = Layout("ends", "game", "sdir", "stgt", "sn", "bb_shift", "opposite", "orth", "axes")
_ENDS, _GAME, _SDIR, _STGT, _SN, _SHIFT, _OPPOSITE, _ORTH, _AXES = map(_LAYOUT.number, _LAYOUT.names)
# What the kernels read, by name: each table a view of the two arrays that cross a call from Python.
Tables = namedtuple("Tables", [*_LAYOUT.names, "bb_mask", "regions"])


def named_tables(program) -> dict[str, np.ndarray] | None:
    """The family's tables of a program by name (Tables' fields), None for a stage of another
    shape: the ends, the game row, the step directions per player sorted by shift (sdir), their
    target bits (stgt), how many (sn), bit shifts, opposite directions, orthogonal directions, line
    axes, bit masks, regions as bitboards."""
    rules, rule_dirs, bb_shift = program.rules, program.rule_dirs, program.bb_shift
    if not program.game[K.G_BITBOARD] or (rules[:, K.R_N_EFFECTS] != 0).any():
        return None
    n_dirs = bb_shift.shape[0]
    bits = {K.TARGET_EMPTY: _EMPTY, K.TARGET_ENEMY: _ENEMY, K.TARGET_ANY: _EMPTY | _ENEMY}
    sdir = np.zeros((2, n_dirs), dtype=np.int32)
    stgt = np.zeros((2, n_dirs), dtype=np.int32)
    sn = np.zeros(2, dtype=np.int32)
    for p in (0, 1):
        target = np.zeros(n_dirs, dtype=np.int32)
        for r in range(rules.shape[0]):
            target[rule_dirs[r, p] != 0] |= bits[int(rules[r, K.R_TARGET])]
        chosen = [d for d in sorted(range(n_dirs), key=lambda d: int(bb_shift[d])) if target[d]]
        sn[p] = len(chosen)
        sdir[p, : len(chosen)] = chosen
        stgt[p, : len(chosen)] = target[chosen]
    return dict(ends=program.ends, game=program.game, sdir=sdir, stgt=stgt, sn=sn, bb_shift=bb_shift,
                opposite=program.opposite, orth=program.orth, axes=program.axes, bb_mask=program.bb_mask,
                regions=region_bits(program.regions))


def applies(program) -> tuple | None:
    """The tables of `playouts` and `step`, packed in two arrays (see unpack), or None for a stage
    of another shape."""
    named = named_tables(program)
    if named is None:
        return None
    ints = _LAYOUT.pack(**{name: named[name] for name in _LAYOUT.names})
    return ints, np.concatenate([named["bb_mask"], named["regions"]])


@inline
def unpack(ints, bits):
    """The Tables of applies' two arrays (views, no copies).

    ints: int32[n_packed] — the family's tables (applies; a step's: then the listing, 2 * max_moves)
    bits: uint64[n_dirs + n_regions] — the bit masks, then the regions as bitboards
    -> tables: Tables — each table by name
    """
    bb_shift = table1(ints, _SHIFT)
    n_dirs = bb_shift.shape[0]
    return Tables(ends=table2(ints, _ENDS), game=table1(ints, _GAME), sdir=table2(ints, _SDIR),
                  stgt=table2(ints, _STGT), sn=table1(ints, _SN), bb_shift=bb_shift, opposite=table1(ints, _OPPOSITE),
                  orth=table1(ints, _ORTH), axes=table1(ints, _AXES), bb_mask=bits[:n_dirs], regions=bits[n_dirs:])


@inline
def _movers(me, op, empty, p, sdir, stgt, n, bb_shift, bb_mask, opposite, out):
    """Per step direction j of player p (sorted by shift): out[j] = the pieces of `me` that can
    step that way. Returns how many moves that makes.

    me, op, empty: uint64 bitboards; n: how many step directions player p has
    sdir: int32[2, n_dirs] — each player's step directions, sorted by shift
    stgt: int32[2, n_dirs] — their target bits (_EMPTY, _ENEMY)
    bb_shift: int32[n_dirs] — the bit shift of a step each way
    bb_mask: uint64[n_dirs] — the cells with a neighbour each way
    opposite: int32[n_dirs] — the opposite of each direction
    out: uint64[n_dirs] — written: the movers of each step direction
    """
    total = 0
    for j in range(n):
        t = stgt[p, j]
        target = (empty if t & _EMPTY else np.uint64(0)) | (op if t & _ENEMY else np.uint64(0))
        m = me & shift(target, opposite[sdir[p, j]], bb_shift, bb_mask)
        out[j] = m
        total += popcount(m)
    return total


@inline
def _can_move(me, op, empty, p, sdir, stgt, n, bb_shift, bb_mask, opposite):
    """Whether player p (pieces `me`) has a step (the forced-pass test for the side not to move).

    me, op, empty, n: as _movers' (uint64 bitboards; a count)
    sdir, stgt: int32[2, n_dirs] — each player's step directions and their target bits (_movers)
    bb_shift, opposite: int32[n_dirs] — the bit shift of a step each way, the opposite direction
    bb_mask: uint64[n_dirs] — the cells with a neighbour each way
    """
    for j in range(n):
        t = stgt[p, j]
        target = (empty if t & _EMPTY else np.uint64(0)) | (op if t & _ENEMY else np.uint64(0))
        if me & shift(target, opposite[sdir[p, j]], bb_shift, bb_mask):
            return True
    return False


@inline
def _begin(starts, number, tables, work):
    """ply.playout_kernel's `begin`: game `number`'s start, its sides written into work[0]; returns
    the rest of the position (blocked cells, every cell, player to move, mover, ply).

    starts: int32[n_starts, n_cells + 4] — the batch's start positions
    tables: Tables — the family's tables (the game row read)
    work: tuple — (sides uint64[2]: each player's pieces, movers uint64[n_dirs])
    """
    first, second, blocked, all_cells, player, mover, ply = first_position(starts, number, tables.game[K.G_CELLS])
    work[0][0], work[0][1] = first, second  # the sides stay an array here: _advance writes them
    return blocked, all_cells, player, mover, ply


@inline
def _ply_status(position, tables, work):
    """ply.playout_kernel's status: per step direction, the pieces that can step that way (in
    work[1]), and whether the one move is a forced pass.

    position: tuple — (blocked cells, every cell: uint64 bitboards; player to move, mover, ply:
        int64)
    tables: Tables — the family's tables
    work: tuple — (sides uint64[2]: each player's pieces, movers uint64[n_dirs])
    """
    blocked, all_cells, player, mover, ply = position
    sides, movers = work
    sdir, stgt, sn, bb_shift, bb_mask, opposite = (tables.sdir, tables.stgt, tables.sn, tables.bb_shift,
                                                   tables.bb_mask, tables.opposite)
    me, op = sides[player], sides[1 - player]
    empty = all_cells & ~(me | op | blocked)
    n = _movers(me, op, empty, player, sdir, stgt, sn[player], bb_shift, bb_mask, opposite, movers)
    pass_now = False
    if n == 0 and tables.game[K.G_PASS] != 0:
        if _can_move(op, me, empty, 1 - player, sdir, stgt, sn[1 - player], bb_shift, bb_mask, opposite):
            n, pass_now = 1, True
    over, won = first_end_bits(tables.ends, n, mover, (empty, me, sides[0], sides[1], ply), tables)
    return n, over, won, pass_now


@inline
def _advance(position, pass_now, k, tables, work):
    """The k-th move by origin, then destination: the origins walked in bit order.

    position: tuple — _ply_status's
    tables: Tables — the family's tables
    work: tuple — _begin's (sides uint64[2], written; movers uint64[n_dirs], _ply_status's)
    """
    blocked, all_cells, player, mover, ply = position
    if pass_now:
        return (blocked, all_cells, 1 - player, player, ply + 1), False
    sides, movers = work
    nd = tables.sn[player]
    origins = np.uint64(0)
    for j in range(nd):
        origins |= movers[j]
    while True:
        bit = lowest(origins)
        c = 0
        for j in range(nd):
            if movers[j] & bit:
                c += 1
        if k < c:
            break
        k -= c
        origins ^= bit
    d = 0
    for j in range(nd):
        if movers[j] & bit:
            if k == 0:
                d = tables.sdir[player, j]
                break
            k -= 1
    dest = shift(bit, d, tables.bb_shift, tables.bb_mask)
    me, op = sides[player], sides[1 - player]
    taken = 1 if op & dest else 0
    me ^= bit | dest
    op &= ~dest
    sides[player], sides[1 - player] = me, op
    nxt = next_player_bits(tables.game[K.G_TURN], player, me, op, taken)
    return (blocked, all_cells, np.int64(nxt), player, ply + 1), nxt == K.BAD_CODE


_games = playout_kernel(_begin, _ply_status, _advance)


@leaf
def _position_status(position, tables, work):
    """_ply_status for _list, a kernel: as a leaf, without a reference count per table.

    position: tuple — _ply_status's
    tables: Tables — the family's tables
    work: tuple — (sides uint64[2]: each player's pieces, movers uint64[n_dirs])
    """
    return _ply_status(position, tables, work)


@kernel
def _playouts(starts, first_game, seed, max_plies, ints, bits, lengths, winners):
    """playouts.playouts' job for the family: the games of ply.playout_kernel on bitboards.

    starts: int32[n_starts, n_cells + 4] — the positions games begin from, read only
    ints: int32[n_packed] — the family's tables (applies; a step's: then the listing, 2 * max_moves)
    bits: uint64[n_dirs + n_regions] — the bit masks, then the regions as bitboards
    lengths, winners: int32[games] — written: each game's plies and winner
    """
    tables = unpack(ints, bits)
    work = (np.zeros(2, np.uint64), np.zeros(tables.sdir.shape[1], np.uint64))
    _games(starts, first_game, seed, max_plies, tables, work, lengths, winners)


def playouts(tables, starts, first_game, seed, max_plies, lengths, winners) -> None:
    _playouts(starts, first_game, seed, max_plies, *tables, lengths, winners)


@kernel
def _list(first, second, blocked, player, mover, ply, ints, bits, out):
    """The status of a position (moves, over, winner); `out` lists its moves (calls.step).

    first, second, blocked: uint64 bitboards; player, mover, ply: int64
    ints: int32[n_packed + 2 * max_moves] — the family's tables, then the listing
    bits: uint64[n_dirs + n_regions] — the bit masks, then the regions as bitboards
    out: int32[2 * max_moves] — written: the moves' codes, then their rules (the listing)
    """
    tables = unpack(ints, bits)
    game, sdir, bb_shift, bb_mask = tables.game, tables.sdir, tables.bb_shift, tables.bb_mask
    size, m = game[K.G_CELLS], game[K.G_MAX_MOVES]
    sides = np.empty(2, np.uint64)
    sides[0], sides[1] = first, second
    movers = np.empty(sdir.shape[1], np.uint64)
    n, over, won, pass_now = _position_status((blocked, full(size), player, mover, ply), tables, (sides, movers))
    if over:
        return 0, True, won
    if pass_now:
        out[0], out[m] = K.PASS_CODE, -1
        return n, False, K.NONE
    nd = tables.sn[player]
    # by origin, then destination: for one origin the directions come sorted by shift
    origins = np.uint64(0)
    for j in range(nd):
        origins |= movers[j]
    k = 0
    while origins != 0:
        bit = lowest(origins)
        src = index_of(bit)
        for j in range(nd):
            if movers[j] & bit:
                out[k], out[m + k] = encode(src, index_of(shift(bit, sdir[player, j], bb_shift, bb_mask)), size), 0
                k += 1
        origins ^= bit
    return n, False, K.NONE


step_tables = step_arrays  # the two arrays of `step`: the family's tables and the listing


@inline
def _play_move(state, child, k, code, n, ints, bits):
    """ply.step_kernel's `play` for the family: every step rule plays a move the same way, so the
    rule itself is not read.

    state: int32[n_cells + 4] — the position, read only
    child: int32[n_cells + 4] — written (a slab row)
    ints: int32[n_packed + 2 * max_moves] — the family's tables, then the listing
    bits: uint64[n_dirs + n_regions] — the bit masks, then the regions as bitboards
    """
    game = table1(ints, _GAME)
    size = game[K.G_CELLS]
    first, second, blocked = sides_of(state, size)
    player, mover, ply = turn_of(state, size)
    copy_into(child, state)
    taken = 0
    nxt = 1 - player  # a pass
    if code != K.PASS_CODE:
        src, dst = decode(code, size)
        me, op = (first, second) if player == 0 else (second, first)
        origin, dest = ONE << np.uint64(src), ONE << np.uint64(dst)
        taken = 1 if op & dest else 0
        me ^= origin | dest
        op &= ~dest
        first, second = (me, op) if player == 0 else (op, me)
        child[src], child[dst] = 0, player + 1
        nxt = next_player_bits(game[K.G_TURN], player, me, op, taken)
        if nxt == K.BAD_CODE:
            return K.BAD_CODE, 0, True, K.BAD_CODE
    child[size + K.TO_MOVE], child[size + K.MOVER], child[size + K.PLY] = nxt, player, ply + 1
    n, over, won = _list(first, second, blocked, nxt, player, ply + 1, ints, bits, listing(ints, game[K.G_MAX_MOVES]))
    return taken, n, over, won


step = step_kernel(_GAME, describe_bits(_GAME, _list), _play_move)  # calls.step for the family
