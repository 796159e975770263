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
spinners = []
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


def spun(pids) -> float:
    """CPU seconds the spinners' threads have run (the kernel's count, whatever the load)."""
    total = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (OSError, IndexError, ValueError):
                pass
    return total / 1e9


def let_them_spin(pids, seconds: float = 0.3) -> None:
    """Wait until the spinners have run `seconds` of CPU on this turn: on a busy machine that takes
    longer, never less (a fixed sleep would give them less CPU, and the test would depend on load)."""
    start = spun(pids)
    while spun(pids) - start < seconds:
        time.sleep(0.01)


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        if not started:
            started.append(1)
            before = _beat()
            time.sleep(0.1)
            print("survivors:", "none" if before is None else "alive" if _beat() != before else "gone", flush=True)
            for _ in range(4):
                pid = os.fork()
                if pid == 0:
                    os.setsid()
                    threading.Thread(target=_spin).start()
                    ctypes.CDLL(None).syscall(SYS_exit, 0)
                spinners.append(pid)
        let_them_spin(spinners)  # on its own clock
        return legal_moves[0]

    return strategy
