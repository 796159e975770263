"""The rules oracle's own process: it reads the setup, compiles the stage, locks itself down and
answers requests (wire.py) from the compiled game, on every channel it is handed, until its
worker lets go. It runs no agent code (see the package's docstring)."""
from __future__ import annotations

import mmap
import os
import select
import socket
import sys
import time
import traceback

import numpy as np

from ...compiler import CompiledDarkGame, CompiledGame, Playouts
from ...compiler import codes as K
from ...compiler.jit import cache_use
from ...gdl.diagnostics import LudicaError
from .. import limits, metrics, protocol
from ..api import DarkRulesApi, compiled, rules_api, seat
from . import wire
from .wire import (APPLY, APPLY_MOVE, EVALUATE, EVALUATED, FAILED, LOOK, MAX_REQUEST, OBSERVE, OK, PLAYOUTS, REPLY,
                   REQUEST, SPENT, WORLD)

BATCH_SECONDS = 0.005  # a long `playouts` runs in batches of about this long (see _Answers._playouts)


class _Answers:
    """What the oracle answers, request by request, from the compiled game (in-process answers:
    same values, same errors)."""

    def __init__(self, game):
        # the API's own answers where a stage hides information (an information state's position is
        # its view, its legal moves its tries, its worlds drawn: runtime/api.DarkRulesApi)
        self.api = rules_api(game)
        self.game = game.truth if isinstance(game, CompiledDarkGame) else game
        self.shape = metrics.shape_classes(self.game)  # corners and edges, for the Arena's evaluation

    def answer(self, op: int, a: int, b: int, payload: bytes, gone) -> tuple[int, bytes]:
        """(status, reply) to a request; `gone()` says whether its asker has left (a long request
        then stops: _Abandoned)."""
        try:
            return OK, self._answer(op, a, b, payload, gone)
        except _Abandoned:
            raise
        except Exception as e:
            return wire.failure(e)

    def _answer(self, op: int, a: int, b: int, payload: bytes, gone) -> bytes:
        game = self.game
        given = wire.state_of(payload)
        state = self.api.position_of(given)
        if op == LOOK:
            actions, over, winner = game.describe(state)
            if state is not given:  # an information state: its tries
                actions = self.api.legal_actions(given)
            return wire.described(0, actions, over, winner)
        if op == APPLY:
            return self._child(*game.apply_action_counted(state, a))
        if op == APPLY_MOVE:  # the agent's side refuses moves that cannot be legal, naming them
            return self._child(*game.apply_counted(state, game.move_of(a)))
        if op == EVALUATE:
            m = metrics.evaluate(game, state, seat(a), self.shape)
            return EVALUATED.pack(m.piece, m.mobility, m.corner, m.edge)
        if op == PLAYOUTS:
            return wire.playouts_reply(self._playouts(state, a, b, gone))
        if op == OBSERVE:
            return np.ascontiguousarray(self.api.observe(given), dtype=np.int32).tobytes()
        if op == WORLD:
            def between() -> None:  # between the search's restarts: stop if its asker has gone
                if gone():
                    raise _Abandoned

            api = self.api
            world = api.world(given, a, b, between) if isinstance(api, DarkRulesApi) else api.sample_world(given, a, b)
            return world.tobytes()
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
        return child.tobytes() + wire.described(taken, *self.game.describe(child))


class _Abandoned(LudicaError):
    """The asker of a long request left before its answer."""


def _hung_up(channel: socket.socket) -> bool:
    poller = select.poll()
    poller.register(channel, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
    return any(events & (select.POLLRDHUP | select.POLLHUP | select.POLLERR) for _, events in poller.poll(0))


def _serve_one(answers: _Answers, channel: socket.socket, spent: mmap.mmap) -> bool:
    """Answer one request on `channel`; False if the channel ended or broke the format."""
    try:
        request = wire.receive(channel, REQUEST, MAX_REQUEST)
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
    cache (see the package's docstring). Everything a request needs was warmed already."""
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    for name, module in list(sys.modules.items()):
        if name.startswith("ludica.compiler"):
            for value in vars(module).values():
                if isinstance(value, Dispatcher):
                    # numba sets _cache in Dispatcher's untyped __init__, which mypy does not read
                    value._cache = NullCache()  # type: ignore[attr-defined]


def main(referee: socket.socket, data: socket.socket, control: socket.socket, spent: mmap.mmap) -> None:
    """The oracle process: read the setup, compile, lock down, say hello, serve."""
    setup = protocol.Reader(referee).read()
    referee.close()  # the referee talks to the worker only
    text = setup.pop("stage", "")
    try:
        game, view = compiled(text, bool(setup.get("reveal")))
        report = dict(limits.lock_down(setup.get("limits")), kernels=cache_use())
        limits.not_dumpable()
        _seal_caches()
    except Exception:
        protocol.send(data, {"ok": False, "error": traceback.format_exc()[-4000:], "setup": setup}, timeout=None)
        return
    truth = game.truth if isinstance(game, CompiledDarkGame) else game
    assert isinstance(truth, CompiledGame)
    hello = {"ok": True, "setup": setup, "lockdown": report, "width": truth.n_cells + K.STATE_EXTRA,
             "placements_only": truth.placements_only,
             "view": {"name": view.name, "rows": view.rows, "cols": view.cols, "shape": view.shape,
                      "blocked": view.blocked, "players": view.players, "action_bound": view.action_bound,
                      "initial_state": view.initial_state.tolist(),
                      "legal_first_moves": [str(m) for m in view.legal_first_moves],
                      "description": view.description, "hidden": view.hidden}}
    SPENT.pack_into(spent, 0, time.process_time())
    protocol.send(data, hello, timeout=None)
    serve(game, control, data, spent)
