"""The anytime generalisation score by simulation (issue 20): games drawn from known strengths, the
stages of a run planned by evaluate.py's own pairs and reference games, and scored by ludica's own
code (evaluation/anytime.py), beside the rule before issue 20 (its code as it stood, below).

Every game is won by black with the Bradley–Terry (Elo) probability of the two players' strengths
on that stage, else by white; random is at 0 Elo on every stage. Three figures:

- scale: a copy of the reference baseline (mcts) entered as a submitted agent, on stages where
  greedy, corners and positional are N(150, 100) Elo and mcts N(400, 100), four unseen stages (the
  default run's) at one game per seating; in round robin, in a gauntlet, and in a gauntlet with a
  strong agent (+800) also submitted. Target: the copy scores 1.00 ± 0.05 (its mean over runs;
  random is 0 and the reference 1 by definition) whatever the format and whoever else is there. A
  copy of greedy beside it scores what greedy itself does.
- weak: every baseline but random U(0, 100) Elo on each stage, an agent 300 Elo above random, one
  game per seating, round robin: the estimate's median and quartiles against the rule's noise-free
  value (its value with expected scores in place of games, over the same prior), and how often the
  interval holds it. Target: within 10%. Not the mean: on a scale this short (mcts leads random by
  0.07 points per game) the unit comes near 0 in some runs, and a ratio's mean is then unbounded.
- coverage: stages with costs τ = e^(0.9 z), z ~ N(0, 1) (Levin weights about as uneven as those of
  issue 20's 10 fresh stages, effective number 4.7), weighted 1/τ; the agent's strength 250 − 150·z
  Elo (better on cheap stages: weights correlated with scores), 250 + 150·z (worse on them), or
  with an independent z (uncorrelated), or equal weights; baselines as in `scale`; the share of
  runs whose 95% interval holds the noise-free value (no estimate or no interval counts as a miss).
  Target: ≥ 93%.

    python benchmarks/anytime_sim.py [--trials N] [--seed S] [--reference-games R]
"""
from __future__ import annotations

import argparse
import math
import statistics

import numpy as np
from scipy import stats

from ludica.evaluation import anytime, evaluate
from ludica.runtime import tournament

BASELINES = ("random", "greedy", "corners", "positional", "mcts")
SIGMA = 0.9  # the spread of log τ


def win(a: float, b: float) -> float:
    """The Bradley–Terry probability that a strength-a player beats a strength-b one (Elo)."""
    return 1.0 / (1.0 + 10.0 ** ((b - a) / 400.0))


# --- the rule before issue 20 (evaluation/anytime.py and summary._anytime at 8c7af2c) -------------

def before_normalised(scores: dict[str, float]) -> dict[str, float] | None:
    """Normalised by random and the best baseline of the stage; None under the 0.1 rule."""
    floor, top = scores["random"], max(scores[b] for b in BASELINES[1:])
    if top - floor < 0.1:
        return None
    return {a: (s - floor) / (top - floor) for a, s in scores.items()}


def before_estimate(values: list[float], weights: list[float]) -> tuple[float, float | None, float | None]:
    """Weighted mean with the Kish-weighted Student-t interval."""
    total = sum(weights)
    p = [w / total for w in weights]
    mean = sum(pi * x for pi, x in zip(p, values))
    concentration = sum(pi * pi for pi in p)
    effective = 1.0 / concentration
    if len(values) < 2 or effective < 1.0 + 1e-9:
        return mean, None, None
    spread = sum(pi * (x - mean) ** 2 for pi, x in zip(p, values)) / (1.0 - concentration)
    half = stats.t.ppf(0.975, max(1.0, effective - 1.0)) * math.sqrt(spread * concentration)
    return mean, mean - half, mean + half


def format_scores(rows: list[dict], format_games: int, gauntlet: bool) -> dict[str, float]:
    """Points per game on the stage over the format's games only (the rule before had no others)."""
    base = set(BASELINES)
    kept = [g for g in rows if not (g["black"] in base and g["white"] in base
                                    and (gauntlet or g["game_index"] >= format_games))]
    points: dict[str, list[float]] = {}
    for g in kept:
        b = 1.0 if g["result"] == "black" else 0.0
        points.setdefault(g["black"], []).append(b)
        points.setdefault(g["white"], []).append(1.0 - b)
    return {a: statistics.fmean(v) for a, v in points.items()}


# --- a stage, played ---------------------------------------------------------------------------

def schedule(agents: list[str], format: str, games: int, reference_games: int) -> list[tuple[str, str, int]]:
    """The games of one unseen stage, as evaluate.plans makes them (adaptation games left out)."""
    names = list(BASELINES) + agents
    config = evaluate.Config(tournament.Options(games=games), format=format, reference_games=reference_games)
    plan = tournament.StagePlan(None, evaluate.pairs(names, set(BASELINES), format), games, "", 0.0,
                                more=evaluate.reference_games(names, set(BASELINES), config))
    return plan.schedule()


def play(rng: np.random.Generator, strength: dict[str, float], games: list[tuple[str, str, int]]) -> list[dict]:
    draws = rng.random(len(games))
    return [{"stage_hash": "s", "black": b, "white": w, "game_index": k,
             "result": "black" if u < win(strength[b], strength[w]) else "white"} for (b, w, k), u in zip(games, draws)]


def expected_leads(strength: dict[str, float], agents: list[str]) -> tuple[float, dict[str, float]]:
    """The reference's lead over random and each agent's, with expected scores in place of games."""
    def level(x: str) -> float:
        return statistics.fmean(0.5 if b == x else win(strength[x], strength[b]) for b in BASELINES)

    floor = level("random")
    return level("mcts") - floor, {a: level(a) - floor for a in agents}


def expected_before(strength: dict[str, float], agents: list[str], gauntlet: bool) -> dict[str, float] | None:
    names = list(BASELINES) + agents
    base = set(BASELINES)
    scores = {x: statistics.fmean(win(strength[x], strength[y]) for y in names
                                  if y != x and not (gauntlet and x in base and y in base)) for x in names}
    return before_normalised(scores)


# --- the scenarios -----------------------------------------------------------------------------

def typical(rng: np.random.Generator) -> dict[str, float]:
    """Baselines as on a stage where mcts is the strongest (the usual case in a round robin)."""
    s = {"random": 0.0, "mcts": rng.normal(400, 100)}
    s.update({b: rng.normal(150, 100) for b in ("greedy", "corners", "positional")})
    return s


def weak(rng: np.random.Generator) -> dict[str, float]:
    return {"random": 0.0, **{b: rng.uniform(0, 100) for b in BASELINES[1:]}}


def run_trials(rng, trials: int, stages: int, draw, agents: list[str], format: str, games: int,
               reference_games: int, watch: list[str]) -> dict:
    """`trials` runs of `stages` stages; draw(rng) → (strengths, weight) of one stage. For each name
    in `watch`, its (mean, low, high) after the last stage, by the rule now and the rule before."""
    gauntlet = format == "gauntlet"
    plan = schedule(agents, format, games, reference_games)
    everyone = list(BASELINES) + agents
    now, before, dropped = {a: [] for a in watch}, {a: [] for a in watch}, 0
    for _ in range(trials):
        leads, units, weights, values, kept = {a: [] for a in watch}, [], [], {a: [] for a in watch}, []
        for _ in range(stages):
            strength, weight = draw(rng)
            rows = play(rng, strength, plan)
            measured = anytime.stage_leads(rows, everyone, BASELINES)
            units.append(measured.unit)
            weights.append(weight)
            old = before_normalised(format_scores(rows, games, gauntlet))
            dropped += old is None
            if old is not None:
                kept.append(weight)
            for a in watch:
                leads[a].append(measured.leads[a])
                if old is not None:
                    values[a].append(old[a])
        for a in watch:
            e = anytime.estimate(leads[a], weights, units)
            now[a].append((e.mean, e.low, e.high))
            before[a].append(before_estimate(values[a], kept) if kept else (math.nan, None, None))
    return {"now": now, "before": before, "dropped": dropped / (trials * stages)}


def truth(rng, draw, agents: list[str], watch: str, gauntlet: bool, n: int = 50_000) -> tuple[float, float]:
    """(the rule now, the rule before) with expected scores, over the prior: weighted ratio of mean
    leads, and weighted mean of the kept stages' normalised scores."""
    top = bottom = old_top = old_bottom = 0.0
    for _ in range(n):
        strength, weight = draw(rng)
        unit, leads = expected_leads(strength, agents)
        top += weight * leads[watch]
        bottom += weight * unit
        old = expected_before(strength, agents, gauntlet)
        if old is not None:
            old_top += weight * old[watch]
            old_bottom += weight
    return top / bottom, old_top / old_bottom


def _means(estimates) -> list[float]:
    return [m for m, _, _ in estimates if not math.isnan(m)]


def _held(estimates, value: float) -> float:
    """The share of runs whose interval holds `value` (no estimate or no interval: not held)."""
    return sum(lo is not None and lo <= value <= hi for _, lo, hi in estimates) / len(estimates)


def scale(rng, trials: int, reference_games: int) -> tuple[list[str], dict]:
    lines, figures = [], {}

    def draw(r):
        s = typical(r)
        return s | {"copy": s["mcts"], "greedy copy": s["greedy"], "strong": 800.0}, 1.0

    for label, format, agents in (("round robin", "round-robin", ["copy", "greedy copy"]),
                                  ("gauntlet", "gauntlet", ["copy", "greedy copy"]),
                                  ("gauntlet, +800 agent also in", "gauntlet", ["copy", "greedy copy", "strong"])):
        got = run_trials(rng, trials, 4, draw, agents, format, 1, reference_games, ["copy", "greedy copy", "greedy"])
        now, before = _means(got["now"]["copy"]), _means(got["before"]["copy"])
        figures[label] = statistics.fmean(now)
        lines.append(f"scale, {label}: a copy of mcts (the reference) scores {statistics.fmean(now):.3f} "
                     f"(sd {statistics.stdev(now):.2f} per run of 4 stages), a copy of greedy "
                     f"{statistics.fmean(_means(got['now']['greedy copy'])):.3f} and greedy itself "
                     f"{statistics.fmean(_means(got['now']['greedy'])):.3f}; before: the copy of mcts "
                     f"{statistics.fmean(before):.3f}")
    return lines, figures


def weak_case(rng, trials: int, reference_games: int, stage_counts=(4, 10, 40)) -> tuple[list[str], dict]:
    def draw(r):
        return weak(r) | {"agent": 300.0}, 1.0

    value, old_value = truth(rng, draw, ["agent"], "agent", False)
    lines = [f"weak baselines: noise-free value now {value:.2f} (1 = mcts's level), before {old_value:.2f} "
             "(1 = the best baseline's)"]
    figures = {}
    for n in stage_counts:
        got = run_trials(rng, trials, n, draw, ["agent"], "round-robin", 1, reference_games, ["agent"])
        now, before = _means(got["now"]["agent"]), _means(got["before"]["agent"])
        quartiles = statistics.quantiles(now, n=4)
        figures[n] = {"median": quartiles[1] / value - 1, "held": _held(got["now"]["agent"], value)}
        lines.append(f"weak baselines, {n} stages: now median {quartiles[1]:.2f} ({quartiles[1] / value - 1:+.0%}), "
                     f"quartiles {quartiles[0]:.2f}–{quartiles[2]:.2f}, interval holds the value in "
                     f"{figures[n]['held']:.1%}, no scale in {1 - len(now) / trials:.1%} of runs; before mean "
                     f"{statistics.fmean(before):.2f} ({statistics.fmean(before) / old_value - 1:+.0%}), median "
                     f"{statistics.median(before):.2f}, {got['dropped']:.0%} of stages dropped by the 0.1 rule")
    return lines, figures


def coverage(rng, trials: int, reference_games: int, stage_counts=(4, 10)) -> tuple[list[str], dict]:
    lines, figures = [], {}
    for label, tilt in (("better on cheap stages", -150.0), ("worse on cheap stages", 150.0),
                        ("uncorrelated", None), ("equal weights", 0.0)):
        def draw(r, tilt=tilt):
            z = r.normal()
            agent = 250.0 + (tilt * z if tilt is not None else 150.0 * r.normal())
            if tilt == 0.0:  # no weights (a folder without manifest): the agent's strength varies alone
                return typical(r) | {"agent": 250.0 + 150.0 * z}, 1.0
            return typical(r) | {"agent": agent}, math.exp(-SIGMA * z)  # weight 1/τ, τ = e^(0.9 z)

        value, old_value = truth(rng, draw, ["agent"], "agent", False)
        for n in stage_counts:
            got = run_trials(rng, trials, n, draw, ["agent"], "round-robin", 1, reference_games, ["agent"])
            figures[(label, n)] = _held(got["now"]["agent"], value)
            lines.append(f"coverage, {label}, {n} stages: now {figures[(label, n)]:.1%}, "
                         f"before {_held(got['before']['agent'], old_value):.1%}")
    return lines, figures


def simulate(trials: int = 1000, seed: int = 20, reference_games: int = evaluate.REFERENCE_GAMES,
             say=print) -> dict:
    """Every figure, by scenario ("scale", "weak", "coverage"), each line said as it comes."""
    rng = np.random.default_rng(seed)
    figures = {}
    for name, part in (("scale", scale), ("weak", weak_case), ("coverage", coverage)):
        lines, figures[name] = part(rng, trials, reference_games)
        for line in lines:
            say(line)
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--reference-games", type=int, default=evaluate.REFERENCE_GAMES)
    args = parser.parse_args(argv)
    simulate(args.trials, args.seed, args.reference_games, say=lambda line: print(line, flush=True))


if __name__ == "__main__":
    main()
