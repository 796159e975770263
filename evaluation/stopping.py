"""`--until-separated`: stop a run once the agents it is about are told apart, by a sequential test
that stays valid however often it is looked at (after every unseen stage, as the run does).

Which agents: every pair of submitted agents (the entrants that are not baselines: the baselines
are references, and two of them may stay a few Elo apart for ever), or the pairs named with
`--separate A B` (a baseline may be one of them).

The statistic: each finished unseen stage gives a pair (a, b) one paired observation, the
difference of their scores there, d = score(a) − score(b) ∈ [−1, 1] (points per game over their
games on the stage: against the same opponents in the same seats, and each other). The test
reads its sign: a stage on which a outscored b, b outscored a, or neither (even: it says nothing
and changes nothing).

The null hypothesis: on each stage, a is as likely to outscore b as b to outscore a — true of two
equally strong agents, whatever the stages are and however they vary from stage to stage.
Rejecting it in a's favour means: a outscores b on more stages than not.

The evidence is the Krichevsky–Trofimov mixture of likelihood ratios against a fair coin, over
the w stages a led and the l stages b led:

    E = ∫ (2p)^w (2(1 − p))^l dBeta(½, ½)(p) = 2^(w+l) · B(w + ½, l + ½) / B(½, ½).

Under the null, E is a nonnegative martingale that starts at 1, so by Ville's inequality the
chance that it ever reaches 1/α is at most α: looking after every stage, for as long as the run
goes, costs nothing. With k pairs, each needs E ≥ k/α (Bonferroni: the chance that any pair is
wrongly told apart is at most α). A pair is told apart the first time its E crosses and stays so
(the bound is on ever crossing); the run stops once every pair is told apart and at least
`min_stages` unseen stages are done. E(w, w) < 1, so the leader at the crossing is well defined.

Why the sign and not the mean difference: a test of the mean that holds for every distribution
on [−1, 1] can multiply its evidence by at most 1 + d a stage (1.4 when a leads by 0.4 a stage),
the sign by up to 2. Simulated in the default run's shape (benchmarks/stopping_sim.py --compare),
at 400 Elo the sign test's median stopping stage is 7–8 (90–98% of runs within 16 stages),
betting on the mean's 15–26 (0–83%); under the null it stopped in 3% of runs within 64 stages.
Below 200 Elo the mean can be the quicker of the two; both are slow there with one game per
seating.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from itertools import combinations

from ..gdl.diagnostics import LudicaError
from . import metrics
from .summary import complete_stages, split_games

LEVEL = 0.95
MIN_STAGES = 3  # unseen stages before separation may stop a run (evaluate.Stopping.min_stages' default)
TIE = 1e-9  # scores closer than this are even
LOG_BETA_HALF_HALF = math.log(math.pi)  # B(½, ½) = π


def evidence(ahead: int, behind: int) -> float:
    """E after `ahead` stages won and `behind` lost by the pair's first agent (even stages left out)."""
    n = ahead + behind
    log_beta = math.lgamma(ahead + 0.5) + math.lgamma(behind + 0.5) - math.lgamma(n + 1.0)
    return math.exp(n * math.log(2.0) + log_beta - LOG_BETA_HALF_HALF)


@dataclass(frozen=True)
class Pair:
    """A tested pair after the stages so far; once told apart, the tally when it was."""

    first: str
    second: str
    evidence: float  # E now
    separated_at: int | None = None  # the number of unseen stages at which E first reached the bar
    ahead: int = 0  # at that moment (or now, while not told apart): stages first outscored second
    behind: int = 0  # stages second outscored first
    even: int = 0

    @property
    def leader(self) -> str:
        return self.first if self.ahead >= self.behind else self.second

    @property
    def trailer(self) -> str:
        return self.second if self.leader == self.first else self.first

    def said(self) -> str:
        led, trailed = (self.ahead, self.behind) if self.leader == self.first else (self.behind, self.ahead)
        return (f"{self.leader} outscores {self.trailer} on more unseen stages than not ({led} stages to {trailed}, "
                f"{self.even} even, by stage {self.separated_at})")


def tested_pairs(entrants: list[str], baselines: set[str], named=()) -> list[tuple[str, str]]:
    """The pairs the rule waits for: `named` ones, checked, or every pair of submitted agents."""
    if named:
        pairs: list[tuple[str, str]] = []
        for a, b in named:
            for name in (a, b):
                if name not in entrants:
                    raise LudicaError(f"--separate {a} {b}: no agent {name!r} in this run (the agents: "
                                      f"{', '.join(entrants)})")
            if a == b:
                raise LudicaError(f"--separate {a} {b}: an agent cannot be told apart from itself")
            if {a, b} not in [set(p) for p in pairs]:
                pairs.append((a, b))
        return pairs
    submitted = [n for n in entrants if n not in baselines]
    if len(submitted) < 2:
        raise LudicaError(f"--until-separated tells the submitted agents apart, and this run has "
                          f"{len(submitted)} ({', '.join(submitted) or 'none'}; the baselines are "
                          f"{', '.join(sorted(baselines))}): name the pairs to wait for with --separate A B")
    return list(combinations(submitted, 2))


def track(stages: list[dict[str, float]], pairs: list[tuple[str, str]], level: float = LEVEL) -> list[Pair]:
    """Each pair's state after `stages` (each unseen stage's scores, agent → points per game, in the
    order the stages finished)."""
    needed = bar(len(pairs), level)
    out = []
    for a, b in pairs:
        ahead = behind = even = 0
        told = None
        for n, scores in enumerate(stages, 1):
            d = scores.get(a, 0.0) - scores.get(b, 0.0)
            d = 0.0 if abs(d) < TIE else d  # means of floats: equal scores must read as even
            ahead, behind, even = ahead + (d > 0), behind + (d < 0), even + (d == 0)
            if told is None and evidence(ahead, behind) >= needed:
                told = Pair(a, b, 0.0, n, ahead, behind, even)
        now = evidence(ahead, behind)
        out.append(Pair(a, b, now, told.separated_at, told.ahead, told.behind, told.even) if told
                   else Pair(a, b, now, None, ahead, behind, even))
    return out


def bar(pairs: int, level: float = LEVEL) -> float:
    """The evidence each of `pairs` tested pairs needs to be told apart (Bonferroni)."""
    return pairs / (1.0 - level)


def fewest_stages(pairs: int, level: float = LEVEL, min_stages: int = MIN_STAGES) -> int:
    """The fewest unseen stages after which the rule can stop: every stage led by the same agent of
    each pair (7 for one pair at 95%), and never before `min_stages`."""
    n = 0
    while evidence(n, 0) < bar(pairs, level):
        n += 1
    return max(n, min_stages)


def cannot_stop(pairs: int, unseen: int, given: bool = False, level: float = LEVEL,
                min_stages: int = MIN_STAGES) -> str | None:
    """Why the rule can never stop a run of `unseen` unseen stages (said at its start), or None;
    `given`: the unseen stages are a folder's (--unseen DIR), not drawn (--variants)."""
    fewest = fewest_stages(pairs, level, min_stages)
    if unseen >= fewest:
        return None
    more = f"a folder of {fewest} or more stages to --unseen" if given else f"--variants {fewest} or more"
    return (f"--until-separated cannot stop this run: with {pairs} pair{'' if pairs == 1 else 's'} to tell apart at "
            f"{100 * level:g}% it needs at least {fewest} unseen stages (each led by the same agent of a pair), and "
            f"the run plays {unseen}; give {more} (and --max-stages no lower) for it to act")


def standing(state: list[Pair], stages: int, level: float = LEVEL) -> str:
    """Where the test stands after `stages` unseen stages, pair by pair: each agent's stages led,
    the evidence against the bar, and whether the pair is told apart yet."""
    needed = bar(len(state), level)
    said = []
    for p in state:
        if p.separated_at is not None:
            said.append(f"{p.first}–{p.second} told apart at stage {p.separated_at} ({p.leader} ahead)")
        else:
            said.append(f"{p.first} led on {p.ahead}, {p.second} on {p.behind}, {p.even} even: evidence "
                        f"{p.evidence:.2g} of the {needed:.3g} needed, not told apart yet")
    return f"separation after {stages} unseen stage{'' if stages == 1 else 's'}: " + "; ".join(said)


def stopping_stage(state: list[Pair], min_stages: int) -> int | None:
    """The number of unseen stages after which the rule stops, if every pair is told apart."""
    told = [p.separated_at for p in state if p.separated_at is not None]
    if not state or len(told) < len(state):
        return None
    return max(min_stages, *told)


def decide(stages: list[dict[str, float]], pairs: list[tuple[str, str]], level: float = LEVEL,
           min_stages: int = MIN_STAGES) -> str | None:
    """Why the run stops now, or None to go on."""
    state = track(stages, pairs, level)
    at = stopping_stage(state, min_stages)
    if at is None or at > len(stages):
        return None
    each = "" if len(pairs) == 1 else f"; each of the {len(pairs)} pairs at {100 * (1 - (1 - level) / len(pairs)):.1f}%"
    return (f"told apart at {100 * level:g}% confidence after {len(stages)} unseen stages (a sequential sign "
            f"test, valid however often it is looked at{each}): " + "; ".join(p.said() for p in state))


def unseen_scores(store) -> list[dict[str, float]]:
    """Each finished unseen stage's scores (agent → points per game), from the store, in the order
    the stages finished (their last game's row): with several jobs stages end out of order, and a
    sequential test must see them as they came. The adaptation games (NAME@f) are left out of the
    scores, as everywhere; the reference games count only to tell when a stage is finished."""
    settings = store.settings()
    setup = json.loads(settings.get("evaluation", "{}"))
    every = store.games()  # in the order they were written
    games, _, learning, among = split_games(every, [], setup.get("adaptation", {}), setup,
                                            json.loads(settings.get("agents", "[]")))
    complete = complete_stages(store.stages(), games + learning + among, "unseen")
    finished = {g["stage_hash"]: i for i, g in enumerate(every)}  # the last game of each stage
    scores = metrics.stage_scores(games)
    return [scores[h] for h in sorted(complete, key=finished.__getitem__)]
