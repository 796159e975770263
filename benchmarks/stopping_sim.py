"""Does `--until-separated` stop when it should, and only then? (evaluation/stopping.py)

Games are simulated from known Elo strengths in the default evaluation's shape: the submitted
agents and the five baselines (random 1000, greedy 1150, corners 1250, positional 1258, mcts 1450:
illustrative, with corners and positional as close as measured), one game per seating on each
unseen stage, every pair in both seats (a gauntlet gives the submitted agents the same games).
Each agent's strength on a stage varies around its own (--stage-spread), and a share of the games
are drawn (--draws). The rule is evaluation/stopping.py's own, looked at after every stage, as a
run does; a run lasts at most --horizon unseen stages.

Prints the false-stop rate under the null (two equal submitted agents; three, with three pairs),
and at 100, 200 and 400 Elo between two submitted agents the share of runs that stopped within 16
stages, the median stopping stage and the share told apart the wrong way round, with the weaker
agent among the baselines (1300) and above them all (1700). --compare adds, on the same games, a
betting test on the mean score difference (the statistic's other reading; stopping.py says why
the sign is used).

    python benchmarks/stopping_sim.py [--trials N] [--seed S] [--horizon H] [--compare]
"""
from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass

import numpy as np

from ludica.evaluation import stopping

BASELINES = {"random": 1000.0, "greedy": 1150.0, "corners": 1250.0, "positional": 1258.0, "mcts": 1450.0}
WITHIN = 16  # the target: a 400-Elo gap is told apart within this many unseen stages
MIN_STAGES = 3  # evaluate.Stopping's default
CASES = [  # (what, the submitted agents' Elo)
    ("null: two equal agents at 1300", (1300.0, 1300.0)),
    ("null: two equal agents at 1700", (1700.0, 1700.0)),
    ("null: three equal agents at 1300", (1300.0, 1300.0, 1300.0)),
    ("100 Elo: 1400 vs 1300", (1400.0, 1300.0)),
    ("200 Elo: 1500 vs 1300", (1500.0, 1300.0)),
    ("400 Elo: 1700 vs 1300", (1700.0, 1300.0)),
    ("100 Elo: 1800 vs 1700", (1800.0, 1700.0)),
    ("200 Elo: 1900 vs 1700", (1900.0, 1700.0)),
    ("400 Elo: 2100 vs 1700", (2100.0, 1700.0)),
]


@dataclass
class Figures:
    what: str
    null: bool
    stopped: float  # share of runs that stopped within the horizon
    within: float  # share that stopped within WITHIN stages
    median: float  # median stopping stage (horizon + 1 for a run that never stopped)
    wrong: float  # share of runs with some pair told apart the wrong way round (any pair, under the null)
    horizon: int
    mean_within: float | None = None  # the mean-difference test's share within WITHIN stages (--compare)
    mean_median: float | None = None

    def _stage(self, median: float) -> str:
        return f"> {self.horizon}" if median > self.horizon else f"{median:g}"

    def line(self) -> str:
        if self.null:
            text = (f"{self.what}: false stops {100 * self.stopped:.1f}%, some pair wrongly told apart "
                    f"{100 * self.wrong:.1f}% (target: false stops ≤ 5%)")
        else:
            text = (f"{self.what}: stopped within {WITHIN} stages {100 * self.within:.1f}%, median stopping stage "
                    f"{self._stage(self.median)}, told apart the wrong way {100 * self.wrong:.1f}%")
        if self.mean_within is not None:
            text += (f"; betting on the mean difference: within {WITHIN} {100 * self.mean_within:.1f}%, "
                     f"median {self._stage(self.mean_median)}")
        return text


def stage_scores(rng, elos: list[float], trials: int, horizon: int, spread: float, draws: float) -> np.ndarray:
    """Points per game of every agent on every stage: (trials, horizon, agents), one game per seating
    between every two agents."""
    n = len(elos)
    strength = np.asarray(elos) + rng.normal(0.0, spread, (trials, horizon, n)) if spread else \
        np.broadcast_to(np.asarray(elos), (trials, horizon, n))
    points = np.zeros((trials, horizon, n))
    for i in range(n):
        for j in range(i + 1, n):
            p = 1.0 / (1.0 + 10.0 ** ((strength[..., j] - strength[..., i]) / 400.0))
            for _ in range(2):  # i first, then j first: no seat advantage in the model
                drawn = rng.random((trials, horizon)) < draws
                won = rng.random((trials, horizon)) < p
                score = np.where(drawn, 0.5, won.astype(float))
                points[..., i] += score
                points[..., j] += 1.0 - score
    return points / (2 * (n - 1))


def mean_test_stage(d: np.ndarray, bar: float, min_stages: int) -> int | None:
    """A betting test of E[d] = 0 for d in [−1, 1], looked at after every stage: two nonnegative
    martingales, one betting each way a fraction of capital fixed from the stages before (the
    plug-in Kelly fraction m / (v + m²), capped at 0.9), averaged; stops when the average reaches
    `bar`."""
    up = down = 1.0
    total = squares = 0.0
    for t, x in enumerate(d, 1):
        m = total / t  # a prior stage at 0 keeps the first bets small
        v = max((squares + 0.25) / t - m * m, 1e-3)
        up *= 1.0 + min(max(m / (v + m * m), 0.0), 0.9) * x
        down *= 1.0 - min(max(-m / (v + m * m), 0.0), 0.9) * x
        total, squares = total + x, squares + x * x
        if t >= min_stages and (up + down) / 2.0 >= bar:
            return t
    return None


def simulate(what: str, elos: tuple[float, ...], trials: int, seed: int, horizon: int = 64, spread: float = 100.0,
             draws: float = 0.05, level: float = stopping.LEVEL, compare: bool = False) -> Figures:
    rng = np.random.default_rng(seed)
    names = [f"agent{i + 1}" for i in range(len(elos))]
    everyone = list(elos) + list(BASELINES.values())
    points = stage_scores(rng, everyone, trials, horizon, spread, draws)
    pairs = stopping.tested_pairs(names + list(BASELINES), set(BASELINES))
    null = len(set(elos)) == 1
    stops, wrong, mean_stops = [], 0, []
    for trial in range(trials):
        stages = [dict(zip(names, row[:len(names)])) for row in points[trial]]
        state = stopping.track(stages, pairs, level)
        stops.append(stopping.stopping_stage(state, MIN_STAGES) or horizon + 1)
        strength = dict(zip(names, elos))
        wrong += any(p.separated_at is not None and (null or strength[p.leader] < strength[p.trailer])
                     for p in state)
        if compare and len(names) == 2:
            d = points[trial, :, 0] - points[trial, :, 1]
            mean_stops.append(mean_test_stage(d, len(pairs) / (1.0 - level), MIN_STAGES) or horizon + 1)
    figures = Figures(what, null, sum(s <= horizon for s in stops) / trials, sum(s <= WITHIN for s in stops) / trials,
                      statistics.median(stops), wrong / trials, horizon)
    if mean_stops:
        figures.mean_within = sum(s <= WITHIN for s in mean_stops) / trials
        figures.mean_median = statistics.median(mean_stops)
    return figures


def main(argv: list[str] | None = None) -> list[Figures]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=2000, help="simulated runs per case (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="the simulation's seed (default 0)")
    parser.add_argument("--horizon", type=int, default=64, help="unseen stages a run lasts at most (default 64)")
    parser.add_argument("--stage-spread", type=float, default=100.0,
                        help="standard deviation of each agent's Elo from stage to stage (default 100)")
    parser.add_argument("--draws", type=float, default=0.05, help="share of games drawn (default 0.05)")
    parser.add_argument("--compare", action="store_true", help="also a betting test on the mean score difference")
    args = parser.parse_args(argv)
    print(f"--until-separated by simulation: the submitted agents and 5 baselines "
          f"({', '.join(f'{k} {v:g}' for k, v in BASELINES.items())}), one game per seating, every pair; "
          f"strength spread {args.stage_spread:g} Elo from stage to stage, {100 * args.draws:g}% draws; "
          f"{100 * stopping.LEVEL:g}% level, at least {MIN_STAGES} stages, at most {args.horizon}; "
          f"{args.trials} runs per case, seed {args.seed}")
    out = []
    for k, (what, elos) in enumerate(CASES):
        figures = simulate(what, elos, args.trials, args.seed + k, args.horizon, args.stage_spread, args.draws,
                           compare=args.compare)
        print(figures.line(), flush=True)
        out.append(figures)
    return out


if __name__ == "__main__":
    main()
