"""An agent's worker process: `python -m ludica.runtime.worker FD_IN FD_OUT`.

It runs the agent and nothing else, never inside the referee. In order:
1. reads its setup (the stage's text, the agent's file, the limits) from FD_IN;
2. compiles the stage and warms every API call (the numba cache is read while it may still be);
3. locks itself down (runtime/limits.py: resource limits, no network, an unprivileged user when
   started as root) — from here on, the agent's code is untrusted;
4. imports the agent file and, when told, runs `analyze(stage, api, clock)`;
5. for each game, forks a game process from the analysed strategy: every game starts from the
   same strategy, and a game that crashes leaves the next game's strategy intact. The game
   process answers move requests until the referee ends the game.

Everything the agent prints goes to this process's stdout/stderr, which the referee drains and
caps; the protocol has channels of its own (runtime/protocol.py).
"""
from __future__ import annotations

import os
import random
import sys
import traceback
import types

import numpy as np

from . import limits, protocol
from .api import RulesApi, stage_view
from .clock import Clock

ERROR_TEXT = 4000  # characters of a traceback sent back
MOVE_TEXT = 200  # characters of a move's text sent back


def _error() -> str:
    text = traceback.format_exc()
    return text if len(text) <= ERROR_TEXT else "…" + text[-ERROR_TEXT:]


def load_agent(source: str, path: str) -> types.ModuleType:
    """The agent file as a module, from its text (read by the referee: after the lockdown the
    file itself may be hidden or out of reach)."""
    module = types.ModuleType("ludica_agent")
    module.__file__ = path
    sys.modules["ludica_agent"] = module
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def _warm(api: RulesApi, start) -> None:
    """Call every API operation once, on read-only states (as the API gives) and on writeable
    copies (numba compiles each kind apart), so no kernel is compiled after the lockdown."""
    for state in (start, start.copy()):
        moves = api.legal_moves(state)
        if moves:
            api.apply(state, moves[0])
        api.is_terminal(state), api.returns(state), api.board(state), api.to_move(state)
        api.evaluate(state, 0)
        api.playouts(state, 2, seed=0)


def _play(reader: protocol.Reader, fd_out: int, strategy, game, seed: int) -> None:
    """The game process: answer move requests until told the game is over. The referee sends
    nothing between `game` and this process's `game-ready`, so the reader it inherits holds no
    message that its parent would read again."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    protocol.send(fd_out, {"op": "game-ready"})
    while True:
        request = reader.read()
        if request.get("op") != "move":
            return
        state = np.array(request["state"], dtype=np.int32)
        state.flags.writeable = False
        legal = [game.parse_move(t) for t in request["legal"]]
        try:
            move = strategy(state, legal, Clock(request["remaining"]))
            text = str(move)[:MOVE_TEXT]
            protocol.send(fd_out, {"op": "move", "move": text})
        except Exception:
            protocol.send(fd_out, {"op": "error", "error": _error()})
            return


def main(fd_in: int, fd_out: int) -> None:
    from ..compiler import compile as compile_stage
    from ..gdl import loads

    reader = protocol.Reader(fd_in)
    setup = reader.read()
    game = compile_stage(loads(setup["stage"]))
    api = RulesApi(game)
    view = stage_view(game, setup["stage"] if setup.get("reveal") else None)
    _warm(api, view.initial_state)
    report = limits.lock_down(setup["limits"], setup["hide"])
    try:
        agent = load_agent(setup["source"], setup["agent"])
        analyze = agent.analyze
    except Exception:
        protocol.send(fd_out, {"op": "ready", "ok": False, "error": _error(), "lockdown": report})
        return
    protocol.send(fd_out, {"op": "ready", "ok": True, "lockdown": report})

    request = reader.read()  # {"op": "analyze", "budget": seconds}
    try:
        strategy = analyze(view, api, Clock(request["budget"]))
        ok = callable(strategy)
        error = None if ok else f"analyze returned {type(strategy).__name__}, not a callable strategy"
    except Exception:
        ok, error = False, _error()
    protocol.send(fd_out, {"op": "analysed", "ok": ok, "error": error})
    if not ok:
        return
    while True:
        request = reader.read()
        if request.get("op") == "quit":
            return
        if request.get("op") != "game":  # e.g. the `end` of a game whose process already died
            continue
        sys.stdout.flush(), sys.stderr.flush()
        child = os.fork()
        if child == 0:
            code = 0
            try:
                _play(reader, fd_out, strategy, game, int(request["seed"]))
            except BaseException:  # a broken pipe, an exit() from the agent: the game process ends
                code = 1
            finally:
                sys.stdout.flush(), sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(child, 0)
        protocol.send(fd_out, {"op": "game-ended", "status": status})


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
