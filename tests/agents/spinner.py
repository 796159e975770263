"""Burns CPU on two threads past the move clock at its first move (CPU time of every thread is charged)."""
import threading


def _spin():
    x = 0
    while True:
        x += 1


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        threading.Thread(target=_spin, daemon=True).start()
        _spin()

    return strategy
