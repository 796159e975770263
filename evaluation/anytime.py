"""The anytime generalisation score (after Schaul, Togelius and Schmidhuber, "Measuring intelligence
through games", 2011): every agent meets the same unseen stages, drawn ∝ 2^-K, with the same seeds;
after each stage, each agent's estimate over the stages so far, with a 95% interval that narrows
as stages are added. It can be read at any moment, and the run stopped there.

**One scale in every format.** On an unseen stage, an entrant's *level* is its points per game
(draws half, forfeits lost) against the baselines of the run — the pool — averaged over the pool's
members, both seats; a baseline meets itself at exactly 0.5 (its score against a copy of itself
over both seats), so a copy of a baseline has the baseline's expected level. The baselines' levels
come from the reference games they play among themselves on every unseen stage, in every format
(evaluate.Config.reference_games per seating, the round robin's own games among them included),
never from games with a submitted agent; a submitted agent's level from its games against the same
baselines, which every format plays. Who else was submitted, and the format, change neither.

**The reference.** 0 is random's level, 1 the level of one baseline fixed for the whole run:
REFERENCES[0] (mcts, the built-in search that reads the rules through playouts, at the same clock
as everyone), or the first of the others the run has. Not the best baseline on each stage: the
maximum of noisy levels is biased upward (the winner's curse), most where the baselines are close
to each other and to random, and which baseline it picks is noise. The reference's own line is 1
and random's 0 by definition.

**The estimate** is a ratio over the stages so far. With each stage's Levin weight p_s (normalised
over the stages so far; equal weights for a folder without a manifest), an agent's lead over random
a_s = level(agent) − level(random) and the reference's r_s = level(reference) − level(random):

    m = Σ p_s a_s / Σ p_s r_s,

the agent's mean lead over random in units of the reference's mean lead. It is the weighted mean of
the per-stage normalised scores a_s / r_s with weights p_s r_s: a stage where the reference hardly
stands above random (it tells skill from luck too little) counts in proportion to its short lead,
instead of a cut at a threshold that noise decides which stages pass (stages with r_s below
MIN_SPREAD are only counted, `faint`), and no single stage's small, noisy r_s can blow the estimate
up. The whole scale can still be short: where the mean lead Σ p_s r_s is under MIN_SPREAD the
command and the report say so; while it is not above 0 there is no scale, and no estimate.

**The interval** (95%) is the hull of two, each sound where the other errs. Student's t on the
jackknife's standard error over stages (each stage left out in turn, the weights renormalised: the
ratio's own randomness, and weights 1/τ that are random and may be correlated with the scores, as
for an agent better on cheap stages), with Hall's (1992) correction for skewness: a heavy stage
that the sample rarely holds makes the error one-sided. And Fieller's interval for a ratio: the m
for which Σ p (a − m r) is within t standard errors of 0, which stays honest when the unit itself
is noisy (a short scale) and is unbounded on a side while the unit is not told from 0. Both use
(Σ p²)² / Σ p⁴ − 1 degrees of freedom, at least 1: the number of stages that carry the variance
under the weights. With equal weights, one unit on every stage and no skew it is the textbook
mean ± t(n − 1)·s/√n. No interval before two stages. `benchmarks/anytime_sim.py` measures it:
coverage with weights correlated with the scores and not, with equal weights, and on a short scale.
"""
from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass

from scipy import stats

from .metrics import SCORE

RANDOM = "random"
REFERENCES = ("mcts", "positional", "corners", "greedy")  # the first of these in the run is its 1
MIN_SPREAD = 0.1  # a reference lead under it: a faint stage (counted, weighing little), or a short scale
LEVEL = 0.95


def reference(baselines) -> str | None:
    """The baseline whose level is 1 in this run: the first of REFERENCES among `baselines` (None
    without one, or without random: the scale needs both ends)."""
    return next((b for b in REFERENCES if b in baselines), None) if RANDOM in baselines else None


@dataclass(frozen=True)
class Estimate:
    mean: float  # nan: no scale yet (the reference not above random on the stages so far)
    low: float | None  # None: no interval (fewer than two stages); ±inf: unbounded on that side
    high: float | None
    stages: int
    effective: float = 0.0  # Kish's effective number of stages, 1 / Σ p_i²


def estimate(leads: list[float], weights: list[float] | None = None, units: list[float] | None = None,
             level: float = LEVEL) -> Estimate:
    """Σ p a / Σ p r over the stages (leads a; weights p, equal if not given; units r, 1 each if not
    given: then the weighted mean), with its interval (the module's docstring)."""
    n = len(leads)
    if n == 0:
        return Estimate(math.nan, None, None, 0)
    r = [1.0] * n if units is None else list(units)
    w = [1.0] * n if weights is None else list(weights)
    total = sum(w)
    p = [x / total for x in w]
    squares = [pi * pi for pi in p]
    effective = 1.0 / sum(squares)
    top, bottom = sum(pi * a for pi, a in zip(p, leads)), sum(pi * u for pi, u in zip(p, r))
    if not bottom > 0:
        return Estimate(math.nan, None, None, n, effective)
    mean = top / bottom
    if n < 2:
        return Estimate(mean, None, None, n, effective)
    q = stats.t.ppf(0.5 + level / 2.0, max(1.0, sum(squares) ** 2 / sum(s * s for s in squares) - 1.0))
    low, high = _fieller(leads, r, p, top, bottom, q)
    jackknifed = _jackknife(leads, r, p, top, bottom, q)
    if jackknifed is not None:  # the hull: each interval errs where the other holds
        low, high = min(low, jackknifed[0]), max(high, jackknifed[1])
    return Estimate(mean, low, high, n, effective)


def _jackknife(a: list[float], r: list[float], p: list[float], top: float, bottom: float, q: float
               ) -> tuple[float, float] | None:
    """Student's t on the jackknife's standard error with Hall's skewness correction; None when
    leaving a stage out leaves no scale."""
    n, mean = len(a), top / bottom
    rest = [bottom - pi * u for pi, u in zip(p, r)]  # the unit with stage i left out
    if min(rest) <= 0:
        return None
    left_out = [(top - pi * x) / b for pi, x, b in zip(p, a, rest)]
    centre = statistics.fmean(left_out)
    error = math.sqrt((n - 1) / n * sum((x - centre) ** 2 for x in left_out))
    # skewness from the stages' influences on the ratio (m − truth ≈ their mean, which is 0): a
    # heavy stage the sample rarely holds makes the estimate's error one-sided
    influence = [n * pi * (x - mean * u) / bottom for pi, x, u in zip(p, a, r)]
    spread = statistics.pstdev(influence)
    skew = sum(x ** 3 for x in influence) / n / spread ** 3 if spread > 0 else 0.0
    return mean - _hall(q, skew, n) * error, mean - _hall(-q, skew, n) * error


def _hall(x: float, skew: float, n: int) -> float:
    """The inverse of Hall's (1992) transformation g(t) = t + λt² + λ²t³/3 + λ/2, λ = skew/(3√n),
    of a studentised mean: the quantile x of the corrected statistic, as a t value (x itself
    without skew)."""
    lam = skew / (3.0 * math.sqrt(n))
    if abs(lam) < 1e-12:
        return x
    y = 1.0 + 3.0 * lam * (x - lam / 2.0)
    return (math.copysign(abs(y) ** (1.0 / 3.0), y) - 1.0) / lam


def _fieller(a: list[float], r: list[float], p: list[float], top: float, bottom: float, q: float
             ) -> tuple[float, float]:
    """Fieller's interval for the ratio of the weighted means of a and r: the m for which
    Σ p (a − m r) is within q standard errors of 0, the standard error from the stages' centred
    terms p_i((a_i − ā) − m (r_i − r̄)) (self-normalised: the weights' own spread is not noise).
    Unbounded on a side when the unit is not told from 0 there."""
    n, mean = len(a), top / bottom
    c = q * q * n / (n - 1)
    da = [pi * (x - top) for pi, x in zip(p, a)]
    dr = [pi * (u - bottom) for pi, u in zip(p, r)]
    saa, sar, srr = sum(x * x for x in da), sum(x * y for x, y in zip(da, dr)), sum(y * y for y in dr)
    # (ā − m r̄)² ≤ c (saa − 2 m sar + m² srr), as A m² − 2 B m + C ≤ 0
    big_a, big_b, big_c = bottom * bottom - c * srr, top * bottom - c * sar, top * top - c * saa
    disc = big_b * big_b - big_a * big_c
    if big_a > 0:
        root = math.sqrt(max(disc, 0.0))
        return (big_b - root) / big_a, (big_b + root) / big_a
    if disc <= 0:
        return -math.inf, math.inf
    ends = sorted(((big_b - math.sqrt(disc)) / big_a, (big_b + math.sqrt(disc)) / big_a))
    if mean <= ends[0]:
        return -math.inf, ends[0]
    if mean >= ends[1]:
        return ends[1], math.inf
    return -math.inf, math.inf


def levels(games: list[dict], pool) -> dict[str, float]:
    """Each player's level on one stage (the rows of its games there): its points per game against
    each member of `pool`, both seats together, averaged over the members, a member against itself
    0.5; only players with games against every other member have one."""
    points: dict[tuple[str, str], list[float]] = defaultdict(list)
    for g in games:
        black, white = SCORE[g["result"]]
        if g["white"] in pool:
            points[(g["black"], g["white"])].append(black)
        if g["black"] in pool:
            points[(g["white"], g["black"])].append(white)
    out = {}
    for me in {me for me, _ in points}:
        if all(b == me or (me, b) in points for b in pool):
            out[me] = statistics.fmean([0.5 if b == me else statistics.fmean(points[(me, b)]) for b in pool])
    return out


@dataclass(frozen=True)
class Leads:
    """One unseen stage, measured: the reference's lead over random (the stage's unit) and every
    entrant's lead over random, on the level scale."""

    unit: float
    leads: dict[str, float]


def stage_leads(games: list[dict], agents: list[str], baselines) -> Leads | None:
    """The leads on one stage from its games (any: only games against a baseline count), or None
    when the run has no random or no reference baseline, or an entrant has no level there."""
    ref = reference(baselines)
    if ref is None:
        return None
    level = levels(games, sorted(set(baselines)))
    if any(a not in level for a in {*agents, ref, RANDOM}):
        return None
    return Leads(level[ref] - level[RANDOM], {a: level[a] - level[RANDOM] for a in agents})


@dataclass(frozen=True)
class Point:
    """The estimate of every agent after a stage: where the running score stood."""

    stage: str
    stages: int  # stages in the estimate so far
    skipped: int  # stages left out so far (no random or reference baseline, or an entrant without a level)
    estimates: dict[str, Estimate]
    reference: str | None = None  # the baseline whose level is 1
    unit: float = math.nan  # the reference's weighted mean lead over random so far, Σ p r
    faint: int = 0  # stages so far where the reference led random by less than MIN_SPREAD

    @property
    def effective(self) -> float:
        """The effective number of stages (the same for every agent: one set of weights)."""
        return next(iter(self.estimates.values())).effective if self.estimates else 0.0

    def ranked(self) -> str:
        """Every agent's estimate, best first: `name mean [low, high]` (random and the reference,
        0 and 1 by definition, without an interval; no interval before two stages)."""
        def text(name: str, e: Estimate) -> str:
            if name == self.reference:
                return f"{name} 1 (reference)"
            if name == RANDOM:
                return f"{name} 0"
            if math.isnan(e.mean):
                return f"{name} —"
            return f"{name} {e.mean:.2f}" + ("" if e.low is None or e.high is None
                                             else f" [{_bound(e.low)}, {_bound(e.high)}]")

        order = sorted(self.estimates.items(), key=lambda kv: -kv[1].mean if not math.isnan(kv[1].mean) else math.inf)
        return " | ".join(text(a, e) for a, e in order)


def _bound(x: float) -> str:
    return f"{x:.2f}" if math.isfinite(x) else "∞" if x > 0 else "−∞"


def running(per_stage: list[tuple[str, Leads | None, float]], agents: list[str], reference: str | None = None
            ) -> list[Point]:
    """The estimate after each stage: per_stage is [(stage, its leads or None, weight)] in the order
    the stages were played."""
    points: list[Point] = []
    leads: dict[str, list[float]] = {a: [] for a in agents}
    units: list[float] = []
    weights: list[float] = []
    skipped = faint = 0
    for stage, measured, weight in per_stage:
        if measured is None:
            skipped += 1
        else:
            units.append(measured.unit)
            weights.append(weight)
            faint += measured.unit < MIN_SPREAD
            for a in agents:
                leads[a].append(measured.leads[a])
        total = sum(weights)
        unit = sum(w * u for w, u in zip(weights, units)) / total if weights else math.nan
        estimates = {a: estimate(leads[a], weights, units) for a in agents}
        ends = {RANDOM} if reference is None else {RANDOM, reference}
        for end in ends & set(agents):  # 0 and 1 by definition, whatever the noise
            e = estimates[end]
            if not math.isnan(e.mean):
                estimates[end] = Estimate(e.mean, e.mean, e.mean, e.stages, e.effective)
        points.append(Point(stage, len(weights), skipped, estimates, reference, unit, faint))
    return points


def doubling(rounds: int, t0: float) -> list[float]:
    """The analysis budgets of the doubling schedule, stage by stage: in round i, 2^i stages, half
    with t0, a quarter with 2·t0, ..., one with 2^i·t0."""
    budgets: list[float] = []
    for i in range(rounds):
        for j in range(i):
            budgets += [t0 * 2 ** j] * 2 ** (i - 1 - j)
        budgets.append(t0 * 2 ** i)
    return budgets
