"""Thinks in an at-fork hook, in each new game process before the game starts: that is game time."""
import os
import time


def _think():
    t = time.process_time()
    while time.process_time() - t < 30:
        pass


def analyze(stage, api, clock):
    os.register_at_fork(after_in_child=_think)
    return lambda state, legal_moves, clock: legal_moves[0]
