"""Forks repeatedly at its first move (each child sleeps)."""
import os
import time


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        while True:
            try:
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
            except OSError:
                time.sleep(0.001)

    return strategy
