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

from .. import codes as K
from ..bitboards import ONE, full, lowest, popcount, region_bits, shift, start_game
from ..ends import holds_bits, winner
from ..jit import inline, kernel
from ..rng import draw
from ..turns import next_player_bits

NAME = "pieces"
HANDLES = K.coverage(moves={K.STEP}, targets=K.TARGETS, turns=K.TURNS, conditions=K.CONDITIONS, results=K.RESULTS)
EXCLUDES = K.coverage(moves={K.PLACE_EMPTY, K.PLACE_GRAVITY, K.PLACE_ADJACENT, K.SLIDE, K.JUMP, K.CLONE},
                      effects=K.EFFECTS)
_EMPTY, _ENEMY = 1, 2  # target bits of a direction: where a piece may step that way


def applies(program) -> tuple | None:
    """The tables of `playouts` (the ends, the game row, per player the step directions sorted by
    shift with their target bits and how many, the bitboard steps, the regions as bitboards, the
    orthogonal directions, the line axes), or None for a stage of another shape."""
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
    return (program.ends, program.game, sdir, stgt, sn, bb_shift, program.bb_mask, program.opposite,
            region_bits(program.regions), program.orth, program.axes)


@inline
def _movers(me, op, empty, p, sdir, stgt, n, bb_shift, bb_mask, opposite, out):
    """Per step direction j of player p (sorted by shift): out[j] = the pieces of `me` that can
    step that way. Returns how many moves that makes."""
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
    """Whether player p (pieces `me`) has a step (the forced-pass test for the side not to move)."""
    for j in range(n):
        t = stgt[p, j]
        target = (empty if t & _EMPTY else np.uint64(0)) | (op if t & _ENEMY else np.uint64(0))
        if me & shift(target, opposite[sdir[p, j]], bb_shift, bb_mask):
            return True
    return False


@kernel
def _playouts(starts, first_game, seed, max_plies, ends, game, sdir, stgt, sn, bb_shift, bb_mask, opposite, regions,
              orth, axes, lengths, winners):
    size = game[K.G_CELLS]
    all_cells = full(size)
    turn, passing = game[K.G_TURN], game[K.G_PASS] != 0
    sides = np.zeros(2, np.uint64)
    movers = np.zeros(sdir.shape[1], np.uint64)
    for g in range(lengths.shape[0]):
        x, blocked, player, mover, ply = start_game(starts, first_game + g, seed, size, sides)
        plies = 0
        while True:
            me, op = sides[player], sides[1 - player]
            empty = all_cells & ~(me | op | blocked)
            nd = sn[player]
            n = _movers(me, op, empty, player, sdir, stgt, nd, bb_shift, bb_mask, opposite, movers)
            pass_now = False
            if n == 0 and passing:
                if _can_move(op, me, empty, 1 - player, sdir, stgt, sn[1 - player], bb_shift, bb_mask, opposite):
                    n, pass_now = 1, True
            won = K.NONE
            over = False
            for e in range(ends.shape[0]):  # the first end that holds, in the stage's order
                holds = holds_bits(ends[e, K.E_CONDITION], ends[e, K.E_PARAM], ends[e, K.E_EXACT], sides, empty, mover,
                                   player, n, ply, regions, orth, axes, bb_shift, bb_mask, opposite)
                if holds == K.UNKNOWN:
                    won, over = K.BAD_CODE, True
                    break
                if holds:
                    won, over = winner(ends[e, K.E_RESULT], mover, popcount(sides[0]), popcount(sides[1])), True
                    break
            if over or n == 0:
                winners[g] = won
                break
            if plies >= max_plies:
                winners[g] = K.CUT
                break
            x, k = draw(x, n)
            if pass_now:
                mover, player = player, 1 - player
            else:
                # the k-th move by origin, then destination: walk the origins in bit order
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
                            d = sdir[player, j]
                            break
                        k -= 1
                dest = shift(bit, d, bb_shift, bb_mask)
                taken = 1 if op & dest else 0
                me ^= bit | dest
                op &= ~dest
                sides[player], sides[1 - player] = me, op
                nxt = next_player_bits(turn, player, me, op, taken)
                if nxt == K.BAD_CODE:
                    winners[g] = K.BAD_CODE
                    break
                mover, player = player, nxt
            ply += 1
            plies += 1
        lengths[g] = plies


def playouts(tables, starts, first_game, seed, max_plies, lengths, winners) -> None:
    _playouts(starts, first_game, seed, max_plies, *tables, lengths, winners)
