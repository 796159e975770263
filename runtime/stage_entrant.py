"""One agent on one stage of a run: its seat (a sandboxed worker, or a local seat for trusted
agents), analysed once with its budget, and started again (analysed again) if its worker dies
between games; a second death on the stage leaves it without a strategy there. A person
(`human`) is seated at once, neither sandboxed nor analysed (runtime/human.py)."""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ..gdl.diagnostics import LudicaError
from .endpoints import is_loopback
from .entrants import AgentSpec
from .human import HumanSeat, TerminalSource
from .local import LocalSeat
from .plans import Options
from .referee import stage_hash
from .sandbox import AgentProcess, Answer, Settings

if TYPE_CHECKING:
    from .models import ModelSeat


PROGRAM_STARTS = 4  # a program's starts on one stage: a fresh preparation each time
ARENA_HIDDEN = ("an Othello AI Arena system plays perfect-information stages only: this stage hides information "
                "(its `hidden` line), which the Arena's API has no way to show; it is not played here")


class Stopped(LudicaError):
    """The run was told to stop; the game in hand is not recorded."""


def sandboxed(spec: AgentSpec, text: str, options: Options) -> AgentProcess:
    """The sandboxed worker (not started) of an agent (a Python file or a program) on a stage."""
    o, program = options, spec.program
    return AgentProcess(None if program else str(spec.path), text,
                        Settings(limits=o.limits, reveal=o.reveal, isolate_rules=o.isolate_rules,
                                 data=str(spec.data) if spec.data else None, program=spec.command if program else (),
                                 files=tuple((str(p), x) for p, x in spec.files)), name=spec.name)


def model_seat(spec: AgentSpec, game, text: str, options: Options, learnt: dict | None = None) -> ModelSeat:
    """A language model's seat (runtime/models) at the endpoint its file names among those the run
    allows (--endpoint), told the rules as the run says (--rules); `learnt`: what the run's endpoints
    turned out to take (runtime/models/endpoint.Learnt, Run.learnt)."""
    from .models import Endpoint, ModelSeat, load_config  # the `openai` client: only runs with a model load it

    assert spec.path is not None
    config = load_config(spec.path, options.endpoints)
    return ModelSeat(spec.name, game, config, text, rules=options.model_rules, endpoint=Endpoint(config, learnt=learnt))


class Entrant:
    """One agent on one stage: its seat (sandboxed or local), analysed, restarted if its worker dies.
    `analysis_time` is its budget on this stage (StagePlan.budget); `learnt`: the run's table of what
    its model endpoints take (Run.learnt)."""

    def __init__(self, spec: AgentSpec, game, text: str, options: Options, store, stage, analysis_time: float,
                 stopping: threading.Event | None = None, learnt: dict | None = None):
        self.spec, self.game, self.text, self.options, self.learnt = spec, game, text, options, learnt
        self.store, self.stage, self.stopping = store, stage, stopping
        self.analysis_time = analysis_time
        self.seat: AgentProcess | LocalSeat | HumanSeat | ModelSeat | None = None
        self.why_not = ""
        self.analysis: dict = {}

    def launch(self) -> None:
        """Start the sandboxed worker now, without waiting (the analysis comes with the first game)."""
        if self.options.sandbox and not self.spec.wall_clock and self.seat is None and not self.why_not:
            self.seat = self._process()
            self.seat.launch()

    def ready(self):
        """The seat, analysed (started again if its worker died); None if it has no strategy."""
        if self.analysis and self.seat is None:
            return None  # its analysis failed: no strategy on this stage
        # the worker died after its analysis
        if self.analysis and isinstance(self.seat, AgentProcess) and not self.seat.alive:
            self.seat.close()
            self.seat = None
            if self.analysis["attempts"] >= self._attempts:
                self.why_not = (f"its program was started {self._attempts} times on this stage" if self.spec.program
                                else "its worker died twice after its analysis")
                return None
        if not self.analysis or self.seat is None:
            self._start()
        return self.seat

    @property
    def _attempts(self) -> int:
        """Analyses allowed on a stage. A Python agent's worker forks each game, so only a worker
        that dies is started again (once). A program lives for the whole stage and goes with
        any game it breaks (a timeout, a crash): it is started again, with a new preparation, up
        to PROGRAM_STARTS times."""
        return PROGRAM_STARTS if self.spec.program else 2

    def _process(self) -> AgentProcess:
        return sandboxed(self.spec, self.text, self.options)

    def _start(self) -> None:
        o = self.options
        attempts = self.analysis.get("attempts", 0) + 1
        lockdown: dict = {}
        output = ("", 0)
        seat: AgentProcess | LocalSeat | HumanSeat | ModelSeat | None
        if self.spec.human:  # a person has no analysis phase: ready at once, nothing charged
            seat = HumanSeat(self.spec.name, self.game, self.spec.source or TerminalSource())
            answer = Answer({"op": "analysed", "ok": True}, 0.0, 0.0)
        elif self.spec.kind == "arena" and self.stage.hidden is not None:
            seat = None
            answer = Answer(None, 0.0, 0.0, "unsupported", ARENA_HIDDEN)
        elif self.spec.kind == "model":  # on the referee's side: the model is remote, its harness ours
            seat = model_seat(self.spec, self.game, self.text, o, self.learnt)
            self._note_sent(seat.config)
            # its own budget in wall seconds (a CPU budget of 2 s is no time for a conversation), scaled
            # as this stage's plan scales the CPU budget
            answer = seat.analyze(o.model_analysis_time * self.analysis_time / o.analysis_time)
            output = (seat.analysis_transcript, len(seat.analysis_transcript.encode()))
        elif o.sandbox:
            # every worker is in self.seat as soon as it exists: a stop (Ctrl-C) kills what it finds there
            held = self.seat  # sandboxed: a worker, if any
            seat = self.seat = held if isinstance(held, AgentProcess) else self._process()
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
            if answer.failure == "unsupported":
                self.seat, self.why_not = None, answer.detail
                return
            if isinstance(seat, AgentProcess):
                seat.close()
            kind = {"timeout": "analysis over its budget"}.get(answer.failure, f"analysis failed ({answer.failure})")
            detail = answer.detail.strip().splitlines()[-1] if answer.detail.strip() else ""
            said = [line for line in output[0].splitlines() if line.strip()]
            if self.spec.program and said and answer.failure == "crash":  # a program says why on its stderr
                detail += f"; its last words: {said[-1].strip()[:300]}"
            self.seat, self.why_not = None, kind + (f": {detail}" if detail else "")
        else:
            self.seat, self.why_not = seat, ""

    def _note_sent(self, config) -> None:
        """An unseen stage about to go to a model's endpoint off this machine is said in the run, before
        the first request (the report tells the evaluator: the unseen set is public from then on)."""
        if is_loopback(config.base_url):
            return
        here = stage_hash(self.stage)
        if any(s["stage_hash"] == here and s["role"] == "unseen" for s in self.store.stages()):
            self.store.note_sent(config.endpoint, config.base_url)

    def close(self) -> None:
        seat = self.seat
        if seat is not None and not isinstance(seat, (LocalSeat, HumanSeat)):
            seat.close()  # a worker's, or a language model's (its connections)
