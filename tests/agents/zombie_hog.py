"""At its first move, leaves processes spinning whose first thread has exited alone: the process
then shows as a zombie in /proc while its other thread runs on. They must be stopped between its
turns, charged when they run, and killed at the end of the game like any other process. Each
spinner beats a heartbeat file; each game's first move says whether an earlier game's spinners
still beat (`survivors: alive`), before it starts its own."""
import ctypes
import os
import threading
import time

HEARTBEAT = "/tmp/zombie-heartbeat"
started = []
SYS_exit = 60  # x86_64: ends the calling thread only (exit_group ends the process)


def _spin():
    n = 0
    while True:
        n += 1
        if n % 100000 == 0:
            with open(HEARTBEAT, "w") as f:
                f.write(f"{os.getpid()} {n}")


def _beat():
    try:
        with open(HEARTBEAT) as f:
            return f.read()
    except OSError:
        return None


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        if not started:
            started.append(1)
            before = _beat()
            time.sleep(0.1)
            print("survivors:", "none" if before is None else "alive" if _beat() != before else "gone", flush=True)
            for _ in range(4):
                if os.fork() == 0:
                    os.setsid()
                    threading.Thread(target=_spin).start()
                    ctypes.CDLL(None).syscall(SYS_exit, 0)
        time.sleep(0.05)  # the spinners run meanwhile, on its own clock
        return legal_moves[0]

    return strategy
