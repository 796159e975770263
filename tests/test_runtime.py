"""The runtime's parts: the referee's rules and log lines, leaderboards, the message protocol,
the agent contract (what the stage view shows, the Arena's metrics), and resuming a run."""
from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from ludica import compiler, gdl, stages
from ludica.runtime import entrants as agents, leaderboard, metrics, protocol, tournament
from ludica.runtime import run as runs
from ludica.runtime import sandbox
from ludica.runtime.api import RulesApi, stage_view
from ludica.runtime.local import LocalSeat
from ludica.runtime.referee import play_game
from ludica.runtime.sandbox import Answer
from test_seat_seeds import same_secret  # (a module: its tests are not collected again)

HERE = Path(__file__).parent / "agents"


def compiled(name: str):
    return compiler.compile(gdl.load(stages.path(name)))


class Scripted:
    """A seat that plays a fixed list of move texts (then the first legal move)."""

    def __init__(self, name: str, moves=()):
        self.name, self.moves, self.asked = name, list(moves), 0
        self.seat = self.score = None

    def start_game(self, seed, budget, seat):
        self.seat = seat
        return Answer({"op": "game-ready"}, 0.0, 0.0)

    def think(self, state, legal, remaining):
        self.asked += 1
        move = self.moves.pop(0) if self.moves else legal[0]
        return Answer({"op": "move", "move": move}, 0.01, 0.01)

    def end_game(self, score=None):
        self.score = score
        return "", 0


# --- the referee ---------------------------------------------------------------------------


def test_each_seat_is_told_its_seat_at_the_start_and_its_score_at_the_end():
    game = compiled("tic-tac-toe")
    black, white = Scripted("alpha", ["a1", "b1", "c1"]), Scripted("beta", ["a2", "b2"])
    record = play_game(game, (black, white), seed=1)
    assert record.winner == 0  # a1 b1 c1: Black's row
    assert (black.seat, white.seat) == (0, 1) and (black.score, white.score) == (1, -1)
    drawn = (Scripted("x", ["a1", "c1", "a2", "b3", "c3"]), Scripted("o", ["b1", "b2", "c2", "a3"]))
    record = play_game(game, drawn, seed=1)
    assert record.winner is None and [s.score for s in drawn] == [0, 0], record.log


def test_log_lines_follow_the_arena_format():
    game = compiled("fewer-pieces-continue")
    record = play_game(game, (Scripted("alpha"), Scripted("beta")), seed=1)
    log = record.log
    assert log[0] == "Game started: alpha(B) vs beta(W) on Stage: 8x8, fewer pieces continue"
    assert log[1].startswith("alpha(B): ") and any(line.startswith("beta(W): ") for line in log)
    assert any(line.endswith("continues (fewer pieces rule)") for line in log)
    # the end, said once in the last line: why, and the result by the pieces, which decide it here
    assert log[-1] == f"Game over: {record.ending}" and log[-2].startswith(("alpha(B): ", "beta(W): "))
    assert re.fullmatch(r"Game over: neither black nor white can move: ((black|white) wins with more pieces, "
                        r"\d+ to \d+|a draw, \d+ pieces each)", log[-1])
    assert record.reason == "normal" and len(record.plies) == len([l for l in log if "(B): " in l or "(W): " in l]) + \
        sum(line.endswith(" passes") for line in log)


def test_an_end_the_reference_interpreter_cannot_explain_is_logged_as_ludica_s_bug_and_the_game_kept(monkeypatch):
    """The compiled kernels ended the game, the reference interpreter says it is not over (or gives
    another result): the two engines disagree. The game stands as played, without the rules' reason,
    and the log says what to report; the run is not aborted."""
    game = compiled("tic-tac-toe")

    def seats():
        return Scripted("alpha", ["a1", "b1", "c1"]), Scripted("beta", ["a2", "b2"])

    other = replace(play_game(game, seats(), seed=1).ending, winner=1)  # the rules' reason, another winner
    monkeypatch.setattr(game, "ending", lambda state: (_ for _ in ()).throw(ValueError("not over at ply 5")))
    record = play_game(game, seats(), seed=1)
    assert record.reason == "normal" and record.winner == 0 and record.ending is None
    assert record.log[-2] == ("Internal error: the compiled rules ended the game after ply 5 (x (alpha) wins), but the "
                              "reference interpreter cannot explain it (ValueError: not over at ply 5). A bug in "
                              "ludica: please report it with the stage and this log")
    assert record.log[-1] == "Game over: x (alpha) wins"
    monkeypatch.setattr(game, "ending", lambda state: other)
    record = play_game(game, seats(), seed=1)
    assert record.ending is None and "the reference interpreter gives another result" in record.log[-2]


def test_a_forced_pass_is_played_without_asking_and_logged():
    # x has no move after o's first move: o moves twice, x passes in between (the Arena's rule)
    text = ("game \"pass\"\nboard rect 1 4\nplayers x o\nsetup x a1\nsetup o b1\n"
            "move place empty\n  flip custodial all\n  require capture\npass forced\nend no-moves: most-pieces\n")
    game = compiler.compile(gdl.loads(text))
    x, o = Scripted("x"), Scripted("o")
    record = play_game(game, (x, o), seed=0)
    assert "x passes" not in record.log or x.asked + o.asked == sum(p.move != "pass" for p in record.plies)
    assert all(p.seconds == 0.0 for p in record.plies if p.move == "pass")


def test_cumulative_time_over_the_budget_loses_even_with_a_legal_move():
    class Slow(Scripted):
        def think(self, state, legal, remaining):
            return Answer({"op": "move", "move": legal[0]}, 0.6, 0.6)

    record = play_game(compiled("tic-tac-toe"), (Slow("slow"), Scripted("quick")), seed=0, game_time=1.0)
    assert record.reason == "time" and record.winner == 1
    assert record.log[-2] == "x (slow) exceeded the time limit of 1s!"
    assert record.log[-1] == "Game over: x (slow) ran out of time: o (quick) wins"
    assert len(record.plies) == 2  # the second answer took the time over 1 s


def test_illegal_moves_are_replaced_by_seeded_random_moves():
    game = compiled("standard-8x8")
    one = play_game(game, (Scripted("bad", ["a1", "zz"]), Scripted("ok")), seed=9)
    two = play_game(game, (Scripted("bad", ["a1", "zz"]), Scripted("ok")), seed=9)
    assert [p.move for p in one.plies] == [p.move for p in two.plies]  # same seed, same replacements
    assert one.illegal == [2, 0] and len(one.penalties) == 2 and one.reason == "normal"
    assert [p.note != "" for p in one.plies[:3]] == [True, False, True]


def test_a_seat_without_a_strategy_loses_and_both_without_lose_both():
    game = compiled("tic-tac-toe")
    record = play_game(game, (None, Scripted("ok")), seed=0, names=("gone", "ok"), no_strategy=("it crashed", ""))
    assert record.winner == 1 and record.reason == "no-strategy" and record.result == "white"
    both = play_game(game, (None, None), seed=0, names=("a", "b"), no_strategy=("x", "y"))
    assert both.result == "none" and both.winner is None


def test_a_seat_without_a_strategy_has_no_name_to_give_so_the_caller_is_asked_for_names():
    """(It was an AttributeError on None, from reading the names off the seats.)"""
    with pytest.raises(ValueError, match="give `names`"):
        play_game(compiled("tic-tac-toe"), (None, Scripted("ok")), seed=0)


@pytest.mark.parametrize("cap, said", [(None, "the machine ran out of memory"), (512 << 20, "its cap of 512 MiB")])
def test_a_crash_by_the_kernel_for_memory_is_said_with_or_without_a_cap(monkeypatch, cap, said):
    """A memory control group without a cap (a cgroup v1 folder that refused the limit) still counts
    the kernel's out-of-memory kills; saying so must not fail in the referee (it was `None >> 20`)."""
    monkeypatch.setattr(sandbox.jail, "require", lambda: None)
    seat = sandbox.AgentProcess("agent.py", "", sandbox.Settings())
    seat.tree = SimpleNamespace(cpu_seconds=lambda members=None: 0.0)
    seat.group = SimpleNamespace(memory_bytes=cap, oom_kills=lambda: 1)
    seat._thaw = seat._end_game_processes = lambda: None

    def send(message):
        raise protocol.Closed("the worker is gone")

    seat._send = send
    answer = seat._request({"op": "move"}, 1.0, whole=False)
    assert answer.failure == "crash" and answer.detail.startswith("the worker is gone; the kernel killed")
    assert answer.detail.endswith(said)


# --- leaderboards --------------------------------------------------------------------------


def test_leaderboard_counts_draws_half_and_sorts_by_win_rate_then_wins():
    games = [{"black": "a", "white": "b", "result": "black"}, {"black": "b", "white": "a", "result": "draw"},
             {"black": "c", "white": "a", "result": "white", "reason": "time"},
             {"black": "b", "white": "c", "result": "none", "reason": "no-strategy"},
             {"black": "c", "white": "b", "result": "draw"}]
    games += [{"black": "e", "white": "f", "result": "draw"}, {"black": "e", "white": "f", "result": "draw"},
              {"black": "f", "white": "e", "result": "white"}, {"black": "f", "white": "e", "result": "black"}]
    board = leaderboard.standings(games, ["a", "b", "c", "d"])
    # b, e and f all score 50%: e and f (one win each, then by name) before b (no win)
    assert [s.name for s in board] == ["a", "e", "f", "b", "c", "d"]
    a, e, f, b, c, d = board
    assert (a.wins, a.losses, a.draws, a.games) == (2, 0, 1, 3) and f"{a.win_rate:.1f}" == "83.3"
    assert (b.wins, b.losses, b.draws) == (0, 2, 2)  # the game both forfeited is a loss for both
    assert (c.wins, c.losses, c.draws) == (0, 2, 1)
    assert d.games == 0 and d.win_rate == 0.0
    assert leaderboard.rows(board)[0] == ("1", "a", "83.3%", "2", "0", "1", "3", "0/0/0/0")
    assert c.forfeits == {"time": 1, "no-strategy": 1} and b.forfeits == {"no-strategy": 1}  # never hidden
    assert [r[0] for r in leaderboard.rows(board)] == ["1", "2", "2", "4", "5", "6"]  # e and f: equal, one rank


# --- the protocol --------------------------------------------------------------------------


def test_protocol_round_trip_size_cap_and_garbage():
    ours, theirs = protocol.pair()
    try:
        protocol.send(theirs, {"op": "move", "move": "d3"})
        reader = protocol.Reader(ours)
        assert reader.read(1.0) == {"op": "move", "move": "d3"}
        assert reader.read(0.05) is None  # nothing more: no message within the timeout
        theirs.sendall((5).to_bytes(4, "big") + b"[1,2")  # half a message: not whole yet
        assert reader.read(0.05) is None
        theirs.sendall(b"]")
        with pytest.raises(protocol.ProtocolError, match="not a JSON object"):
            reader.read(1.0)
        for garbage in (b"[" * 100_000, b"1" * 5000, b"\xff\xfe"):  # too deep, too large an int, not UTF-8
            theirs.sendall(len(garbage).to_bytes(4, "big") + garbage)
            with pytest.raises(protocol.ProtocolError, match="not JSON"):
                reader.read(1.0)
        theirs.sendall((protocol.MAX_MESSAGE + 1).to_bytes(4, "big"))
        with pytest.raises(protocol.ProtocolError, match="limit"):
            reader.read(1.0)
        # a side that stops reading: sending gives up after its timeout instead of blocking
        ours.setblocking(False)
        with pytest.raises(protocol.ProtocolError, match="took no message"):
            for _ in range(10_000):
                protocol.send(ours, {"pad": "x" * 60_000}, timeout=0.2)
    finally:
        ours.close(), theirs.close()
    ours, theirs = protocol.pair()
    theirs.close()
    with pytest.raises(protocol.Closed):
        protocol.Reader(ours).read(1.0)
    ours.close()


def test_text_fields_of_a_reply_are_strings_whatever_was_sent():
    assert protocol.text({"error": {"x": 1}}, "error") == "{'x': 1}"
    assert protocol.text({"error": None}, "error") == "" and protocol.text({}, "error") == ""
    assert len(protocol.text({"error": "e" * 10_000}, "error")) == 4000


# --- what an agent sees --------------------------------------------------------------------


def test_the_stage_view_shows_the_board_not_the_rules():
    game = compiled("c-squares-occlusion-agnostic")
    view = stage_view(game)
    assert (view.rows, view.cols, view.shape) == (8, 8, "square")
    assert set(view.blocked) == {(0, 1), (1, 7), (7, 6), (6, 0)}
    assert view.description is None and view.players == ("black", "white")
    assert [str(m) for m in view.legal_first_moves] == [str(m) for m in game.legal_moves(game.initial_state())]
    assert "flip custodial" in stage_view(game, gdl.format(game.stage)).description


def test_arena_metrics_on_eight_by_eight():
    game = compiled("standard-8x8")
    corner, edge = metrics.shape_classes(game)
    assert sorted(np.flatnonzero(corner)) == [0, 7, 56, 63] and edge.sum() == 24
    api = RulesApi(game)
    start = game.initial_state()
    assert api.evaluate(start, 0) == {"piece": 0, "mobility": 0, "corner": 0, "edge": 0, "total": 0.0}
    after, captured = api.apply(start, "d3")
    e = api.evaluate(after, 0)
    assert captured == 1 and e["piece"] == 3 and e["mobility"] == 3 - 3 and e["total"] == 3.0


def test_metrics_generalise_to_hex_and_wrapped_boards():
    hex_corner, hex_edge = metrics.shape_classes(compiled("hex-11"))
    assert hex_corner.sum() == 2 and hex_edge.sum() == 4 * 11 - 4 - 2
    wrapped = compiler.compile(gdl.loads("game \"w\"\nboard square 4 wrap\nplayers x o\nmove place empty\n"
                                         "end board-full: draw\n"))
    corner, edge = metrics.shape_classes(wrapped)
    assert not corner.any() and not edge.any()


def test_agent_names_come_from_the_file_or_its_NAME(tmp_path):
    assert agents.resolve("random").name == "random"
    named = tmp_path / "mine.py"
    named.write_text('NAME = "Deep Thought"\ndef analyze(stage, api, clock):\n    return None\n')
    assert agents.resolve(str(named)).name == "Deep Thought"
    with pytest.raises(agents.AgentNotFound, match="not a built-in"):
        agents.resolve("no-such-agent")


def test_a_local_seat_runs_an_agent_file_against_the_contract():
    game = compiled("standard-8x8")
    seat = LocalSeat("greedy", str(agents.resolve("greedy").path), game)
    assert seat.analyze(5.0).failure is None
    answer = seat.think(game.initial_state().tolist(), ["c4", "d3", "e6", "f5"], 5.0)
    assert answer.reply["move"] == "c4"  # all four take one piece: the first maximum



def test_a_local_seat_is_not_charged_for_a_child_the_referee_reaps_while_it_thinks(tmp_path):
    """The referee's process reaps its own children (other games' workers, tools) whenever it does;
    their CPU time must not land on the in-process agent that happens to be thinking then. A child
    that burnt 0.5 s of CPU is reaped by another thread while the agent sleeps through its move:
    the agent is charged next to nothing. (Charged with children's time, it was charged 0.5 s.)"""
    sleeper = tmp_path / "sleeper.py"
    sleeper.write_text("import time\n\ndef analyze(stage, api, clock):\n"
                       "    def strategy(state, legal_moves, clock):\n"
                       "        time.sleep(0.6)\n        return legal_moves[0]\n    return strategy\n")
    child = subprocess.Popen([sys.executable, "-c", "import time\nt = time.process_time()\n"
                              "while time.process_time() - t < 0.5: pass"])
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # ended, not yet reaped
    game = compiled("standard-8x8")
    seat = LocalSeat("sleeper", str(sleeper), game)
    assert seat.analyze(5.0).failure is None
    reaper = threading.Timer(0.2, child.wait)
    reaper.start()
    answer = seat.think(game.initial_state().tolist(), ["c4", "d3", "e6", "f5"], 5.0)
    reaper.join()
    assert os.times().children_user + os.times().children_system >= 0.4  # the child's CPU was reaped here
    assert answer.reply["move"] == "c4" and answer.seconds < 0.2, answer


def test_a_local_seat_is_not_charged_for_another_thread_of_the_referee(tmp_path):
    """Threads of the referee's process (a job, a warm-up, another test's left-over) run beside an
    in-process agent: their CPU time is not the agent's. (Charged with the process's CPU time, the
    agent sleeping through its move was charged the 0.4 s another thread spun meanwhile.)"""
    sleeper = tmp_path / "sleeper.py"
    sleeper.write_text("import time\n\ndef analyze(stage, api, clock):\n"
                       "    def strategy(state, legal_moves, clock):\n"
                       "        time.sleep(0.6)\n        return legal_moves[0]\n    return strategy\n")

    def spin():
        t = time.thread_time()
        while time.thread_time() - t < 0.4:
            pass

    game = compiled("standard-8x8")
    seat = LocalSeat("sleeper", str(sleeper), game)
    assert seat.analyze(5.0).failure is None
    spinner = threading.Thread(target=spin)
    spinner.start()
    answer = seat.think(game.initial_state().tolist(), ["c4", "d3", "e6", "f5"], 5.0)
    spinner.join()
    assert answer.reply["move"] == "c4" and answer.seconds < 0.2, answer

# --- runs: settings, interruption, resumption ------------------------------------------------


def _table(out: Path) -> list[tuple]:
    db = sqlite3.connect(out / "results.sqlite")
    rows = sorted(db.execute("SELECT stage_hash, black, white, game_index, result, moves FROM games"))
    db.close()
    return rows


# In-process seats share module state between games (sandboxed workers fork every game from the
# analysed strategy), so the in-process run uses agents that keep nothing from game to game.
ENTRANTS = ["random", "greedy", str(HERE / "last.py")]


def test_an_interrupted_run_resumed_gives_the_same_results(tmp_path):
    specs = [agents.resolve(a) for a in ENTRANTS]
    paths = [stages.path("tic-tac-toe"), stages.path("small-board-6x6")]
    options = tournament.Options(games=2, analysis_time=5, game_time=5, seed=3, sandbox=False)
    whole = tournament.run(paths, specs, tmp_path / "whole", options)
    played = []

    def stop_after_five(g):
        played.append(g)
        if len(played) == 5:
            raise KeyboardInterrupt

    same_secret(tmp_path / "cut", tmp_path / "whole")  # the same run: its seats are told the same seeds
    with pytest.raises(KeyboardInterrupt):
        tournament.run(paths, specs, tmp_path / "cut", options, on_game=stop_after_five)
    assert len(_table(tmp_path / "cut")) == 5
    with pytest.raises(tournament.RunMismatch, match="--resume"):
        tournament.run(paths, specs, tmp_path / "cut", options)
    other = tournament.Options(games=3, analysis_time=5, game_time=5, seed=3, sandbox=False)
    with pytest.raises(tournament.RunMismatch, match="options: games 2 → 3"):
        tournament.run(paths, specs, tmp_path / "cut", other, resume=True)
    with pytest.raises(tournament.RunMismatch, match="no run to resume .there is no such folder"):
        tournament.run(paths, specs, tmp_path / "misspelt", options, resume=True)
    assert not (tmp_path / "misspelt").exists()
    resumed = tournament.run(paths, specs, tmp_path / "cut", options, resume=True)
    assert _table(tmp_path / "cut") == _table(tmp_path / "whole")
    assert [(s.name, s.wins, s.losses, s.draws) for s in resumed["all stages"]] == \
        [(s.name, s.wins, s.losses, s.draws) for s in whole["all stages"]]
    assert len(_table(tmp_path / "whole")) == 2 * 6 * 2


def test_two_jobs_play_the_same_games_as_one(tmp_path):
    """Stages side by side, each job's agents on their own core: deterministic agents (seeded by
    their seats' seeds, from the same game secret) make the very same moves; the same stage given
    twice is played once."""
    specs = [agents.resolve(a) for a in ("random", "greedy", "positional")]
    paths = [stages.path("tic-tac-toe"), stages.path("small-board-6x6"), stages.path("tic-tac-toe")]
    options = tournament.Options(games=1, analysis_time=5, game_time=5, seed=2)
    one = tournament.run(paths, specs, tmp_path / "one", options, jobs=1)
    same_secret(tmp_path / "two", tmp_path / "one")
    two = tournament.run(paths, specs, tmp_path / "two", options, jobs=2)
    assert _table(tmp_path / "one") == _table(tmp_path / "two")
    assert len(_table(tmp_path / "one")) == 2 * 6
    assert sum(s.games for s in one["all stages"]) == 2 * 2 * 6
    assert [(s.name, s.wins) for s in one["all stages"]] == [(s.name, s.wins) for s in two["all stages"]]


def test_a_sandboxed_run_killed_with_sigkill_resumes_to_the_same_table(tmp_path):
    command = [sys.executable, "-m", "ludica.cli", "tournament", "tic-tac-toe", "--agent", "random", "--agent",
               "greedy", "--agent", str(HERE / "crash_at_5.py"), "--games", "2", "--analysis-time", "5",
               "--game-time", "5", "--seed", "4"]
    subprocess.run(command + ["--out", str(tmp_path / "whole")], check=True, capture_output=True, timeout=300)
    same_secret(tmp_path / "cut", tmp_path / "whole")
    run = subprocess.Popen(command + ["--out", str(tmp_path / "cut")], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:  # (connecting would make the file: only once the referee has made it)
            if (tmp_path / "cut" / "results.sqlite").exists() and len(_table(tmp_path / "cut")) >= 4:
                break
        except sqlite3.OperationalError:
            pass  # made, but its tables not yet
        time.sleep(0.05)
    workers = _workers_under(run.pid)  # this referee's, not those of other runs on the machine
    assert workers, "the referee had no worker running when it was killed"
    os.kill(run.pid, signal.SIGKILL)  # the referee only: its workers must die with it
    run.wait()
    assert 4 <= len(_table(tmp_path / "cut")) < 12
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.05)
    leftovers = [p for p in workers if _alive(p)]
    subprocess.run(command + ["--out", str(tmp_path / "cut"), "--resume"], check=True, capture_output=True,
                   timeout=300)
    assert _table(tmp_path / "cut") == _table(tmp_path / "whole")
    assert not leftovers, "workers outlived their referee"
    assert (tmp_path / "cut" / "leaderboard.md").read_text() == (tmp_path / "whole" / "leaderboard.md").read_text()


def test_play_prints_one_result_line(tmp_path):
    out = subprocess.run([sys.executable, "-m", "ludica.cli", "play", "tic-tac-toe", "--black", "greedy", "--white",
                          "greedy", "--quiet", "--in-process"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    # a1 b1 c1 a2 b2 c2 a3: the a3-c1 diagonal, said as the rules say it; no piece count, which decides nothing here
    assert out.stdout.strip() == "Game over: x made three in a row at a3 b2 c1: x wins (7 plies)"


def test_the_end_of_a_game_names_the_winner_once_as_the_stage_names_the_players():
    """Breakthrough's first player is white: a seat's colour ("Black wins!") beside the rules' words
    ("black reached row 1: black wins") named two winners. The result is said once, in the last line,
    in the stage's names; a forfeit too, each player with its agent."""
    game = compiled("breakthrough")
    assert game.stage.player_names == ("white", "black")
    record = play_game(game, (Scripted("alpha"), Scripted("beta")), seed=3)
    assert record.reason == "normal" and record.ending is not None
    assert record.log[-1] == f"Game over: {record.ending}"
    assert record.log[-1].endswith(f": {game.stage.player_names[record.winner]} wins")
    assert not [line for line in record.log if re.search(r"\b(Black|White)\b|wins!|Tie!", line)]

    class Resigns(Scripted):
        def think(self, state, legal, remaining):
            return Answer({}, 0.0, 0.0, failure="resign")

    record = play_game(game, (Resigns("alpha"), Scripted("beta")), seed=3)
    assert record.log[-2:] == ["white (alpha) resigns", "Game over: white (alpha) resigned: black (beta) wins"]


def test_logs_are_written_in_the_arena_shape(tmp_path):
    specs = [agents.resolve("random"), agents.resolve("greedy")]
    tournament.run([stages.path("small-board-6x6")], specs, tmp_path, tournament.Options(sandbox=False, seed=1))
    logs = sorted((tmp_path / "logs").rglob("*.json"))
    assert [p.name for p in logs] == ["0001-random-vs-greedy.json", "0002-greedy-vs-random.json"]
    data = json.loads(logs[0].read_text())
    assert set(data) >= {"metadata", "initialBoard", "moves", "boards", "players", "capturedCounts", "logText"}
    assert data["metadata"]["blackStrategy"] == "random" and data["metadata"]["stage"] == "Small Board (6x6)"
    assert len(data["boards"]) == len(data["moves"]) == len(data["capturedCounts"])
    text = logs[0].with_suffix(".txt").read_text().splitlines()
    assert text[0].startswith("Game started: random(B) vs greedy(W)") and text == data["logText"].splitlines()


def test_the_readme_example_agent_works_and_finds_reverse_scoring(tmp_path):
    text = (Path(__file__).parent.parent / "README.md").read_text()
    source = text[text.index("# my_agent.py"):]
    source = source[: source.index("```")]
    path = tmp_path / "my_agent.py"
    path.write_text(source)
    assert agents.resolve(str(path)).name == "lookahead"
    for name, sign in (("standard-8x8", 1), ("reverse-othello", -1)):
        game = compiled(name)
        seat = LocalSeat("lookahead", str(path), game)
        assert seat.analyze(3.0).failure is None
        record = play_game(game, (seat, Scripted("first")), seed=1)
        assert record.reason == "normal"
        # the strategy's closure holds the sign the analysis found
        cell = [c.cell_contents for c in seat.strategy.__closure__ if isinstance(c.cell_contents, int)
                and c.cell_contents in (1, -1)]
        assert sign in cell


def test_resume_refuses_a_changed_agent_file_and_twin_stage_names_stay_apart(tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text((HERE / "last.py").read_text())
    twin = tmp_path / "twin.gdl"  # tic-tac-toe's name on a 4x4 board
    twin.write_text(stages.path("tic-tac-toe").read_text().replace("board square 3", "board square 4"))
    paths = [stages.path("tic-tac-toe"), twin]
    specs = [agents.resolve("random"), agents.resolve(str(mine))]
    options = tournament.Options(sandbox=False)
    boards = tournament.run(paths, specs, tmp_path / "out", options)
    assert len(boards) == 3 and sum(1 for t in boards if t.startswith("Tic-tac-toe (")) == 2
    assert len(list((tmp_path / "out" / "logs").iterdir())) == 2
    mine.write_text(mine.read_text() + "\n# changed\n")
    with pytest.raises(tournament.RunMismatch, match="an agent file changed"):
        tournament.run(paths, [agents.resolve("random"), agents.resolve(str(mine))], tmp_path / "out", options,
                       resume=True)


def test_a_slow_wait_says_what_it_is_and_a_quick_one_says_nothing():
    from ludica.runtime.run import notice_if_slow

    said = []
    with notice_if_slow(said.append, "compiling", after=0.05):
        time.sleep(0.3)
    with notice_if_slow(said.append, "quick", after=0.5):
        pass
    time.sleep(0.6)  # the quick block's notice would have fired by now had it not been cancelled
    assert said == ["compiling"]


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.3])
def test_a_worker_dies_with_a_referee_killed_while_it_starts(delay):
    """A referee killed while its worker still starts Python and imports numba (a second or more)
    leaves nothing running: the worker's first instruction ties it to the referee."""
    referee = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\n"
         "from ludica import stages\n"
         "from ludica.runtime.sandbox import AgentProcess, Settings\n"
         "from ludica.runtime import resolve\n"
         "agent = AgentProcess(str(resolve('random').path), stages.path('tic-tac-toe').read_text(), Settings())\n"
         "agent.launch()\n"
         "print(agent.proc.pid, flush=True)\n"
         "time.sleep(60)\n"],
        stdout=subprocess.PIPE, text=True)
    worker = int(referee.stdout.readline())
    time.sleep(delay)
    os.kill(referee.pid, signal.SIGKILL)
    referee.wait()
    deadline = time.monotonic() + 0.5  # well before the worker could have imported anything heavy
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.01)
    assert not _alive(worker), f"worker {worker} outlived its referee (killed {delay}s after the launch)"


_KILLED_REFEREE = (
    "import sys, time\n"
    "from ludica import stages\n"
    "from ludica.runtime.sandbox import AgentProcess, Settings\n"
    "agent = AgentProcess(sys.argv[1], stages.path('standard-8x8').read_text(),\n"
    "                     Settings(isolate_rules=sys.argv[2] == '1'))\n"
    "agent.launch()\n"
    "print(agent.proc.pid, flush=True)\n"
    "if sys.argv[3] == 'analysing':\n"
    "    assert agent.wait_ready().failure is None\n"
    "    print('ready', flush=True)\n"
    "    agent.analyze(60.0)\n"
    "time.sleep(60)\n")


@pytest.mark.parametrize("isolate", [False, True], ids=["in-worker rules", "rules oracle"])
@pytest.mark.parametrize("phase", ["spawning", "compiling", "analysing"])
def test_nothing_of_a_run_is_left_when_its_referee_is_killed(phase, isolate):
    """The referee killed while its worker starts Python, while it (or its rules oracle) compiles
    the stage, and while the agent analyses (busy with playouts, in the oracle too): soon no process
    of the agent is left, and the next run sweeps its control groups."""
    from ludica.runtime import cgroups

    referee = subprocess.Popen([sys.executable, "-c", _KILLED_REFEREE, str(HERE / "slow_analysis.py"),
                                str(int(isolate)), phase], stdout=subprocess.PIPE, text=True)
    worker = int(referee.stdout.readline())
    if phase == "compiling":
        time.sleep(0.6)  # Python and numpy are loaded; the stage is being compiled and warmed
    elif phase == "analysing":
        assert referee.stdout.readline().strip() == "ready"
        time.sleep(0.5)
    os.kill(referee.pid, signal.SIGKILL)
    referee.wait()
    # the agent's processes are killed at once (the parent-death signal, bubblewrap's --die-with-parent), but a
    # loaded machine (CI beside other jobs) may take seconds to schedule their ends: 30 s allowed
    deadline = time.monotonic() + 30.0
    while time.monotonic() < deadline and _session(worker):
        time.sleep(0.02)
    assert not _session(worker), f"left running after the referee was killed while {phase}: {_session(worker)}"
    cgroups._sweep()  # what the next run does first
    for root in (cgroups.ROOT, cgroups.ROOT / "cpuacct", cgroups.ROOT / "pids", cgroups.ROOT / "freezer"):
        assert not list(root.glob(f"ludica-{referee.pid}-*")) if root.is_dir() else True


def _session(sid: int) -> list[int]:
    """The live processes of session `sid` (a worker starts one; everything of its agent is in it)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as stat:
                    fields = stat.read().rsplit(") ", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(name))
    return found


def _workers_under(ancestor: int, command_holds: bytes = b"ludica.runtime.worker") -> list[int]:
    """The live agent workers descended from process `ancestor` (read from /proc: pgrep would also
    match the workers of any other run on the machine, other test runs' included); with
    `command_holds`, the descendants whose command line holds that instead (b"": every one)."""
    parents, commands = {}, {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as stat:
                    parents[int(name)] = int(stat.read().rsplit(") ", 1)[1].split()[1])
                with open(f"/proc/{name}/cmdline", "rb") as cmdline:
                    commands[int(name)] = cmdline.read()
            except (FileNotFoundError, ProcessLookupError):
                continue

    def descends(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == ancestor:
                return True
        return False

    return [pid for pid, command in commands.items() if command_holds in command and descends(pid)]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"  # a zombie is dead, not yet reaped
    except FileNotFoundError:
        return False


def test_groups_left_by_killed_referees_are_swept_even_after_their_pid_is_reused():
    from ludica.runtime import cgroups

    parent = cgroups.ROOT if (cgroups.ROOT / "cgroup.controllers").exists() else cgroups.ROOT / "cpuacct"
    if os.geteuid() != 0 or not parent.is_dir():
        pytest.skip("no control groups this process may make (needs root and cgroup v1 cpuacct or v2)")
    me = os.getpid()
    reused = parent / f"ludica-{me}-1-0"  # this pid, another start time: its referee is long dead
    gone = parent / "ludica-999999999-5-0"  # no such process
    mine = parent / f"ludica-{me}-{cgroups.started(me)}-999"  # a live referee's: kept
    made = [d for d in (reused, gone, mine) if not d.exists() and (d.mkdir() or True)]
    try:
        cgroups._sweep()
        assert not reused.exists() and not gone.exists() and mine.exists()
    finally:
        for d in made:
            if d.exists():
                d.rmdir()


def test_an_option_added_later_leaves_older_runs_resumable_and_is_named_when_it_differs():
    plain, isolated = tournament.Options(), tournament.Options(isolate_rules=True)
    # a run made before --isolate-rules existed stored no such option: the same settings as today's default
    assert "isolate_rules" not in json.loads(tournament.run_settings([], [], plain)["options"])
    held, wanted = (tournament.run_settings([], [], o)["options"] for o in (isolated, plain))
    assert runs._difference("options", held, wanted) == "options: isolate_rules True → False"
