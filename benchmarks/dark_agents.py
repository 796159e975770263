"""How the built-in for hidden information plays: `determinised` (flat Monte-Carlo over sampled
worlds, runtime/agents/determinised.py) against `random` and against `mcts` (which searches its view
as if it were the truth), on bundled hidden stages, in one run.

    python benchmarks/dark_agents.py [--games N] [--game-time S] [--stages NAME...] [--json FILE]

Games are played in this process (runtime/local.LocalSeat, charged with CPU time by the referee),
the seats alternating; a score is determinised's points per game (a win 1, a draw 1/2) with a 95%
Wilson interval. Strength depends on the clock: the game time is part of every line printed.
"""
from __future__ import annotations

import argparse
import json
import math
import time

from ludica import compiler, gdl, stages
from ludica.runtime.entrants import BUILTIN_DIR
from ludica.runtime.local import LocalSeat
from ludica.runtime.referee import play_game

STAGES = ("phantom-tic-tac-toe", "phantom-tic-tac-toe-abrupt", "dark-hex-5", "phantom-connect-four")
OPPONENTS = ("random", "mcts")


def wilson(points: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = points / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def match(name: str, opponent: str, games: int, game_time: float) -> dict:
    game = compiler.playable(gdl.load(stages.path(name)))
    ours = LocalSeat("determinised", str(BUILTIN_DIR / "determinised.py"), game)
    theirs = LocalSeat(opponent, str(BUILTIN_DIR / f"{opponent}.py"), game)
    ours.analyze(5.0), theirs.analyze(5.0)
    points, forfeits, started = 0.0, 0, time.monotonic()
    for g in range(games):
        seats = (ours, theirs) if g % 2 == 0 else (theirs, ours)
        record = play_game(game, seats, seed=g, game_time=game_time)
        forfeits += record.reason != "normal"
        points += 0.5 if record.winner is None else float(seats[record.winner] is ours)
    low, high = wilson(points, games)
    return {"stage": name, "opponent": opponent, "games": games, "game_time": game_time, "score": points / games,
            "interval": [round(low, 3), round(high, 3)], "forfeits": forfeits,
            "seconds": round(time.monotonic() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--game-time", type=float, default=5.0)
    parser.add_argument("--stages", nargs="*", default=list(STAGES))
    parser.add_argument("--json")
    parser.add_argument("--opponents", nargs="*", default=list(OPPONENTS))
    args = parser.parse_args(argv)
    rows = []
    for name in args.stages:
        for opponent in args.opponents:
            row = match(name, opponent, args.games, args.game_time)
            rows.append(row)
            print(f"{name:28s} determinised vs {opponent:7s} {row['score']:.2f} [{row['interval'][0]:.2f}, "
                  f"{row['interval'][1]:.2f}] over {row['games']} games at {row['game_time']:g} s a game "
                  f"({row['forfeits']} not normal, {row['seconds']:.0f} s)", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
