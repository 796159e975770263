"""An exact solver for small games, inside the kernel: every position reachable from the start is
listed (breadth first, each once), then labelled by retrograde analysis, so a game whose positions
repeat (pieces that move, captures that remove) is solved as exactly as one that cannot.

A position is the state without its ply when no end reads the ply (the rest of the game depends on
the cells, the side to move and the mover alone), the whole state otherwise (`after N plies`).
Values are the side to move's: +1 it wins, 0 a draw, -1 it loses. A finished position is worth its
result. Then, over and over until nothing changes: a position with a move to a child worth -1 to
its side to move (or +1, when the turn order gives the mover another move: fewer pieces continue,
again after a capture) is won; one whose children are all known is worth the best of them. What is
still unknown then is a draw: from there neither side can force a result, and a game that never
ends is a draw. There is no cap on the plies: this is the game the rules describe.

The count of positions is the size of the game: how many distinct positions its rules can reach.
Past `budget` the listing stops and the game is not solved.
"""
import numpy as np

from . import codes as K
from .jit import kernel, leaf
from .positions import advance, new_work, status
from .program import unpack

SOLVED, ABORT = 0, 1  # what `retrograde` answers (or K.BAD_CODE for a code without a branch)
UNKNOWN = 2  # a value not yet known


@leaf
def _hash(state):
    """A 64-bit hash of a state (splitmix-style mixing of every value in turn), a uint64.

    state: int32[n_cells + 4] — a position (its ply 0 when no end reads it)
    """
    h = np.uint64(0x243F6A8885A308D3)
    for i in range(state.shape[0]):
        h = (h ^ np.uint64(state[i] + 2)) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
    return h


@leaf
def _same(a, b):
    """Whether two states hold the same values.

    a, b: int32[n_cells + 4] — positions (a row of the listed states, a new child)
    """
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


@leaf
def _outcome(won, player):
    """The value of a finished game for `player`."""
    if won == player:
        return 1
    if won == 1 - player:
        return -1
    return 0


@kernel
def _grown(a, rows):
    """`a` with room for at least `rows` rows along its first axis: itself if it has them, else a
    new array of a's dtype and row shape, twice as long at least, its first rows copied.

    a: int32[k, n_cells + 4] (the states) — by caller: also int8[k] (values, flip), int64[k]
        (first), int32[k] (child)
    -> out: int32[at least rows, n_cells + 4] — for the states; a's dtype and row shape for the others
    """
    if a.shape[0] >= rows:
        return a
    out = np.empty((max(rows, 2 * a.shape[0]),) + a.shape[1:], a.dtype)
    out[: a.shape[0]] = a
    return out


@kernel
def retrograde(start, budget, keep_ply, flat, bb_mask):
    """Solve the game from `start`: returns (SOLVED, ABORT past `budget` positions, or K.BAD_CODE;
    the positions listed; values, first, child, flip). Position 0 is `start`; position i's moves
    lead to child[first[i]:first[i + 1]]; a position with no child is finished.

    start: int32[n_cells + 4] — the initial position, read only; keep_ply: whether the ply counts
    flat: int32[n_packed] — the program's tables (program.pack)
    bb_mask: uint64[n_dirs] — the program's bit masks
    -> values: int8[positions] — each position's value for its side to move (+1, 0, -1)
    -> first: int64[positions + 1] — where each position's children begin in `child`
    -> child: int32[edges] — the position each move leads to
    -> flip: int8[edges] — +1 where the child's side to move is the parent's, -1 where it is the other
    """
    P = unpack(flat, bb_mask)
    size = P.game[K.G_CELLS]
    width = start.shape[0]
    work = new_work(P)
    states = np.empty((min(budget + 1, 1024), width), np.int32)
    slots = 1 << 10
    while slots < 2 * (budget + 1):
        slots <<= 1
    table = np.full(slots, -1, np.int32)  # position index by hash slot (linear probing)
    mask = np.uint64(slots - 1)
    values = np.empty(min(budget + 1, 1024), np.int8)
    first = np.zeros(min(budget + 2, 1025), np.int64)
    child = np.empty(4096, np.int32)
    flip = np.empty(4096, np.int8)
    cur = np.empty(width, np.int32)
    nxt = np.empty(width, np.int32)
    for i in range(width):
        states[0, i] = start[i]
    if not keep_ply:
        states[0, size + K.PLY] = 0
    table[np.int64(_hash(states[0]) & mask)] = 0
    count = 1
    edges = 0
    i = 0
    while i < count:
        for c in range(width):
            cur[c] = states[i, c]
        n, over, won = status(cur, P, work)
        if won == K.BAD_CODE:
            return K.BAD_CODE, count, values[:0], first[:0], child[:0], flip[:0]
        values = _grown(values, i + 1)
        first = _grown(first, i + 2)
        first[i] = edges
        if over:
            values[i] = _outcome(won, cur[size + K.TO_MOVE])
            first[i + 1] = edges
            i += 1
            continue
        values[i] = UNKNOWN
        child = _grown(child, edges + n)
        flip = _grown(flip, edges + n)
        for m in range(n):
            if advance(cur, nxt, True, work[4][m], work[2][m], work[3][m], P, work[1]) == K.BAD_CODE:
                return K.BAD_CODE, count, values[:0], first[:0], child[:0], flip[:0]
            if not keep_ply:
                nxt[size + K.PLY] = 0
            s = np.int64(_hash(nxt) & mask)
            while table[s] >= 0 and not _same(states[table[s]], nxt):
                s = (s + 1) & np.int64(mask)
            if table[s] < 0:  # a new position
                if count == budget:
                    return ABORT, count + 1, values[:0], first[:0], child[:0], flip[:0]
                states = _grown(states, count + 1)
                for c in range(width):
                    states[count, c] = nxt[c]
                table[s] = count
                count += 1
            child[edges] = table[s]
            flip[edges] = 1 if nxt[size + K.TO_MOVE] == cur[size + K.TO_MOVE] else -1
            edges += 1
        first[i + 1] = edges
        i += 1
    changed = True
    while changed:  # later positions first: a game without repetitions is settled in one pass
        changed = False
        for i in range(count - 1, -1, -1):
            if values[i] != UNKNOWN:
                continue
            best, known = -2, True
            for e in range(first[i], first[i + 1]):
                v = values[child[e]]
                if v == UNKNOWN:
                    known = False
                    continue
                v = flip[e] * v
                if v > best:
                    best = v
                    if best == 1:
                        break
            if best == 1 or known:
                values[i] = best
                changed = True
    for i in range(count):
        if values[i] == UNKNOWN:
            values[i] = 0  # neither side can force a result: play goes on for ever, a draw
    return SOLVED, count, values[:count], first[:count + 1], child[:edges], flip[:edges]
