"""A, adaptation speed: how good a strategy an agent builds from less analysis time.

On every unseen stage, each agent that is not a baseline also enters as "NAME@f", the same file
with f times the analysis budget (f in Config.adaptation, 1/4 and 1/2 by default), and plays each
baseline once in each seat. Its curve is its score against the baselines on the unseen stages
(mean over stages) at each fraction f, the full budget's point being its own games against the
baselines; the normalised area is the area under that curve over log2 f, divided by its width:
the mean score across the budgets, weighted as the budgets double. An agent that adapts fast
reaches its level early and has an area close to its full-budget score; one that needs all its
time has a small one. These games are kept apart from the ratings and the other metrics.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import replace

from ..runtime.entrants import AgentSpec
from .metrics import SCORE

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


def _score_against(games: list[dict], name: str, opponents: set[str], stages: set[str]) -> float | None:
    """Mean over `stages` of `name`'s points per game against `opponents` there."""
    per_stage: dict[str, list[float]] = {}
    for g in games:
        if g["stage_hash"] not in stages:
            continue
        for seat, me, other in ((0, g["black"], g["white"]), (1, g["white"], g["black"])):
            if me == name and other in opponents:
                per_stage.setdefault(g["stage_hash"], []).append(SCORE[g["result"]][seat])
    if not per_stage:
        return None
    return statistics.fmean(statistics.fmean(v) for v in per_stage.values())


def curves(games: list[dict], pseudo: dict[str, tuple[str, float]], baselines: list[str], unseen: set[str]
           ) -> dict[str, dict]:
    """Per agent: {"points": [(fraction, score)], "area": normalised area}; `pseudo` maps name@f to
    (agent, f)."""
    opponents = set(baselines)
    agents = sorted({agent for agent, _ in pseudo.values()})
    out = {}
    for agent in agents:
        points = []
        for name, (owner, f) in sorted(pseudo.items(), key=lambda kv: kv[1][1]):
            if owner == agent:
                score = _score_against(games, name, opponents, unseen)
                if score is not None:
                    points.append((f, score))
        full = _score_against(games, agent, opponents, unseen)
        if full is not None:
            points.append((1.0, full))
        out[agent] = {"points": points, "area": area(points)}
    return out


def area(points: list[tuple[float, float]]) -> float | None:
    """Trapezoid area under score over log2(budget fraction), divided by the width."""
    if not points:
        return None
    if len(points) == 1:
        return points[0][1]
    xs = [math.log2(f) for f, _ in points]
    total = sum((xs[i + 1] - xs[i]) * (points[i][1] + points[i + 1][1]) / 2 for i in range(len(points) - 1))
    return total / (xs[-1] - xs[0])
