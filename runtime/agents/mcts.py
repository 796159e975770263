"""MCTS: UCT Monte-Carlo tree search whose leaves are scored by batches of random games played
inside the kernel (`api.playouts`), on any stage.

Each iteration walks down the tree by UCT (the mean return of the player who made the move, plus
C·sqrt(ln N / n)), expands one untried move (in a random order), plays `batch` random games from
the new position, and adds their returns to every edge of the path, each edge scoring for the
player who made that move (`api.to_move` of the position it leaves): passes, "moves again" rules
and any turn order need nothing special. A terminal position scores its exact returns. The move
played is the most visited one (the first in the stage's order among equals).

Time: per move, `(remaining - RESERVE) / (own moves left + SPARE)`, capped at MOVE_CAP seconds,
the moves left estimated from the lengths of random games from the position (a random game is
rarely shorter than a real one). The analysis only times the playouts, to choose `batch` so that a
leaf costs about LEAF_SECONDS (up to MAX_BATCH games). The subtree of the position reached two
plies later is kept for the next move.
"""
import math
import random
import time

import numpy as np

C = 1.0  # exploration constant, for returns in [-1, 1]
MOVE_CAP = 2.0  # seconds, at most, on one move
SPARE = 4  # moves' worth of clock kept back: about 3/(moves + 4) of it is left at the end
RESERVE = 0.05  # seconds never planned for: the referee charges in coarser ticks than process_time
LEAF_SECONDS = 0.001  # the target CPU cost of one leaf's playouts
MAX_BATCH = 32
TIMING_SECONDS = 0.5  # at most, of the analysis spent timing playouts


class Node:
    """A position in the tree, with the statistics of the moves out of it: n (games through the
    move) and w (their summed returns for `player`, the side to move here)."""

    __slots__ = ("state", "player", "moves", "children", "untried", "n", "w", "total", "value")

    def __init__(self, api, state):
        self.state = state
        self.player = api.to_move(state)
        self.value = np.array(api.returns(state), dtype=float) if api.is_terminal(state) else None
        self.moves = [] if self.value is not None else api.legal_moves(state)
        self.children = [None] * len(self.moves)
        self.untried = list(range(len(self.moves)))
        random.shuffle(self.untried)
        self.n = np.zeros(len(self.moves))
        self.w = np.zeros(len(self.moves))
        self.total = 0.0

    def select(self):
        """The child with the highest UCT score (the first of equals)."""
        score = self.w / self.n + C * np.sqrt(math.log(self.total) / self.n)
        return int(np.argmax(score))


def search(api, root, batch, deadline, seed):
    """Grow the tree under `root` until `time.process_time()` passes `deadline` (at least one
    iteration). process_time is finer than the clock's ticks: per-move budgets are small."""
    while True:
        node, path = root, []
        while node.value is None and not node.untried:
            i = node.select()
            path.append((node, i))
            node = node.children[i]
        if node.value is not None:  # a terminal position: its exact returns
            returns = node.value * batch
        else:
            i = node.untried.pop()
            child = node.children[i] = Node(api, api.apply(node.state, node.moves[i])[0])
            path.append((node, i))
            if child.value is not None:
                returns = child.value * batch
            else:
                seed += 1
                returns = api.playouts(child.state, batch, seed).returns.sum(axis=0)
        for parent, i in path:
            parent.n[i] += batch
            parent.w[i] += returns[parent.player]
            parent.total += batch
        if time.process_time() >= deadline:
            return


def find(root, state, depth=2):
    """The node of `state` among root's descendants down to `depth` plies, or None."""
    key = state.tobytes()
    level = [root]
    for _ in range(depth):
        level = [child for node in level for child in node.children if child is not None]
        for node in level:
            if node.state.tobytes() == key:
                return node
    return None


def leaf_batch(api, start, clock, leaf_seconds, max_batch, timing_seconds):
    """The random games a leaf can afford: playouts from `start` timed for at most `timing_seconds`
    (or 5% of the clock), as many as `leaf_seconds` buys, 1 to `max_batch`."""
    api.playouts(start, 1, 0)  # compiled before it is timed
    timing = min(timing_seconds, 0.05 * clock.remaining())
    t0, games = time.process_time(), 0
    while time.process_time() - t0 < timing or games < 4:
        api.playouts(start, 4, games)
        games += 4
    rate = games / max(time.process_time() - t0, 1e-6)
    return max(1, min(max_batch, int(rate * leaf_seconds)))


def analyze(stage, api, clock):
    batch = leaf_batch(api, stage.initial_state, clock, LEAF_SECONDS, MAX_BATCH, TIMING_SECONDS)
    kept: dict[str, Node | None] = {"root": None}

    def strategy(state, legal_moves, clock):
        if len(legal_moves) == 1:
            return legal_moves[0]
        started, seed = time.process_time(), random.getrandbits(30)
        plies_left = float(np.mean(api.playouts(state, batch, seed).lengths))
        own_moves_left = plies_left / max(1, len(stage.players))
        seconds = min(MOVE_CAP, max(0.0, clock.remaining() - RESERVE) / (own_moves_left + SPARE))
        root = find(kept["root"], state) if kept["root"] is not None else None
        root = root or Node(api, state)
        search(api, root, batch, started + seconds, seed)
        kept["root"] = root
        best = root.moves[int(np.argmax(root.n))]  # the most visited (root.moves is the legal list)
        return best if best in legal_moves else legal_moves[0]

    return strategy
