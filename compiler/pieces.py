"""Straight bitboard code for stepping-piece games (Breakthrough and its kin): random playouts on
boards of at most 64 cells without wrap whose move rules are all `step DIRS [to T]` with no
effects, with any turn order and pass rule, and any ends.

Without effects, every step rule plays a move src→dst the same way (the piece leaves src, lands
on dst, an enemy there is taken), so the legal list is the set of (origin, destination) pairs
that some rule allows, in the generic order: by origin, then by destination. For one origin the
destinations of the directions come in the order of their bit shifts, so the moves are kept as
one bitboard per direction (the pieces that can step that way: a shift of the target cells, the
union of every rule's targets for that direction), directions sorted by shift. The k-th move of
the list is found by walking the origins in bit order, counting the directions each has, without
writing the list down. It plays exactly the games the generic kernels play for a seed (same
legal order, same random draws, same end tests in the same order), which tests/test_compiled.py
and tests/test_fast_playouts.py check.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..gdl import ast as A
from ..gdl import geometry
from . import kernels as K
from .bitboard import _full, _popcount, _winner, start_game

_OPTS = dict(cache=True, nogil=True, boundscheck=False)
_INLINE = dict(_OPTS, inline="always")
_ONE = np.uint64(1)
_EMPTY, _ENEMY = 1, 2  # target bits of a direction: where a piece may step that way


def applies(stage: A.Stage, program: tuple) -> bool:
    """Whether a stage belongs to the family this module plays."""
    game, ends = program[13], program[12]
    if game[K.G_BITBOARD] == 0 or not stage.moves:
        return False
    # `line 0` or less means something odd to the generic kernel: leave it there
    lines_ok = all(e[1] >= 1 for e in ends if e[0] == K.LINE)
    return lines_ok and all(isinstance(rule.kind, A.Step) and not rule.effects for rule in stage.moves)


def tables(stage: A.Stage, program: tuple) -> tuple:
    """The arrays `playouts` takes after `max_plies`, made once per stage: the ends, the game
    row, per player the step directions sorted by shift with their target bits and how many,
    the bit shifts, masks and opposites of the directions, the regions as bitboards, the
    orthogonal directions (connect) and one direction per line axis."""
    rules, rdirs, ends, game, regions, orth, bbshift, bbmask, bbopp = (
        program[6], program[7], program[12], program[13], program[14], program[15], program[16], program[17],
        program[18])
    n_dirs = bbshift.shape[0]
    bits = {K.TARGET_EMPTY: _EMPTY, K.TARGET_ENEMY: _ENEMY, K.TARGET_ANY: _EMPTY | _ENEMY}
    sdir = np.zeros((2, n_dirs), dtype=np.int32)
    stgt = np.zeros((2, n_dirs), dtype=np.int32)
    sn = np.zeros(2, dtype=np.int32)
    for p in (0, 1):
        target = np.zeros(n_dirs, dtype=np.int32)
        for r in range(rules.shape[0]):
            target[rdirs[r, p] != 0] |= bits[int(rules[r, K.R_TARGET])]
        chosen = [d for d in sorted(range(n_dirs), key=lambda d: int(bbshift[d])) if target[d]]
        sn[p] = len(chosen)
        sdir[p, : len(chosen)] = chosen
        stgt[p, : len(chosen)] = target[chosen]
    masks = np.array([sum(1 << int(i) for i in np.flatnonzero(region)) for region in regions], dtype=np.uint64)
    is_hex = isinstance(stage.board, A.HexBoard)
    names = tuple(geometry.steps(is_hex))
    axes = np.array([names.index(a) for a in geometry.axes(is_hex)], dtype=np.int32)
    return (ends, game, sdir, stgt, sn, bbshift, bbmask, bbopp, masks,
            np.flatnonzero(orth).astype(np.int32), axes)


@njit(**_INLINE)
def _movers(me, op, empty, p, sdir, stgt, n, bbshift, bbmask, bbopp, out):
    """Per step direction j of player p (sorted by shift): out[j] = the pieces of `me` that can
    step that way. Returns how many moves that makes."""
    total = 0
    for j in range(n):
        t = stgt[p, j]
        target = (empty if t & _EMPTY else np.uint64(0)) | (op if t & _ENEMY else np.uint64(0))
        m = me & K._shift(target, bbopp[sdir[p, j]], bbshift, bbmask)
        out[j] = m
        total += _popcount(m)
    return total


@njit(**_INLINE)
def _can_move(me, op, empty, p, sdir, stgt, n, bbshift, bbmask, bbopp):
    """Whether player p (pieces `me`) has a step (the forced-pass test for the side not to move)."""
    for j in range(n):
        t = stgt[p, j]
        target = (empty if t & _EMPTY else np.uint64(0)) | (op if t & _ENEMY else np.uint64(0))
        if me & K._shift(target, bbopp[sdir[p, j]], bbshift, bbmask):
            return True
    return False


@njit(**_OPTS)
def _line(me, k, exact, axes, bbshift, bbmask, bbopp):
    """Whether `me` has k in a row along an axis (a maximal run of exactly k with `exact`): from
    each run's first cell, k - 1 steps along the axis over the mover's pieces."""
    for a in range(axes.shape[0]):
        d = axes[a]
        y = me & ~K._shift(me, d, bbshift, bbmask)  # first cells of runs
        for _ in range(k - 1):
            if y == 0:
                break
            y = K._shift(y, d, bbshift, bbmask) & me
        if exact:
            y &= ~K._shift(me, bbopp[d], bbshift, bbmask)  # ... and the run stops there
        if y != 0:
            return True
    return False


@njit(**_OPTS)
def _connected(me, start, goal, orth, bbshift, bbmask):
    """Whether the pieces of `me` join two regions, stepping orthogonally (a flood fill)."""
    reach = me & start
    while reach != 0 and reach & goal == 0:
        grown = reach
        for o in range(orth.shape[0]):
            grown |= K._shift(reach, orth[o], bbshift, bbmask)
        grown &= me
        if grown == reach:
            return False
        reach = grown
    return reach != 0


@njit(**_INLINE)
def _first_end(ends, n, sides, mover, player, ply, empty, regions, orth, axes, bbshift, bbmask, bbopp):
    """The first end that holds, tested in order as kernels.status does (n: the moves of the side
    to move, a forced pass counting as one); -1 if none does."""
    for e in range(ends.shape[0]):
        cond, param = ends[e, 0], ends[e, 1]
        if cond == K.NO_MOVES:
            if n == 0:
                return e
        elif cond == K.REACH_FAR_ROW:
            if sides[mover] & regions[mover]:
                return e
        elif cond == K.NO_PIECES:
            if sides[player] == 0:
                return e
        elif cond == K.AFTER_PLIES:
            if ply >= param:
                return e
        elif cond == K.BOARD_FULL:
            if empty == 0:
                return e
        elif cond == K.LINE:
            if _line(sides[mover], param, ends[e, 2] != 0, axes, bbshift, bbmask, bbopp):
                return e
        elif _connected(sides[mover], regions[param + 2 * mover], regions[param + 2 * mover + 1], orth, bbshift,
                        bbmask):  # CONNECT
            return e
    return -1


@njit(**_OPTS)
def playouts(starts, first_game, seed, max_plies, ends, game, sdir, stgt, sn, bbshift, bbmask, bbopp, regions,
             orth, axes, lengths, winners):
    """kernels.playouts for stepping-piece games: the same games, as bitboards."""
    size = game[K.G_CELLS]
    full = _full(size)
    turn, passing = game[K.G_TURN], game[K.G_PASS] != 0
    sides = np.zeros(2, np.uint64)
    movers = np.zeros(sdir.shape[1], np.uint64)
    for g in range(lengths.shape[0]):
        x, blocked, player, mover, ply = start_game(starts, first_game + g, seed, size, sides)
        plies = 0
        while True:
            me, op = sides[player], sides[1 - player]
            empty = full & ~(me | op | blocked)
            nd = sn[player]
            n = _movers(me, op, empty, player, sdir, stgt, nd, bbshift, bbmask, bbopp, movers)
            pass_now = False
            if n == 0 and passing:
                if _can_move(op, me, empty, 1 - player, sdir, stgt, sn[1 - player], bbshift, bbmask, bbopp):
                    n, pass_now = 1, True
            # the ends in order, as kernels.status tests them (written out here: a helper taking the
            # tables would cost a reference count per array per ply, 2-3x the time of a playout)
            over = False
            won = K.NONE
            for e in range(ends.shape[0]):
                cond, param = ends[e, 0], ends[e, 1]
                if cond == K.NO_MOVES:
                    holds = n == 0
                elif cond == K.REACH_FAR_ROW:
                    holds = (sides[mover] & regions[mover]) != 0
                elif cond == K.NO_PIECES:
                    holds = me == 0
                elif cond == K.AFTER_PLIES:
                    holds = ply >= param
                elif cond == K.BOARD_FULL:
                    holds = empty == 0
                elif cond == K.LINE:
                    holds = _line(sides[mover], param, ends[e, 2] != 0, axes, bbshift, bbmask, bbopp)
                else:  # CONNECT
                    holds = _connected(sides[mover], regions[param + 2 * mover], regions[param + 2 * mover + 1],
                                       orth, bbshift, bbmask)
                if holds:
                    over = True
                    won = _winner(ends[e, 3], mover, _popcount(sides[0]), _popcount(sides[1]))
                    break
            if over or n == 0:
                winners[g] = won
                break
            if plies >= max_plies:
                winners[g] = -2
                break
            x, k = K.draw(x, n)
            if pass_now:
                mover, player = player, 1 - player
            else:
                # the k-th move by origin, then destination: walk the origins in bit order
                origins = np.uint64(0)
                for j in range(nd):
                    origins |= movers[j]
                while True:
                    bit = origins & (~origins + _ONE)
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
                            d = sdir[player, j]
                            break
                        k -= 1
                dest = K._shift(bit, d, bbshift, bbmask)
                taken = (op & dest) != 0
                me ^= bit | dest
                op &= ~dest
                sides[player], sides[1 - player] = me, op
                mover = player
                if turn == K.FEWER_PIECES:
                    player = player if _popcount(me) < _popcount(op) else 1 - player
                elif turn == K.AGAIN_AFTER_CAPTURE:
                    player = player if taken else 1 - player
                else:
                    player = 1 - player
            ply += 1
            plies += 1
        lengths[g] = plies
