"""A hidden-information game in the report's replay, in a real headless browser (Debian's chromium
driven by Playwright): the board is the truth, or, chosen in the page or named by the address
(#seat=0, #seat=1), the view of either seat at that try; refused tries are marked in the move list
and the position line. Skipped, saying so, without Playwright or Chromium."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ludica import stages

from browser import browser_fixture  # noqa: F401  (the fixture `browser`, used by name)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    from ludica.evaluation import summarise, write_report
    from ludica.runtime import Run, entrants, tournament

    out = tmp_path_factory.mktemp("dark") / "run"
    tournament.run([stages.path("phantom-tic-tac-toe")], [entrants.resolve("random"), entrants.resolve("greedy")],
                   out, tournament.Options(games=4, analysis_time=2.0, game_time=5.0, seed=5, sandbox=False))
    with Run.read(out) as run:
        summary = summarise(run.store, resamples=20, seed=3)
    return write_report(summary, out)["html"]


def _games(report: Path) -> list[dict]:
    text = report.read_text(encoding="utf-8")
    data = text[text.index('<script id="replay-data" type="application/json">') + 49:]
    return json.loads(data[: data.index("</script>")])


def test_the_replay_shows_the_truth_or_either_seats_view(browser, report):
    games = _games(report)
    k, g = next((k, g) for k, g in enumerate(games) if any(g.get("refused", [])))
    ply = g["refused"].index(True) + 1  # just after a refused try
    assert len(g["views"][0]) == len(g["boards"]) == len(g["views"][1])
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    for seat, cells in (("", g["boards"][ply]), ("0", g["views"][0][ply]), ("1", g["views"][1][ply])):
        tab.goto(report.as_uri() + f"#game={k}&ply={ply}" + (f"&seat={seat}" if seat else ""))
        tab.wait_for_selector("#replay-board svg")
        assert tab.is_visible("#replay-seat-box") and tab.input_value("#replay-seat") == seat
        shown = tab.eval_on_selector_all("#replay-board .piece", "es => es.map(e => e.getAttribute('class'))")
        assert sorted(shown) == sorted(f"piece piece-{c}" for c in cells if c in "12")
        where = tab.text_content("#replay-where")
        assert f"try {ply} of" in where and "(refused)" in where
        assert ("saw it" in where) == bool(seat)
        tab.screenshot(path=str(report.parent / f"replay-seat{seat or '-truth'}.png"))
    # the truth and a view differ somewhere in this game: the views are not the boards
    assert any(v != b for v, b in zip(g["views"][0], g["boards"]))
    assert " refused" in tab.text_content("#replay-moves")
    tab.select_option("#replay-seat", "")  # back to the truth, and the address follows
    assert "seat=" not in tab.evaluate("location.hash")
    context.close()
    assert errors == []
