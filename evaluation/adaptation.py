"""A, adaptation speed: how good a strategy an agent builds from less analysis time.

On every unseen stage, each agent that is not a baseline also enters as "NAME@f", the same file
with f times the analysis budget (f in Config.adaptation, 1/4 and 1/2 by default), and plays each
baseline once in each seat. Its curve is its score against the baselines on the unseen stages
(mean over stages) at each fraction f, the full budget's point being its own games against the
baselines; the normalised area is the area under that curve over log2 f, divided by its width:
the mean score across the budgets, weighted as the budgets double. An agent that adapts fast
reaches its level early and has an area close to its full-budget score; one that needs all its
time has a small one. These games are kept apart from the ratings and the other metrics.

Each point and the area come with a 95% interval, the games' noise: about ±0.14 for a point of the
default run's 40 games, and as much for the area, whose games at each budget share their seeds
(benchmarks/adaptation_coverage.py, in 8 designs: the points cover 95–99%, the area 96–100%).
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


def _games_against(games: list[dict], name: str, opponents: set[str], stages: set[str]
                   ) -> dict[tuple, tuple[float, float]]:
    """`name`'s games against `opponents` on `stages`, by cell (stage, opponent, seat, game index):
    (weight, points), the stages weighing equally, a stage's games equally within it, the weights
    summing to 1; its score is their weighted mean."""
    per_stage: dict[str, dict[tuple, float]] = {}
    for g in games:
        if g["stage_hash"] not in stages:
            continue
        for seat, me, other in ((0, g["black"], g["white"]), (1, g["white"], g["black"])):
            if me == name and other in opponents:
                cell = (g["stage_hash"], other, seat, g["game_index"])
                per_stage.setdefault(g["stage_hash"], {})[cell] = SCORE[g["result"]][seat]
    return {cell: (1.0 / (len(per_stage) * len(v)), x) for v in per_stage.values() for cell, x in v.items()}


def curves(games: list[dict], pseudo: dict[str, tuple[str, float]], baselines: list[str], unseen: set[str]
           ) -> dict[str, dict]:
    """Per agent: {"points": [(fraction, score)], "intervals": [(low, high)] (each point's, 95%),
    "area": normalised area, "area_interval": (low, high)}; `pseudo` maps name@f to (agent, f).
    A point is a weighted mean of independent games: metrics.score_interval's interval. The area is
    not: name@f plays each game with the seeds name has in it (common random numbers), so its games
    and name's go together. It is a weighted mean over the cells (stage, opponent, seat, game) of
    each cell's games at every fraction, and its interval is that mean's, its spread at its bound."""
    opponents = set(baselines)
    agents = sorted({agent for agent, _ in pseudo.values()})
    out = {}
    for agent in agents:
        entered = [(f, name) for name, (owner, f) in sorted(pseudo.items(), key=lambda kv: kv[1][1]) if owner == agent]
        measured = [(f, _games_against(games, name, opponents, unseen)) for f, name in entered + [(1.0, agent)]]
        measured = [(f, played) for f, played in measured if played]
        # a weighted mean, its sum's rounding kept inside [0, 1] (a sweep's 1.0000000000000002)
        points = [(f, min(1.0, max(0.0, sum(w * x for w, x in played.values())))) for f, played in measured]
        cells: dict[tuple, list[float]] = {}  # cell → [its weight in the area, its points so weighted]
        for c, (_, played) in zip(_trapezoid([f for f, _ in points]), measured):
            for cell, (w, x) in played.items():
                held = cells.setdefault(cell, [0.0, 0.0])
                held[0] += c * w
                held[1] += c * w * x
        out[agent] = {"points": points, "intervals": [score_interval(list(played.values())) for _, played in measured],
                      "area": area(points), "area_interval": score_interval([(w, x / w) for w, x in cells.values()], narrowed=False)}
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
