"""Do the ratings' 95% intervals hold what they say?

Simulates round robins from known Bradley–Terry strengths (both seats, every stage), rates each
with `evaluation.ratings.rate` as a run does, and prints per design and agent the coverage (the share
of trials whose interval holds the true rating), the bias (mean estimate − true rating) and the
mean width of the interval. True ratings are on the scale the ratings use: random = 1000, the
others 1000 + their strength; random, the anchor, is 1000 by definition and not counted.

`--method before` rates with the method before issue 20 (one virtual draw per pair, percentile
bootstrap intervals; computed by today's fitting code, which gives choix's numbers faster), `both`
(the default) prints the two side by side from the same games, with the time `rate` took per run
(1000 resamples, as the overall ratings of a report). `counted` is today's method with a stage
weighed by the games it holds rather than its share of its planned ones (before issue 34: it
differs from `after` only on a stage in progress, design in_progress); `all` prints the three.

    python benchmarks/rating_coverage.py [--trials 400] [--seed 1] [--method both|all|before|counted|after]
                                         [--design NAME ...]

Targets (issue 20): coverage ≥ 93% for every agent of every design (≥ 90% for the dominant agent),
mean |bias| over a design's agents ≤ 15 Elo.
"""
from __future__ import annotations

import argparse
import math
import random
import time
from dataclasses import dataclass

from ludica.evaluation.ratings import ANCHOR, ANCHOR_ELO, RESAMPLES, Outcome, rate

TARGET_COVERAGE = 0.93
TARGET_DOMINANT = 0.90
TARGET_BIAS = 15.0


@dataclass(frozen=True)
class Design:
    strengths: dict[str, float]  # Elo above random
    stages: int
    games: int  # per seating (black, white) per stage
    draws: float = 0.0  # P(draw) = min(draws, p, 1 − p): as many draws as the odds allow
    what: str = ""
    begun: int = 0  # games played so far of one more stage, in the schedule's order: a run mid-stage


# The default run's shape: the five baselines and two submitted agents, six stages, one game per
# seating. Strengths as measured on Othello-like stages: greedy and the two evaluation heuristics
# 200–300 above random (corners and positional 8 apart), mcts 500, one submitted agent between
# them and one above mcts.
DESIGNS = {
    "balanced": Design({ANCHOR: 0, "a": 150, "b": 300, "c": 450}, 2, 10,
                       what="4 agents 150 apart, 2 stages × 10 games per seating"),
    "draws": Design({ANCHOR: 0, "a": 50, "b": 100, "c": 150}, 2, 10, 0.3, what="30% draws, 2 stages × 10"),
    "few": Design({ANCHOR: 0, "a": 100, "b": 200, "c": 300}, 1, 2, what="1 stage × 2 games per seating"),
    "default": Design({ANCHOR: 0, "greedy": 200, "corners": 300, "positional": 308, "mcts": 500, "sub_a": 400,
                       "sub_b": 650}, 6, 1, what="7 agents, 6 stages × 1 game per seating"),
    "dominant": Design({ANCHOR: 0, "a": 150, "b": 300, "star": 1000}, 2, 10,
                       what="star 700 above the next, 2 stages × 10"),
    "equal": Design({ANCHOR: 0, "a": 0, "b": 0}, 2, 10, what="3 equal agents, 2 stages × 10"),
    "in_progress": Design({ANCHOR: 0, "greedy": 200, "corners": 300, "positional": 308, "mcts": 500, "sub_a": 400,
                           "sub_b": 650}, 6, 1, begun=3,
                          what="the default shape with a 7th stage 3 games in (the live page, a report mid-run)"),
}
DOMINANT = ("dominant", "star")
METHODS = {"after": {}, "before": {"prior": 1.0, "interval": "percentile"},
           "counted": {}}  # after, but a stage weighs by its games played, not its planned ones (before issue 34)


def simulate(design: Design, rng: random.Random) -> tuple[list[Outcome], dict[str, int]]:
    """(the games, each stage's planned games)."""
    games: list[Outcome] = []
    planned = {}
    for s in range(design.stages + (design.begun > 0)):
        planned[f"stage-{s}"] = design.games * len(design.strengths) * (len(design.strengths) - 1)
        if s == design.stages:
            begun = len(games) + design.begun
        for black, b in design.strengths.items():
            for white, w in design.strengths.items():
                if black == white:
                    continue
                p = 1.0 / (1.0 + 10.0 ** ((w - b) / 400.0))  # black's expected score
                drawn = min(design.draws, p, 1.0 - p)
                for _ in range(design.games):
                    u = rng.random()
                    score = 1.0 if u < p - drawn / 2 else 0.5 if u < p + drawn / 2 else 0.0
                    games.append(Outcome(f"stage-{s}", black, white, score))
    return (games if not design.begun else games[:begun]), planned


@dataclass
class Tally:
    covered: int = 0
    error: float = 0.0
    squared: float = 0.0
    width: float = 0.0


def measure(name: str, trials: int, seed: int, methods: list[str], resamples: int = RESAMPLES
            ) -> tuple[dict[str, dict[str, Tally]], float, dict[str, float]]:
    """({method: {agent: Tally}}, the share of drawn games, {method: seconds spent rating}) for the
    design `name`; its games depend only on `seed` and the design."""
    design = DESIGNS[name]
    rng = random.Random(seed * 1000 + list(DESIGNS).index(name))
    tallies = {m: {a: Tally() for a in design.strengths if a != ANCHOR} for m in methods}
    seconds = dict.fromkeys(methods, 0.0)
    drawn = played = 0
    for trial in range(trials):
        games, planned = simulate(design, rng)
        drawn += sum(g.score == 0.5 for g in games)
        played += len(games)
        for m in methods:
            started = time.perf_counter()
            stages = {"planned": planned} if m == "after" else {}
            ratings = rate(games, resamples=resamples, seed=trial, **METHODS[m], **stages).by_name()
            seconds[m] += time.perf_counter() - started
            for agent, tally in tallies[m].items():
                true = ANCHOR_ELO + design.strengths[agent]
                r = ratings[agent]
                tally.covered += r.low <= true <= r.high
                tally.error += r.elo - true
                tally.squared += (r.elo - true) ** 2
                tally.width += r.high - r.low
    return tallies, drawn / max(played, 1), seconds


def mean_abs_bias(tallies: dict[str, Tally], trials: int) -> float:
    """The mean over a design's agents of |mean estimate − true rating|."""
    return sum(abs(t.error) / trials for t in tallies.values()) / len(tallies)


def rms_error(tallies: dict[str, Tally], trials: int) -> float:
    """The root mean square error (estimate − true) over a design's agents and trials."""
    return math.sqrt(sum(t.squared for t in tallies.values()) / (trials * len(tallies)))


def misses(name: str, tallies: dict[str, Tally], trials: int) -> list[str]:
    """The targets a design's tallies miss, in words (none: the list is empty)."""
    out = []
    for agent, t in tallies.items():
        floor = TARGET_DOMINANT if (name, agent) == DOMINANT else TARGET_COVERAGE
        if t.covered / trials < floor:
            out.append(f"{name}/{agent} covers {100 * t.covered / trials:.1f}% < {100 * floor:.0f}%")
    if mean_abs_bias(tallies, trials) > TARGET_BIAS:
        out.append(f"{name}: mean |bias| {mean_abs_bias(tallies, trials):.0f} Elo > {TARGET_BIAS:.0f}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=400, help="simulated runs per design (default 400)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--method", choices=("both", "all", *METHODS), default="both",
                        help="both: before and after; all: counted too")
    parser.add_argument("--design", choices=list(DESIGNS), nargs="*", help="designs to run (default all)")
    args = parser.parse_args(argv)
    methods = {"both": ["before", "after"], "all": ["before", "counted", "after"]}.get(args.method, [args.method])
    print(f"coverage of the 95% intervals, {args.trials} trials per design, seed {args.seed}; "
          f"per method: coverage, bias (estimate − true), mean width, all in Elo")
    print(f"{'design':9} {'agent':11} {'true':>5}" + "".join(f" | {m + ': cover':>14} {'bias':>5} {'width':>5}"
                                                           for m in methods))
    failed = []
    for name in args.design or DESIGNS:
        design = DESIGNS[name]
        tallies, draws, seconds = measure(name, args.trials, args.seed, methods)
        for agent in tallies[methods[0]]:
            line = f"{name:9} {agent:11} {ANCHOR_ELO + design.strengths[agent]:5.0f}"
            for m in methods:
                t, n = tallies[m][agent], args.trials
                line += f" | {100 * t.covered / n:13.1f}% {t.error / n:+5.0f} {t.width / n:5.0f}"
            print(line)
        summary = f"{name:9} {'(design)':11} {'':5}"
        for m in methods:
            cover = min(t.covered for t in tallies[m].values()) / args.trials
            summary += (f" | min {100 * cover:5.1f}% |bias| {mean_abs_bias(tallies[m], args.trials):4.0f} "
                        f"rmse {rms_error(tallies[m], args.trials):4.0f}")
        if "after" in methods:
            failed += misses(name, tallies["after"], args.trials)
        print(summary + f"  [{design.what}; {100 * draws:.0f}% draws; "
              + ", ".join(f"{m} {1000 * s / args.trials:.0f} ms/rate" for m, s in seconds.items()) + "]")
    if "after" in methods:
        print("targets (≥ 93%, dominant ≥ 90%, mean |bias| ≤ 15 Elo): "
              + ("met" if not failed else "missed: " + "; ".join(failed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
