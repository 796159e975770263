"""What agents write (their NAME, what they print, their exception text) and what stage files name
is shown as data, never obeyed: the report escapes it, builds its replay with textContent and lets
only its own script run (a Content-Security-Policy with the script's hash).
"""
from __future__ import annotations

import base64
import hashlib
import html
import re
from pathlib import Path

import pytest

from ludica import stages
from ludica.evaluation import evaluate, stageset, write_report
from ludica.runtime import entrants
from test_report_browser import BROWSER, dom

# Each payload, if the page ever ran it, changes the page's title.
IMG_NAME = "<img src=x onerror=\"document.title='pwned'\">"
SCRIPT_NAME = "</script><script>document.title='pwned2'</script>"
DETAIL = "<img src=x onerror=\"document.title='detail'\"> </script><script>document.title='detail2'</script>"
STAGE_NAME = "Tic <img src=x onerror=document.title='stage'> [red]x[/] $\\foo$"
TITLE = "ludica evaluation: 2 agents, 1 stages, 4 games"

PLAYER = f'import random\nNAME = {IMG_NAME!r}\n\n\ndef analyze(stage, api, clock):\n' \
         '    return lambda state, legal, clock: random.choice(legal)\n'
CRASHER = f'''import random
NAME = {SCRIPT_NAME!r}


def analyze(stage, api, clock):
    moves = []

    def strategy(state, legal, clock):
        moves.append(1)
        if len(moves) == 3:
            raise RuntimeError({DETAIL!r})
        return random.choice(legal)
    return strategy
'''


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory) -> Path:
    """A report of two agents with hostile names, one of which crashes with a hostile message, on a
    stage with a hostile name (the games in-process: what the report shows is the same)."""
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "player.py").write_text(PLAYER)
    (folder / "crasher.py").write_text(CRASHER)
    stage = folder / "stage.gdl"
    stage.write_text(stages.path("tic-tac-toe").read_text().replace('"Tic-tac-toe"', f'"{STAGE_NAME}"'))
    specs = [entrants.resolve(str(folder / f)) for f in ("player.py", "crasher.py")]
    summary = evaluate.run(stageset.public([stage]), specs, folder / "run",
                           evaluate.Config(games=2, seed=1, sandbox=False), resamples=20)
    assert {x.name for x in summary.overall.ratings} == {IMG_NAME, SCRIPT_NAME}
    return write_report(summary, folder / "run")["html"]


def test_the_report_allows_only_its_own_script_by_its_hash(hostile_report):
    page = hostile_report.read_text(encoding="utf-8")
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1)
    rules = dict(rule.strip().split(" ", 1) for rule in html.unescape(policy).split(";"))
    assert rules["default-src"] == "'none'" and rules["base-uri"] == "'none'" and rules["form-action"] == "'none'"
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)  # the executable ones (not the JSON data)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode("utf-8")).digest()).decode()
    assert rules["script-src"] == f"'sha256-{digest}'"  # only that script: no inline handler, no other script
    assert page.index("Content-Security-Policy") < page.index("<title>")  # in force before any data


def test_the_report_holds_agents_text_only_escaped(hostile_report):
    page = hostile_report.read_text(encoding="utf-8")
    for payload in ("<img", "<script>document.title", "</script><script>"):
        assert payload not in page
    assert html.escape(IMG_NAME) in page and html.escape(SCRIPT_NAME) in page  # in the tables, as text
    assert html.escape("RuntimeError: " + DETAIL) in page  # the crash, in the failures and the warning


@pytest.mark.skipif(BROWSER is None, reason="no headless browser to open the report in: install Chromium "
                                            "(Debian: apt-get install chromium) to run this")
def test_a_report_with_hostile_names_runs_no_script_in_the_browser(hostile_report):
    for ply in (0, 3, 5):  # the replay of the game, board by board
        page = dom(hostile_report, f"#game=0&ply={ply}")
        assert re.search(r"<title>(.*?)</title>", page).group(1) == TITLE  # no payload ran
        assert "<img" not in page and "<script>document" not in page  # and none became an element
        moves = page[page.index('<div id="replay-moves">'):]
        moves = moves[: moves.index("</div>")]
        for name in (IMG_NAME, SCRIPT_NAME):  # shown as the literal text it is
            assert f"<li>{html.escape(name, quote=False)}: " in moves
        assert f"● {html.escape(IMG_NAME, quote=False)} (first) – ○ {html.escape(SCRIPT_NAME, quote=False)}" in moves
        assert re.search(r'<span id="replay-where">ply \d+ of \d+', page)  # the replay's script did run
    assert html.escape(STAGE_NAME, quote=False) + ": " in page  # the game's stage, in the replay's list
