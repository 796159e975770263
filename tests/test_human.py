"""A person as a player (runtime/human.py): the seat refuses what is not a legal move before the
referee sees it, resigns on `resign` or the end of input, is charged wall time against a budget of
its own; `human` is an entrant of `ludica play` and `ludica tournament`, typed at a real process's
stdin, its games recorded in the results store like any agent's."""
from __future__ import annotations

import json
import os
import re
import sqlite3
import signal
import subprocess
import sys
import time

import pytest

from ludica import compiler, gdl, stages
from ludica.runtime import HUMAN, HUMAN_TIME, HumanSeat, TerminalSource, Turn, play_game, resolve
from ludica.runtime.entrants import check_compiles
from ludica.runtime.plans import Options
from ludica.runtime.run import run_settings
from ludica.terminal import clock

CELLS = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]


def tic_tac_toe():
    return compiler.compile(gdl.load(stages.path("tic-tac-toe")))


class Typed:
    """A move source that answers from a list of entries (then resigns), and keeps every Turn it
    was asked."""

    def __init__(self, entries):
        self.entries, self.turns = list(entries), []

    def move(self, turn: Turn):
        self.turns.append(turn)
        if not self.entries:
            return None
        entry = self.entries.pop(0)
        if isinstance(entry, BaseException):
            raise entry
        return entry


def test_typos_and_illegal_entries_are_refused_with_a_message_and_never_reach_the_referee():
    game = tic_tac_toe()
    black = Typed(["zz", " A1 ", "c3", "c3", "b2", "a2", "a3"])  # " A1 " is a1, read as the referee reads it
    white = Typed(["a1", "c3", "b1", "c1"])
    record = play_game(game, (HumanSeat("ann", game, black), HumanSeat("bob", game, white)), seed=3)
    assert [p.move for p in record.plies] == ["a1", "c3", "b2", "b1", "a2", "c1", "a3"]
    assert record.reason == "normal" and record.winner == 0  # the a column
    assert record.illegal == [0, 0] and not record.penalties  # nothing illegal was ever sent
    problems = [t.problem for t in black.turns + white.turns if t.problem]
    assert "'zz' is not a move: moves are written like a1; ? lists the legal moves" in problems
    assert "a1 is not a legal move now; ? lists the legal moves" in problems  # bob's a1, taken by ann
    assert "c3 is not a legal move now; ? lists the legal moves" in problems  # ann's second c3
    assert all(t.legal == tuple(str(m) for m in game.legal_moves(t.state)) for t in black.turns + white.turns)


@pytest.mark.parametrize("last", [None, EOFError()])
def test_resign_or_the_end_of_input_loses_the_game_cleanly(last):
    game = tic_tac_toe()
    black = Typed(["a1"] + ([] if last is None else [last]))
    record = play_game(game, (HumanSeat("ann", game, black), HumanSeat("bob", game, Typed(["b1", "c1"]))), seed=1)
    assert record.reason == "resign" and record.winner == 1 and record.forfeited == (True, False)
    assert not record.penalties  # resigning is no penalty
    assert [p.move for p in record.plies] == ["a1", "b1"]
    assert "x (ann) resigns" in record.log and record.log[-1] == "Game over: x (ann) resigned: o (bob) wins"


def test_a_person_is_charged_wall_time_against_a_budget_of_their_own():
    game = tic_tac_toe()

    class Slow(Typed):
        def move(self, turn):
            time.sleep(0.3)  # sleeping uses no CPU: only a wall clock sees a person think
            return super().move(turn)

    slow = Slow(CELLS)
    record = play_game(game, (HumanSeat("ann", game, slow), HumanSeat("bob", game, Typed(["c3", "b3"]))), seed=1,
                       game_time=(0.5, 10.0))
    assert record.reason == "time" and record.winner == 1
    assert "exceeded the time limit of 0.5s" in record.log[-2]
    assert record.time_used[0] >= 0.6 and len(slow.turns) == 2
    assert slow.turns[1].remaining < 0.5 - 0.25  # the second question said how little was left


def test_a_source_that_gives_up_when_the_clock_runs_out_loses_on_time_not_by_resigning():
    game = tic_tac_toe()

    class Waiting:  # a web page's queue, say, waited on with the time left as its timeout
        def move(self, turn):
            time.sleep(turn.remaining + 0.05)
            return None

    record = play_game(game, (HumanSeat("ann", game, Waiting()), HumanSeat("bob", game, Typed(CELLS))), seed=1,
                       game_time=(0.2, 10.0))
    assert record.reason == "time" and record.winner == 1 and "were left" in record.log[-2]


def test_the_terminal_source_lists_the_legal_moves_and_resigns_on_request():
    game = tic_tac_toe()
    said: list[str] = []
    entries = iter(["", "?", "b2", "moves", "resign"])
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return next(entries)

    source = TerminalSource(ask=ask, say=said.append)
    record = play_game(game, (HumanSeat("\x1b[2Jann", game, source), HumanSeat("bob", game, Typed(["a1"]))), seed=1,
                       game_time=(HUMAN_TIME, 10.0))
    assert record.reason == "resign" and [p.move for p in record.plies] == ["b2", "a1"]
    assert said[0] == gdl.render(game, game.initial_state())  # the board, with its coordinates
    assert said[1] == "legal moves: " + " ".join(CELLS)
    assert said[3] == "legal moves: b1 c1 a2 c2 a3 b3 c3"  # b2 and a1 taken
    assert asked[0].startswith("Black (X), \\x1b[2Jann, 30:00 left: your move")  # the name shown inert


def test_one_entrant_in_both_seats_is_told_apart_and_keeps_its_move_source():
    from ludica.runtime.entrants import AgentSpec, seated

    first, second = Typed(["a1"]), Typed(["b1"])
    black, white = seated(AgentSpec(HUMAN, None, source=first), AgentSpec(HUMAN, None, source=second))
    assert (black.name, white.name) == ("human-1", "human-2") and (black.source, white.source) == (first, second)
    assert seated(resolve("random"), resolve("greedy")) == (resolve("random"), resolve("greedy"))


def test_human_is_an_entrant_without_a_file():
    spec = resolve(HUMAN)
    assert spec.human and not spec.builtin and spec.path is None
    assert check_compiles(spec) is spec
    settings = run_settings([gdl.load(stages.path("tic-tac-toe"))], [spec, resolve("random")], Options())
    assert json.loads(settings["agent files"])[0] == HUMAN  # resumable: a person's "file" never changes
    assert "human_time" not in settings["options"]  # at its default, runs made before it still resume
    from ludica.arguments import run_options
    from ludica.cli import build_parser
    parser = build_parser()
    args = parser.parse_args(["play", "x", "--black", "human", "--white", "random"])
    assert run_options(args).human_time == HUMAN_TIME  # the default the help names
    play_help = parser._subparsers._group_actions[0].choices["play"].format_help()
    assert f"default {HUMAN_TIME:g}" in " ".join(play_help.split())
    assert clock(1799.9) == "30:00" and clock(3723) == "1:02:03" and clock(9.46) == "9.5 s"


def _ludica(*args: str, stdin: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ludica.cli", *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout)


def test_a_person_plays_tic_tac_toe_typed_at_ludica_play():
    # typed: the legal moves asked, a typo, a1 twice (the second refused), then every cell in turn
    out = _ludica("play", "tic-tac-toe", "--black", "human", "--white", "random",
                  stdin="?\nzz\na1\na1\n" + "\n".join(CELLS))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "legal moves: a1 b1 c1 a2 b2 c2 a3 b3 c3" in text
    assert "'zz' is not a move: moves are written like a1" in text
    assert "a1 is not a legal move now; ? lists the legal moves" in text
    assert "human plays a1 (" in text and "Game over: " in text
    assert "Black (X), human, 30:00 left: your move" in text  # the clock: --human-time's default


def test_the_end_of_input_resigns_at_ludica_play():
    out = _ludica("play", "tic-tac-toe", "--black", "random", "--white", "human", "--human-time", "90",
                  "--in-process", stdin="")
    assert out.returncode == 0, out.stderr
    assert "White (O), human, 1:30 left: your move" in out.stdout
    assert "o (human) resigns" in out.stdout and "Game over: o (human) resigned: x (random) wins" in out.stdout


def test_a_persons_games_are_recorded_in_the_results_store(tmp_path):
    out = tmp_path / "run"
    played = _ludica("tournament", "tic-tac-toe", "--agent", "human", "--agent", "random", "--analysis-time", "2",
                     "--game-time", "2", "--out", str(out), stdin="\n".join(CELLS * 4))
    assert played.returncode == 0, played.stderr + played.stdout
    db = sqlite3.connect(out / "results.sqlite")
    games = db.execute("SELECT black, white, reason, moves, black_time, white_time, illegal FROM games").fetchall()
    analyses = db.execute("SELECT agent, ok, seconds FROM analyses WHERE agent = 'human'").fetchall()
    db.close()
    assert sorted((b, w) for b, w, *_ in games) == [("human", "random"), ("random", "human")]
    for black, _, reason, moves, black_time, white_time, illegal in games:
        assert reason == "normal" and len(json.loads(moves)) >= 5 and json.loads(illegal) == [0, 0]
        assert (black_time if black == "human" else white_time) > 0  # a person's wall time, charged
    assert analyses == [(HUMAN, 1, 0.0)]  # seated at once: no analysis phase


def _reaped(pid: int, within: float) -> int:
    """The child's wait status, once it ends: killed if it has not ended `within` seconds from now."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]


class Terminal:
    """`ludica ARGS...` at a terminal of its own (a pseudo-terminal), as a person runs it."""

    def __init__(self, *args: str):
        import pty

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: ludica at a terminal of its own
            # as a person's shell leaves it: Ctrl-C interrupts (a test run in the background, under
            # nohup or `cmd &`, inherits SIGINT ignored, and the child would never see the Ctrl-C)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.execv(sys.executable, [sys.executable, "-m", "ludica.cli", *args])
        self.seen = ""

    def read_until(self, text: str | None, after: int = 0, timeout: float = 300) -> None:
        import select

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and (text is None or text not in self.seen[after:]):
            if select.select([self.fd], [], [], 1.0)[0]:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # the child is gone
                    return
                if not chunk:
                    return
                self.seen += chunk.decode(errors="replace")

    def type(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def ended(self) -> tuple[int, str]:
        """Its exit code and all it printed; a child still there after every wait is killed, so the
        test fails, not hangs."""
        status = _reaped(self.pid, within=10.0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status), self.seen.replace("\r\n", "\n")


def test_a_person_plays_at_a_real_terminal_and_ctrl_c_abandons_the_game():
    terminal = Terminal("play", "tic-tac-toe", "--black", "human", "--white", "random", "--in-process")
    try:
        terminal.read_until("your move")
        first = len(terminal.seen)
        terminal.type(b"b2\n")
        terminal.read_until("your move", after=first)  # asked again, after the opponent's move
        terminal.type(b"\x03")  # Ctrl-C: the terminal sends SIGINT
        terminal.read_until(None, timeout=120)
    finally:
        code, text = terminal.ended()
    assert code == 130, text
    assert "1 . . .\n2 . . .\n3 . . ." in text  # the board, with its coordinates
    assert "human plays b2 (" in text and "2 . X ." in text
    assert "interrupted: the game is abandoned" in text and "Traceback" not in text


def test_the_prompt_gives_up_when_the_person_s_clock_runs_out():
    """Nothing typed: at the end of their time the person is told at once, and loses on time."""
    terminal = Terminal("play", "tic-tac-toe", "--black", "human", "--white", "random", "--in-process",
                        "--human-time", "2")
    try:
        terminal.read_until("your move")
        asked = time.monotonic()
        terminal.read_until("time is up", timeout=120)
        waited = time.monotonic() - asked
        terminal.read_until(None, timeout=120)
    finally:
        code, text = terminal.ended()
    assert code == 0, text
    assert "time is up: the game is lost on time" in text and 1.5 < waited < 60
    assert "x (human) exceeded the time limit of 2s!" in text and "x (human) ran out of time: o (random) wins" in text


def test_a_person_plays_phantom_tic_tac_toe_at_ludica_play_seeing_only_their_view():
    """Every board printed before the end shows o's marks only where one of the person's tries was
    refused, and only the person's clock; o's tries are said as tries, each turn once; the end
    shows the whole board."""
    out = _ludica("play", "phantom-tic-tac-toe", "--black", "human", "--white", "random", "--seed", "3",
                  stdin="\n".join(CELLS * 2))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "o (random) tries a move" in text or "random tries a move" in text
    assert "random plays" not in text  # o's moves are never named
    during, _, after = text.partition("Game over")
    refused = set(re.findall(r"human plays ([a-c][1-3]) \(.*\)  \[refused\]", during))
    for board in re.findall(r"  a b c\n((?:[1-3] .*\n){3})", during)[:-1]:  # the last: over, the whole board
        for row, line in enumerate(board.splitlines(), 1):
            for col, mark in zip("abc", line.split()[1:]):
                assert mark != "O" or f"{col}{row}" in refused, (board, refused)
    assert during.count("clocks:") == 1 and "(the opponent's is hidden)" in during  # both: once over
