"""Adaptive: the reference adaptive agent. It spends its analysis learning the stage from play, as
the Arena's advanced template does, then plays a strategy built from what it learned.

Analysis (until LEARN_UNTIL of its budget is left, or MAX_POSITIONS positions are labelled):
1. Random self-play games (in Python, through `api.apply`) show the rules at work: whether the
   winner is the side with more pieces at the end (`most-pieces`), fewer (`fewest-pieces`, reverse
   Othello) or neither (lines, connections); whether a side sometimes moves again (fewer pieces
   continue, moves after a capture); whether moves capture; whether pieces move (`b2-b3`) or are
   placed; how long games last and how often the first player wins.
2. Positions sampled from those games are labelled with the mean return of LABEL_GAMES random
   games from them (`api.playouts`), and a ridge regression per game phase (by how many cells are
   occupied) fits that label on each cell's owner (+1 first player, -1 second), the number of moves
   of the side to move (signed by who it is) and the side to move: a learned value of every cell,
   which is negative everywhere under reverse scoring, highest on corners in Othello, and so on.
3. A fifth of the positions is held out; the fit's R² on them decides the strategy.

Play: with a useful fit (R² ≥ MIN_R2 on at least MIN_HELD positions), iterative-deepening
alpha-beta on the learned value, the exact result at the end of the game, any turn order (each
node maximises or minimises the first player's value by who is to move there, so passes and moves
again need nothing special). With a poor one (lines and connections, where owning a cell says
little by itself, or too little data), flat Monte-Carlo: UCB1 over the legal moves, each scored by
batches of random games. Per move it spends `(remaining - RESERVE) / (own moves left + SPARE)`,
capped at MOVE_CAP seconds, the moves left being half the plies the self-play games still lasted
from positions with as many occupied cells.

What it learned is kept in the module-level dict LEARNED and printed in one line.
"""
import math
import random
import time
from typing import Any

import numpy as np

LEARN_UNTIL = 0.15  # stop learning with this fraction of the analysis budget left
MAX_POSITIONS = 30000  # enough data: stop learning there
POSITIONS_PER_GAME = 6
LABEL_GAMES = 16
PHASES = 3
RIDGE = 1.0
MIN_R2 = 0.2
MIN_HELD = 50  # held-out positions, at least, to trust the fit's R²
MOBILITY_SCALE = 0.1
MOVE_CAP = 1.0  # seconds, at most, on one move
SPARE = 4  # moves' worth of clock kept back: about 3/(moves + 4) of it is left at the end
RESERVE = 0.05  # seconds never planned for: the referee charges in coarser ticks than process_time
WIN = 2.0  # a won game, beyond any learned value (they are clipped to ±1)

LEARNED: dict[str, Any] = {}  # what learn() found, by name: numbers, flags and arrays


class OutOfTime(Exception):
    pass


def _cells(api, state):
    """Owner of every cell: +1 the first player, -1 the second, 0 empty or blocked (float vector)."""
    board = api.board(state).ravel()
    return (board == 1).astype(float) - (board == 2)


def _features(api, state, n_moves):
    cells = _cells(api, state)
    side = 1.0 if api.to_move(state) == 0 else -1.0
    return cells, np.concatenate((cells, (side * n_moves * MOBILITY_SCALE, side, 1.0)))


def _mobility(moves):
    return 0 if len(moves) == 1 and moves[0].is_pass else len(moves)


def _self_play(api, start, time_left, facts, positions):
    """One random game from `start`: notes what the rules did into `facts` and appends a few of
    its positions to `positions`, as (state, legal moves, plies to the end). False when the clock
    ran out (`time_left()` false) during it."""
    state, seen = start, []
    while not api.is_terminal(state):
        if not time_left():
            return False
        moves = api.legal_moves(state)
        seen.append((state, moves))
        move = random.choice(moves)
        mover = api.to_move(state)
        state, captured = api.apply(state, move)
        if not move.is_pass:
            facts["moves"] += 1
            facts["captures"] += captured > 0
            facts["piece_moves"] += move.src is not None
            facts["again"] += (not api.is_terminal(state)) and api.to_move(state) == mover
    board = api.board(state)
    facts["margins"].append(int((board == 1).sum()) - int((board == 2).sum()))
    facts["results"].append(api.returns(state)[0])
    facts["lengths"].append(len(seen))
    for i in random.sample(range(len(seen)), min(POSITIONS_PER_GAME, len(seen))):
        positions.append((*seen[i], len(seen) - i))
    return True


def _symmetries(stage, api):
    """The reflections and rotations of the board (as permutations of the cells, row-major) that
    map the start position and the blocked cells onto themselves, the identity first."""
    start = api.board(stage.initial_state).ravel()
    cells = np.arange(stage.rows * stage.cols).reshape(stage.rows, stage.cols)
    if stage.shape == "hex":  # the rhombus keeps its lines under the half turn and the transposes
        maps = [cells, cells[::-1, ::-1]] + ([cells.T, cells.T[::-1, ::-1]] if stage.rows == stage.cols else [])
    else:
        maps = [cells, cells[::-1], cells[:, ::-1], cells[::-1, ::-1]]
        if stage.rows == stage.cols:
            maps += [cells.T, cells.T[::-1], cells.T[:, ::-1], cells.T[::-1, ::-1]]
    return [m.ravel() for m in maps if np.array_equal(start[m.ravel()], start)]


def _gram(a):
    """aᵀa by numpy's own loops: BLAS would start threads that spin on the CPU clock."""
    return np.einsum("ij,ik->jk", a, a)


def _solve(a, b):
    """x with a·x = b, `a` symmetric positive definite (a ridge system): Gaussian elimination in
    numpy's own loops, for the same reason (n³/3 steps, a few milliseconds for 200 features)."""
    a, b, n = a.copy(), b.copy(), len(b)
    for k in range(n - 1):
        f = a[k + 1:, k] / a[k, k]
        a[k + 1:, k:] -= np.multiply.outer(f, a[k, k:])
        b[k + 1:] -= f * b[k]
    x = np.zeros(n)
    for k in range(n - 1, -1, -1):
        x[k] = (b[k] - np.dot(a[k, k + 1:], x[k + 1:])) / a[k, k]
    return x


def _fit_cost(size):
    """(seconds, seconds per row) that fitting `size` features will take, timed on a small problem,
    so that learning stops early enough to leave the fits their time."""
    a = np.sign(np.random.randn(2 * size, size))
    t0 = time.process_time()
    _solve(_gram(a) + RIDGE * np.eye(size), np.ones(size))
    spent = time.process_time() - t0
    # both fits (each cell alone, and tied by the symmetries), PHASES systems each
    return 2 * PHASES * spent, 2 * spent / len(a)


def _fit(x, y, phase, held):
    """Ridge weights per phase (PHASES × features), fitted on the rows not `held`, and their R² on
    the `held` ones."""
    size = x.shape[1]
    weights = np.zeros((PHASES, size))
    for k in range(PHASES):
        use = (phase == k) & ~held
        if use.any():
            weights[k] = _solve(_gram(x[use]) + RIDGE * np.eye(size), np.einsum("i,ij->j", y[use], x[use]))
    if held.sum() < MIN_HELD:
        return weights, 0.0
    guess = np.clip(np.einsum("ij,ij->i", weights[phase[held]], x[held]), -1, 1)
    spread = ((y[held] - y[held].mean()) ** 2).sum()
    return weights, float(1.0 - ((y[held] - guess) ** 2).sum() / spread) if spread > 0 else 0.0


def _values(stage, api, x, y, occupancy):
    """(phase edges by occupied cells, weights per phase, held-out R², symmetries used)."""
    n = stage.rows * stage.cols
    if len(y) < 10:
        return np.zeros(PHASES - 1), np.zeros((PHASES, n + 3)), 0.0, 1
    edges = np.quantile(occupancy, np.linspace(0, 1, PHASES + 1)[1:-1])
    phase = np.searchsorted(edges, occupancy, side="right")
    held = np.zeros(len(y), dtype=bool)
    held[np.random.permutation(len(y))[: len(y) // 5]] = True
    plain = _fit(x, y, phase, held)
    # The start's symmetries are usually the rules' too, but not where the rules have a direction
    # (gravity, forward moves): a fit with one weight per orbit of cells is kept if it predicts the
    # held-out positions better.
    perms = _symmetries(stage, api)
    if len(perms) == 1:
        return edges, plain[0], plain[1], 1
    orbit = np.unique(np.min(perms, axis=0), return_inverse=True)[1]  # a cell's orbit: 0..k-1
    by_orbit = np.argsort(orbit, kind="stable")
    starts = np.flatnonzero(np.diff(orbit[by_orbit], prepend=-1))
    tied_x = np.concatenate((np.add.reduceat(x[:, by_orbit], starts, axis=1), x[:, n:]), axis=1)
    tied_w, tied_r2 = _fit(tied_x, y, phase, held)
    if tied_r2 <= plain[1]:
        return edges, plain[0], plain[1], 1
    k = len(starts)
    return edges, np.concatenate((tied_w[:, orbit], tied_w[:, k:]), axis=1), tied_r2, len(perms)


def _scoring(margins, results):
    """Who wins, from random games: the side with more pieces, fewer, or neither."""
    if len(margins) < 5 or np.std(results) == 0:
        return "unknown"
    if np.ptp(margins) <= 1:  # placements alone, nothing taken: the counts only say who moved last
        return "other"
    r = float(np.corrcoef(margins, results)[0, 1])
    return "most-pieces" if r > 0.5 else "fewest-pieces" if r < -0.5 else "other"


def learn(stage, api, clock):
    """Self-play and playouts until the analysis budget is nearly spent; fills and returns LEARNED."""
    facts: dict[str, Any] = {"moves": 0, "captures": 0, "piece_moves": 0, "again": 0, "margins": [], "results": [],
                             "lengths": []}
    xs: list[np.ndarray] = []
    ys: list[float] = []
    occupancy: list[int] = []
    plies_left: list[int] = []
    positions: list = []
    stop_at = LEARN_UNTIL * clock.remaining()
    fixed, per_row = _fit_cost(stage.rows * stage.cols + 3)

    def time_left():  # for more data, leaving the fits twice the time they seem to need
        return clock.remaining() > stop_at + 2 * (fixed + per_row * len(ys))

    seed = random.getrandbits(30)
    while len(ys) < MAX_POSITIONS and _self_play(api, stage.initial_state, time_left, facts, positions):
        for state, moves, left in positions:
            if not time_left():
                break
            seed += 1
            cells, x = _features(api, state, _mobility(moves))
            xs.append(x)
            ys.append(float(api.playouts(state, LABEL_GAMES, seed).returns[:, 0].mean()))
            occupancy.append(int(np.count_nonzero(cells)))
            plies_left.append(left)
        positions.clear()
    moves = max(1, facts["moves"])
    LEARNED.clear()
    LEARNED.update(
        games=len(facts["results"]), positions=len(ys), scoring=_scoring(facts["margins"], facts["results"]),
        moves_again=facts["again"] / moves, captures=facts["captures"] / moves,
        piece_moves=facts["piece_moves"] > 0,
        mean_length=float(np.mean(facts["lengths"])) if facts["lengths"] else 0.0,
        first_player_score=float(np.mean(facts["results"])) if facts["results"] else 0.0)
    occupied = np.array(occupancy)
    edges, weights, r2, symmetries = _values(stage, api, np.array(xs), np.array(ys), occupied)
    # how long a random game goes on from a position, by its occupied cells: the clock's share per move
    levels = np.unique(occupied) if len(ys) else np.zeros(1)
    left = [np.mean(np.array(plies_left)[occupied == v]) for v in levels] if len(ys) else [30.0]
    LEARNED.update(edges=edges, weights=weights, r2=r2, symmetries=symmetries, plies_left=(levels, left),
                   mode="search" if r2 >= MIN_R2 else "playouts")
    return LEARNED


def analyze(stage, api, clock):
    learned = learn(stage, api, clock)
    weights, edges, (levels, plies_left) = learned["weights"], learned["edges"], learned["plies_left"]
    print("adaptive learned: " + ", ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}"
                                           for k, v in learned.items() if k not in ("weights", "edges", "plies_left")))

    def evaluate(state, moves):
        """The first player's learned value of a position whose legal moves are `moves`."""
        cells, x = _features(api, state, _mobility(moves))
        k = int(np.searchsorted(edges, np.count_nonzero(cells), side="right"))
        return max(-1.0, min(1.0, float(weights[k] @ x)))

    def alphabeta(state, depth, alpha, beta, deadline):
        if api.is_terminal(state):
            return WIN * api.returns(state)[0]
        moves = api.legal_moves(state)
        if depth == 0:
            return evaluate(state, moves)
        maximise = api.to_move(state) == 0
        best = -math.inf if maximise else math.inf
        for move in moves:
            if time.process_time() > deadline:  # checked per move: a node may have hundreds
                raise OutOfTime
            v = alphabeta(api.apply(state, move)[0], depth - 1, alpha, beta, deadline)
            if maximise:
                best, alpha = max(best, v), max(alpha, v)
            else:
                best, beta = min(best, v), min(beta, v)
            if alpha >= beta:
                break
        return best

    def search(state, legal_moves, seconds):
        """Iterative deepening; the best move of the deepest search finished in time."""
        deadline = time.process_time() + seconds
        sign = 1.0 if api.to_move(state) == 0 else -1.0
        children = [api.apply(state, m)[0] for m in legal_moves]
        order, best = list(range(len(legal_moves))), 0
        for depth in range(0, 64):
            scores, top = [], -math.inf  # the side to move's values: exact for the best, bounds below it
            try:
                for i in order:
                    window = (top, math.inf) if sign > 0 else (-math.inf, -top)
                    scores.append(sign * alphabeta(children[i], depth, *window, deadline))
                    top = max(top, scores[-1])
            except OutOfTime:
                break
            ranked = sorted(range(len(order)), key=lambda j: -scores[j])  # stable: the first of equals
            order = [order[j] for j in ranked]
            best = order[0]
            if abs(top) >= WIN:  # a forced result: deeper search adds nothing
                break
        return legal_moves[best]

    def flat_monte_carlo(state, legal_moves, seconds):
        """UCB1 over the moves, each pull a batch of random games from the position it leads to."""
        deadline = time.process_time() + seconds
        me = api.to_move(state)
        children = [api.apply(state, m)[0] for m in legal_moves]
        n, w = np.zeros(len(children)), np.zeros(len(children))
        for i, child in enumerate(children):
            if api.is_terminal(child):
                if api.returns(child)[me] > 0:
                    return legal_moves[i]
        seed = random.getrandbits(30)
        while True:
            if n.min() == 0:
                i = int(np.argmin(n))
            else:
                i = int(np.argmax(w / n + math.sqrt(2 * math.log(n.sum())) / np.sqrt(n)))
            seed += 1
            child = children[i]
            if api.is_terminal(child):
                w[i] += 8 * api.returns(child)[me]
            else:
                w[i] += api.playouts(child, 8, seed).returns[:, me].sum()
            n[i] += 8
            if time.process_time() > deadline:
                return legal_moves[int(np.argmax(n))]

    play = search if learned["mode"] == "search" else flat_monte_carlo

    def strategy(state, legal_moves, clock):
        if len(legal_moves) == 1:
            return legal_moves[0]
        plies = float(np.interp(np.count_nonzero(api.board(state) > 0), levels, plies_left))
        seconds = min(MOVE_CAP, max(0.0, clock.remaining() - RESERVE) / (plies / 2 + SPARE))
        return play(state, legal_moves, seconds)

    return strategy
