"""The referee's side of an agent's worker process (runtime/worker.py): start it, hand it the
stage, let it analyse, fork a game process per game, ask for moves; charge its time from outside
and kill what overruns.

What is charged: the CPU time (user + system) of the agent's whole process tree
(runtime/accounting.py) from the moment a request is sent until its answer arrives, so a
multi-threaded or multi-process agent pays for every core it uses and a sleeping or blocked agent
pays nothing for waiting. Against an agent that blocks for ever there is a wall-clock backstop: a
request may not take longer than twice the time left plus one second of real time. The referee
polls every POLL seconds: CPU time over the budget or real time over the backstop → the agent is
killed (its game process, or the whole worker during analysis) and the request times out.
Everything the agent prints is drained by a thread of the referee; the first OUTPUT_KEPT bytes of
each game are kept in its log, the rest counted and dropped, so no amount of output can block the
agent or harm the referee.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from . import protocol
from .accounting import ProcessTree

POLL = 0.01
OUTPUT_KEPT = 16 << 10
START_TIMEOUT = 120.0  # compiling a stage from a cold cache takes a while; the agent is not charged
SYNC_TIMEOUT = 10.0  # for the worker's own (trusted) replies between games


@dataclass
class Answer:
    """The outcome of a request: `reply` (a message) or `failure` ("timeout", "crash",
    "protocol", "processes") with `detail`; `seconds` charged; `wall` seconds of real time."""

    reply: dict | None
    seconds: float
    wall: float
    failure: str | None = None
    detail: str = ""


@dataclass
class Settings:
    """How an agent's worker is run."""

    limits: dict = field(default_factory=dict)  # runtime/limits.py DEFAULTS, overridden
    hide: tuple[str, ...] = ()  # paths the agent must not see (the results folder...)
    reveal: bool = False  # GGP mode: the stage's text is handed to the agent
    max_processes: int = 64


class _Drain(threading.Thread):
    """Reads an agent's output as it comes; keeps the first OUTPUT_KEPT bytes since `mark()`."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream, self.kept, self.total = stream, bytearray(), 0
        self.lock = threading.Lock()

    def run(self) -> None:
        while chunk := self.stream.read1(1 << 16):
            with self.lock:
                self.total += len(chunk)
                room = OUTPUT_KEPT - len(self.kept)
                if room > 0:
                    self.kept += chunk[:room]

    def mark(self) -> tuple[str, int]:
        """The output since the last mark (kept text, total bytes); starts a new count."""
        with self.lock:
            text, total = self.kept.decode(errors="replace"), self.total
            self.kept, self.total = bytearray(), 0
        return text, total


class AgentProcess:
    """One agent's worker on one stage: start → analyze → (start_game → think… → end_game)… → close."""

    def __init__(self, agent_path: str, stage_text: str, settings: Settings):
        self.agent_path, self.stage_text, self.settings = agent_path, stage_text, settings
        self.proc: subprocess.Popen | None = None
        self.lockdown: dict = {}
        self._before_game: set[int] = set()
        self._in_game = False  # a game process is running (the worker waits for it)

    # --- life of the worker ----------------------------------------------------------------------

    def start(self) -> Answer:
        """Start the worker; it compiles the stage, locks itself down and loads the agent file."""
        self.launch()
        return self.wait_ready()

    def launch(self) -> None:
        """Start the worker without waiting for it (workers of several agents start side by side;
        starting is not charged)."""
        worker_reads, referee_writes = os.pipe()
        referee_reads, worker_writes = os.pipe()
        with open(self.agent_path, encoding="utf-8", errors="replace") as f:
            source = f.read()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ludica.runtime.worker", str(worker_reads), str(worker_writes)],
            pass_fds=(worker_reads, worker_writes), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True, cwd="/")
        os.close(worker_reads), os.close(worker_writes)
        self._out, self._in = referee_writes, referee_reads
        self._reader = protocol.Reader(referee_reads)
        self.tree = ProcessTree(self.proc.pid)
        self.drain = _Drain(self.proc.stdout)
        self.drain.start()
        protocol.send(self._out, {"stage": self.stage_text, "agent": self.agent_path, "source": source,
                                  "reveal": self.settings.reveal, "limits": self.settings.limits,
                                  "hide": list(self.settings.hide)})

    def wait_ready(self) -> Answer:
        """Wait until the launched worker is locked down with the agent loaded."""
        answer = self._wait(START_TIMEOUT, None, charge=False)
        if answer.reply is not None:
            self.lockdown = answer.reply.get("lockdown", {})
            if not answer.reply.get("ok"):
                answer.failure, answer.detail = "crash", answer.reply.get("error", "")
        return answer

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def analyze(self, budget: float) -> Answer:
        """Run `analyze` under the analysis budget; on failure the worker is gone."""
        answer = self._request({"op": "analyze", "budget": budget}, budget, whole=True)
        if answer.reply is not None and not answer.reply.get("ok"):
            answer.failure, answer.detail = "crash", answer.reply.get("error") or ""
        if answer.failure:
            self.close()
        return answer

    def start_game(self, seed: int) -> Answer:
        """Fork a game process from the analysed strategy."""
        self._before_game = set(self.tree.members(rescan=True))
        self.drain.mark()
        try:
            protocol.send(self._out, {"op": "game", "seed": seed})
        except OSError as e:
            return Answer(None, 0.0, 0.0, "crash", f"the worker is gone ({e})")
        answer = self._wait(SYNC_TIMEOUT, None, charge=False)
        self._in_game = answer.failure is None
        return answer

    def think(self, state: list[int], legal: list[str], remaining: float) -> Answer:
        """Ask the game process for a move, with `remaining` seconds on its clock."""
        return self._request({"op": "move", "state": state, "legal": legal, "remaining": remaining}, remaining,
                             whole=False)

    def end_game(self) -> tuple[str, int]:
        """End the game process (killing it if it does not end); returns its output (text, bytes)."""
        if self.alive and self._in_game:
            try:
                protocol.send(self._out, {"op": "end"})
                answer = self._wait(1.0, None, charge=False, ending=True)
                if answer.failure:
                    self._kill_game()
                    self._wait(SYNC_TIMEOUT, None, charge=False, ending=True)
            except OSError:
                pass
        time.sleep(0.002)  # let the drain thread catch the last lines
        return self.drain.mark()

    def close(self) -> None:
        if self.proc is None:
            return
        self._kill_all(lambda: set(self.tree.members(rescan=True)) | ({self.proc.pid} if self.alive else set()))
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for fd in (self._out, self._in):
            try:
                os.close(fd)
            except OSError:
                pass
        self.proc.stdout.close()

    # --- requests ----------------------------------------------------------------------------

    def _request(self, message: dict, budget: float, whole: bool) -> Answer:
        try:
            protocol.send(self._out, message)
        except OSError as e:
            return Answer(None, 0.0, 0.0, "crash", f"broken pipe ({e})")
        answer = self._wait(2 * budget + 1.0, budget, charge=True)
        if answer.failure in ("timeout", "processes", "protocol"):
            self.close() if whole else self._kill_game()
            if not whole and self.alive:
                self._wait(SYNC_TIMEOUT, None, charge=False, ending=True)  # the worker's game-ended
        if answer.reply is not None and answer.reply.get("op") == "error":
            answer.failure, answer.detail, answer.reply = "crash", str(answer.reply.get("error", "")), None
            if not whole and self.alive:  # the game process ends after an exception: wait for it
                self._wait(SYNC_TIMEOUT, None, charge=False, ending=True)
        return answer

    def _wait(self, wall_limit: float, budget: float | None, charge: bool, ending: bool = False) -> Answer:
        """Wait for one message, charging CPU time against `budget` when it is given. A
        `game-ended` message is a crash of the game process, unless the game is `ending`."""
        t0, members = time.monotonic(), self.tree.members()
        cpu0 = self.tree.cpu_seconds(members)
        spent = 0.0
        while True:
            try:
                reply = self._reader.read(POLL)
            except protocol.Closed:
                return Answer(None, spent, time.monotonic() - t0, "crash", f"the worker died{self._exit_text()}")
            except protocol.ProtocolError as e:
                return Answer(None, spent, time.monotonic() - t0, "protocol", str(e))
            wall = time.monotonic() - t0
            members = self.tree.members()
            if charge:
                spent = max(0.0, self.tree.cpu_seconds(members) - cpu0)
            if reply is not None:
                if reply.get("op") == "game-ended":
                    self._in_game = False
                if reply.get("op") == "game-ended" and not ending:
                    return Answer(None, spent, wall, "crash", _status_text(reply, "the game process died"))
                return Answer(reply, spent, wall)
            if budget is not None and spent > budget:
                return Answer(None, spent, wall, "timeout", f"{spent:.2f} s of CPU time, over the {budget:.2f} s left")
            if wall > wall_limit:
                return Answer(None, spent, wall, "timeout",
                              f"no answer after {wall:.1f} s of real time (the backstop; {spent:.2f} s of CPU)")
            if charge and len(members) > self.settings.max_processes:
                return Answer(None, spent, wall, "processes",
                              f"{len(members)} processes, over the limit of {self.settings.max_processes}")

    def _exit_text(self) -> str:
        if self.proc is None:
            return ""
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return ""
        return f" (killed by signal {-code})" if code < 0 else f" (exit code {code})"

    def _kill_game(self) -> None:
        """Kill the game process and everything it started (whatever was not there before the game)."""
        self._kill_all(lambda: set(self.tree.members(rescan=True)) - self._before_game)

    def _kill_all(self, targets) -> None:
        """Kill `targets()` until none is left: a process forking as fast as it can may add a
        child between a listing and the kill, so stop them all first, then look again."""
        for _ in range(100):
            pids = targets() - self.tree.zombies
            if not pids:
                return
            self._kill(pids, signal.SIGSTOP)
            pids |= targets() - self.tree.zombies
            self._kill(pids, signal.SIGKILL)
            time.sleep(0.005)

    @staticmethod
    def _kill(pids: set[int], how: int = signal.SIGKILL) -> None:
        for pid in pids:
            try:
                os.kill(pid, how)
            except OSError:
                pass


def _status_text(reply: dict, default: str) -> str:
    status = reply.get("status")
    if not isinstance(status, int) or not 0 <= status < 1 << 16:
        return default
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else "?"
        return f"the game process was killed by signal {number} ({name})"
    return f"the game process exited with code {os.WEXITSTATUS(status)}"
