"""The Play page of `ludica serve` in a real headless browser (tests/browser.py: Playwright and the
system's Chromium; skipped, saying so, without them), the server a real process on a free loopback
port with the agents sandboxed as usual: a person plays a whole game of tic-tac-toe against
`random` by clicking the lit cells, and the game lands in the play store; a game between two
built-ins is drawn ply by ply as it goes; a person with no move passes unasked; a closed page
resigns its person's game. Pages photographed at 1280 and 800 px (into
$LUDICA_SCREENSHOTS when set, to look at)."""
from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path

import pytest
from browser import browser_fixture, serve  # noqa: F401  (the fixture `browser`, used by name)
from test_serve_browser import WAIT_MS, photograph

from ludica.runtime.runfolder import STORE

# every ply the page shows, in order, as the page's script sets it (run before the page's own scripts)
WATCH_PLIES = """
window.__plies = [];
document.addEventListener("DOMContentLoaded", () => {
  const counter = document.getElementById("play-ply");
  if (!counter) return;
  new MutationObserver(() => window.__plies.push(Number(counter.dataset.ply)))
    .observe(counter, {attributes: true, attributeFilter: ["data-redraws"]});
});
"""


def new_game(page, url: str, black: str, white: str, stage: str) -> str:
    """The /play form filled and sent: the game's page's address."""
    page.goto(url + "play", timeout=WAIT_MS)
    page.select_option("select[name=stage]", value=f"0/{stage}")
    page.select_option("select[name=black]", black)
    page.select_option("select[name=white]", white)
    page.fill("input[name=analysis_time]", "0.5")
    page.click("#play-new button[type=submit]")
    page.wait_for_url(re.compile(r"/play/\d+$"), timeout=WAIT_MS)
    return page.url


def test_a_person_plays_tic_tac_toe_against_random_by_clicking(browser, tmp_path):
    with serve() as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        store = Path(re.search(r"Games are stored in (\S+), a run folder", _text(page, url + "play"))[1])
        photograph(page, "play-form", tmp_path)
        new_game(page, url, "human", "random", "tic-tac-toe.gdl")
        clicks = 0
        while True:
            page.wait_for_selector("#play-board .lit, #play-end:not([hidden])", timeout=WAIT_MS)
            if page.is_visible("#play-end"):
                break
            if clicks == 0:
                photograph(page, "play-your-move", tmp_path)
                # a refusal is shown: a cell taken already is not offered, so POST one by hand
                status = page.evaluate("() => fetch(document.getElementById('play-game').dataset.move, {method: 'POST', "
                                       "headers: {'Content-Type': 'application/json'}, body: '{\"move\": \"z9\"}'})"
                                       ".then(r => r.status)")
                assert status == 422
                # the page shows a refusal's message (this one made up by the browser's network layer)
                page.route("**/move", lambda route: route.fulfill(status=422, json={"error": "b2 refused here"}))
                page.locator("#play-board .lit").first.click()
                page.wait_for_selector("#play-problem:has-text('b2 refused here')", timeout=WAIT_MS)
                page.unroute("**/move")
                # the person's clock runs down in the page while they think
                before = page.locator("#clock-0 .clock").text_content()
                page.wait_for_timeout(1200)
                assert page.locator("#clock-0 .clock").text_content() != before
                assert page.locator("#clock-1 .clock").text_content() == "0:10.0"
            played = page.locator("#play-ply").get_attribute("data-ply")
            page.locator("#play-board .lit").first.click()
            clicks += 1
            # the move went: the board is drawn again with a later ply (random's reply, or the end)
            page.wait_for_selector(f"#play-ply:not([data-ply='{played}']), #play-end:not([hidden])",
                                   timeout=WAIT_MS)
        assert 3 <= clicks <= 5
        assert page.locator("#play-result").text_content()
        assert "Game over" in page.locator("#play-log").text_content()
        photograph(page, "play-over", tmp_path)
        page.click("#play-replay")
        page.wait_for_selector("svg.ludica-board", timeout=WAIT_MS)
        photograph(page, "play-replay", tmp_path)
        games = sorted(store.glob("game-*"))
        assert len(games) == 1
        with sqlite3.connect(games[0] / STORE) as db:
            black, white, plies, black_time = db.execute("SELECT black, white, plies, black_time FROM games").fetchone()
        assert (black, white) == ("human", "random") and clicks <= plies <= 2 * clicks and black_time > 0


def test_a_game_between_two_builtins_is_drawn_ply_by_ply(browser, tmp_path):
    with serve() as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.add_init_script(WATCH_PLIES)
        new_game(page, url, "greedy", "random", "connect-four.gdl")
        page.wait_for_selector("#play-end:not([hidden])", timeout=WAIT_MS)
        plies = page.evaluate("window.__plies")
        last = int(page.locator("#play-ply").get_attribute("data-ply"))
        assert last >= 7 and plies == list(range(last + 1))  # every position drawn, in order, once
        assert page.locator("#play-board .lit").count() == 0  # no person: nothing offered
        assert page.locator("#play-board .last").count() >= 1
        photograph(page, "play-agents", tmp_path)


FORCED_PASS = """game "Forced pass"
board square 4
players black white
setup black c3 a3 b2
setup white d3 d2
move place empty
  flip custodial all
  require capture
pass forced
end no-moves: most-pieces
"""


def test_a_person_with_no_move_passes_unasked_then_plays(browser, tmp_path):
    """Black, the person, has no move at the start (this stage's setup): the pass is played for
    them, the page says so and offers nothing; White answers and the person's cells are lit."""
    folder = tmp_path / "stages"
    folder.mkdir()
    (folder / "forced-pass.gdl").write_text(FORCED_PASS)
    with serve(folder) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url + "play", timeout=WAIT_MS)
        page.select_option("select[name=stage]", value="1/forced-pass.gdl")
        page.select_option("select[name=black]", "human")
        page.select_option("select[name=white]", "random")
        page.fill("input[name=analysis_time]", "0.5")
        page.click("#play-new button[type=submit]")
        page.wait_for_selector("#play-board .lit", timeout=WAIT_MS)  # White has played: the person's move
        assert page.locator("#play-ply").get_attribute("data-ply") == "2"
        assert set(page.locator("#play-board .lit").evaluate_all("es => es.map(e => e.dataset.cell)")) <= {
            "a1", "a2", "a4", "b1", "b3", "b4", "c1", "c2", "c4", "d1", "d4"}
        page.locator("#play-board .lit").first.click()
        page.wait_for_selector("#play-ply:not([data-ply='2'])", timeout=WAIT_MS)
        page.wait_for_selector("#play-resign:not([hidden]), #play-end:not([hidden])", timeout=WAIT_MS)
        if page.is_visible("#play-resign"):
            page.click("#play-resign")
        page.wait_for_selector("#play-end:not([hidden])", timeout=WAIT_MS)
        assert "human passes" in page.locator("#play-log").text_content()


def test_a_closed_page_resigns_its_person_s_game(browser, tmp_path):
    store = tmp_path / "store"
    with serve(options=("--abandon-after", "5", "--play-store", str(store))) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        new_game(page, url, "human", "random", "tic-tac-toe.gdl")
        page.wait_for_selector("#play-board .lit", timeout=WAIT_MS)
        page.close()  # the person walks away: the game must not wait out their 30 minutes
        deadline = time.monotonic() + 60
        while not _stored(store / "game-1"):
            assert time.monotonic() < deadline, "the abandoned game never ended"
            time.sleep(0.2)
        (reason, log), = _stored(store / "game-1")
        assert reason == "resign" and "resign" in log.lower()


def _stored(folder: Path) -> list:
    if not (folder / STORE).is_file():
        return []
    with sqlite3.connect(folder / STORE) as db:
        return db.execute("SELECT reason, log FROM games").fetchall()


def _text(page, address: str) -> str:
    page.goto(address, timeout=WAIT_MS)
    return page.locator("body").text_content()


def test_a_person_moves_a_piece_from_a_cell_to_a_cell_then_resigns(browser, tmp_path):
    with serve() as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        new_game(page, url, "human", "random", "breakthrough.gdl")
        page.wait_for_selector("#play-board .lit", timeout=WAIT_MS)
        start = page.locator("#play-board .lit").first
        origin = start.get_attribute("data-cell")
        start.click()  # the piece chosen: now its cell is selected, and the cells it may go to are lit
        selected = page.locator("#play-board .selected")
        assert selected.count() == 1 and selected.get_attribute("data-cell") == origin
        assert page.locator(f"#play-board .lit[data-cell='{origin}']").count() == 0  # not lit as a destination is
        lit = page.locator("#play-board .lit")
        assert lit.count() >= 1 and selected.get_attribute("fill") != lit.first.get_attribute("fill")
        photograph(page, "play-selected", tmp_path)
        target = page.locator(f"#play-board .lit:not([data-cell='{origin}'])").first
        destination = target.get_attribute("data-cell")
        target.click()
        page.wait_for_selector("#play-ply:not([data-ply='0'])", timeout=WAIT_MS)
        page.wait_for_selector("#play-resign:not([hidden])", timeout=WAIT_MS)  # random has answered
        assert page.locator("#play-board .last").count() == 2  # random's move: both ends marked
        photograph(page, "play-movement", tmp_path)
        page.click("#play-resign")
        page.wait_for_selector("#play-end:not([hidden])", timeout=WAIT_MS)
        log = page.locator("#play-log").text_content()
        assert f"human(B): {origin}-{destination}" in log and "resign" in log.lower()


def test_a_person_s_seat_is_named_and_coloured_as_the_stage_names_it(browser, tmp_path):
    """Hex names its players red and blue: the page says red and blue (not Black and White), draws
    their pieces red and blue, links to the rules, shows no piece count (Hex does not count them),
    and says how the game ended in the players' names."""
    with serve() as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        new_game(page, url, "human", "random", "hex-11.gdl")
        page.wait_for_selector("#play-board .lit", timeout=WAIT_MS)
        assert page.locator("#clock-0 th").text_content().strip() == "red"
        assert page.locator("#clock-1 th").text_content().strip() == "blue"
        assert page.locator("#play-status").text_content().startswith("red to move: your move")
        page.locator("#play-board .lit").first.click()
        page.wait_for_selector("#play-board .piece-2", timeout=WAIT_MS)  # blue has answered
        assert page.locator("#play-last").text_content().startswith("blue played ")
        fills = {page.locator(f"#play-board .piece-{k}").first.get_attribute("fill") for k in (1, 2)}
        assert fills == {"#d32f2f", "#1e5bd6"}
        assert page.locator("#play-clocks .pieces").count() == 0
        body = page.content()
        assert "Black" not in page.locator("#play-game").inner_text() and "White" not in body
        rules = page.locator("#play-rules").get_attribute("href")
        assert rules == "/stages/0/hex-11.gdl#stage-rules"
        photograph(page, "play-named", tmp_path)
        page.wait_for_selector("#play-resign:not([hidden])", timeout=WAIT_MS)
        page.click("#play-resign")
        page.wait_for_selector("#play-end:not([hidden])", timeout=WAIT_MS)
        assert page.locator("#play-result").text_content() == "red (human) resigned: blue (random) wins"
        rules_page = browser.new_page()
        rules_page.goto(url + rules.lstrip("/"), timeout=WAIT_MS)
        assert "red" in rules_page.locator("#stage-rules").inner_text()


# Each bundled stage the closing note shows, with the end its page must say (the rules' words, gdl/ending.py)
ENDS = {
    "tic-tac-toe.gdl": r"^(?:(x|o) made three in a row at [a-c][1-3] [a-c][1-3] [a-c][1-3]: \1 wins|the board is full: a draw)$",
    "standard-8x8.gdl": r"^neither black nor white can move: (?:(?:black|white) wins with more pieces, \d+ to \d+"
                        r"|a draw, 32 pieces each)$",
    "breakthrough.gdl": r"^(white reached row 8 at [a-h]8|black reached row 1 at [a-h]1|(?:black|white) has no piece "
                        r"left): (?:black|white) wins$",
}


@pytest.mark.parametrize("stage", list(ENDS))
def test_a_game_played_to_its_end_says_why_it_ended(browser, tmp_path, stage):
    """Two built-ins play to the end: the page says the end in the rules' words, once (its log's
    last line is the same, no seat's colour beside it), rings the cells that show it, and counts pieces only where
    the stage does."""
    counts = stage == "standard-8x8.gdl"
    with serve() as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        new_game(page, url, "greedy", "random", stage)
        page.wait_for_selector("#play-end:not([hidden])", timeout=WAIT_MS)
        result = page.locator("#play-result").text_content()
        assert re.match(ENDS[stage], result), result
        log = page.locator("#play-log").text_content().splitlines()  # the result said once, as the headline
        assert log[-1] == f"Game over: {result}" and not [line for line in log if re.search(r"wins!|Tie!", line)]
        assert page.locator("#play-clocks .pieces").count() == (2 if counts else 0)
        if counts:
            assert re.fullmatch(r"\d+ pieces", page.locator("#clock-0 .pieces").text_content())
        if " at " in result:  # a line or a piece on the far row: its cells ringed on the board
            ringed = page.locator("#play-board .shown").evaluate_all("es => es.length")
            assert ringed == len(result.split(":")[0].split(" at ")[1].split())
        photograph(page, f"play-end-{stage.removesuffix('.gdl')}", tmp_path)


# The cells of the pieces a selector finds: each piece is drawn at its cell's centre (board.js)
PIECES_AT = """selector => {
  const cells = [...document.querySelectorAll("#play-board .cell")].map(c => {
    const r = c.getBoundingClientRect();
    return [c.dataset.cell, r.left + r.width / 2, r.top + r.height / 2];
  });
  return [...document.querySelectorAll(selector)].map(p => {
    const b = p.getBoundingClientRect(), x = b.left + b.width / 2, y = b.top + b.height / 2;
    return cells.reduce((best, c) => Math.hypot(c[1] - x, c[2] - y) < Math.hypot(best[1] - x, best[2] - y) ? c : best)[0];
  });
}"""


def test_a_person_plays_dark_hex_seeing_only_their_own_view(browser, tmp_path):
    """Dark Hex 5x5 against random, clicking the first lit cell each turn: until the game is over the
    page shows the person (red) no blue stone but where one of their own tries was refused (their
    view), names the opponent's tries only as tries, and lights the person's tries alone; at the end
    it shows the whole board."""
    with serve() as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        new_game(page, url, "human", "random", "dark-hex-5.gdl")
        clicked: set[str] = set()
        refused_seen = False
        while True:
            page.wait_for_selector("#play-board .lit, #play-end:not([hidden])", timeout=WAIT_MS)
            if page.is_visible("#play-end"):
                break
            theirs = page.evaluate(PIECES_AT, "#play-board .piece-2")
            assert set(theirs) <= clicked, (theirs, clicked)  # only where a try of theirs was refused
            refused_seen = refused_seen or bool(theirs)
            last = page.locator("#play-last").text_content() or ""
            assert last.endswith("(refused)") or not re.search(r"\b[a-e][1-5]\b", last), last  # no try of theirs named
            assert page.locator("#clock-1 .clock").text_content() == "hidden"  # its time would count its tries
            lit = page.locator("#play-board .lit").first
            cell = lit.get_attribute("data-cell")
            assert cell not in theirs  # a refused try is not offered again
            if len(clicked) == 3:
                photograph(page, "play-dark-hex", tmp_path)
            played = page.locator("#play-ply").get_attribute("data-ply")
            lit.click()
            clicked.add(cell)
            page.wait_for_selector(f"#play-ply:not([data-ply='{played}']), #play-end:not([hidden])",
                                   timeout=WAIT_MS)
        assert "wins" in page.locator("#play-result").text_content()
        photograph(page, "play-dark-hex-over", tmp_path)
        assert len(clicked) >= 3
        # over: the whole board, every stone the opponent placed, as the game's log (now shown) lists them
        placed = len(re.findall(r"^random\(W\): [a-e][1-5]$", page.locator("#play-log").text_content(), re.M))
        assert placed >= 1 and page.locator("#play-board .piece-2").count() == placed

