"""The report's views of issue 22, from one small real evaluation (a submitted agent with a hostile
name, so it has adaptation games too, against two baselines, on tic-tac-toe and an unseen 4x4
Othello drawn "from" the 6x6 stage): the data the replay gets (per-ply clocks, piece counts, captured
cells, the adaptation and reference games), the links from the leaderboard and the matrix into the
replay, the run's metadata, each unseen stage's change and text, the rank probabilities shaded, the
anytime panels clipped and marked. The replay itself in a browser: tests/test_replay_browser.py."""
from __future__ import annotations

import html
import json
import math
import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote

import matplotlib.pyplot as plt
import pytest

from ludica import gdl, stages
from ludica.invocation import record_invocation
from ludica.evaluation import Outcome, evaluate, page, plots, rate, report, stageset, summarise
from ludica.evaluation.anytime import Estimate, Point
from ludica.runtime import Options, Run
from ludica.runtime import entrants as agents
from ludica.runtime.records import ResultsStore

HOSTILE = "<img src=x onerror=\"document.title='pwned'\"> 'q' </script>|&"
PLAYER = f'import random\nNAME = {HOSTILE!r}\n\n\ndef analyze(stage, api, clock):\n' \
         '    return lambda state, legal, clock: random.choice(legal)\n'
OTHELLO_4 = ('game "Othello 4x4"\nboard square 4\nplayers black white\nsetup black c2 b3\nsetup white b2 c3\n'
             'move place empty\n  flip custodial all\n  require capture\npass forced\nend no-moves: most-pieces\n')


def make_run(folder: Path) -> Path:
    """The evaluation's run folder, with what `ludica evaluate` keeps beside its settings."""
    (folder / "player.py").write_text(PLAYER)
    unseen = folder / "unseen"
    unseen.mkdir()
    (unseen / "othello-4.gdl").write_text(OTHELLO_4)
    chosen = stageset.public([stages.path("tic-tac-toe")]) + stageset.from_folder(unseen)
    specs = [agents.resolve(a) for a in ("random", "greedy")] + [agents.resolve(str(folder / "player.py"))]
    evaluate.run(chosen, specs, folder / "run", evaluate.Config(
        Options(games=1, analysis_time=1, game_time=2, seed=3, sandbox=False), reference_games=2), resamples=20)
    store = ResultsStore(folder / "run" / "results.sqlite")
    record_invocation(store, gdl.load(stages.path("small-board-6x6")), ["evaluate", "--out", str(folder / "run")])
    store.close()
    return folder / "run"


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory) -> Path:
    return make_run(tmp_path_factory.mktemp("views"))


@pytest.fixture(scope="module")
def summary(run_folder):
    with Run.read(run_folder) as run:
        return summarise(run.store, resamples=20, seed=3)


@pytest.fixture(scope="module")
def page_html(summary, run_folder) -> str:
    return report.write_report(summary, run_folder)["html"].read_text(encoding="utf-8")


def _replay_data(text: str) -> list[dict]:
    data = text[text.index('<script id="replay-data" type="application/json">') + 49:]
    return json.loads(data[: data.index("</script>")])


# --- the replay's data ---------------------------------------------------------------------------

def test_the_replay_has_every_game_adaptation_and_reference_games_included(summary):
    games = report.replays(summary)
    kinds = [g["kind"] for g in games]
    assert summary.adaptation_games and summary.reference_games
    assert kinds.count("adaptation") == len(summary.adaptation_games)
    assert kinds.count("reference") == len(summary.reference_games)
    assert kinds.count("main") == len(summary.games)
    assert any("@" in g["black"] or "@" in g["white"] for g in games if g["kind"] == "adaptation")


def test_each_ply_has_its_clocks_and_piece_counts(summary):
    for g in report.replays(summary):
        plies = len(g["moves"])
        assert len(g["boards"]) == len(g["clocks"]) == len(g["counts"]) == plies + 1
        assert g["clocks"][0] == [0.0, 0.0] and g["budget"] == [2, 2]
        for before, after in zip(g["clocks"], g["clocks"][1:]):  # one player's clock runs at each ply
            assert after[0] >= before[0] and after[1] >= before[1]
        for board, (first, second) in zip(g["boards"], g["counts"]):
            assert (board.count("1"), board.count("2")) == (first, second)
    for g in report.replays(summary):
        if g["kind"] == "main":
            held = next(x for x in summary.games if x["black"] == g["black"] and x["white"] == g["white"]
                        and json.loads(x["moves"]) == g["moves"])
            assert g["clocks"][-1] == pytest.approx([held["black_time"], held["white_time"]], abs=0.01)


def test_each_game_says_why_it_ended_in_the_rules_words_and_no_score_where_none_counts(summary, page_html):
    games = report.replays(summary)
    said = {g["stage"]: g["ending"] for g in games if g["reason"] == "normal"}
    assert re.fullmatch(r"(x|o) made three in a row at( [a-c][1-3]){3}: \1 wins|the board is full: a draw",
                        said["Tic-tac-toe"])
    assert re.fullmatch(r"neither black nor white can move: ((black|white) wins with (more|fewer) pieces, \d+ to \d+"
                        r"|a draw, \d+ pieces each)", said["Othello 4x4"])
    assert [g["ending"] for g in _replay_data(page_html)] == [g["ending"] for g in games]  # what the page draws


def test_a_game_the_two_engines_of_the_rules_disagree_on_is_said_a_bug_not_an_edited_store(summary, monkeypatch):
    """The compiled rules ended the game as stored, but the reference interpreter cannot say why:
    ludica's bug (the referee logged it), not the user's edit of the store; the report goes on."""
    from ludica.compiler.game import CompiledGame

    def cannot(self, state):
        raise ValueError("the game is not over here")

    monkeypatch.setattr(CompiledGame, "ending", cannot)
    games = [g for g in report.replays(summary) if g["reason"] == "normal"]
    assert games and all("a bug in ludica, not an edit of the store" in g["ending"] for g in games)
    assert all(re.match(r"(\w+ \(.+\) wins|a draw); why cannot be said: the compiled rules end the game here, but "
                        r"the reference interpreter cannot explain it \(ValueError: the game is not over here\)",
                        g["ending"]) for g in games), games[0]["ending"]


def test_the_cells_a_move_captured_are_the_opponent_s_pieces_it_turned(summary):
    othello = [g for g in report.replays(summary) if g["stage"] == "Othello 4x4"]
    assert othello and any(any(t) for g in othello for t in g["taken"])
    for g in othello:
        for k, (cells, took) in enumerate(zip(g["taken"], g["captured"])):
            before, after = g["boards"][k], g["boards"][k + 1]
            assert len(cells) == took  # the count the kernel gave
            assert all(before[i] in "12" and after[i] in "12" and before[i] != after[i] for i in cells)
            if cells:  # a flip gives the opponent's pieces to the mover, who gains them and the one placed
                mover = after[cells[0]]
                assert g["counts"][k + 1][int(mover) - 1] == g["counts"][k][int(mover) - 1] + took + 1


# --- links, metadata, stages ---------------------------------------------------------------------

def test_each_leaderboard_row_links_to_its_agent_s_games(summary):
    board = report.leaderboard(summary)
    for row in board.table.rows:
        link = row[6]
        assert isinstance(link, report.Link) and link.text == str(next(
            x.games for x in summary.overall.ratings if x.name == row[1]))
        assert link.href.startswith("#agent=") and unquote(link.href[len("#agent="):]) == row[1]
        # encoded as encodeURIComponent does: no markup, quote, space, separator or fragment left in it
        assert not set("<>\" |&#") & set(link.href[1:].replace("=", "", 1))


def test_the_links_in_the_page_are_escaped_and_decode_to_the_names(page_html, summary):
    hrefs = re.findall(r'<a href="(#agent=[^"]*)">', page_html)
    assert sorted(unquote(html.unescape(h)[len("#agent="):]) for h in hrefs) == sorted(summary.agents)
    pairs = re.findall(r'<a xlink:href="#pair=([^"]*)"', page_html)
    met = {(a, b) for a, row in summary.overall.matrix.items() for b, (_, n) in row.items() if n and a != b}
    assert {tuple(unquote(n) for n in html.unescape(p).split("|")) for p in pairs} == met
    assert "<img" not in page_html and "</script><" not in page_html
    assert html.escape(HOSTILE) in page_html


def test_a_pair_that_never_played_has_no_link_and_is_marked():
    """A gauntlet: the baselines x and y never met."""
    games = [Outcome("s", "me", b, 1.0) for b in ("x", "y")] + [Outcome("s", b, "me", 0.5) for b in ("x", "y")]
    summary = SimpleNamespace(overall=rate(games, ["me", "x", "y"], resamples=0))
    fig = plots.matrix_figure(summary, link=lambda a, b: report.replay_link("pair", a, b))
    urls = {p.get_url() for p in fig.axes[0].patches if p.get_url()}
    plt.close(fig)
    assert urls == {"#pair=me|x", "#pair=me|y", "#pair=x|me", "#pair=y|me"}
    svg = plots.matrix_plot(summary, link=lambda a, b: report.replay_link("pair", a, b))
    assert "not played: the pair never met" in svg and "#pair=x|y" not in svg


def test_the_page_opens_with_the_run_s_metadata_and_an_index(page_html, summary, run_folder):
    info = dict(report.run_info(summary))
    assert json.loads((run_folder / "report.json").read_text())["run"] == info
    assert list(info) == ["Date", "Command", "Options", "Seeds", "Version", "Machine"]
    assert info["Command"].startswith("ludica") and "cores, Python" in info["Machine"]
    assert "game_time 2" in info["Options"] and "seed 3" in info["Seeds"]
    assert info["Version"].startswith("ludica ") and "started " in info["Date"] and "UTC" in info["Date"]
    header = page_html[page_html.index('<header id="run">'): page_html.index("</header>")]
    assert all(f"<dt>{k}</dt>" in header for k in info)
    index = page_html[page_html.index('<nav id="index"'): page_html.index("</nav>")]
    # every section the page has (a run without language models has no section of theirs)
    assert re.findall(r'<a href="#([a-z]+)">', index) == [i for i, _ in report.SECTIONS if i != "models"]
    assert all(f'<section id="{i}">' in page_html for i, _ in report.SECTIONS if i != "models")
    assert page_html.index("</nav>") < page_html.index('<section id="leaderboard">')


def test_a_run_from_before_the_metadata_says_it_was_not_recorded(summary):
    older = replace(summary, settings={k: v for k, v in summary.settings.items() if k not in ("invocations", "base")})
    info = dict(report.run_info(older))
    assert "not recorded" in info["Command"] and "not recorded" in info["Machine"]
    assert [st.change for st in report.unseen_stages(older)] == [None]


def test_each_unseen_stage_says_what_it_changed_and_shows_its_text(summary, page_html):
    [othello] = report.unseen_stages(summary)
    assert othello.name == "Othello 4x4" and othello.text.startswith('game "Othello 4x4"')
    assert othello.change.startswith("board square 6 → board square 4")
    assert "setup black" in othello.change
    assert html.escape(othello.change) in page_html
    assert html.escape('game "Othello 4x4"') in page_html  # its text, in the page's <pre>


def test_each_unseen_stage_shows_its_rules_and_changes_in_english(summary, page_html):
    [othello] = report.unseen_stages(summary)
    stage = gdl.loads(othello.text)
    assert othello.rules == gdl.rules(stage) and othello.rules
    assert othello.changes and othello.changes == gdl.changes(gdl.loads(summary.settings["base"]), stage)
    for paragraph in othello.rules + othello.changes:
        assert html.escape(paragraph) in page_html
    older = replace(summary, settings={k: v for k, v in summary.settings.items() if k != "base"})
    assert [st.changes for st in report.unseen_stages(older)] == [[]]  # no base known: no changes said


def test_rank_probabilities_are_shaded_cells_and_small_ones_are_not_zeros(summary):
    ranks = report.leaderboard(summary).ranks
    cells = [c for row in ranks.rows for c in row[1:]]
    assert all(isinstance(c, report.Shade) for c in cells)
    dark, light = plots.cell_style(1.0), plots.cell_style(0.0)
    assert dark != light and "rgb(" in dark and light.startswith("background-color: rgb(2")
    assert report._probability(0.001) == "<0.01" and report._probability(0.0) == "0"
    macro = page.environment().get_template("table.html.j2").module.table(ranks)
    assert macro.count('<td class="shade" style="background-color: rgb(') == len(cells)


def _anytime_summary() -> SimpleNamespace:
    """Two unseen stages so far; `me`'s second interval is [-8.37, 8.00] on a scale where random is
    0 and greedy 1 (the first intervals, t with one degree of freedom, are huge)."""
    ratings = rate([Outcome("s", a, b, 1.0) for a in ("me", "random", "greedy") for b in ("me", "random", "greedy")
                    if a != b], ["me", "random", "greedy"], resamples=0)
    ends = {"random": 0.0, "greedy": 1.0}
    points = [Point(f"s{k}", k, 0, {"me": me} | {n: Estimate(v, None, None, k, float(k)) for n, v in ends.items()},
                    "greedy", 0.5)
              for k, me in ((1, Estimate(0.5, None, None, 1, 1.0)), (2, Estimate(0.4, -8.37, 8.0, 2, 2.0)))]
    return SimpleNamespace(overall=ratings, anytime=points)


def test_anytime_panels_clip_wide_intervals_and_mark_the_clipped_ends():
    summary = _anytime_summary()
    fig = plots.anytime_figure(summary)
    [ax] = [a for a in fig.axes if a.get_visible()]  # one panel: random and greedy are 0 and 1
    low, high = ax.get_ylim()
    assert low > -1 and high < 2  # the plot keeps the means in view, not the interval's [-8.37, 8]
    marks = {line.get_marker(): line.get_ydata()[0] for line in ax.lines if line.get_marker() in ("^", "v")}
    assert marks == {"^": high, "v": low}
    assert ax.get_title(loc="left") == "me"
    plt.close(fig)


def test_the_anytime_view_has_its_numbers_whole_and_says_what_0_and_1_are():
    view = report.anytime(_anytime_summary())
    assert view.table.rows == [["greedy", "1", "(the reference, by definition)"], ["me", "0.40", "-8.37 – 8.00"],
                               ["random", "0", "(by definition)"]]
    section = page.render("anytime.html.j2", anytime=view)
    assert "<b>0 is random's level, 1 is greedy's</b>" in section
    assert "the effective number of stages under their weights is 2.0" in section
    assert '<table class="anytime">' in section and section.count("<svg") == 1
    assert section.index("<svg") < section.index('<table class="anytime">')  # the table beside the plot


def test_the_replay_data_in_the_page_holds_names_only_as_escaped_json(page_html):
    data = page_html[page_html.index('<script id="replay-data"'):]
    data = data[: data.index("</script>")]
    assert "<img" not in data[40:] and "</" not in data[40:]
    games = _replay_data(page_html)
    assert any(HOSTILE in (g["black"], g["white"]) for g in games)
    assert all(math.isfinite(c) for g in games for clock in g["clocks"] for c in clock)
