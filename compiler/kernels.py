"""The numba kernels: move generation, play, turn order, ends, random playouts and perft.

Every kernel takes only numpy arrays and scalars, never raises, and writes into buffers it is
given or allocates. Rule *structure* arrives as small integer codes in the program tables
(compiler/program.py), rule *parameters* as data, so one compilation serves every stage: a new
variant, or a new game, costs no compilation at all.

State: int32[n_cells + 3]: the cells row-major (-1 blocked, 0 empty, 1 first player's piece,
2 second's), then the side to move, the mover (who made the last move or pass) and the ply.

The program `P` is a tuple of 19 arrays, in this order (program.py makes them):
    0 nbr      int32[n_dirs, n]             neighbour in direction d, -1 off the board
    1 rays     int32[n_dirs, n, L]          cells walked from i in direction d
    2 ray_len  int32[n_dirs, n]
    3 lines    int32[n_lines, L]            every line of the board along every axis
    4 line_len int32[n_lines]; 5 line_cyclic int32[n_lines]
    6 rules    int32[n_rules, R_COLS]       kind, target, n_effects, legality mode, custodial effect
    7 rdirs    int32[n_rules, 2, n_dirs]    directions of a step/slide rule, per player
    8 effects  int32[n_rules, E, 2]         effect kind, over-blocked
    9 edirs    int32[n_rules, E, 2, n_dirs] directions of each effect, per player
    10 dist    int32[n_rules, n, M]         cells at the rule's jump/clone distance from a cell
    11 dist_n  int32[n_rules, n]
    12 ends    int32[n_ends, 4]             condition, parameter, exact, result
    13 game    int32[9]                     n_cells, rows, cols, turn order, pass forced, max moves,
                                            whether generated moves need sorting, de-duplicating,
                                            whether bitboards apply (≤ 64 cells, no wrap)
    14 regions int32[n_regions, n]          far rows (one per player), then connect sides
    15 orth    int32[n_dirs]                the orthogonal directions (connect)
    16 bbshift int32[n_dirs]                bit shift of a step in direction d (bitboard boards)
    17 bbmask  uint64[n_dirs]               the cells that have a neighbour in direction d
    18 bbopp   int32[n_dirs]                the opposite direction
From Python the int32 tables travel packed in one flat array (program.pack, unpack below).

Three families also play their random games as straight code, the very games these kernels play
for a seed: the Othello family on bitboards (bitboard.py), pure placement games (placement.py) and
stepping-piece games such as Breakthrough on bitboards (pieces.py).
"""
from __future__ import annotations

import numpy as np
from numba import njit

# --- codes shared with program.py -------------------------------------------------------------

PLACE_EMPTY, PLACE_GRAVITY, PLACE_ADJACENT, STEP, SLIDE, JUMP, CLONE = range(7)
TARGET_EMPTY, TARGET_ENEMY, TARGET_ANY = range(3)
FLIP, REMOVE, CONVERT, REQUIRE = range(4)
LEGAL_ALWAYS, LEGAL_CUSTODIAL, LEGAL_PLAY = range(3)  # how a rule's `require capture` is decided
NO_MOVES, BOARD_FULL, LINE, REACH_FAR_ROW, CONNECT, NO_PIECES, AFTER_PLIES = range(7)
MOVER_WINS, MOVER_LOSES, MOST_PIECES, FEWEST_PIECES, DRAW = range(5)
ALTERNATE, FEWER_PIECES, AGAIN_AFTER_CAPTURE = range(3)

R_KIND, R_TARGET, R_N_EFFECTS, R_LEGALITY, R_CUSTODIAL = range(5)
R_COLS = 5
G_CELLS, G_ROWS, G_COLS, G_TURN, G_PASS, G_MAX_MOVES, G_SORT, G_DEDUP, G_BITBOARD = range(9)
TO_MOVE, MOVER, PLY = 0, 1, 2  # offsets after the cells
NONE = -1  # no winner (a draw), no cell, no rule (a pass)

_OPTS = dict(cache=True, nogil=True, boundscheck=False)
# Small helpers that run once per cell or per candidate are inlined into their callers.
_INLINE = dict(_OPTS, inline="always")


# --- move generation --------------------------------------------------------------------------


@njit(**_INLINE)
def _custodial_exists(cells, mine, foe, at, dirs, over_blocked, rays, ray_len):
    """Whether some ray from `at` holds ≥ 1 enemy piece closed by a mover's piece (no change made)."""
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


@njit(**_INLINE)
def _custodial_collect(cells, mine, foe, at, dirs, over_blocked, rays, ray_len, buf):
    """The enemy pieces a custodial effect takes, into buf; returns how many (may repeat a cell
    on a tiny wrapped board: the caller changes each cell once)."""
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


@njit(**_OPTS)
def play(out, player, r, src, dst, nbr, rays, ray_len, rules, effects, edirs, buf):
    """Play rule r's move src→dst for `player` on the board `out`, in place. Returns the pieces
    taken, or -1 if `require capture` refuses the move (`out` is then half-played: discard it)."""
    mine, foe = player + 1, 2 - player
    kind = rules[r, R_KIND]
    taken = 1 if out[dst] == foe else 0
    if kind == STEP or kind == SLIDE or kind == JUMP:
        out[src] = 0
    out[dst] = mine
    for e in range(rules[r, R_N_EFFECTS]):
        ek = effects[r, e, 0]
        dirs = edirs[r, e, player]
        if ek == REQUIRE:
            if taken == 0:
                return -1
            continue
        if ek == CONVERT:
            m = 0
            for d in range(dirs.shape[0]):
                j = nbr[d, dst]
                if dirs[d] != 0 and j >= 0 and out[j] == foe:
                    buf[m] = j
                    m += 1
            to = mine
        else:
            m = _custodial_collect(out, mine, foe, dst, dirs, effects[r, e, 1] != 0, rays, ray_len, buf)
            to = mine if ek == FLIP else 0
        for k in range(m):
            if out[buf[k]] == foe:
                out[buf[k]] = to
                taken += 1
    return taken


@njit(**_OPTS)
def _candidates(cells, player, nbr, rays, ray_len, rules, rdirs, dist, dist_n, rows, cols, msrc, mdst, mrule):
    """Every move the rules' kinds and targets allow `player`, before effects decide legality,
    rule by rule; returns how many. (Hot loops call no helper that takes arrays: each array
    argument costs a reference count per call.)"""
    size = rows * cols
    mine, foe = player + 1, 2 - player
    n = 0
    for r in range(rules.shape[0]):
        kind, target = rules[r, R_KIND], rules[r, R_TARGET]
        if kind == PLACE_EMPTY:
            for i in range(size):
                if cells[i] == 0:
                    msrc[n], mdst[n], mrule[n] = -1, i, r
                    n += 1
        elif kind == PLACE_GRAVITY:
            # The lowest empty cell of each column; a blocked cell does not exist, pieces fall past it.
            for c in range(cols):
                for row in range(rows - 1, -1, -1):
                    i = row * cols + c
                    if cells[i] == 0:
                        msrc[n], mdst[n], mrule[n] = -1, i, r
                        n += 1
                        break
        elif kind == PLACE_ADJACENT:
            for i in range(size):
                if cells[i] == 0:
                    for d in range(nbr.shape[0]):
                        j = nbr[d, i]
                        if j >= 0 and cells[j] == mine:
                            msrc[n], mdst[n], mrule[n] = -1, i, r
                            n += 1
                            break
        elif kind == CLONE:  # named by its cell: the parent does not matter
            for i in range(size):
                v = cells[i]
                if v == 0 and target != TARGET_ENEMY or v == foe and target != TARGET_EMPTY:
                    for k in range(dist_n[r, i]):
                        if cells[dist[r, i, k]] == mine:
                            msrc[n], mdst[n], mrule[n] = -1, i, r
                            n += 1
                            break
        else:
            for src in range(size):
                if cells[src] != mine:
                    continue
                if kind == JUMP:
                    for k in range(dist_n[r, src]):
                        dst = dist[r, src, k]
                        v = cells[dst]
                        if v == 0 and target != TARGET_ENEMY or v == foe and target != TARGET_EMPTY:
                            msrc[n], mdst[n], mrule[n] = src, dst, r
                            n += 1
                    continue
                for d in range(nbr.shape[0]):
                    if rdirs[r, player, d] == 0:
                        continue
                    for k in range(ray_len[d, src] if kind == SLIDE else min(1, ray_len[d, src])):
                        # a step looks at the next cell; a slide goes over empty cells and stops
                        # at the first piece, blocked cell or edge
                        dst = rays[d, src, k]
                        v = cells[dst]
                        if v == 0 and target != TARGET_ENEMY or v == foe and target != TARGET_EMPTY:
                            msrc[n], mdst[n], mrule[n] = src, dst, r
                            n += 1
                        if v != 0:
                            break
    return n


@njit(**_INLINE)
def _shift(b, e, bbshift, bbmask):
    """Every bit i of bitboard b moved to its neighbour in direction e (off the board: dropped)."""
    s = bbshift[e]
    b &= bbmask[e]
    return b << np.uint64(s) if s > 0 else b >> np.uint64(-s)


@njit(**_OPTS)
def _custodial_targets(cells, player, dirs, over_blocked, size, bbshift, bbmask, bbopp):
    """Bitboard of the empty cells where a piece would close a custodial run in one of `dirs`
    (boards of at most 64 cells without wrap). For each direction d, runs are grown from the
    mover's pieces in the opposite direction, Kogge-Stone style; with over-blocked a run may
    cross blocked cells but must hold at least one enemy piece."""
    me = np.uint64(0)
    op = np.uint64(0)
    blocked = np.uint64(0)
    empty = np.uint64(0)
    for i in range(size):
        v = cells[i]
        bit = np.uint64(1) << np.uint64(i)
        if v == player + 1:
            me |= bit
        elif v == 2 - player:
            op |= bit
        elif v == 0:
            empty |= bit
        else:
            blocked |= bit
    return custodial_bits(me, op, empty, blocked, dirs, over_blocked, bbshift, bbmask, bbopp)


@njit(**_OPTS)
def custodial_bits(me, op, empty, blocked, dirs, over_blocked, bbshift, bbmask, bbopp):
    """The bitboard of `_custodial_targets`, from the sides' bitboards."""
    targets = np.uint64(0)
    through = op | blocked if over_blocked else op
    for d in range(dirs.shape[0]):
        if dirs[d] == 0:
            continue
        e = bbopp[d]
        run = _shift(me, e, bbshift, bbmask) & through  # run cells k steps from a mover's piece
        with_op = run & op  # ... whose run so far holds an enemy piece
        while with_op != 0 or (over_blocked and run != 0):
            targets |= _shift(with_op, e, bbshift, bbmask) & empty  # an empty cell closes the run
            nxt = _shift(run, e, bbshift, bbmask)
            with_op = (_shift(with_op, e, bbshift, bbmask) & through) | (nxt & op)
            run = nxt & through
    return targets


@njit(**_OPTS)
def _generate_unordered(cells, player, P, scratch, buf, msrc, mdst, mrule):
    nbr, rays, ray_len, rules, effects, edirs, game = P[0], P[1], P[2], P[6], P[8], P[9], P[13]
    size = game[G_CELLS]
    n = _candidates(cells, player, nbr, rays, ray_len, rules, P[7], P[10], P[11], game[G_ROWS], game[G_COLS],
                    msrc, mdst, mrule)
    # Keep the candidates that `require capture` allows. A custodial test on a small board is
    # one bitboard per rule (candidates come rule by rule); otherwise rays are walked per candidate.
    bitboard = game[G_BITBOARD] != 0
    targets = np.uint64(0)
    targets_of = -1
    kept = 0
    for k in range(n):
        r, src, dst = mrule[k], msrc[k], mdst[k]
        mode = rules[r, R_LEGALITY]
        if mode == LEGAL_CUSTODIAL:
            if bitboard:
                if targets_of != r:
                    e = rules[r, R_CUSTODIAL]
                    targets = _custodial_targets(cells, player, edirs[r, e, player], effects[r, e, 1] != 0, size,
                                                 P[16], P[17], P[18])
                    targets_of = r
                if ((targets >> np.uint64(dst)) & np.uint64(1)) == 0:
                    continue
            else:
                e = rules[r, R_CUSTODIAL]
                if not _custodial_exists(cells, player + 1, 2 - player, dst, edirs[r, e, player],
                                         effects[r, e, 1] != 0, rays, ray_len):
                    continue
        elif mode == LEGAL_PLAY:
            scratch[:size] = cells[:size]
            if play(scratch, player, r, src, dst, nbr, rays, ray_len, rules, effects, edirs, buf) < 0:
                continue
        msrc[kept], mdst[kept], mrule[kept] = src, dst, r
        kept += 1
    return kept


@njit(**_OPTS)
def generate(cells, player, P, scratch, buf, msrc, mdst, mrule):
    """Every legal move of `player` on `cells` (passes aside), in the legal order: placements
    (and clones) by cell, then piece moves by origin then destination, all row-major; a move two
    rules allow is played by the first rule that allows it. Fills msrc, mdst, mrule; returns how
    many."""
    game = P[13]
    n = _generate_unordered(cells, player, P, scratch, buf, msrc, mdst, mrule)
    if game[G_SORT] == 0 or n < 2:
        return n
    size = game[G_CELLS]
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
    if game[G_DEDUP] == 0:
        return n
    m = 1
    for a in range(1, n):
        if msrc[a] != msrc[m - 1] or mdst[a] != mdst[m - 1]:
            msrc[m], mdst[m], mrule[m] = msrc[a], mdst[a], mrule[a]
            m += 1
    return m


# --- ends -------------------------------------------------------------------------------------


@njit(**_INLINE)
def _count(cells, size, v):
    c = 0
    for i in range(size):
        if cells[i] == v:
            c += 1
    return c


@njit(**_OPTS)
def _has_line(cells, mine, k, exact, lines, line_len, line_cyclic):
    """Whether the mover has k in a row (a maximal run of exactly k with `exact`). A ring (a line
    of a wrapped board) is read from just after a cell that breaks the runs, so a run over the
    seam counts whole; a ring of nothing but the mover's pieces is one run of its length."""
    for l in range(lines.shape[0]):
        length = line_len[l]
        start = 0
        if line_cyclic[l] != 0:
            start = -1
            for t in range(length):
                if cells[lines[l, t]] != mine:
                    start = t + 1
                    break
            if start < 0:  # the whole ring
                if length == k or (length > k and not exact):
                    return True
                continue
        run = 0
        for t in range(length + 1):
            if t < length and cells[lines[l, (start + t) % length]] == mine:
                run += 1
                continue
            if run == k or (run > k and not exact):
                return True
            run = 0
    return False


@njit(**_OPTS)
def _connects(cells, mine, start, goal, nbr, orth, size, stack, seen):
    """Whether the mover's pieces join two sides (regions), stepping orthogonally."""
    top = 0
    for i in range(size):
        seen[i] = 0
    for i in range(size):
        if start[i] != 0 and cells[i] == mine:
            seen[i] = 1
            stack[top] = i
            top += 1
    while top > 0:
        top -= 1
        i = stack[top]
        if goal[i] != 0:
            return True
        for d in range(nbr.shape[0]):
            j = nbr[d, i]
            if orth[d] != 0 and j >= 0 and seen[j] == 0 and cells[j] == mine:
                seen[j] = 1
                stack[top] = j
                top += 1
    return False


@njit(**_OPTS)
def _holds(state, cond, param, exact, available, size, nbr, lines, line_len, line_cyclic, regions, orth,
           stack, seen):
    mover = state[size + MOVER]
    if cond == NO_MOVES:
        return available == 0
    if cond == BOARD_FULL:
        return _count(state, size, 0) == 0
    if cond == LINE:
        return _has_line(state, mover + 1, param, exact != 0, lines, line_len, line_cyclic)
    if cond == REACH_FAR_ROW:
        far = regions[mover]
        for i in range(size):
            if far[i] != 0 and state[i] == mover + 1:
                return True
        return False
    if cond == CONNECT:
        return _connects(state, mover + 1, regions[param + 2 * mover], regions[param + 2 * mover + 1],
                         nbr, orth, size, stack, seen)
    if cond == NO_PIECES:
        return _count(state, size, state[size + TO_MOVE] + 1) == 0
    return state[size + PLY] >= param  # AFTER_PLIES


@njit(**_INLINE)
def _winner(state, result, size):
    mover = state[size + MOVER]
    if result == MOVER_WINS:
        return mover
    if result == MOVER_LOSES:
        return 1 - mover
    if result == DRAW:
        return NONE
    first, second = _count(state, size, 1), _count(state, size, 2)
    if first == second:
        return NONE
    more = 0 if first > second else 1
    return more if result == MOST_PIECES else 1 - more


# --- positions --------------------------------------------------------------------------------


@njit(**_OPTS)
def new_work(P):
    """Scratch buffers for one thread: (scratch board, effect buffer, move lists ×3, stack, seen)."""
    game = P[13]
    size, moves = game[G_CELLS], game[G_MAX_MOVES]
    rays = P[1]
    return (np.empty(size + 3, np.int32), np.empty(rays.shape[0] * rays.shape[2] + 8, np.int32), np.empty(moves, np.int32),
            np.empty(moves, np.int32), np.empty(moves, np.int32), np.empty(size + 1, np.int32),
            np.empty(size + 1, np.int32))


@njit(**_OPTS)
def status(state, P, work):
    """Moves and outcome of a position: returns (n_moves, over, winner) and leaves the legal moves
    in work's move lists (a forced pass is the single move (-1, -1, rule -1)); winner is 0, 1 or
    -1 (a draw, or a game still going)."""
    scratch, buf, msrc, mdst, mrule, stack, seen = work
    game, ends = P[13], P[12]
    size = game[G_CELLS]
    player = state[size + TO_MOVE]
    n = generate(state, player, P, scratch, buf, msrc, mdst, mrule)
    if n == 0 and game[G_PASS] != 0:
        if generate(state, np.int32(1 - player), P, scratch, buf, msrc, mdst, mrule) > 0:
            msrc[0], mdst[0], mrule[0] = -1, -1, -1
            n = 1
        else:
            n = 0
    for e in range(ends.shape[0]):
        cond = ends[e, 0]
        if cond == NO_MOVES:  # the common case, decided here without a call
            holds = n == 0
        elif cond == AFTER_PLIES:
            holds = state[size + PLY] >= ends[e, 1]
        else:
            holds = _holds(state, cond, ends[e, 1], ends[e, 2], n, size, P[0], P[3], P[4], P[5], P[14], P[15],
                           stack, seen)
        if holds:
            return 0, True, _winner(state, ends[e, 3], size)
    if n == 0:  # nobody decided, and the side to move cannot move: a draw
        return 0, True, NONE
    return n, False, NONE


@njit(**_OPTS)
def advance(state, out, copy, r, src, dst, P, buf):
    """`out` becomes the position after rule r's move src→dst (r = -1: a pass) by the side to
    move of `state`; with copy False, out is state itself and changes in place. Returns the
    pieces taken (-1 if the move was refused)."""
    game = P[13]
    size = game[G_CELLS]
    player = state[size + TO_MOVE]
    ply = state[size + PLY]
    if copy:
        out[:size] = state[:size]
    if r < 0:
        taken = 0
        nxt = 1 - player
    else:
        taken = play(out, player, r, src, dst, P[0], P[1], P[2], P[6], P[8], P[9], buf)
        if taken < 0:
            return -1
        turn = game[G_TURN]
        if turn == FEWER_PIECES:
            nxt = player if _count(out, size, player + 1) < _count(out, size, 2 - player) else 1 - player
        elif turn == AGAIN_AFTER_CAPTURE:
            nxt = player if taken > 0 else 1 - player
        else:
            nxt = 1 - player
    out[size + TO_MOVE] = nxt
    out[size + MOVER] = player
    out[size + PLY] = ply + 1
    return taken


# --- random playouts --------------------------------------------------------------------------


@njit(**_OPTS)
def _splitmix(x):
    x = (x + np.uint64(0x9E3779B97F4A7C15))
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(**_INLINE)
def game_generator(seed, number):
    """The random generator of game `number` of a playout batch (the same on every thread)."""
    return _splitmix(np.uint64(seed) * np.uint64(0x2545F4914F6CDD1D) + np.uint64(number))


@njit(**_INLINE)
def draw(x, n):
    """Advance the xorshift generator x and draw an index below n: returns (x, index). Every
    playout kernel draws through this, so they all play the same games for a seed."""
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    return x, np.int64(((x * np.uint64(2685821657736338717)) >> np.uint64(32)) * np.uint64(n) >> np.uint64(32))


@njit(**_OPTS)
def playouts(starts, first_game, seed, max_plies, flat, bbmask, lengths, winners):
    """Random games: game g (numbered from `first_game`, for reproducibility across threads)
    starts from starts[g % len(starts)] and draws its moves uniformly with its own generator,
    seeded from (seed, g). Writes plies played and the winner (0, 1, -1 draw, -2 cut at
    max_plies) per game."""
    P = unpack(flat, bbmask)
    work = new_work(P)
    msrc, mdst, mrule, buf = work[2], work[3], work[4], work[1]
    state = np.empty(starts.shape[1], np.int32)
    for g in range(lengths.shape[0]):
        number = first_game + g
        x = game_generator(seed, number)
        state[:] = starts[number % starts.shape[0]]
        plies = 0
        while True:
            n, over, won = status(state, P, work)
            if over:
                winners[g] = won
                break
            if plies >= max_plies:
                winners[g] = -2
                break
            x, k = draw(x, n)
            advance(state, state, False, mrule[k], msrc[k], mdst[k], P, buf)
            plies += 1
        lengths[g] = plies


@njit(**_OPTS)
def perft(state, depth, flat, bbmask):
    """Leaves of the move tree at `depth` (a forced pass is one ply; a finished game is a leaf),
    depth-first with one state and one move list per level."""
    P = unpack(flat, bbmask)
    size = state.shape[0]
    maxm = P[13][G_MAX_MOVES]
    states = np.empty((depth + 1, size), np.int32)
    msrc = np.empty((depth + 1, maxm), np.int32)
    mdst = np.empty((depth + 1, maxm), np.int32)
    mrule = np.empty((depth + 1, maxm), np.int32)
    count = np.zeros(depth + 1, np.int64)
    index = np.zeros(depth + 1, np.int64)
    work = new_work(P)
    states[0] = state
    leaves = 0
    level = 0
    n, over, _ = status(states[0], P, work)
    if depth == 0 or over:
        return 1
    count[0] = n
    msrc[0, :n], mdst[0, :n], mrule[0, :n] = work[2][:n], work[3][:n], work[4][:n]
    while level >= 0:
        if index[level] == count[level]:
            level -= 1
            continue
        k = index[level]
        index[level] += 1
        child = states[level + 1]
        advance(states[level], child, True, mrule[level, k], msrc[level, k], mdst[level, k], P, work[1])
        if level + 1 == depth:
            leaves += 1
            continue
        n, over, _ = status(child, P, work)
        if over:
            leaves += 1
            continue
        level += 1
        count[level] = n
        index[level] = 0
        msrc[level, :n], mdst[level, :n], mrule[level, :n] = work[2][:n], work[3][:n], work[4][:n]
    return leaves


# --- calls from Python: two arrays cross the boundary, not nineteen ---------------------------


@njit(**_INLINE)
def _table(flat, k):
    o = 5 * k
    return flat[flat[o]: flat[o] + flat[o + 1] * flat[o + 2] * flat[o + 3] * flat[o + 4]], flat[o + 1: o + 5]


@njit(**_OPTS)
def unpack(flat, bbmask):
    """The program tuple P from program.pack's flat array (views, no copies)."""
    t0, s0 = _table(flat, 0)
    t1, s1 = _table(flat, 1)
    t2, s2 = _table(flat, 2)
    t3, s3 = _table(flat, 3)
    t4, s4 = _table(flat, 4)
    t5, s5 = _table(flat, 5)
    t6, s6 = _table(flat, 6)
    t7, s7 = _table(flat, 7)
    t8, s8 = _table(flat, 8)
    t9, s9 = _table(flat, 9)
    t10, s10 = _table(flat, 10)
    t11, s11 = _table(flat, 11)
    t12, s12 = _table(flat, 12)
    t13, s13 = _table(flat, 13)
    t14, s14 = _table(flat, 14)
    t15, s15 = _table(flat, 15)
    t16, s16 = _table(flat, 16)
    t18, s18 = _table(flat, 17)
    return (t0.reshape((s0[0], s0[1])), t1.reshape((s1[0], s1[1], s1[2])), t2.reshape((s2[0], s2[1])),
            t3.reshape((s3[0], s3[1])), t4, t5, t6.reshape((s6[0], s6[1])), t7.reshape((s7[0], s7[1], s7[2])),
            t8.reshape((s8[0], s8[1], s8[2])), t9.reshape((s9[0], s9[1], s9[2], s9[3])),
            t10.reshape((s10[0], s10[1], s10[2])), t11.reshape((s11[0], s11[1])), t12.reshape((s12[0], s12[1])),
            t13, t14.reshape((s14[0], s14[1])), t15, t16, bbmask, t18)


@njit(**_OPTS)
def work_size(flat, bbmask):
    """How many int32 the work buffer of moves_of/advance_from needs."""
    P = unpack(flat, bbmask)
    game = P[13]
    size = game[G_CELLS]
    return 4 * (size + 3) + P[1].shape[0] * P[1].shape[2] + 8


@njit(**_INLINE)
def _status_into(state, P, wbuf, out):
    size, m = P[13][G_CELLS], P[13][G_MAX_MOVES]
    r = P[1].shape[0] * P[1].shape[2] + 8
    b = size + 3
    cells = wbuf[3 * b: 3 * b + state.shape[0]]  # a copy: states from Python are read-only
    cells[:] = state
    work = (wbuf[:b], wbuf[4 * b: 4 * b + r], out[3: 3 + m], out[3 + m: 3 + 2 * m], out[3 + 2 * m: 3 + 3 * m],
            wbuf[b: 2 * b], wbuf[2 * b: 3 * b])
    n, over, won = status(cells, P, work)
    out[0], out[1], out[2] = n, over, won


@njit(**_OPTS)
def moves_of(state, flat, bbmask, wbuf, out):
    """status() for Python: out[0] = moves, out[1] = over, out[2] = winner, then the moves'
    origins, destinations and rules, max_moves each. `wbuf` (work_size int32) is scratch space
    owned by the caller, so that a call allocates nothing."""
    _status_into(state, unpack(flat, bbmask), wbuf, out)


@njit(**_OPTS)
def advance_from(state, child, r, src, dst, flat, bbmask, wbuf, out):
    """advance() then moves_of() for Python, in one call: `child` (a new array) becomes the
    position after the move, and `out` receives its status. Returns the pieces taken."""
    P = unpack(flat, bbmask)
    b = P[13][G_CELLS] + 3
    cells = wbuf[3 * b: 3 * b + state.shape[0]]  # a copy: states from Python are read-only
    cells[:] = state
    taken = advance(cells, child, True, np.int32(r), np.int32(src), np.int32(dst), P, wbuf[4 * b:])
    _status_into(child, P, wbuf, out)
    return taken
