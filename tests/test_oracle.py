"""--isolate-rules: each agent's rules in an oracle process of its own (runtime/oracle/). The API
it answers is the in-process one, call for call, errors included; an agent that digs for the rules
finds them in its own memory without isolation and nowhere with it; the games are the same."""
from __future__ import annotations

import hashlib
import inspect
import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

import numpy as np
import pytest

from ludica import stages
from ludica.cli import main
from ludica.compiler import Playouts
from ludica.compiler import compile as compile_stage
from ludica.gdl import IllegalMoveError, load
from ludica.gdl.game import Move
from ludica.runtime import entrants as agents, oracle, seatseeds, tournament
from ludica.runtime.api import Rules, RulesApi, stage_view
from ludica.runtime.oracle import wire
from ludica.runtime.sandbox import AgentProcess, Settings

HERE = Path(__file__).parent / "agents"
# a stage of every kind of kernels: the Othello, placement and pieces families, and the generic form
STAGES = ["standard-8x8", "reverse-othello", "tic-tac-toe", "connect-four", "hex-11", "breakthrough", "ataxx",
          "custodian"]


def start_oracle(name: str, reveal: bool = False) -> oracle.Started:
    started = oracle.start_alone(stages.path(name).read_text(), reveal)
    assert started.error is None, started.error
    return started


def same_error(call_local, call_remote) -> str:
    with pytest.raises(Exception) as local:
        call_local()
    with pytest.raises(Exception) as remote:
        call_remote()
    assert type(remote.value) is type(local.value) and str(remote.value) == str(local.value)
    if isinstance(local.value, IllegalMoveError):  # the same move and position as data, too
        assert remote.value.move == local.value.move and remote.value.legal == local.value.legal
        assert np.array_equal(remote.value.state, local.value.state)
    return str(local.value)


@pytest.mark.parametrize("name", STAGES)
def test_the_oracle_answers_every_call_as_the_compiled_game_does(name):
    game = compile_stage(load(stages.path(name)))
    local, started = RulesApi(game), start_oracle(name)
    remote = started.api
    try:
        view = stage_view(game)
        for field in ("name", "rows", "cols", "shape", "blocked", "players", "legal_first_moves", "description"):
            assert getattr(started.view, field) == getattr(view, field), field
        assert np.array_equal(started.view.initial_state, view.initial_state)
        assert not started.view.initial_state.flags.writeable
        rng = random.Random(name)
        middle = None
        for _ in range(3):
            s, r = game.initial_state(), started.view.initial_state
            while True:
                assert remote.legal_moves(r) == local.legal_moves(s)
                assert remote.legal_actions(r) == local.legal_actions(s)
                assert remote.is_terminal(r) == local.is_terminal(s) and remote.returns(r) == local.returns(s)
                assert remote.to_move(r) == local.to_move(s)
                assert np.array_equal(remote.board(r), local.board(s))
                assert remote.evaluate(r, 0) == local.evaluate(s, 0) and remote.evaluate(r, 1) == local.evaluate(s, 1)
                if local.is_terminal(s):
                    break
                moves = local.legal_moves(s)
                move = rng.choice(moves)
                if rng.random() < 0.5:
                    named = str(move) if rng.random() < 0.3 else move  # a move may be given by its text
                    (s, taken), (r, taken_r) = local.apply(s, move), remote.apply(r, named)
                else:
                    action = local.action_of(move)
                    (s, taken), (r, taken_r) = local.apply_action(s, action), remote.apply_action(r, action)
                assert taken_r == taken and np.array_equal(r, s) and not r.flags.writeable
                if middle is None and len(moves) > 3:
                    middle = r
        for state in (middle, None):
            mine, theirs = local.playouts(state, 50, seed=7), remote.playouts(state, 50, seed=7)
            assert np.array_equal(mine.lengths, theirs.lengths) and np.array_equal(mine.returns, theirs.returns)
            assert mine.cut == theirs.cut and theirs.lengths.flags.writeable
        start = game.initial_state()
        illegal = [m for m in (Move.parse("a1"), Move.parse("z26"), Move.parse("a1-a2"))
                   if m not in local.legal_moves(start)]
        for move in illegal:
            assert same_error(lambda move=move: local.apply(start, move), lambda move=move: remote.apply(start, move)).startswith("illegal")
        same_error(lambda: local.apply(start, "nonsense"), lambda: remote.apply(start, "nonsense"))
        same_error(lambda: local.apply_action(start, -7), lambda: remote.apply_action(start, -7))
        same_error(lambda: local.apply_action(start, 10**6), lambda: remote.apply_action(start, 10**6))
        same_error(lambda: local.apply_action(start, "d3"), lambda: remote.apply_action(start, "d3"))
        same_error(lambda: local.move_of(10**6), lambda: remote.move_of(10**6))
        same_error(lambda: local.action_of(Move.parse("z26")), lambda: remote.action_of(Move.parse("z26")))
        same_error(lambda: local.playouts(start, -1), lambda: remote.playouts(start, -1))
        # found by a review: each of these once differed between the two (type, text, or no error)
        off = Move(None, (-1, 0))  # prints as 'a0', which does not parse back
        same_error(lambda: local.apply(start, off), lambda: remote.apply(start, off))
        for action in (2**63, -2**63 - 1, 2**31):
            same_error(lambda action=action: local.apply_action(start, action), lambda action=action: remote.apply_action(start, action))
        same_error(lambda: local.legal_moves(None), lambda: remote.legal_moves(None))
        same_error(lambda: local.is_terminal(None), lambda: remote.is_terminal(None))
        for player in (0.5, 2, -1):
            same_error(lambda player=player: local.evaluate(start, player), lambda player=player: remote.evaluate(start, player))
        for seed in (1.5, 2**64):
            same_error(lambda seed=seed: local.playouts(start, 2, seed=seed), lambda seed=seed: remote.playouts(start, 2, seed=seed))
        broken = start.copy()
        broken[0] = 9
        for bad in (broken, start[:-1], np.zeros((2, 3), np.int32)):
            assert same_error(lambda bad=bad: local.legal_moves(bad), lambda bad=bad: remote.legal_moves(bad)).startswith("not a state")
            same_error(lambda bad=bad: local.apply_action(bad, 0), lambda bad=bad: remote.apply_action(bad, 0))
            same_error(lambda bad=bad: local.playouts(bad, 2), lambda bad=bad: remote.playouts(bad, 2))
        assert remote.legal_moves(start) == local.legal_moves(start)  # the oracle is still there
    finally:
        remote.close()


def test_threads_may_share_the_oracle_and_a_forked_process_is_told_it_may_not():
    started = start_oracle("standard-8x8")
    api = started.api
    start = started.view.initial_state
    try:
        expected = {str(m): api.apply(start, m)[0].tobytes() for m in api.legal_moves(start)}
        wrong = []

        def hammer(seed: int) -> None:
            rng = random.Random(seed)
            for _ in range(300):
                move = rng.choice(api.legal_moves(start))
                if api.apply(start, move)[0].tobytes() != expected[str(move)]:
                    wrong.append(move)

        threads = [threading.Thread(target=hammer, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert wrong == []
        read, write = os.pipe()
        child = os.fork()
        if child == 0:
            try:
                api.playouts(start, 2)  # (what the agent was told already, it may read anywhere)
                os.write(write, b"answered")
            except RuntimeError as e:
                os.write(write, str(e).encode()[:500])
            os._exit(0)
        os.waitpid(child, 0)
        said = os.read(read, 1000).decode()
        assert "not in processes the agent starts" in said, said
        assert len(api.legal_moves(start)) == 4  # the parent's channel is intact
    finally:
        api.close()


def test_a_call_cut_short_by_the_agent_leaves_the_next_calls_right():
    """An agent's own alarm (a common way to keep time) interrupting a call in mid-exchange: its
    reply must not be read as the answer to the next call."""
    class Alarm(Exception):
        pass

    def ring(*_):
        raise Alarm

    started = start_oracle("standard-8x8")
    api, start = started.api, started.view.initial_state
    previous = signal.signal(signal.SIGALRM, ring)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(Alarm):
            api.playouts(start, 1_000_000, seed=1)  # tens of seconds
        signal.setitimer(signal.ITIMER_REAL, 0)
        game = compile_stage(load(stages.path("standard-8x8")))
        assert api.legal_moves(start) == game.legal_moves(start)
        child, taken = api.apply(start, "d3")
        assert np.array_equal(child, game.apply(start, game.parse_move("d3"))) and taken == 1
        assert api.evaluate(start, 0)["piece"] == 0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        api.close()


def test_a_long_request_left_by_its_asker_stops_and_does_not_hold_up_the_next():
    """A game process killed while the oracle plays its million playouts: the next game's first
    call is answered at once (the playouts stop between batches when their asker is gone)."""
    started = start_oracle("standard-8x8")
    api, start = started.api, started.view.initial_state
    try:
        leaving = api.open_channel()
        key = start.tobytes()
        leaving.sendall(oracle.REQUEST.pack(oracle.PLAYOUTS, len(key), 1_000_000, 0) + key)
        time.sleep(0.2)  # the oracle is at it
        leaving.close()
        t0 = time.monotonic()
        child, _ = api.apply(start, "d3")  # a question the oracle must answer
        assert len(api.legal_moves(child)) == 3
        assert time.monotonic() - t0 < 2.0  # not the ~20 s the playouts would take
    finally:
        api.close()


def test_an_oracle_forked_from_a_process_holding_gigabytes_still_has_the_workers_room():
    """start_alone forks from whatever process calls it: late in a long test run that process holds
    gigabytes of address space, and the oracle, limited to the worker's 2 GiB in all, had no room
    left to answer (CI: a MemoryError mid-request). Its limit counts from what it inherits."""
    program = ("import mmap\n"
               "from ludica import stages\n"
               "from ludica.runtime import oracle\n"
               "held = mmap.mmap(-1, 3 << 30)  # address space held, never touched\n"
               "api = oracle.start_alone(stages.path('tic-tac-toe').read_text()).api\n"
               "print(len(api.playouts(api.view.initial_state, 100_000, seed=1).lengths))\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.split() == ["100000"], done.stderr[-2000:]


def test_the_oracle_ends_when_its_worker_lets_go():
    started = start_oracle("tic-tac-toe")
    started.api.close()
    # the oracle's processes are this process's children: collected once they end
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        time.sleep(0.02)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)



def test_both_apis_implement_every_method_of_the_rules_protocol_with_its_signature():
    """RulesApi and OracleRules stand side by side, each declaring Rules: every method of the
    protocol is their own (not the protocol's empty body), with the protocol's signature."""
    methods = [name for name, value in vars(Rules).items() if callable(value) and not name.startswith("_")]
    assert {"legal_moves", "apply", "legal_actions", "apply_action", "evaluate", "playouts"} <= set(methods)
    for cls in (RulesApi, oracle.OracleRules):
        assert issubclass(cls, Rules)
        for name in methods:
            assert name in vars(cls), f"{cls.__name__}.{name} is missing: it would inherit the protocol's empty body"
            assert inspect.signature(vars(cls)[name]) == inspect.signature(vars(Rules)[name]), f"{cls.__name__}.{name}"
    assert not issubclass(oracle.OracleRules, RulesApi)  # no half-initialised base any more
    assert isinstance(RulesApi(compile_stage(load(stages.path("tic-tac-toe")))), Rules)


@pytest.mark.parametrize("error", [ValueError("illegal move 'j9': legal moves are a1"), OverflowError("too large"),
                                   MemoryError("a reply of 5,000,000,000 bytes"), TypeError("not an integer"),
                                   IndexError("index 9 is out of bounds"), KeyError("x")],
                         ids=lambda e: type(e).__name__)
def test_an_error_crosses_the_wire_as_the_same_exception(error):
    status, body = wire.failure(error)
    assert status == (wire.REFUSED if isinstance(error, ValueError) else wire.FAILED)
    back = wire.error_of(status, body)
    if isinstance(error, KeyError):  # not one an API call raises: named in a RuntimeError
        assert type(back) is RuntimeError and str(back) == "KeyError: 'x'"
    else:
        assert type(back) is type(error) and str(back) == str(error)


def test_a_description_and_playouts_cross_the_wire_unchanged():
    state = np.arange(12, dtype=np.int32)
    body = state.tobytes() + wire.described(3, [5, -1, 40], True, 1)
    assert wire.read_described(body, state.nbytes) == (3, (5, -1, 40), True, 1)
    assert np.array_equal(wire.state_of(body[:state.nbytes]), state)
    with pytest.raises(ValueError, match="not a state: 7 bytes"):
        wire.state_of(b"\0" * 7)
    done = Playouts(np.array([3, 7], np.int32), np.array([[1.0, -1.0], [0.0, 0.0]]), 1)
    back = wire.read_playouts(wire.playouts_reply(done))
    assert back.cut == 1 and np.array_equal(back.lengths, done.lengths) and np.array_equal(back.returns, done.returns)


def test_a_message_longer_than_its_limit_or_followed_by_more_is_refused():
    def received(data: bytes, limit: int = 64):
        here, there = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with here, there:
            there.sendall(data)
            there.shutdown(socket.SHUT_WR)
            return wire.receive(here, wire.REQUEST, limit)

    request = wire.REQUEST.pack(wire.LOOK, 8, 2, -3) + struct.pack("<2i", 7, 9)
    assert received(request) == ((wire.LOOK, 8, 2, -3), struct.pack("<2i", 7, 9))
    assert received(request, limit=4) is None
    assert received(request + b"more") is None
    assert received(request[:10]) is None


def test_a_non_editable_install_carries_the_oracle_package():
    """pyproject lists packages by name: a package it leaves out is missing from `pip install .`."""
    pyproject = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    assert "ludica.runtime.oracle" in pyproject["tool"]["setuptools"]["packages"]
    assert Path(oracle.__file__).name == "__init__.py"

def _digger(tmp_path: Path, game) -> Path:
    """rule_digger.py with the signature of a window of `game`'s compiled tables filled in."""
    tables = game._flat.tobytes()
    length = 256
    start = max(range(0, len(tables) - length, 4), key=lambda i: len(set(tables[i:i + length:4])))
    window = tables[start:start + length]
    source = (HERE / "rule_digger.py").read_text()
    source = source.replace('PREFIX = ""', f'PREFIX = "{window[:16].hex()}"')
    source = source.replace('DIGEST = ""', f'DIGEST = "{hashlib.sha256(window).hexdigest()}"')
    source = source.replace("LENGTH = 0", f"LENGTH = {length}")
    path = tmp_path / "rule_digger.py"
    path.write_text(source)
    return path


def _dig(path: Path, text: str, isolate: bool) -> tuple[dict[str, int], dict]:
    seat = AgentProcess(str(path), text, Settings(isolate_rules=isolate))
    try:
        assert seat.start().failure is None
        answer = seat.analyze(60.0)
        assert answer.failure is None, answer.detail
        output, _ = seat.drain.mark()
    finally:
        seat.close()
    (line,) = [l for l in output.splitlines() if l.startswith("found: ")]
    return {k: int(v) for k, v in (item.split("=") for item in line[7:].split())}, seat.lockdown


def test_an_agent_digging_for_the_rules_finds_them_in_process_and_nowhere_with_isolation(tmp_path):
    name = "reverse-othello"  # its end rule (fewest pieces win) is what a digger would want to read
    game = compile_stage(load(stages.path(name)))
    path = _digger(tmp_path, game)
    text = stages.path(name).read_text()
    found, _ = _dig(path, text, isolate=False)
    # the test can fail: without isolation, the compiled game and its tables are in the agent's process
    assert found["gc"] >= 1 and found["memory"] >= 1, found
    found, lockdown = _dig(path, text, isolate=True)
    assert "rules" in lockdown and lockdown["rules"].startswith("in an oracle process")
    if json.dumps(lockdown).find("none (") >= 0:
        pytest.skip("no namespaces here: other processes are visible to the agent")
    assert found == {"gc": 0, "frames": 0, "modules": 0, "memory": 0, "others": 0}, found


def _moves(out: Path) -> list[tuple[str, str, list[str], str]]:
    logs = [json.loads(p.read_text()) for p in sorted((out / "logs").rglob("*.json"))]
    return sorted((g["metadata"]["blackStrategy"], g["metadata"]["whiteStrategy"], [m["move"] for m in g["moves"]],
                   g["metadata"]["result"]) for g in logs)


def test_the_same_games_are_played_with_and_without_isolation(tmp_path):
    entrants = [agents.resolve("random"), agents.resolve("greedy"), agents.resolve("corners")]
    paths = [stages.path("small-board-6x6"), stages.path("connect-four")]
    played = []
    for isolate in (False, True):
        out = tmp_path / f"isolate-{isolate}"
        out.mkdir()  # one game secret for both: each seat is told the same seed in both runs
        seatseeds.keep(out, bytes(range(16)))
        tournament.run(paths, entrants, out, tournament.Options(games=1, analysis_time=2.0, game_time=5.0, seed=3,
                                                                isolate_rules=isolate))
        played.append(_moves(out))
        lockdowns = {json.dumps(g["analysis"]["black"]["lockdown"]) for g in
                     (json.loads(p.read_text()) for p in (out / "logs").rglob("*.json"))}
        assert all(("in an oracle process" in d) == isolate for d in lockdowns)
    assert len(played[0]) == 12 and played[0] == played[1]


def test_isolating_rules_of_agents_run_in_process_is_refused_before_anything_runs(capsys):
    assert main(["play", "tic-tac-toe", "--black", "random", "--white", "random", "--in-process",
                 "--isolate-rules"]) == 2
    err = capsys.readouterr().err
    assert "--isolate-rules" in err and "--in-process" in err and "Traceback" not in err
