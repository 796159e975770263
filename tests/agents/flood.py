"""Prints megabytes on every move, and plays legally."""
import sys


def analyze(stage, api, clock):
    print("analysis output " * 1000)

    def strategy(state, legal_moves, clock):
        sys.stdout.write("flood " * 200_000)  # 1.2 MB a move
        sys.stdout.flush()
        sys.stderr.write("err " * 100_000)
        return legal_moves[0]

    return strategy
