"""Trusted in-process seats: an agent file run inside this process, charged with this process's
CPU time after each answer. For tests and quick experiments with agents one trusts (the built-ins,
one's own); tournaments run every agent in a sandboxed worker (runtime/sandbox.py).

The charge is the CPU time of the thread the agent is called in, which is also what its clock reads:
not the whole process's (the referee's other threads, another test's left-over ones, run in this
process too), nor its reaped children's (the referee's workers: their whole CPU time lands at once
when one is reaped, which forfeited an in-process agent mid-game). An in-process agent's own threads
and child processes go uncharged; a sandboxed worker charges them.

Unlike a sandboxed worker, which forks every game from the analysed strategy, a local seat plays
all its games in one process: what a strategy keeps (module globals, closures) carries over from
one game to the next. An in-process agent shares the referee's process: it is trusted, and nothing
is hidden from it that it looks for (a hidden stage's truth included); its API is given a game of its
own, so that what it is handed holds no true position.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable

import numpy as np

from ..compiler import CompiledDarkGame, CompiledGame
from .api import rules_api, stage_view
from .clock import Clock
from .sandbox import Answer
from .worker import crash_text, load_agent


class LocalSeat:
    def __init__(self, name: str, path: str, game: CompiledGame | CompiledDarkGame, reveal_text: str | None = None):
        self.name, self.game = name, game
        with open(path, encoding="utf-8") as f:
            self.module = load_agent(f.read(), str(path))
        self.view = stage_view(game, reveal_text)
        # a hidden stage's API over a game of its own: the referee's caches hold true positions
        self.api = rules_api(CompiledDarkGame(game.stage) if isinstance(game, CompiledDarkGame) else game)
        self.strategy: Callable[..., object] | None = None  # what analyze returned, once it succeeded

    def analyze(self, budget: float) -> Answer:
        t0, w0 = time.thread_time(), time.monotonic()
        try:
            strategy = self.module.analyze(self.view, self.api, Clock(budget, time.thread_time))
        except Exception:
            return Answer(None, time.thread_time() - t0, time.monotonic() - w0, "crash", crash_text(self.module.__file__))
        spent = time.thread_time() - t0
        if not callable(strategy):
            return Answer(None, spent, time.monotonic() - w0, "crash", "analyze did not return a callable")
        if spent > budget:
            return Answer(None, spent, time.monotonic() - w0, "timeout", f"{spent:.2f} s over {budget:g} s")
        self.strategy = strategy
        return Answer({"op": "analysed", "ok": True}, spent, time.monotonic() - w0)

    def start_game(self, seed: int, budget: float, seat: int = 0) -> Answer:
        # this seat's own seed; in-process both seats share one `random`, as trusted agents may
        random.seed(seed)
        np.random.seed(seed % 2**32)
        return Answer({"op": "game-ready"}, 0.0, 0.0)

    def think(self, state: list[int], legal: list[str], remaining: float) -> Answer:
        if self.strategy is None:
            return Answer(None, 0.0, 0.0, "crash", "asked for a move before an analysis that gave a strategy")
        array = np.array(state, dtype=np.int32)
        array.flags.writeable = False
        moves = [self.game.parse_move(t) for t in legal]
        t0, w0 = time.thread_time(), time.monotonic()
        try:
            move = self.strategy(array, moves, Clock(remaining, time.thread_time))
        except Exception:
            return Answer(None, time.thread_time() - t0, time.monotonic() - w0, "crash", crash_text(self.module.__file__))
        return Answer({"op": "move", "move": str(move)}, time.thread_time() - t0, time.monotonic() - w0)

    def end_game(self, score: int | None = None) -> tuple[str, int]:
        return "", 0
