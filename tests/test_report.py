"""The report's figures (evaluation/plots.py), read from the matplotlib figure they are drawn as, and
its page: templates and static files shipped as package data, autoescaped (evaluation/page.py)."""
from __future__ import annotations

import html
import re
import tomllib
from fnmatch import fnmatch
from importlib import resources
from pathlib import Path
from types import SimpleNamespace

import jinja2
import matplotlib.pyplot as plt
import pytest
from matplotlib.colors import to_rgb
from matplotlib.patches import Rectangle

from ludica.evaluation import Outcome, rate
from ludica.evaluation import page, plots, report


def _cells(ax) -> dict[tuple[int, int], str]:
    """(row, column) → the text written in that cell."""
    return {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts}


def _hatched(ax) -> dict[tuple[int, int], Rectangle]:
    return {(round(p.get_y() + 0.5), round(p.get_x() + 0.5)): p for p in ax.patches
            if isinstance(p, Rectangle) and p.get_hatch()}


def test_pairs_that_never_met_are_drawn_as_unplayed_not_as_an_even_score():
    """A gauntlet: `me` met both baselines, which never met each other."""
    games = [Outcome("s", "me", b, 1.0) for b in ("x", "y")] + [Outcome("s", b, "me", 0.5) for b in ("x", "y")]
    summary = SimpleNamespace(overall=rate(games, ["me", "x", "y"], resamples=0))
    fig = plots.matrix_figure(summary)
    ax = fig.axes[0]
    names = [x.name for x in summary.overall.ratings]
    never = {(names.index(a), names.index(b)) for a, b in (("x", "y"), ("y", "x"))}
    cells = _cells(ax)
    assert {cell for cell, text in cells.items() if text == "—"} == never
    assert cells[(names.index("me"), names.index("x"))] == "75"
    hatched = _hatched(ax)
    assert set(hatched) == never
    even = plt.get_cmap("RdBu")(0.5)[:3]  # near white: what an unplayed pair used to look like
    for patch in hatched.values():
        assert sum((a - b) ** 2 for a, b in zip(patch.get_facecolor()[:3], even)) ** 0.5 > 0.15
        assert to_rgb(patch.get_facecolor()) != to_rgb("white")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["not played: the pair never met"]
    plt.close(fig)
    assert "<pattern" in plots.matrix_plot(summary)  # the hatch reaches the page's SVG


def test_a_round_robin_has_no_unplayed_cell_and_no_legend_for_it():
    games = [Outcome("s", a, b, 1.0) for a in "abc" for b in "abc" if a != b]
    summary = SimpleNamespace(overall=rate(games, ["a", "b", "c"], resamples=0))
    fig = plots.matrix_figure(summary)
    ax = fig.axes[0]
    assert "—" not in _cells(ax).values() and not _hatched(ax) and ax.get_legend() is None
    plt.close(fig)


# --- the page: templates and static files as package data, autoescaped --------------------------

HOSTILE = "<img src=x onerror=\"document.title='x'\"> </script>"
PAGE_FILES = resources.files("ludica.evaluation")


def _files(folder: str) -> list[str]:
    return sorted(f.name for f in PAGE_FILES.joinpath(folder).iterdir() if f.is_file())


def test_every_template_and_static_file_is_package_data():
    """A non-editable `pip install .` carries only what pyproject's package-data names."""
    pyproject = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    shipped = pyproject["tool"]["setuptools"]["package-data"]["ludica.evaluation"]
    files = [f"{folder}/{name}" for folder in ("templates", "static") for name in _files(folder)]
    assert "templates/report.html.j2" in files and "static/replay.js" in files and "static/report.css" in files
    assert [f for f in files if not any(fnmatch(f, glob) for glob in shipped)] == []


@pytest.mark.parametrize("name", _files("templates"))
def test_each_template_is_read_through_importlib_resources_and_compiles(name):
    page.environment().get_template(name)
    assert page.environment().loader.get_source(page.environment(), name)[0] == \
        PAGE_FILES.joinpath("templates", name).read_text(encoding="utf-8")
    with pytest.raises(jinja2.TemplateNotFound):
        page.environment().get_template("no-such.html.j2")


def test_inlined_files_cannot_end_their_element():
    assert "</script" not in page.static("replay.js").lower()
    assert "</style" not in page.static("report.css").lower()


def test_the_templates_escape_what_they_print_and_keep_only_markup_we_made():
    env = page.environment()
    assert env.autoescape is True
    printed = env.from_string("<p>{{ x }}</p>{{ y }}").render(x=HOSTILE, y=page.Markup("<b>ours</b>"))
    assert printed == f"<p>{html.escape(HOSTILE)}</p><b>ours</b>"
    assert "<" not in env.from_string("{{ x|script_json }}").render(x={"name": HOSTILE})
    with pytest.raises(jinja2.UndefinedError):  # a view a partial needs and is not given: an error, not a blank
        page.render("failures.html.j2")


def test_a_view_renders_alone_with_agents_names_as_text():
    """A live page renders one view's partial by itself, from the same data as the report."""
    games = [Outcome("s", HOSTILE, "random", 1.0), Outcome("s", "random", HOSTILE, 0.5)]
    ratings = rate(games, [HOSTILE, "random"], resamples=0)
    summary = SimpleNamespace(overall=ratings, failures={}, warnings=[f"{HOSTILE} lost"])
    board = report.leaderboard(summary)
    shown = page.render("leaderboard.html.j2", leaderboard=board)
    assert "<img" not in shown and "</script>" not in shown
    rows = re.findall(r"<tr><td>(\d+)</td><td class=\"words\">([^<]*)</td>", shown)
    assert sorted(name for _, name in rows) == sorted([html.escape(HOSTILE), "random"])
    assert f'<p class="warning">warning: {html.escape(HOSTILE)} lost</p>' in shown
    assert shown.count("<svg") == 1 and "<h2>Leaderboard</h2>" in shown
