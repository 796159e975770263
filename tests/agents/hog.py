"""At its first move, leaves processes spinning (in sessions of their own) to take the cores from
its opponent: they must not run while it is not its turn, and are charged when they do."""
import os
import time

started = []


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        if not started:
            started.append(1)
            for _ in range(4):
                if os.fork() == 0:
                    os.setsid()
                    while True:
                        pass
        time.sleep(0.05)  # the spinners run meanwhile, on its own clock
        return legal_moves[0]

    return strategy
