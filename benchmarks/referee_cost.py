"""The referee's own cost per move through the sandbox, measured in one run.

Plays random against greedy on a stage, both sandboxed (each in its worker, a game process per
game), and reports per ply: real time, the CPU time charged to the agents, and the difference,
which is the referee's own cost (asking, waiting, charging, stopping and resuming the agents,
applying the move, logging). The same games with both agents in-process (no sandbox) give the
floor: the engine's and the referee's bookkeeping without any process boundary.

The same games with both agents' rules in oracles of their own (`--isolate-rules`) give that
mode's cost per move to the referee. Then the cost of starting an agent's worker (its sandbox,
Python, the stage compiled from numba's cache, the API warmed; the agent's own code not yet
loaded): real time from launch until it is ready, and the CPU time of its processes, over
`--starts` starts of the random agent, without and with its rules oracle.

    python benchmarks/referee_cost.py [--stage standard-8x8] [--games 20] [--starts 10]

Target (issue 11): under 1 ms per move through the sandbox.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from ludica import gdl, stages
from ludica.compiler import compile as compile_stage
from ludica.runtime import referee, resolve, tournament
from ludica.runtime.records import ResultsStore
from ludica.runtime.stage_entrant import Entrant

TARGET_MS = 1.0


def measure(stage, game, sandbox: bool, games: int, isolate: bool = False) -> tuple[float, float, int]:
    """(real seconds, charged seconds, plies) over `games` games after one warm-up game."""
    options = tournament.Options(analysis_time=5, game_time=30, sandbox=sandbox, isolate_rules=isolate)
    with tempfile.TemporaryDirectory() as tmp:
        store = ResultsStore(Path(tmp) / "r.sqlite")
        seats = [Entrant(resolve(n), game, gdl.format(stage), options, store, stage, options.analysis_time)
                 for n in ("random", "greedy")]
        try:
            ready = tuple(s.ready() for s in seats)
            referee.play_game(game, ready, 0, 30.0, names=("random", "greedy"))
            wall = charged = 0.0
            plies = 0
            for g in range(1, games + 1):
                t0 = time.perf_counter()
                # both seats told g: sandboxed or in-process (one `random` for both), random plays the
                # same moves, so both modes time the same games
                record = referee.play_game(game, ready, g, 30.0, names=("random", "greedy"), seat_seeds=(g, g))
                wall += time.perf_counter() - t0
                charged += sum(record.time_used)
                plies += sum(1 for p in record.plies if p.move != "pass")
        finally:
            for s in seats:
                s.close()
            store.close()
    return wall, charged, plies


def start_cost(text: str, starts: int, isolate: bool = False) -> tuple[float, float]:
    """(real seconds, CPU seconds of the worker's processes) per start of a sandboxed worker, after
    one start that is not counted (it fills the page cache)."""
    from ludica.runtime.sandbox import AgentProcess, Settings

    agent = str(resolve("random").path)
    wall = cpu = 0.0
    for k in range(starts + 1):
        seat = AgentProcess(agent, text, Settings(isolate_rules=isolate))
        t0 = time.perf_counter()
        answer = seat.start()
        took, used = time.perf_counter() - t0, seat.tree.cpu_seconds()
        seat.close()
        if answer.failure:
            raise SystemExit(f"the worker did not start: {answer.failure} {answer.detail}")
        if k:
            wall, cpu = wall + took, cpu + used
    return wall / starts, cpu / starts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stage", default="standard-8x8")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--starts", type=int, default=10)
    args = parser.parse_args()
    stage = gdl.load(stages.path(args.stage) if "/" not in args.stage else Path(args.stage))
    game = compile_stage(stage)
    rows = {}
    for label, sandbox, isolate in (("in-process", False, False), ("sandboxed", True, False),
                                    ("isolated", True, True)):
        wall, charged, plies = measure(stage, game, sandbox, args.games, isolate)
        rows[label] = (wall, charged, plies)
        print(f"{label:>10}: {args.games} games, {plies} moves: {1000 * wall / plies:6.3f} ms real per move, "
              f"{1000 * charged / plies:6.3f} ms charged to the agents, referee's own "
              f"{1000 * (wall - charged) / plies:6.3f} ms; {wall / args.games * 1000:.0f} ms per game")
    wall, charged, plies = rows["sandboxed"]
    own = 1000 * (wall - charged) / plies
    floor = 1000 * (rows["in-process"][0] - rows["in-process"][1]) / rows["in-process"][2]
    print(f"sandbox overhead per move: {own - floor:.3f} ms over the in-process floor ({floor:.3f} ms); "
          f"referee's own cost {own:.3f} ms per move: target < {TARGET_MS:g} ms "
          f"{'met' if own < TARGET_MS else 'NOT met'}")
    isolated = 1000 * (rows["isolated"][0] - rows["isolated"][1]) / rows["isolated"][2]
    print(f"--isolate-rules: referee's own cost {isolated:.3f} ms per move, {isolated / own:.2f}x the default "
          "sandbox's (the agents' API calls, answered by their oracles, are charged to them: "
          "benchmarks/isolation.py)")
    if args.starts:
        starts = {}
        for label, isolate in (("agent start", False), ("with --isolate-rules", True)):
            wall, cpu = starts[label] = start_cost(gdl.format(stage), args.starts, isolate)
            print(f"{label:>20}: {1000 * wall:.0f} ms real, {1000 * cpu:.0f} ms CPU of its processes, per start "
                  f"({args.starts} starts)")
        print(f"an agent's start with its rules oracle: {starts['with --isolate-rules'][0] / starts['agent start'][0]:.2f}x "
              "the default's real time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
