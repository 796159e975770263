"""The report in a real headless browser: from a real small evaluation, the leaderboard renders, the
replay steps through a game board by board, and a hex board is drawn as hexagons.

Needs Chromium (Debian: `apt-get install chromium`; .ci/run installs it); without one these tests
are skipped, saying so. The page is opened at report.html#game=G&ply=P, which the page's own
script reads to show game G at ply P, and the DOM is read after the script ran (--dump-dom).
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ludica import stages
from ludica.evaluation import evaluate, stageset, write_report
from ludica.runtime import Options
from ludica.runtime import entrants as agents

BROWSER = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no headless browser to open the report in: install "
                                                        "Chromium (Debian: apt-get install chromium) to run these")

SMALL_HEX = 'game "Hex 4x4"\nboard hex 4\nplayers red blue\nmove place empty\nend connect top-bottom left-right: mover wins\n'


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    unseen = folder / "unseen"
    unseen.mkdir()
    (unseen / "hex-4.gdl").write_text(SMALL_HEX)
    chosen = stageset.public([stages.path("tic-tac-toe")]) + stageset.from_folder(unseen)
    specs = [agents.resolve(a) for a in ("random", "greedy")]
    summary = evaluate.run(chosen, specs, folder / "run", evaluate.Config(Options(games=2, analysis_time=2, game_time=2, seed=1, sandbox=False)),
                           resamples=20)
    return write_report(summary, folder / "run")["html"]


def dom(page: Path, fragment: str = "") -> str:
    profile = page.parent / "browser-profile"
    done = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                           "--virtual-time-budget=10000", "--dump-dom", page.as_uri() + fragment],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _games(page: Path) -> list[dict]:
    text = page.read_text()
    data = text[text.index('<script id="replay-data" type="application/json">') + 49:]
    return json.loads(data[: data.index("</script>")])


def _board(html: str) -> str:
    """The replay's board as drawn (the page's script also holds the words it draws with)."""
    start = html.index('<div id="replay-board">')
    return html[start: html.index("</svg>", start)]


def test_the_leaderboard_renders(report):
    html = dom(report)
    table = html[html.index('<table class="leaderboard">'):]
    table = table[: table.index("</table>")]
    rows = re.findall(r"<tr><td>(\d+)</td><td class=\"words\">([a-z]+)</td>", table)
    assert sorted(name for _, name in rows) == ["greedy", "random"]
    assert html.count("<svg") >= 4  # the plots and the replay's board


def test_the_replay_steps_through_a_game(report):
    games = _games(report)
    k = next(i for i, g in enumerate(games) if not g["hex"] and len(g["moves"]) >= 5)
    for ply in (0, 3, len(games[k]["moves"])):
        html = dom(report, f"#game={k}&ply={ply}")
        where = re.search(r'<span id="replay-where">([^<]*)</span>', html).group(1)
        assert where.startswith(f"ply {ply} of {len(games[k]['moves'])}")
        if ply:
            assert where.endswith(games[k]["moves"][ply - 1])
        drawn = _board(html)
        assert drawn.count('class="piece ') == sum(c in "12" for c in games[k]["boards"][ply])
        assert drawn.count('class="cell"') == 9


def test_a_hex_board_is_drawn_as_hexagons(report):
    games = _games(report)
    k = next(i for i, g in enumerate(games) if g["hex"])
    drawn = _board(dom(report, f"#game={k}&ply=4"))
    assert drawn.count('<polygon class="cell"') == 16 and '<rect class="cell"' not in drawn
    assert drawn.count('class="piece ') == 4


def test_each_view_is_a_section_in_the_page_s_order(report):
    """The page is one partial per view (evaluation/templates/), each a section a link or a live page
    can address by its id, with its heading, in the order the report has always had."""
    html = dom(report)
    sections = re.findall(r'<section id="([a-z]+)">\s*<h2>([^<]+)</h2>', html)
    assert sections == [("leaderboard", "Leaderboard"), ("pairwise", "Pairwise scores"), ("metrics", "Metrics"),
                        ("anytime", "Anytime generalisation estimate"), ("failures", "Failures"),
                        ("secondary", "Secondary views"), ("replay", "Replay")]
    assert html.count("<section") == len(sections)
