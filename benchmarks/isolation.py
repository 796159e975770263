"""What `--isolate-rules` costs an agent: the rules API in-process against the same API answered by
a rules oracle (runtime/oracle/), measured in one run, ratios printed.

Per call, from Python as an agent calls it: `apply` then `legal_moves` of the child along random
games (the oracle tells the child's moves with the apply: one round trip per ply), the same with
actions, and `legal_moves` of positions asked for the first time (one round trip each). Then the
throughput of `api.playouts` in batches of 1 and 200 games (one round trip per batch). Times are
real seconds per call; with the oracle, "CPU" adds the oracle's CPU time to this process's, which is
what the referee charges the agent.

    python benchmarks/isolation.py [--stage standard-8x8] [--plies 3000]
"""
from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from ludica import stages
from ludica.compiler import compile as compile_stage
from ludica.gdl import load
from ludica.runtime import oracle
from ludica.runtime.api import RulesApi
from ludica.runtime.clock import cpu_seconds


def start_oracle(text: str) -> oracle.OracleRules:
    started = oracle.start_alone(text)
    if started.error:
        raise SystemExit(f"the oracle did not start: {started.error}")
    return started.api


def walk(api, start, plies: int, actions: bool) -> int:
    """Random games from `start` until `plies` plies: apply, then the child's moves. Calls made."""
    rng, state, calls = random.Random(1), start, 0
    moves = api.legal_actions(state) if actions else api.legal_moves(state)
    for _ in range(plies):
        if not moves:
            state = start
        else:
            state, _ = api.apply_action(state, rng.choice(moves)) if actions else api.apply(state, rng.choice(moves))
        moves = api.legal_actions(state) if actions else api.legal_moves(state)
        calls += 2
    return calls


def positions(api, start, n: int) -> list:
    rng, state, found = random.Random(2), start, []
    while len(found) < n:
        moves = api.legal_moves(state)
        state = start if not moves else api.apply(state, rng.choice(moves))[0]
        found.append(state.copy())  # copies: a new array, so nothing is known of it yet
    return found


def timed(api, work, charged) -> tuple[float, float, int]:
    """(real seconds, charged CPU seconds, units of work)."""
    c0, t0 = charged(), time.perf_counter()
    units = work()
    return time.perf_counter() - t0, charged() - c0, units


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", default="standard-8x8", help="a bundled stage's name, or a .gdl file")
    parser.add_argument("--plies", type=int, default=3000)
    args = parser.parse_args()
    path = Path(args.stage) if args.stage.endswith(".gdl") else stages.path(args.stage)
    game = compile_stage(load(path))
    local, remote = RulesApi(game), start_oracle(path.read_text())
    start = game.initial_state()
    fresh = positions(local, start, args.plies)
    cases = [
        ("apply + legal_moves, per call", lambda api: walk(api, start, args.plies, actions=False)),
        ("apply_action + legal_actions, per call", lambda api: walk(api, start, args.plies, actions=True)),
        ("legal_moves of a new position, per call", lambda api: sum(len(api.legal_moves(s)) >= 0 for s in fresh)),
        ("playouts, 1 game per call, per game", lambda api: sum(len(api.playouts(start, 1, seed=k).lengths)
                                                                for k in range(args.plies // 3))),
        ("playouts, 200 games per call, per game", lambda api: sum(len(api.playouts(start, 200, seed=k).lengths)
                                                                   for k in range(20))),
    ]
    print(f"{args.stage}: in-process API vs the rules oracle of --isolate-rules (one run, this machine)")
    for name, work in cases:
        work(local), work(remote)  # warm: kernels, caches of the first positions
        remote._known.clear()
        real_l, cpu_l, n_l = timed(local, lambda work=work: work(local), cpu_seconds)
        real_r, cpu_r, n_r = timed(remote, lambda work=work: work(remote), remote.cpu_seconds)
        print(f"  {name:42s} in-process {real_l / n_l * 1e6:8.2f} µs ({cpu_l / n_l * 1e6:7.2f} CPU) | "
              f"oracle {real_r / n_r * 1e6:8.2f} µs ({cpu_r / n_r * 1e6:7.2f} CPU) | "
              f"{real_r / real_l * n_l / n_r:5.1f}x real, {cpu_r / max(cpu_l, 1e-9) * n_l / n_r:5.1f}x CPU")
    remote.close()


if __name__ == "__main__":
    main()
