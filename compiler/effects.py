"""Effects of a move: custodial flips and removals, conversion of adjacent pieces, `require
capture`, and playing a whole move with them (docs/language.md, "Effects").

Custodial capture comes in two forms, tested against each other (tests/test_forms.py): on cells
(walk each ray from the arrival cell) and on bitboards (boards of ≤ 64 cells without wrap: the
Othello family). Its legality test, "would a piece here close a run", also comes as both: a ray walk
for one cell, and a bitboard of every cell at once.

    . . . . .      a mover's piece arriving on `*` closes the run `o o` (east) with the mover's
    . * o o x      `x`: both are taken (flipped, or removed); with `over-blocked` a blocked cell
    . . . . .      inside the run is passed over instead of ending it.
"""
import numpy as np

from . import codes as K
from .bitboards import ONE, shift
from .jit import inline, kernel, leaf

# --- custodial, on cells --------------------------------------------------------------------------


@inline
def custodial_exists(cells, mine, foe, at, dirs, over_blocked, rays, ray_len):
    """Whether some ray from `at` holds ≥ 1 enemy piece closed by a mover's piece (no change made).

    cells: int32[n_cells + 3] — the position, read; mine, foe: the cell values of the two sides
    dirs: int32[n_dirs] — 1 for the effect's directions (effect_dirs[r, e, player])
    rays: int32[n_dirs, n_cells, L] — the program's rays
    ray_len: int32[n_dirs, n_cells] — how many cells each ray holds
    """
    for d in range(dirs.shape[0]):
        if dirs[d] == 0:
            continue
        run = 0
        for k in range(ray_len[d, at]):
            v = cells[rays[d, at, k]]
            if v == foe:
                run += 1
            elif v == mine:
                if run > 0:
                    return True
                break
            elif v == -1 and over_blocked:
                continue
            else:
                break
    return False


@inline
def custodial_collect(cells, mine, foe, at, dirs, over_blocked, rays, ray_len, buf):
    """The enemy pieces a custodial effect takes, into buf; returns how many (may repeat a cell
    on a tiny wrapped board: the caller changes each cell once).

    cells: int32[n_cells + 3] — the position, read; mine, foe: the cell values of the two sides
    dirs: int32[n_dirs] — 1 for the effect's directions
    rays: int32[n_dirs, n_cells, L] — the program's rays
    ray_len: int32[n_dirs, n_cells] — how many cells each ray holds
    buf: int32[n_dirs * L + 8] — written: the cells taken
    """
    m = 0
    for d in range(dirs.shape[0]):
        if dirs[d] == 0:
            continue
        start = m
        for k in range(ray_len[d, at]):
            j = rays[d, at, k]
            v = cells[j]
            if v == foe:
                buf[m] = j
                m += 1
            elif v == mine:
                start = m  # closed: keep the run
                break
            elif v == -1 and over_blocked:
                continue
            else:
                break
        m = start
    return m


# --- custodial, on bitboards ------------------------------------------------------------------------


@kernel
def custodial_targets(me, op, empty, blocked, dirs, over_blocked, bb_shift, bb_mask, opposite):
    """The bitboard of the empty cells where a piece of `me` would close a custodial run in one of
    `dirs`. For each direction d, runs are grown from the mover's pieces in the opposite direction,
    Kogge-Stone style; with over-blocked a run may cross blocked cells but must hold an enemy piece.

    me, op, empty, blocked: uint64 bitboards
    dirs: int32[n_dirs] — 1 for the effect's directions
    bb_shift: int32[n_dirs] — the bit shift of a step each way
    bb_mask: uint64[n_dirs] — the cells with a neighbour each way
    opposite: int32[n_dirs] — the opposite of each direction
    """
    targets = np.uint64(0)
    through = op | blocked if over_blocked else op
    for d in range(dirs.shape[0]):
        if dirs[d] == 0:
            continue
        e = opposite[d]
        run = shift(me, e, bb_shift, bb_mask) & through  # run cells k steps from a mover's piece
        with_op = run & op  # ... whose run so far holds an enemy piece
        while with_op != 0 or (over_blocked and run != 0):
            targets |= shift(with_op, e, bb_shift, bb_mask) & empty  # an empty cell closes the run
            nxt = shift(run, e, bb_shift, bb_mask)
            with_op = (shift(with_op, e, bb_shift, bb_mask) & through) | (nxt & op)
            run = nxt & through
    return targets


@kernel
def custodial_taken(me, op, blocked, at, dirs, over_blocked, bb_shift, bb_mask):
    """custodial_collect on bitboards: the enemy pieces a piece arriving on `at` takes (a uint64).

    me, op, blocked: uint64 bitboards; at: the cell
    dirs: int32[n_dirs] — 1 for the effect's directions
    bb_shift: int32[n_dirs] — the bit shift of a step each way
    bb_mask: uint64[n_dirs] — the cells with a neighbour each way
    """
    taken = np.uint64(0)
    for d in range(dirs.shape[0]):
        if dirs[d] == 0:
            continue
        run = np.uint64(0)
        x = shift(ONE << np.uint64(at), d, bb_shift, bb_mask)
        while x != 0:
            if x & op:
                run |= x
            elif not (over_blocked and (x & blocked)):
                break
            x = shift(x, d, bb_shift, bb_mask)
        if x & me:
            taken |= run
    return taken


@leaf
def cell_bits(cells, player, size):
    """(mover's pieces, enemy pieces, empty cells, blocked cells) of a board, as uint64 bitboards.

    cells: int32[n_cells + 3] — the position, read; size: n_cells (≤ 64)
    """
    me, op, empty, blocked = np.uint64(0), np.uint64(0), np.uint64(0), np.uint64(0)
    for i in range(size):
        v = cells[i]
        bit = ONE << np.uint64(i)
        if v == player + 1:
            me |= bit
        elif v == 2 - player:
            op |= bit
        elif v == 0:
            empty |= bit
        else:
            blocked |= bit
    return me, op, empty, blocked


# --- a whole move ---------------------------------------------------------------------------------


@inline
def leaves_origin(kind):
    """Whether a move of this kind takes its piece off its origin (1), adds a new piece (0), or is
    a kind this has no branch for (K.BAD_CODE)."""
    if kind == K.STEP or kind == K.SLIDE or kind == K.JUMP:
        return 1
    if kind == K.PLACE_EMPTY or kind == K.PLACE_GRAVITY or kind == K.PLACE_ADJACENT or kind == K.CLONE:
        return 0
    return K.BAD_CODE


@leaf
def play(out, player, r, src, dst, nbr, rays, ray_len, rules, effects, effect_dirs, buf):
    """Play rule r's move src→dst for `player` on the board `out`, in place. Returns the pieces
    taken, K.REFUSED if `require capture` refuses the move (`out` is then half-played: discard it),
    or K.BAD_CODE for a move kind or effect this has no branch for.

    out: int32[n_cells + 3] — the position, changed in place
    nbr: int32[n_dirs, n_cells] — the program's tables (program.FIELDS)
    rays: int32[n_dirs, n_cells, L]
    ray_len: int32[n_dirs, n_cells]
    rules: int32[n_rules, R_COLS]
    effects: int32[n_rules, E, FX_COLS]
    effect_dirs: int32[n_rules, E, 2, n_dirs]
    buf: int32[n_dirs * L + 8] — scratch: the cells an effect takes
    """
    mine, foe = player + 1, 2 - player
    leaves = leaves_origin(rules[r, K.R_KIND])
    if leaves == K.BAD_CODE:
        return K.BAD_CODE
    taken = 1 if out[dst] == foe else 0  # the capture on arrival
    if leaves:
        out[src] = 0
    out[dst] = mine
    for e in range(rules[r, K.R_N_EFFECTS]):
        kind = effects[r, e, K.FX_KIND]
        dirs = effect_dirs[r, e, player]
        if kind == K.REQUIRE:
            if taken == 0:
                return K.REFUSED
            continue
        if kind == K.CONVERT:
            m = 0
            for d in range(dirs.shape[0]):
                j = nbr[d, dst]
                if dirs[d] != 0 and j >= 0 and out[j] == foe:
                    buf[m] = j
                    m += 1
            to = mine
        elif kind == K.FLIP or kind == K.REMOVE:
            m = custodial_collect(out, mine, foe, dst, dirs, effects[r, e, K.FX_OVER_BLOCKED] != 0, rays, ray_len,
                                  buf)
            to = mine if kind == K.FLIP else 0
        else:
            return K.BAD_CODE
        for k in range(m):
            if out[buf[k]] == foe:
                out[buf[k]] = to
                taken += 1
    return taken
