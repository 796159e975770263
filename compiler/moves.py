"""Move generation on cells: every legal move of a player, in the legal order (docs/language.md,
"Moves"). One branch per move kind; `require capture` is decided by the effects (effects.py).

The order: placements (and clones) by cell, then piece moves by origin then destination, all
row-major; a move two rules allow is played by the first rule that allows it.
"""
import numpy as np

from . import codes as K
from .effects import cell_bits, custodial_exists, custodial_targets, play
from .jit import leaf


@leaf
def _candidates(cells, player, roll, nbr, rays, ray_len, rules, rule_dirs, dist, dist_n, rows, cols, msrc, mdst,
                mrule):
    """Every move the rules' kinds and targets allow `player` under `roll`, before effects decide
    legality, rule by rule; returns how many, or K.BAD_CODE for a move kind this has no branch for.
    (Hot loops call no helper that takes arrays: each array argument costs a reference count per call.)

    cells: int32[n_cells + 4] — the position, read; player: 0 or 1; roll: the roll moves are listed
        under (advance reads it: 0 gives none); rows, cols: the board's sides
    nbr: int32[n_dirs, n_cells] — the program's tables (program.FIELDS), each read as it says
    rays: int32[n_dirs, n_cells, L]
    ray_len: int32[n_dirs, n_cells]
    rules: int32[n_rules, R_COLS]
    rule_dirs: int32[n_rules, 2, n_dirs]
    dist: int32[n_rules, n_cells, M]
    dist_n: int32[n_rules, n_cells]
    msrc, mdst, mrule: int32[max_moves] — written: each candidate's origin (-1: a placement),
        destination and rule
    """
    size = rows * cols
    mine, foe = player + 1, 2 - player
    n = 0
    for r in range(rules.shape[0]):
        kind, target = rules[r, K.R_KIND], rules[r, K.R_TARGET]
        if kind == K.PLACE_EMPTY:
            for i in range(size):
                if cells[i] == 0:
                    msrc[n], mdst[n], mrule[n] = -1, i, r
                    n += 1
        elif kind == K.PLACE_GRAVITY:
            # The lowest empty cell of each column; a blocked cell does not exist, pieces fall past it.
            for c in range(cols):
                for row in range(rows - 1, -1, -1):
                    i = row * cols + c
                    if cells[i] == 0:
                        msrc[n], mdst[n], mrule[n] = -1, i, r
                        n += 1
                        break
        elif kind == K.PLACE_ADJACENT:
            for i in range(size):
                if cells[i] == 0:
                    for d in range(nbr.shape[0]):
                        j = nbr[d, i]
                        if j >= 0 and cells[j] == mine:
                            msrc[n], mdst[n], mrule[n] = -1, i, r
                            n += 1
                            break
        elif kind == K.CLONE:  # named by its cell: the parent does not matter
            for i in range(size):
                v = cells[i]
                if v == 0 and target != K.TARGET_ENEMY or v == foe and target != K.TARGET_EMPTY:
                    for k in range(dist_n[r, i]):
                        if cells[dist[r, i, k]] == mine:
                            msrc[n], mdst[n], mrule[n] = -1, i, r
                            n += 1
                            break
        elif kind == K.JUMP:
            for src in range(size):
                if cells[src] != mine:
                    continue
                for k in range(dist_n[r, src]):
                    dst = dist[r, src, k]
                    v = cells[dst]
                    if v == 0 and target != K.TARGET_ENEMY or v == foe and target != K.TARGET_EMPTY:
                        msrc[n], mdst[n], mrule[n] = src, dst, r
                        n += 1
        elif kind == K.STEP or kind == K.SLIDE:
            for src in range(size):
                if cells[src] != mine:
                    continue
                for d in range(nbr.shape[0]):
                    if rule_dirs[r, player, d] == 0:
                        continue
                    for k in range(ray_len[d, src] if kind == K.SLIDE else min(1, ray_len[d, src])):
                        # a step looks at the next cell; a slide goes over empty cells and stops
                        # at the first piece, blocked cell or edge
                        dst = rays[d, src, k]
                        v = cells[dst]
                        if v == 0 and target != K.TARGET_ENEMY or v == foe and target != K.TARGET_EMPTY:
                            msrc[n], mdst[n], mrule[n] = src, dst, r
                            n += 1
                        if v != 0:
                            break
        elif kind == K.ADVANCE:  # exactly `roll` cells along the ray, whatever lies between
            for src in range(size):
                if cells[src] != mine:
                    continue
                for d in range(nbr.shape[0]):
                    if rule_dirs[r, player, d] == 0 or not 1 <= roll <= ray_len[d, src]:
                        continue
                    dst = rays[d, src, roll - 1]
                    v = cells[dst]
                    if v == 0 and target != K.TARGET_ENEMY or v == foe and target != K.TARGET_EMPTY:
                        msrc[n], mdst[n], mrule[n] = src, dst, r
                        n += 1
        else:
            return K.BAD_CODE
    return n


@leaf
def _legal_unordered(cells, player, roll, P, scratch, buf, msrc, mdst, mrule):
    """The candidates that `require capture` allows, rule by rule; K.BAD_CODE as _candidates.

    cells: int32[n_cells + 4] — the position, read; roll: as _candidates
    P: Program — the stage's tables
    scratch: int32[n_cells + 4] — a board to play a candidate on (LEGAL_PLAY)
    buf: int32[n_dirs * L + 8] — scratch for the effects
    msrc, mdst, mrule: int32[max_moves] — written: the moves kept
    """
    rules, effects, effect_dirs, game = P.rules, P.effects, P.effect_dirs, P.game
    size = game[K.G_CELLS]
    n = _candidates(cells, player, roll, P.nbr, P.rays, P.ray_len, rules, P.rule_dirs, P.dist, P.dist_n, game[K.G_ROWS],
                    game[K.G_COLS], msrc, mdst, mrule)
    if n == K.BAD_CODE:
        return n
    # A custodial test on a small board is one bitboard per rule (candidates come rule by rule);
    # otherwise rays are walked per candidate.
    bitboard = game[K.G_BITBOARD] != 0
    targets = np.uint64(0)
    targets_of = -1
    kept = 0
    for k in range(n):
        r, src, dst = mrule[k], msrc[k], mdst[k]
        mode = rules[r, K.R_LEGALITY]
        if mode == K.LEGAL_CUSTODIAL:
            e = rules[r, K.R_CUSTODIAL]
            over_blocked = effects[r, e, K.FX_OVER_BLOCKED] != 0
            if bitboard:
                if targets_of != r:
                    me, op, empty, blocked = cell_bits(cells, player, size)
                    targets = custodial_targets(me, op, empty, blocked, effect_dirs[r, e, player], over_blocked,
                                                P.bb_shift, P.bb_mask, P.opposite)
                    targets_of = r
                if ((targets >> np.uint64(dst)) & np.uint64(1)) == 0:
                    continue
            elif not custodial_exists(cells, player + 1, 2 - player, dst, effect_dirs[r, e, player], over_blocked,
                                      P.rays, P.ray_len):
                continue
        elif mode == K.LEGAL_PLAY:
            for i in range(size):
                scratch[i] = cells[i]
            taken = play(scratch, player, r, src, dst, P.nbr, P.rays, P.ray_len, rules, effects, effect_dirs, buf)
            if taken == K.BAD_CODE:
                return K.BAD_CODE
            if taken == K.REFUSED:
                continue
        elif mode != K.LEGAL_ALWAYS:
            return K.BAD_CODE
        msrc[kept], mdst[kept], mrule[kept] = src, dst, r
        kept += 1
    return kept


@leaf
def legal_moves(cells, player, roll, P, scratch, buf, msrc, mdst, mrule):
    """Every legal move of `player` on `cells` under `roll` (passes aside), in the legal order, into
    msrc, mdst, mrule (origin -1 for a placement); returns how many, or K.BAD_CODE (see _candidates).

    cells: int32[n_cells + 4] — the position, read; player: 0 or 1; roll: as _candidates
    P: Program — the stage's tables
    scratch: int32[n_cells + 4] — a board to try a move on (positions.new_work's buffers)
    buf: int32[n_dirs * L + 8] — scratch for the effects
    msrc, mdst, mrule: int32[max_moves] — written: origins, destinations, rules
    """
    game = P.game
    n = _legal_unordered(cells, player, roll, P, scratch, buf, msrc, mdst, mrule)
    if game[K.G_SORT] == 0 or n < 2:
        return n
    size = game[K.G_CELLS]
    # Stable insertion sort on (origin, destination), origin -1 for placements: the lists are
    # short and nearly sorted, and stability keeps the first rule first among equal moves.
    for a in range(1, n):
        s, d, r = msrc[a], mdst[a], mrule[a]
        key = (s + 1) * (size + 1) + d
        b = a - 1
        while b >= 0 and (msrc[b] + 1) * (size + 1) + mdst[b] > key:
            msrc[b + 1], mdst[b + 1], mrule[b + 1] = msrc[b], mdst[b], mrule[b]
            b -= 1
        msrc[b + 1], mdst[b + 1], mrule[b + 1] = s, d, r
    if game[K.G_DEDUP] == 0:
        return n
    m = 1
    for a in range(1, n):
        if msrc[a] != msrc[m - 1] or mdst[a] != mdst[m - 1]:
            msrc[m], mdst[m], mrule[m] = msrc[a], mdst[a], mrule[a]
            m += 1
    return m
