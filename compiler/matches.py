"""Whole games between built-in policies inside the kernel, with what a sampler screens a game by:
its length, its winner, its counted cost, its choices and the board it covers.

Policies (one per seat):
- RANDOM: uniform among the legal moves, drawn exactly as the random playouts draw (rng.py), so
  random-against-random games are the games `playouts` plays for the same seed and game numbers.
- GREEDY: the move with the best value one ply ahead: a win, then the material (own pieces minus
  the opponent's, times `sign`: -1 when the stage counts fewest pieces), then a draw by chance.
- SEARCH: two plies of minimax on the same values (the opponent's best answer to each move, or the
  mover's best follow-up when the turn order gives it another move), ties by chance.

A game's counted cost is Σ over the positions the game passes through (the last included) of
1 + the legal moves there: the elementary work of playing it, the same in any engine that plays
the same game (sampler/cost.py computes it through the Game contract; the search's own lookahead
is not counted, only the game's line).
"""
import numpy as np

from . import codes as K
from .ends import count
from .jit import kernel, leaf
from .positions import advance, new_work, status
from .program import unpack
from .rng import draw, game_generator

POLICIES = RANDOM, GREEDY, SEARCH = range(3)
POLICY_NAMES = ("random", "greedy", "search")
WIN = 1 << 20  # above any material difference


@leaf
def _value(state, me, sign, n, over, won, size):
    """The value of a position for player `me`: ±WIN for a finished game won or lost, 0 for a
    draw; otherwise the signed material difference, plus the side to move's legal moves `n` if it
    is `me`, minus them if not (mobility: what Othello-like games turn on, and no harm elsewhere)."""
    if over:
        if won == me:
            return WIN
        if won == 1 - me:
            return -WIN
        return 0
    mobility = n if state[size + K.TO_MOVE] == me else -n
    return sign * (count(state, size, me + 1) - count(state, size, 2 - me)) + mobility


@leaf
def _child_value(state, child, me, sign, r, s, d, P, work, grand, work2, depth, best):
    """The value for `me` of the move (r, s, d) from `state`, looking `depth` plies (1 or 2) ahead.
    When the opponent answers, the answers stop at one worse than `best` (the best move so far):
    the move cannot be chosen then, and a move that ties `best` is still valued exactly (ties are
    broken by chance)."""
    size = P.game[K.G_CELLS]
    if advance(state, child, True, r, s, d, P, work[1]) == K.BAD_CODE:
        return K.BAD_CODE, True
    n, over, won = status(child, P, work)
    if won == K.BAD_CODE:
        return K.BAD_CODE, True
    if depth == 1 or over:
        return _value(child, me, sign, n, over, won, size), False
    maximise = child[size + K.TO_MOVE] == me
    v = -WIN - 1 if maximise else WIN + 1
    for j in range(n):
        if advance(child, grand, True, work[4][j], work[2][j], work[3][j], P, work2[1]) == K.BAD_CODE:
            return K.BAD_CODE, True
        n2, over2, won2 = status(grand, P, work2)
        if won2 == K.BAD_CODE:
            return K.BAD_CODE, True
        g = _value(grand, me, sign, n2, over2, won2, size)
        if maximise:
            v = max(v, g)
        else:
            v = min(v, g)
            if v < best:
                break
    return v, False


@kernel
def games(start, seed, first_game, policies, max_plies, sign, flat, bb_mask, lengths, winners, costs, choices,
          covered):
    """Game g (numbered first_game + g) from `start`, the first player playing policies[0], the
    second policies[1], each game with its own generator seeded from (seed, number). Writes per
    game: plies, winner (0, 1, K.NONE a draw, K.CUT cut at max_plies, K.BAD_CODE), counted cost,
    plies with more than one legal move, and cells that held a piece at some point."""
    P = unpack(flat, bb_mask)
    size = P.game[K.G_CELLS]
    root, kids, grand = new_work(P), new_work(P), new_work(P)
    state = np.empty(start.shape[0], np.int32)
    child = np.empty(start.shape[0], np.int32)
    grandchild = np.empty(start.shape[0], np.int32)
    seen = np.empty(size, np.bool_)
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
            if policy == RANDOM or n == 1:
                x, k = draw(x, n)
            else:
                best, ties, k = -WIN - 2, 0, 0
                for m in range(n):
                    v, bad = _child_value(state, child, me, sign, root[4][m], root[2][m], root[3][m], P, kids,
                                          grandchild, grand, 1 if policy == GREEDY else 2, best)
                    if bad:
                        won = K.BAD_CODE
                        break
                    if v > best:
                        best, ties, k = v, 1, m
                    elif v == best:
                        ties += 1
                        x, r = draw(x, ties)
                        if r == 0:  # each of the tied moves is kept with probability 1/ties
                            k = m
                if won == K.BAD_CODE:
                    break
            if advance(state, state, False, root[4][k], root[2][k], root[3][k], P, root[1]) == K.BAD_CODE:
                won = K.BAD_CODE
                break
            plies += 1
            for i in range(size):
                if state[i] > 0:
                    seen[i] = True
        lengths[g], winners[g], costs[g], choices[g] = plies, won, cost, choice
        covered[g] = 0
        for i in range(size):
            if seen[i]:
                covered[g] += 1
