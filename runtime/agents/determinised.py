"""Determinised Monte-Carlo: for hidden information, search the worlds you cannot tell apart.

Each iteration draws a world, a true position consistent with all this player has seen
(`api.sample_world`: on a stage with hidden information it searches the games that would have
told the player exactly what it was told; on a perfect-information stage it is the position
itself), and scores every try in it by a batch of random games played inside the kernel: a try
the world allows, from the position it leads to; a try the world would refuse, from the world
itself (the board does not change; the player learns a cell). The try played has the best mean
return over all the worlds drawn (Long, Sturtevant, Buro & Furtak, "Understanding the success of
perfect information Monte Carlo sampling in game tree search", AAAI 2010). A world the search
cannot find within its budget of tries (a long game on a large board) is replaced by the player's
own view, played as if it were the truth, for the rest of the move; the budget halves when a search
takes more than WORLD_SHARE of the move's time, and doubles when it takes far less.

Time: per move, `(remaining - RESERVE) / (own moves left + SPARE)`, capped at MOVE_CAP seconds, as
mcts.py plans it, checked after every batch. The analysis times the playouts to choose the batch, as mcts.py does
(written out again: a built-in is one file, as an agent a participant submits is).
"""
import random
import time

import numpy as np

MOVE_CAP = 2.0  # seconds, at most, on one move
SPARE = 4  # moves' worth of clock kept back
RESERVE = 0.05  # seconds never planned for
BATCH_SECONDS = 0.002  # the target CPU cost of one try's batch of playouts in one world
MAX_BATCH = 64
WORLD_BUDGET = (50, 250, 5_000)  # tries of search for one world: least, first, most (adapted to its cost)
WORLD_SHARE = 0.25  # of a move's time, at most, one world's search may take
TIMING_SECONDS = 0.3


def analyze(stage, api, clock):
    start = stage.initial_state
    api.playouts(start, 1, 0)  # compiled before it is timed
    timing = min(TIMING_SECONDS, 0.05 * clock.remaining())
    t0, games = time.process_time(), 0
    while time.process_time() - t0 < timing or games < 4:
        api.playouts(start, 4, games)
        games += 4
    rate = games / max(time.process_time() - t0, 1e-6)
    batch = max(1, min(MAX_BATCH, int(rate * BATCH_SECONDS)))

    world_budget = [WORLD_BUDGET[1]]

    def world(state, seed, seconds):
        """A world drawn, and whether to draw more this move (else the view stands in)."""
        least, _, most = WORLD_BUDGET
        t0 = time.process_time()
        try:
            position = api.sample_world(state, seed, world_budget[0])
        except LookupError:
            return state, False
        spent = time.process_time() - t0
        if spent > WORLD_SHARE * seconds:
            world_budget[0] = max(least, world_budget[0] // 2)
            return position, False
        if spent < WORLD_SHARE * seconds / 8:
            world_budget[0] = min(most, world_budget[0] * 2)
        return position, True

    def score(position, player, seed):
        if api.is_terminal(position):
            return api.returns(position)[player] * batch
        return float(api.playouts(position, batch, seed).returns[:, player].sum())

    def strategy(state, legal_moves, clock):
        if len(legal_moves) == 1:
            return legal_moves[0]
        started, seed = time.process_time(), random.getrandbits(30)
        player = api.to_move(state)
        plies_left = float(np.mean(api.playouts(state, batch, seed).lengths))
        seconds = min(MOVE_CAP, max(0.0, clock.remaining() - RESERVE) / (plies_left / 2 + SPARE))
        deadline = started + seconds
        totals, counts = np.zeros(len(legal_moves)), np.zeros(len(legal_moves))
        searching = True  # for worlds; else the view stands in for them
        while True:
            seed += 1
            position = state
            if searching:
                position, searching = world(state, seed, seconds)
            allowed = set(api.legal_moves(position))
            stay = None  # the world's own score, for the tries it refuses (computed once)
            for i in np.argsort(counts, kind="stable"):  # the least scored first, if time runs out
                seed += 1
                move = legal_moves[i]
                if move in allowed:
                    totals[i] += score(api.apply(position, move)[0], player, seed)
                else:
                    stay = score(position, player, seed) if stay is None else stay
                    totals[i] += stay
                counts[i] += 1
                if time.process_time() >= deadline:
                    means = np.where(counts > 0, totals / np.maximum(counts, 1), -np.inf)
                    return legal_moves[int(np.argmax(means))]

    return strategy
