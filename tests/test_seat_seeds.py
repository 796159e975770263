"""Each seat's own seed (leak 4 of the sealing issue): the two seats of a game were told one seed,
and `random` was seeded with it, so an agent held a copy of its opponent's generator and foresaw
every move of the built-in `random`. Now each seat's seed derives from the game's seed and a secret
the run keeps in its folder, which no agent reaches: neither seat can compute the other's, and a
resumed run (or a run given the same secret) plays the very same games."""
from __future__ import annotations

import json
import math
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from ludica import compiler, gdl, stages
from ludica.cli import main
from ludica.gdl.diagnostics import LudicaError
from ludica.runtime import entrants as agents, seatseeds, tournament
from ludica.runtime.plans import Options, StagePlan, game_seed
from ludica.runtime.referee import play_game, stage_hash
from ludica.runtime.runfolder import RunFolderError
from ludica.runtime.sandbox import Answer

HERE = Path(__file__).parent / "agents"
SMALL = stages.path("small-board-6x6")
TIC_TAC_TOE = stages.path("tic-tac-toe")
IN_PROCESS = Options(games=2, analysis_time=5, game_time=5, seed=3, sandbox=False)


def same_secret(out: Path, like: Path) -> None:
    """Start the new run folder `out` with the game secret of the run in `like`: each seat is told
    the seed it was told there, so the same agents play the same games."""
    out.mkdir()
    seatseeds.keep(out, seatseeds.kept(like))


def _rows(out: Path) -> list[dict]:
    db = sqlite3.connect(out / "results.sqlite")
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute("SELECT * FROM games ORDER BY id")]
    finally:
        db.close()


# --- where a seat's seed comes from --------------------------------------------------------------


def test_a_seats_seed_comes_from_the_kept_secret_and_not_from_what_an_agent_knows():
    """The game's seed is public (the run's --seed, the stage's hash, the names, the index); each
    seat's differs from it and from the other seat's, and changes whenever the secret alone does."""
    stage = gdl.load(SMALL)
    plan = StagePlan(stage, (("alpha", "beta"), ("beta", "alpha")), 2, stage.name, 1.0)
    game = plan.seed(0, "alpha", "beta", 1)
    assert game == game_seed(0, stage_hash(stage), "alpha", "beta", 1)  # anyone can compute it
    secret = seatseeds.fresh()
    assert len(secret) * 8 == seatseeds.SECRET_BITS == 128
    black, white = seatseeds.seat_seeds(secret, game)
    assert black != white and game not in (black, white)
    assert seatseeds.seat_seeds(secret, game) == (black, white)  # one secret, one game: the same seeds
    for other in (seatseeds.fresh() for _ in range(3)):  # the same public data, another secret
        again = seatseeds.seat_seeds(other, game)
        assert again[0] != black and again[1] != white
    assert all(0 <= s < 2 ** 63 for g in range(50) for s in seatseeds.seat_seeds(secret, g))


class Told:
    """A seat that notes the seed it is told and plays the first legal move."""

    def __init__(self, name: str):
        self.name, self.seed = name, None

    def start_game(self, seed, budget, seat):
        self.seed = seed
        return Answer({"op": "game-ready"}, 0.0, 0.0)

    def think(self, state, legal, remaining):
        return Answer({"op": "move", "move": legal[0]}, 0.0, 0.0)

    def end_game(self, score=None):
        return "", 0


def test_each_seat_is_told_its_own_seed_and_a_game_outside_a_run_draws_them_from_a_fresh_secret():
    game = compiler.compile(gdl.load(TIC_TAC_TOE))
    seats = (Told("x"), Told("o"))
    record = play_game(game, seats, seed=5, seat_seeds=(11, 12))
    assert (seats[0].seed, seats[1].seed) == record.seat_seeds == (11, 12) and record.seed == 5
    told = []
    for _ in range(2):
        record = play_game(game, seats, seed=5)
        told.append((seats[0].seed, seats[1].seed))
        assert record.seat_seeds == told[-1] and len(set(told[-1])) == 2 and 5 not in told[-1]
    assert told[0] != told[1]  # nobody could have computed them from the game's seed


TOLD = """"use strict";
// Prints each `start` line it is told, and plays the first legal action.
const { readLine, writeLine } = require("./lib.js");
readLine(); readLine(); writeLine("ready");
for (let line = readLine(); line !== null && line !== "quit"; line = readLine()) {
  if (line.startsWith("start")) { console.error(`told: ${line}`); continue; }
  if (line === "end of game") { readLine(); continue; }
  writeLine(readLine().split(" ")[0]);
}
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_an_agent_program_is_told_its_own_seed_at_start(tmp_path):
    """`start SEAT BUDGET SEED` (docs/protocol.md) gives the program its seat's seed, as stored."""
    (tmp_path / "told.js").write_text(TOLD)
    shutil.copy(Path(__file__).parent / "programs" / "lib.js", tmp_path)
    program = agents.program(["node", "told.js"], tmp_path, "told", ["told.js", "lib.js"])
    ended: list[dict] = []
    tournament.run([SMALL], [program, agents.resolve("random")], tmp_path / "run",
                   Options(games=1, analysis_time=2.0, game_time=2.0), on_game=ended.append)
    rows = {(r["black"], r["white"]): r for r in _rows(tmp_path / "run")}
    assert len(ended) == 2
    for game in ended:
        record = game["record"]
        seat = record.players.index("told")
        (text,) = [o["text"] for o in record.output if o["seat"] == seat]
        row = rows[record.players]
        (told,) = re.findall(r"told: start (\d) \S+ (\d+)", text)
        assert told == (str(seat), str((row["black_seed"], row["white_seed"])[seat])) and int(told[1]) != row["seed"]


# --- a run's secret ------------------------------------------------------------------------------


def test_a_run_keeps_its_secret_owner_only_and_stores_the_seed_each_seat_was_told(tmp_path):
    specs = [agents.resolve("random"), agents.resolve("greedy")]
    for name in ("a", "b"):
        tournament.run([TIC_TAC_TOE], specs, tmp_path / name, IN_PROCESS)
        assert (tmp_path / name / seatseeds.SECRET_FILE).stat().st_mode & 0o777 == 0o600
    secret = seatseeds.kept(tmp_path / "a")
    assert secret is not None and secret != seatseeds.kept(tmp_path / "b")
    a, b = _rows(tmp_path / "a"), _rows(tmp_path / "b")
    assert len(a) == len(b) == 4
    for row in a:
        assert row["seed"] == game_seed(3, row["stage_hash"], row["black"], row["white"], row["game_index"])
        assert (row["black_seed"], row["white_seed"]) == seatseeds.seat_seeds(secret, row["seed"])
    # the same public options: the same games' seeds, and other seeds for every seat
    assert [r["seed"] for r in a] == [r["seed"] for r in b]
    assert not {(r["black_seed"], r["white_seed"]) for r in a} & {(r["black_seed"], r["white_seed"]) for r in b}
    log = json.loads(next((tmp_path / "a" / "logs").rglob("0001-*.json")).read_text())
    assert log["metadata"]["seatSeeds"] == [a[0]["black_seed"], a[0]["white_seed"]]


def test_a_new_run_may_start_with_another_runs_secret_and_nothing_else_of_the_users(tmp_path):
    """The secret copied into a new folder replays the run; any other file there is still refused."""
    specs = [agents.resolve("random"), agents.resolve(str(HERE / "last.py"))]
    tournament.run([SMALL], specs, tmp_path / "first", IN_PROCESS)
    same_secret(tmp_path / "again", tmp_path / "first")
    tournament.run([SMALL], specs, tmp_path / "again", IN_PROCESS)
    moves = [(r["seed"], r["black_seed"], r["white_seed"], r["moves"]) for r in _rows(tmp_path / "first")]
    assert moves == [(r["seed"], r["black_seed"], r["white_seed"], r["moves"]) for r in _rows(tmp_path / "again")]
    same_secret(tmp_path / "theirs", tmp_path / "first")
    (tmp_path / "theirs" / "notes.txt").write_text("mine")
    with pytest.raises(RunFolderError, match=r"holds files ludica did not write \(notes.txt\)"):
        tournament.run([SMALL], specs, tmp_path / "theirs", IN_PROCESS)


def test_a_run_folder_from_before_seat_seeds_resumes_its_games_as_played_and_the_rest_from_a_new_secret(tmp_path,
                                                                                                       capsys):
    specs = [agents.resolve("random"), agents.resolve("greedy")]
    out, played = tmp_path / "old", []

    def stop_after_two(g):
        played.append(g)
        if len(played) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tournament.run([TIC_TAC_TOE], specs, out, IN_PROCESS, on_game=stop_after_two)
    # as a folder made before: no secret, and a store without the seat seeds' columns
    (out / seatseeds.SECRET_FILE).unlink()
    db = sqlite3.connect(out / "results.sqlite")
    db.execute("ALTER TABLE games DROP COLUMN black_seed")
    db.execute("ALTER TABLE games DROP COLUMN white_seed")
    db.commit()
    before = [(r["seed"], r["moves"], r["result"]) for r in _rows(out)]
    db.close()
    tournament.run([TIC_TAC_TOE], specs, out, IN_PROCESS, resume=True)
    rows, secret = _rows(out), seatseeds.kept(out)
    assert secret is not None and (out / seatseeds.SECRET_FILE).stat().st_mode & 0o777 == 0o600
    assert [(r["seed"], r["moves"], r["result"]) for r in rows[:2]] == before  # as they were played
    assert all(r["black_seed"] is None and r["white_seed"] is None for r in rows[:2])
    assert len(rows) == 4 and all((r["black_seed"], r["white_seed"]) == seatseeds.seat_seeds(secret, r["seed"])
                                  for r in rows[2:])
    assert main(["report", str(out)]) == 0 and (out / "report.html").is_file(), capsys.readouterr().out


@pytest.mark.parametrize("text, said", [
    ('{"secret": "00', "is cut short or is not JSON"),
    ('{"seed": 1}', "does not hold a game secret"),
    ('{"secret": "abcd"}', "the game secret has 16 bits, not 128"),
])
def test_a_damaged_secret_is_said_with_its_file_and_what_to_do_before_any_work(tmp_path, text, said):
    out = tmp_path / "run"
    out.mkdir()
    (out / seatseeds.SECRET_FILE).write_text(text)
    for attempt in (lambda: seatseeds.kept_or_made(out),
                    lambda: tournament.run([TIC_TAC_TOE], [agents.resolve("random"), agents.resolve("greedy")], out,
                                           IN_PROCESS)):
        with pytest.raises(LudicaError, match=re.escape(said)) as caught:
            attempt()
        assert str(out / seatseeds.SECRET_FILE) in str(caught.value) and "start the run again" in str(caught.value)
    assert sorted(p.name for p in out.iterdir()) == [seatseeds.SECRET_FILE]  # refused before the store was made


# --- an agent that tries to foresee its opponent --------------------------------------------------


def _foresight(out: Path, games: int) -> list[tuple[int, int, float, float]]:
    """A sandboxed round robin of tests/agents/foresight.py and the built-in random on the 6x6
    board: per game, (the opponent's moves it foresaw, the moves it checked, the number a guess
    gets right on average and its variance)."""
    ended: list[dict] = []
    tournament.run([SMALL], [agents.resolve(str(HERE / "foresight.py")), agents.resolve("random")], out,
                   Options(games=games, analysis_time=2.0, game_time=2.0), on_game=ended.append)
    counts = []
    for game in ended:
        record = game["record"]
        seat = record.players.index("foresight")
        (text,) = [o["text"] for o in record.output if o["seat"] == seat]
        hits, checked, chance, variance = re.findall(r"foresaw (\d+) of (\d+), by chance ([\d.]+) ([\d.]+)", text)[-1]
        counts.append((int(hits), int(checked), float(chance), float(variance)))
    return counts


def test_an_agent_cannot_foresee_the_random_opponents_moves_from_its_own_seed(tmp_path):
    """Before: the copy of its own generator foresaw every move of `random` (54 of 54 in the
    issue). Now its copy is no better than a guess: right about as often as one legal move drawn
    at random (four standard deviations above that fail one test in some 30000)."""
    counts = _foresight(tmp_path / "run", games=2)
    hits, checked, chance, variance = (sum(c[i] for c in counts) for i in range(4))
    assert len(counts) == 4 and checked >= 40, counts
    assert hits <= chance + 4 * math.sqrt(variance), f"foresaw {hits} of {checked} moves of the opponent, where " \
                                                     f"a guess gets {chance:.1f} ± {math.sqrt(variance):.1f}: {counts}"
