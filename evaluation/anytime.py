"""The anytime generalisation score (after Schaul, Togelius and Schmidhuber, "Measuring intelligence
through games", 2011): every agent meets the same unseen stages, drawn ∝ 2^-K, with the same seeds;
after each stage, each agent's mean normalised score over the stages so far, with a 95% interval
that narrows as stages are added. It can be read at any moment, and the run stopped there.

Normalised score of agent a on stage s: (score(a) − score(random)) / (score(best) − score(random)),
where score is the agent's points per game on the stage (draws half, forfeits lost) and best is
the best reference baseline on that stage (greedy, corners, positional, mcts: whichever scored
most). 0 is random's level, 1 the best baseline's. A stage where the best baseline is within
MIN_SPREAD of random tells skill from luck too little to normalise by: it is left out of the
estimate and counted.

The estimate is the weighted mean m = Σ p_i x_i with the stages' Levin weights p_i normalised over
the stages so far (equal weights give the plain mean). Its variance is s_w²·Σ p_i², with the
weighted variance s_w² = Σ p_i (x_i − m)² / (1 − Σ p_i²), and its interval Student's t with
n_eff − 1 degrees of freedom, n_eff = 1 / Σ p_i² (Kish's effective number of stages): with equal
weights, s²/n and n − 1 exactly; when one stage carries most of the weight, n_eff is near 1 and
the interval stays wide, as it should.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

MIN_SPREAD = 0.1
LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    mean: float
    low: float | None  # None: fewer than two stages' worth of weight
    high: float | None
    stages: int
    effective: float = 0.0  # Kish's effective number of stages, 1 / Σ p_i²


def estimate(values: list[float], weights: list[float] | None = None, level: float = LEVEL) -> Estimate:
    """The weighted mean of per-stage normalised scores, with its interval."""
    n = len(values)
    if n == 0:
        return Estimate(math.nan, None, None, 0)
    w = [1.0] * n if weights is None else list(weights)
    total = sum(w)
    p = [x / total for x in w]
    mean = sum(pi * x for pi, x in zip(p, values))
    concentration = sum(pi * pi for pi in p)
    effective = 1.0 / concentration
    if n < 2 or effective < 1.0 + 1e-9:
        return Estimate(mean, None, None, n, effective)
    spread = sum(pi * (x - mean) ** 2 for pi, x in zip(p, values)) / (1.0 - concentration)
    half = stats.t.ppf(0.5 + level / 2.0, max(1.0, effective - 1.0)) * math.sqrt(spread * concentration)
    return Estimate(mean, mean - half, mean + half, n, effective)


def normalised(scores: dict[str, float], random_name: str, baselines: list[str]) -> dict[str, float] | None:
    """Each agent's normalised score on one stage, or None if the stage cannot normalise."""
    refs = [scores[b] for b in baselines if b in scores and b != random_name]
    if random_name not in scores or not refs:
        return None
    floor, top = scores[random_name], max(refs)
    if top - floor < MIN_SPREAD:
        return None
    return {a: (s - floor) / (top - floor) for a, s in scores.items()}


@dataclass(frozen=True)
class Point:
    """The estimate of every agent after a stage: where the running score stood."""

    stage: str
    stages: int  # stages in the estimate so far
    skipped: int  # stages left out so far (no spread to normalise by)
    estimates: dict[str, Estimate]

    @property
    def effective(self) -> float:
        """The effective number of stages (the same for every agent: one set of weights)."""
        return next(iter(self.estimates.values())).effective if self.estimates else 0.0

    def ranked(self) -> str:
        """Every agent's estimate, best first: `name mean [low, high]` (no interval before two stages)."""
        return " | ".join(f"{a} {e.mean:.2f}" + ("" if e.low is None else f" [{e.low:.2f}, {e.high:.2f}]")
                          for a, e in sorted(self.estimates.items(), key=lambda kv: -kv[1].mean))


def running(per_stage: list[tuple[str, dict[str, float] | None, float]], agents: list[str]) -> list[Point]:
    """The estimate after each stage: per_stage is [(stage, normalised scores or None, weight)] in the
    order the stages were played."""
    points, values, weights, skipped = [], {a: [] for a in agents}, [], 0
    for stage, scores, weight in per_stage:
        if scores is None:
            skipped += 1
        else:
            weights.append(weight)
            for a in agents:
                values[a].append(scores.get(a, 0.0))
        points.append(Point(stage, len(weights), skipped, {a: estimate(values[a], weights) for a in agents}))
    return points


def separated(estimates: dict[str, Estimate]) -> bool:
    """Whether the intervals of agents next to each other in the ranking are disjoint."""
    ranked = sorted(estimates.values(), key=lambda e: -e.mean)
    if any(e.low is None for e in ranked):
        return False
    return all(upper.low > lower.high for upper, lower in zip(ranked, ranked[1:]))


def doubling(rounds: int, t0: float) -> list[float]:
    """The analysis budgets of the doubling schedule, stage by stage: in round i, 2^i stages, half
    with t0, a quarter with 2·t0, ..., one with 2^i·t0."""
    budgets: list[float] = []
    for i in range(rounds):
        for j in range(i):
            budgets += [t0 * 2 ** j] * 2 ** (i - 1 - j)
        budgets.append(t0 * 2 ** i)
    return budgets
