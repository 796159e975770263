"""An agent's worker process, started by the referee (runtime/sandbox.py) in the agent's jail
(runtime/jail.py) with one socket.

It runs the agent and nothing else, never inside the referee. In order:
1. reads its setup (the stage's text, the limits) from the socket;
2. compiles the stage and warms every API call (from numba's cache, which the jail links in);
   with --isolate-rules, instead, forks a rules oracle (runtime/oracle/) that does 1 and 2 in
   a process of its own, and takes the view and an API that asks the oracle;
3. sets its limits (runtime/limits.py); from here on it runs untrusted code;
4. on `analyze` (the agent's source comes with it, so importing the file is charged as analysis),
   moves to /agent (its file, and its data folder as /agent/data) and runs the file's top level
   and `analyze(stage, api, clock)`;
5. on `game`, forks a game process from the analysed strategy: every game starts from the same
   strategy, and a game that crashes leaves the next game's strategy intact. The game process
   answers `move` requests until `end`. This process (the first of the agent's PID namespace,
   where it has one) reaps every process that ends, its game's or an orphan's.

An agent program (runtime/program.py: any language, over the line protocol of docs/protocol.md)
takes the place of 4 and 5: on `analyze` this process starts the program in /agent, becomes
non-dumpable, and relays: the referee's requests as play-level lines, the program's API calls
answered from `api`. It does not fork per game (a program lives for the stage), and ends when the
program does.

Every reply repeats the `seq` of its request. Everything the agent prints goes to this process's
stdout/stderr, which the referee drains and caps.
"""
from __future__ import annotations

import os
import random
import socket
import sys
import traceback
import types

import numpy as np

from ..compiler.jit import cache_use
from . import limits, oracle, protocol
from .api import Rules, StageView, compiled, rules_api
from .clock import Clock, cpu_seconds
from .jail import AGENT_DIR
from .program import Program, ProgramFailed

ERROR_TEXT = 4000  # characters of a traceback sent back
CRASH_TEXT = 120  # characters of an exception's message, and of the agent's line that raised it, said in one line
AGENT_MODULE = "ludica_agent"  # the agent file's module, as load_agent names it
MOVE_TEXT = 200  # characters of a move's text sent back


def _error() -> str:
    return crash_text(getattr(sys.modules.get(AGENT_MODULE), "__file__", None))


def crash_text(agent_file: str | None) -> str:
    """The exception being handled, as its traceback (at most ERROR_TEXT characters in all, its
    end kept), then a line that says it and where in the agent's own file it was raised, or the
    agent called what raised it: `IndexError: list index out of range (bot.py, line 6, in helper:
    return moves[99])`. The referee's message quotes that line (the agent's own text, bounded
    here; escaped where shown)."""
    _, error, tb = sys.exc_info()
    frames = [f for f in traceback.extract_tb(tb) if agent_file is not None and f.filename == agent_file]
    line = ""
    if error is not None and frames:
        said = _said(error)
        where, code = frames[-1], (frames[-1].line or "").strip()[:CRASH_TEXT]
        line = (f"\n{said} ({os.path.basename(where.filename)}, line {where.lineno}, in "
                f"{where.name[:CRASH_TEXT]}{': ' + code if code else ''})")
    text, room = traceback.format_exc().rstrip(), ERROR_TEXT - len(line)
    return (text if len(text) <= room else "…" + text[-room + 1:]) + line


def _said(error: BaseException) -> str:
    """An exception in one line: its type and message, whitespace collapsed (a message of many lines
    would end the line early), its notes left out (format_exception_only's last line may be one),
    bounded to CRASH_TEXT."""
    try:
        message = " ".join(str(error).split())
    except Exception:  # an agent's exception whose __str__ itself raises
        message = "(its message cannot be read)"
    kind = type(error).__name__
    return (f"{kind}: {message}" if message else kind)[:CRASH_TEXT]


def load_agent(source: str, path: str) -> types.ModuleType:
    """The agent file as a module, from its text (read by the referee: the file itself is hidden
    from the agent)."""
    module = types.ModuleType(AGENT_MODULE)
    module.__file__ = path
    sys.modules[AGENT_MODULE] = module
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def _reap() -> None:
    """Collect every ended child (orphans of the agent are adopted by this process)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _play(reader: protocol.Reader, sock: socket.socket, strategy, api: Rules, seq: int | None, seed: int,
          now) -> None:
    """The game process: answer move requests until told the game is over. The referee sends
    nothing between `game` and this process's `game-ready`, so the reader it inherits holds no
    message that its parent would read again. `seed` is this seat's own (runtime/seatseeds.py): the
    opponent's generators start elsewhere."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    protocol.send(sock, {"op": "game-ready", "seq": seq}, timeout=None)
    while True:
        request = reader.read()
        if request.get("op") != "move":
            return
        seq = request.get("seq")
        state = np.array(request["state"], dtype=np.int32)
        state.flags.writeable = False
        legal = [api.parse_move(t) for t in request["legal"]]
        try:
            move = strategy(state, legal, Clock(request["remaining"], now))
            protocol.send(sock, {"op": "move", "seq": seq, "move": str(move)[:MOVE_TEXT]}, timeout=None)
        except Exception:
            protocol.send(sock, {"op": "error", "seq": seq, "error": _error()}, timeout=None)
            return


def _analyse(reader, sock, view, api, now):
    """Wait for `analyze`, run it; the strategy (or the started program), or None (the reply said why)."""
    request = reader.read()
    seq = request.get("seq")
    if request.get("program"):
        return _prepare_program(sock, seq, request, view, api, now)
    try:
        os.chdir(AGENT_DIR)  # the agent opens its data by relative paths
        agent = load_agent(request["source"], request["agent"])
        strategy = agent.analyze(view, api, Clock(request["budget"], now))
        ok = callable(strategy)
        error = None if ok else f"analyze returned {type(strategy).__name__}, not a callable strategy"
    except Exception:
        ok, error, strategy = False, _error(), None
    sys.stdout.flush(), sys.stderr.flush()
    protocol.send(sock, {"op": "analysed", "seq": seq, "ok": ok, "error": error}, timeout=None)
    return strategy if ok else None


def _prepare_program(sock, seq, request, view: StageView, api: Rules, now) -> Program | None:
    """Start the agent's program in /agent and let it prepare (runtime/program.py)."""
    program = None
    try:
        os.chdir(AGENT_DIR)
        # this process holds the compiled rules and runs no agent code: out of the program's reach
        # before it starts (after, its first instructions could open /proc/PPID/mem first)
        limits.not_dumpable()
        program = Program([str(a) for a in request["program"]], api, view, now)
        program.prepare(float(request["budget"]))
        ok, error = True, None
    except ProgramFailed as e:
        ok, error = False, f"{e}" + (f"; {program.exit_text()}" if program is not None and program.exit_text() else "")
    except OSError as e:  # the command could not be started
        ok, error = False, f"the program could not be started: {e.strerror or e}"
    sys.stdout.flush(), sys.stderr.flush()
    protocol.send(sock, {"op": "analysed", "seq": seq, "ok": ok, "error": error}, timeout=None)
    return program if ok else None


def _serve_program(reader: protocol.Reader, sock: socket.socket, program: Program) -> None:
    """The games of a program, in this process (a program is not forked per game): each request
    relayed as play-level lines. A program that exits or breaks the protocol ends the worker with
    an `error` reply; the referee then starts it again for the next game, as it does a worker that died."""
    game_seq = None
    while True:
        request = reader.read()
        op, seq = request.get("op"), request.get("seq")
        try:
            if op == "quit":
                program.quit()
                return
            if op == "game":
                game_seq = seq
                program.start(int(request.get("seat", 0)), float(request.get("budget", 0)), int(request["seed"]))
                protocol.send(sock, {"op": "game-ready", "seq": seq}, timeout=None)
            elif op == "move":
                move = program.move(request["state"], request["legal"], float(request["remaining"]))
                protocol.send(sock, {"op": "move", "seq": seq, "move": move, "out_of_turn": program.out_of_turn()},
                              timeout=None)
            elif op == "observe":
                program.observe(request["state"], float(request["remaining"]))
                protocol.send(sock, {"op": "observed", "seq": seq, "out_of_turn": program.out_of_turn()},
                              timeout=None)
            elif op == "end" and game_seq is not None:
                program.end(request.get("score"))
                protocol.send(sock, {"op": "game-ended", "seq": game_seq, "status": 0}, timeout=None)
                game_seq = None
        except ProgramFailed as e:
            exit_text = program.exit_text()
            protocol.send(sock, {"op": "error", "seq": seq, "error": f"{e}" + (f"; {exit_text}" if exit_text else "")},
                          timeout=None)
            return


def main(fd: int, isolate: bool = False) -> None:
    sock = socket.socket(fileno=fd)
    rules: dict[str, str] = {}
    api: Rules
    asks: oracle.OracleRules | None = None  # the API as an oracle answers it (--isolate-rules)
    if isolate:  # the oracle reads the setup and compiles the stage; this process never sees the rules
        started = oracle.start(sock)
        reader, setup = protocol.Reader(sock), started.setup
        if started.error or started.api is None:
            # the setup is the referee's first message (seq 1), if the oracle died before saying it
            protocol.send(sock, {"op": "ready", "seq": setup.get("seq", 1), "ok": False,
                                 "error": f"the rules oracle did not start: {started.error}"}, timeout=None)
            return
        api = asks = started.api
        view = started.view
        rules = {"rules": "in an oracle process of their own in this sandbox: non-dumpable (no process of the "
                          "agent's can read its memory), its numba caches sealed, never running agent code",
                 "kernels": "the oracle: " + str(started.lockdown.get("kernels", "not said"))[:100]}
    else:
        reader = protocol.Reader(sock)
        setup = reader.read()
        game, view = compiled(setup["stage"], bool(setup.get("reveal")))
        game.forget_stage()  # the rules out of the agent's easy reach
        api = rules_api(game)
        rules = {"kernels": cache_use()}
    settings, seq = setup["limits"], setup.get("seq")
    del setup  # the rules' text is not kept in reach (GGP mode hands it over in the view)
    report = limits.lock_down(settings)
    protocol.send(sock, {"op": "ready", "seq": seq, "ok": True, "lockdown": dict(report, **rules)}, timeout=None)
    now = asks.cpu_seconds if asks is not None else cpu_seconds  # the agent's clock counts what it is charged
    strategy = _analyse(reader, sock, view, api, now)
    if strategy is None:
        return
    if isinstance(strategy, Program):
        _serve_program(reader, sock, strategy)
        return
    while True:
        request = reader.read()
        _reap()
        if request.get("op") == "quit":
            return
        if request.get("op") != "game":  # e.g. the `end` of a game whose process already died
            continue
        seq = request.get("seq")
        sys.stdout.flush(), sys.stderr.flush()
        channel = asks.open_channel() if asks is not None else None  # the game's own channel to the oracle
        child = os.fork()
        if child == 0:
            code = 0
            try:
                if asks is not None and channel is not None:
                    asks.adopt(channel)
                _play(reader, sock, strategy, api, seq, int(request["seed"]), now)
            except BaseException:  # a broken socket, an exit() from the agent: the game process ends
                code = 1
            finally:
                sys.stdout.flush(), sys.stderr.flush()
                os._exit(code)
        if channel is not None:
            channel.close()
        _, status = os.waitpid(child, 0)
        _reap()
        protocol.send(sock, {"op": "game-ended", "seq": seq, "status": status}, timeout=None)


if __name__ == "__main__":
    main(int(sys.argv[1]), "--isolate-rules" in sys.argv[2:])
