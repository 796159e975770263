"""The Othello family, on bitboards: the Arena's stages and every stage whose one move rule is
`place empty` + `flip custodial DIRS [over-blocked]` + `require capture`, on a board of at most 64
cells without wrap, with any turn order, pass rule, ends and results.

Each side is a uint64 (bitboards.py). The legal cells of a position are one Kogge-Stone pass per
direction (effects.custodial_targets), the k-th legal move is the k-th set bit (row-major, the
generic order), and a move's flips are effects.custodial_taken: so the family plays the generic
kernels' very games for a seed (tests/test_fast_playouts.py, tests/test_compiled.py). It also
answers calls from Python (`step`) without unpacking the program.
"""
from __future__ import annotations

import numpy as np

from .. import codes as K
from ..arrays import copy_into
from ..bitboards import ONE, full, index_of, lowest, popcount, region_bits, sides_of, start_game, turn_of
from ..effects import custodial_taken, custodial_targets
from ..ends import holds_bits, winner
from ..calls import find, listing, step_arrays
from ..jit import inline, kernel, leaf
from ..positions import misfit
from ..program import pack_tables, table1, table2
from ..rng import draw
from ..turns import next_player_bits

NAME = "othello"
HANDLES = K.coverage(
    moves={K.PLACE_EMPTY}, targets={K.TARGET_EMPTY}, effects={K.FLIP, K.REQUIRE},
    turns={K.ALTERNATE, K.FEWER_PIECES, K.AGAIN_AFTER_CAPTURE},
    conditions={K.NO_MOVES, K.BOARD_FULL, K.NO_PIECES, K.AFTER_PLIES, K.REACH_FAR_ROW},
    results={K.MOVER_WINS, K.MOVER_LOSES, K.MOST_PIECES, K.FEWEST_PIECES, K.DRAW})
# A line or a connection needs the board's tables in the ply loop: handing them to _status slowed
# standard Othello's playouts from about 40,000 to 37,000 a second where never read (measured on
# this machine), so such stages go to the generic kernels.
EXCLUDES = K.coverage(moves={K.PLACE_GRAVITY, K.PLACE_ADJACENT, K.STEP, K.SLIDE, K.JUMP, K.CLONE},
                      targets={K.TARGET_ENEMY, K.TARGET_ANY}, effects={K.REMOVE, K.CONVERT},
                      conditions={K.LINE, K.CONNECT})


# The numbers of the family's tables in `ints` (pack_tables, in applies' order), as _unpack and
# step read them.
_ENDS, _GAME, _DIRS, _OVER_BLOCKED, _SHIFT, _OPPOSITE = range(6)


def applies(program) -> tuple | None:
    """The tables of `playouts` and `step`, packed in two arrays (see _unpack), or None for a
    stage of another shape."""
    rules, effects = program.rules, program.effects
    if not program.game[K.G_BITBOARD] or rules.shape[0] != 1 or rules[0, K.R_N_EFFECTS] != 2:
        return None
    if (rules[0, K.R_KIND], effects[0, 0, K.FX_KIND], effects[0, 1, K.FX_KIND]) != (K.PLACE_EMPTY, K.FLIP, K.REQUIRE):
        return None
    ints = pack_tables([program.ends, program.game, program.effect_dirs[0, 0],
                        np.array([effects[0, 0, K.FX_OVER_BLOCKED]]), program.bb_shift, program.opposite])
    return ints, np.concatenate([program.bb_mask, region_bits(program.regions)])


@inline
def _unpack(ints, bits):
    """(ends, game row, the flip's directions per player, over-blocked, bit shifts, opposite
    directions, bit masks, regions as bitboards): few arrays cross the call from Python, each table
    is a view of them. (No orthogonal directions nor line axes: line and connect ends are not the
    family's.)"""
    bb_shift = table1(ints, _SHIFT)
    n_dirs = bb_shift.shape[0]
    return (table2(ints, _ENDS), table1(ints, _GAME), table2(ints, _DIRS), table1(ints, _OVER_BLOCKED)[0] != 0,
            bb_shift, table1(ints, _OPPOSITE), bits[:n_dirs], bits[n_dirs:])


@leaf
def _status(first, second, blocked, all_cells, player, mover, ply, ends, passing, dirs, over, bb_shift, bb_mask,
            opposite, far_rows):
    """(legal cells, moves available, over, winner) of a position (`first`, `second`: the players'
    pieces); a forced pass counts as the one move available when `legal` is empty."""
    me, op = (first, second) if player == 0 else (second, first)
    empty = all_cells & ~(me | op | blocked)
    legal = custodial_targets(me, op, empty, blocked, dirs[player], over, bb_shift, bb_mask, opposite)
    available = popcount(legal)
    if available == 0 and passing:
        if custodial_targets(op, me, empty, blocked, dirs[1 - player], over, bb_shift, bb_mask, opposite) != 0:
            available = 1
    mine = first if mover == 0 else second
    for e in range(ends.shape[0]):
        # line and connect are not the family's (HANDLES): their tables stay out of the ply loop
        holds = holds_bits(ends[e, K.E_CONDITION], ends[e, K.E_PARAM], available, empty, me, mine, far_rows[mover], ply)
        if holds == K.UNKNOWN or holds == K.NEEDS_BOARD:
            return legal, available, True, K.BAD_CODE
        if holds:
            return legal, available, True, winner(ends[e, K.E_RESULT], mover, popcount(first), popcount(second))
    return legal, available, available == 0, K.NONE


@inline
def _place(sides, player, at, flips, turn):
    """Put the player's piece on `at` and turn `flips` over (custodial_taken: computed by the caller,
    so that this inlined helper takes no table and calls no kernel); returns who moves next."""
    me = sides[player] | flips | (ONE << np.uint64(at))
    op = sides[1 - player] & ~flips
    sides[player], sides[1 - player] = me, op
    return next_player_bits(turn, player, me, op, flips != 0)


@kernel
def _playouts(starts, first_game, seed, max_plies, ints, bits, lengths, winners):
    ends, game, dirs, over, bb_shift, opposite, bb_mask, regions = _unpack(ints, bits)
    _play(starts, first_game, seed, max_plies, ends, game, dirs, over, bb_shift, opposite, bb_mask, regions, lengths,
          winners)


@kernel
def _play(starts, first_game, seed, max_plies, ends, game, dirs, over, bb_shift, opposite, bb_mask, regions, lengths,
          winners):
    size = game[K.G_CELLS]
    all_cells = full(size)
    turn, passing = game[K.G_TURN], game[K.G_PASS] != 0
    sides = np.zeros(2, np.uint64)
    for g in range(lengths.shape[0]):
        x, blocked, player, mover, ply = start_game(starts, first_game + g, seed, size, sides)
        plies = 0
        while True:
            legal, available, over_now, won = _status(sides[0], sides[1], blocked, all_cells, player, mover, ply, ends,
                                                      passing, dirs, over, bb_shift, bb_mask, opposite, regions)
            if over_now:
                winners[g] = won
                break
            if plies >= max_plies:
                winners[g] = K.CUT
                break
            x, k = draw(x, available)
            if legal == 0:  # a forced pass
                mover, player = player, 1 - player
            else:
                for _ in range(k):
                    legal &= legal - ONE
                at = index_of(lowest(legal))
                flips = custodial_taken(sides[player], sides[1 - player], blocked, at, dirs[player], over, bb_shift,
                                        bb_mask)
                nxt = _place(sides, player, at, flips, turn)
                if nxt == K.BAD_CODE:
                    winners[g] = K.BAD_CODE
                    break
                mover, player = player, nxt
            ply += 1
            plies += 1
        lengths[g] = plies


def playouts(tables, starts, first_game, seed, max_plies, lengths, winners) -> None:
    _playouts(starts, first_game, seed, max_plies, *tables, lengths, winners)


@leaf
def _list(first, second, blocked, player, mover, ply, ints, bits, out):
    """The status of a position (moves, over, winner); `out` lists its moves (calls.step)."""
    ends, game, dirs, over, bb_shift, opposite, bb_mask, regions = _unpack(ints, bits)
    size, m = game[K.G_CELLS], game[K.G_MAX_MOVES]
    legal, available, over_now, won = _status(first, second, blocked, full(size), player, mover, ply, ends,
                                              game[K.G_PASS] != 0, dirs, over, bb_shift, bb_mask, opposite, regions)
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


@kernel
def step(state, slab, row, code, known, ints, bits):
    """calls.step for the family: a placement by its cell, its flips by bitboards."""
    if known < 0 and misfit(state, slab.shape[1]):  # a state from outside the game: checked once
        return 0, 0, True, K.BAD_STATE
    game = table1(ints, _GAME)
    size = game[K.G_CELLS]
    out = listing(ints, game[K.G_MAX_MOVES])
    sides = np.zeros(2, np.uint64)
    sides[0], sides[1], blocked = sides_of(state, size)
    player, mover, ply = turn_of(state, size)
    n = known
    if n < 0 or code == K.STATUS_ONLY:
        n, over_now, won = _list(sides[0], sides[1], blocked, player, mover, ply, ints, bits, out)
        if code == K.STATUS_ONLY:
            return 0, n, over_now, won
    if find(out, n, code) < 0:
        return 0, n, False, K.ILLEGAL
    child = slab[row]
    copy_into(child, state)
    taken = 0
    nxt = 1 - player  # a pass
    if code != K.PASS_CODE:
        dirs, over, bb_shift = table2(ints, _DIRS), table1(ints, _OVER_BLOCKED)[0] != 0, table1(ints, _SHIFT)
        flips = custodial_taken(sides[player], sides[1 - player], blocked, code, dirs[player], over, bb_shift,
                                bits[:bb_shift.shape[0]])
        nxt = _place(sides, player, code, flips, game[K.G_TURN])
        if nxt == K.BAD_CODE:
            return K.BAD_CODE, 0, True, K.BAD_CODE
        taken = popcount(flips)
        child[code] = player + 1
        while flips != 0:
            child[index_of(lowest(flips))] = player + 1
            flips &= flips - ONE
    child[size + K.TO_MOVE], child[size + K.MOVER], child[size + K.PLY] = nxt, player, ply + 1
    n, over_now, won = _list(sides[0], sides[1], blocked, nxt, player, ply + 1, ints, bits, out)
    return taken, n, over_now, won
