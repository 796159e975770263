"""The report's replay in a real headless browser (Debian's chromium driven by Playwright's Python
package): it steps with the keyboard and autoplays, the address follows the position and a changed
address is followed (issue 22's #game=K&ply=P, #agent=NAME, #pair=A|B), the board is drawn with its
coordinates, last move and captures, the links of the leaderboard land on their games, and a
hostile agent name stays text everywhere (the list, the filter, the address).

Needs Playwright (`pip install -e '.[test]'`) and Chromium (Debian: `apt-get install chromium`);
without either these tests are skipped, saying so."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from test_report_views import HOSTILE, make_run

playwright = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed: pip install -e '.[test]'")
BROWSER = next((shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium to open the report in (Debian: apt-get "
                                                        "install chromium)")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    from ludica.evaluation import summarise, write_report
    from ludica.runtime import Run

    folder = make_run(tmp_path_factory.mktemp("replay"))
    with Run.read(folder) as run:
        summary = summarise(run.store, resamples=20, seed=3)
    return write_report(summary, folder)["html"]


@pytest.fixture(scope="module")
def games(report) -> list[dict]:
    text = report.read_text(encoding="utf-8")
    data = text[text.index('<script id="replay-data" type="application/json">') + 49:]
    return json.loads(data[: data.index("</script>")])


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=BROWSER, args=ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, report):
    """Open the report at an address; the page's script errors are collected and must stay none."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda e: errors.append(str(e)))

    def at(fragment: str = ""):
        tab.goto(report.as_uri() + fragment)
        tab.wait_for_selector("#replay-board svg")
        return tab

    yield at
    context.close()
    assert errors == []


def _until(tab, condition: str, seconds: float = 10) -> None:
    """Wait until the page's `condition` (an expression) holds: polled from here, as the page's
    policy lets no string be evaluated as a script inside it (Playwright's wait_for_function does)."""
    for _ in range(int(seconds / 0.05)):
        if tab.evaluate(condition):
            return
        tab.wait_for_timeout(50)
    raise AssertionError(f"not within {seconds} s: {condition}")


def _on_screen(tab, selector: str) -> bool:
    return tab.evaluate("s => { const r = document.querySelector(s).getBoundingClientRect(); "
                        "return r.top >= 0 && r.bottom <= window.innerHeight; }", selector)


def _where(tab) -> str:
    return tab.text_content("#replay-where")


def _othello(games: list[dict]) -> int:
    return next(i for i, g in enumerate(games) if g["stage"] == "Othello 4x4" and len(g["moves"]) >= 4
                and any(g["taken"]))


def test_the_replay_steps_with_the_keyboard_and_the_address_follows(page, games):
    k = _othello(games)
    n = len(games[k]["moves"])
    tab = page(f"#game={k}&ply=0")
    assert _where(tab).startswith(f"ply 0 of {n}")
    for _ in range(3):
        tab.keyboard.press("ArrowRight")
    assert _where(tab) == f"ply 3 of {n}: {games[k]['moves'][2]}"
    assert tab.evaluate("location.hash") == f"#game={k}&ply=3"
    tab.keyboard.press("ArrowLeft")
    assert tab.evaluate("location.hash") == f"#game={k}&ply=2"
    tab.keyboard.press("End")
    assert _where(tab).startswith(f"ply {n} of {n}") and tab.evaluate("location.hash") == f"#game={k}&ply={n}"
    tab.keyboard.press("Home")
    assert _where(tab).startswith(f"ply 0 of {n}")


def test_a_changed_address_is_followed_and_scrolled_into_view(page, games):
    k = _othello(games)
    tab = page("#game=0&ply=0")
    tab.evaluate("window.scrollTo(0, 0)")
    tab.evaluate(f"location.hash = '#game={k}&ply=2'")
    _until(tab, f"document.getElementById('replay-game').value === '{k}'")
    assert _where(tab).startswith(f"ply 2 of {len(games[k]['moves'])}")
    assert tab.evaluate("window.scrollY") > 0 and _on_screen(tab, "#replay-board")  # not the top of the page


def test_an_opened_address_shows_the_replay_on_screen(page, games):
    tab = page(f"#game={_othello(games)}&ply=1")
    assert tab.evaluate("window.scrollY") > 0 and _on_screen(tab, "#replay-board")


def test_the_board_has_coordinates_the_last_move_and_the_captures(page, games):
    k = _othello(games)
    g = games[k]
    ply = next(p for p in range(1, len(g["moves"]) + 1) if g["taken"][p - 1] and g["moves"][p - 1] != "pass")
    tab = page(f"#game={k}&ply={ply}")
    labels = tab.eval_on_selector_all("#replay-board .coordinate", "es => es.map(e => e.textContent)")
    assert sorted(labels) == sorted(2 * ["a", "b", "c", "d", "1", "2", "3", "4"])  # both edges
    assert tab.eval_on_selector_all("#replay-board .last", "es => es.length") == 1
    assert tab.eval_on_selector_all("#replay-board .taken", "es => es.length") == len(g["taken"][ply - 1])
    assert tab.eval_on_selector_all("#replay-board .piece", "es => es.length") == sum(g["counts"][ply])
    first, second = g["counts"][ply]
    status = tab.text_content("#replay-status")
    assert f"{g['black']}: {first} pieces, clock " in status and f"{g['white']}: {second} pieces" in status
    assert f"of {g['budget'][0]:g} s" in status


def test_autoplay_moves_on_by_itself(page, games):
    k = _othello(games)
    tab = page(f"#game={k}&ply=0")
    tab.select_option("#replay-speed", "8")
    tab.click("#replay-play")
    _until(tab, "!document.getElementById('replay-where').textContent.startsWith('ply 0 ')")
    tab.click("#replay-play")  # pause
    assert tab.text_content("#replay-play").startswith("▶")


def test_the_leaderboard_link_lands_on_the_agent_s_games_and_a_hostile_name_stays_text(page, games):
    tab = page()
    title = tab.title()
    tab.click("#leaderboard a[href^='#agent=%3Cimg']")
    _until(tab, "document.getElementById('replay-filter').textContent.startsWith('Showing')")
    mine = [i for i, g in enumerate(games) if HOSTILE in (g["black"], g["white"])]
    shown = tab.eval_on_selector_all("#replay-game option", "os => os.map(o => +o.value)")
    assert shown == mine
    assert HOSTILE in tab.text_content("#replay-filter") and HOSTILE in tab.text_content("#replay-moves")
    assert tab.evaluate("document.querySelectorAll('img').length") == 0 and tab.title() == title
    assert tab.evaluate("location.hash").startswith("#agent=%3Cimg")  # still encoded as it follows the position
    tab.keyboard.press("ArrowRight")
    assert tab.evaluate("decodeURIComponent(location.hash.split('&')[0].slice(7))") == HOSTILE


def test_a_pair_s_address_lists_only_the_games_between_them(page, games):
    tab = page("#pair=greedy|random")
    between = [i for i, g in enumerate(games) if {g["black"], g["white"]} == {"greedy", "random"}]
    assert between and tab.eval_on_selector_all("#replay-game option", "os => os.map(o => +o.value)") == between
    tab.click("#replay-filter a")  # show all games
    _until(tab, f"document.querySelectorAll('#replay-game option').length === {len(games)}")


def test_board_js_offers_highlighted_cells_and_names_the_one_clicked(browser):
    """The renderer the live pages use too: a person's legal moves lit and clickable (the callback
    gets the cell's name), blocked cells drawn as such, hexagons with their coordinates."""
    from ludica.evaluation import page as pages

    tab = browser.new_page()
    tab.set_content("<div id='b'></div><div id='h'></div>")
    tab.add_script_tag(content=str(pages.static("board.js")))
    counts = tab.evaluate("""() => {
        window.clicked = [];
        const drawn = ludicaBoard.draw(document.getElementById('b'), {rows: 3, cols: 4, cells: '12..#...2...',
            highlight: ['c1', 'b3', 'a3'], onCell: name => clicked.push(name)});
        ludicaBoard.draw(document.getElementById('h'), {rows: 2, cols: 2, hex: true, cells: '1..2'});
        return drawn.counts;
    }""")
    assert counts == [1, 2]
    assert tab.eval_on_selector_all("#b .lit", "es => es.map(e => e.dataset.cell)") == ["c1", "a3", "b3"]
    assert tab.eval_on_selector_all("#b .blocked", "es => es.map(e => e.dataset.cell)") == ["a2"]
    tab.click("#b [data-cell='b3']")
    tab.click("#b [data-cell='a3']")  # through the piece on it
    tab.click("#b [data-cell='d3']", force=True)  # not offered: nothing happens
    assert tab.evaluate("clicked") == ["b3", "a3"]
    assert tab.evaluate("ludicaBoard.cellName(2, 1)") == "b3"
    assert tab.eval_on_selector_all("#h polygon.cell", "es => es.length") == 4
    assert sorted(tab.eval_on_selector_all("#h .coordinate", "es => es.map(e => e.textContent)")) == \
        sorted(2 * ["a", "b", "1", "2"])
    tab.close()
