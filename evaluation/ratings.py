"""Ratings: Bradley–Terry strengths on an Elo scale with intervals that cover what they claim, each
agent's probability of each rank, and the raw pairwise score matrix.

The model: P(i beats j) = 1 / (1 + exp(θj − θi)). A draw counts half a win each way. A game both
seats forfeited (neither had a strategy) says nothing about either and is left out.

The fit: maximum likelihood penalised by Jeffreys' prior, half the log-determinant of the Fisher
information (Firth's bias reduction). It keeps a clean sweep finite, as virtual draws would (between
two agents it is exactly one virtual draw: 10–0 becomes 10.5–0.5, about +530 Elo), but it removes
the plain fit's first-order bias instead of adding one: in all it weighs about one virtual game per
agent rather than one per pair, placed where the information is thin, and it fades as games
accumulate. One virtual draw per pair, the prior before issue 20, pulled the ratings of the default
run's shape 27–79 Elo toward each other (below).

On the Elo scale, R = ANCHOR_ELO + (400 / ln 10)·(θ − θ_anchor): the anchor agent (random, when it
plays) is 1000, and a 400-point gap means 10:1 odds. Without the anchor the mean rating is 1000.

The overall rating weighs stages equally: each stage's games are scaled to the mean number of games
per stage before they are added up. Given the games each stage plans (`planned`), a stage weighs by
its share of them instead: one still in progress counts as far as it has got, not as a whole stage.
Measured on the default run's shape with a 7th stage 3 games in (benchmarks/rating_coverage.py,
design in_progress, 200 trials): weighed as whole stages, those 3 games count as 42 and the ratings'
RMS error is 132 Elo with intervals twice as wide; by their share, 81 Elo, as a finished run's 82.

Intervals (95%): profile likelihood. An agent's interval holds the ratings R such that the best
penalised fit with the agent held at R is within φ·χ²₁(0.95)/2 of the best fit overall. The profile
follows the likelihood's own shape, so a near-sweep gets a long upper arm: the games bound it from
below, Jeffreys' prior from above. φ is the agent's sandwich variance over the model's: a game that
can be drawn varies less than a win or a loss (p(1 − p) − P(draw)/4, the draws of each pair counted
as D·N/(N + 1) so that a pair that only drew keeps some doubt), and stage weights scale games up or
down; with neither, φ = 1.

Why this interval, measured by simulation from known strengths (benchmarks/rating_coverage.py,
1000 trials per design): the method before issue 20 (one virtual draw per pair, percentile
bootstrap) covered 81–90% in the default run's shape, 75–78% with few games and 55% for an agent
700 above the field (its estimate 139 Elo low); this one covers 94–96.5% in every design, with a
mean |bias| per design of at most 10 Elo (the dominant agent's own is −23: when it wins every game,
its estimate rests on the prior). Tried on the way (200 trials each): with Jeffreys' prior the percentile bootstrap
covers 93% in the default shape but 76% with few games (a resample of a cell of m games spreads
(m − 1)/m as much as the games do, and not at all where a pair's games all went one way) and 83–88%
for a dominant agent; BCa and the studentised bootstrap fail the same cases (76% with few games,
49–88% for a dominant agent); 0.1–0.2 virtual draws per pair instead of Jeffreys' prior leave the
percentile bootstrap at 78% with few games and about 50% for a dominant agent; without φ the
profile interval covers 99% with 30% draws.

Rank probabilities: a bootstrap. A replicate resamples games with replacement within cells of
(stage, black, white) — same pairing, same seat, same stage — so no replicate changes who met whom,
where, or with which colour. A cell holding a single game cannot vary on its own; such cells are
pooled into their (black, white) pairing across stages (resampling over stages), and if that is
still one game (a single stage), into the pair in either seat, and last into all games; `strata`
says which were used. Each replicate is refitted; agents exactly tied in a replicate share the ranks
they span. `rate(..., prior=1.0, interval="percentile")` still gives the method before issue 20
(percentile intervals from the same replicates, one virtual draw per pair), for comparison.

Games that leave some agents unconnected (an agent with no games yet, or groups that never met)
cannot place them on one scale: then every pair shares CONNECT_GAMES virtual draws, and a note says
so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special, stats

ANCHOR = "random"
ANCHOR_ELO = 1000.0
ELO_PER_NAT = 400.0 / math.log(10.0)
CONNECT_GAMES = 0.01  # virtual draws per pair, only where the games leave agents unconnected
RESAMPLES = 1000
LEVEL = 0.95
INTERVALS = ("profile", "percentile")
TIE_ELO = 1e-6  # replicate ratings this close are exactly tied (the fits converge far closer)
_MAX_STEP = 2.0  # nats per Newton step: a sweep's first steps would overshoot
_TOL = 1e-10
_SETTLED = _TOL ** 2  # a step's promised gain below this (_TOL in the curvature's own measure): at the maximum
_ARMIJO = 1e-4  # the share of the step's first-order gain a step must make
_REACH = 60.0  # nats (≈ 10,000 Elo): a profile that has not dropped by then is unbounded
_BLOCK = 1_000_000  # resampled game indices held at once (a few arrays of this many: tens of MB)


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

    def __init__(self, games: list[Outcome], agents: list[str], planned: dict[str, float] | None = None):
        index = {a: i for i, a in enumerate(agents)}
        stages = {s: i for i, s in enumerate(dict.fromkeys(g.stage for g in games))}
        self.planned = None if planned is None else _planned(planned, list(stages))
        self.n, self.n_stages = len(agents), len(stages)
        self.stage = np.array([stages[g.stage] for g in games], dtype=np.int64)
        self.black = np.array([index[g.black] for g in games], dtype=np.int64)
        self.white = np.array([index[g.white] for g in games], dtype=np.int64)
        self.score = np.array([g.score for g in games], dtype=float)

    def weights(self, chosen: np.ndarray, equal_stages: bool = True) -> np.ndarray:
        """Each chosen game's weight, one row per replicate (`chosen`: (replicates, games) indices):
        its stage's games scaled to the mean number of games per stage when `equal_stages`; with
        the games each stage plans, a stage's planned games scaled to their mean instead."""
        if not equal_stages or chosen.shape[1] == 0:
            return np.ones(chosen.shape)
        if self.planned is not None:
            return (self.planned.mean() / self.planned)[self.stage[chosen]]
        stage = self.stage[chosen]
        counts = np.zeros((len(chosen), self.n_stages))
        np.add.at(counts, (np.arange(len(chosen))[:, None], stage), 1.0)
        held = counts > 0
        mean = counts.sum(axis=1, keepdims=True) / held.sum(axis=1, keepdims=True)
        scale = np.where(held, mean / np.where(held, counts, 1.0), 0.0)
        return np.take_along_axis(scale, stage, axis=1)

    def points_many(self, chosen: np.ndarray, equal_stages: bool = True) -> np.ndarray:
        """wins[r, i, j] for each replicate r of `chosen` (replicates, games)."""
        r, n = len(chosen), self.n
        weight = self.weights(chosen, equal_stages)
        b, w, x = self.black[chosen], self.white[chosen], self.score[chosen]
        rows = np.arange(r)[:, None] * n * n
        flat = np.bincount((rows + b * n + w).ravel(), (weight * x).ravel(), minlength=r * n * n)
        flat += np.bincount((rows + w * n + b).ravel(), (weight * (1.0 - x)).ravel(), minlength=r * n * n)
        return flat.reshape(r, n, n)

    def points(self, chosen: np.ndarray | None = None, equal_stages: bool = True) -> np.ndarray:
        """wins[i, j]: the points agent i took from agent j (draws half), each stage scaled to the
        mean number of games per stage when `equal_stages`."""
        chosen = np.arange(len(self.score)) if chosen is None else np.asarray(chosen)
        return self.points_many(chosen[None, :], equal_stages)[0]


def _planned(planned: dict[str, float], stages: list[str]) -> np.ndarray:
    """The games each of `stages` plans, in their order: every stage with a game is planned."""
    missing = [s for s in stages if s not in planned]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise ValueError(f"planned: no count of planned games for stage {missing[0]!r}{more}: give one for every "
                         "stage with a game")
    counts = np.array([float(planned[s]) for s in stages])
    if not np.all(counts > 0):
        raise ValueError("planned: each stage's planned games must be a positive number")
    return counts


def points(games: list[Outcome], agents: list[str], equal_stages: bool = True) -> np.ndarray:
    """wins[i, j]: the points agent i took from agent j over `games` (see _Table.points)."""
    return _Table(games, agents).points(equal_stages=equal_stages)


# --- the fit ---------------------------------------------------------------------------------------
# Arrays may carry leading replicate axes: wins (..., n, n), theta (..., n). θ[ref] stays 0 (the
# scale's origin); `keep` is every other agent.

def _information(wins: np.ndarray, theta: np.ndarray):
    """(p, w, L): p[i, j] = P(i beats j), w[i, j] the Fisher information of the pair's games,
    L the graph Laplacian of w (the information matrix of θ)."""
    p = special.expit(theta[..., :, None] - theta[..., None, :])
    w = (wins + np.swapaxes(wins, -1, -2)) * p * (1.0 - p)
    laplacian = -w
    diagonal = np.einsum("...ii->...i", laplacian)
    diagonal += w.sum(axis=-1)
    return p, w, laplacian


def _score(wins: np.ndarray, theta: np.ndarray, keep: np.ndarray, jeffreys: bool):
    """The (penalised) score over `keep`, and the information matrix over `keep`."""
    p, w, laplacian = _information(wins, theta)
    kept = laplacian[..., keep[:, None], keep[None, :]]
    score = (wins - (wins + np.swapaxes(wins, -1, -2)) * p).sum(axis=-1)
    if jeffreys:  # Firth: d/dθ ½ log det I = Σ pairs h (½ − p), h = w · the pair's effective resistance
        inverse = np.zeros(laplacian.shape)
        inverse[..., keep[:, None], keep[None, :]] = np.linalg.inv(kept)
        d = np.einsum("...ii->...i", inverse)
        resistance = d[..., :, None] + d[..., None, :] - 2.0 * inverse
        score = score + (w * resistance * (0.5 - p)).sum(axis=-1)
    return score[..., keep], kept


def _curvature(wins: np.ndarray, theta: np.ndarray, keep: np.ndarray, jeffreys: bool, info: np.ndarray) -> np.ndarray:
    """The matrix Newton's steps solve with: the information (the likelihood's curvature), or with
    Jeffreys' prior the penalised objective's own curvature, from central differences of its score,
    where that is positive definite. (With few games the penalty's curvature is as large as the
    likelihood's, and steps by the information alone creep to the maximum over hundreds of steps.)"""
    if not jeffreys:
        return info
    h = 1e-5
    shifts = np.zeros((2 * len(keep), len(theta)))
    shifts[np.arange(len(keep)), keep] = h
    shifts[len(keep) + np.arange(len(keep)), keep] = -h
    score = _score(np.broadcast_to(wins, (len(shifts), *wins.shape)), theta + shifts, keep, True)[0]
    hessian = -(score[:len(keep)] - score[len(keep):]) / (2.0 * h)
    hessian = (hessian + hessian.T) / 2.0
    try:
        np.linalg.cholesky(hessian)
    except np.linalg.LinAlgError:
        return info
    return hessian


def _objectives(wins: np.ndarray, theta: np.ndarray, keep: np.ndarray, jeffreys: bool) -> np.ndarray:
    """The (penalised) log-likelihood of each replicate: arrays of shape (..., n, n) and (..., n)."""
    value = (wins * special.log_expit(theta[..., :, None] - theta[..., None, :])).sum(axis=(-1, -2))
    if jeffreys:
        _, _, laplacian = _information(wins, theta)
        sign, logdet = np.linalg.slogdet(laplacian[..., keep[:, None], keep[None, :]])
        value = value + np.where(sign > 0, 0.5 * logdet, -np.inf)
    return value


def _objective(wins: np.ndarray, theta: np.ndarray, keep: np.ndarray, jeffreys: bool) -> float:
    return float(_objectives(wins, theta, keep, jeffreys))


def _gains(new: np.ndarray, value: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """Whether a step gains enough (Armijo's rule, up to rounding). The steps are Fisher scoring on
    the penalised score, whose curvature can be twice the Fisher information's when games are few
    (one game: the full step lands as far past the maximum as it started before it, at the same
    value), so a step that merely does not lose would swing back and forth forever."""
    return new >= value + _ARMIJO * slope - 1e-12 * (1.0 + np.abs(value))


def _fit(wins: np.ndarray, ref: int, jeffreys: bool, start: np.ndarray | None = None,
         fixed: tuple[np.ndarray, float] | None = None) -> tuple[np.ndarray, float]:
    """(θ, penalised log-likelihood) at the maximum, with θ[ref] = 0 and, given `fixed` = (c, t),
    c·θ = t. Newton steps (constrained ones through the KKT system), halved until they gain."""
    n = wins.shape[0]
    keep = np.array([i for i in range(n) if i != ref], dtype=np.int64)
    theta = np.zeros(n) if start is None else start - start[ref]
    if fixed is not None:  # onto the constraint first, so every step keeps it and can be line-searched
        c, t = fixed
        towards = c.copy()
        towards[ref] = 0.0
        theta = theta + towards * (t - c @ theta) / (c @ towards)
    value = _objective(wins, theta, keep, jeffreys)
    for _ in range(200):
        score, info = _score(wins, theta, keep, jeffreys)
        info = _curvature(wins, theta, keep, jeffreys, info)
        if fixed is None:
            step = np.linalg.solve(info, score)
        else:
            kkt = np.zeros((n, n))
            kkt[:-1, :-1] = info
            kkt[:-1, -1] = kkt[-1, :-1] = fixed[0][keep]
            step = np.linalg.solve(kkt, np.append(score, 0.0))[:-1]
        step *= min(1.0, _MAX_STEP / max(np.abs(step).max(), 1e-300))
        slope = float(score @ step)  # step · curvature · step: the gain the step promises, doubled
        if slope <= _SETTLED:
            break
        full = np.zeros(n)
        full[keep] = step
        for _ in range(40):
            trial = theta + full
            new = _objective(wins, trial, keep, jeffreys)
            if _gains(np.asarray(new), np.asarray(value), np.asarray(slope)):
                break
            full /= 2.0
            slope /= 2.0
        else:
            break  # no step gains: at the maximum to rounding
        theta, value = trial, new
        if np.abs(full).max() < _TOL:
            break
    return theta, value


def _fit_many(wins: np.ndarray, ref: int, jeffreys: bool, start: np.ndarray) -> np.ndarray:
    """θ for a stack of points matrices (the bootstrap's replicates) at once: capped Newton steps,
    each replicate's halved until it gains, and the one-at-a-time fit for any that did not settle."""
    replicates, n, _ = wins.shape
    keep = np.array([i for i in range(n) if i != ref], dtype=np.int64)
    theta = np.repeat((start - start[ref])[None, :], replicates, axis=0)
    value = _objectives(wins, theta, keep, jeffreys)  # each replicate's objective at its theta, always
    settled = np.zeros(replicates, dtype=bool)
    for _ in range(100):
        score, info = _score(wins, theta, keep, jeffreys)
        step = np.linalg.solve(info, score[..., None])[..., 0]
        big = np.abs(step).max(axis=1)
        step *= np.minimum(1.0, _MAX_STEP / np.maximum(big, 1e-300))[:, None]
        slope = (score * step).sum(axis=1)
        settled = (big < 1e-9) | (slope <= _SETTLED)
        if settled.all():
            break
        trial, new = theta.copy(), value.copy()
        pending = ~settled
        for _ in range(40):
            trial[pending[:, None] & (np.arange(n) != ref)[None, :]] = (
                theta[:, keep] + step)[pending].ravel()
            # only the replicates still halving: one that gained keeps its trial's objective
            new[pending] = _objectives(wins[pending], trial[pending], keep, jeffreys)
            pending &= ~_gains(new, value, slope)
            if not pending.any():
                break
            step[pending] /= 2.0
            slope[pending] /= 2.0
        gained = ~settled & ~pending
        theta[gained], value[gained] = trial[gained], new[gained]
    for r in np.flatnonzero(~settled):
        theta[r] = _fit(wins[r], ref, jeffreys, theta[r])[0]
    return theta


def _virtual(n: int, games: float) -> np.ndarray:
    """`games` virtual draws for every pair: half a win each way."""
    return np.full((n, n), games / 2.0) - np.eye(n) * games / 2.0


def strengths(wins: np.ndarray, start: np.ndarray | None = None, prior: float | None = None) -> np.ndarray:
    """Bradley–Terry log-strengths θ (mean 0) from a points matrix: penalised by Jeffreys' prior,
    or, given `prior`, with that many virtual draws per pair instead; `start` (an earlier fit) speeds
    up a refit of similar data."""
    n = wins.shape[0]
    if n == 1:
        return np.zeros(1)
    held = wins if prior is None else wins + _virtual(n, prior)
    theta = _fit(held, 0, prior is None, None if start is None else np.asarray(start, dtype=float))[0]
    return theta - theta.mean()


def elo_scale(theta: np.ndarray, agents: list[str], anchor: str = ANCHOR) -> np.ndarray:
    """θ on the Elo scale: the anchor (or, if it did not play, the mean) at ANCHOR_ELO."""
    elo = theta * ELO_PER_NAT
    zero = elo[..., agents.index(anchor)] if anchor in agents else elo.mean(axis=-1)
    return ANCHOR_ELO + elo - np.asarray(zero)[..., None]


# --- intervals ---------------------------------------------------------------------------------------

def _dispersion(table: _Table, weight: np.ndarray, theta: np.ndarray, info: np.ndarray, keep: np.ndarray,
                contrasts: list[np.ndarray]) -> list[float]:
    """φ for each contrast c·θ: its sandwich variance over its model variance. A game's score varies
    by p(1 − p) − P(draw)/4 and counts weight² times; the model assumes p(1 − p), once."""
    n = table.n
    p = special.expit(theta[table.black] - theta[table.white])
    low, high = np.minimum(table.black, table.white), np.maximum(table.black, table.white)
    pair = low * n + high
    drawn = table.score == 0.5
    games = np.bincount(pair, minlength=n * n)
    share = games / (games + 1.0)  # a pair that only drew may still not always draw
    variance = np.bincount(pair, weight ** 2 * (p * (1.0 - p) - drawn * share[pair] / 4.0), minlength=n * n)
    variance = np.maximum(variance.reshape(n, n), 0.0)
    variance = variance + variance.T
    meat = np.diag(variance.sum(axis=1)) - variance
    bread = np.linalg.inv(info)
    sandwich = bread @ meat[np.ix_(keep, keep)] @ bread
    out = []
    for c in contrasts:
        k = c[keep]
        model = k @ bread @ k
        out.append(float(k @ sandwich @ k / model) if model > 0 else 1.0)
    return out


def _profile(wins: np.ndarray, theta: np.ndarray, value: float, ref: int, jeffreys: bool, c: np.ndarray,
             drop: float) -> tuple[float, float]:
    """The values t of c·θ whose constrained best fit is within `drop` of the best fit `value`: on
    each side, the root of the signed likelihood-ratio root r(t) = √(2(value − best(t))) = √(2 drop),
    by secant steps (r is close to linear in t, and increases steadily away from the estimate)."""
    keep = np.array([i for i in range(len(theta)) if i != ref], dtype=np.int64)
    _, info = _score(wins, theta, keep, jeffreys)
    centre = float(c @ theta)
    spread = math.sqrt(max(float(c[keep] @ np.linalg.solve(info, c[keep])) * 2.0 * drop, 1e-8))  # Wald's guess
    goal = math.sqrt(2.0 * drop)
    ends = []
    for side in (-1.0, 1.0):
        start = theta

        def root(t: float) -> float:
            nonlocal start
            start, best = _fit(wins, ref, jeffreys, start, (c, t))
            return math.sqrt(max(2.0 * (value - best), 0.0))

        # distances from the centre: r(inside) < goal; once found, r(outside) ≥ goal
        inside, r_in, outside, r_out = 0.0, 0.0, spread, root(centre + side * spread)
        while r_out < goal and outside <= _REACH:  # not yet out: extend the secant, at most doubling
            ahead = (goal - r_out) * (outside - inside) / (r_out - r_in) if r_out > r_in else outside
            inside, r_in = outside, r_out
            outside = outside + min(max(1.2 * ahead, 1e-3), outside)  # a little past the guess, to bracket
            r_out = root(centre + side * outside)
        if r_out < goal:
            ends.append(side * math.inf)
            continue
        end, stale = outside, 0
        for _ in range(60):  # regula falsi, Illinois: halve the weight of an end kept twice
            if outside - inside < 1e-7:
                break
            end = inside + (goal - r_in) * (outside - inside) / (r_out - r_in)
            r_end = root(centre + side * end)
            if abs(r_end - goal) < 1e-7:
                break
            if r_end < goal:
                inside, r_in = end, r_end
                stale = stale + 1 if stale > 0 else 1
                if stale > 1:
                    r_out = goal + (r_out - goal) / 2.0
            else:
                outside, r_out = end, r_end
                stale = stale - 1 if stale < 0 else -1
                if stale < -1:
                    r_in = goal - (goal - r_in) / 2.0
        ends.append(centre + side * end)
    return ends[0], ends[1]


# --- results -----------------------------------------------------------------------------------------

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
    method: str = ""  # how the intervals were made, in words

    def by_name(self) -> dict[str, Rating]:
        return {r.name: r for r in self.ratings}


def shared_ranks(values: list[float], decimals: int = 1) -> list[int]:
    """Competition ranks of `values` (higher is better): equal values share a rank (1, 2, 2, 4)."""
    rounded = [round(v, decimals) for v in values]
    return [1 + sum(1 for other in rounded if other > v) for v in rounded]


def rank_shares(replicates: np.ndarray, tie: float = TIE_ELO) -> np.ndarray:
    """shares[i, k]: the share of replicates (rows) in which agent i has rank k + 1 (1 = highest);
    agents tied (within `tie`) in a replicate split the ranks they span equally."""
    count, n = replicates.shape
    shares = np.zeros((n, n))
    for row in replicates:
        order = np.argsort(-row, kind="stable")
        values = row[order]
        start = 0
        for end in range(1, n + 1):
            if end == n or values[start] - values[end] > tie:
                shares[order[start:end], start:end] += 1.0 / (end - start)
                start = end
    return shares / max(count, 1)


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


def _components(table: _Table) -> list[list[int]]:
    """The agents grouped by who is connected to whom through games."""
    parent = list(range(table.n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for b, w in zip(table.black, table.white):
        parent[root(int(b))] = root(int(w))
    groups: dict[int, list[int]] = {}
    for i in range(table.n):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def rate(games: list[Outcome], agents: list[str] | None = None, *, anchor: str = ANCHOR,
         resamples: int = RESAMPLES, seed: int = 0, equal_stages: bool = True, prior: float | None = None,
         interval: str = "profile", planned: dict[str, float] | None = None) -> Ratings:
    """Fit, interval, bootstrap and rank. `agents` fixes who is rated (default: everyone who played).
    `planned` (stage → the games it plans) weighs each stage by its share of them (see above).
    `prior` (virtual draws per pair instead of Jeffreys' prior) and `interval` ("percentile": from
    the bootstrap) exist to reproduce the method before issue 20."""
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {INTERVALS}, not {interval!r}")
    if prior is not None and not prior > 0:
        raise ValueError("prior: a positive number of virtual draws per pair (None: Jeffreys' prior)")
    agents = list(agents) if agents is not None else sorted({n for g in games for n in (g.black, g.white)})
    n = len(agents)
    table = _Table(games, agents, planned)
    jeffreys = prior is None
    ref = agents.index(anchor) if anchor in agents else 0
    notes = [] if anchor in agents else [f"{anchor!r} did not play: the mean rating is {ANCHOR_ELO:g}"]
    virtual = np.zeros((n, n)) if prior is None else _virtual(n, prior)
    components = _components(table)
    if jeffreys and len(components) > 1:
        virtual = _virtual(n, CONNECT_GAMES)
        notes.append("the games do not connect " + " | ".join(", ".join(agents[i] for i in g) for g in components)
                     + f": ratings across these groups rest on {CONNECT_GAMES:g} virtual draw per pair, and their "
                       "intervals on the prior alone")
    wins = table.points(equal_stages=equal_stages) + virtual
    theta, value = _fit(wins, ref, jeffreys) if n > 1 else (np.zeros(n), 0.0)
    elo = elo_scale(theta, agents, anchor)
    strata, how = _strata(games)
    fitted, inestimable = _bootstrap(table, strata, virtual, ref, jeffreys, theta, resamples, seed, equal_stages)
    replicates = elo_scale(fitted, agents, anchor)
    if inestimable:
        notes.append(f"{inestimable} of the {resamples} bootstrap resamples left an agent without a game against the "
                     "others (too few games: a pairing played once): no rating can be fitted there, so they are left "
                     f"out and the figures from the bootstrap rest on the other {resamples - inestimable}")
    resamples -= inestimable
    held = "Jeffreys' prior" if jeffreys else f"{prior:g} virtual draw(s) per pair"
    if interval == "percentile":
        tail = (1.0 - LEVEL) / 2.0
        low, high = (np.quantile(replicates, q, axis=0) if resamples else elo for q in (tail, 1.0 - tail))
        method = f"percentile bootstrap ({resamples} resamples), {held}"
    else:
        low, high = elo.copy(), elo.copy()
        if n > 1:
            weight = table.weights(np.arange(len(games))[None, :], equal_stages)[0]
            for k, ends in _intervals(table, weight, wins, theta, value, ref, jeffreys, anchor in agents).items():
                low[k], high[k] = (ANCHOR_ELO + ELO_PER_NAT * t for t in ends)
        method = f"profile likelihood with {held}, scaled for draws and stage weights"
    rank_counts = rank_shares(replicates) if resamples else np.zeros((n, n))
    matrix, played, scored = _matrix(games, agents)
    ranks = shared_ranks(list(elo))
    ratings = [Rating(a, float(elo[i]), float(low[i]), float(high[i]), ranks[i],
                      [float(p) for p in rank_counts[i]], played[a],
                      scored[a] / played[a] if played[a] else 0.0) for i, a in enumerate(agents)]
    ratings.sort(key=lambda x: (-round(x.elo, 1), x.name))
    flat = [r.name for r in ratings if interval == "percentile" and resamples and r.high - r.low < 1e-6
            and r.name != anchor]
    if flat:
        notes.append(f"no spread in the bootstrap for {', '.join(flat)}: every resample gives the same games (too "
                     "few, or each pair's games all went one way); more games (--games) give an interval")
    notes += [one_sided(r) for r in ratings if one_sided(r)]
    return Ratings(ratings, matrix, resamples, how, anchor if anchor in agents else "mean",
                   stages=len({g.stage for g in games}), notes=notes, method=method)


NEAR_SWEEP = 0.95  # a score at least this high (or this low) is a near-sweep: its games bound the rating on one side


def one_sided(rating: Rating) -> str:
    """What to say of a near-sweep's rating ("" of any other): its games bound it from one side only, so
    the fit reads it too close to the field (issue 34: 90-120 Elo in the default run's shape, the
    interval still covering), and its interval is the figure to read."""
    if rating.games < 10 or NEAR_SWEEP > rating.score > 1.0 - NEAR_SWEEP:
        return ""
    points = rating.score * rating.games
    won = rating.score >= NEAR_SWEEP
    return (f"{rating.name} {'won' if won else 'lost'} {points if won else rating.games - points:g} of its "
            f"{rating.games} games (draws half): the games bound this rating from {'below' if won else 'above'} "
            f"only, and it reads closer to the field than it is; read its interval "
            f"({rating.low:.0f}–{rating.high:.0f})")


def _bootstrap(table: _Table, strata: list[list[int]], virtual: np.ndarray, ref: int, jeffreys: bool,
               theta: np.ndarray, resamples: int, seed: int, equal_stages: bool) -> tuple[np.ndarray, int]:
    """θ refitted on the `resamples` replicates that can be fitted, each resampling games within
    the strata, and how many could not. A replicate whose games leave the agents unconnected (an
    agent whose only games were left out of it: the strata pool cells of one game, so this happens
    on a run with few games) has no finite Bradley–Terry fit (its information matrix is singular):
    it is not estimable, and is left out rather than fitted."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x4C554443]))
    groups = [np.array(members) for members in strata]
    replicates = np.zeros((resamples, table.n))
    estimable = np.ones(resamples, dtype=bool)
    block = max(1, min(250, _BLOCK // max(len(table.score), 1)))  # replicates at a time: games × block indices
    for first in range(0, resamples if table.n > 1 else 0, block):
        size = min(block, resamples - first)
        chosen = (np.concatenate([m[rng.integers(0, len(m), (size, len(m)))] for m in groups], axis=1) if groups
                  else np.zeros((size, 0), dtype=np.int64))
        points = table.points_many(chosen, equal_stages) + virtual
        fits = _connected(points)
        estimable[first:first + size] = fits
        if fits.any():
            replicates[first:first + size][fits] = _fit_many(points[fits], ref, jeffreys, theta)
    return replicates[estimable], int((~estimable).sum())


def _connected(points: np.ndarray) -> np.ndarray:
    """For each points matrix of a stack (replicates, n, n): whether its games (or virtual draws)
    connect every agent to every other, as a finite fit needs."""
    n = points.shape[-1]
    reach = ((points + np.swapaxes(points, -1, -2)) > 0) | np.eye(n, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(n))))):  # paths of length 2^k by squaring
        reach = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
    return reach.all(axis=(-1, -2))


def _intervals(table: _Table, weight: np.ndarray, wins: np.ndarray, theta: np.ndarray, value: float, ref: int,
               jeffreys: bool, anchored: bool) -> dict[int, tuple[float, float]]:
    """Profile intervals (in nats, from the anchor or the mean) of every agent but the anchor."""
    n = len(theta)
    keep = np.array([i for i in range(n) if i != ref], dtype=np.int64)
    if anchored:
        contrasts = {int(k): np.eye(n)[k] - np.eye(n)[ref] for k in keep}
    else:
        contrasts = {k: np.eye(n)[k] - 1.0 / n for k in range(n)}
    _, info = _score(wins, theta, keep, jeffreys)
    phi = _dispersion(table, weight, theta, info, keep, list(contrasts.values()))
    drop = stats.chi2.ppf(LEVEL, 1) / 2.0
    return {k: _profile(wins, theta, value, ref, jeffreys, c, drop * scale)
            for (k, c), scale in zip(contrasts.items(), phi)}


def _matrix(games: list[Outcome], agents: list[str]):
    matrix = {a: {b: (0.0, 0) for b in agents if b != a} for a in agents}
    played = dict.fromkeys(agents, 0)
    scored = dict.fromkeys(agents, 0.0)
    for g in games:
        for me, other, s in ((g.black, g.white, g.score), (g.white, g.black, 1.0 - g.score)):
            p, n = matrix[me][other]
            matrix[me][other] = (p + s, n + 1)
            played[me] += 1
            scored[me] += s
    return matrix, played, scored
