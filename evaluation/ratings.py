"""Ratings: Bradley–Terry strengths fitted with choix, on an Elo scale, with bootstrap intervals,
each agent's probability of each rank and the raw pairwise score matrix.

The model: P(i beats j) = 1 / (1 + exp(θj − θi)). A draw counts half a win each way. Every pair of
rated agents also shares PRIOR_GAMES virtual drawn games (half a win each way): the small prior
that keeps a clean sweep's rating finite (10–0 becomes 10.5–0.5, about +530 Elo) and that
vanishes as real games accumulate. A game both seats forfeited (neither had a strategy) says
nothing about either and is left out.

On the Elo scale, R = ANCHOR_ELO + (400 / ln 10)·(θ − θ_anchor): the anchor agent (random, when it
plays) is 1000, and a 400-point gap means 10:1 odds. Without the anchor the mean rating is 1000.

The overall rating weighs stages equally: each stage's games are scaled to the mean number of
games per stage before they are added up.

Intervals: percentile bootstrap. A replicate resamples games with replacement within cells of
(stage, black, white) — same pairing, same seat, same stage — so no replicate changes who met
whom, where, or with which colour. A cell holding a single game cannot vary on its own; such cells
are pooled into their (black, white) pairing across stages (resampling over stages), and if that
is still one game (a single stage), into the pair in either seat, and last into all games;
`strata` says which were used.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import choix
import numpy as np

ANCHOR = "random"
ANCHOR_ELO = 1000.0
ELO_PER_NAT = 400.0 / math.log(10.0)
PRIOR_GAMES = 1.0
RESAMPLES = 1000
LEVEL = 0.95


@dataclass(frozen=True)
class Outcome:
    """One game for the ratings: where, who, and black's score (1 win, 0.5 draw, 0 loss)."""

    stage: str
    black: str
    white: str
    score: float


SCORES = {"black": 1.0, "white": 0.0, "draw": 0.5}


def outcomes(rows: list[dict], stage_key: str = "stage_hash") -> list[Outcome]:
    """Outcomes of results-store rows (black, white, result, and the stage under `stage_key`);
    games nobody won because both seats forfeited are left out."""
    return [Outcome(r[stage_key], r["black"], r["white"], SCORES[r["result"]]) for r in rows if r["result"] in SCORES]


class _Table:
    """Games as arrays (stage, black, white, black's score), so a replicate is an index array."""

    def __init__(self, games: list[Outcome], agents: list[str]):
        index = {a: i for i, a in enumerate(agents)}
        stages = {s: i for i, s in enumerate(dict.fromkeys(g.stage for g in games))}
        self.n, self.n_stages = len(agents), len(stages)
        self.stage = np.array([stages[g.stage] for g in games], dtype=np.int64)
        self.black = np.array([index[g.black] for g in games], dtype=np.int64)
        self.white = np.array([index[g.white] for g in games], dtype=np.int64)
        self.score = np.array([g.score for g in games], dtype=float)

    def points(self, chosen: np.ndarray | None = None, equal_stages: bool = True) -> np.ndarray:
        """wins[i, j]: the points agent i took from agent j (draws half), each stage scaled to the
        mean number of games per stage when `equal_stages`."""
        pick = slice(None) if chosen is None else chosen
        s, b, w, x = self.stage[pick], self.black[pick], self.white[pick], self.score[pick]
        m = np.zeros((max(self.n_stages, 1), self.n, self.n))
        np.add.at(m, (s, b, w), x)
        np.add.at(m, (s, w, b), 1.0 - x)
        if not equal_stages:
            return m.sum(axis=0)
        per_stage = m.sum(axis=(1, 2))
        held = per_stage > 0
        if not held.any():
            return m.sum(axis=0)
        scale = np.where(held, per_stage[held].mean() / np.where(held, per_stage, 1.0), 0.0)
        return (m * scale[:, None, None]).sum(axis=0)


def points(games: list[Outcome], agents: list[str], equal_stages: bool = True) -> np.ndarray:
    """wins[i, j]: the points agent i took from agent j over `games` (see _Table.points)."""
    return _Table(games, agents).points(equal_stages=equal_stages)


def strengths(wins: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """Bradley–Terry log-strengths θ from a points matrix, the prior added here; `start` (an
    earlier fit) speeds up a refit of similar data."""
    n = wins.shape[0]
    if n == 1:
        return np.zeros(1)
    prior = np.full((n, n), PRIOR_GAMES / 2.0)
    np.fill_diagonal(prior, 0.0)
    return choix.ilsr_pairwise_dense(wins + prior, initial_params=start, max_iter=1000, tol=1e-8)


def elo_scale(theta: np.ndarray, agents: list[str], anchor: str = ANCHOR) -> np.ndarray:
    """θ on the Elo scale: the anchor (or, if it did not play, the mean) at ANCHOR_ELO."""
    elo = theta * ELO_PER_NAT
    zero = elo[agents.index(anchor)] if anchor in agents else elo.mean()
    return ANCHOR_ELO + elo - zero


@dataclass
class Rating:
    name: str
    elo: float
    low: float
    high: float
    rank: int  # equal ratings (to 0.1) share a rank
    rank_probabilities: list[float]  # P(rank 1), P(rank 2), ... over the bootstrap replicates
    games: int
    score: float  # points / games, draws half, all games as played


@dataclass
class Ratings:
    """Rated agents, best first, with how the intervals were made."""

    ratings: list[Rating]
    matrix: dict[str, dict[str, tuple[float, int]]]  # matrix[a][b] = (a's points against b, games)
    resamples: int
    strata: str
    anchor: str
    level: float = LEVEL
    stages: int = 0
    notes: list[str] = field(default_factory=list)

    def by_name(self) -> dict[str, Rating]:
        return {r.name: r for r in self.ratings}


def shared_ranks(values: list[float], decimals: int = 1) -> list[int]:
    """Competition ranks of `values` (higher is better): equal values share a rank (1, 2, 2, 4)."""
    rounded = [round(v, decimals) for v in values]
    return [1 + sum(1 for other in rounded if other > v) for v in rounded]


def _strata(games: list[Outcome]) -> tuple[list[list[int]], str]:
    """Groups of game indices a replicate resamples within, and how they were made. A group of
    one game cannot vary, so cells of one game are pooled, coarser and coarser until they can:
    (stage, black, white) → (black, white) across stages → the pair in either seat across stages →
    every game."""
    levels = (lambda g: (g.stage, g.black, g.white), lambda g: (g.black, g.white),
              lambda g: tuple(sorted((g.black, g.white))), lambda g: ())
    names = ("(stage, black, white) cells", "(black, white) pairings across stages",
             "pairs in either seat across stages", "all games")
    groups: list[list[int]] = []
    todo = list(range(len(games)))
    used = []
    for level, (key, name) in enumerate(zip(levels, names)):
        pools: dict[tuple, list[int]] = {}
        for i in todo:
            pools.setdefault(key(games[i]), []).append(i)
        last = level == len(levels) - 1
        todo = []
        for members in pools.values():
            if len(members) >= 2 or last:
                groups.append(members)
                if name not in used:
                    used.append(name)
            else:
                todo.extend(members)
        if not todo:
            break
    if len(used) <= 1:
        return groups, used[0] if used else names[0]
    return groups, f"{used[0]}, single games pooled by " + ", then by ".join(u.split(" across")[0] for u in used[1:])


def rate(games: list[Outcome], agents: list[str] | None = None, *, anchor: str = ANCHOR,
         resamples: int = RESAMPLES, seed: int = 0, equal_stages: bool = True) -> Ratings:
    """Fit, bootstrap and rank. `agents` fixes who is rated (default: everyone who played)."""
    agents = list(agents) if agents is not None else sorted({n for g in games for n in (g.black, g.white)})
    table = _Table(games, agents)
    theta = strengths(table.points(equal_stages=equal_stages))
    elo = elo_scale(theta, agents, anchor)
    strata, how = _strata(games)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x4C554443]))
    groups = [np.array(members) for members in strata]
    replicates = np.empty((resamples, len(agents)))
    for r in range(resamples):
        chosen = np.concatenate([m[rng.integers(0, len(m), len(m))] for m in groups]) if groups else None
        replicates[r] = elo_scale(strengths(table.points(chosen, equal_stages), theta), agents, anchor)
    tail = (1.0 - LEVEL) / 2.0
    low, high = (np.quantile(replicates, q, axis=0) if resamples else elo for q in (tail, 1.0 - tail))
    # rank of each agent in each replicate (1 = best; ties broken by the order agents were given)
    order = np.argsort(-replicates, axis=1, kind="stable")
    rank_counts = np.zeros((len(agents), len(agents)))
    for r in range(resamples):
        rank_counts[order[r], np.arange(len(agents))] += 1
    matrix, played, scored = _matrix(games, agents)
    ranks = shared_ranks(list(elo))
    ratings = [Rating(a, float(elo[i]), float(low[i]), float(high[i]), ranks[i],
                      [float(p) for p in rank_counts[i] / max(resamples, 1)], played[a],
                      scored[a] / played[a] if played[a] else 0.0) for i, a in enumerate(agents)]
    ratings.sort(key=lambda x: (-round(x.elo, 1), x.name))
    notes = [] if anchor in agents else [f"{anchor!r} did not play: the mean rating is {ANCHOR_ELO:g}"]
    flat = [r.name for r in ratings if resamples and r.high - r.low < 1e-6 and r.name != anchor]
    if flat:
        notes.append(f"no spread in the bootstrap for {', '.join(flat)}: every resample gives the same games (too "
                     "few, or each pair's games all went one way); more games (--games) give an interval")
    return Ratings(ratings, matrix, resamples, how, anchor if anchor in agents else "mean",
                   stages=len({g.stage for g in games}), notes=notes)


def _matrix(games: list[Outcome], agents: list[str]):
    matrix = {a: {b: (0.0, 0) for b in agents if b != a} for a in agents}
    played = {a: 0 for a in agents}
    scored = {a: 0.0 for a in agents}
    for g in games:
        for me, other, s in ((g.black, g.white, g.score), (g.white, g.black, 1.0 - g.score)):
            p, n = matrix[me][other]
            matrix[me][other] = (p + s, n + 1)
            played[me] += 1
            scored[me] += s
    return matrix, played, scored
