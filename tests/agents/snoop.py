"""Tries to open a socket, to read the referee's results and to signal the referee, prints what
happened, then plays legally. REFEREE_PID and RESULTS are filled in by the test."""
import os
import signal
import socket

REFEREE_PID = 0
RESULTS = ""


def _try(what, action):
    try:
        action()
        print(f"{what}: SUCCEEDED")
    except Exception as e:
        print(f"{what}: blocked ({type(e).__name__})")


def _connect():
    socket.create_connection(("127.0.0.1", 9), timeout=1).close()


def _read():
    with open(RESULTS, "rb") as f:
        f.read(16)


def analyze(stage, api, clock):
    _try("socket", _connect)
    _try("socket-out", lambda: socket.create_connection(("1.1.1.1", 80), timeout=1).close())
    _try("read", _read)
    _try("signal", lambda: os.kill(REFEREE_PID, signal.SIGUSR1))
    _try("proc", lambda: open(f"/proc/{REFEREE_PID}/environ", "rb").read())

    def strategy(state, legal_moves, clock):
        return legal_moves[0]

    return strategy
