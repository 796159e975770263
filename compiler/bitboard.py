"""Straight bitboard code for the Othello family, the Arena's stages: random playouts on boards of
at most 64 cells without wrap whose one move rule is `place empty` + `flip custodial DIRS
[over-blocked]` + `require capture`, with any turn order and pass rule, and ends among no-moves,
board-full, no-pieces and after N plies.

It plays exactly the games the generic kernels play (same legal order, same random draws), so
`playouts` gives identical results either way for a seed; tests/test_compiled.py holds it to that.
Each side is a uint64 (bit i = cell i, row-major); a step in direction d is a shift by
`bbshift[d]` of the cells in `bbmask[d]` (those that have a neighbour that way).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..gdl import ast as A
from . import kernels as K

_OPTS = dict(cache=True, nogil=True, boundscheck=False)
_ONE = np.uint64(1)
_ENDS = {K.NO_MOVES, K.BOARD_FULL, K.NO_PIECES, K.AFTER_PLIES}


def applies(stage: A.Stage, program: tuple) -> bool:
    """Whether a stage belongs to the family this module plays."""
    game, ends = program[13], program[12]
    if game[K.G_BITBOARD] == 0 or len(stage.moves) != 1:
        return False
    rule = stage.moves[0]
    kinds = [type(e) for e in rule.effects]
    return (isinstance(rule.kind, A.PlaceEmpty) and kinds == [A.FlipCustodial, A.RequireCapture]
            and all(int(c) in _ENDS for c in ends[:, 0]))


@njit(**_OPTS)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(**_OPTS)
def _flips(me, op, blocked, at, dirs, over, bbshift, bbmask):
    """The enemy pieces a piece arriving on `at` takes: in each direction, the run of enemy
    pieces (over blocked cells with `over`) closed by a mover's piece."""
    flips = np.uint64(0)
    for d in range(dirs.shape[0]):
        if dirs[d] == 0:
            continue
        run = np.uint64(0)
        x = K._shift(_ONE << np.uint64(at), d, bbshift, bbmask)
        while x != 0:
            if x & op:
                run |= x
            elif not (over and (x & blocked)):
                break
            x = K._shift(x, d, bbshift, bbmask)
        if x & me:
            flips |= run
    return flips


@njit(**_OPTS)
def _winner(result, mover, first, second):
    if result == K.MOVER_WINS:
        return mover
    if result == K.MOVER_LOSES:
        return 1 - mover
    if result == K.DRAW or first == second:
        return K.NONE
    more = 0 if first > second else 1
    return more if result == K.MOST_PIECES else 1 - more


@njit(**_OPTS)
def _status(me, op, blocked, full, player, mover, ply, ends, passing, dirs, over, bbshift, bbmask, bbopp):
    """(legal cells, moves available, over, winner) of a position; a forced pass counts as the
    one move available when `legal` is empty."""
    empty = full & ~(me | op | blocked)
    legal = K.custodial_bits(me, op, empty, blocked, dirs[player], over, bbshift, bbmask, bbopp)
    available = _popcount(legal)
    if available == 0 and passing:
        if K.custodial_bits(op, me, empty, blocked, dirs[1 - player], over, bbshift, bbmask, bbopp) != 0:
            available = 1
    for e in range(ends.shape[0]):
        cond = ends[e, 0]
        if cond == K.NO_MOVES:
            holds = available == 0
        elif cond == K.BOARD_FULL:
            holds = empty == 0
        elif cond == K.NO_PIECES:
            holds = me == 0
        else:
            holds = ply >= ends[e, 1]
        if holds:
            first, second = (me, op) if player == 0 else (op, me)
            return legal, available, True, _winner(ends[e, 3], mover, _popcount(first), _popcount(second))
    return legal, available, available == 0, K.NONE


@njit(**_OPTS)
def _next_player(turn, player, me, op):
    """Who moves after `player` placed a piece (leaving `me` and `op`)."""
    if turn == K.FEWER_PIECES:
        return player if _popcount(me) < _popcount(op) else 1 - player
    if turn == K.AGAIN_AFTER_CAPTURE:
        return player  # a legal move of this family always takes a piece
    return 1 - player


@njit(**_OPTS)
def _full(size):
    return np.uint64(0xFFFFFFFFFFFFFFFF) if size == 64 else (_ONE << np.uint64(size)) - _ONE


@njit(**_OPTS)
def _sides(state, size):
    """(first player's pieces, second's, blocked cells) of a state, as bitboards."""
    first, second, blocked = np.uint64(0), np.uint64(0), np.uint64(0)
    for i in range(size):
        v = state[i]
        if v == 1:
            first |= _ONE << np.uint64(i)
        elif v == 2:
            second |= _ONE << np.uint64(i)
        elif v < 0:
            blocked |= _ONE << np.uint64(i)
    return first, second, blocked


@njit(**dict(_OPTS, inline="always"))
def start_game(starts, number, seed, size, sides):
    """Game `number` of a playout batch: its generator and start (starts[number % len(starts)]).
    Fills sides with the players' bitboards; returns (generator, blocked cells, player to move,
    mover, ply)."""
    start = starts[number % starts.shape[0]]
    sides[0], sides[1], blocked = _sides(start, size)
    return (K.game_generator(seed, number), blocked, start[size + K.TO_MOVE], start[size + K.MOVER],
            start[size + K.PLY])


@njit(**_OPTS)
def playouts(starts, first_game, seed, max_plies, ends, game, dirs, over, bbshift, bbmask, bbopp, lengths, winners):
    """kernels.playouts for the family: the same games, as bitboards."""
    size = game[K.G_CELLS]
    full = _full(size)
    turn, passing = game[K.G_TURN], game[K.G_PASS] != 0
    sides = np.zeros(2, np.uint64)
    for g in range(lengths.shape[0]):
        x, blocked, player, mover, ply = start_game(starts, first_game + g, seed, size, sides)
        plies = 0
        while True:
            me, op = sides[player], sides[1 - player]
            legal, available, over_now, won = _status(me, op, blocked, full, player, mover, ply, ends, passing, dirs,
                                                      over, bbshift, bbmask, bbopp)
            if over_now:
                winners[g] = won
                break
            if plies >= max_plies:
                winners[g] = -2
                break
            x, k = K.draw(x, available)
            if legal == 0:  # a forced pass
                mover, player = player, 1 - player
            else:
                for _ in range(k):
                    legal &= legal - _ONE
                bit = legal & (~legal + _ONE)
                at = _popcount(bit - _ONE)
                flips = _flips(me, op, blocked, at, dirs[player], over, bbshift, bbmask)
                me |= flips | bit
                op &= ~flips
                sides[player], sides[1 - player] = me, op
                mover = player
                player = _next_player(turn, player, me, op)
            ply += 1
            plies += 1
        lengths[g] = plies


@njit(**_OPTS)
def step_from(state, child, at, ends, game, dirs, over, bbshift, bbmask, bbopp, out):
    """kernels.advance_from for the family, with no program to unpack (the cost of a call from
    Python is what this saves): `child` becomes the position after a piece placed on `at` (-1: a
    pass) and `out` receives the child's status in kernels.moves_of's layout. With `at` = -2,
    `child` is left alone and `out` receives the status of `state` itself. Returns the pieces
    flipped."""
    size, m = game[K.G_CELLS], game[K.G_MAX_MOVES]
    first, second, blocked = _sides(state, size)
    player, mover, ply = state[size + K.TO_MOVE], state[size + K.MOVER], state[size + K.PLY]
    taken = 0
    if at > -2:
        me, op = (first, second) if player == 0 else (second, first)
        child[:] = state
        if at >= 0:
            flips = _flips(me, op, blocked, at, dirs[player], over, bbshift, bbmask)
            me |= flips | (_ONE << np.uint64(at))
            op &= ~flips
            taken = _popcount(flips)
            child[at] = player + 1
            while flips != 0:
                bit = flips & (~flips + _ONE)
                child[_popcount(bit - _ONE)] = player + 1
                flips &= flips - _ONE
            first, second = (me, op) if player == 0 else (op, me)
            mover, player = player, _next_player(game[K.G_TURN], player, me, op)
        else:
            mover, player = player, 1 - player
        ply += 1
        child[size + K.TO_MOVE], child[size + K.MOVER], child[size + K.PLY] = player, mover, ply
    me, op = (first, second) if player == 0 else (second, first)
    legal, available, over_now, won = _status(me, op, blocked, _full(size), player, mover, ply, ends,
                                              game[K.G_PASS] != 0, dirs, over, bbshift, bbmask, bbopp)
    out[0], out[1], out[2] = 0 if over_now else available, over_now, won
    if not over_now:
        if legal == 0:
            out[3], out[3 + m], out[3 + 2 * m] = -1, -1, -1
        k = 0
        while legal != 0:
            bit = legal & (~legal + _ONE)
            out[3 + k], out[3 + m + k], out[3 + 2 * m + k] = -1, _popcount(bit - _ONE), 0
            legal &= legal - _ONE
            k += 1
    return taken
