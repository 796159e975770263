"""Raises an exception at its fifth move of every game."""
import random

moves = 0


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        global moves
        moves += 1
        if moves == 5:
            raise RuntimeError("crash at move 5, on purpose")
        return random.choice(legal_moves)

    return strategy
