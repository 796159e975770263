"""Fills memory that no address-space limit sees: memfd files written, never mapped. The agent's
memory control group must stop it (the kernel kills it) before the machine runs short."""
import os

NAME = "memfd_hog"


def analyze(stage, api, clock):
    held = []
    for k in range(64):  # 64 x 32 MiB = 2 GiB, over the cap the test sets
        fd = os.memfd_create(f"hog-{k}")
        chunk = b"x" * (1 << 20)
        for _ in range(32):
            os.write(fd, chunk)
        held.append(fd)
        print(f"held {32 * (k + 1)} MiB", flush=True)

    def strategy(state, legal_moves, clock):
        return legal_moves[0]

    return strategy
