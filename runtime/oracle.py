"""The rules oracle of `--isolate-rules`: the stage's compiled rules in a process of their own, so
that an untrusted agent's process never holds them.

By default an agent's worker compiles the stage itself (runtime/worker.py): the API is fast (a
call is a kernel call), but the compiled tables sit in the agent's memory, and an agent that digs
into the runtime instead of using the API can read the rules from them. With isolation:

- The worker forks the oracle as its first act, before it reads anything. The oracle reads the
  setup (the stage's text) from the referee's socket, compiles and warms the stage, sets its
  limits (runtime/limits.py), makes itself non-dumpable and stops loading kernels from numba's
  cache, and hands the worker what the Arena shows (the StageView) and the setup without the
  stage. It lives in the agent's jail (runtime/jail.py), and no process there can read its
  memory: ptrace and /proc/PID/mem need a dumpable process or CAP_SYS_PTRACE, which no process
  in the jail has, and the seccomp filter refuses ptrace, process_vm_readv and pidfd_getfd. Its
  cache is sealed because the cache folder is writable by the agent: a kernel the oracle loaded
  from it later could be the agent's (numba's cache files are pickles). The worker then locks itself down as usual
  and runs the agent with an `OracleRules` for its API: same methods, same answers, same errors,
  every call a request to the oracle.
- The oracle runs no agent code. It is a process of the agent's (a child of its worker): it
  lives in the agent's control group, its CPU time is charged to the agent's clock, and it is
  stopped between requests with the rest of the agent, killed with it, counted in its processes.
- Channels: the analysis has one; each game process gets a fresh one, made by the worker before
  it forks the game (a game killed in mid-request leaves no half-read message for the next
  game). New channels reach the oracle over a control socket (SCM_RIGHTS). A channel that breaks
  the format is closed; every state is checked by the kernels (compiler/positions.misfit) before
  any table is read with it.
- The agent's side keeps what it was told, by state: a position's actions and outcome come with
  the `apply` that made it, so a search that applies a move, then lists the child's moves, pays
  one round trip per ply.

Wire format (little-endian): a request is REQUEST (op, payload bytes, two integers) then the
payload; a reply is REPLY (status, payload bytes) then the payload. States travel as their int32
bytes. A position is described by DESCRIBED (pieces taken by the move that made it, over,
winner, number of actions) and its actions as int32.
"""
from __future__ import annotations

import mmap
import operator
import os
import select
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from dataclasses import dataclass

import numpy as np

from ..compiler import codes as K
from ..compiler.game import ACTIONS, MoveTable, Playouts, as_state, board_of, illegal_text, returns_of
from ..compiler.jit import cache_use
from ..gdl.game import Move
from . import limits, metrics, protocol
from .api import RulesApi, StageView, compiled, count_and_seed, seat
from .clock import cpu_seconds

REQUEST = struct.Struct("<B3xIqq")
REPLY = struct.Struct("<B3xI")
DESCRIBED = struct.Struct("<qiii")
EVALUATED = struct.Struct("<4q")
SPENT = struct.Struct("<d")  # the oracle's CPU seconds, in memory shared with the agent's processes
LOOK, APPLY, APPLY_MOVE, EVALUATE, PLAYOUTS = range(1, 6)
OK, REFUSED, FAILED = 0, 1, 2  # REFUSED: a ValueError; FAILED: another exception ("Name: message")
MAX_REQUEST = 1 << 20  # bytes of a request's payload: a state is a few hundred
BATCH_SECONDS = 0.005  # a long `playouts` runs in batches of about this long (see _Answers._playouts)
KNOWN = 1 << 15  # positions the agent's side remembers (then it forgets them all and starts again)
PR_SET_DUMPABLE = 4
_ERRORS = {e.__name__: e for e in (OverflowError, MemoryError, TypeError, IndexError)}


# --- the oracle's side -------------------------------------------------------------------------


class _Answers:
    """What the oracle answers, request by request, from the compiled game (in-process answers:
    same values, same errors)."""

    def __init__(self, game):
        self.game = game
        self.shape = metrics.shape_classes(game)  # corners and edges, for the Arena's evaluation

    def answer(self, op: int, a: int, b: int, payload: bytes, gone) -> tuple[int, bytes]:
        """(status, reply) to a request; `gone()` says whether its asker has left (a long request
        then stops: _Abandoned)."""
        try:
            return OK, self._answer(op, a, b, payload, gone)
        except ValueError as e:
            return REFUSED, str(e).encode()
        except _Abandoned:
            raise
        except Exception as e:  # noqa: BLE001 - told to the agent, whose call raises it
            return FAILED, f"{type(e).__name__}: {e}".encode()

    def _answer(self, op: int, a: int, b: int, payload: bytes, gone) -> bytes:
        game = self.game
        state = _state(payload)
        if op == LOOK:
            return _described(0, *game.describe(state))
        if op == APPLY:
            return self._child(*game.apply_action_counted(state, a))
        if op == APPLY_MOVE:  # the agent's side refuses moves that cannot be legal, naming them
            return self._child(*game.apply_counted(state, game.move_of(a)))
        if op == EVALUATE:
            m = metrics.evaluate(game, state, seat(a), self.shape)
            return EVALUATED.pack(m.piece, m.mobility, m.corner, m.edge)
        if op == PLAYOUTS:
            done = self._playouts(state, a, b, gone)
            return struct.pack("<q", done.cut) + done.lengths.tobytes() + done.returns.tobytes()
        raise ValueError(f"no request {op}")

    def _playouts(self, state: np.ndarray, n: int, seed: int, gone) -> Playouts:
        """game.playouts, in batches of about BATCH_SECONDS (game g of a batch is numbered on, so
        they are the same games), asking between batches whether the asker is still there: a
        request left by a game process that was killed must not run on into the next game."""
        game, done, size, parts = self.game, 0, 16, []
        while True:
            t0 = time.perf_counter()
            part = game.playouts(min(size, n) if n > 0 else n, seed=seed, state=state, first_game=done)
            parts.append(part)
            done += len(part.lengths)
            if done >= n:
                break
            if gone():
                raise _Abandoned
            took = max(time.perf_counter() - t0, 1e-6)
            size = max(1, min(n - done, int(size * BATCH_SECONDS / took), 2 * size + 1))
        if len(parts) == 1:
            return parts[0]
        return Playouts(np.concatenate([p.lengths for p in parts]), np.concatenate([p.returns for p in parts]),
                        sum(p.cut for p in parts))

    def _child(self, child: np.ndarray, taken: int) -> bytes:
        return child.tobytes() + _described(taken, *self.game.describe(child))


class _Abandoned(Exception):
    """The asker of a long request left before its answer."""


def _hung_up(channel: socket.socket) -> bool:
    poller = select.poll()
    poller.register(channel, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
    return any(events & (select.POLLRDHUP | select.POLLHUP | select.POLLERR) for _, events in poller.poll(0))


def _state(data: bytes) -> np.ndarray:
    if len(data) % 4:
        raise ValueError(f"not a state: {len(data)} bytes")
    return np.frombuffer(data, np.int32)  # read-only; the kernels check the rest


def _described(taken: int, actions: list[int], over: bool, winner: int) -> bytes:
    return DESCRIBED.pack(taken, over, winner, len(actions)) + struct.pack(f"<{len(actions)}i", *actions)


def _message(sock: socket.socket, head: struct.Struct, limit: int) -> tuple[tuple, bytes] | None:
    """One message: (its header's fields, its payload), or None if the socket ends first, or the
    message is longer than `limit` or followed by more bytes (neither side sends a second message
    before the answer to the first). One recv in the usual case: each round trip is two process
    wake-ups, and a recv more would cost a third of one."""
    data = sock.recv(1 << 16)
    while 0 < len(data) < head.size:
        more = sock.recv(1 << 16)
        if not more:
            return None
        data += more
    if not data:
        return None
    fields = head.unpack_from(data)
    size = fields[1]  # REQUEST and REPLY both hold the payload's size second
    need = head.size + size
    if size > limit:
        return None
    parts, got = [data], len(data)
    while got < need:
        chunk = sock.recv(min(need - got, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        got += len(chunk)
    data = b"".join(parts) if len(parts) > 1 else data
    if len(data) != need:
        return None
    return fields, data[head.size:]


def _serve_one(answers: _Answers, channel: socket.socket, spent: mmap.mmap) -> bool:
    """Answer one request on `channel`; False if the channel ended or broke the format."""
    try:
        request = _message(channel, REQUEST, MAX_REQUEST)
        if request is None:
            return False
        (op, _, a, b), payload = request
        try:
            status, body = answers.answer(op, a, b, payload, lambda: _hung_up(channel))
        finally:
            SPENT.pack_into(spent, 0, time.process_time())  # before the reply: the asker's clock sees it at once
        if len(body) >= 1 << 32:
            status, body = FAILED, f"MemoryError: a reply of {len(body):,} bytes".encode()
        if len(body) < 1 << 16:
            channel.sendall(REPLY.pack(status, len(body)) + body)
        else:  # not copied once more
            channel.sendall(REPLY.pack(status, len(body)))
            channel.sendall(body)
        return True
    except (OSError, _Abandoned):  # the asker died in mid-request, closed its end, or left
        return False


def serve(game, control: socket.socket, first: socket.socket, spent: mmap.mmap) -> None:
    """Answer requests on every channel until the worker's control socket ends."""
    answers = _Answers(game)
    channels = {first.fileno(): first}
    poller = select.poll()
    poller.register(control, select.POLLIN)
    poller.register(first, select.POLLIN)
    while True:
        for fd, _ in poller.poll():
            if fd == control.fileno():
                try:
                    data, fds, _, _ = socket.recv_fds(control, 16, 8)
                except OSError:
                    return
                if not data:
                    return  # the worker is gone
                for number in fds:
                    try:
                        channel = socket.socket(fileno=number)
                    except OSError:  # not a socket
                        os.close(number)
                        continue
                    channel.setblocking(True)
                    channels[channel.fileno()] = channel
                    poller.register(channel, select.POLLIN)
            elif fd in channels and not _serve_one(answers, channels[fd], spent):
                poller.unregister(fd)
                channels.pop(fd).close()


def _seal_caches() -> None:
    """From now on the compiler's kernels compile what they lack instead of loading it from numba's
    cache (see the module docstring). Everything a request needs was warmed already."""
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    for name, module in list(sys.modules.items()):
        if name.startswith("ludica.compiler"):
            for value in vars(module).values():
                if isinstance(value, Dispatcher):
                    value._cache = NullCache()


def _oracle(referee: socket.socket, data: socket.socket, control: socket.socket, spent: mmap.mmap) -> None:
    """The oracle process: read the setup, compile, lock down, say hello, serve."""
    setup = protocol.Reader(referee).read()
    referee.close()  # the referee talks to the worker only
    text = setup.pop("stage", "")
    try:
        game, view = compiled(text, bool(setup.get("reveal")))
        report = dict(limits.lock_down(setup.get("limits")), kernels=cache_use())
        limits.libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        _seal_caches()
    except Exception:  # noqa: BLE001 - said to the worker, which tells the referee
        protocol.send(data, {"ok": False, "error": traceback.format_exc()[-4000:], "setup": setup}, timeout=None)
        return
    hello = {"ok": True, "setup": setup, "lockdown": report, "width": int(view.initial_state.shape[0]),
             "placements_only": game.placements_only,
             "view": {"name": view.name, "rows": view.rows, "cols": view.cols, "shape": view.shape,
                      "blocked": view.blocked, "players": view.players,
                      "initial_state": view.initial_state.tolist(),
                      "legal_first_moves": [str(m) for m in view.legal_first_moves],
                      "description": view.description}}
    SPENT.pack_into(spent, 0, time.process_time())
    protocol.send(data, hello, timeout=None)
    serve(game, control, data, spent)


# --- the agent's side --------------------------------------------------------------------------


@dataclass
class Started:
    """What the worker has once its oracle said hello: the API and view for the agent, the setup
    (without the stage), the oracle's lockdown report; or why the oracle could not start."""

    api: "OracleRules | None"
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
                data_here.close(), control_here.close()
                _oracle(referee, data_there, control_there, spent)
                code = 0
        except BaseException:  # noqa: BLE001 - the worker sees the channel end
            traceback.print_exc()
        finally:
            sys.stdout.flush(), sys.stderr.flush()
            os._exit(code)
    data_there.close(), control_there.close()
    try:
        hello = protocol.Reader(data_here).read()
    except (protocol.Closed, protocol.ProtocolError) as e:
        return Started(None, None, {}, {}, f"the rules oracle ended before it started ({e})")
    setup = hello.get("setup") if isinstance(hello.get("setup"), dict) else {}
    if hello.get("ok") is not True:
        return Started(None, None, setup, {}, protocol.text(hello, "error"))
    api = OracleRules(data_here, control_here, hello, spent)
    return Started(api, api.view, setup, hello.get("lockdown") or {})


def start_alone(stage_text: str, reveal: bool = False) -> Started:
    """An oracle forked from this process as a worker forks one, fed the setup a referee sends
    (tests and benchmarks)."""
    referee, worker = protocol.pair()
    protocol.send(referee, {"stage": stage_text, "reveal": reveal, "limits": {}, "seq": 1})
    started = start(worker)
    referee.close(), worker.close()
    return started


class OracleRules(RulesApi):
    """RulesApi (runtime/api.py) answered by a rules oracle: the same methods, values and errors.
    Thread-safe; usable in the process that made it and, after `adopt`, in a game process."""

    def __init__(self, channel: socket.socket, control: socket.socket, hello: dict, spent: mmap.mmap):
        v = hello["view"]
        self._rows, self._cols, self._width = int(v["rows"]), int(v["cols"]), int(hello["width"])
        self._placements = bool(hello["placements_only"])
        self._moves = MoveTable(self._rows, self._cols, self._placements)
        start = np.array(v["initial_state"], dtype=np.int32)
        start.flags.writeable = False
        self.view = StageView(name=v["name"], rows=self._rows, cols=self._cols, shape=v["shape"],
                              blocked=tuple(tuple(cell) for cell in v["blocked"]), players=tuple(v["players"]),
                              initial_state=start,
                              legal_first_moves=tuple(self._moves.parse(t) for t in v["legal_first_moves"]),
                              description=v["description"])
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
        with self._lock:
            try:
                self._channel.sendall(REQUEST.pack(op, len(payload), a, b) + payload)
                reply = _message(self._channel, REPLY, 1 << 62)
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
        message = body.decode(errors="replace")
        if status == REFUSED:
            raise ValueError(message)
        name, _, rest = message.partition(": ")
        raise _ERRORS.get(name, RuntimeError)(rest if name in _ERRORS else message)

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
        taken, over, winner, n = DESCRIBED.unpack_from(body, at)
        known = (struct.unpack_from(f"<{n}i", body, at + DESCRIBED.size), bool(over), winner)
        if len(self._known) >= KNOWN:
            self._known.clear()
        self._known[key] = known
        return taken, known

    def _child(self, body: bytes) -> tuple[np.ndarray, int]:
        size = 4 * self._width
        child = np.frombuffer(body, np.int32, self._width)  # read-only: a value, like the game's states
        taken, _ = self._keep(body[:size], body, size)
        return child, taken

    # --- the API ---

    def _move(self, move: Move | str) -> Move:
        return move if isinstance(move, Move) else self._moves.parse(str(move))

    def legal_moves(self, state) -> list[Move]:
        return list(self._moves.listed(list(self._describe(state)[0])))

    def apply(self, state, move: Move | str) -> tuple[np.ndarray, int]:
        move = self._move(move)
        key = self._key(state)
        code = self._moves.code(move)
        if code == K.NOT_A_MOVE or (self._placements and code >= self._rows * self._cols):
            # off the board, or a piece move where there are none: never legal, refused as the game refuses it
            raise ValueError(illegal_text(move, tuple(self.legal_moves(state))))
        return self._child(self._ask(APPLY_MOVE, code, 0, key))

    def legal_actions(self, state) -> list[int]:
        return list(self._describe(state)[0])

    def apply_action(self, state, action: int) -> tuple[np.ndarray, int]:
        if action.__class__ is not int:
            action = operator.index(action)
        if not K.PASS_CODE <= action < ACTIONS:  # never legal, refused as the game refuses it
            raise ValueError(illegal_text(action, tuple(self.legal_moves(state))))
        return self._child(self._ask(APPLY, action, 0, self._key(state)))

    def move_of(self, action: int) -> Move:
        return self._moves.move_of(action)

    def action_of(self, move: Move | str) -> int:
        return self._moves.action_of(self._move(move))

    def to_move(self, state) -> int:
        return int(state[self._rows * self._cols + K.TO_MOVE])

    def is_terminal(self, state) -> bool:
        return self._describe(state)[1]

    def returns(self, state) -> tuple[float, float]:
        _, over, winner = self._describe(state)
        return returns_of(winner if over else None)

    def board(self, state) -> np.ndarray:
        return board_of(state, self._rows, self._cols)

    def evaluate(self, state, player: int) -> dict[str, float]:
        key, player = self._key(state), seat(player)
        return metrics.Metrics(*EVALUATED.unpack(self._ask(EVALUATE, player, 0, key))).as_dict()

    def playouts(self, state, n: int, seed: int = 0) -> Playouts:
        n, seed = count_and_seed(n, seed)
        start = self.view.initial_state if state is None else state
        body = self._ask(PLAYOUTS, n, seed, self._key(start))
        (cut,) = struct.unpack_from("<q", body)
        n = (len(body) - 8) // 20
        lengths = np.frombuffer(body, np.int32, n, 8).copy()
        returns = np.frombuffer(body, np.float64, 2 * n, 8 + 4 * n).reshape(n, 2).copy()
        return Playouts(lengths, returns, cut)

    def parse_move(self, text: str) -> Move:
        return self._moves.parse(text)
