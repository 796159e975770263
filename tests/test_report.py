"""The report's figures (evaluation/report.py), read from the matplotlib figure they are drawn as."""
from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
from matplotlib.colors import to_rgb
from matplotlib.patches import Rectangle

from ludica.evaluation import Outcome, rate
from ludica.evaluation import report


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
    fig = report._matrix_figure(summary)
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
    assert "<pattern" in report._matrix_plot(summary)  # the hatch reaches the page's SVG


def test_a_round_robin_has_no_unplayed_cell_and_no_legend_for_it():
    games = [Outcome("s", a, b, 1.0) for a in "abc" for b in "abc" if a != b]
    summary = SimpleNamespace(overall=rate(games, ["a", "b", "c"], resamples=0))
    fig = report._matrix_figure(summary)
    ax = fig.axes[0]
    assert "—" not in _cells(ax).values() and not _hatched(ax) and ax.get_legend() is None
    plt.close(fig)
