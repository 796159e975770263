"""A position's moves and outcome, and the position after a move, on cells: the generic form of
the game, which every stage can take and every family is held to (same moves, same games)."""
import numpy as np

from . import codes as K
from .effects import play
from .ends import count, first_end_cells
from .jit import inline, kernel, leaf
from .moves import legal_moves
from .turns import next_player, uses_counts


@inline
def misfit(state, width, highest):
    """Whether `state` breaks the layout of a state `width` int32 long (codes.py): another length, a
    cell that is not -1, 0, 1 or 2, a side to move or mover that is not 0 or 1, a negative ply, a roll
    the stage's dice cannot throw (above `highest`, their largest total; 0 without dice). The
    kernels index tables by these values without bounds checks, so a state that did not come from
    the game itself is checked once, where its moves are first listed (every `step`, on a state it
    has not described before) or before a batch (`first_misfit`).

    state: int32[any] — an array from outside, read; width: a state's length, n_cells + 4; highest:
        the largest roll (0: no dice)
    """
    if state.shape[0] != width:
        return True
    size = width - K.STATE_EXTRA
    for i in range(size):
        if state[i] < -1 or state[i] > 2:
            return True
    return not (0 <= state[size + K.TO_MOVE] <= 1 and 0 <= state[size + K.MOVER] <= 1 and state[size + K.PLY] >= 0
                and 0 <= state[size + K.ROLL] <= highest)


@kernel
def first_misfit(states, width, highest):
    """The index of the first row of `states` that misfit() refuses, or -1.

    states: int32[m, any] — the rows to check, read; width: a state's length, n_cells + 4; highest:
        the largest roll (misfit)
    """
    for r in range(states.shape[0]):
        if misfit(states[r], width, highest):
            return r
    return -1


@kernel
def new_work(P):
    """Scratch buffers for one thread (a `work` tuple, read by status and legal_moves).

    P: Program — the stage's tables
    -> scratch: int32[n_cells + 4] — a board to play a move on (`require capture`)
    -> buf: int32[n_dirs * L + 8] — the cells an effect takes
    -> msrc, mdst, mrule: int32[max_moves] — the legal moves: origins, destinations, rules
    -> stack, seen: int32[n_cells + 1] — a connection's search
    """
    size, moves = P.game[K.G_CELLS], P.game[K.G_MAX_MOVES]
    return (np.empty(size + K.STATE_EXTRA, np.int32), np.empty(P.rays.shape[0] * P.rays.shape[2] + 8, np.int32),
            np.empty(moves, np.int32), np.empty(moves, np.int32), np.empty(moves, np.int32),
            np.empty(size + 1, np.int32), np.empty(size + 1, np.int32))


@leaf
def status(state, P, work):
    """Moves and outcome of a position: returns (n_moves, over, winner) and leaves the legal moves
    in work's move lists (a forced pass is the single move (-1, -1, rule -1)); winner is 0, 1, -1
    (a draw, or a game still going) or K.BAD_CODE (the game is then over: a code without a branch).

    state: int32[n_cells + 4] — the position, read
    P: Program — the stage's tables
    work: tuple — new_work's buffers; its move lists are written
    """
    scratch, buf, msrc, mdst, mrule, stack, seen = work
    game, ends = P.game, P.ends
    size = game[K.G_CELLS]
    player = state[size + K.TO_MOVE]
    n = legal_moves(state, player, state[size + K.ROLL], P, scratch, buf, msrc, mdst, mrule)
    if n == 0 and game[K.G_PASS] != 0:
        # the other side could move under some roll (its own is not thrown yet; 0 without dice)
        dice = game[K.G_DICE]
        other = 0
        for roll in range(dice, dice * game[K.G_FACES] + 1):
            other = legal_moves(state, np.int32(1 - player), np.int32(roll), P, scratch, buf, msrc, mdst, mrule)
            if other != 0:
                break
        if other > 0:
            msrc[0], mdst[0], mrule[0] = -1, -1, -1
            n = 1
        elif other == K.BAD_CODE:
            n = K.BAD_CODE
    if n == K.BAD_CODE:
        return 0, True, K.BAD_CODE
    over, won = first_end_cells(ends, n, state[size + K.MOVER], (state, stack, seen), P)
    if over:
        return 0, True, won
    return n, False, K.NONE


@leaf
def advance(state, out, copy, r, src, dst, P, buf):
    """`out` becomes the position after rule r's move src→dst (r = -1: a pass) by the side to
    move of `state`; with copy False, out is state itself and changes in place. Returns the
    pieces taken, K.REFUSED if the move was refused, K.BAD_CODE for a code without a branch.

    state: int32[n_cells + 4] — the position, read
    out: int32[n_cells + 4] — written (`state` itself when copy is False)
    P: Program — the stage's tables
    buf: int32[n_dirs * L + 8] — scratch for the effects (new_work's `buf`)
    """
    game = P.game
    size = game[K.G_CELLS]
    player = state[size + K.TO_MOVE]
    ply = state[size + K.PLY]
    if copy:  # a loop: a slice copy would need numba's runtime (a leaf has none)
        for i in range(size):
            out[i] = state[i]
    if r < 0:
        taken = 0
        nxt = 1 - player
    else:
        taken = play(out, player, r, src, dst, P.nbr, P.rays, P.ray_len, P.rules, P.effects, P.effect_dirs, buf)
        if taken < 0:
            return taken
        turn = game[K.G_TURN]
        mine = theirs = 0
        if uses_counts(turn):
            mine, theirs = count(out, size, player + 1), count(out, size, 2 - player)
        nxt = next_player(turn, player, mine, theirs, taken)
        if nxt == K.BAD_CODE:
            return K.BAD_CODE
    out[size + K.TO_MOVE] = nxt
    out[size + K.MOVER] = player
    out[size + K.PLY] = ply + 1
    out[size + K.ROLL] = 0  # not thrown yet: its thrower sets it (calls.py)
    return taken
