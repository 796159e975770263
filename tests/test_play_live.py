"""Games watched as they are played: the referee's on_ply hook (a Moment at the start and after
every ply, agreeing with the final record), threaded through Run's Hooks; `ludica play` printing
each ply while the game goes on; and the progress of tournament and evaluate as plain lines when
their output is not a terminal."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from ludica import compiler, gdl, stages
from ludica.runtime import Hooks, Run, StagePlan, play_game, resolve
from ludica.runtime.local import LocalSeat
from ludica.runtime.plans import Options
from ludica.terminal import PlainProgress


def compiled(name: str):
    return compiler.compile(gdl.load(stages.path(name)))


def seats(game, black="greedy", white="random"):
    pair = []
    for name in (black, white):
        seat = LocalSeat(name, str(resolve(name).path), game)
        assert seat.analyze(5.0).failure is None
        pair.append(seat)
    return tuple(pair)


@pytest.mark.parametrize("stage", ["tic-tac-toe", "fewer-pieces-continue"])
def test_on_ply_is_shown_every_ply_and_agrees_with_the_final_record(stage):
    game = compiled(stage)
    moments = []
    record = play_game(game, seats(game), seed=7, game_time=(10.0, 8.0), on_ply=moments.append)
    assert [m.ply for m in moments] == list(range(len(record.plies) + 1))  # the start, then once per ply
    assert moments[0].board == record.initial_board and moments[0].last is None
    state = game.initial_state()
    used = [0.0, 0.0]
    for moment, ply in zip(moments[1:], record.plies):
        state = game.apply(state, game.parse_move(ply.move))
        used[ply.player] += ply.seconds
        assert moment.last is ply and moment.board == ply.board == game.board(state).tolist()
        assert (moment.state == state).all() and not moment.state.flags.writeable
        assert moment.remaining == pytest.approx((10.0 - used[0], 8.0 - used[1]), abs=0.01)
    for moment in moments[:-1]:
        assert moment.to_move == game.to_move(moment.state)
        assert moment.legal == tuple(str(m) for m in game.legal_moves(moment.state))
    assert moments[-1].to_move is None and moments[-1].legal == ()  # over
    if stage == "fewer-pieces-continue":
        assert any(a.player == b.player for a, b in zip(record.plies, record.plies[1:]))  # a ply where the turn stays


def test_a_watched_game_is_the_game_nobody_watches():
    game = compiled("small-board-6x6")
    told = (12, 13)  # each seat's seed, given: without them each game's come from a fresh secret
    alone = play_game(game, seats(game, "random", "random"), seed=11, seat_seeds=told)
    watched = play_game(game, seats(game, "random", "random"), seed=11, on_ply=lambda m: None, seat_seeds=told)
    drop = ("seconds",)  # charged CPU time differs from run to run
    assert [{k: v for k, v in asdict(p).items() if k not in drop} for p in alone.plies] == \
           [{k: v for k, v in asdict(p).items() if k not in drop} for p in watched.plies]
    assert (alone.winner, alone.scores, alone.reason) == (watched.winner, watched.scores, watched.reason)


def _one_stage_run(tmp_path: Path, hooks: Hooks, games: int = 1):
    stage = gdl.load(stages.path("tic-tac-toe"))
    agents = [resolve("greedy"), resolve("random")]
    plan = StagePlan(stage, (("greedy", "random"), ("random", "greedy")), games, "ttt", 1.0)
    with Run.open(tmp_path / "run") as run:
        run.start([stage], agents, Options(sandbox=False, analysis_time=1.0, game_time=5.0, games=games))
        run.play([plan], agents, hooks=hooks)
        return run.store.games()


def test_run_hooks_tell_the_watcher_which_game_each_ply_belongs_to(tmp_path):
    seen: dict[tuple[str, int], list] = {}
    games = _one_stage_run(tmp_path, Hooks(on_ply=lambda title, number, m: seen.setdefault((title, number), [])
                                          .append(m)))
    assert sorted(seen) == [("ttt", 1), ("ttt", 2)]
    for n, row in enumerate(games, 1):
        moments = seen[("ttt", n)]
        assert moments[0].record.players == (row["black"], row["white"])
        assert [m.last.move for m in moments[1:]] == __import__("json").loads(row["moves"])


def test_a_watcher_that_raises_stops_the_run_and_its_game_is_not_recorded(tmp_path):
    class Enough(Exception):
        pass

    def watcher(title, number, moment):
        if moment.ply == 3:
            raise Enough

    with pytest.raises(Enough):
        _one_stage_run(tmp_path, Hooks(on_ply=watcher))
    with Run.read(tmp_path / "run") as run:
        assert run.store.games() == []


WAITER = '''import os
import time


def analyze(stage, api, clock):
    asked = [0]

    def strategy(state, legal, clock):
        asked[0] += 1
        if asked[0] == 2:  # the second move waits until the test has seen the first one printed
            deadline = time.monotonic() + 60
            while not os.path.exists(os.environ["LUDICA_TEST_MARK"]) and time.monotonic() < deadline:
                time.sleep(0.05)
        return legal[0]
    return strategy
'''


def test_ludica_play_prints_each_ply_while_the_game_goes_on(tmp_path):
    agent = tmp_path / "waiter.py"
    agent.write_text(WAITER)
    mark = tmp_path / "seen"
    proc = subprocess.Popen([sys.executable, "-m", "ludica.cli", "play", "tic-tac-toe", "--black", str(agent),
                             "--white", "greedy", "--in-process"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env={**os.environ, "LUDICA_TEST_MARK": str(mark)})
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("waiter plays a1"):
                still_playing = proc.poll() is None  # its second move waits for the mark: the game is not over
                mark.touch()
                break
        rest = proc.stdout.read()
    finally:
        proc.wait(timeout=300)
    assert proc.returncode == 0
    assert still_playing, "the first move was printed only when the game was over"
    text = "\n".join(lines) + "\n" + rest
    assert text.index("Game started: waiter(B) vs greedy(W)") < text.index("waiter plays a1")
    after = text[text.index("waiter plays a1"):].splitlines()
    assert after[1:5] == ["  a b c", "1 X . .", "2 . . .", "3 . . ."]  # the board after the move, then the clocks
    assert after[5].startswith("clocks: Black ") and ", White 10.0 s" in after[5]
    assert text.count("\nclocks: ") == text.count(" plays ") + text.count(" passes") + 1
    # tic-tac-toe is not decided by counting: the end says the rule that ended it, and no score
    assert re.search(r"\nGame over: (x|o) made three in a row at [a-c][1-3] [a-c][1-3] [a-c][1-3]: \1 wins\n"
                     r"|\nGame over: the board is full: a draw\n", text) and "Final score" not in text


def test_plain_progress_says_each_stage_done_with_the_games_and_the_time_left():
    now = [100.0]
    said: list[str] = []
    progress = PlainProgress(total=6, say=said.append, every=60.0, now=lambda: now[0])
    progress.stage("one", 2)  # the pace counts from the first stage, not from the compiling before it
    now[0] += 10
    progress.game("one")
    assert said == []  # neither the stage done nor a minute gone
    now[0] += 10
    progress.game("one")
    assert said[-1] == "one: 2 of 2 games, done; 2/6 games in all (33%), 20.0 s so far, about 40.0 s left"
    progress.stage("\x1b]0;two", 4)
    now[0] += 70
    progress.game("\x1b]0;two")
    assert said[-1] == "\\x1b]0;two: 1 of 4 games; 3/6 games in all (50%), 1:30 so far, about 1:30 left"  # inert


def test_progress_lines_appear_when_the_output_is_piped(tmp_path):
    common = ["--in-process", "--analysis-time", "1", "--game-time", "2"]
    tournament = subprocess.run([sys.executable, "-m", "ludica.cli", "tournament", "tic-tac-toe", "small-board-6x6",
                                 "--agent", "random", "--agent", "greedy", "--out", str(tmp_path / "t"), *common],
                                capture_output=True, text=True, timeout=600)
    assert tournament.returncode == 0, tournament.stderr
    lines = tournament.stdout.splitlines()
    assert any(ln.startswith("Tic-tac-toe: 2 of 2 games, done; 2/4 games in all (50%), ") and ln.endswith(" left")
               for ln in lines), lines
    assert any(ln.startswith("Small Board (6x6): 2 of 2 games, done; 4/4 games in all (100%), ") for ln in lines)
    evaluate = subprocess.run([sys.executable, "-m", "ludica.cli", "evaluate", "random", "greedy", "--no-builtins",
                               "--no-unseen", "--stage", "tic-tac-toe", "--stage", "small-board-6x6",
                               "--out", str(tmp_path / "e"), *common], capture_output=True, text=True, timeout=600)
    assert evaluate.returncode == 0, evaluate.stderr
    assert "Small Board (6x6): 2 of 2 games, done; 4/4 games in all (100%), " in evaluate.stdout


def test_piped_output_leaves_no_progress_bar_nor_compiling_notice(tmp_path):
    """Output that is not a terminal gets plain lines alone: no last frame of a progress bar, and no
    notice of compiling (an empty numba cache makes the evaluation compile, long enough for one)."""
    common = ["--in-process", "--analysis-time", "0.2", "--game-time", "1"]
    runs = {
        "tournament": (["tournament", "tic-tac-toe", "--agent", "random", "--agent", "greedy",
                        "--out", str(tmp_path / "t")], {}),
        "evaluate": (["evaluate", "random", "greedy", "--no-builtins", "--no-unseen", "--stage", "tic-tac-toe",
                      "--resamples", "20", "--out", str(tmp_path / "e")], {"NUMBA_CACHE_DIR": str(tmp_path / "cold")}),
    }
    for command, (arguments, env) in runs.items():
        done = subprocess.run([sys.executable, "-m", "ludica.cli", *arguments, *common], capture_output=True, text=True,
                              timeout=900, env={**os.environ, **env})
        assert done.returncode == 0, done.stderr[-2000:]
        said = done.stdout + done.stderr
        assert "Tic-tac-toe: 2 of 2 games, done; 2/2 games in all (100%)" in said, said
        bar = re.search(r"━ *\d+/\d+ ", said)  # a bar's frame: the bar, then the games done of the total
        assert bar is None and "games (leader" not in said, f"{command}: a progress bar's last frame:\n{said}"
        assert "compiling" not in said and "first run" not in said, f"{command}: a wait's notice in a log:\n{said}"


CRASHER = '''NAME = "crasher"


def helper(moves):
    return moves[99]


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        if len(legal_moves) < 9:
            raise ValueError("\\x1b]0;a title of its own\\x07" + "x" * 5000)
        return helper(legal_moves)

    return strategy
'''


@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "in-process"])
def test_play_says_where_a_python_agent_crashed(tmp_path, sandbox):
    """The forfeit's line names the exception, the agent's file and line and the code there (the
    last frame in the agent's own file); an exception's text is the agent's: bounded, inert."""
    agent = tmp_path / "crasher.py"
    agent.write_text(CRASHER)
    for black, white, where in (("crasher.py", "random", "line 5, in helper: return moves[99]"),
                                ("random", "crasher.py", "line 11, in strategy: raise ValueError(")):
        done = subprocess.run([sys.executable, "-m", "ludica.cli", "play", "tic-tac-toe", "--black", black, "--white",
                               white, "--game-time", "5", *([] if sandbox else ["--in-process"])],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        line = next(ln for ln in done.stdout.splitlines() if "(crasher) failed (crash): " in ln)
        assert f"(crasher.py, {where}" in line, line
        assert "\x1b" not in done.stdout and len(line) < 400  # the message bounded, its escape shown as text
        if white == "random":
            assert "IndexError: list index out of range (crasher.py" in line
        else:
            assert "ValueError: \\x1b]0;a title of its own" in line


@pytest.mark.parametrize("raised, said", [
    ("ValueError('bad move\\nsecond line')", "ValueError: bad move second line (bot.py, line 5, in f)"),
    ("noted(KeyError('a1'))", "KeyError: 'a1' (bot.py, line 5, in f)"),
    ("RuntimeError('  ' + 'x' * 500)", f"RuntimeError: {'x' * 106} (bot.py, line 5, in f)"),
    ("StopIteration()", "StopIteration (bot.py, line 5, in f)"),
])
def test_a_crash_is_said_in_one_line_its_type_and_message_without_its_notes(raised, said):
    """The crash's line is the exception's type and message, whitespace collapsed (a message of many
    lines gave only its last: "second line (bot.py ...)"), its notes left out (format_exception_only
    ended with the last note), bounded."""
    from ludica.runtime.worker import crash_text

    space: dict = {}  # an agent's file, bot.py: line 5 raises (its code not on disk: no line shown)
    exec(compile("def noted(e):\n    e.add_note('a note of the agent')\n    return e\ndef f(error):\n    raise error\n",
                 "bot.py", "exec"), space)
    try:
        space["f"](eval(raised, space))
    except BaseException:
        text = crash_text("bot.py")
    assert text.splitlines()[-1] == said
