"""`ludica serve` in a real headless browser (tests/browser.py: Playwright and the system's
Chromium; skipped, saying so, without them), started as a real process on a free loopback port: a
stage page renders; a run page shows a leaderboard while a real tournament goes on in another
process and updates as its games land, without reloading; a hostile agent name renders as text.
Each page is also photographed at 1280 and 800 px (into $LUDICA_SCREENSHOTS when set, to look at).
"""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from browser import WIDTHS, browser_fixture, serve  # noqa: F401  (the fixture `browser`, used by name)

from ludica import gdl, stages

HOSTILE = '<img src=x onerror="alert(1)">'
# random, slowed by sleeping (wall time, not its CPU clock): the run lasts while the page watches
SLOW_HOSTILE_AGENT = f'''import random, time
NAME = {HOSTILE!r}


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        time.sleep(0.25)
        return random.choice(legal_moves)

    return strategy
'''
WAIT_MS = 240_000  # a loaded machine: the first look at a run computes its views


def photograph(page, name: str, tmp_path: Path) -> None:
    """The page at each width in WIDTHS, whole, and nothing wider than the window."""
    folder = Path(os.environ.get("LUDICA_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{name} is wider than {width} px"


def test_a_stage_page_renders(browser, tmp_path):
    with serve() as url:
        page = browser.new_page()
        page.goto(url + "stages/0/standard-8x8.gdl", timeout=WAIT_MS)
        stage = gdl.load(stages.path("standard-8x8"))
        assert page.inner_text("h1") == stage.name
        spec = json.loads(page.inner_text("#stage-board-data"))
        assert (spec["rows"], spec["cols"], len(spec["cells"])) == (8, 8, 64)
        assert spec["cells"].count("1") == spec["cells"].count("2") == 2
        assert "move place empty" in page.inner_text("pre.gdl")
        assert "bits" in page.inner_text("#stage-figures")
        assert page.locator("#stage-board svg .cell").count() == 64  # drawn by board.js, the one renderer
        assert page.locator("#stage-board svg .piece").count() == 4
        photograph(page, "stage", tmp_path)
        page.goto(url + "stages", timeout=WAIT_MS)
        assert page.locator("#set-0 tbody tr").count() == len(stages.bundled())
        photograph(page, "stages", tmp_path)


def _games(folder: Path) -> int:
    try:
        with sqlite3.connect(f"{(folder / 'results.sqlite').as_uri()}?mode=ro", uri=True) as db:
            return db.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.Error:  # not made yet
        return 0


def test_a_run_page_updates_as_games_land_and_names_are_text(browser, tmp_path):
    agent = tmp_path / "slow.py"
    agent.write_text(SLOW_HOSTILE_AGENT)
    # a long path, in one piece, is the page's title: it wraps, and the page stays within the window
    # (a run folder 10 characters deeper made it 802 px wide at 800)
    run = tmp_path / ("run-" + "deep" * 20)
    tournament = subprocess.Popen(
        [sys.executable, "-m", "ludica", "tournament", "tic-tac-toe", "--agent", "random", "--agent", str(agent),
         "--games", "15", "--in-process", "--analysis-time", "1", "--game-time", "5", "--out", str(run)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + WAIT_MS / 1000
        while _games(run) < 1:
            assert tournament.poll() is None, tournament.stderr.read()[-2000:]
            assert time.monotonic() < deadline, "the tournament wrote no game"
            time.sleep(0.5)
        with serve(run) as url:
            page = browser.new_page()
            alerts: list[str] = []
            page.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
            page.goto(url + "runs/0", timeout=WAIT_MS)
            names = page.locator("table.leaderboard tbody td:nth-child(2)").all_inner_texts()
            assert sorted(names) == sorted(["random", HOSTILE])
            first = int(page.get_attribute("#run-views", "data-games"))
            page.evaluate("window.stillTheSamePage = true")
            deadline = time.monotonic() + WAIT_MS / 1000  # polled from here: the page's policy forbids eval
            while int(page.get_attribute("#run-views", "data-games")) <= first:
                assert time.monotonic() < deadline, f"the page still shows {first} games"
                page.wait_for_timeout(250)
            assert page.evaluate("window.stillTheSamePage") is True  # updated in place, not reloaded
            assert tournament.poll() is None or _games(run) == 30  # 2 agents, 15 games a seating
            assert page.locator("table.leaderboard tbody tr").count() == 2
            later = int(page.get_attribute("#run-views", "data-games"))
            assert page.locator("#games tbody tr").count() == later  # every game a link to its replay
            assert page.locator("#games a[href^='/runs/0/replay#game=']").count() == later
            assert page.locator("img").count() == 0 and not alerts
            assert HOSTILE in page.inner_text("#games")
            photograph(page, "run", tmp_path)
            page.goto(url + "runs/0/replay#game=0&ply=0", timeout=WAIT_MS)
            assert page.locator("#replay-board svg").count() == 1 and not alerts
            photograph(page, "replay", tmp_path)
    finally:
        if tournament.poll() is None:
            tournament.terminate()
        tournament.wait(timeout=60)
