"""Do A's intervals hold what they say (issue 34 item 6)?

Simulates an agent's adaptation games from known odds and computes its curve with ludica's own code
(evaluation/adaptation.curves): on each unseen stage the agent, entered at each budget fraction f,
plays each baseline `games` times in each seat. The odds of a game are logistic in the agent's level
at f, the stage (N(0, stage_sd) on the logit scale, drawn afresh each trial), the opponent (fixed
spread, as random is weaker than mcts) and the seat; a game is drawn with probability
min(draws, p, 1 − p), as in benchmarks/rating_coverage.py. The agent at each fraction plays a cell's
game (stage, opponent, seat, index) with the seeds the full agent has there (common random
numbers), so their results go together: here as far as they can, one uniform draw per cell for every
fraction (`independent`: a draw per game, for comparison). A point's truth is its expected value on
the trial's stages (each game's expected points, weighted as the point weighs the game), the area's
the same weighted sum across points; the intervals are the games' noise given the stages, as the
ratings' are. Printed per design: each point's and the area's coverage, the mean width, the truth.

    python benchmarks/adaptation_coverage.py [--trials 2000] [--seed 1] [--design NAME ...]

Target: coverage ≥ 93% for every point and the area in every design.
"""
from __future__ import annotations

import argparse
import math
import random
from dataclasses import dataclass

from ludica.evaluation import adaptation

TARGET_COVERAGE = 0.93
BASELINES = {"random": -1.5, "greedy": 0.0, "corners": 0.3, "positional": 0.3, "mcts": 1.0}  # their strength (logit)
FRACTIONS = (0.25, 0.5, 1.0)


@dataclass(frozen=True)
class Design:
    levels: tuple[float, ...]  # the agent's strength (logit) at each of FRACTIONS
    stages: int = 4
    games: int = 1  # per seat per baseline per stage
    draws: float = 0.0
    stage_sd: float = 0.5
    independent: bool = False  # a uniform draw per game, not one per cell shared by the fractions
    what: str = ""


# The default run: 4 unseen stages, the five baselines, one game per seat (10 games per stage).
DESIGNS = {
    "default": Design((0.0, 0.5, 1.0), what="4 stages × 5 baselines × 2 seats; a learner"),
    "flat": Design((0.7, 0.7, 0.7), what="an agent that needs no time"),
    "strong": Design((2.5, 3.5, 4.5), what="near sweeps"),
    "weak": Design((-4.0, -3.5, -3.0), what="near losses everywhere"),
    "draws": Design((0.0, 0.5, 1.0), draws=0.3, what="30% draws"),
    "one_stage": Design((0.0, 0.5, 1.0), stages=1, what="a single unseen stage"),
    "many": Design((0.0, 0.5, 1.0), stages=20, games=2, stage_sd=1.0, what="20 stages × 2 games per seat, stages far apart"),
    "independent": Design((0.0, 0.5, 1.0), independent=True, what="the default, each game drawn on its own"),
}


def simulate(design: Design, rng: random.Random) -> tuple[list[dict], dict[str, tuple[str, float]], dict]:
    """(the games as store rows, the pseudo-entrants, the true values {f: point, "area": area})."""
    games, truth = [], {}
    pseudo = {f"me@{f:g}": ("me", f) for f in FRACTIONS if f != 1.0}
    stages = [rng.gauss(0.0, design.stage_sd) for _ in range(design.stages)]
    shared = [rng.random() for _ in range(design.stages * len(BASELINES) * 2 * design.games)]
    for f, level in zip(FRACTIONS, design.levels):
        draws = iter(shared)
        name = "me" if f == 1.0 else f"me@{f:g}"
        expected = []
        for s, effect in enumerate(stages):
            for opponent, strength in BASELINES.items():
                for seat in (0, 1):
                    p = 1.0 / (1.0 + math.exp(-(level + effect - strength + (0.2 if seat == 0 else -0.2))))
                    drawn = min(design.draws, p, 1.0 - p)
                    expected.append(p)  # a draw takes half of p − drawn/2 from each side: the mean stays p
                    for k in range(design.games):
                        u = rng.random() if design.independent else next(draws)
                        mine = 1.0 if u < p - drawn / 2 else 0.5 if u < p + drawn / 2 else 0.0
                        result = {1.0: "black", 0.5: "draw", 0.0: "white"}[mine if seat == 0 else 1.0 - mine]
                        black, white = (name, opponent) if seat == 0 else (opponent, name)
                        games.append({"stage_hash": f"stage-{s}", "black": black, "white": white, "result": result,
                                      "game_index": k})
        truth[f] = sum(expected) / len(expected)  # every cell plays as many games: the point's weights
    truth["area"] = adaptation.area([(f, truth[f]) for f in FRACTIONS])
    return games, pseudo, truth


def measure(name: str, trials: int, seed: int) -> dict[str, dict[str, float]]:
    """{point or "area": {"cover", "width", "truth"}} (means over trials) for the design `name`."""
    design = DESIGNS[name]
    rng = random.Random(seed * 1000 + list(DESIGNS).index(name))
    keys = [f"{f:g}" for f in FRACTIONS] + ["area"]
    sums = {k: {"cover": 0.0, "width": 0.0, "truth": 0.0} for k in keys}
    for _ in range(trials):
        games, pseudo, truth = simulate(design, rng)
        unseen = {g["stage_hash"] for g in games}
        curve = adaptation.curves(games, pseudo, list(BASELINES), unseen)["me"]
        got = {f"{f:g}": (interval, truth[f]) for (f, _), interval in zip(curve["points"], curve["intervals"])}
        got["area"] = (curve["area_interval"], truth["area"])
        for k, (interval, true) in got.items():
            low, high = interval
            sums[k]["cover"] += low <= true <= high
            sums[k]["width"] += high - low
            sums[k]["truth"] += true
    return {k: {m: v / trials for m, v in row.items()} for k, row in sums.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=2000, help="simulated runs per design (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--design", choices=list(DESIGNS), nargs="*", help="designs to run (default all)")
    args = parser.parse_args(argv)
    print(f"coverage of A's 95% intervals, {args.trials} trials per design, seed {args.seed}: "
          "per point (budget fraction) and the area, coverage / mean width / mean true value")
    print(f"{'design':10}" + "".join(f" | {k:>20}" for k in [f"{f:g}" for f in FRACTIONS] + ["area"]))
    missed = []
    for name in args.design or DESIGNS:
        rows = measure(name, args.trials, args.seed)
        print(f"{name:10}" + "".join(f" | {100 * r['cover']:5.1f}% {r['width']:5.3f} {r['truth']:5.3f}"
                                     for r in rows.values()) + f"  [{DESIGNS[name].what}]")
        missed += [f"{name}/{k} {100 * r['cover']:.1f}%" for k, r in rows.items() if r["cover"] < TARGET_COVERAGE]
    print(f"target (≥ {100 * TARGET_COVERAGE:.0f}% everywhere): " + ("met" if not missed else "missed: " + ", ".join(missed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
