"""The Othello AI Arena's metrics, per agent, from the results store's rows (README: "Metrics").

- P, performance: score = (wins + draws/2) / games, overall (stages weighted equally), per stage
  and per opponent, with the mean final piece difference (own − opponent's pieces).
- A, adaptation speed: the score of the strategy an agent builds with growing analysis budgets
  (evaluation/adaptation.py plays those games), as a curve and its normalised area.
- E, efficiency: analysis time used over the budget, game time used per game and per move.
- G, generalisation: mean score on public stages minus mean score on unseen ones (positive: the
  agent does worse on stages it has not seen).
- R, robustness: the worst stage's score and the spread (best − worst) across stages.
"""
from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from typing import TypedDict

SCORE = {"black": (1.0, 0.0), "white": (0.0, 1.0), "draw": (0.5, 0.5), "none": (0.0, 0.0)}
LEVEL = 0.95


class ArenaMetrics(TypedDict):
    """A run's metrics by letter, each agent → its figures (the report's JSON keeps this shape)."""

    P: dict[str, dict]  # performance()
    A: dict[str, dict]  # adaptation.curves()
    E: dict[str, dict]  # efficiency()
    G: dict[str, float | None]  # generalisation()
    R: dict[str, dict]  # robustness()


def stage_scores(games: list[dict]) -> dict[str, dict[str, float]]:
    """stage hash → agent → points per game on that stage."""
    points: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for g in games:
        sb, sw = SCORE[g["result"]]
        points[g["stage_hash"]][g["black"]].append(sb)
        points[g["stage_hash"]][g["white"]].append(sw)
    return {h: {a: sum(v) / len(v) for a, v in per.items()} for h, per in points.items()}


def performance(games: list[dict]) -> dict[str, dict]:
    """P per agent: score (stages weighted equally), and per stage and opponent (score, games,
    mean piece difference)."""
    cells: dict[str, dict[tuple[str, str], list[tuple[float, int]]]] = defaultdict(lambda: defaultdict(list))
    for g in games:
        sb, sw = SCORE[g["result"]]
        diff = g["black_score"] - g["white_score"]
        cells[g["black"]][(g["stage_hash"], g["white"])].append((sb, diff))
        cells[g["white"]][(g["stage_hash"], g["black"])].append((sw, -diff))
    by_stage = stage_scores(games)
    out = {}
    for agent, per in cells.items():
        scores = [s[agent] for s in by_stage.values() if agent in s]
        out[agent] = {
            "score": statistics.fmean(scores) if scores else 0.0,
            "cells": [{"stage": h, "opponent": o, "score": statistics.fmean(x for x, _ in v), "games": len(v),
                       "piece_difference": statistics.fmean(d for _, d in v)} for (h, o), v in sorted(per.items())],
        }
    return out


def efficiency(games: list[dict], analyses: list[dict], budgets: dict[str, float]) -> dict[str, dict]:
    """E per agent: analysis seconds over the stage's budget (mean over stages, each stage's last
    analysis), game seconds per game and per own move, passes not counted (CPU time charged by
    the referee)."""
    last = {(a["stage_hash"], a["agent"]): a for a in analyses}  # the analysis its games were played with
    used: dict[str, list[float]] = defaultdict(list)
    for (stage, agent), a in last.items():
        budget = budgets.get(stage)
        if budget:
            used[agent].append(a["seconds"] / budget)
    per_game: dict[str, list[float]] = defaultdict(list)
    moves: dict[str, int] = defaultdict(int)
    for g in games:
        for p, name in enumerate((g["black"], g["white"])):
            per_game[name].append(g["black_time"] if p == 0 else g["white_time"])
        for (player, _), move in zip(json.loads(g.get("ply_seconds") or "[]"), json.loads(g["moves"])):
            if move != "pass":  # a forced pass is played without asking the agent
                moves[(g["black"], g["white"])[player]] += 1
    agents = set(used) | set(per_game)
    return {a: {"analysis_share": statistics.fmean(used[a]) if used[a] else None,
                "seconds_per_game": statistics.fmean(per_game[a]) if per_game[a] else 0.0,
                "seconds_per_move": sum(per_game[a]) / moves[a] if moves[a] else None}
            for a in agents}


def generalisation(by_stage: dict[str, dict[str, float]], roles: dict[str, str]) -> dict[str, float | None]:
    """G per agent: mean public-stage score − mean unseen-stage score (None without both kinds)."""
    out = {}
    agents = {a for s in by_stage.values() for a in s}
    for a in agents:
        public, unseen = ([s[a] for h, s in by_stage.items() if roles.get(h) == role and a in s]
                          for role in ("public", "unseen"))
        out[a] = statistics.fmean(public) - statistics.fmean(unseen) if public and unseen else None
    return out


def robustness(by_stage: dict[str, dict[str, float]], roles: dict[str, str]) -> dict[str, dict]:
    """R per agent, over the unseen stages and, beside them, the public ones (`roles`: a stage's
    hash → "public" or "unseen"): the worst stage (hash and score) and the spread best − worst of
    each kind, None where the agent played no stage of it. R is about the unseen stages: a public
    stage is one the agents could prepare for."""
    out: dict[str, dict] = {}
    for a in {a for s in by_stage.values() for a in s}:
        out[a] = {}
        for role in ("unseen", "public"):
            scores = {h: s[a] for h, s in by_stage.items() if a in s and roles.get(h) == role}
            worst = min(scores, key=lambda h: (scores[h], h)) if scores else None
            out[a][role] = None if worst is None else {"worst_stage": worst, "worst": scores[worst],
                                                       "spread": max(scores.values()) - scores[worst]}
    return out


def score_interval(weighted: list[tuple[float, float]], level: float = LEVEL, narrowed: bool = True
                   ) -> tuple[float, float] | None:
    """The interval of a weighted mean of scores, `weighted` as (weight, score) with scores in [0, 1]
    (a game's 0, ½ or 1; a paired cell's mean of several), None without one: Wilson's score interval,
    as for a share of wins, on Kish's effective number 1/Σw² (weights normalised), lengthened as the
    scores vary less than wins and losses would. A score's variance is p(1 − p) − Σw·x(1 − x) (for
    games, p(1 − p) − P(draw)/4), that sum counted as n/(n + 1) of itself so that a run of draws
    keeps some doubt, as in the ratings' φ; scores against different opponents, with different odds,
    vary less than the pooled p(1 − p) says, so the interval errs wide (it covers 95–99%). It holds
    the mean, stays inside [0, 1], and has width where a sweep leaves a share's plain standard error
    none. `narrowed=False` leaves the spread at its bound p(1 − p), which holds for any scores in
    [0, 1]: for means of a few correlated games, whose spread a sample of them estimates too low
    where they are rare (A's area near 0 covered 89% narrowed). Coverage measured by simulation from
    known odds: benchmarks/adaptation_coverage.py."""
    total = sum(w for w, _ in weighted)
    if not weighted or not total > 0:
        return None
    p = min(1.0, max(0.0, sum(w * x for w, x in weighted) / total))
    n = total ** 2 / sum(w * w for w, _ in weighted)
    between = sum(w * x * (1.0 - x) for w, x in weighted) / total * n / (n + 1.0)  # draws' share / 4, for games
    spread = p * (1.0 - p)
    if spread > 0 and narrowed:
        n *= spread / max(spread - between, 1e-12 * spread)
    z = statistics.NormalDist().inv_cdf(0.5 + level / 2.0)
    shrink = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / shrink
    half = z / shrink * math.sqrt(spread / n + z * z / (4.0 * n * n))
    return min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))
