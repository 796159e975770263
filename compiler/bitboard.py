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
def playouts(starts, first_game, seed, max_plies, ends, game, dirs, over, bbshift, bbmask, bbopp, lengths, winners):
    """kernels.playouts for the family: the same games, as bitboards."""
    size = game[K.G_CELLS]
    full = np.uint64(0xFFFFFFFFFFFFFFFF) if size == 64 else (_ONE << np.uint64(size)) - _ONE
    turn, passing = game[K.G_TURN], game[K.G_PASS] != 0
    for g in range(lengths.shape[0]):
        number = first_game + g
        x = K.game_generator(seed, number)
        start = starts[number % starts.shape[0]]
        sides = np.zeros(2, np.uint64)
        blocked = np.uint64(0)
        for i in range(size):
            v = start[i]
            if v > 0:
                sides[v - 1] |= _ONE << np.uint64(i)
            elif v < 0:
                blocked |= _ONE << np.uint64(i)
        player, mover, ply = start[size + K.TO_MOVE], start[size + K.MOVER], start[size + K.PLY]
        plies = 0
        while True:
            me, op = sides[player], sides[1 - player]
            empty = full & ~(me | op | blocked)
            legal = K.custodial_bits(me, op, empty, blocked, dirs[player], over, bbshift, bbmask, bbopp)
            n = _popcount(legal)
            available = n
            if n == 0 and passing:
                if K.custodial_bits(op, me, empty, blocked, dirs[1 - player], over, bbshift, bbmask, bbopp) != 0:
                    available = 1
            over_now = False
            won = K.NONE
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
                    over_now = True
                    won = _winner(ends[e, 3], mover, _popcount(sides[0]), _popcount(sides[1]))
                    break
            if over_now or available == 0:
                winners[g] = won
                break
            if plies >= max_plies:
                winners[g] = -2
                break
            x, k = K.draw(x, available)
            if n == 0:  # a forced pass
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
                if turn == K.FEWER_PIECES:
                    player = player if _popcount(me) < _popcount(op) else 1 - player
                elif turn == K.AGAIN_AFTER_CAPTURE:
                    player = player  # a legal move of this family always takes a piece
                else:
                    player = 1 - player
            ply += 1
            plies += 1
        lengths[g] = plies
