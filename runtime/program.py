"""An agent that is a program in any language, run by its worker (runtime/worker.py) inside the
agent's jail and spoken to over its standard input and output: the line protocol of
docs/protocol.md.

The worker starts the program after its lock-down, so the program is in the agent's jail, control
groups and limits, and the referee charges and freezes it with the worker (runtime/sandbox.py). The
worker then relays: the referee's requests become play-level lines (`start`, the position and the
legal actions, `end of game`); the program's lines are its answers, or, when they start with `{`,
analysis-level calls of the agents' API (`Calls`), answered at once from the worker's `Rules`. The
program is not forked per game (a node or a JVM cannot be forked from outside): it lives for the
whole stage, and what it learns carries over from one game to the next.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..gdl.diagnostics import LudicaError
from . import limits
from .api import Rules, StageView, count_and_seed, seat

VERSION = 1
MAX_LINE = 1 << 20  # bytes of one line from the program: far more than any honest call or answer
MOVE_TEXT = 200  # characters of an answer passed on as a move's text
OUT_OF_TURN = 3  # lines written out of turn that are reported word for word (the rest only counted)
_INTEGER = re.compile(r"-?\d{1,12}")


def unanswered(what: str) -> str:
    """Said of a program out of time with `what` it did not send: most often it wrote its line
    and never flushed it, so the line sat in its own buffer."""
    return (f"{what}: did it flush its output? (Python: print(..., flush=True); C: fflush(stdout); "
            "docs/protocol.md)")


NO_READY = "no `ready` line received"  # the analysis: the program never said it was prepared
NO_MOVE = "no answer to the move request"
NO_PONDER = "no answer to an observation (a program answers each `observe` line with `ponder`)"
PONDER = "ponder"  # a program's answer to an observation


class ProgramFailed(LudicaError):
    """The program exited, or broke the protocol (a line over MAX_LINE bytes)."""


class Lines:
    """The program's standard input and output as lines: written whole, read one at a time with a
    cap on their length; what the program wrote that nobody asked for can be dropped and told."""

    def __init__(self, to_program: int, from_program: int):
        self.out, self.inp = to_program, from_program
        self._buf = bytearray()

    def write(self, *lines: str) -> None:
        data = "".join(line + "\n" for line in lines).encode()
        try:
            while data:
                data = data[os.write(self.out, data):]
        except OSError as e:  # a closed pipe: the program is gone
            raise ProgramFailed(f"the program stopped reading its input ({e.strerror})") from None

    def read(self) -> str:
        """The next non-empty line (without its end), waiting for it; ProgramFailed at the end of
        the program's output or past MAX_LINE bytes."""
        while (line := self._buffered()) is None:
            self._take()
        return line

    def _buffered(self) -> str | None:
        while (end := self._buf.find(b"\n")) >= 0:
            line = self._buf[:end].decode(errors="replace").strip()
            del self._buf[:end + 1]
            if line:
                return line
        return None

    def _take(self) -> None:
        if len(self._buf) > MAX_LINE:
            raise ProgramFailed(f"the program wrote a line of over {MAX_LINE:,} bytes")
        chunk = os.read(self.inp, 1 << 16)
        if not chunk:
            raise ProgramFailed("the program closed its output")
        self._buf += chunk

    def drop_pending(self) -> tuple[int, list[str]]:
        """Drop the lines written since the last answer (an answer repeated, a stray print, a move
        out of turn): they must not be taken for the answer to the next question. Returns how many
        there were and the first OUT_OF_TURN of them (a program that floods its output is not kept)."""
        count, first = 0, list[str]()
        os.set_blocking(self.inp, False)
        try:
            while True:
                while (line := self._buffered()) is not None:
                    count += 1
                    if len(first) < OUT_OF_TURN:
                        first.append(line[:MOVE_TEXT])
                if len(self._buf) > MAX_LINE:
                    raise ProgramFailed(f"the program wrote a line of over {MAX_LINE:,} bytes")
                chunk = os.read(self.inp, 1 << 16)
                if not chunk:
                    break
                self._buf += chunk
        except BlockingIOError:
            pass
        finally:
            os.set_blocking(self.inp, True)
        return count, first


def _state(value: Any) -> np.ndarray:
    """A state sent by the program: a list of integers (the kernels check the rest)."""
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ValueError("a state is a list of integers (the position line's numbers)")
    state = np.array(value, dtype=np.int64)
    if state.size and (state.min() < -2**31 or state.max() >= 2**31):
        raise ValueError("a state's numbers are 32-bit integers")
    state = state.astype(np.int32)
    state.flags.writeable = False
    return state


def _integer(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{what} is an integer")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} is a string")
    return value


def stage_value(view: StageView, api: Rules) -> dict:
    """The stage as a program sees it: the StageView, its states and moves as the wire writes them."""
    start = view.initial_state
    return {"name": view.name, "rows": view.rows, "cols": view.cols, "shape": view.shape,
            "blocked": [list(cell) for cell in view.blocked], "players": list(view.players),
            "action_bound": view.action_bound, "initial_state": [int(v) for v in start],
            "legal_first_moves": [str(m) for m in view.legal_first_moves],
            "legal_first_actions": [int(a) for a in api.legal_actions(start)],
            "description": view.description, "arena": _arena_config(view.description), "hidden": view.hidden}


def _arena_config(description: str | None) -> dict | None:
    """The Othello AI Arena's config of the stage, rule flags and all, when the rules are revealed
    (GGP mode) and the Arena can express the stage; else None (runtime/external/arena.js then
    builds what the view shows, without the flags)."""
    if description is None:
        return None
    from ..gdl import loads, to_arena

    return to_arena(loads(description))


class Calls:
    """The analysis level: one JSON call in, one JSON answer out, over the agents' API (`Rules`:
    the worker's own, or its rules oracle's). `clock()` gives (budget, used) of the phase running."""

    def __init__(self, api: Rules, view: StageView, clock: Callable[[], tuple[float, float]]):
        self.api, self.view, self.clock = api, view, clock
        self.calls = 0
        self._table: dict[str, Callable[[dict], Any]] = {
            "stage": lambda c: stage_value(self.view, self.api),
            "legal_moves": lambda c: [str(m) for m in api.legal_moves(_state(c.get("state")))],
            "legal_actions": lambda c: [int(a) for a in api.legal_actions(_state(c.get("state")))],
            "apply": lambda c: self._child(*api.apply(_state(c.get("state")), _text(c.get("move"), "move"))),
            "apply_action": lambda c: self._child(*api.apply_action(_state(c.get("state")),
                                                                     _integer(c.get("action"), "action"))),
            "to_move": lambda c: int(api.to_move(_state(c.get("state")))),
            "is_terminal": lambda c: bool(api.is_terminal(_state(c.get("state")))),
            "returns": lambda c: [float(r) for r in api.returns(_state(c.get("state")))],
            "board": lambda c: np.asarray(api.board(_state(c.get("state")))).tolist(),
            "move_of": lambda c: str(api.move_of(_integer(c.get("action"), "action"))),
            "action_of": lambda c: int(api.action_of(_text(c.get("move"), "move"))),
            "parse_move": lambda c: str(api.parse_move(_text(c.get("text"), "text"))),
            "evaluate": lambda c: api.evaluate(_state(c.get("state")), seat(_integer(c.get("player"), "player"))),
            "playouts": self._playouts,
            "observe": lambda c: np.asarray(api.observe(_state(c.get("state")))).tolist(),
            "sample_world": lambda c: [int(v) for v in api.sample_world(
                _state(c.get("state")), _integer(c.get("seed", 0), "seed"), _integer(c.get("budget", 20_000), "budget"))],
            "clock": self._clock,
        }

    def _child(self, state: np.ndarray, captured: int) -> dict:
        over = bool(self.api.is_terminal(state))
        return {"state": [int(v) for v in state], "captured": int(captured),
                "actions": [] if over else [int(a) for a in self.api.legal_actions(state)], "over": over}

    def _playouts(self, call: dict) -> dict:
        given = call.get("state")
        n, seed = count_and_seed(_integer(call.get("n"), "n"), _integer(call.get("seed", 0), "seed"))
        done = self.api.playouts(None if given is None else _state(given), n, seed=seed)
        return {"lengths": done.lengths.tolist(), "returns": done.returns.tolist(), "cut": int(done.cut)}

    def _clock(self, call: dict) -> dict:
        budget, used = self.clock()
        return {"budget": round(budget, 6), "used": round(used, 6), "remaining": round(max(0.0, budget - used), 6)}

    def answer(self, line: str) -> str:
        """The answer line to one call line."""
        self.calls += 1
        try:
            call = json.loads(line)
            if not isinstance(call, dict):
                raise ValueError("a call is a JSON object: {\"call\": NAME, ...}")
            name = call.get("call")
            handler = self._table.get(name) if isinstance(name, str) else None
            if handler is None:
                raise ValueError(f"no call {str(name)[:40]!r}; the calls are {', '.join(self._table)}")
            reply: dict = {"ok": True, "value": handler(call)}
        except Exception as e:  # the program's mistake is answered, never a forfeit
            kind = "BadJSON" if isinstance(e, json.JSONDecodeError) else type(e).__name__
            reply = {"ok": False, "error": kind, "message": str(e)[:500]}
        return json.dumps(reply, separators=(",", ":"), allow_nan=False)


def position_line(state) -> str:
    return " ".join(str(int(v)) for v in state)


def process_cpu(pid: int) -> float:
    """CPU seconds of a process and of its children it has reaped (/proc/PID/stat), 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


class Program:
    """One agent program for one stage: started, prepared, asked for moves game after game."""

    def __init__(self, argv: list[str], api: Rules, view: StageView, now: Callable[[], float]):
        self.api, self.view, self.now = api, view, now
        self._phase = (0.0, now())  # (budget, the worker's CPU seconds when the phase began)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None,
                                     close_fds=True, preexec_fn=_die_with_worker)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.lines = Lines(self.proc.stdin.fileno(), self.proc.stdout.fileno())
        self.calls = Calls(api, view, self._clock)
        self._stray: tuple[int, list[str]] = (0, [])  # lines nobody asked for, not yet told to the referee

    def _clock(self) -> tuple[float, float]:
        budget, started = self._phase
        return budget, self.now() + process_cpu(self.proc.pid) - started

    def _begin(self, budget: float) -> None:
        self._phase = (budget, self.now() + process_cpu(self.proc.pid))

    def _answer(self) -> str:
        """The program's next line that is not a call, answering its calls on the way."""
        while True:
            line = self.lines.read()
            if not line.startswith("{"):
                return line
            self.lines.write(self.calls.answer(line))

    def prepare(self, budget: float) -> None:
        """The analysis phase: the stage's name and `prepare B`, then calls until a line that is none."""
        self._begin(budget)
        self.lines.write(self.view.name.replace("\n", " "), f"prepare {budget:g}")
        self._answer()

    def start(self, seat: int, budget: float, seed: int) -> None:
        """A game begins: the program's seat, its clock, and its own seed (never the opponent's)."""
        self._drop()
        self.lines.write(f"start {seat} {budget:g} {seed}")

    def observe(self, state: list[int], remaining: float) -> None:
        """An observation on the opponent's turn, on a stage with hidden information: `observe` and
        the program's information state. The program answers `ponder`, as a bot of the OpenSpiel
        competition does, once it has thought as long as it likes on its own clock; its API calls
        are answered meanwhile. Any other answer is a move out of turn: told to the referee, ignored."""
        self._begin(remaining)
        self._drop()
        self.lines.write("observe " + position_line(state))
        answer = self._answer()
        if answer.lower() != PONDER:
            self._add_stray(1, [answer[:MOVE_TEXT]])

    def out_of_turn(self) -> tuple[int, list[str]]:
        """The lines the program wrote that nobody asked for since this was last asked: how many,
        and the first OUT_OF_TURN of them."""
        said, self._stray = self._stray, (0, [])
        return said

    def _drop(self) -> None:
        self._add_stray(*self.lines.drop_pending())

    def _add_stray(self, count: int, first: list[str]) -> None:
        had, kept = self._stray
        self._stray = (had + count, (kept + first)[:OUT_OF_TURN])

    def move(self, state: list[int], legal: list[str], remaining: float) -> str:
        """The program's move, as text (an action translated; anything else passed on as it is,
        for the referee's rules to judge)."""
        self._begin(remaining)
        self._drop()
        actions = [self.api.action_of(text) for text in legal]
        self.lines.write(position_line(state), " ".join(str(a) for a in actions))
        answer = self._answer()
        if _INTEGER.fullmatch(answer):
            try:
                return str(self.api.move_of(int(answer)))
            except (ValueError, OverflowError, IndexError):
                pass  # not an action of this game: the referee's illegal-move rule
        return answer[:MOVE_TEXT]

    def end(self, score: int | None) -> None:
        """`end of game` and the score (0 for a game broken off, which nobody won)."""
        self.lines.write("end of game", str(score or 0))

    def quit(self) -> None:
        try:
            self.lines.write("quit")
        except ProgramFailed:
            pass

    def exit_text(self) -> str:
        """How the program ended ("" while it runs)."""
        code = self.proc.poll()
        if code is None:
            for _ in range(50):  # it closed its output: it is ending
                time.sleep(0.002)
                code = self.proc.poll()
                if code is not None:
                    break
        if code is None:
            return ""
        if code < 0:
            number = -code
            name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else "?"
            return f"the program was killed by signal {number} ({name})"
        return f"the program exited with code {code}"


def _die_with_worker() -> None:
    limits.libc().prctl(limits.PR_SET_PDEATHSIG, signal.SIGKILL)
