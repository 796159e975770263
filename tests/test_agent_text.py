"""What agents write (their NAME, what they print, their exception text) and what stage files name
is shown as data, never obeyed: the report escapes it, builds its replay with textContent and lets
only its own script run (a Content-Security-Policy with the script's hash); the terminal shows
control characters as `\\xNN` and rich's markup literally (ludica/terminal.py).
"""
from __future__ import annotations

import base64
import hashlib
import html
import re
from pathlib import Path

import pytest

from ludica import stages
from ludica.cli import main
from ludica.evaluation import evaluate, stageset, write_report
from ludica.runtime import Options, entrants
from ludica.terminal import inert, inert_rich
from test_report_browser import BROWSER, dom

# Each payload, if the page ever ran it, changes the page's title.
IMG_NAME = "<img src=x onerror=\"document.title='pwned'\">"
SCRIPT_NAME = "</script><script>document.title='pwned2'</script>"
DETAIL = "<img src=x onerror=\"document.title='detail'\"> </script><script>document.title='detail2'</script>"
STAGE_NAME = "Tic <img src=x onerror=document.title='stage'> [red]x[/] $\\foo$"
TITLE = "ludica evaluation: 2 agents, 1 stage, 4 games"

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
                           evaluate.Config(Options(games=2, analysis_time=2, game_time=2, seed=1, sandbox=False)), resamples=20)
    assert {x.name for x in summary.overall.ratings} == {IMG_NAME, SCRIPT_NAME}
    return write_report(summary, folder / "run")["html"]


def test_the_report_allows_only_its_own_script_by_its_hash(hostile_report):
    page = hostile_report.read_text(encoding="utf-8")
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1)
    rules = dict(rule.strip().split(" ", 1) for rule in html.unescape(policy).split(";"))
    assert rules["default-src"] == "'none'" and rules["base-uri"] == "'none'" and rules["form-action"] == "'none'"
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)  # the executable ones (not the JSON data)
    assert len(scripts) == 3  # static/board.js, static/replay.js and static/tables.js
    digests = [base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() for s in scripts]
    # only those scripts: no inline handler, no other script
    assert rules["script-src"] == " ".join(f"'sha256-{d}'" for d in digests)
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
        black, white = (html.escape(name, quote=False) for name in (IMG_NAME, SCRIPT_NAME))
        assert f"● {black} (first) – ○ {white} (second)" in moves
        assert re.search(r'<span id="replay-where">ply \d+ of \d+', page)  # the replay's script did run
    assert html.escape(STAGE_NAME, quote=False) + ": " in page  # the game's stage, in the replay's list


# --- the terminal --------------------------------------------------------------------------------

ESCAPES = "\x1b]0;title\x07 \x1b]52;c;cHduZWQ=\x07 \x1b[2J \x9b31m red\x08"
SHOWN = "\\x1b]0;title\\x07 \\x1b]52;c;cHduZWQ=\\x07 \\x1b[2J \\x9b31m red\\x08"
MARKUP = "[bold red]markup[/]"
RAW = ("\x1b", "\x9b", "\x07", "\x08", "\r")


def test_inert_shows_control_characters_and_keeps_lines_and_tabs():
    assert inert(ESCAPES) == SHOWN
    assert inert("a\tb\nc\x00\x7f\x85\rd") == "a\tb\nc\\x00\\x7f\\x85\\x0dd"
    assert inert_rich(MARKUP + "\x1b") == "\\[bold red]markup\\[/]\\x1b"
    # the bidirectional controls would make what follows them read backwards; other text is kept
    assert inert("evil\u202egnp.exe \u2066x\u2069 \u200f") == "evil\\u202egnp.exe \\u2066x\\u2069 \\u200f"
    assert inert("café ♟ 黒") == "café ♟ 黒"


def _shows_inert(out: str) -> None:
    assert not any(c in out for c in RAW), [c for c in RAW if c in out]


def test_play_shows_what_an_agent_prints_and_its_name_inert(tmp_path, capsys):
    agent = tmp_path / "escapes.py"
    agent.write_text(f"NAME = {MARKUP!r}\n\n\ndef analyze(stage, api, clock):\n"
                     f"    print({ESCAPES!r})\n"
                     f"    def strategy(state, legal, clock):\n        print({ESCAPES!r})\n"
                     "        return legal[0]\n    return strategy\n")
    assert main(["play", "tic-tac-toe", "--black", str(agent), "--white", "random", "--analysis-time", "2",
                 "--game-time", "2"]) == 0  # sandboxed: what it printed is drained and shown
    out = capsys.readouterr().out
    _shows_inert(out)
    name = MARKUP
    assert f"{name}| {SHOWN}" in out  # in its analysis and in the game, with its name before each line
    assert f"{name} plays " in out


BOOM = "\x1b[31m[red]boom[/]"


@pytest.mark.parametrize("command", ["tournament", "evaluate"])
def test_warnings_and_tables_show_an_agents_exception_and_name_inert(tmp_path, capsys, monkeypatch, command):
    monkeypatch.setenv("COLUMNS", "400")  # one line per warning: the text is checked whole
    agent = tmp_path / "boom.py"
    agent.write_text(f"NAME = {MARKUP!r}\n\n\ndef analyze(stage, api, clock):\n    raise RuntimeError({BOOM!r})\n")
    common = ["--analysis-time", "2", "--game-time", "2", "--out", str(tmp_path / "run")]
    if command == "tournament":
        args = ["tournament", "tic-tac-toe", "--agent", str(agent), "--agent", "random", *common]
    else:
        args = ["evaluate", str(agent), "random", "--no-builtins", "--stage", "tic-tac-toe", "--no-unseen",
                "--resamples", "20", *common]
    assert main(args) == 0
    out = capsys.readouterr().out
    _shows_inert(out)
    assert f"warning: {MARKUP} lost 2 of its 2 games (100%) by forfeit — no-strategy ×2: RuntimeError: " \
           "\\x1b[31m[red]boom[/] (boom.py, line 5" in out
    assert any(MARKUP in line and "0.0%" in line for line in out.splitlines())  # its row in the leaderboard


@pytest.mark.parametrize("name", ["bot\x1b[31m", "two\nlines", "evil\u202egnp.exe", "zero\u200bwidth"])
def test_a_name_that_is_not_one_line_of_visible_text_is_refused_before_the_run(tmp_path, capsys, name):
    agent = tmp_path / "named.py"
    agent.write_text(f"NAME = {name!r}\n\n\ndef analyze(stage, api, clock):\n    return lambda s, legal, c: legal[0]\n")
    assert main(["play", "tic-tac-toe", "--black", str(agent), "--white", "random"]) == 2
    err = capsys.readouterr().err
    assert "a name is one line of visible text" in err and "fix NAME" in err, err
    _shows_inert(err)


def test_names_in_the_leaderboard_file_and_the_csv_files_are_text():
    from ludica.evaluation.report import spreadsheet_text
    from ludica.runtime.leaderboard import Standing, markdown

    table = markdown("stage <b>|x", [Standing("a|b <img src=x>"), Standing("plain")])
    assert "a\\|b &lt;img src=x&gt;" in table and "<img" not in table and "## stage &lt;b&gt;\\|x" in table
    assert [spreadsheet_text(n) for n in ("=1+2", "+1", "-1", "@SUM(A1)", "\tx", "plain", "")] == \
        ["'=1+2", "'+1", "'-1", "'@SUM(A1)", "'\tx", "plain", ""]
