"""Random: a uniformly random legal move (the Arena's Random)."""
import random


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        return random.choice(legal_moves)

    return strategy
