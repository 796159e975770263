"""Foresees its opponent's moves if the opponent's `random` starts where its own does (leak 4: both
seats seeded with one seed). At its first move of a game it copies the state of its own `random`, as
the referee seeded it, and from then on draws from the copy what the built-in `random` would choose
in each position it leaves that opponent; it never uses `random` itself, so the copy stays in step.
It plays the first legal move.

Output, after each of the opponent's moves it checked: `foresaw H of N, by chance C V` (H right
of the N so far this game; C the number a guess would get right on average, V its variance: a
guess in a position of k legal moves is right with probability 1/k).
"""
import random

import numpy as np


def analyze(stage, api, clock):
    seen = {"mirror": None, "expected": None, "odds": 0.0, "hits": 0, "checked": 0, "chance": 0.0, "variance": 0.0}

    def check(state):
        """Count whether the opponent's last move left the position foreseen."""
        if seen["expected"] is not None:
            seen["checked"] += 1
            seen["hits"] += bool(np.array_equal(state, seen["expected"]))
            seen["chance"] += seen["odds"]
            seen["variance"] += seen["odds"] * (1 - seen["odds"])
            print(f"foresaw {seen['hits']} of {seen['checked']}, by chance {seen['chance']:.4f} "
                  f"{seen['variance']:.4f}", flush=True)
            seen["expected"] = None

    def foresee(after, me):
        """Draw the opponent's reply in `after` (the position this move leaves) from the copy."""
        if api.is_terminal(after) or api.to_move(after) == me:
            return  # the opponent is not asked: nothing to foresee
        legal = api.legal_moves(after)
        if len(legal) == 1 and legal[0].is_pass:
            return  # a forced pass: the referee plays it without asking
        seen["expected"], seen["odds"] = api.apply(after, seen["mirror"].choice(legal))[0], 1 / len(legal)

    def strategy(state, legal_moves, clock):
        me = api.to_move(state)
        if seen["mirror"] is None:  # this game's first move: the generator as the referee seeded it
            seen["mirror"] = random.Random()
            seen["mirror"].setstate(random.getstate())
            start = np.asarray(stage.initial_state)
            if not np.array_equal(state, start) and api.to_move(start) != me:  # White: the opponent moved
                foresee(start, me)
        check(state)
        move = legal_moves[0]
        foresee(api.apply(state, move)[0], me)
        return move

    return strategy
