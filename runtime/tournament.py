"""Round robins: every entrant against every other on each stage, in both seats, N games per
seating; each agent analyses each stage once (in its sandboxed worker), then plays all its games
there from that strategy. With `jobs` > 1 several stages are played side by side, one per job
(a thread of this process), at most one per core; within a stage one game at a time, so an
agent's two seats never think at the same time. Clocks are CPU time and the backstop counts only
time in which an agent neither ran nor waited for a CPU: an agent's budget depends neither on the
number of jobs nor on what else the machine is doing. Agents are not pinned to cores: a core that
other work shares would leave them less of it.

Every game is in the results store the moment it ends; `resume=True` plays only the games the
store does not hold (agents analyse again the stages they still have games on). Game g of the
pairing (black, white) on a stage gets a seed derived from the run's seed, the stage's hash, both
names and g, so a resumed run plays the very games an uninterrupted one would (with
deterministic agents).
"""
from __future__ import annotations

import hashlib
import json
import os
import queue
import threading
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..compiler import compile as compile_stage
from ..files import write_atomic
from ..gdl import ast as A
from ..gdl import load
from ..gdl.diagnostics import LudicaError
from ..gdl.printer import format as format_stage
from . import jail, leaderboard, logs
from .entrants import AgentSpec
from .api import RulesApi, warm
from .local import LocalSeat
from .records import ResultsStore
from .runfolder import RunMismatch, check_out, open_run
from .referee import play_game, stage_hash
from .sandbox import AgentProcess, Settings
from .warmup import warm_stages


@dataclass
class Options:
    games: int = 1  # per seating: each ordered pair plays this many games
    analysis_time: float = 60.0
    game_time: float = 10.0
    seed: int = 0
    reveal: bool = False  # GGP mode: agents get the stage's text
    limits: dict = field(default_factory=dict)  # runtime/limits.py DEFAULTS, overridden
    sandbox: bool = True  # False: trusted agents in this process (tests, quick experiments)
    isolate_rules: bool = False  # each agent's rules in an oracle process of its own (runtime/oracle.py)

    def __post_init__(self) -> None:
        if self.isolate_rules and not self.sandbox:
            raise LudicaError("--isolate-rules keeps the rules out of sandboxed agents' processes, and agents run "
                              "--in-process share this one: drop one of the two options")


def game_seed(run_seed: int, stage_hash_: str, black: str, white: str, index: int) -> int:
    digest = hashlib.sha256(f"{run_seed}|{stage_hash_}|{black}|{white}|{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def round_robin(names: list[str]) -> tuple[tuple[str, str], ...]:
    """Every ordered pair (black, white) of distinct entrants, in a fixed order."""
    return tuple((b, w) for b in names for w in names if b != w)


@dataclass(frozen=True)
class StagePlan:
    """The games of one stage: ordered pairs (black, white), `games` games each, played in that
    order; `analysis_time` overrides the run's budget on this stage, and `scale` gives some
    entrants a fraction (or a multiple) of it: ((name, factor), ...). An entrant in `same_seeds`
    ((name, other), ...) plays its games with the seeds `other` has in the same seat against the
    same opponent: an agent entered again with another budget meets the very same chances. With
    `more` ((black, white, n), ...), those pairs play n games in all, indices 0..n-1 (the first
    `games` of them the games of `pairs` if the pair is there too), after the others: the
    evaluation's reference games among the baselines."""

    stage: A.Stage
    pairs: tuple[tuple[str, str], ...]
    games: int
    title: str
    analysis_time: float | None = None
    scale: tuple[tuple[str, float], ...] = ()
    same_seeds: tuple[tuple[str, str], ...] = ()
    more: tuple[tuple[str, str, int], ...] = ()

    def seed(self, run_seed: int, black: str, white: str, index: int) -> int:
        alias = dict(self.same_seeds)
        return game_seed(run_seed, stage_hash(self.stage), alias.get(black, black), alias.get(white, white), index)

    def schedule(self) -> list[tuple[str, str, int]]:
        first = [(b, w, k) for b, w in self.pairs for k in range(self.games)]
        paired = set(self.pairs)
        return first + [(b, w, k) for b, w, n in self.more for k in range(self.games if (b, w) in paired else 0, n)]

    @property
    def entrants(self) -> list[str]:
        return list(dict.fromkeys([name for pair in self.pairs for name in pair] +
                                  [name for b, w, _ in self.more for name in (b, w)]))

    def budget(self, name: str, default: float) -> float:
        """The analysis budget of entrant `name` on this stage."""
        base = default if self.analysis_time is None else self.analysis_time
        return base * dict(self.scale).get(name, 1.0)


class Entrant:
    """One agent on one stage: its seat (sandboxed or local), analysed, restarted if its worker dies."""

    def __init__(self, spec: AgentSpec, game, text: str, options: Options, store, stage,
                 analysis_time: float | None = None, stopping: threading.Event | None = None):
        self.spec, self.game, self.text, self.options = spec, game, text, options
        self.store, self.stage, self.stopping = store, stage, stopping
        self.analysis_time = options.analysis_time if analysis_time is None else analysis_time
        self.seat = None
        self.why_not = ""
        self.analysis: dict = {}

    def launch(self) -> None:
        """Start the sandboxed worker now, without waiting (the analysis comes with the first game)."""
        if self.options.sandbox and self.seat is None and not self.why_not:
            self.seat = self._process()
            self.seat.launch()

    def ready(self):
        """The seat, analysed (started again if its worker died); None if it has no strategy."""
        if self.analysis and self.seat is None:
            return None  # its analysis failed: no strategy on this stage
        if self.analysis and self.options.sandbox and not self.seat.alive:  # the worker died after its analysis
            self.seat.close()
            self.seat = None
            if self.analysis["attempts"] >= 2:  # a second death on this stage: no third analysis
                self.why_not = "its worker died twice after its analysis"
                return None
        if not self.analysis or self.seat is None:
            self._start()
        return self.seat

    def _process(self) -> AgentProcess:
        o = self.options
        seat = AgentProcess(str(self.spec.path), self.text,
                            Settings(limits=o.limits, reveal=o.reveal, isolate_rules=o.isolate_rules,
                                     data=str(self.spec.data) if self.spec.data else None))
        seat.name = self.spec.name
        return seat

    def _start(self) -> None:
        o = self.options
        attempts = self.analysis.get("attempts", 0) + 1
        lockdown: dict = {}
        output = ("", 0)
        if o.sandbox:
            # every worker is in self.seat as soon as it exists: a stop (Ctrl-C) kills what it finds there
            seat = self.seat = self.seat if self.seat is not None else self._process()
            answer = seat.wait_ready() if seat.proc is not None else seat.start()
            if answer.failure and seat.proc is not None and not seat.lockdown:
                # The worker did not get ready (the agent's code was not loaded yet, so this is not
                # the agent's doing: a busy machine, a cold cache): once more, alone.
                seat.close()
                seat = self.seat = self._process()
                answer = seat.start()
            lockdown = seat.lockdown
            if not answer.failure:
                answer = seat.analyze(self.analysis_time)
            output = seat.drain.mark()
        else:
            seat = LocalSeat(self.spec.name, str(self.spec.path), self.game, self.text if o.reveal else None)
            answer = seat.analyze(self.analysis_time)
        if self.stopping is not None and self.stopping.is_set():
            raise Stopped  # the analysis may have been cut short by the stop: not a result
        self.store.add_analysis(self.stage.name, stage_hash(self.stage), self.spec.name, answer, lockdown, output)
        self.analysis = {"attempts": attempts, "ok": answer.failure is None, "seconds": round(answer.seconds, 3),
                         "wall": round(answer.wall, 3), "failure": answer.failure, "detail": answer.detail[-2000:],
                         "lockdown": lockdown, "output": output[0][:4000], "outputBytes": output[1]}
        if answer.failure:
            if o.sandbox:
                seat.close()
            kind = {"timeout": "analysis over its budget"}.get(answer.failure, f"analysis failed ({answer.failure})")
            detail = answer.detail.strip().splitlines()[-1] if answer.detail.strip() else ""
            self.seat, self.why_not = None, kind + (f": {detail}" if detail else "")
        else:
            self.seat, self.why_not = seat, ""

    def close(self) -> None:
        if self.seat is not None and self.options.sandbox:
            self.seat.close()


def run(stage_paths: list[Path], agents: list[AgentSpec], out: Path, options: Options, resume: bool = False,
        on_game: Callable[[dict], None] | None = None, on_stage: Callable[[str, int], None] | None = None,
        on_wait: Callable[[str], None] | None = None, jobs: int = 1
        ) -> dict[str, list[leaderboard.Standing]]:
    """Play the round robins; returns the leaderboard of each stage (by stage name)."""
    names = check_entrants(agents)
    stages = unique_stages(load(p) for p in stage_paths)  # every stage checked before anything is played
    plans = [StagePlan(s, round_robin(names), options.games, title(s, stages)) for s in stages]
    check_out(out, resume=resume)
    with open_run(out) as store:
        check_settings(store, run_settings(stages, agents, options), resume)
        play(plans, agents, out, options, store, jobs=jobs, on_game=on_game, on_stage=on_stage, on_wait=on_wait)
        boards = {}
        for plan in plans:
            boards[plan.title] = leaderboard.standings(store.games(stage_hash(plan.stage)), names)
        if len(stages) > 1:
            boards["all stages"] = leaderboard.standings(
                [g for s in stages for g in store.games(stage_hash(s))], names)
        write_atomic(out / "leaderboard.md", "\n".join(leaderboard.markdown(t, b) for t, b in boards.items()))
        return boards


class EntrantError(LudicaError, ValueError):
    """Entrants that cannot meet in a round robin: said before any game is played."""


def check_entrants(agents: list[AgentSpec]) -> list[str]:
    """The entrants' names: each agent once, no two with one NAME (results are kept by name), at
    least two of them."""
    by_name: dict[str, list[AgentSpec]] = {}
    for a in agents:
        by_name.setdefault(a.name, []).append(a)
    for name, same in by_name.items():
        if len(same) == 1:
            continue
        if len({a.path for a in same}) == 1:
            raise EntrantError(f"{_shown(same[0])} is given {len(same)} times: give each agent once")
        raise EntrantError(f"{len(same)} agents are named {name!r}: {', '.join(_shown(a) for a in same)}; results "
                           "are kept by name: set another NAME in the file of all but one")
    if len(agents) < 2:
        raise EntrantError("a round robin needs at least two entrants, and this one has "
                           + (f"only {_shown(agents[0])}" if agents else "none") + ": add another agent")
    return list(by_name)


def _shown(agent: AgentSpec) -> str:
    return f"the built-in agent {agent.name}" if agent.builtin else f"the agent file {agent.path}"


def unique_stages(items: Iterable, stage_of: Callable = lambda item: item) -> list:
    """The stages (or items holding one, `stage_of(item)`), each once: two files with the same
    canonical text are one stage (its games would be counted twice, and the store holds them once)."""
    return list({stage_hash(stage_of(item)): item for item in items}.values())


def run_settings(stages, agents: list[AgentSpec], options: Options) -> dict[str, str]:
    """What makes a run the same run: a resumed run must match it."""
    return {"stages": json.dumps([stage_hash(s) for s in stages]), "agents": json.dumps([a.name for a in agents]),
            "agent files": json.dumps([hashlib.sha256(a.path.read_bytes()).hexdigest() for a in agents]),
            "options": json.dumps(_options_set(options), sort_keys=True)}


# Options added after runs were made with their default: a run that leaves one at its default says
# nothing of it, so the runs made before it can still be resumed.
_LATER_OPTIONS = {"isolate_rules": False}


def _options_set(options: Options) -> dict:
    return {k: v for k, v in asdict(options).items() if k not in _LATER_OPTIONS or v != _LATER_OPTIONS[k]}


def cores() -> list[int]:
    """The cores this process may run on, in order."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux: the sandbox refuses to start anyway
        return list(range(os.cpu_count() or 1))


class Stopped(Exception):
    """The run was told to stop; the game in hand is not recorded."""


def play(plans: list[StagePlan], agents: list[AgentSpec], out: Path, options: Options, store: ResultsStore,
         jobs: int = 1, on_game: Callable[[dict], None] | None = None,
         on_stage: Callable[[str, int], None] | None = None, on_wait: Callable[[str], None] | None = None,
         on_stage_done: Callable[[StagePlan], None] | None = None,
         keep_going: Callable[[StagePlan], bool] = lambda plan: True) -> None:
    """Play the plans' missing games, `jobs` stages at a time, in the plans' order; `keep_going(plan)`
    is asked before each stage starts (in the plans' order, finished ones too). Ctrl-C (or an exception in a callback) stops every job:
    the games in hand are not recorded, every agent process is killed, and the exception goes on."""
    if options.sandbox:
        jail.require()  # before anything is compiled or started
    by_name = {a.name: a for a in agents}
    with notice_if_slow(on_wait, f"{COMPILING}, every kind of stage side by side"):
        warm_stages([p.stage for p in plans])  # then each stage's own warm-up below loads from the cache
    if not options.sandbox:
        jobs = 1  # in-process agents share this process's CPU clock: one game at a time
    # at most one job per core: more would make every game wait longer for a CPU (fair, since
    # waiting is never charged, but slower)
    jobs = max(1, min(jobs, len(plans), len(cores())))
    taking = threading.Lock()  # the next plan and the question whether to start it, as one step
    todo: queue.Queue = queue.Queue()
    for plan in plans:
        todo.put(plan)
    stopping = threading.Event()
    live: set[Entrant] = set()
    errors: list[BaseException] = []

    def job() -> None:
        try:
            while not stopping.is_set():
                with taking:  # so the stages start in the plans' order, and keep_going sees them so
                    try:
                        plan = todo.get_nowait()
                    except queue.Empty:
                        return
                    if not keep_going(plan):
                        return
                _play_stage(plan, by_name, out, options, store, live, stopping, on_game, on_stage, on_wait)
                if on_stage_done and not stopping.is_set():
                    on_stage_done(plan)
        except Stopped:
            pass
        except BaseException as err:  # noqa: BLE001 - handed to the caller's thread below
            errors.append(err)
            stopping.set()
            _close_all(live)

    if jobs == 1:
        job()
    else:
        threads = [threading.Thread(target=job, name=f"ludica-job-{n}", daemon=True) for n in range(jobs)]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.2)
        except KeyboardInterrupt as err:
            errors.append(err)
            stopping.set()
            _close_all(live)
            for t in threads:
                t.join()
    if errors:
        raise errors[0]


def _close_all(live: set) -> None:
    for entrant in list(live):
        entrant.close()


def check_settings(store: ResultsStore, wanted: dict[str, str], resume: bool) -> None:
    """A new run on an empty store, or `resume` of the very same run (else RunMismatch, naming
    what differs, option by option)."""
    held = store.settings()
    if held and not resume:
        raise RunMismatch(f"{store.path.parent} already holds a run: add --resume to continue it, "
                          "or choose another --out")
    if held:
        differ = [_difference(k, held.get(k), wanted[k]) for k in wanted if held.get(k) != wanted[k]]
        if differ:
            raise RunMismatch(f"--resume: the run in {store.path.parent} was started otherwise: {'; '.join(differ)}. "
                              "Resume it with the same stages, agents (files unchanged) and options, "
                              "or choose another --out")
    store.save_settings(wanted)


def _difference(key: str, held: str | None, wanted: str) -> str:
    """What differs under one key of the settings, said as the options a user gave."""
    try:
        before, now = json.loads(held or "null"), json.loads(wanted)
    except ValueError:
        return f"other {key}"
    if isinstance(before, dict) and isinstance(now, dict):
        changed = [f"{k} {before.get(k, _LATER_OPTIONS.get(k))!r} → {now.get(k, _LATER_OPTIONS.get(k))!r}"
                   for k in sorted(set(before) | set(now)) if before.get(k) != now.get(k)]
        return f"{key}: " + ", ".join(changed)
    if key == "agent files":
        return "an agent file changed since"
    if key == "stages":
        return "other stages (or a stage's text changed)"
    return f"{key} {before!r} → {now!r}"


def title(stage, stages) -> str:
    """The stage's name, with its hash's first digits when another stage of the run has the same."""
    twins = [s for s in stages if s.name == stage.name]
    return stage.name if len(twins) < 2 else f"{stage.name} ({stage_hash(stage)[:8]})"


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


def _play_stage(plan: StagePlan, agents: dict[str, AgentSpec], out, options, store, live, stopping, on_game,
                on_stage, on_wait=None) -> None:
    stage = plan.stage
    h = stage_hash(stage)
    done = store.finished(h)
    todo = [(n, g) for n, g in enumerate(plan.schedule(), 1) if g not in done]
    if on_stage:
        on_stage(plan.title, len(todo))
    if not todo:
        return
    with notice_if_slow(on_wait, f"{stage.name}: {COMPILING}"):
        game = compile_stage(stage)
        warm(RulesApi(game), game.initial_state())  # fill numba's cache once, before the workers read it
    text = format_stage(stage)
    entrants = {name: Entrant(agents[name], game, text, options, store, stage,
                              plan.budget(name, options.analysis_time), stopping) for name in plan.entrants}
    live.update(entrants.values())
    folder = out / "logs" / logs.slug(title(stage, [stage]) + "-" + h[:8])
    try:
        playing = {name for _, (b, w, _) in todo for name in (b, w)}
        for name in playing:
            entrants[name].launch()
        for number, (black, white, k) in todo:
            if stopping.is_set():
                raise Stopped
            seats = (entrants[black].ready(), entrants[white].ready())
            record = play_game(game, seats, plan.seed(options.seed, black, white, k), options.game_time,
                               names=(black, white), no_strategy=(entrants[black].why_not, entrants[white].why_not))
            if stopping.is_set():  # the game may have been cut short by the stop: not a result
                raise Stopped
            analyses = {"black": entrants[black].analysis, "white": entrants[white].analysis}
            logs.write_game(folder, number, record, analyses)
            store.add_game(record, k)
            if on_game:
                on_game({"stage": stage.name, "title": plan.title, "stage_hash": h, "black": black, "white": white,
                         "result": record.result, "reason": record.reason, "number": number})
    finally:
        for e in entrants.values():
            e.close()
            live.discard(e)
