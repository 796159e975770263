"""An evaluation run: agents on public and unseen stages through the runtime's analyse-then-play
episodes, every game in the run folder's store as it ends, resumable; then the summary.

Formats: `round-robin` (every ordered pair of entrants on every stage, baselines included) or
`gauntlet` (only games with at least one submitted agent: the baselines' games among themselves
are not what a participant waits for). In both, on every unseen stage the baselines also play
each other `reference_games` per seating (the round robin's own games among them are the first of
those): the anytime score's reference points, measured among the baselines alone
(evaluation/anytime.py); the games beyond the format's stay out of the ratings and the metrics,
like the adaptation games. Public stages come first, then the unseen ones in the
order they were drawn; with the doubling schedule the unseen stages' analysis budgets follow
anytime.doubling. Stopping rules (`max_stages`, `max_time`, `until_separated`: stopping.py) are
asked before each stage starts; a stopped run is resumed with --resume and may be given other
stopping rules.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from ..runtime import runfolder, tournament
from ..runtime.entrants import AgentSpec
from ..runtime.referee import stage_hash
from . import adaptation, anytime
from . import stopping as separation
from .drawseed import DrawSeed
from .stageset import UNSEEN, EvalStage
from .summary import Summary, anytime_points, summarise

BASELINES = ("random", "greedy", "corners", "positional", "mcts")
FORMATS = ("round-robin", "gauntlet")
# The anytime score's unit is a difference of two baselines' levels on each stage: games beyond
# --games make it steadier (benchmarks/anytime_sim.py measures how much: with 3, a scale as short
# as 0.07 points per game is within 1% from 10 stages on, where 2 are 5% off); each game per
# seating among the 5 baselines is 20 games per unseen stage, 8 of them with mcts
REFERENCE_GAMES = 3
SCHEDULES = ("flat", "doubling")


@dataclass
class Config:
    games: int = 1  # per seating and stage
    analysis_time: float = 2.0  # T0 with the doubling schedule
    game_time: float = 2.0
    seed: int = 0
    format: str = "round-robin"
    schedule: str = "flat"
    adaptation: tuple[float, ...] = (0.25, 0.5)  # budget fractions for A (evaluation/adaptation.py)
    reference_games: int = REFERENCE_GAMES  # per seating between baselines on unseen stages (at least `games`)
    reveal: bool = False
    limits: dict = field(default_factory=dict)
    sandbox: bool = True
    isolate_rules: bool = False

    def options(self) -> tournament.Options:
        return tournament.Options(games=self.games, analysis_time=self.analysis_time, game_time=self.game_time,
                                  seed=self.seed, reveal=self.reveal, limits=self.limits, sandbox=self.sandbox,
                                  isolate_rules=self.isolate_rules)


@dataclass
class Stopping:
    """When to stop before the planned stages are all played (none of it is part of the run's
    identity: a resumed run may be given other rules)."""

    max_stages: int | None = None  # unseen stages
    max_time: float | None = None  # seconds of this invocation
    until_separated: bool = False  # once the tested pairs are told apart (stopping.py)
    min_stages: int = 3  # unseen stages before separation may stop the run
    pairs: tuple[tuple[str, str], ...] = ()  # the pairs to tell apart; none: every pair of submitted agents
    level: float = separation.LEVEL


def pairs(names: list[str], baselines: set[str], format: str) -> tuple[tuple[str, str], ...]:
    everyone = tournament.round_robin(names)
    if format == "round-robin" or all(n in baselines for n in names):
        return everyone
    return tuple((b, w) for b, w in everyone if b not in baselines or w not in baselines)


def reference_games(names: list[str], baselines: set[str], config: Config) -> tuple[tuple[str, str, int], ...]:
    """The baselines' games among themselves on each unseen stage, as StagePlan.more: every ordered
    pair of baselines plays `reference_games` per seating (at least `games`), in any format."""
    among = max(config.reference_games, config.games)
    return tuple((b, w, among) for b, w in tournament.round_robin([n for n in names if n in baselines]))


def plans(stages: list[EvalStage], names: list[str], baselines: set[str], config: Config,
          learners: dict[str, tuple[AgentSpec, float]] | None = None) -> list[tuple[EvalStage, tournament.StagePlan]]:
    """The stages in the run's order with their games; on unseen stages also the adaptation games of
    `learners` (name@f → (spec, f)) against each baseline, in both seats, and the baselines'
    reference games among themselves."""
    ordered = [s for s in stages if s.role != UNSEEN] + [s for s in stages if s.role == UNSEEN]
    unseen = sum(s.role == UNSEEN for s in ordered)
    budgets = [config.analysis_time] * unseen
    if config.schedule == "doubling":
        rounds = 1
        while len(anytime.doubling(rounds, config.analysis_time)) < unseen:
            rounds += 1
        budgets = anytime.doubling(rounds, config.analysis_time)[:unseen]
    chosen = pairs(names, baselines, config.format)
    every_stage = [t.stage for t in ordered]
    learners = learners or {}
    extra = tuple(pair for name in learners for b in sorted(baselines) for pair in ((name, b), (b, name)))
    scale = tuple((name, f) for name, (_, f) in learners.items())
    same = tuple((name, adaptation.owner(name)) for name in learners)  # common random numbers
    reference = reference_games(names, baselines, config)
    out, k = [], 0
    for s in ordered:
        budget = config.analysis_time
        if s.role == UNSEEN:
            budget, k = budgets[k], k + 1
            plan = tournament.StagePlan(s.stage, chosen + extra, config.games, tournament.title(s.stage, every_stage),
                                        budget, scale, same, reference)
        else:
            plan = tournament.StagePlan(s.stage, chosen, config.games, tournament.title(s.stage, every_stage), budget)
        out.append((s, plan))
    return out


@dataclass
class Callbacks:
    on_plan: Callable[[int, int], None] | None = None  # (games to play, games in the run)
    on_game: Callable[[dict], None] | None = None
    on_stage: Callable[[str, int], None] | None = None
    on_wait: Callable[[str], None] | None = None
    on_estimate: Callable[[anytime.Point], None] | None = None  # after each unseen stage
    on_stop: Callable[[str], None] | None = None  # why the run stopped early


def run(stages: list[EvalStage], agents: list[AgentSpec], out: Path, config: Config, *, baselines=BASELINES,
        resume: bool = False, jobs: int = 1, stopping: Stopping = Stopping(), callbacks: Callbacks = Callbacks(),
        resamples: int = 1000, draw: DrawSeed | None = None) -> Summary:
    """Play what is missing of the evaluation in `out` (a new or empty folder, or the run to
    resume), then summarise it."""
    tournament.check_entrants(agents)
    runfolder.check_out(out, resume=resume)
    with runfolder.open_run(out) as store:
        return play(store, stages, agents, out, config, baselines=baselines, resume=resume, jobs=jobs,
                    stopping=stopping, callbacks=callbacks, resamples=resamples, draw=draw)


def play(store, stages: list[EvalStage], agents: list[AgentSpec], out: Path, config: Config, *,
         baselines=BASELINES, resume: bool = False, jobs: int = 1, stopping: Stopping = Stopping(),
         callbacks: Callbacks = Callbacks(), resamples: int = 1000, draw: DrawSeed | None = None) -> Summary:
    """Play what is missing of the evaluation in the run folder `out`, which the caller holds
    (runfolder.open_run gave it `store`), then summarise it; `draw`: the seed its unseen stages
    were drawn with, if the sampler drew them (kept for the report)."""
    names = tournament.check_entrants(agents)
    stages = tournament.unique_stages(stages, lambda s: s.stage)  # a stage given twice is one stage
    base = sorted(set(baselines) & set(names))
    tested = separation.tested_pairs(names, set(base), stopping.pairs) if stopping.until_separated else []
    learners = adaptation.entrants(agents, set(base), config.adaptation) if base else {}
    planned = plans(stages, names, set(base), config, learners)
    options = config.options()
    started = time.monotonic()
    settings = tournament.run_settings([s.stage for s in stages], agents, options)
    settings["evaluation"] = json.dumps({"baselines": base, "config": asdict(config),
                                         "roles": [s.role for s in stages],
                                         "weights": [round(s.weight, 12) for s in stages],
                                         "adaptation": {n: [adaptation.owner(n), f]
                                                        for n, (_, f) in learners.items()}},
                                        sort_keys=True)
    tournament.check_settings(store, settings, resume)
    if draw is not None:  # not a setting to compare: the stages' hashes already tell draws apart
        store.save_settings({"draw": draw.as_json()})
    for position, (s, plan) in enumerate(planned):
        store.add_stage(stage_hash(s.stage), plan.title, s.text, s.role, s.weight, position,
                        plan.analysis_time, len(plan.schedule()), s.multiplicity, s.divergence)
    if callbacks.on_plan:
        left = 0
        for _, p in planned:
            done = store.finished(stage_hash(p.stage))  # one query per stage
            left += sum(g not in done for g in p.schedule())
        callbacks.on_plan(left, sum(len(p.schedule()) for _, p in planned))
    state = {"unseen given": 0, "stop": ""}
    unseen_hashes = {stage_hash(s.stage) for s, _ in planned if s.role == UNSEEN}

    def keep_going(plan: tournament.StagePlan) -> bool:
        if stage_hash(plan.stage) in unseen_hashes:
            if stopping.max_stages is not None and state["unseen given"] >= stopping.max_stages:
                _stop(state, callbacks, f"--max-stages {stopping.max_stages} reached")
            state["unseen given"] += 1
        return not state["stop"]

    def stage_started(title: str, todo: int) -> None:
        if callbacks.on_stage:
            callbacks.on_stage(title, todo)

    def stage_done(plan: tournament.StagePlan) -> None:
        if stage_hash(plan.stage) in unseen_hashes:
            points = anytime_points(store, base)
            if points:
                point = points[-1]
                if callbacks.on_estimate:
                    callbacks.on_estimate(point)
            if tested:
                why = separation.decide(separation.unseen_scores(store), tested, stopping.level, stopping.min_stages)
                if why:
                    _stop(state, callbacks, why)
        if stopping.max_time is not None and time.monotonic() - started >= stopping.max_time:
            _stop(state, callbacks, f"--max-time {stopping.max_time:g} s reached")

    everyone = agents + [spec for spec, _ in learners.values()]
    tournament.play([p for _, p in planned], everyone, out, options, store, jobs=jobs,
                    on_game=callbacks.on_game, on_stage=stage_started, on_wait=callbacks.on_wait,
                    on_stage_done=stage_done, keep_going=keep_going)
    summary = summarise(store, resamples=resamples, seed=config.seed)
    summary.stopped = state["stop"]
    return summary


def _stop(state: dict, callbacks: Callbacks, why: str) -> None:
    if not state["stop"]:
        state["stop"] = why
        if callbacks.on_stop:
            callbacks.on_stop(why)
