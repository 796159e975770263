"""Whole games between built-in policies inside the kernel, with what a sampler screens a game by:
its length, its winner, its counted cost, its choices and the board it covers.

Policies (one per seat):
- RANDOM: uniform among the legal moves, drawn exactly as the random playouts draw (rng.py), so
  random-against-random games are the games `playouts` plays for the same seed and game numbers.
- GREEDY: the move with the best value one ply ahead: a win, else weights[0] × material (own
  pieces minus the opponent's) + weights[1] × mobility (own legal moves minus the opponent's);
  equal values by chance.
- SEARCH: two plies of minimax on the same values (the opponent's best answer to each move, or the
  mover's best follow-up when the turn order gives it another move) from the `beam` moves greedy
  values most, ties by chance: a tiny search whose cost grows linearly with the moves.
- MONTE_CARLO: flat Monte-Carlo, `samples` random games for each move it makes: a legal move that
  ends the game is worth its result; the random games are shared evenly among the other legal
  moves (a random `samples` of them if they are more), each worth its mean result (+1 won, -1
  lost, 0 drawn or cut at max_plies) for the mover; the best is played, equal ones by chance. It
  knows nothing of material or mobility: whatever the rules reward, random games see it.

A game's counted cost is Σ over the positions the game passes through (the last included) of
1 + the legal moves there: the elementary work of playing it, the same in any engine that plays
the same game (sampler/cost.py computes it through the Game contract; the search's own lookahead
is not counted, only the game's line).
"""
import numpy as np

from . import codes as K
from .ends import count
from .jit import inline, kernel, leaf
from .moves import legal_moves
from .positions import advance, new_work, status
from .program import unpack
from .rng import draw, game_generator, throw

POLICIES = RANDOM, GREEDY, SEARCH, MONTE_CARLO = range(4)
POLICY_NAMES = ("random", "greedy", "search", "mc")
WIN = 1 << 20  # above any material difference


@leaf
def _value(state, me, weights, n, over, won, P, spare):
    """The value of a position for player `me`: ±WIN for a finished game won or lost, 0 for a
    draw; otherwise weights[0] × the material difference + weights[1] × the mobility difference
    (`me`'s legal moves minus the opponent's: what Othello-like games turn on; equal for both in
    games where any empty cell is a move). `n`: the side to move's moves; the other side's are
    listed into `spare` (only if mobility counts).

    state: int32[n_cells + 4] — the position, read
    weights: int64[2] — of material, then mobility
    P: Program — the stage's tables
    spare: tuple — positions.new_work's buffers
    """
    if over:
        if won == me:
            return WIN
        if won == 1 - me:
            return -WIN
        return 0
    size = P.game[K.G_CELLS]
    material = weights[0] * (count(state, size, me + 1) - count(state, size, 2 - me))
    if weights[1] == 0:
        return material
    to_move = state[size + K.TO_MOVE]
    other = legal_moves(state, np.int32(1 - to_move), state[size + K.ROLL], P, spare[0], spare[1], spare[2],
                        spare[3], spare[4])
    if other == K.BAD_CODE:
        return WIN + 2  # not a value: a code without a branch (games() reports it)
    mobility = n - other if to_move == me else other - n
    return material + weights[1] * mobility


@leaf
def _child_value(state, child, me, weights, r, s, d, P, work, grand, work2, spare, depth, best):
    """The value for `me` of the move (r, s, d) from `state`, looking `depth` plies (1 or 2) ahead.
    When the opponent answers, the answers stop at one worse than `best` (the best move so far):
    the move cannot be chosen then, and a move that ties `best` is still valued exactly (ties are
    broken by chance).

    state: int32[n_cells + 4] — the position, read
    child: int32[n_cells + 4] — written: the position after the move
    weights: int64[2] — of material, then mobility
    P: Program — the stage's tables
    work: tuple — positions.new_work's buffers (the child's moves)
    grand: int32[n_cells + 4] — written: each answer's position
    work2: tuple — positions.new_work's buffers (the answers' moves)
    spare: tuple — positions.new_work's buffers (the other side's moves, for mobility)
    """
    size = P.game[K.G_CELLS]
    if advance(state, child, True, r, s, d, P, work[1]) == K.BAD_CODE:
        return K.BAD_CODE, True
    n, over, won = status(child, P, work)
    if won == K.BAD_CODE:
        return K.BAD_CODE, True
    if depth == 1 or over:
        v = _value(child, me, weights, n, over, won, P, spare)
        return v, v == WIN + 2
    maximise = child[size + K.TO_MOVE] == me
    v = -WIN - 1 if maximise else WIN + 1
    for j in range(n):
        if advance(child, grand, True, work[4][j], work[2][j], work[3][j], P, work2[1]) == K.BAD_CODE:
            return K.BAD_CODE, True
        n2, over2, won2 = status(grand, P, work2)
        if won2 == K.BAD_CODE:
            return K.BAD_CODE, True
        g = _value(grand, me, weights, n2, over2, won2, P, spare)
        if g == WIN + 2:
            return K.BAD_CODE, True
        if maximise:
            v = max(v, g)
        else:
            v = min(v, g)
            if v < best:
                break
    return v, False


@leaf
def _choose(state, me, weights, policy, n, beam, P, root, child, kids, grandchild, grand, spare, values, picked, x):
    """The move (an index among the n in root's lists) greedy or search plays, ties drawn with x:
    returns (index, x), index -1 for a code without a branch. Search looks two plies ahead from
    the `beam` moves greedy values most (all of them if beam ≥ n), so its cost stays linear in n.

    state: int32[n_cells + 4] — the position, read
    weights: int64[2] — of material, then mobility
    P: Program — the stage's tables
    root: tuple — positions.new_work's buffers (the n moves of `state`)
    child, grandchild: int32[n_cells + 4] — written: scratch positions
    kids, grand, spare: tuple — positions.new_work's buffers (scratch)
    values: int64[max_moves] — written: each move's greedy value
    picked: bool[max_moves] — written: the moves search looks into
    """
    for m in range(n):
        v, bad = _child_value(state, child, me, weights, root[4][m], root[2][m], root[3][m], P, kids, grandchild,
                              grand, spare, 1, 0)
        if bad:
            return -1, x
        values[m] = v
        picked[m] = policy == GREEDY or beam >= n
    if policy == SEARCH and beam < n:
        for _ in range(beam):  # the beam: the best greedy values, the first of equal ones
            top = -1
            for m in range(n):
                if not picked[m] and (top < 0 or values[m] > values[top]):
                    top = m
            picked[top] = True
    best, ties, k = -WIN - 2, 0, 0
    for m in range(n):
        if not picked[m]:
            continue
        v = values[m]
        if policy == SEARCH:
            v, bad = _child_value(state, child, me, weights, root[4][m], root[2][m], root[3][m], P, kids, grandchild,
                                  grand, spare, 2, best)
            if bad:
                return -1, x
        if v > best:
            best, ties, k = v, 1, m
        elif v == best:
            ties += 1
            x, r = draw(x, ties)
            if r == 0:  # each of the tied moves is kept with probability 1/ties
                k = m
    return k, x


@leaf
def random_game(child, me, plies, max_plies, P, kids, playing, x):
    """One random game from `child`, `plies` into the game (cut, a draw, at max_plies): returns
    (+1 `me` won, -1 lost, 0 a draw or cut, or K.BAD_CODE; x).

    child: int32[n_cells + 4] — the position the game starts from, read
    P: Program — the stage's tables
    kids: tuple — positions.new_work's buffers
    playing: int32[n_cells + 4] — written: the game's position as it is played
    """
    for i in range(child.shape[0]):
        playing[i] = child[i]
    x = throw(x, playing, P)  # a roll of its own for each game (dice only)
    while True:
        n, over, won = status(playing, P, kids)
        if over:
            if won == K.BAD_CODE:
                return K.BAD_CODE, x
            return (won == me) - (won == 1 - me), x
        if plies >= max_plies:
            return 0, x
        x, j = draw(x, n)
        if advance(playing, playing, False, kids[4][j], kids[2][j], kids[3][j], P, kids[1]) == K.BAD_CODE:
            return K.BAD_CODE, x
        x = throw(x, playing, P)
        plies += 1


@leaf
def _monte_carlo(state, me, n, samples, plies, max_plies, P, root, child, kids, playing, means, order, x):
    """The move (an index among the n in root's lists) flat Monte-Carlo plays from `state`, `plies`
    into the game, with `samples` random games in all: a move that ends the game is worth its
    result, exactly (a win is played at once); the random games are shared evenly among the
    `live` others (samples // live each; when they are more than `samples`, a random `samples` of
    them get one each and the rest are not considered), each worth its mean result for `me`. The
    best is played, equal ones by chance (x). Returns (index, x), index -1 for a code without a
    branch.

    state: int32[n_cells + 4] — the position, read
    P: Program — the stage's tables
    root: tuple — positions.new_work's buffers (the n moves of `state`)
    child, playing: int32[n_cells + 4] — written: scratch positions
    kids: tuple — positions.new_work's buffers (scratch)
    means: float64[max_moves] — written: each move's mean result
    order: int64[max_moves] — written: the moves considered
    """
    live = 0
    for m in range(n):
        if advance(state, child, True, root[4][m], root[2][m], root[3][m], P, kids[1]) == K.BAD_CODE:
            return -1, x
        x = throw(x, child, P)  # (dice: whether the move ends the game may hang on the next roll)
        nc, over, won = status(child, P, kids)
        if won == K.BAD_CODE:
            return -1, x
        if over:
            means[m] = (won == me) - (won == 1 - me)
            if means[m] == 1.0:
                return m, x  # nothing beats a win
        else:
            means[m] = -2.0  # not considered (yet)
            order[live] = m
            live += 1
    if live > samples:  # a random `samples` of them: the first of a partial shuffle
        for i in range(samples):
            x, j = draw(x, live - i)
            order[i], order[i + j] = order[i + j], order[i]
        considered, each = samples, 1
    else:
        considered, each = live, samples // max(1, live)
    for i in range(considered):
        m = order[i]
        advance(state, child, True, root[4][m], root[2][m], root[3][m], P, kids[1])  # it was played above
        total = 0
        for _ in range(each):
            v, x = random_game(child, me, plies + 1, max_plies, P, kids, playing, x)
            if v == K.BAD_CODE:
                return -1, x
            total += v
        means[m] = total / each
    return best_of(means, n, x)


@inline
def best_of(means, n, x):
    """(the index of the best of the first n means, equal ones drawn by chance with x; x).

    means: float64[at least n] — each move's value, read (all above -3)
    """
    best, ties, k = -3.0, 0, 0
    for m in range(n):
        if means[m] > best:
            best, ties, k = means[m], 1, m
        elif means[m] == best:
            ties += 1
            x, r = draw(x, ties)
            if r == 0:  # each of the tied moves is kept with probability 1/ties
                k = m
    return k, x


@kernel
def games(start, seed, first_game, policies, opening, beam, max_plies, weights, samples, flat, bb_mask, lengths,
          winners, costs, choices, covered):
    """Game g (numbered first_game + g) from `start`, the first player playing policies[0], the
    second policies[1] after `opening` plies of random moves (so that games between deterministic
    policies differ), each game with its own generator seeded from (seed, number). samples[p]: the
    random games player p's Monte-Carlo policy plays for each of its moves. Writes per game:
    plies, winner (0, 1, K.NONE a draw, K.CUT cut at max_plies, K.BAD_CODE), counted cost, plies
    with more than one legal move, and cells that held a piece at some point.

    start: int32[n_cells + 4] — the position every game starts from, read only
    policies: int32[2] — each seat's policy (POLICIES)
    weights: int64[2] — of material, then mobility (greedy, search)
    samples: int64[2] — each seat's Monte-Carlo games per move
    flat: int32[n_packed] — the program's tables (program.pack)
    bb_mask: uint64[n_dirs] — the program's bit masks
    lengths, winners, choices, covered: int32[games] — written, one entry per game
    costs: int64[games] — written: each game's counted cost
    """
    P = unpack(flat, bb_mask)
    size = P.game[K.G_CELLS]
    root, kids, grand, spare = new_work(P), new_work(P), new_work(P), new_work(P)
    state = np.empty(start.shape[0], np.int32)
    child = np.empty(start.shape[0], np.int32)
    grandchild = np.empty(start.shape[0], np.int32)
    playing = np.empty(start.shape[0], np.int32)
    seen = np.empty(size, np.bool_)
    values = np.empty(P.game[K.G_MAX_MOVES], np.int64)
    picked = np.empty(P.game[K.G_MAX_MOVES], np.bool_)
    means = np.empty(P.game[K.G_MAX_MOVES], np.float64)
    order = np.empty(P.game[K.G_MAX_MOVES], np.int64)
    for g in range(lengths.shape[0]):
        x = game_generator(seed, first_game + g)
        for i in range(start.shape[0]):
            state[i] = start[i]
        for i in range(size):
            seen[i] = start[i] > 0
        plies = cost = choice = 0
        won = K.NONE
        while True:
            n, over, won = status(state, P, root)
            cost += 1 + n
            if over:
                break
            if plies >= max_plies:
                won = K.CUT
                break
            if n > 1:
                choice += 1
            me = state[size + K.TO_MOVE]
            policy = policies[me]
            if policy == RANDOM or n == 1 or plies < opening:
                x, k = draw(x, n)
            elif policy == MONTE_CARLO:
                k, x = _monte_carlo(state, me, n, samples[me], plies, max_plies, P, root, child, kids, playing, means,
                                    order, x)
                if k < 0:
                    won = K.BAD_CODE
                    break
            else:
                k, x = _choose(state, me, weights, policy, n, beam, P, root, child, kids, grandchild, grand, spare, values,
                               picked, x)
                if k < 0:
                    won = K.BAD_CODE
                    break
            if advance(state, state, False, root[4][k], root[2][k], root[3][k], P, root[1]) == K.BAD_CODE:
                won = K.BAD_CODE
                break
            x = throw(x, state, P)  # the next roll, as the random playouts throw it (dice only)
            plies += 1
            for i in range(size):
                if state[i] > 0:
                    seen[i] = True
        lengths[g], winners[g], costs[g], choices[g] = plies, won, cost, choice
        covered[g] = 0
        for i in range(size):
            if seen[i]:
                covered[g] += 1
