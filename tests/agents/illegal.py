"""Returns an illegal move, then a malformed one, then a legal one, then illegal again: the third
illegal or malformed move of a game loses it."""

calls = 0


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        global calls
        calls += 1
        if calls == 1:
            return "z99"
        if calls == 2:
            return 12345  # not a move at all
        if calls == 3:
            return legal_moves[0]
        return "x" * 10_000  # a huge malformed move
    return strategy
