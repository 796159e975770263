"""The referee's side of an agent's worker process (runtime/worker.py): start it, hand it the
stage, let it analyse, fork a game process per game, ask for moves; charge its time from outside
and kill what overruns.

What is charged: the CPU time (user + system) of the agent's whole process tree
(runtime/accounting.py) from the moment a request is sent until its answer arrives, so a
multi-threaded or multi-process agent pays for every core it uses and a sleeping or blocked agent
pays nothing for waiting. Between requests every process of the agent is stopped (SIGSTOP, then
SIGCONT with the next request): an agent thinks only when asked, so nothing it leaves running
escapes the charge or slows its opponent. Against an agent that blocks for ever there is a
wall-clock backstop: a request may not take longer than twice the time left plus one second of
real time. The referee polls every POLL seconds: CPU time over the budget or real time over the
backstop → the agent is killed (its game process, or the whole worker during analysis) and the
request times out; more live processes than allowed, seen while it thinks or when it answers,
likewise. Everything the agent prints is drained by a thread of the referee; the first
OUTPUT_KEPT bytes of each game are kept in its log, the rest counted and dropped, so no amount of
output can block the agent or harm the referee. Messages carry sequence numbers: a late or forged
reply is dropped, never taken for the answer to another request.
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
from .protocol import text
from .accounting import ProcessTree
from .cgroups import AgentGroup
from ..gdl.diagnostics import LudicaError
from .limits import DEFAULTS

POLL = 0.01
OUTPUT_KEPT = 16 << 10
START_TIMEOUT = 120.0  # compiling a stage from a cold cache takes a while; the agent is not charged
SYNC_TIMEOUT = 10.0  # for the worker's own (trusted) replies between games

# The worker's first instructions, before it imports anything (numpy and numba take a second or
# more): die with the referee (PR_SET_PDEATHSIG = 1), and go at once if the referee is already gone
# (its parent is then no longer the referee). lock_down sets the signal again in the namespace.
_WORKER = ("import ctypes, os, signal, sys\n"
           "ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)\n"
           "if os.getppid() != int(sys.argv[2]):\n"
           "    os._exit(1)\n"
           "from ludica.runtime.worker import main\n"
           "main(int(sys.argv[1]), '--isolate-rules' in sys.argv[3:])\n")


class SandboxUnavailable(LudicaError, RuntimeError):
    """The sandbox needs Linux: prctl, /proc, control groups and namespaces."""


def require_linux() -> None:
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable(f"the sandbox that runs agents needs Linux (prctl, /proc, namespaces), and this is "
                                 f"{sys.platform}: run ludica in a Linux machine or container, or run trusted agents "
                                 "with --in-process")


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
    core: int | None = None  # pin every process of the agent to this core (games side by side)
    isolate_rules: bool = False  # the rules in an oracle process of the agent's (runtime/oracle.py)

    @property
    def max_processes(self) -> int:
        """The live processes an agent may have (the `processes` limit)."""
        return int(dict(DEFAULTS, **self.limits)["processes"])


class _Drain(threading.Thread):
    """Reads an agent's output as it comes; keeps the first OUTPUT_KEPT bytes since `mark()`."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream, self.fd = stream, stream.fileno()
        os.set_blocking(self.fd, False)
        self.kept, self.total = bytearray(), 0
        self.lock = threading.Lock()
        self.ended = threading.Event()

    def run(self) -> None:
        try:
            while not self.ended.is_set():
                protocol.ready(self.fd)
                with self.lock:  # one chunk at a time: a flood must not keep mark() waiting
                    self._read(once=True)
        except (OSError, ValueError):
            self.ended.set()  # the stream was closed under us

    def _read(self, once: bool = False) -> None:
        """Read what the pipe holds (under the lock), or one chunk of it; at its end, say so."""
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            if not chunk:
                self.ended.set()
                return
            self.total += len(chunk)
            room = OUTPUT_KEPT - len(self.kept)
            if room > 0:
                self.kept += chunk[:room]
            if once:
                return

    def mark(self) -> tuple[str, int]:
        """The output since the last mark (kept text, total bytes); starts a new count. Called when
        every process of the agent is stopped or gone, so all it wrote is in the pipe: reading the
        pipe dry here makes the count exact, with no waiting."""
        with self.lock:
            if not self.ended.is_set():
                self._read()
            text, total = self.kept.decode(errors="replace"), self.total
            self.kept, self.total = bytearray(), 0
        return text, total

    def stop(self) -> None:
        """After the agent's processes are gone: let the thread see the pipe's end, then close it
        (never while the thread may still read it: its number could be reused by another file)."""
        self.join(timeout=1.0)
        if not self.is_alive():
            self.stream.close()


class AgentProcess:
    """One agent's worker on one stage: launch → wait_ready → analyze → (start_game → think… →
    end_game)… → close. Every method returns an Answer (or output) and never raises on anything
    the agent does."""

    def __init__(self, agent_path: str, stage_text: str, settings: Settings):
        require_linux()
        self.agent_path, self.stage_text, self.settings = agent_path, stage_text, settings
        self.proc: subprocess.Popen | None = None
        self.lockdown: dict = {}
        self._before_game: set[int] = set()
        self._seq = 0
        self._game_seq: int | None = None  # the seq of the running game's `game` request
        self._closed = False
        self._stopped: set[int] = set()  # the processes the last freeze stopped

    # --- life of the worker ----------------------------------------------------------------------

    def start(self) -> Answer:
        """Start the worker and wait until it is locked down."""
        self.launch()
        return self.wait_ready()

    def launch(self) -> None:
        """Start the worker without waiting for it (workers of several agents start side by side;
        starting is not charged: the agent's code is not loaded yet)."""
        self._sock, theirs = protocol.pair()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(theirs.fileno()), str(os.getpid())]
            + ["--isolate-rules"] * self.settings.isolate_rules,
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True, cwd="/", env=_worker_environment())
        theirs.close()
        if self.settings.core is not None:  # its game processes and anything it starts inherit the core
            try:
                os.sched_setaffinity(self.proc.pid, {self.settings.core})
            except OSError:
                pass  # the core went offline, or the worker is already gone: it runs unpinned
        # In its control groups before it runs any code of the agent's (it is still starting Python)
        self.group = AgentGroup.create(4 * self.settings.max_processes + 16)
        if self.group is not None:
            try:
                self.group.add(self.proc.pid)
            except OSError:
                self.group.remove()
                self.group = None
        self._sock.setblocking(False)
        self._reader = protocol.Reader(self._sock)
        self.tree = ProcessTree(self.proc.pid, self.group)
        self.drain = _Drain(self.proc.stdout)
        self.drain.start()
        self._send({"stage": self.stage_text, "reveal": self.settings.reveal, "limits": self.settings.limits,
                    "hide": list(self.settings.hide)})

    def wait_ready(self) -> Answer:
        """Wait until the launched worker has compiled the stage and locked itself down."""
        answer = self._wait(self._seq, START_TIMEOUT)
        if answer.reply is not None:
            lockdown = answer.reply.get("lockdown")
            self.lockdown = {str(k): str(v)[:300] for k, v in lockdown.items()} if isinstance(lockdown, dict) else {}
            if answer.reply.get("ok") is not True:
                answer.failure, answer.detail = "crash", text(answer.reply, "error")
        if not answer.failure:
            self._freeze()
        return answer

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def analyze(self, budget: float) -> Answer:
        """Load the agent's file and run `analyze`, both under the analysis budget; on failure
        the worker is closed."""
        with open(self.agent_path, encoding="utf-8", errors="replace") as f:
            source = f.read()
        answer = self._request({"op": "analyze", "budget": budget, "source": source, "agent": self.agent_path},
                               budget, whole=True)
        if answer.reply is not None and answer.reply.get("ok") is not True:
            answer.failure, answer.detail, answer.reply = "crash", text(answer.reply, "error"), None
        if answer.failure:
            self.close()
        return answer

    def start_game(self, seed: int, budget: float) -> Answer:
        """Fork a game process from the analysed strategy; its CPU time counts on the game clock."""
        self._before_game = set(self.tree.members(rescan=True))
        self.drain.mark()
        answer = self._request({"op": "game", "seed": seed}, budget, whole=False)
        if answer.reply is not None and answer.reply.get("op") != "game-ready":
            answer.failure, answer.detail = "crash", _status_text(answer.reply, "the game process did not start")
            answer.reply = None  # the game process died at once
        if answer.failure is None:
            self._game_seq = self._seq
        return answer

    def think(self, state: list[int], legal: list[str], remaining: float) -> Answer:
        """Ask the game process for a move, with `remaining` seconds on its clock."""
        answer = self._request({"op": "move", "state": state, "legal": legal, "remaining": remaining}, remaining,
                               whole=False)
        if answer.reply is not None and answer.reply.get("op") != "move":
            answer.failure, answer.detail, answer.reply = "protocol", f"a {text(answer.reply, 'op', 40)!r} reply", None
        return answer

    def end_game(self) -> tuple[str, int]:
        """End the game process and kill whatever it left; returns its output (text, bytes)."""
        if self.alive and self._game_seq is not None:
            self._thaw()
            try:
                self._send({"op": "end"})
                self._wait(self._game_seq, 1.0, ending=True)
            except (protocol.ProtocolError, protocol.Closed):
                pass  # the game process is killed just below whatever happened
        self._end_game_processes()
        return self.drain.mark()

    def close(self) -> None:
        """Kill every process of the agent and let go of the worker (again: nothing happens)."""
        if self.proc is None or self._closed:
            return
        self._closed = True
        self._kill_all(lambda: set(self.tree.members(rescan=True)) | ({self.proc.pid} if self.alive else set()))
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._sock.close()
        self.drain.stop()
        if self.group is not None:
            self.group.remove()

    # --- requests ----------------------------------------------------------------------------

    def _send(self, message: dict) -> None:
        self._seq += 1
        protocol.send(self._sock, dict(message, seq=self._seq))

    def _request(self, message: dict, budget: float, whole: bool) -> Answer:
        """Send a request and wait for its reply, charged against `budget`. `whole`: the request
        is the worker's own (analysis), not a game process's."""
        cpu0 = self.tree.cpu_seconds()  # while every process is stopped: all it does from here is charged
        self._thaw()
        try:
            self._send(message)
        except (protocol.ProtocolError, protocol.Closed) as e:
            answer = Answer(None, 0.0, 0.0, "crash", str(e))
        else:
            answer = self._wait(self._seq, 2 * budget + 1.0, budget, cpu0=cpu0)
        if answer.reply is not None and answer.reply.get("op") == "error":
            answer.failure, answer.detail, answer.reply = "crash", text(answer.reply, "error"), None
        if answer.failure is None:
            live = self._live()
            if len(live) > self.settings.max_processes:
                answer.failure = "processes"
                answer.detail = f"{len(live)} processes, over the limit of {self.settings.max_processes}"
            else:
                self._freeze(live)  # until the next request
        if answer.failure:
            if whole:
                self.close()
            else:
                self._end_game_processes()
        return answer

    def _wait(self, seq: int, wall_limit: float, budget: float | None = None, ending: bool = False,
              cpu0: float = 0.0) -> Answer:
        """Wait for the reply to request `seq`, charging the CPU time used since `cpu0` against
        `budget` when given. The worker's `game-ended` for the running game ends the wait too: a
        crash of the game process, unless the game is `ending`."""
        t0 = time.monotonic()
        spent = 0.0
        while True:
            try:
                reply = self._reader.read(POLL)
            except protocol.Closed:
                return Answer(None, spent, time.monotonic() - t0, "crash", f"the worker died{self._exit_text()}")
            except protocol.ProtocolError as e:
                return Answer(None, spent, time.monotonic() - t0, "protocol", str(e))
            wall = time.monotonic() - t0
            # a quick answer costs one reading of the CPU time; the processes are listed only while waiting
            members = self.tree.members() if reply is None else None
            if budget is not None:
                spent = max(0.0, self.tree.cpu_seconds(members) - cpu0)
            if reply is not None:
                ended = reply.get("op") == "game-ended"
                if ended and self._game_seq is not None and reply.get("seq") == self._game_seq:
                    self._game_seq = None
                    if ending:
                        return Answer(reply, spent, wall)
                    return Answer(None, spent, wall, "crash", _status_text(reply, "the game process died"))
                if reply.get("seq") == seq:
                    return Answer(reply, spent, wall)
                # a late reply to an earlier request, or a forged one: dropped, and the clocks still run
                members = self.tree.members()
            if budget is not None and spent > budget:
                return Answer(None, spent, wall, "timeout", f"{spent:.2f} s of CPU time, over the {budget:.2f} s left")
            if wall > wall_limit:
                return Answer(None, spent, wall, "timeout",
                              f"no answer after {wall:.1f} s of real time (the backstop; {spent:.2f} s of CPU)")
            live = len(set(members) - self.tree.zombies)
            if budget is not None and live > self.settings.max_processes:
                return Answer(None, spent, wall, "processes",
                              f"{live} processes, over the limit of {self.settings.max_processes}")

    def _exit_text(self) -> str:
        if self.proc is None:
            return ""
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return ""
        return f" (killed by signal {-code})" if code < 0 else f" (exit code {code})"

    # --- processes ---------------------------------------------------------------------------

    def _live(self) -> set[int]:
        return set(self.tree.members(rescan=True)) - self.tree.zombies

    def _freeze(self, live: set[int] | None = None) -> None:
        """Stop every process of the agent until its next request (SIGSTOP, again until no new
        process shows up: one may have been forked while the others were being stopped)."""
        stopped: set[int] = set()
        live = self._live() if live is None else live
        for _ in range(100):
            new = live - stopped
            if not new:
                break
            self._kill(new, signal.SIGSTOP)
            stopped |= new
            live = self._live()
        self._stopped = stopped & live

    def _thaw(self) -> None:
        """Let the agent's processes run again: those the last freeze stopped (stopped, none of
        them could start another; a process killed since gets a harmless signal)."""
        self._kill(self._stopped, signal.SIGCONT)
        self._stopped = set()

    def _end_game_processes(self) -> None:
        """Kill what the game started (its process if still there, and anything it left), let the
        worker report the end of the game, and stop the worker until the next game."""
        self._kill_all(lambda: self._live() - self._before_game)
        if self.alive and self._game_seq is not None:
            self._thaw()
            self._wait(self._game_seq, SYNC_TIMEOUT, ending=True)
        self._game_seq = None
        if self.alive:
            self._freeze()

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


def _worker_environment() -> dict[str, str]:
    """The referee's environment, with numeric libraries held to one thread: an idle pool of
    OpenBLAS/OpenMP threads spins, and every thread's CPU time is the agent's."""
    env = dict(os.environ)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        env.setdefault(name, "1")
    return env


def _status_text(reply: dict, default: str) -> str:
    status = reply.get("status")
    if not isinstance(status, int) or not 0 <= status < 1 << 16:
        return default
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else "?"
        return f"the game process was killed by signal {number} ({name})"
    return f"the game process exited with code {os.WEXITSTATUS(status)}"
