"""Compile the kernels a run needs before it starts, the distinct kinds side by side.

A stage's kernels are those of its family (compiler/families/) or the generic ones; numba compiles
each kind once into its on-disk cache, which every later process loads in well under a second.
A run over stages of several kinds compiles them in parallel processes, one per kind, up to one
per core (the demo's Othello and placement stages: the wait is the longer of the two, not their
sum: 24 s instead of 29 s cold, on this 2-core machine). numba writes its cache files atomically, so two processes that compile a shared helper
leave a valid cache behind.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

from ..compiler import playable
from ..compiler import kind
from ..gdl import loads
from ..gdl.ast import Stage
from ..gdl.printer import format as format_stage
from .api import rules_api, warm


def kinds(stages: list[Stage]) -> dict[str, Stage]:
    """One stage per kind of kernels (a family's name, or "generic"), in the order first met;
    named without compiling any (compiler.kind)."""
    chosen: dict[str, Stage] = {}
    for stage in stages:
        chosen.setdefault(kind(stage), stage)
    return chosen


def warm_stages(stages: list[Stage], jobs: int | None = None) -> list[str]:
    """Fill numba's cache with the kernels of every kind among `stages`, `jobs` processes at a time
    (default: the machine's cores) when there are several kinds; returns the kinds. A process that
    fails changes nothing: the stage's own warm-up later compiles in the referee, and says why.
    (A kind's calls from Python and its playouts share most of their helpers: compiled in two
    processes, the demo's kinds took 26 s instead of 24 s.)"""
    chosen = kinds(stages)
    jobs = min(jobs or os.cpu_count() or 1, len(chosen))
    if jobs < 2:
        return list(chosen)
    # Plain interpreters reading a stage on stdin (multiprocessing's spawn would import the caller's
    # main module again in each, and a fork could copy numba's threads).
    waiting = [format_stage(stage) for stage in chosen.values()]
    running: list[subprocess.Popen] = []
    try:
        while waiting or running:
            while waiting and len(running) < jobs:
                process = subprocess.Popen([sys.executable, "-c", "from ludica.runtime.warmup import main; main()"],
                                           stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                           text=True)
                assert process.stdin is not None  # stdin=PIPE
                process.stdin.write(waiting.pop(0))
                process.stdin.close()
                running.append(process)
            time.sleep(0.05)
            running = [process for process in running if process.poll() is None]
    finally:
        for process in running:
            process.kill()
            process.wait()
    return list(chosen)


def main() -> None:
    """A warm-up process: the stage's text on stdin."""
    game = playable(loads(sys.stdin.read()))
    warm(rules_api(game), game.information(game.initial_state(), 0))
