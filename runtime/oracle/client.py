"""The agent's side of a rules oracle: `start` forks one and waits for its hello; `OracleRules` is
the agents' API (runtime/api.Rules) with every call a request to it (wire.py)."""
from __future__ import annotations

import mmap
import operator
import os
import signal
import socket
import sys
import threading
import traceback
from dataclasses import dataclass

import numpy as np

from ...compiler import Playouts, knowledge
from ...compiler import codes as K
from ...compiler.layout import ACTIONS, MoveTable, as_state, board_of, illegal_move, returns_of
from ...gdl.diagnostics import IllegalMoveError
from ...gdl.game import Move
from .. import limits, metrics, protocol
from ..api import Rules, StageView, count_and_seed, seat
from ..clock import cpu_seconds
from . import server, wire
from .wire import APPLY, APPLY_MOVE, EVALUATE, EVALUATED, LOOK, OBSERVE, OK, PLAYOUTS, REPLY, REQUEST, SPENT, WORLD

KNOWN = 1 << 15  # positions the agent's side remembers (then it forgets them all and starts again)


@dataclass
class Started:
    """What the worker has once its oracle said hello: the API and view for the agent, the setup
    (without the stage), the oracle's lockdown report; or why the oracle could not start."""

    api: OracleRules | None
    view: StageView | None
    setup: dict
    lockdown: dict
    error: str | None = None


def start(referee: socket.socket) -> Started:
    """Fork the oracle (it reads the setup from `referee`) and wait for its hello. Called first
    thing in the worker, before it reads anything from the referee itself."""
    data_here, data_there = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    control_here, control_there = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    spent = mmap.mmap(-1, SPENT.size)  # shared, anonymous: seen by the oracle and the agent's processes
    parent = os.getpid()
    sys.stdout.flush(), sys.stderr.flush()
    if os.fork() == 0:
        code = 1
        try:
            limits.libc().prctl(limits.PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() == parent:  # else the worker is already gone
                data_here.close()
                control_here.close()
                server.main(referee, data_there, control_there, spent)
                code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush(), sys.stderr.flush()
            os._exit(code)
    data_there.close()
    control_there.close()
    try:
        hello = protocol.Reader(data_here).read()
    except (protocol.Closed, protocol.ProtocolError) as e:
        return Started(None, None, {}, {}, f"the rules oracle ended before it started ({e})")
    said = hello.get("setup")
    setup = said if isinstance(said, dict) else {}
    if hello.get("ok") is not True:
        return Started(None, None, setup, {}, protocol.text(hello, "error"))
    api = OracleRules(data_here, control_here, hello, spent)
    return Started(api, api.view, setup, hello.get("lockdown") or {})


def start_alone(stage_text: str, reveal: bool = False) -> Started:
    """An oracle forked from this process as a worker forks one, fed the setup a referee sends
    (tests and benchmarks). Its memory limit is the worker's default above what it inherits: forked
    from a long test run's process, which holds gigabytes of address space, the default alone left it
    none to grow in (a MemoryError mid-request)."""
    referee, worker = protocol.pair()
    memory = limits.address_space_mb() + limits.DEFAULTS["memory_mb"]
    protocol.send(referee, {"stage": stage_text, "reveal": reveal, "limits": {"memory_mb": memory}, "seq": 1})
    started = start(worker)
    referee.close()
    worker.close()
    return started


class OracleRules(Rules):
    """The agents' API (runtime/api.Rules) answered by a rules oracle: the same methods, values and
    errors as the in-process RulesApi, beside which it stands (it holds no game, only the board's
    moves). Thread-safe; usable in the process that made it and, after `adopt`, in a game process."""

    def __init__(self, channel: socket.socket, control: socket.socket, hello: dict, spent: mmap.mmap):
        v = hello["view"]
        self._rows, self._cols, self._width = int(v["rows"]), int(v["cols"]), int(hello["width"])
        self._placements = bool(hello["placements_only"])
        self._moves = MoveTable(self._rows, self._cols, self._placements)
        start = np.array(v["initial_state"], dtype=np.int32)
        start.flags.writeable = False
        self.view = StageView(name=v["name"], rows=self._rows, cols=self._cols, shape=v["shape"],
                              blocked=tuple(tuple(cell) for cell in v["blocked"]), players=tuple(v["players"]),
                              action_bound=int(v["action_bound"]),
                              initial_state=start,
                              legal_first_moves=tuple(self._moves.parse(t) for t in v["legal_first_moves"]),
                              description=v["description"], hidden=bool(v.get("hidden")))
        self._control, self._spent = control, spent
        self._known: dict[bytes, tuple[tuple[int, ...], bool, int]] = {}
        self.adopt(channel)

    def cpu_seconds(self) -> float:
        """This process's CPU time and the oracle's: what the referee charges for the agent's calls
        (the agent's Clock reads this: runtime/clock.py)."""
        return cpu_seconds() + SPENT.unpack_from(self._spent)[0]

    # --- channels ---

    def open_channel(self) -> socket.socket:
        """A new channel to the oracle, for a game process about to be forked (see `adopt`)."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(self._control, [b"c"], [theirs.fileno()])
        finally:
            theirs.close()
        return mine

    def adopt(self, channel: socket.socket) -> None:
        """Use `channel` from this process on (the game process's first act; its parent's channel
        is left to its parent)."""
        old = getattr(self, "_channel", None)
        if old is not None and old is not channel:
            old.close()
        self._channel = channel
        self._pid, self._lock = os.getpid(), threading.Lock()  # this process asks from now on

    def _reset(self) -> None:
        """After an exchange cut short: its reply may still come, so the channel is out of step.
        Leave it (the oracle then drops its request) and ask on a new one."""
        self._channel.close()
        try:
            self._channel = self.open_channel()
        except OSError:
            pass  # the oracle is gone: the next call says so

    def close(self) -> None:
        """Let go of the oracle (it ends once the last process holding its control socket does)."""
        self._channel.close()
        self._control.close()

    def _ask(self, op: int, a: int, b: int, payload: bytes) -> bytes:
        if os.getpid() != self._pid:
            raise RuntimeError("with --isolate-rules the rules API answers in the agent's own process (and its "
                               "game process), not in processes the agent starts: use threads, or api.playouts")
        if not -1 << 63 <= a < 1 << 63 or not -1 << 63 <= b < 1 << 63:
            raise OverflowError("Python int too large to convert to C long")
        if len(payload) > wire.MAX_REQUEST:  # the oracle would hang up: refused as the API refuses it
            raise ValueError(f"not a state: {len(payload) // 4:,} values, more than any state of this game "
                             f"(an information state holds at most {knowledge.MAX_LENGTH:,})")
        with self._lock:
            try:
                self._channel.sendall(REQUEST.pack(op, len(payload), a, b) + payload)
                reply = wire.receive(self._channel, REPLY, 1 << 62)
            except OSError as e:
                self._reset()
                raise RuntimeError(f"the rules oracle is gone ({e})") from None
            except BaseException:  # e.g. the agent's own alarm signal, in the middle of the exchange
                self._reset()
                raise
        if reply is None:
            raise RuntimeError("the rules oracle is gone (its channel closed)")
        (status, _), body = reply
        if status == OK:
            return body
        raise wire.error_of(status, body)

    # --- what the oracle says of a position, kept ---

    def _key(self, state) -> bytes:
        return as_state(state).tobytes()

    def _describe(self, state) -> tuple[tuple[int, ...], bool, int]:
        key = self._key(state)
        known = self._known.get(key)
        if known is None:
            known = self._keep(key, self._ask(LOOK, 0, 0, key), 0)[1]
        return known

    def _keep(self, key: bytes, body: bytes, at: int) -> tuple[int, tuple[tuple[int, ...], bool, int]]:
        taken, actions, over, winner = wire.read_described(body, at)
        known = (actions, over, winner)
        if len(self._known) >= KNOWN:
            self._known.clear()
        self._known[key] = known
        return taken, known

    def _child(self, body: bytes) -> tuple[np.ndarray, int]:
        size = 4 * self._width
        child = np.frombuffer(body, np.int32, self._width)  # read-only: a value, like the game's states
        taken, _ = self._keep(body[:size], body, size)
        return child, taken

    # --- the API (runtime/api.Rules) ---

    def _move(self, move: Move | str) -> Move:
        return move if isinstance(move, Move) else self._moves.parse(str(move))

    def legal_moves(self, state: np.ndarray) -> list[Move]:
        return list(self._moves.listed(list(self._describe(state)[0])))

    def apply(self, state: np.ndarray, move: Move | str) -> tuple[np.ndarray, int]:
        move = self._move(move)
        key = self._key(state)
        code = self._moves.code(move)
        if code == K.NOT_A_MOVE or (self._placements and code >= self._rows * self._cols):
            # off the board, or a piece move where there are none: never legal, refused as the game refuses it
            raise illegal_move(move, tuple(self.legal_moves(state)), state)
        try:
            return self._child(self._ask(APPLY_MOVE, code, 0, key))
        except IllegalMoveError:  # only its message crossed: the same error, with its move and position
            raise illegal_move(move, tuple(self.legal_moves(state)), state) from None

    def legal_actions(self, state: np.ndarray) -> list[int]:
        return list(self._describe(state)[0])

    def apply_action(self, state: np.ndarray, action: int) -> tuple[np.ndarray, int]:
        if action.__class__ is not int:
            action = operator.index(action)
        if not K.PASS_CODE <= action < ACTIONS:  # never legal, refused as the game refuses it
            raise illegal_move(action, tuple(self.legal_moves(state)), state)
        try:
            return self._child(self._ask(APPLY, action, 0, self._key(state)))
        except IllegalMoveError:
            raise illegal_move(action, tuple(self.legal_moves(state)), state) from None

    def move_of(self, action: int) -> Move:
        return self._moves.move_of(action)

    def action_of(self, move: Move | str) -> int:
        return self._moves.action_of(self._move(move))

    def to_move(self, state: np.ndarray) -> int:
        return int(state[self._rows * self._cols + K.TO_MOVE])

    def is_terminal(self, state: np.ndarray) -> bool:
        return self._describe(state)[1]

    def returns(self, state: np.ndarray) -> tuple[float, float]:
        _, over, winner = self._describe(state)
        return returns_of(winner if over else None)

    def board(self, state: np.ndarray) -> np.ndarray:
        return board_of(state, self._rows, self._cols)

    def evaluate(self, state: np.ndarray, player: int) -> dict[str, float]:
        key, player = self._key(state), seat(player)
        return metrics.Metrics(*EVALUATED.unpack(self._ask(EVALUATE, player, 0, key))).as_dict()

    def playouts(self, state: np.ndarray | None, n: int, seed: int = 0) -> Playouts:
        n, seed = count_and_seed(n, seed)
        start = self.view.initial_state if state is None else state
        return wire.read_playouts(self._ask(PLAYOUTS, n, seed, self._key(start)))

    def parse_move(self, text: str) -> Move:
        return self._moves.parse(text)

    def observe(self, state: np.ndarray) -> np.ndarray:
        body = self._ask(OBSERVE, 0, 0, self._key(state))
        return np.frombuffer(body, np.int32).reshape(-1, self._rows, self._cols).copy()

    def sample_world(self, state: np.ndarray, seed: int = 0, budget: int = 20_000) -> np.ndarray:
        budget, seed = count_and_seed(budget, seed)
        return np.frombuffer(self._ask(WORLD, seed, budget, self._key(state)), np.int32, self._width)
