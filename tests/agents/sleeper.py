"""Sleeps past the move clock at its second move (no CPU time: the idle backstop catches it)."""
import time

calls = 0


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        global calls
        calls += 1
        if calls == 2:
            time.sleep(600)
        return legal_moves[0]

    return strategy
