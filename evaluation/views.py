"""Secondary views of the same games, as other arenas rank them; each is labelled where shown and
none replaces the Bradley–Terry ratings (evaluation/ratings.py).

- Online Elo per stage (the LLM game arenas): every agent starts at 1200; after each game, in the
  order the games were scheduled, R += K·(S − E) with K = 32 and E = 1 / (1 + 10^((Rb − Ra)/400)).
  It depends on the order of the games, which is why it is not the main rating.
- The unified cross-stage score (same arenas): Σ over stages of max(0, Elo − 1000) / stages.
- Instant-runoff ranking per stage (the OpenSpiel competition): among the agents still in, the one
  with the lowest mean score in its games against the others still in is eliminated (agents tied
  at the bottom go together and share the rank); the last one left ranks first.
- Across stages (same competition): each agent's per-stage ranks, sorted from best to worst, are
  compared lexicographically — the agent whose best rank is better wins, then the second best...
"""
from __future__ import annotations

from .ratings import Outcome

ONLINE_START, ONLINE_K = 1200.0, 32.0
UNIFIED_FLOOR = 1000.0


def online_elo(games: list[Outcome], agents: list[str]) -> dict[str, float]:
    """Sequential Elo over `games` in the order given (one stage's games, as scheduled)."""
    rating = {a: ONLINE_START for a in agents}
    for g in games:
        rb, rw = rating[g.black], rating[g.white]
        expected = 1.0 / (1.0 + 10.0 ** ((rw - rb) / 400.0))
        rating[g.black] = rb + ONLINE_K * (g.score - expected)
        rating[g.white] = rw + ONLINE_K * ((1.0 - g.score) - (1.0 - expected))
    return rating


def unified_score(per_stage: dict[str, dict[str, float]], agents: list[str]) -> dict[str, float]:
    """Σ_stages max(0, online Elo − 1000) / number of stages, per agent."""
    n = max(len(per_stage), 1)
    return {a: sum(max(0.0, elo.get(a, ONLINE_START) - UNIFIED_FLOOR) for elo in per_stage.values()) / n
            for a in agents}


def instant_runoff(games: list[Outcome], agents: list[str]) -> dict[str, int]:
    """Rank (1 = best) of each agent on one stage by instant-runoff elimination."""
    left = list(agents)
    rank: dict[str, int] = {}
    while left:
        points = {a: 0.0 for a in left}
        played = {a: 0 for a in left}
        for g in games:
            if g.black in points and g.white in points:
                points[g.black] += g.score
                points[g.white] += 1.0 - g.score
                played[g.black] += 1
                played[g.white] += 1
        mean = {a: points[a] / played[a] if played[a] else 0.0 for a in left}
        lowest = min(round(v, 9) for v in mean.values())
        out = [a for a in left if round(mean[a], 9) == lowest]
        for a in out:  # eliminated together: they share the worst rank still free
            rank[a] = len(left) - len(out) + 1
        left = [a for a in left if a not in out]
    return rank


def lexicographic(ranks: dict[str, dict[str, int]], agents: list[str]) -> list[tuple[str, list[int]]]:
    """Agents ordered by their sorted per-stage ranks compared lexicographically, best first:
    (agent, its ranks from best to worst)."""
    sorted_ranks = {a: sorted(r[a] for r in ranks.values() if a in r) for a in agents}
    return sorted(((a, sorted_ranks[a]) for a in agents), key=lambda item: (item[1], item[0]))
