"""Every table of the report and of `ludica serve`'s run and stage pages, in a real headless browser
(tests/browser.py) at each width of WIDTHS: it fits its room, or it says that it scrolls (a shade at
its cut edge and "scroll →" under it, static/tables.js), and says so only while part of it is out
of sight. The data is real: a small evaluation with many agents, some of long names, its unseen
stages a set `ludica sample` drew, and a sampled set of long changes served beside it.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from browser import WIDTHS, browser_fixture, serve  # noqa: F401  (the fixture `browser`, used by name)

LONG_NAMES = ("alphabeta-with-iterative-deepening-and-transposition-table", "monte-carlo-tree-search-uct-c1.4-rollouts",
              "newcomer-first-python-agent-v2-final")
RANDOM_AGENT = '''import random
NAME = {name!r}


def analyze(stage, api, clock):
    def strategy(state, legal_moves, clock):
        return random.choice(legal_moves)

    return strategy
'''
WAIT_MS = 240_000  # a loaded machine: the first look at a run computes its views

# per table: whether it fits its scroller, and whether its cue is shown, once the page has laid out
# and tables.js has marked it (its ResizeObserver answers within the frame)
TABLES = """async () => {
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return [...document.querySelectorAll("table")].map((table) => {
    const wrap = table.closest(".table-wrap"), hint = wrap && wrap.querySelector(".scroll-hint");
    return {where: (table.closest("section") || document.body).id + " " + table.className,
            fits: table.scrollWidth <= table.parentElement.clientWidth,
            cue: !!hint && hint.getClientRects().length > 0 && getComputedStyle(wrap, "::after").opacity === "1"};
  });
}"""


def _ludica(*arguments: str) -> None:
    done = subprocess.run([sys.executable, "-m", "ludica", *arguments], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tables")
    files = []
    for name in LONG_NAMES:
        files.append(root / f"{name}.py")
        files[-1].write_text(RANDOM_AGENT.format(name=name))
    # raw draws (--filters none): quick, and their changes are the longest
    _ludica("sample", "--base", "tic-tac-toe", "-n", "2", "--seed", "5", "--filters", "none", "--jobs", "1",
            "--out", str(root / "unseen"))
    _ludica("sample", "--base", "standard-8x8", "-n", "8", "--seed", "3", "--filters", "none", "--jobs", "1",
            "--out", str(root / "variants"))
    _ludica("evaluate", *map(str, files), "--stage", "tic-tac-toe", "--unseen", str(root / "unseen"), "--in-process",
            "--analysis-time", "0.2", "--game-time", "0.2", "--resamples", "20", "--reference-games", "1",
            "--out", str(root / "run"))
    return {"run": root / "run", "unseen": root / "unseen", "variants": root / "variants"}


def _check_tables(page, name: str) -> list[dict]:
    """Every table of the page at each width: it fits, or its cue is shown; the cue only if it is cut."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        tables = page.evaluate(TABLES)
        assert tables, f"{name}: no table"
        cut = [t["where"] for t in tables if not t["fits"] and not t["cue"]]
        assert not cut, f"{name} at {width} px: cut without a cue: {cut}"
        false = [t["where"] for t in tables if t["fits"] and t["cue"]]
        assert not false, f"{name} at {width} px: a cue on tables that fit: {false}"
        assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{name} is wider than {width} px"
    return tables


def test_every_table_of_the_report_fits_or_says_it_scrolls(browser, folders):
    page = browser.new_page()
    page.goto((folders["run"] / "report.html").as_uri())
    tables = _check_tables(page, "the report")
    assert {"metrics ", "metrics text-last", "leaderboard leaderboard"} <= {t["where"] for t in tables}


def test_every_table_of_the_run_and_stage_pages_fits_or_says_it_scrolls(browser, folders):
    with serve(folders["run"], folders["unseen"], folders["variants"]) as url:
        page = browser.new_page()
        page.goto(url + "runs/0", timeout=WAIT_MS)
        _check_tables(page, "the run page")
        page.goto(url + "stages", timeout=WAIT_MS)
        assert "Changes from the base" in page.inner_text("#set-1") and "K" in page.inner_text("#set-2")
        _check_tables(page, "the stages page")
        for k in (1, 2):
            for path in sorted(folders["unseen" if k == 1 else "variants"].glob("*.gdl")):
                page.goto(url + f"stages/{k}/{path.name}", timeout=WAIT_MS)
                _check_tables(page, f"the page of {path.name} of set {k}")


def test_a_cut_table_says_so_until_it_is_scrolled_to_its_end(browser, folders):
    page = browser.new_page(viewport={"width": 420, "height": 900})  # narrower than any table fits in
    page.goto((folders["run"] / "report.html").as_uri())
    board = "#leaderboard .table-wrap"  # the page's policy forbids eval: waited for by selectors
    tables = page.evaluate(TABLES)
    leaderboard = next(t for t in tables if t["where"] == "leaderboard leaderboard")
    assert not leaderboard["fits"] and leaderboard["cue"]
    assert page.is_visible(f"{board} .scroll-hint") and page.inner_text(f"{board} .scroll-hint") == "scroll →"
    page.eval_on_selector(f"{board} .table-scroll", "s => { s.scrollLeft = s.scrollWidth; }")
    page.wait_for_selector("#leaderboard .table-wrap:not(.cut)", state="attached")
    assert not page.is_visible(f"{board} .scroll-hint")  # scrolled to its end: nothing more to see
    page.eval_on_selector(f"{board} .table-scroll", "s => { s.scrollLeft = 0; }")
    page.wait_for_selector("#leaderboard .table-wrap.cut", state="attached")
    page.set_viewport_size({"width": 1280, "height": 900})  # room enough: the cue goes
    page.wait_for_selector("#leaderboard .table-wrap:not(.cut)", state="attached")
    assert not page.is_visible(f"{board} .scroll-hint")
