"""The referee's side of an agent's worker process (runtime/worker.py): start it in its jail
(runtime/jail.py: a bubblewrap sandbox built from what the agent may see), hand it the stage, let
it analyse, fork a game process per game, ask for moves; charge its time from outside and kill
what overruns.

What is charged: the CPU time (user + system) of the agent's whole process tree
(runtime/accounting.py) from the moment a request is sent until its answer arrives, so a
multi-threaded or multi-process agent pays for every core it uses and a sleeping or blocked agent
pays nothing for waiting. Between requests every process of the agent is stopped (SIGSTOP, then
SIGCONT with the next request): an agent thinks only when asked, so nothing it leaves running
escapes the charge or slows its opponent. Against an agent that blocks for ever there is a
backstop: a request may not stay idle (no thread of the agent running or waiting for a CPU,
accounting.Idle) for longer than the time left plus one second. Time spent waiting for a CPU is
never idle, so a busy machine cannot forfeit an agent that is within its budget. The referee
polls every POLL seconds: CPU time over the budget or idle time over the backstop → the agent is
killed (its game process, or the whole worker during analysis) and the request times out; more
live processes than allowed, seen while it thinks or when it answers, likewise. Everything the
agent prints is drained by a thread of the referee; the first OUTPUT_KEPT bytes of each game are
kept in its log, the rest counted and dropped, so no amount of output can block the agent or harm
the referee. Messages carry sequence numbers: a late or forged reply is dropped, never taken for
the answer to another request.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import jail, protocol
from .protocol import text
from .accounting import DISK_WAIT, Idle, ProcessTree
from .cgroups import AgentGroup
from .limits import DEFAULTS
from .program import NO_MOVE, NO_PONDER, NO_READY, unanswered

POLL = 0.01
OUTPUT_KEPT = 16 << 10
# Idle seconds (no thread running or waiting for a CPU) the worker may spend getting ready: compiling
# a stage is CPU time, so only a worker that hangs reaches it. The agent is not charged.
START_IDLE = 60.0
SYNC_IDLE = 10.0  # for the worker's own (trusted) replies between games

# The worker, inside its jail. Its first act, when the referee is root: become nobody, which clears
# the two capabilities the jail left it for that (runtime/jail.py), then dumpable again (the kernel
# clears that flag on a change of uid, which would make the agent's own /proc/self files root's and
# unreadable to it; the rules oracle clears it again for itself). It dies with the sandbox
# (bubblewrap --die-with-parent kills the sandbox when the referee dies), and a worker whose referee
# is gone reads the end of its socket.
_WORKER = ("import ctypes, os, sys\n"
           "if os.geteuid() == 0:\n"
           f"    os.setgroups([]); os.setresgid(*[{jail.UNPRIVILEGED}] * 3); os.setresuid(*[{jail.UNPRIVILEGED}] * 3)\n"
           "    ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE\n"
           "from ludica.runtime.worker import main\n"
           "main(int(sys.argv[1]), '--isolate-rules' in sys.argv[2:])\n")
# What starts bubblewrap: setpriv sets the parent-death signal (it survives the exec of the shell
# and of bwrap), then the shell checks that its parent is still the referee (if the referee died
# first, nothing else would ever end the sandbox: bwrap's own --die-with-parent is set later, too
# late), writes itself into the agent's control groups (so the sandbox's first process is counted
# and capped from its first instruction: one added from outside could fork first), and execs
# bwrap. "$1" is the referee's pid, then the groups' cgroup.procs files, then -- and the command.
_START = ('[ "$PPID" = "$1" ] || exit 125; shift\n'
          'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift\n'
          'exec "$@"')


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
    reveal: bool = False  # GGP mode: the stage's text is handed to the agent
    isolate_rules: bool = False  # the rules in an oracle process of the agent's (runtime/oracle/)
    data: str | None = None  # a folder the user named for the agent: read-only at /agent/data
    # an agent program (runtime/program.py): its command as run in /agent, and its files copied
    # there (host path, executable); empty for a Python agent
    program: tuple[str, ...] = ()
    files: tuple[tuple[str, bool], ...] = ()

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

    def __init__(self, agent_path: str | None, stage_text: str, settings: Settings, name: str = ""):
        """`agent_path`: a Python agent's file; None for an agent program (`settings.program`)."""
        jail.require()
        self.agent_path, self.stage_text, self.settings = agent_path, stage_text, settings
        self.name = name  # the agent's name in the run (the referee's log)
        self.proc: subprocess.Popen | None = None
        self.lockdown: dict = {}
        self._before_game: set[int] = set()
        self._seq = 0
        self._game_seq: int | None = None  # the seq of the running game's `game` request
        self._closed = False
        self._stopped: set[int] = set()  # the processes the last freeze stopped
        # the agent's CPU time when the last freeze was done: what it uses from then until its next
        # request (a process of its that escaped the freeze) is charged to that request
        self._frozen_cpu: float | None = None
        self._oom_kills = 0  # the memory group's count, as last said
        self._disk_left = DISK_WAIT  # seconds blocked in the kernel not held as idle, for this stage (Idle)

    # --- life of the worker ----------------------------------------------------------------------

    def start(self) -> Answer:
        """Start the worker and wait until it is locked down."""
        self.launch()
        return self.wait_ready()

    def launch(self) -> None:
        """Start the worker in its jail without waiting for it (workers of several agents start
        side by side; starting is not charged: the agent's code is not loaded yet)."""
        self._sock, theirs = protocol.pair()
        limits = dict(DEFAULTS, **self.settings.limits)
        cell = jail.build(Path(self.agent_path) if self.agent_path else None,
                          Path(self.settings.data) if self.settings.data else None,
                          int(limits["tmp_mb"]), tuple((Path(f), x) for f, x in self.settings.files))
        self.record = cell.record
        command = cell.argv + ["--", sys.executable, "-c", _WORKER, str(theirs.fileno())]
        command += ["--isolate-rules"] * self.settings.isolate_rules
        memory = (int(limits["memory_mb"]) + 2 * int(limits["tmp_mb"])) << 20  # its processes, /tmp and /dev/shm
        self.group = AgentGroup.create(4 * self.settings.max_processes + 16, memory)
        groups = self.group.procs_files() if self.group is not None else []
        command = ["/bin/sh", "-c", _START, "sh", str(os.getpid()), *groups, "--", *command]
        if shutil.which("setpriv"):  # util-linux; without it, a referee killed within milliseconds of a launch
            command = ["setpriv", "--pdeathsig", "KILL", *command]  # leaves a sandbox until its worker's setup fails
        self.record["memory"] = (f"its processes together at most {memory >> 20} MiB (a memory control group: "
                                 "memfd and tmpfs pages count)" if self.group is not None and self.group.memory_bytes
                                 else "no memory control group here: only each process's address-space limit")
        try:
            self.proc = subprocess.Popen(command, pass_fds=(theirs.fileno(), *cell.fds), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                                         cwd="/", env={"PATH": "/usr/bin:/bin"})  # none of the referee's
        finally:
            theirs.close()
            cell.close_fds()
        self._sock.setblocking(False)
        self._reader = protocol.Reader(self._sock)
        self.tree = ProcessTree(self.proc.pid, self.group)
        self.drain = _Drain(self.proc.stdout)
        self.drain.start()
        self._send({"stage": self.stage_text, "reveal": self.settings.reveal, "limits": self.settings.limits})

    def wait_ready(self) -> Answer:
        """Wait until the launched worker has compiled the stage and locked itself down."""
        answer = self._wait(self._seq, START_IDLE)
        if answer.reply is not None:
            lockdown = answer.reply.get("lockdown")
            said = {str(k): str(v)[:300] for k, v in lockdown.items()} if isinstance(lockdown, dict) else {}
            self.lockdown = dict(said, **self.record)  # what the referee gave it, not what the worker says
            if answer.reply.get("ok") is not True:
                answer.failure, answer.detail = "crash", text(answer.reply, "error")
        elif answer.failure == "crash":  # e.g. bubblewrap could not build the jail: it said why
            printed, _ = self.drain.mark()
            if printed.strip():
                answer.detail += ": " + printed.strip()[-2000:]
        if not answer.failure:
            self._freeze()
        return answer

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def analyze(self, budget: float) -> Answer:
        """Load the agent's file and run `analyze` (or start the agent's program and let it
        prepare), under the analysis budget; on failure the worker is closed."""
        if self.settings.program or self.agent_path is None:
            request = {"op": "analyze", "budget": budget, "program": list(self.settings.program)}
        else:
            with open(self.agent_path, encoding="utf-8", errors="replace") as f:
                source = f.read()
            request = {"op": "analyze", "budget": budget, "source": source,
                       "agent": f"{jail.AGENT_DIR}/{Path(self.agent_path).name}"}
        answer = self._request(request, budget, whole=True)
        if answer.reply is not None and answer.reply.get("ok") is not True:
            answer.failure, answer.detail, answer.reply = "crash", text(answer.reply, "error"), None
        if answer.failure:
            self.close()
        return self._unanswered(answer, NO_READY)

    def start_game(self, seed: int, budget: float, seat: int = 0) -> Answer:
        """Fork a game process from the analysed strategy; its CPU time counts on the game clock.
        `seed`: this seat's own, which seeds its `random`; `seat`: the agent's (0 black, 1 white),
        for an agent program that reads it."""
        self._before_game = set(self.tree.members(rescan=True))
        self.drain.mark()
        answer = self._request({"op": "game", "seed": seed, "seat": seat, "budget": budget}, budget, whole=False)
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
        return self._unanswered(answer, NO_MOVE)

    @property
    def observes(self) -> bool:
        """Told its observations on the opponent's turns of a stage with hidden information: an agent
        program (docs/protocol.md); a Python agent's next call holds them all anyway."""
        return bool(self.settings.program)

    def observe(self, state: list[int], remaining: float) -> Answer:
        """Tell the agent's program what it observes on the opponent's turn (its information state),
        with `remaining` seconds on its clock: it may think on it before it answers `ponder`."""
        answer = self._request({"op": "observe", "state": state, "remaining": remaining}, remaining, whole=False)
        if answer.reply is not None and answer.reply.get("op") != "observed":
            answer.failure, answer.detail, answer.reply = "protocol", f"a {text(answer.reply, 'op', 40)!r} reply", None
        return self._unanswered(answer, NO_PONDER)

    def _unanswered(self, answer: Answer, what: str) -> Answer:
        """A program out of time: its detail says what it did not send, and asks whether it flushed."""
        if answer.failure == "timeout" and self.settings.program:
            answer.detail = f"{answer.detail}; {unanswered(what)}"
        return answer

    def end_game(self, score: int | None = None) -> tuple[str, int]:
        """End the game process (telling it its `score`) and kill whatever it left; returns its
        output (text, bytes)."""
        if self.alive and self._game_seq is not None:
            self._thaw()
            try:
                self._send({"op": "end", "score": score})
                self._wait(self._game_seq, 1.0, ending=True)  # idle: it is told to end, and does
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
        # all it does from here is charged, and all it did since it was frozen: a process of the agent's
        # may have escaped the freeze (one not yet stopped sends SIGCONT to one that was) to think
        # on the opponent's time, and pays for it now (min: where /proc counts, a process that has
        # ended since takes its time with it)
        cpu0 = self.tree.cpu_seconds()
        if self._frozen_cpu is not None:
            cpu0 = min(cpu0, self._frozen_cpu)
        self._thaw()
        try:
            self._send(message)
        except (protocol.ProtocolError, protocol.Closed) as e:
            answer = Answer(None, 0.0, 0.0, "crash", str(e))
        else:
            answer = self._wait(self._seq, budget + 1.0, budget, cpu0=cpu0)
        if answer.reply is not None and answer.reply.get("op") == "error":
            answer.failure, answer.detail, answer.reply = "crash", text(answer.reply, "error"), None
        if answer.failure == "crash" and self.group is not None and self.group.oom_kills() > self._oom_kills:
            self._oom_kills = self.group.oom_kills()
            answer.detail += _oom_text(self.group.memory_bytes)
        if answer.failure is None:
            live = self._live()
            if len(live) > self.settings.max_processes:
                answer.failure = "processes"
                answer.detail = f"{len(live)} processes, over the limit of {self.settings.max_processes}"
            else:
                self._freeze(live)  # until the next request
        if answer.failure:
            # a program lives for the whole stage: one that failed a request may be mid-answer, so
            # it goes with its worker (the entrant starts it again for the next game)
            if whole or self.settings.program:
                self.close()
            else:
                self._end_game_processes()
        return answer

    def _wait(self, seq: int, idle_limit: float, budget: float | None = None, ending: bool = False,
              cpu0: float = 0.0) -> Answer:
        """Wait for the reply to request `seq`, charging the CPU time used since `cpu0` against
        `budget` when given, and giving up after `idle_limit` seconds in which no process of the
        agent ran or waited to run (accounting.Idle). The worker's `game-ended` for the running
        game ends the wait too: a crash of the game process, unless the game is `ending`."""
        idle = Idle(self.tree, self._disk_left)
        try:
            return self._waited(seq, idle_limit, idle, budget, ending, cpu0)
        finally:
            self._disk_left -= idle.blocked

    def _waited(self, seq: int, idle_limit: float, idle: Idle, budget: float | None, ending: bool,
                cpu0: float) -> Answer:
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
            listed = self.tree.members() if reply is None else None
            if budget is not None:
                spent = max(0.0, self.tree.cpu_seconds(listed) - cpu0)
            if reply is not None:
                ended = reply.get("op") == "game-ended"
                if ended and self._game_seq is not None and reply.get("seq") == self._game_seq:
                    self._game_seq = None
                    if ending:
                        return Answer(reply, spent, wall)
                    return Answer(None, spent, wall, "crash", _status_text(reply, "the game process died"))
                if reply.get("seq") == seq:
                    return Answer(reply, spent, wall)
            # a reply to an earlier request, late, or a forged one: dropped, and the clocks still run
            members = listed if listed is not None else self.tree.members()
            if budget is not None and spent > budget:
                return Answer(None, spent, wall, "timeout", f"{spent:.2f} s of CPU time, over the {budget:.2f} s left")
            if idle.update(members) > idle_limit:
                return Answer(None, spent, wall, "timeout",
                              f"no answer after {idle.seconds:.1f} s in which it neither ran nor waited for a CPU "
                              f"or the disk (the backstop, {wall:.1f} s of real time; {spent:.2f} s of CPU"
                              + (f"; {idle.blocked:.1f} s blocked on the disk, of the {DISK_WAIT:g} s allowed a stage)"
                                 if idle.blocked else ")"))
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
        self._frozen_cpu = self.tree.cpu_seconds()

    def _thaw(self) -> None:
        """Let the agent's processes run again: those the last freeze stopped (stopped, none of
        them could start another; a process killed since gets a harmless signal)."""
        self._kill(self._stopped, signal.SIGCONT)
        self._stopped = set()
        self._frozen_cpu = None  # running by the referee's leave: not charged as an escape

    def _end_game_processes(self) -> None:
        """Kill what the game started (its process if still there, and anything it left), let the
        worker report the end of the game, and stop the worker until the next game."""
        self._kill_all(lambda: self._live() - self._before_game)
        if self.alive and self._game_seq is not None:
            self._thaw()
            self._wait(self._game_seq, SYNC_IDLE, ending=True)
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


def _oom_text(cap: int | None) -> str:
    """What a crash is said to come from when the kernel killed a process of the agent's for memory:
    its group's cap, or, where no cap could be set (a cgroup v1 memory folder that refused the limit),
    the machine's memory running out."""
    if cap is None:
        return "; the kernel killed a process of the agent's: the machine ran out of memory"
    return f"; the kernel killed a process of the agent's: their memory together reached its cap of {cap >> 20} MiB"


def _status_text(reply: dict, default: str) -> str:
    status = reply.get("status")
    if not isinstance(status, int) or not 0 <= status < 1 << 16:
        return default
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else "?"
        return f"the game process was killed by signal {number} ({name})"
    return f"the game process exited with code {os.WEXITSTATUS(status)}"
