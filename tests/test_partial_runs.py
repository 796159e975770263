"""A run cut short, or still going, gives a report (issue 38): `ludica report` and `ludica serve`'s
run page and replay, for every prefix of a real small evaluation's games (every count from 0 to
the end, in the order they were written: what Ctrl-C leaves) and random subsets of them (a copy of
a store written by several jobs); what is not yet estimable is said as such, the header counts
the stages played, and the page tells to --resume only a run that has stopped."""
from __future__ import annotations

import contextlib
import io
import json
import shutil
import sqlite3
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra installs it)")
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from ludica.cli import main
from ludica.evaluation import outcomes, rate, summarise
from ludica.runtime import Run, seatseeds
from ludica.runtime.records import lock_folder
from ludica.web import create_app, sort_folders

HERE = Path(__file__).parent
SECRET = "5eed" * 8  # the run's game secret, 128 bits (the fixture `run`)
LOCAL = "http://127.0.0.1"
UNSEEN = {"three-in-a-row-4x4.gdl": 'game "Three in a row, 4x4"\nboard square 4\nplayers x o\nmove place empty\n'
                                    'end line 3: mover wins\nend board-full: draw\n',
          "four-in-a-row-4x5.gdl": 'game "Four in a row, 4x5"\nboard rect 4 5\nplayers x o\nmove place empty\n'
                                   'end line 4: mover wins\nend board-full: draw\n'}


def _quietly(argv: list[str]) -> tuple[int, str]:
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        code = main(argv)
    return code, " ".join(said.getvalue().split())


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A real evaluation, small and quick: two baselines and a submitted agent (so adaptation
    and reference games are in the store too) on a public stage and two unseen ones: 26 games."""
    root = tmp_path_factory.mktemp("partial")
    unseen = root / "unseen"
    unseen.mkdir()
    for name, text in UNSEEN.items():
        (unseen / name).write_text(text)
    # the run's game secret, fixed: the seats' seeds, and so the games of these deterministic agents,
    # are the same in every run of the suite (a fresh secret once drew 7 games that rate everyone
    # alike, where a test below needs them not to)
    (root / "run").mkdir()
    seatseeds.keep(root / "run", bytes.fromhex(SECRET))
    code, said = _quietly(["evaluate", "--no-builtins", "random", "greedy", str(HERE / "agents" / "last.py"),
                           "--stage", "tic-tac-toe", "--unseen", str(unseen), "--in-process", "--analysis-time", "0.1",
                           "--game-time", "0.5", "--adaptation", "0.5", "--reference-games", "2", "--resamples", "10", "--jobs", "1",
                           "--out", str(root / "run")])
    assert code == 0, said
    return root / "run"


def _ids(run: Path) -> list[int]:
    with contextlib.closing(sqlite3.connect(run / "results.sqlite")) as db:
        return [i for (i,) in db.execute("SELECT id FROM games ORDER BY id")]


def _cut(run: Path, folder: Path, keep: set[int]) -> Path:
    """A copy of the run's store holding only the games `keep` (by id), as a stop leaves it."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shutil.copy(run / "results.sqlite", folder / "results.sqlite")
    with contextlib.closing(sqlite3.connect(folder / "results.sqlite")) as db:
        db.executemany("DELETE FROM games WHERE id = ?", [(i,) for i in _ids(run) if i not in keep])
        db.commit()
    return folder


def _check_reports(folder: Path) -> None:
    """`ludica report` and the run page, its views and its replay all answer with a report."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a plot drawn over nothing warns: that is no report either
        code, said = _quietly(["report", str(folder), "--resamples", "10"])
        assert code == 0 and "Traceback" not in said and "Leaderboard:" in said, said
        client = TestClient(create_app(sort_folders([folder]), resamples=10), base_url=LOCAL)
        for url in ("/runs/0", "/runs/0/replay"):  # (/runs/0/views is the page's own part)
            answer = client.get(url)
            assert answer.status_code == 200, (url, answer.text[-2000:])


def test_every_prefix_of_a_run_gives_a_report(run, tmp_path):
    ids = _ids(run)
    assert len(ids) == 30
    for k in range(len(ids) + 1):
        _check_reports(_cut(run, tmp_path / "prefix", set(ids[:k])))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_subset_of_a_run_s_games_gives_a_report(run, tmp_path, data):
    ids = _ids(run)
    keep = data.draw(st.sets(st.sampled_from(ids)), label="games kept")
    _check_reports(_cut(run, tmp_path / "subset", keep))


def _summary(folder: Path):
    with Run.read(folder) as held:
        return summarise(held.store, resamples=10)


def test_an_agent_without_a_game_is_said_to_be_not_rated_yet(run, tmp_path):
    folder = _cut(run, tmp_path / "one", set(_ids(run)[:1]))  # random–greedy's first game alone
    code, said = _quietly(["report", str(folder), "--resamples", "10"])
    assert code == 0 and said.count("│ no game yet │") == 1  # last: no Elo, no interval, no rank
    assert "│ — │ last │ — │ no game yet │ — │ — │ 0-0-0 │" in said
    page = (folder / "report.html").read_text()
    assert page.count("<td>no game yet</td>") == 1
    empty = _cut(run, tmp_path / "none", set())
    code, said = _quietly(["report", str(empty), "--resamples", "10"])
    assert code == 0 and said.count("│ no game yet │") == 3
    assert "No stage played yet" in (empty / "report.html").read_text()


def test_the_header_counts_the_stages_played(run, tmp_path):
    folder = _cut(run, tmp_path / "cut", set(_ids(run)[:7]))  # the public stage's 6 games, and one more
    code, said = _quietly(["report", str(folder), "--resamples", "10"])
    assert code == 0 and "Leaderboard: 2 of 3 stages, 7 games" in said
    assert "ludica evaluation: 3 agents, 2 of 3 stages, 7 games" in (folder / "report.html").read_text()
    code, said = _quietly(["report", str(run), "--resamples", "10"])
    assert "Leaderboard: 3 stages," in said


def test_a_stage_in_progress_weighs_by_its_share_of_its_planned_games(run, tmp_path):
    """Its first game counts as one game of the stage's 6 (each stage plans as many: a round robin of
    three, one game per seating), not as a whole stage as it did before issue 34."""
    folder = _cut(run, tmp_path / "cut", set(_ids(run)[:7]))  # the public stage's 6 games, and one more
    summary = _summary(folder)
    assert len(summary.games) == 7 and summary.stages_played == 2
    seed = int(json.loads(summary.settings["evaluation"])["config"]["seed"])
    by_games = rate(outcomes(summary.games), summary.agents, resamples=10, seed=seed, equal_stages=False)
    assert [(r.name, r.elo, r.low, r.high) for r in summary.overall.ratings] == \
        [(r.name, r.elo, r.low, r.high) for r in by_games.ratings]
    assert len({r.elo for r in by_games.ratings}) > 1, "the games rate everyone alike: they tell nothing"
    whole = rate(outcomes(summary.games), summary.agents, resamples=10, seed=seed)
    assert [r.elo for r in whole.ratings] != [r.elo for r in summary.overall.ratings]


def test_the_live_page_tells_to_resume_only_a_run_that_has_stopped(run, tmp_path):
    folder = _cut(run, tmp_path / "cut", set(_ids(run)[:10]))
    client = TestClient(create_app(sort_folders([folder]), resamples=10), base_url=LOCAL)
    stopped = client.get("/runs/0").text
    assert "--resume" in stopped and "still going" not in stopped
    with lock_folder(folder):  # as a run holds its folder while it plays
        going = client.get("/runs/0").text
    assert "still going" in going and "--resume" not in going and 'data-running="true"' in going


def test_a_report_elsewhere_of_a_run_still_going_says_it_goes_on_not_to_resume_it(run, tmp_path):
    """`ludica report DIR --out OTHER` while a run holds DIR: the page and the terminal say the run
    is still going (a stopped run's alone are told to --resume)."""
    folder = _cut(run, tmp_path / "cut", set(_ids(run)[:10]))
    with lock_folder(folder):  # as a run holds its folder while it plays
        code, said = _quietly(["report", str(folder), "--out", str(tmp_path / "going"), "--resamples", "10"])
    page = (tmp_path / "going" / "report.html").read_text()
    assert code == 0 and "still going" in page and "--resume" not in page
    assert "still going" in said and "--resume" not in said
    code, said = _quietly(["report", str(folder), "--out", str(tmp_path / "stopped"), "--resamples", "10"])
    assert "--resume" in (tmp_path / "stopped" / "report.html").read_text() and "--resume" in said
