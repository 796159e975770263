"""Determinised search: for hidden information, search the worlds you cannot tell apart.

Each iteration draws a world, a true position consistent with all this player has seen
(`api.sample_world`: on a stage with hidden information it searches the games that would have
told the player exactly what it was told; on a perfect-information stage it is the position
itself), and grows mcts.py's UCT tree on it for a slice of the move's time (WORLDS_PER_MOVE
slices). Each try gathers, over the worlds, the returns and visits of its edge at the root; a try a
world would refuse (the board does not change; the player learns a cell) scores there the world's
own random games, as much as a batch. The try played has the best mean return over all the worlds
(determinised UCT: Long, Sturtevant, Buro & Furtak, "Understanding the success of perfect
information Monte Carlo sampling in game tree search", AAAI 2010; Cowling, Powley & Whitehouse,
"Information Set Monte Carlo Tree Search", 2012, for what it leaves out: strategy fusion). A world
the search cannot find within its budget of tries (a long game on a large board) is replaced by the
player's own view, played as if it were the truth, for the rest of the move; the budget is what
WORLD_SHARE of the move's time buys at the cost of a try of search seen so far (the most seen).

Time: per turn, `(remaining - FLOOR) / (own turns left + SPARE)`, capped at MOVE_CAP seconds, as
mcts.py plans it (a hidden stage's turns counted twice its moves: refused tries are turns too),
checked after every world's tree; under FLOOR seconds left, a try is played at once. The analysis
times the playouts to choose the batch, and the tree search is mcts.py's, both imported (ludica's
package is in every sandbox).
"""
import random
import time

import numpy as np

from ludica.runtime.agents import mcts as uct  # its tree search, run on each world

MOVE_CAP = 2.0  # seconds, at most, on one move
SPARE = 4  # moves' worth of clock kept back
BATCH_SECONDS = 0.001  # the target CPU cost of one leaf's batch of playouts (as mcts.py's)
MAX_BATCH = 64
WORLD_BUDGET = (20, 5_000)  # tries of search for one world: least, most (sized from its cost per try)
WORLD_SHARE = 0.25  # of a move's time, at most, one world's search may take
TRY_SECONDS = 0.0006  # a first guess of one try of a world's search (dark Hex 11x11's), then measured
FLOOR = 0.1  # seconds left under which a try is played at once (a random one)
TIMING_SECONDS = 0.3
WORLDS_PER_MOVE = 4  # a move's time is shared among this many worlds' trees


def analyze(stage, api, clock):
    batch = uct.leaf_batch(api, stage.initial_state, clock, BATCH_SECONDS, MAX_BATCH, TIMING_SECONDS)
    # a hidden stage has tries beyond its moves (refused ones): plan for twice as many turns
    turns_per_ply = 1.0 if getattr(stage, "hidden", False) else 0.5
    try_cost = [TRY_SECONDS]  # a world's search, per try of its budget: the most seen

    def world(state, seed, seconds):
        """A world drawn within WORLD_SHARE of the move's time (its budget sized from the cost of a
        try seen so far), and whether to draw more this move (else the view stands in)."""
        least, most = WORLD_BUDGET
        budget = max(least, min(most, int(WORLD_SHARE * seconds / try_cost[0])))
        t0 = time.process_time()
        try:
            position = api.sample_world(state, seed, budget)
        except LookupError:
            try_cost[0] = max(try_cost[0], (time.process_time() - t0) / budget)  # the whole budget was spent
            return state, False
        spent = time.process_time() - t0
        return position, spent < WORLD_SHARE * seconds

    def score(position, player, seed):
        if api.is_terminal(position):
            return api.returns(position)[player] * batch
        return float(api.playouts(position, batch, seed).returns[:, player].sum())

    def strategy(state, legal_moves, clock):
        if len(legal_moves) == 1:
            return legal_moves[0]
        if clock.remaining() < FLOOR:  # no time to think: any try beats a loss on time
            return random.choice(legal_moves)
        started, seed = time.process_time(), random.getrandbits(30)
        player = api.to_move(state)
        plies_left = float(np.mean(api.playouts(state, batch, seed).lengths))
        turns_left = plies_left * turns_per_ply
        seconds = min(MOVE_CAP, max(0.0, clock.remaining() - FLOOR) / (turns_left + SPARE))
        deadline = started + seconds
        slice_ = seconds / WORLDS_PER_MOVE
        totals, counts = np.zeros(len(legal_moves)), np.zeros(len(legal_moves))
        searching = True  # for worlds; else the view stands in for them
        while True:
            seed += 1
            position = state
            if searching:
                position, searching = world(state, seed, seconds)
            # a tree of this world, for a slice of the move's time (mcts.py's search)
            root = uct.Node(api, position)
            uct.search(api, root, batch, min(deadline, time.process_time() + slice_), seed)
            index = {move: j for j, move in enumerate(root.moves)}
            stay = None  # the world's own score, for the tries it refuses (computed once)
            for i, move in enumerate(legal_moves):
                j = index.get(move)
                if j is not None:
                    totals[i] += root.w[j]
                    counts[i] += root.n[j]
                else:
                    seed += 1
                    stay = score(position, player, seed) if stay is None else stay
                    totals[i] += stay
                    counts[i] += batch
            if time.process_time() >= deadline:
                means = np.where(counts > 0, totals / np.maximum(counts, 1), -np.inf)
                return legal_moves[int(np.argmax(means))]

    return strategy
