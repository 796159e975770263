"""Thinks in short-lived child processes that the kernel reaps at once (SIGCHLD ignored), so
their CPU time is never added to a parent's: only a count of every process's time catches it."""
import os
import signal
import time


def _burn(seconds):
    t = time.process_time()
    while time.process_time() - t < seconds:
        pass


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        while True:  # 40 ms children, two at a time, until the referee stops it
            for _ in range(2):
                if os.fork() == 0:
                    _burn(0.04)
                    os._exit(0)
            time.sleep(0.045)

    return strategy
