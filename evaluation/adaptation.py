"""A, adaptation speed: how good a strategy an agent builds from less analysis time.

On every unseen stage, each agent that is not a baseline also enters as "NAME@f", the same file
with f times the analysis budget (f in Config.adaptation, 1/4 and 1/2 by default), and plays each
baseline once in each seat. Its curve is its score against the baselines on the unseen stages
(mean over stages) at each fraction f, the full budget's point being its own games against the
baselines; the normalised area is the area under that curve over log2 f, divided by its width:
the mean score across the budgets, weighted as the budgets double. Each point and the area come
with a 95% interval, the games' noise: about ±0.14 for a point of the default run's 40 games, ±0.09
for the area (benchmarks/adaptation_coverage.py: they cover 95–98% in every design simulated). An agent that adapts fast
reaches its level early and has an area close to its full-budget score; one that needs all its
time has a small one. These games are kept apart from the ratings and the other metrics.
"""
from __future__ import annotations

import math
from dataclasses import replace

from ..runtime.entrants import AgentSpec
from .metrics import SCORE, score_interval

MARK = "@"


def owner(name: str) -> str:
    """The agent a NAME@f entrant stands for."""
    return name.rsplit(MARK, 1)[0]


def entrants(agents: list[AgentSpec], baselines: set[str], fractions: tuple[float, ...]
             ) -> dict[str, tuple[AgentSpec, float]]:
    """name@f → (the agent's spec under that name, f), for every agent that is not a baseline."""
    out = {}
    for a in agents:
        if a.name in baselines:
            continue
        for f in fractions:
            if f != 1.0:
                out[f"{a.name}{MARK}{f:g}"] = (replace(a, name=f"{a.name}{MARK}{f:g}"), f)
    return out


def _games_against(games: list[dict], name: str, opponents: set[str], stages: set[str]) -> list[tuple[float, float]]:
    """`name`'s games against `opponents` on `stages` as (weight, points): the stages weigh equally,
    a stage's games equally within it, the weights summing to 1; its score is their weighted mean."""
    per_stage: dict[str, list[float]] = {}
    for g in games:
        if g["stage_hash"] not in stages:
            continue
        for seat, me, other in ((0, g["black"], g["white"]), (1, g["white"], g["black"])):
            if me == name and other in opponents:
                per_stage.setdefault(g["stage_hash"], []).append(SCORE[g["result"]][seat])
    return [(1.0 / (len(per_stage) * len(v)), x) for v in per_stage.values() for x in v]


def curves(games: list[dict], pseudo: dict[str, tuple[str, float]], baselines: list[str], unseen: set[str]
           ) -> dict[str, dict]:
    """Per agent: {"points": [(fraction, score)], "intervals": [(low, high)] (each point's, 95%),
    "area": normalised area, "area_interval": (low, high)}; `pseudo` maps name@f to (agent, f). The
    games are independent, so a point or the area, a weighted mean of games, has
    metrics.score_interval's interval."""
    opponents = set(baselines)
    agents = sorted({agent for agent, _ in pseudo.values()})
    out = {}
    for agent in agents:
        entered = [(f, name) for name, (owner, f) in sorted(pseudo.items(), key=lambda kv: kv[1][1]) if owner == agent]
        measured = [(f, _games_against(games, name, opponents, unseen)) for f, name in entered + [(1.0, agent)]]
        measured = [(f, weighted) for f, weighted in measured if weighted]
        points = [(f, sum(w * x for w, x in weighted)) for f, weighted in measured]
        coefficients = _trapezoid([f for f, _ in points])
        pooled = [(c * w, x) for c, (_, weighted) in zip(coefficients, measured) for w, x in weighted]
        out[agent] = {"points": points, "intervals": [score_interval(weighted) for _, weighted in measured],
                      "area": area(points), "area_interval": score_interval(pooled)}
    return out


def _trapezoid(fractions: list[float]) -> list[float]:
    """The weight of each point's score in the normalised area over log2 of `fractions` (increasing):
    the trapezoid rule divided by the width; they sum to 1 (a single point: its own score)."""
    if len(fractions) < 2:
        return [1.0] * len(fractions)
    xs = [math.log2(f) for f in fractions]
    width = xs[-1] - xs[0]
    return [((xs[i] - xs[i - 1] if i else 0.0) + (xs[i + 1] - xs[i] if i + 1 < len(xs) else 0.0)) / (2.0 * width)
            for i in range(len(xs))]


def area(points: list[tuple[float, float]]) -> float | None:
    """Trapezoid area under score over log2(budget fraction), divided by the width."""
    if not points:
        return None
    return sum(c * y for c, (_, y) in zip(_trapezoid([f for f, _ in points]), points))
