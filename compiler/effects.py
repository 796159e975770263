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
from .bitboards import ONE, shift, step
from .jit import inline, kernel, leaf

# --- custodial, on cells --------------------------------------------------------------------------


@inline
def custodial_exists(cells, mine, foe, at, dirs, over_blocked, rays, ray_len):
    """Whether some ray from `at` holds ≥ 1 enemy piece closed by a mover's piece (no change made).

    cells: int32[n_cells + 4] — the position, read; mine, foe: the cell values of the two sides
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

    cells: int32[n_cells + 4] — the position, read; mine, foe: the cell values of the two sides
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

# Every run is first grown _UNROLLED steps in every direction at once: straight code, which LLVM
# unrolls and turns into vector instructions across the directions (a loop that stops with each
# run mispredicts a branch per direction: measured 90 ns a legality test of standard Othello,
# against 8 ns). That reaches the runs of up to 6 pieces of a board 8 cells wide; a run still
# growing then (a longer line) has the directions grown on, one by one, until every run stops.
_UNROLLED = 5


@inline
def _grow(run, with_op, op, through, steps, d):
    """One more step of a custodial run grown through `through`: the cells reached (`run`) and those
    reached with an enemy piece on the way (`with_op`), each accumulated (uint64 bitboards).

    steps: uint64[3, n_dirs] — the step table the run grows by (bitboards.step_table)
    """
    nxt = step(run, steps, d)
    return run | (nxt & through), with_op | (step(with_op, steps, d) & through) | (nxt & op)


@kernel
def custodial_targets_stepped(me, op, empty, blocked, over_blocked, back):
    """custodial_targets with the step table of the effect's directions, `back`wards
    (bitboards.step_table).

    me, op, empty, blocked: uint64 bitboards
    back: uint64[3, n_dirs] — the step table of the effect's directions, reversed
    """
    through = op | blocked if over_blocked else op
    targets = growing = np.uint64(0)
    for d in range(back.shape[1]):
        run = step(me, back, d) & through  # run cells k steps from a mover's piece, k = 1, 2...
        with_op = run & op  # ... whose run holds an enemy piece
        for _ in range(_UNROLLED):
            run, with_op = _grow(run, with_op, op, through, back, d)
        growing |= step(run, back, d) & through & ~run
        targets |= step(with_op, back, d) & empty  # an empty cell closes the run
    if growing == 0:
        return targets
    for d in range(back.shape[1]):  # a line longer than 8 cells
        run = step(me, back, d) & through
        with_op = run & op
        while True:
            longer, with_op = _grow(run, with_op, op, through, back, d)
            if longer == run:
                break
            run = longer
        targets |= step(with_op, back, d) & empty
    return targets


@kernel
def custodial_taken_stepped(me, op, blocked, at, over_blocked, steps):
    """custodial_taken with the step table of the effect's directions (bitboards.step_table).

    me, op, blocked: uint64 bitboards; at: the arrival cell
    steps: uint64[3, n_dirs] — the step table of the effect's directions
    """
    through = op | blocked if over_blocked else op
    taken = growing = np.uint64(0)
    start = ONE << np.uint64(at)
    for d in range(steps.shape[1]):
        run = step(start, steps, d) & through  # the cells walked from `at`
        for _ in range(_UNROLLED):
            run |= step(run, steps, d) & through
        end = step(run, steps, d)  # the cell just past the run
        growing |= end & through & ~run
        if end & me:
            taken |= run & op
    if growing == 0:
        return taken
    taken = np.uint64(0)
    for d in range(steps.shape[1]):  # a line longer than 8 cells
        run = step(start, steps, d) & through
        while True:
            longer = run | (step(run, steps, d) & through)
            if longer == run:
                break
            run = longer
        if step(run, steps, d) & me:
            taken |= run & op
    return taken


@kernel
def custodial_targets(me, op, empty, blocked, dirs, over_blocked, bb_shift, bb_mask, opposite):
    """The bitboard of the empty cells where a piece of `me` would close a custodial run in one of
    `dirs`: runs are grown from the mover's pieces in the opposite direction, Kogge-Stone style;
    with over-blocked a run may cross blocked cells but must hold an enemy piece. It allocates no
    step table: leaves call it, and a leaf runs without numba's runtime (jit.py). The Othello family
    keeps its step tables and calls custodial_targets_stepped, four to five times faster.

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
    """custodial_collect on bitboards: the enemy pieces a piece arriving on `at` takes (a uint64);
    like custodial_targets, without a step table (custodial_taken_stepped has one).

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

    cells: int32[n_cells + 4] — the position, read; size: n_cells (≤ 64)
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
    if kind == K.STEP or kind == K.SLIDE or kind == K.JUMP or kind == K.ADVANCE:
        return 1
    if kind == K.PLACE_EMPTY or kind == K.PLACE_GRAVITY or kind == K.PLACE_ADJACENT or kind == K.CLONE:
        return 0
    return K.BAD_CODE


@leaf
def play(out, player, r, src, dst, nbr, rays, ray_len, rules, effects, effect_dirs, buf):
    """Play rule r's move src→dst for `player` on the board `out`, in place. Returns the pieces
    taken, K.REFUSED if `require capture` refuses the move (`out` is then half-played: discard it),
    or K.BAD_CODE for a move kind or effect this has no branch for.

    out: int32[n_cells + 4] — the position, changed in place
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
