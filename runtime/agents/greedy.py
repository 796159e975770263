"""Greedy: the move that captures the most pieces; the first such move in the stage's order
(row-major for placements), as the Arena's Greedy."""


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        return max(legal_moves, key=lambda move: api.apply(state, move)[1])  # max keeps the first maximum

    return strategy
