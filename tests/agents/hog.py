"""At its first move, leaves processes spinning (in sessions of their own) to take the cores from
its opponent: they must not run while it is not its turn, and are charged when they do."""
import os
import time

started = []
spinners = []


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
            for _ in range(4):
                pid = os.fork()
                if pid == 0:
                    os.setsid()
                    while True:
                        pass
                spinners.append(pid)
        let_them_spin(spinners)  # on its own clock
        return legal_moves[0]

    return strategy
