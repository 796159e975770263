"""Kills its own process at its third move (a crash without a Python exception)."""
import os
import signal

calls = 0


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        global calls
        calls += 1
        if calls == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return legal_moves[-1]

    return strategy
