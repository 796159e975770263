"""A run: one folder (`--out`) that holds a run's results store, its settings and its logs, and the
object that opens it, checks or resumes it, reads its settings back and plays its games.

    with Run.open(Path("out"), resume=False) as run:   # refused before any work if the folder cannot hold it
        run.start(stages, agents, options)              # a new run, or the very same run resumed
        run.play(plans, agents, jobs=2, hooks=Hooks(on_game=print))
    Run.read(Path("out")).options                       # a run's settings, read back (the store only read)

Every game is in the store the moment it ends; a resumed run plays only the games the store does
not hold (agents analyse again the stages they still have games on). With `jobs` > 1 several
stages are played side by side, one per job (a thread of this process), at most one per core;
within a stage one game at a time, so an agent's two seats never think at the same time. Clocks
are CPU time and the backstop counts only time in which an agent neither ran nor waited for a
CPU: an agent's budget depends neither on the number of jobs nor on what else the machine is
doing. Agents are not pinned to cores: a core that other work shares would leave them less of it.
"""
from __future__ import annotations

import functools
import json
import os
import queue
import threading
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO
from collections.abc import Callable, Sequence

from ..compiler import playable
from ..gdl import ast as A
from ..gdl.diagnostics import LudicaError
from ..gdl.printer import format as format_stage
from . import guarded, jail, logs, seatseeds
from .api import rules_api, warm
from .entrants import AgentSpec
from .plans import LATER_OPTIONS, Options, StagePlan, title
from .records import ResultsStore, lock_folder
from .referee import Moment, play_game, stage_hash
from .runfolder import STORE, RunMismatch, check_out, made
from .stage_entrant import Entrant, Stopped
from .warmup import warm_stages


@dataclass(frozen=True)
class Hooks:
    """What `Run.play` tells its caller as it goes, and asks it; every hook is optional. With
    several jobs they are called from the jobs' threads; an exception in one stops the run."""

    on_stage: Callable[[str, int], None] | None = None  # a stage begins: its title, the games left on it
    # a game ended and is stored: {stage, title, stage_hash, black, white, result, reason, number,
    # record (the referee's GameRecord), analyses ({"black": ..., "white": ...}: each seat's analysis)}
    on_game: Callable[[dict], None] | None = None
    on_wait: Callable[[str], None] | None = None  # a wait that lasts (compiling kernels): what it is
    on_stage_done: Callable[[StagePlan], None] | None = None  # a stage's games are all played
    # a game goes on, live: its stage's title, its number on the stage, and the referee's Moment
    # (called at its start and after every ply; runtime/referee.py)
    on_ply: Callable[[str, int, Moment], None] | None = None
    keep_going: Callable[[StagePlan], bool] | None = None  # asked before each stage starts, in the plans' order


class Run:
    """A run folder, held by this process (or only read: `Run.read`)."""

    def __init__(self, folder: Path, store: ResultsStore, resume: bool, lock: IO[str] | None = None):
        self.folder, self.store, self.resume, self._lock = folder, store, resume, lock
        self.secrets: tuple[guarded.Secret, ...] = guarded.of_run(folder)  # what no agent may see
        self.learnt: dict = {}  # what its model endpoints turned out to take (runtime/models/endpoint.Learnt)

    @classmethod
    def open(cls, folder: Path, *, resume: bool = False) -> Run:
        """The run folder, checked (a new run needs a new or empty folder, `resume` one that holds a
        run: else RunFolderError, and nothing is touched), made if need be and held for this run (a
        second run is refused)."""
        folder = Path(folder)
        check_out(folder, resume=resume)
        lock = lock_folder(made(folder))
        try:
            return cls(folder, ResultsStore(folder / STORE), resume, lock)
        except BaseException:
            lock.close()
            raise

    @classmethod
    def read(cls, folder: Path) -> Run:
        """A run's folder for reading alone, not held: nothing is written into its store (a run may
        be writing it meanwhile: SQLite allows it)."""
        folder = Path(folder)
        return cls(folder, ResultsStore(folder / STORE, read_only=True), resume=True)

    def close(self) -> None:
        """Close the store, then let the folder go."""
        try:
            self.store.close()
        finally:
            if self._lock is not None:
                self._lock.close()

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- what makes a run the same run ---------------------------------------------------------

    def start(self, stages: list[A.Stage], agents: list[AgentSpec], options: Options, *,
              secrets: Sequence[guarded.Secret] = (), **more: str) -> None:
        """Begin the run, or go on with it: a new run on an empty store, or with `resume` the very
        same run (the same stages, agents, agent files and options, and `more`: further settings
        that are part of its identity; else RunMismatch, naming what differs, option by option).
        The settings are stored, so everything after reads them from the store. `secrets`: what no
        agent may see beside the run folder (the files of its stages, the unseen stages' folder:
        guarded.of_run), checked now and before play."""
        self.secrets = tuple(dict.fromkeys((*self.secrets, *secrets)))
        guarded.check_agents(agents, self.secrets)
        wanted = run_settings(stages, agents, options) | more
        held = self.store.settings()
        if held and not self.resume:
            raise RunMismatch(f"{self.folder} already holds a run: add --resume to continue it, "
                              "or choose another --out")
        if held:
            differ = [_difference(k, held.get(k), wanted[k]) for k in wanted if held.get(k) != wanted[k]]
            if differ:
                raise RunMismatch(f"--resume: the run in {self.folder} was started otherwise: {'; '.join(differ)}. "
                                  "Resume it with the same stages, agents (files unchanged) and options, "
                                  "or choose another --out")
        self.store.save_settings(wanted)

    def _keep_stages(self, plans: list[StagePlan]) -> None:
        """Store each plan's stage the store does not hold yet (its canonical text, as public, with
        the games planned there), so the run's report and replays need no other file: a stage given
        as a file may be gone by then. An evaluation stores its own first, with their roles and
        weights, and they stay as they are."""
        held = {s["stage_hash"] for s in self.store.stages()}
        for plan in plans:
            h = stage_hash(plan.stage)
            if h not in held:
                self.store.add_stage(h, plan.title, format_stage(plan.stage), "public", 1.0, len(held),
                                     plan.analysis_time, len(plan.schedule()))
                held.add(h)

    @property
    def settings(self) -> dict[str, str]:
        """Every setting the store holds (each a JSON text), as stored."""
        return self.store.settings()

    @property
    def options(self) -> Options:
        """The run's options, read back from its store."""
        held = self.settings.get("options")
        if held is None:
            raise RunMismatch(f"{self.folder / STORE} holds no run's settings (no run was started in it)")
        return Options(**{**LATER_OPTIONS, **json.loads(held)})

    # --- playing -------------------------------------------------------------------------------

    def left(self, plans: list[StagePlan]) -> tuple[int, int]:
        """(games still to play, games in the plans)."""
        left = 0
        for plan in plans:
            done = self.store.finished(stage_hash(plan.stage))  # one query per stage
            left += sum(g not in done for g in plan.schedule())
        return left, sum(len(plan.schedule()) for plan in plans)

    def play(self, plans: list[StagePlan], agents: list[AgentSpec], *, jobs: int = 1, hooks: Hooks = Hooks()) -> None:
        """Play the plans' missing games with the run's stored options, `jobs` stages at a time, in
        the plans' order; the stages the store does not hold yet are stored first (_keep_stages), and
        the run's game secret is kept before its first game (runtime/seatseeds.py).
        Ctrl-C (or an exception in a hook) stops every job: the games in hand are not recorded,
        every agent process is killed, and the exception goes on."""
        options = self.options
        guarded.check_agents(agents, self.secrets)  # the agents an evaluation adds (its learners) too
        if options.sandbox:
            jail.require()  # before anything is compiled or started
            guarded.check_jail(self.secrets)
        else:
            unjailed = [a.name for a in agents if a.program]
            if unjailed:  # an in-process seat runs Python files; a program has no place there, nor a clock
                raise LudicaError(f"{', '.join(unjailed)}: an agent program runs only in the sandbox; leave out "
                                  "--in-process (or these agents)")
        check_endpoints(agents, options.endpoints, self.learnt)
        self._keep_stages(plans)
        secret = seatseeds.kept_or_made(self.folder)
        with notice_if_slow(hooks.on_wait, f"{COMPILING}, every kind of stage side by side"):
            warm_stages([p.stage for p in plans])  # then each stage's own warm-up below loads from the cache
        if not options.sandbox or any(a.human for a in agents):
            jobs = 1  # in-process agents share this process's CPU clock; a person plays one game at a time
        # at most one job per core: more would make every game wait longer for a CPU (fair, since
        # waiting is never charged, but slower)
        jobs = max(1, min(jobs, len(plans), len(cores())))
        _Jobs(self, plans, {a.name: a for a in agents}, options, secret, hooks).play(jobs)


def check_endpoints(agents: list[AgentSpec], endpoints: dict, learnt: dict | None = None) -> None:
    """Every language model names an endpoint the run allows (`endpoints`: the evaluator's
    --endpoint table), and it answers before anything is played: one that is down fails the run
    now, with the URL and what to check, not as a lost game per move. (An evaluation asks before it
    draws its unseen stages too, which takes minutes.) What the endpoints take goes into `learnt`,
    the run's (Run.learnt)."""
    models = [a for a in agents if a.kind == "model" and a.path is not None]
    if models:
        from .models import check, load_config  # the `openai` client: only runs with a model load it

        for agent in models:
            assert agent.path is not None
            check(load_config(agent.path, endpoints), learnt=learnt)


class _Jobs:
    """One `Run.play`: the plans still to start, the entrants alive (a stop kills them), and the
    first error of a job (handed to the caller); `secret` is the run's game secret, which each
    seat's seed derives from."""

    def __init__(self, run: Run, plans: list[StagePlan], agents: dict[str, AgentSpec], options: Options,
                 secret: bytes, hooks: Hooks):
        self.run, self.agents, self.options, self.secret, self.hooks = run, agents, options, secret, hooks
        self.todo: queue.Queue = queue.Queue()
        for plan in plans:
            self.todo.put(plan)
        self.taking = threading.Lock()  # the next plan and the question whether to start it, as one step
        self.stopping = threading.Event()
        self.live: set[Entrant] = set()
        self.errors: list[BaseException] = []

    def play(self, jobs: int) -> None:
        if jobs == 1:
            self._job()
        else:
            threads = [threading.Thread(target=self._job, name=f"ludica-job-{n}", daemon=True) for n in range(jobs)]
            for t in threads:
                t.start()
            try:
                for t in threads:
                    while t.is_alive():
                        t.join(0.2)
            except KeyboardInterrupt as err:
                self._stop(err)
                for t in threads:
                    t.join()
        if self.errors:
            raise self.errors[0]

    def _stop(self, err: BaseException) -> None:
        self.errors.append(err)
        self.stopping.set()
        for entrant in list(self.live):
            entrant.close()

    def _job(self) -> None:
        try:
            while not self.stopping.is_set():
                with self.taking:  # so the stages start in the plans' order, and keep_going sees them so
                    try:
                        plan = self.todo.get_nowait()
                    except queue.Empty:
                        return
                    if self.hooks.keep_going is not None and not self.hooks.keep_going(plan):
                        return
                self._stage(plan)
                if self.hooks.on_stage_done and not self.stopping.is_set():
                    self.hooks.on_stage_done(plan)
        except Stopped:
            pass
        except BaseException as err:
            self._stop(err)

    def _budget(self, name: str) -> float:
        """An entrant's time per game: a person's and a language model's are wall time, and theirs
        (Options.human_time, Options.model_time)."""
        kind = self.agents[name].kind
        return {"human": self.options.human_time, "model": self.options.model_time}.get(kind, self.options.game_time)

    def _stage(self, plan: StagePlan) -> None:
        """Play the missing games of one stage."""
        stage, store, options, hooks = plan.stage, self.run.store, self.options, self.hooks
        h = stage_hash(stage)
        done = store.finished(h)
        todo = [(n, g) for n, g in enumerate(plan.schedule(), 1) if g not in done]
        if hooks.on_stage:
            hooks.on_stage(plan.title, len(todo))
        if not todo:
            return
        with notice_if_slow(hooks.on_wait, f"{stage.name}: {COMPILING}"):
            game = playable(stage)
            warm(rules_api(game), game.information(game.initial_state(), 0))  # fill numba's cache once, before the workers read it
        text = format_stage(stage)
        entrants = {name: Entrant(self.agents[name], game, text, options, store, stage,
                                  plan.budget(name), self.stopping, self.run.learnt) for name in plan.entrants}
        self.live.update(entrants.values())
        folder = self.run.folder / "logs" / logs.slug(title(stage, [stage]) + "-" + h[:8])
        try:
            for name in {name for _, (b, w, _) in todo for name in (b, w)}:
                entrants[name].launch()
            for number, (black, white, k) in todo:
                if self.stopping.is_set():
                    raise Stopped
                seats = (entrants[black].ready(), entrants[white].ready())
                budgets = (self._budget(black), self._budget(white))
                watch = None if hooks.on_ply is None else functools.partial(hooks.on_ply, plan.title, number)
                seed = plan.seed(options.seed, black, white, k)
                record = play_game(game, seats, seed, budgets, names=(black, white),
                                   no_strategy=(entrants[black].why_not, entrants[white].why_not), on_ply=watch,
                                   seat_seeds=seatseeds.seat_seeds(self.secret, seed))
                if self.stopping.is_set():  # the game may have been cut short by the stop: not a result
                    raise Stopped
                analyses = {"black": entrants[black].analysis, "white": entrants[white].analysis}
                logs.write_game(folder, number, record, analyses)
                store.add_game(record, k)
                if hooks.on_game:
                    hooks.on_game({"stage": stage.name, "title": plan.title, "stage_hash": h, "black": black,
                                   "white": white, "result": record.result, "reason": record.reason,
                                   "number": number, "record": record, "analyses": analyses})
        finally:
            for e in entrants.values():
                e.close()
                self.live.discard(e)


def run_settings(stages: list[A.Stage], agents: list[AgentSpec], options: Options) -> dict[str, str]:
    """What makes a run the same run: a resumed run must match it."""
    return {"stages": json.dumps([stage_hash(s) for s in stages]), "agents": json.dumps([a.name for a in agents]),
            "agent files": json.dumps([a.fingerprint for a in agents]),
            "options": json.dumps(_options_set(options), sort_keys=True)}


def _options_set(options: Options) -> dict:
    return {k: v for k, v in asdict(options).items() if k not in LATER_OPTIONS or v != LATER_OPTIONS[k]}


def _difference(key: str, held: str | None, wanted: str) -> str:
    """What differs under one key of the settings, said as the options a user gave."""
    try:
        before, now = json.loads(held or "null"), json.loads(wanted)
    except ValueError:
        return f"other {key}"
    if isinstance(before, dict) and isinstance(now, dict):
        changed = [f"{k} {before.get(k, LATER_OPTIONS.get(k))!r} → {now.get(k, LATER_OPTIONS.get(k))!r}"
                   for k in sorted(set(before) | set(now)) if before.get(k) != now.get(k)]
        return f"{key}: " + ", ".join(changed)
    if key == "agent files":
        return "an agent file changed since"
    if key == "stages":
        return "other stages (or a stage's text changed)"
    return f"{key} {before!r} → {now!r}"


def cores() -> list[int]:
    """The cores this process may run on, in order."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux: the sandbox refuses to start anyway
        return list(range(os.cpu_count() or 1))


COMPILING = "compiling the engine's kernels (first run only: later runs load them from numba's cache)"
NOTICE_AFTER_S = 2.0


@contextmanager
def notice_if_slow(say: Callable[[str], None] | None, message: str, after: float = NOTICE_AFTER_S):
    """Call `say(message)` if the block is still running after `after` seconds: a first run spends
    up to a minute compiling kernels, and a wait that long should say what it is."""
    if say is None:
        yield
        return
    timer = threading.Timer(after, say, (message,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
