"""Secondary views of the same games, as other arenas rank them; each is labelled where shown and
none replaces the Bradley–Terry ratings (evaluation/ratings.py).

- Online Elo per stage (the LLM game arenas): every agent starts at 1200; after each game, in the
  order the games were scheduled, R += K·(S − E) with K = 32 and E = 1 / (1 + 10^((Rb − Ra)/400)).
  It depends on the order of the games, which is why it is not the main rating.
- The unified cross-stage score (same arenas): Σ over stages of max(0, Elo − 1000) / stages.
- Instant-runoff ranking per stage (the OpenSpiel competition, ARENAS.md): each agent casts a
  ballot ordering the other agents by its average outcome against them, hardest first (it votes
  for whoever beat it). First preferences are counted; an agent with a strict majority of the
  ballots still counting takes the current place; otherwise the agent with the fewest first-place
  votes is eliminated, its ballots pass to their next choice, and the count is repeated. Once a
  place is filled that agent is removed from every ballot (it still votes) and the election
  restarts for the next place.
- Across stages (same competition): each agent's per-stage ranks sorted worst first, compared
  lexicographically (the worst result decides first, which rewards generality); equal lists share
  a place.

The competition's text leaves cases open that real runs meet; ludica settles them so:

- An agent tied on a ballot (equal average outcome against two opponents) splits its vote equally
  among them, at every count, so no input order decides.
- An opponent never met is not on the ballot (the games say nothing about it); a ballot whose
  opponents are all out is exhausted, and a majority is over the ballots still counting. In a
  gauntlet the baselines' ballots hold only the submitted agents, so once those are placed the
  baselines are ranked by the submitted agents' ballots.
- A tie for fewest first-place votes: of the tied, the one with the lowest mean average outcome
  against the other agents still in the count goes out (an agent that met none of them counts as
  even, neither better nor worse); still tied, they go out together. If that would leave nobody — all
  the agents still in have the same votes and the same outcomes, or no ballot counts — they share
  the place, and the next place is numbered after them (1, 1, 3).

Two agents on a stage cast one vote each for the other, so the tie-break above decides by their
games: the one that scored more takes first place.
"""
from __future__ import annotations

from fractions import Fraction

from .ratings import Outcome

ONLINE_START, ONLINE_K = 1200.0, 32.0
UNIFIED_FLOOR = 1000.0
EVEN = Fraction(1, 2)  # a score's even outcome: what an agent that met nobody counts in a tie-break


def online_elo(games: list[Outcome], agents: list[str]) -> dict[str, float]:
    """Sequential Elo over `games` in the order given (one stage's games, as scheduled)."""
    rating = dict.fromkeys(agents, ONLINE_START)
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


def average_outcomes(games: list[Outcome], agents: list[str]) -> dict[str, dict[str, Fraction]]:
    """voter → opponent → the voter's mean score against that opponent (both seats), for the agents
    of `agents` that played on the stage and the opponents each of them met. Exact fractions: equal
    averages must compare equal, whatever the order the games are added in."""
    points: dict[str, dict[str, list[Fraction]]] = {}
    for g in games:
        if g.black in agents and g.white in agents:
            s = Fraction(g.score)
            points.setdefault(g.black, {}).setdefault(g.white, []).append(s)
            points.setdefault(g.white, {}).setdefault(g.black, []).append(1 - s)
    return {v: {o: sum(xs, Fraction(0)) / len(xs) for o, xs in row.items()} for v, row in points.items()}


def round_robin(games: list[Outcome], agents: list[str]) -> bool:
    """Whether every pair of the agents of `agents` that played these games met in them: the
    competition's order is a round robin's, and a pair that never met is on no ballot (in a gauntlet
    a baseline's ballot would hold only the submitted agents, and no baseline could win a place)."""
    met = {frozenset((g.black, g.white)) for g in games if g.black in agents and g.white in agents}
    played = sorted({a for pair in met for a in pair})
    return all(frozenset((a, b)) in met for i, a in enumerate(played) for b in played[i + 1:])


def instant_runoff(games: list[Outcome], agents: list[str]) -> dict[str, int]:
    """Rank (1 = best, shared places numbered 1, 1, 3) of each agent of `agents` that played on this
    stage, by the OpenSpiel competition's ballots (module docstring)."""
    return runoff_ranks(average_outcomes(games, agents), EVEN)


def runoff_ranks(averages: dict[str, dict], even) -> dict[str, int]:
    """The instant-runoff ranks from each voter's average outcome against each opponent it met, in
    any unit whose even outcome is `even` (ludica's scores ½; the competition's returns 0)."""
    ballots = [_tiers(row) for row in averages.values()]
    rank: dict[str, int] = {}
    left = set(averages) | {o for row in averages.values() for o in row}
    while left:
        placed = _elect(ballots, left, averages, even)
        place = len(rank) + 1
        for a in placed:
            rank[a] = place
        left -= placed
    return rank


def _tiers(row: dict) -> list[frozenset[str]]:
    """A ballot: the opponents grouped by equal average outcome, the lowest (hardest) first."""
    levels = sorted(set(row.values()))
    return [frozenset(o for o, x in row.items() if x == level) for level in levels]


def _elect(ballots: list[list[frozenset[str]]], candidates: set[str], averages: dict[str, dict], even) -> set[str]:
    """Who takes the next place among `candidates`: one agent, or several that share it."""
    running = set(candidates)
    while True:
        votes = {c: Fraction(0) for c in running}
        counting = 0
        for ballot in ballots:
            first = next((tier & running for tier in ballot if tier & running), None)
            if first:  # a tie on the ballot splits the vote
                counting += 1
                for c in first:
                    votes[c] += Fraction(1, len(first))
        winner = [c for c in running if 2 * votes[c] > counting]
        if winner:
            return set(winner)
        if len(running) == 1:
            return running
        fewest = min(votes.values())
        tied = {c for c in running if votes[c] == fewest}
        if len(tied) > 1:  # the tied agent that did worst against those still in goes out first
            outcome = {c: _mean_against(averages.get(c, {}), running - {c}, even) for c in tied}
            tied = {c for c in tied if outcome[c] == min(outcome.values())}
        if tied == running:
            return running
        running -= tied


def _mean_against(row: dict, others: set[str], even) -> Fraction:
    met = [Fraction(x) for o, x in row.items() if o in others]
    return sum(met, Fraction(0)) / len(met) if met else Fraction(even)


def lexicographic(ranks: dict[str, dict[str, int]], agents: list[str]) -> list[dict]:
    """The overall order of the competition: each agent's per-stage ranks sorted worst first,
    compared lexicographically, best first; equal lists share a place (1, 1, 3). Only the stages on
    which every agent has a rank count (a stage still being played ranks only some). Each entry:
    {"agent", "place", "ranks" (worst first)}."""
    stages = [r for r in ranks.values() if all(a in r for a in agents)]
    worst_first = {a: sorted((r[a] for r in stages), reverse=True) for a in agents}
    order = sorted(agents, key=lambda a: (worst_first[a], a))
    return [{"agent": a, "place": 1 + sum(worst_first[b] < worst_first[a] for b in agents), "ranks": worst_first[a]}
            for a in order]
