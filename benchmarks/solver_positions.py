"""The exact solver on small stages, and what the "solved" filter's bound means for an agent.

For each stage: its positions, value and first choice (CompiledGame.solve, inside the kernel) and
the solver's time; then the time a plain Python listing of every position takes through the
public API an agent has (legal_actions, apply_action, is_terminal: a depth-first walk with a set of
states), in positions a second. The sampler rejects a stage of at most 100,000 positions
(sampler/screen.py): at the listing's speed, about a second of an agent's analysis.

    python benchmarks/solver_positions.py
"""
from __future__ import annotations

import time

from ludica import compiler, gdl, stages
from ludica.sampler import prior
from ludica.sampler.prior import generator

# Fresh stages of issue 20: the three 9-cell toys of seed 1's set, and a 4x4 stage of seed 2 just
# above the bound (170,446 positions, every first move lost).
FRESH = ((1, 5235), (1, 39090), (1, 32498), (2, 14068))
LIMITS = prior.Limits(hidden=False)  # the prior as issue 20 drew them: before stages hid information
BUNDLED = ("tic-tac-toe", "misere-tic-tac-toe")


def listing(game) -> int:
    """Every position reachable from the start, listed through the API: how many."""
    start = game.initial_state()
    seen = {start.tobytes()}
    todo = [start]
    while todo:
        state = todo.pop()
        if game.is_terminal(state):
            continue
        for action in game.legal_actions(state):
            child = game.apply_action(state, action)
            if child.tobytes() not in seen:
                seen.add(child.tobytes())
                todo.append(child)
    return len(seen)


def main() -> int:
    games = [(name, gdl.load(stages.path(name))) for name in BUNDLED]
    games += [(f"fresh {seed}/{n}", prior.draw(generator(seed, n), LIMITS, players=("black", "white")).stage)
              for seed, n in FRESH]
    for name, stage in games:
        game = compiler.compile(stage)
        game.solve(10)  # compiled and warm
        started = time.perf_counter()
        found = game.solve(1_000_000)
        solving = time.perf_counter() - started
        started = time.perf_counter()
        listed = listing(game)
        python = time.perf_counter() - started
        first = {v: found.choices.count(v) for v in (1, 0, -1)}
        print(f"{name:22s} positions {found.positions:8,d}  value {found.value:+d}  first moves win/draw/loss "
              f"{first[1]}/{first[0]}/{first[-1]}  solver {solving * 1e3:7.1f} ms   Python listing {listed:8,d} "
              f"positions in {python:6.2f} s ({listed / python:9,.0f} a second)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
