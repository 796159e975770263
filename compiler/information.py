"""Hidden information inside the kernel: a stage with `hidden` played as tries on its true game, the
same tries as gdl/interpreter/information.py (the reference), for the same draws.

The true game is the base stage's, played by the generic kernels (positions.status and advance);
what this module adds is each player's view and the tries:

- the tries of the player to move are the moves its rules allow on its view (moves.legal_moves on a
  board holding the view), less those refused to it since its last played try; a forced pass when
  the truth gives one; the truth's moves when the view offers none (the board is shown to it);
- a try among the truth's moves is played there, and each player's view takes the cells its hiding
  shows it, then those its reveals show it (`_reveal`); any other is refused: its player's view takes the destination's true content, the try
  joins its refused list, and the refusal decides who tries next.

Playouts draw each try uniformly among the tries, with the generator every playout draws with
(rng.py), so that they play the reference's games for a seed.
"""
import numpy as np

from . import codes as K
from .arrays import copy_into
from .jit import inline, kernel
from .matches import best_of, random_game
from .moves import legal_moves
from .ply import playout_kernel
from .positions import advance, new_work, status
from .program import unpack
from .rng import draw, game_generator


@kernel
def new_dark_work(P, information, capacity):
    """Scratch for dark playouts on one thread (a `work` tuple).

    P: Program — the base stage's tables
    information: int32[3] — the hiding's code, the refusal's code and the reveals' mask (program.information)
    -> buffers: tuple — positions.new_work's, for the truth and for the view
    -> truth: int32[n_cells + 4] — the true position, played in place
    -> views: int32[2, n_cells] — what each player last saw of each cell
    -> refused: int32[2, capacity] — each player's refused tries since its last played one, as codes
    -> counts: int32[2] — how many each player has refused
    -> truth_moves: int32[3, max_moves] — the truth's moves: origins, destinations, rules
    -> board: int32[n_cells + 4] — the view of the player to move, as a position to list moves on
    -> before: int32[n_cells] — the true cells before a played try
    -> information: int32[2] — the codes, copied
    """
    size, moves = P.game[K.G_CELLS], P.game[K.G_MAX_MOVES]
    return (new_work(P), np.empty(size + K.STATE_EXTRA, np.int32), np.empty((2, size), np.int32),
            np.empty((2, capacity), np.int32), np.zeros(2, np.int32), np.empty((3, moves), np.int32),
            np.empty(size + K.STATE_EXTRA, np.int32), np.empty(size, np.int32), information.copy())


@inline
def _begin(starts, number, P, work):
    """ply.playout_kernel's `begin`: game `number`'s start is the truth, and both views (the start is
    public); nothing refused yet. Returns 0 (the position lives in work).

    starts: int32[n_starts, n_cells + 4] — the batch's start positions (true positions)
    P: Program — the base stage's tables
    work: tuple — new_dark_work's scratch
    """
    truth, views, counts = work[1], work[2], work[4]
    copy_into(truth, starts[number % starts.shape[0]])
    size = P.game[K.G_CELLS]
    for i in range(size):
        views[0, i] = truth[i]
        views[1, i] = truth[i]
    counts[0] = 0
    counts[1] = 0
    return 0


@inline
def _view_board(board, views, truth, p, size):
    """Player p's view as a position: its cells, then the truth's values after the cells.

    board: int32[n_cells + 4] — written
    views: int32[2, n_cells] — what each player last saw, read
    truth: int32[n_cells + 4] — the true position, read
    """
    for i in range(size):
        board[i] = views[p, i]
    for j in range(K.STATE_EXTRA):
        board[size + j] = truth[size + j]


@inline
def _code(src, dst, size):
    """codes.move_code, for a refused list."""
    return dst if src < 0 else (src + 1) * size + dst


@inline
def _status(position, P, work):
    """ply.playout_kernel's `status`: (tries, over, winner, listed) with the tries in the buffers'
    move lists; `listed` is the number of the truth's moves kept in truth_moves, or -1 for a forced
    pass (the only try).

    P: Program — the base stage's tables
    work: tuple — new_dark_work's scratch
    """
    buffers, truth, views, refused, counts, truth_moves, board = work[0], work[1], work[2], work[3], work[4], \
        work[5], work[6]
    msrc, mdst, mrule = buffers[2], buffers[3], buffers[4]
    size = P.game[K.G_CELLS]
    n, over, won = status(truth, P, buffers)
    if over:
        return 0, True, won, 0
    if n == 1 and mdst[0] < 0:  # a forced pass: the truth tells its player so
        return 1, False, K.NONE, -1
    p = truth[size + K.TO_MOVE]
    reachable = work[8][2] & (1 << K.REVEAL_REACHABLE)
    for k in range(n):
        truth_moves[0, k], truth_moves[1, k], truth_moves[2, k] = msrc[k], mdst[k], mrule[k]
        if reachable:  # `reveal reachable` for the player to move: its true moves, listed here anyway
            views[p, mdst[k]] = truth[mdst[k]]
    _view_board(board, views, truth, p, size)
    m = legal_moves(board, p, board[size + K.ROLL], P, buffers[0], buffers[1], msrc, mdst, mrule)
    if m == K.BAD_CODE:
        return 0, True, K.BAD_CODE, 0
    if counts[p] > 0:  # the tries refused to the player are not offered again
        kept = 0
        for k in range(m):
            code = _code(msrc[k], mdst[k], size)
            again = True
            for r in range(counts[p]):
                if refused[p, r] == code:
                    again = False
                    break
            if again:
                msrc[kept], mdst[kept], mrule[kept] = msrc[k], mdst[k], mrule[k]
                kept += 1
        m = kept
    if m == 0:  # no untried move in view, one in truth: the board is shown to the player
        for i in range(size):
            views[p, i] = truth[i]
        counts[p] = 0
        for k in range(n):
            msrc[k], mdst[k], mrule[k] = truth_moves[0, k], truth_moves[1, k], truth_moves[2, k]
        m = n
    return m, False, K.NONE, n


@inline
def _advance(position, listed, k, P, work):
    """ply.playout_kernel's `advance`: the k-th try, played or refused; returns (0, whether a code had
    no branch).

    P: Program — the base stage's tables
    work: tuple — new_dark_work's scratch, its tries listed by _status
    """
    buffers, truth, views, refused, counts, truth_moves, before, information = work[0], work[1], work[2], \
        work[3], work[4], work[5], work[7], work[8]
    size = P.game[K.G_CELLS]
    p = truth[size + K.TO_MOVE]
    if listed < 0:  # the forced pass, always played; it changes no cell
        counts[p] = 0
        return 0, advance(truth, truth, False, -1, -1, -1, P, buffers[1]) == K.BAD_CODE
    src, dst = buffers[2][k], buffers[3][k]
    j = -1
    for t in range(listed):
        if truth_moves[0, t] == src and truth_moves[1, t] == dst:
            j = t
            break
    if j >= 0:  # played, by the rule the truth plays it with
        for i in range(size):
            before[i] = truth[i]
        taken = advance(truth, truth, False, truth_moves[2, j], src, dst, P, buffers[1])
        if taken == K.BAD_CODE:
            return 0, True
        counts[p] = 0
        if information[0] != K.OPPONENT_PIECES:
            return 0, True
        q = 1 - p
        theirs = q + 1
        for i in range(size):  # the mover sees what its move changed; the other, its own pieces'
            if truth[i] != before[i]:
                views[p, i] = truth[i]
                if (truth[i] == theirs) != (before[i] == theirs):
                    views[q, i] = truth[i]
        return 0, _reveal(truth, before, taken, views, information[2], P, buffers) == K.BAD_CODE
    views[p, dst] = truth[dst]  # refused: its player sees the destination
    refused[p, counts[p]] = _code(src, dst, size)
    counts[p] += 1
    if information[1] == K.LOSE_TURN:
        truth[size + K.TO_MOVE] = 1 - p
    elif information[1] != K.RETRY:
        return 0, True
    return 0, False


@inline
def _reveal(truth, before, taken, views, reveals, P, buffers):
    """The reveals after a played try (gdl/interpreter/information.py's _REVEALS): each player's view
    takes the true cells each reveal in the mask shows it; returns K.BAD_CODE for a code without a
    branch, else 0.

    truth: int32[n_cells + 4] — the true position after the try, read
    before: int32[n_cells] — the true cells before it, read
    views: int32[2, n_cells] — written: the cells each player now sees
    P: Program — the base stage's tables
    buffers: tuple — positions.new_work's (their move lists are written, for `reachable`)
    """
    size = P.game[K.G_CELLS]
    if reveals & ~K.REVEAL_MASK:
        return K.BAD_CODE
    nbr = P.nbr
    for viewer in range(2):
        mine = viewer + 1
        if reveals & (1 << K.REVEAL_ADJACENT):
            for i in range(size):
                if truth[i] == mine:
                    for d in range(nbr.shape[0]):
                        j = nbr[d, i]
                        if j >= 0:
                            views[viewer, j] = truth[j]
        if reveals & (1 << K.REVEAL_CAPTURE) and taken > 0:
            for i in range(size):
                if truth[i] != before[i]:
                    views[viewer, i] = truth[i]
        # the player to move next sees its reachable cells where _status lists its true moves (the
        # same truth: a refused try changes nothing, and the start is seen whole)
        if reveals & (1 << K.REVEAL_REACHABLE) and viewer != truth[size + K.TO_MOVE]:
            m = legal_moves(truth, np.int32(viewer), truth[size + K.ROLL], P, buffers[0], buffers[1], buffers[2],
                            buffers[3], buffers[4])
            if m == K.BAD_CODE:
                return K.BAD_CODE
            for k in range(m):
                j = buffers[3][k]
                views[viewer, j] = truth[j]
    return 0


_games = playout_kernel(_begin, _status, _advance)


@kernel
def dark_playouts(starts, first_game, seed, max_tries, flat, bb_mask, information, capacity, lengths, winners):
    """ply.playout_kernel's games of tries on a hidden stage.

    starts: int32[n_starts, n_cells + 4] — the true positions games begin from (views: the same)
    flat: int32[n_packed] — the base stage's program (program.pack)
    bb_mask: uint64[n_dirs] — the program's bit masks
    information: int32[3] — the hiding's code, the refusal's code and the reveals' mask
    lengths, winners: int32[games] — written: each game's tries and winner
    first_game, seed, max_tries, capacity: the first game's number, the batch's seed, the cap on tries, the
        room for each player's refused tries
    """
    P = unpack(flat, bb_mask)
    _games(starts, first_game, seed, max_tries, P, new_dark_work(P, information, capacity), lengths, winners)


# --- games between policies, through the players' views (the sampler's skill test on a hidden stage) --

DARK_POLICIES = DARK_RANDOM, VIEW_MC = range(2)
DARK_POLICY_NAMES = ("random", "mc")


@inline
def _view_choice(m, samples, cap, P, work, kids, child, playing, means, x):
    """The try (an index among the m listed in work's move lists) flat Monte-Carlo chooses on the
    player's own view: each try played on the view as if it were the truth, then samples // m random
    games of the base from there, each worth its result; the best, equal ones by chance (x). Uses
    nothing the player does not know. Returns (index, x), index -1 for a code without a branch.

    P: Program — the base stage's tables
    work: tuple — new_dark_work's scratch, its tries listed by _status
    kids: tuple — positions.new_work's buffers (the believed games')
    child, playing: int32[n_cells + 4] — written: scratch positions
    means: float64[max_moves] — written: each try's mean result
    """
    buffers, truth, views, board = work[0], work[1], work[2], work[6]
    size = P.game[K.G_CELLS]
    me = truth[size + K.TO_MOVE]
    _view_board(board, views, truth, me, size)  # (the board shown may have replaced it)
    each = max(1, samples // m)
    for t in range(m):
        if advance(board, child, True, buffers[4][t], buffers[2][t], buffers[3][t], P, kids[1]) == K.BAD_CODE:
            return -1, x
        total = 0
        for _ in range(each):
            v, x = random_game(child, me, 0, cap, P, kids, playing, x)  # (the policies' random game)
            if v == K.BAD_CODE:
                return -1, x
            total += v
        means[t] = total / each
    return best_of(means, m, x)


@kernel
def dark_games(starts, first_game, seed, max_tries, flat, bb_mask, information, capacity, policies, samples,
               lengths, winners):
    """Games of tries on a hidden stage between two policies: DARK_RANDOM (each try uniform, as the
    random playouts draw it: random against random plays dark_playouts' games) or VIEW_MC (flat
    Monte-Carlo on the player's own view, _view_choice). Each game draws from its own generator.

    starts: int32[n_starts, n_cells + 4] — the true positions games begin from
    flat: int32[n_packed] — the base stage's program (program.pack)
    bb_mask: uint64[n_dirs] — the program's bit masks
    information: int32[3] — the hiding's code, the refusal's code and the reveals' mask
    policies: int32[2] — each seat's policy (DARK_POLICIES)
    samples: int64[2] — each seat's random games a try (VIEW_MC)
    lengths, winners: int32[games] — written: each game's tries and winner
    first_game, seed, max_tries, capacity: as dark_playouts
    """
    P = unpack(flat, bb_mask)
    work = new_dark_work(P, information, capacity)
    kids = new_work(P)
    child = np.empty(starts.shape[1], np.int32)
    playing = np.empty(starts.shape[1], np.int32)
    means = np.empty(P.game[K.G_MAX_MOVES], np.float64)
    size = P.game[K.G_CELLS]
    cap = 4 * size + 20  # a believed game's plies
    for g in range(lengths.shape[0]):
        number = first_game + g
        x = game_generator(seed, number)
        position = _begin(starts, number, P, work)
        tries = 0
        while True:
            m, over, won, listed = _status(position, P, work)
            if over:
                winners[g] = won
                break
            if tries >= max_tries:
                winners[g] = K.CUT
                break
            me = work[1][size + K.TO_MOVE]
            if policies[me] == VIEW_MC and m > 1 and listed >= 0:
                k, x = _view_choice(m, samples[me], cap, P, work, kids, child, playing, means, x)
                if k < 0:
                    winners[g] = K.BAD_CODE
                    break
            else:
                x, k = draw(x, m)
            position, bad = _advance(position, listed, k, P, work)
            if bad:
                winners[g] = K.BAD_CODE
                break
            tries += 1
        lengths[g] = tries
