"""An evaluation run: agents on public and unseen stages through the runtime's analyse-then-play
episodes, every game in the run folder's store as it ends, resumable; then the summary.

Formats (formats.py): `round-robin` (every ordered pair of entrants on every stage) or `gauntlet`
(only games with at least one submitted agent). In both, on every unseen stage the baselines also play
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
from collections.abc import Callable

from ..budgets import BUDGETS
from ..runtime import tournament
from ..runtime.entrants import AgentSpec
from ..runtime.plans import LATER_OPTIONS, Options, StagePlan, round_robin, title, unique_stages
from ..runtime.stored import RULES_READABLE
from ..runtime.referee import stage_hash
from ..runtime.run import Hooks, Run
from . import adaptation, anytime, stageset
from . import stopping as separation
from .drawseed import DrawSeed
from .formats import FORMATS, pairs
from .stageset import UNSEEN, EvalStage
from .summary import Summary, anytime_points, summarise

BASELINES = ("random", "greedy", "corners", "positional", "mcts")
# The anytime score's unit is a difference of two baselines' levels on each stage: games beyond
# --games make it steadier (benchmarks/anytime_sim.py measures how much: with 3, a scale as short
# as 0.07 points per game is within 1% from 10 stages on, where 2 are 5% off); each game per
# seating among the 5 baselines is 20 games per unseen stage, 8 of them with mcts
REFERENCE_GAMES = 3
SCHEDULES = ("flat", "doubling")


def _evaluation_options() -> Options:
    budgets = BUDGETS["evaluate"]  # the command's: analysis_time is T0 with the doubling schedule
    return Options(analysis_time=budgets.analysis_time, game_time=budgets.game_time)


@dataclass
class Config:
    """An evaluation's settings: the run's Options (games per seating and stage, budgets, seed,
    sandbox...) and what only an evaluation has."""

    options: Options = field(default_factory=_evaluation_options)
    format: str = "round-robin"
    schedule: str = "flat"
    adaptation: tuple[float, ...] = (0.25, 0.5)  # budget fractions for A (evaluation/adaptation.py)
    reference_games: int = REFERENCE_GAMES  # per seating between baselines on unseen stages (at least `games`)

    def __post_init__(self):
        for what, value, known in (("format", self.format, FORMATS), ("schedule", self.schedule, SCHEDULES)):
            if value not in known:
                raise ValueError(f"Config: {what} {value!r} is not one of {', '.join(known)}")

    def setting(self) -> dict:
        """As the store keeps it: one flat object, as runs stored it before a Config held its
        Options (so they resume; summary.py reads it)."""
        options = asdict(self.options)
        # options added since: said only when set, so runs made before them resume (isolate_rules
        # excepted: evaluations have always stored it)
        for key in LATER_OPTIONS.keys() - {"isolate_rules"}:
            if options[key] == LATER_OPTIONS[key]:
                del options[key]
        return {**options, "format": self.format, "schedule": self.schedule,
                "adaptation": list(self.adaptation), "reference_games": self.reference_games}


@dataclass(frozen=True)
class Stopping:
    """When to stop before the planned stages are all played (none of it is part of the run's
    identity: a resumed run may be given other rules)."""

    max_stages: int | None = None  # unseen stages
    max_time: float | None = None  # seconds of this invocation
    until_separated: bool = False  # once the tested pairs are told apart (stopping.py)
    min_stages: int = separation.MIN_STAGES  # unseen stages before separation may stop the run
    pairs: tuple[tuple[str, str], ...] = ()  # the pairs to tell apart; none: every pair of submitted agents
    level: float = separation.LEVEL


def reference_games(names: list[str], baselines: set[str], config: Config) -> tuple[tuple[str, str, int], ...]:
    """The baselines' games among themselves on each unseen stage, as StagePlan.more: every ordered
    pair of baselines plays `reference_games` per seating (at least `games`), in any format."""
    among = max(config.reference_games, config.options.games)
    return tuple((b, w, among) for b, w in round_robin([n for n in names if n in baselines]))


def plans(stages: list[EvalStage], names: list[str], baselines: set[str], config: Config,
          learners: dict[str, tuple[AgentSpec, float]] | None = None) -> list[tuple[EvalStage, StagePlan]]:
    """The stages in the run's order with their games; on unseen stages also the adaptation games of
    `learners` (name@f → (spec, f)) against each baseline, in both seats, and the baselines'
    reference games among themselves."""
    ordered = [s for s in stages if s.role != UNSEEN] + [s for s in stages if s.role == UNSEEN]
    unseen = sum(s.role == UNSEEN for s in ordered)
    games, analysis_time = config.options.games, config.options.analysis_time
    budgets = [analysis_time] * unseen
    if config.schedule == "doubling":
        rounds = 1
        while len(anytime.doubling(rounds, analysis_time)) < unseen:
            rounds += 1
        budgets = anytime.doubling(rounds, analysis_time)[:unseen]
    chosen = pairs(names, baselines, config.format)
    every_stage = [t.stage for t in ordered]
    learners = learners or {}
    extra = tuple(pair for name in learners for b in sorted(baselines) for pair in ((name, b), (b, name)))
    scale = tuple((name, f) for name, (_, f) in learners.items())
    same = tuple((name, adaptation.owner(name)) for name in learners)  # common random numbers
    reference = reference_games(names, baselines, config)
    out, k = [], 0
    for s in ordered:
        budget = analysis_time
        if s.role == UNSEEN:
            budget, k = budgets[k], k + 1
            plan = StagePlan(s.stage, chosen + extra, games, title(s.stage, every_stage), budget, scale, same,
                             reference)
        else:
            plan = StagePlan(s.stage, chosen, games, title(s.stage, every_stage), budget)
        out.append((s, plan))
    return out


@dataclass(frozen=True)
class Callbacks:
    on_plan: Callable[[int, int], None] | None = None  # (games to play, games in the run), --max-stages's alone
    on_game: Callable[[dict], None] | None = None
    on_stage: Callable[[str, int], None] | None = None
    on_wait: Callable[[str], None] | None = None
    on_estimate: Callable[[anytime.Point], None] | None = None  # after each unseen stage
    on_stop: Callable[[str], None] | None = None  # why the run stopped early
    on_standing: Callable[[str], None] | None = None  # --until-separated's test after each unseen stage


def run(stages: list[EvalStage], agents: list[AgentSpec], out: Path, config: Config, *, baselines=BASELINES,
        resume: bool = False, jobs: int = 1, stopping: Stopping = Stopping(), callbacks: Callbacks = Callbacks(),
        resamples: int = 1000, draw: DrawSeed | None = None) -> Summary:
    """Play what is missing of the evaluation in `out` (a new or empty folder, or the run to
    resume), then summarise it."""
    tournament.check_entrants(agents)
    with Run.open(out, resume=resume) as held:
        return play(held, stages, agents, config, baselines=baselines, jobs=jobs, stopping=stopping,
                    callbacks=callbacks, resamples=resamples, draw=draw)


def play(run: Run, stages: list[EvalStage], agents: list[AgentSpec], config: Config, *, baselines=BASELINES,
         jobs: int = 1, stopping: Stopping = Stopping(), callbacks: Callbacks = Callbacks(), resamples: int = 1000,
         draw: DrawSeed | None = None) -> Summary:
    """Play what is missing of the evaluation in the run folder the caller holds (`Run.open`), then
    summarise it; `draw`: the seed its unseen stages were drawn with, if the sampler drew them
    (kept for the report)."""
    names = tournament.check_entrants(agents)
    stages = unique_stages(stages, lambda s: s.stage)  # a stage given twice is one stage
    base = sorted(set(baselines) & set(names))
    tested = separation.tested_pairs(names, set(base), stopping.pairs) if stopping.until_separated else []
    learners = adaptation.entrants(agents, set(base), config.adaptation) if base else {}
    planned = plans(stages, names, set(base), config, learners)
    evaluation = {"baselines": base, "config": config.setting(), "roles": [s.role for s in stages],
                  "weights": [round(s.weight, 12) for s in stages],
                  "adaptation": {n: [adaptation.owner(n), f] for n, (_, f) in learners.items()}}
    run.start([s.stage for s in stages], agents, config.options, secrets=stageset.secrets(run.folder, stages),
              evaluation=json.dumps(evaluation, sort_keys=True))
    if draw is not None:  # not a setting to compare: the stages' hashes already tell draws apart
        run.store.save_settings({"draw": draw.as_json()})
    readable = rules_in_memory(agents, config.options, stages)
    if readable:  # for the report to say; not compared on --resume (the options already are)
        run.store.save_settings({RULES_READABLE: json.dumps(readable)})
    for position, (s, plan) in enumerate(planned):
        run.store.add_stage(stage_hash(s.stage), plan.title, s.text, s.role, s.weight, position,
                            plan.analysis_time, len(plan.schedule()), s.multiplicity,
                            s.divergence)
    if callbacks.on_plan:
        callbacks.on_plan(*run.left([p for _, p in within(planned, stopping.max_stages)]))
    watch = _Watch(run, stopping, callbacks, base, tested, {stage_hash(s.stage) for s, _ in planned if s.role == UNSEEN})
    everyone = agents + [spec for spec, _ in learners.values()]
    run.play([p for _, p in planned], everyone, jobs=jobs,
             hooks=Hooks(on_stage=callbacks.on_stage, on_game=callbacks.on_game, on_wait=callbacks.on_wait,
                         on_stage_done=watch.stage_done, keep_going=watch.keep_going))
    summary = summarise(run.store, resamples=resamples, seed=run.options.seed)
    summary.stopped = watch.stopped
    if tested and not watch.separated:  # the run ends with its pairs not all told apart: where they stand
        summary.standing = watch.standing(separation.unseen_scores(run.store))
    return summary


def within(planned: list[tuple[EvalStage, StagePlan]], max_stages: int | None) -> list[tuple[EvalStage, StagePlan]]:
    """The stages a run plays before --max-stages stops it: the public ones and the first
    `max_stages` unseen ones (in the plans' order, as _Watch counts them, those already played
    included)."""
    if max_stages is None:
        return planned
    unseen = [k for k, (s, _) in enumerate(planned) if s.role == UNSEEN]
    beyond = set(unseen[max_stages:])
    return [x for k, x in enumerate(planned) if k not in beyond]


def rules_in_memory(agents: list[AgentSpec], options: Options, stages: list[EvalStage]) -> list[str]:
    """The agents that play unseen stages with the compiled rules in their own memory, where a
    Python agent can read the stage's exact text (through gc): every Python agent that is not built
    in, unless --isolate-rules puts the rules in an oracle it cannot read. (A program's worker, which
    holds them, is not readable by the program; a model's harness runs in the referee.)

    Not the default, measured (benchmarks/referee_cost.py, benchmarks/isolation.py): the referee's
    cost per move is the same either way and an agent's start 1.2x, but every API call is a round
    trip (its cost: ludica/arguments.py's ISOLATION_COST, as --help and the README say it). For the submitted agents alone it would give the built-in
    baselines an API an order of magnitude faster than the agents rated against them; for everyone,
    it would weaken the baselines' tree search (mcts) per node and so change the scale of every
    result. So the evaluation says it instead, before it plays and in its report."""
    if options.isolate_rules or not options.sandbox or not any(s.role == UNSEEN for s in stages):
        return []
    return sorted(a.name for a in agents if a.kind == "python" and not a.builtin)


class _Watch:
    """The stopping rules, asked by the run before each stage and told after each: the unseen
    stages given so far, and why the run stops (empty: it goes on)."""

    def __init__(self, run: Run, stopping: Stopping, callbacks: Callbacks, baselines: list[str],
                 tested: list[tuple[str, str]], unseen: set[str]):
        self.run, self.stopping, self.callbacks = run, stopping, callbacks
        self.baselines, self.tested, self.unseen = baselines, tested, unseen
        self.started = time.monotonic()
        self.unseen_given = 0
        self.stopped = ""
        self.separated = False  # --until-separated stopped the run

    def standing(self, scores: list[dict[str, float]]) -> str:
        """--until-separated's test after the unseen stages of `scores`, pair by pair."""
        return separation.standing(separation.track(scores, self.tested, self.stopping.level), len(scores),
                                   self.stopping.level)

    def keep_going(self, plan: StagePlan) -> bool:
        if stage_hash(plan.stage) in self.unseen:
            if self.stopping.max_stages is not None and self.unseen_given >= self.stopping.max_stages:
                self._stop(f"--max-stages {self.stopping.max_stages} reached")
            self.unseen_given += 1
        return not self.stopped

    def stage_done(self, plan: StagePlan) -> None:
        if stage_hash(plan.stage) in self.unseen:
            points = anytime_points(self.run.store, self.baselines)
            if points and self.callbacks.on_estimate:
                self.callbacks.on_estimate(points[-1])
            if self.tested:
                scores = separation.unseen_scores(self.run.store)
                if self.callbacks.on_standing:
                    self.callbacks.on_standing(self.standing(scores))
                why = separation.decide(scores, self.tested, self.stopping.level, self.stopping.min_stages)
                if why:
                    self.separated = True
                    self._stop(why)
        if self.stopping.max_time is not None and time.monotonic() - self.started >= self.stopping.max_time:
            self._stop(f"--max-time {self.stopping.max_time:g} s reached")

    def _stop(self, why: str) -> None:
        if not self.stopped:
            self.stopped = why
            if self.callbacks.on_stop:
                self.callbacks.on_stop(why)
