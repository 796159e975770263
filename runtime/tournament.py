"""Round robins: every entrant against every other on each stage, in both seats, N games per
seating; each agent analyses each stage once (in its sandboxed worker), then plays all its games
there from that strategy. One game at a time: two timed agents never think at the same time.

Every game is in the results store the moment it ends; `resume=True` plays only the games the
store does not hold (agents analyse again the stages they still have games on). Game g of the
pairing (black, white) on a stage gets a seed derived from the run's seed, the stage's hash, both
names and g, so a resumed run plays the very games an uninterrupted one would (with
deterministic agents).
"""
from __future__ import annotations

import hashlib
import json
import threading
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from ..compiler import compile as compile_stage
from ..gdl import load
from ..gdl.printer import format as format_stage
from . import leaderboard, logs
from .entrants import AgentSpec
from .api import RulesApi
from .local import LocalSeat
from .records import ResultsStore, StoreError, lock_folder
from .referee import play_game, stage_hash
from .sandbox import AgentProcess, Settings
from .warmup import warm_stages
from .worker import warm


@dataclass
class Options:
    games: int = 1  # per seating: each ordered pair plays this many games
    analysis_time: float = 60.0
    game_time: float = 10.0
    seed: int = 0
    reveal: bool = False  # GGP mode: agents get the stage's text
    limits: dict = field(default_factory=dict)  # runtime/limits.py DEFAULTS, overridden
    sandbox: bool = True  # False: trusted agents in this process (tests, quick experiments)


class RunMismatch(ValueError):
    """--resume on a folder whose run was started with other settings."""


def game_seed(run_seed: int, stage_hash_: str, black: str, white: str, index: int) -> int:
    digest = hashlib.sha256(f"{run_seed}|{stage_hash_}|{black}|{white}|{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def schedule(names: list[str], games: int) -> list[tuple[str, str, int]]:
    """Every ordered pair of distinct entrants, `games` games each, in a fixed order."""
    return [(b, w, k) for b in names for w in names if b != w for k in range(games)]


class Entrant:
    """One agent on one stage: its seat (sandboxed or local), analysed, restarted if its worker dies."""

    def __init__(self, spec: AgentSpec, game, text: str, options: Options, hide: tuple[str, ...], store, stage):
        self.spec, self.game, self.text, self.options, self.hide = spec, game, text, options, hide
        self.store, self.stage = store, stage
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
                            Settings(limits=o.limits, hide=self.hide, reveal=o.reveal))
        seat.name = self.spec.name
        return seat

    def _start(self) -> None:
        o = self.options
        attempts = self.analysis.get("attempts", 0) + 1
        lockdown: dict = {}
        output = ("", 0)
        if o.sandbox:
            seat = self.seat if self.seat is not None else self._process()
            answer = seat.wait_ready() if seat.proc is not None else seat.start()
            if answer.failure and seat.proc is not None and not seat.lockdown:
                # The worker did not get ready (the agent's code was not loaded yet, so this is not
                # the agent's doing: a busy machine, a cold cache): once more, alone.
                seat.close()
                seat = self._process()
                answer = seat.start()
            lockdown = seat.lockdown
            if not answer.failure:
                answer = seat.analyze(o.analysis_time)
            output = seat.drain.mark()
        else:
            seat = LocalSeat(self.spec.name, str(self.spec.path), self.game, self.text if o.reveal else None)
            answer = seat.analyze(o.analysis_time)
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
        on_wait: Callable[[str], None] | None = None
        ) -> dict[str, list[leaderboard.Standing]]:
    """Play the round robins; returns the leaderboard of each stage (by stage name)."""
    names = [a.name for a in agents]
    if len(set(names)) != len(names):
        raise ValueError(f"two entrants share a name: {sorted(n for n in names if names.count(n) > 1)}; "
                         "set NAME in one of the files")
    if len(agents) < 2:
        raise ValueError("a round robin needs at least two entrants")
    stages = [load(p) for p in stage_paths]  # every stage checked before anything is played
    if out.exists() and not out.is_dir():
        raise StoreError(f"--out {out} is a file, not a folder")
    if not out.exists():
        out.mkdir(parents=True)
        out.chmod(0o700)  # private, as ludica made it (the sandbox also hides it from the agents)
    # the folder, held for this run (a second run is refused), then its store; both let go at the end
    with lock_folder(out), closing(ResultsStore(out / "results.sqlite")) as store:
        _check_run(store, stages, agents, options, resume)
        hide = (str(out.resolve()),) + tuple(str(a.path) for a in agents)
        with notice_if_slow(on_wait, f"{COMPILING}, every kind of stage side by side"):
            warm_stages(stages)  # then each stage's own warm-up below loads from the cache
        for stage in stages:
            _play_stage(stage, agents, out, options, store, hide, on_game, on_stage, on_wait)
        boards = {}
        for stage in stages:
            boards[_title(stage, stages)] = leaderboard.standings(store.games(stage_hash(stage)), names)
        if len(stages) > 1:
            boards["all stages"] = leaderboard.standings(
                [g for s in stages for g in store.games(stage_hash(s))], names)
        (out / "leaderboard.md").write_text("\n".join(leaderboard.markdown(t, b) for t, b in boards.items()))
        return boards


def _check_run(store: ResultsStore, stages, agents: list[AgentSpec], options: Options, resume: bool) -> None:
    names = [a.name for a in agents]
    wanted = {"stages": json.dumps([stage_hash(s) for s in stages]), "agents": json.dumps(names),
              "agent files": json.dumps([hashlib.sha256(a.path.read_bytes()).hexdigest() for a in agents]),
              "options": json.dumps(asdict(options), sort_keys=True)}
    held = store.settings()
    if held and not resume:
        raise RunMismatch(f"{store.path.parent} already holds a run: add --resume to continue it, "
                          "or choose another --out")
    if held:
        differ = [k for k in wanted if held.get(k) != wanted[k]]
        if differ:
            raise RunMismatch(f"--resume: the run in {store.path.parent} was started with other {', '.join(differ)}; "
                              "resume it with the same stages, agents (files unchanged) and options, "
                              "or choose another --out")
    store.save_settings(wanted)


def _title(stage, stages) -> str:
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


def _play_stage(stage, agents, out, options, store, hide, on_game, on_stage, on_wait=None) -> None:
    h = stage_hash(stage)
    names = [a.name for a in agents]
    plan = schedule(names, options.games)
    done = store.finished(h)
    todo = [(n, g) for n, g in enumerate(plan, 1) if g not in done]
    if on_stage:
        on_stage(stage.name, len(todo))
    if not todo:
        return
    with notice_if_slow(on_wait, f"{stage.name}: {COMPILING}"):
        game = compile_stage(stage)
        warm(RulesApi(game), game.initial_state())  # fill numba's cache once, before the workers read it
    text = format_stage(stage)
    entrants = {a.name: Entrant(a, game, text, options, hide, store, stage) for a in agents}
    folder = out / "logs" / logs.slug(_title(stage, [stage]) + "-" + h[:8])
    try:
        playing = {name for _, (b, w, _) in todo for name in (b, w)}
        for name in playing:
            entrants[name].launch()
        for number, (black, white, k) in todo:
            seats = (entrants[black].ready(), entrants[white].ready())
            record = play_game(game, seats, game_seed(options.seed, h, black, white, k), options.game_time,
                               names=(black, white), no_strategy=(entrants[black].why_not, entrants[white].why_not))
            analyses = {"black": entrants[black].analysis, "white": entrants[white].analysis}
            logs.write_game(folder, number, record, analyses)
            store.add_game(record, k)
            if on_game:
                on_game({"stage": stage.name, "black": black, "white": white, "result": record.result,
                         "reason": record.reason, "number": number})
    finally:
        for e in entrants.values():
            e.close()
