"""The report's plots: matplotlib figures drawn as SVG for the page (report.py puts them into its
views, the templates lay them out).

Agents' and stages' names are data here too: drawn as they are, never read as mathtext (`_plot`), and
escaped by matplotlib's SVG writer.
"""
from __future__ import annotations

import functools
import io
import math
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only: no display is needed or wanted
import matplotlib.pyplot as plt
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

from .anytime import Estimate
from .page import Markup
from .summary import Summary

__all__ = ["AGENT_COLOURS", "SCALE", "adaptation_plot", "agent_colour", "anytime_figure", "anytime_plot", "cell_style",
           "leaderboard_plot", "matrix_figure", "matrix_plot", "stage_plot"]


def _plot(draw):
    """A plot whose texts (agents' and stages' names among them) are drawn as they are: a name with
    dollar signs is not mathtext (which could fail the whole report)."""
    @functools.wraps(draw)
    def drawn(s: Summary, *more, **named) -> Markup:
        with plt.rc_context({"text.parse_math": False}):
            return draw(s, *more, **named)
    return drawn


# The page's one palette: each agent keeps one colour in every plot (by its place on the
# leaderboard), and every value in [0, 1] (a score, a probability) is read on one scale, SCALE,
# in the plots and in the shaded tables alike; a pair that never met is neither (UNPLAYED).
AGENT_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
                 "#7f7f7f", "#bcbd22")
SCALE = "RdBu"


def agent_colour(s: Summary, name: str) -> str:
    names = [x.name for x in s.overall.ratings]
    k = names.index(name) if name in names else len(names)
    return AGENT_COLOURS[k % len(AGENT_COLOURS)]


def cell_style(p: float) -> str:
    """A table cell's style for a probability `p`: the upper half of SCALE (white at 0, its darkest
    blue at 1), with text that stays readable on it."""
    r, g, b, _ = plt.get_cmap(SCALE)(0.5 + 0.5 * min(max(p, 0.0), 1.0))
    ink = "#fff" if p > 0.55 else "#222"
    return f"background-color: rgb({round(255 * r)}, {round(255 * g)}, {round(255 * b)}); color: {ink}"


def _svg(fig) -> Markup:
    """The figure as an <svg> element for the page: markup of matplotlib's, whose SVG writer escapes
    the texts in it (names included)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    return Markup(text[text.index("<svg"):])


@_plot
def leaderboard_plot(s: Summary) -> Markup:
    ratings = list(reversed(s.overall.ratings))
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(ratings) + 1.2))
    y = range(len(ratings))
    # a percentile interval need not hold the estimate (a skewed bootstrap): bars from the estimate, clipped
    for k, x in enumerate(ratings):
        ax.errorbar([x.elo], [k], xerr=[[max(0.0, x.elo - x.low)], [max(0.0, x.high - x.elo)]], fmt="o", capsize=4,
                    color=agent_colour(s, x.name))
    ax.set_yticks(list(y), [x.name for x in ratings])
    ax.axvline(1000, color="#999", linestyle=":", linewidth=1)
    ax.set_xlabel(f"Elo (Bradley–Terry; {s.overall.anchor} = 1000), {100 * s.overall.level:.0f}% interval")
    ax.grid(axis="x", alpha=0.3)
    return _svg(fig)


UNPLAYED = "#d4d4d4"  # hatched light grey: unlike white, which is a 50% score on the RdBu scale
ITSELF = "#8c8c8c"


@_plot
def matrix_plot(s: Summary, link=None) -> Markup:
    return _svg(matrix_figure(s, link))


def matrix_figure(s: Summary, link=None):
    """The pairwise scores as a heat map; a pair that never met (a gauntlet's baselines) is hatched
    grey with a dash, named in a legend, so it cannot be read as an even score. `link(a, b)`: the
    address of a pair's games, each cell that has games then a link to them (the SVG's <a>)."""
    names = [x.name for x in s.overall.ratings]
    matrix = s.overall.matrix
    fig, ax = plt.subplots(figsize=(1.0 * len(names) + 2, 0.8 * len(names) + 1.5))
    values = [[math.nan if a == b or not matrix[a][b][1] else matrix[a][b][0] / matrix[a][b][1] for b in names]
              for a in names]
    image = ax.imshow(values, cmap=SCALE, vmin=0, vmax=1)
    unplayed: dict[str, Any] = {"facecolor": UNPLAYED, "hatch": "///", "edgecolor": "#8a8a8a",
                                "linewidth": 0}  # keywords of Rectangle and Patch, of several types
    met_all = True
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            v = values[i][j]
            if a == b:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=ITSELF, linewidth=0))
            elif math.isnan(v):
                met_all = False
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, **unplayed))
                ax.text(j, i, "—", ha="center", va="center", fontsize=8, color="#333")
            else:
                ax.text(j, i, f"{100 * v:.0f}", ha="center", va="center", fontsize=8,
                        color="white" if abs(v - 0.5) > 0.3 else "black")
                if link is not None:  # a clear square over the cell, the link's target area
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="none", linewidth=0,
                                           url=link(a, b)))
    if not met_all:
        ax.legend(handles=[Patch(label="not played: the pair never met", **unplayed)], loc="lower left",
                  bbox_to_anchor=(0.0, 1.01), fontsize=8, frameon=False)
    ax.set_xticks(range(len(names)), names, rotation=40, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("opponent")
    fig.colorbar(image, ax=ax, label="score of the row's agent against the column's")
    return fig


@_plot
def stage_plot(s: Summary) -> Markup:
    names = [x.name for x in s.overall.ratings]
    hashes = [st["stage_hash"] for st in s.stages if st["stage_hash"] in s.scores]
    values = [[s.scores[h].get(a, math.nan) for h in hashes] for a in names]
    fig, ax = plt.subplots(figsize=(0.7 * len(hashes) + 3, 0.5 * len(names) + 2))
    image = ax.imshow(values, cmap=SCALE, vmin=0, vmax=1, aspect="auto")
    roles = {st["stage_hash"]: st["role"] for st in s.stages}
    ax.set_xticks(range(len(hashes)), [f"{s.stage_name(h)} ({roles[h]})" for h in hashes], rotation=40, ha="right")
    ax.set_yticks(range(len(names)), names)
    fig.colorbar(image, ax=ax, label="score on the stage")
    return _svg(fig)


@_plot
def anytime_plot(s: Summary) -> Markup:
    return _svg(anytime_figure(s))


def anytime_figure(s: Summary):
    """One small panel per agent (random and the reference are 0 and 1 by definition: the dotted
    lines of every panel), on shared axes: the estimate after each unseen stage, a light band for
    its 95% interval, clipped to the panel; a clipped end is marked with a triangle at the edge (the
    table beside the plot gives the whole interval)."""
    last = s.anytime[-1]
    ends = {"random", last.reference}
    names = [x.name for x in s.overall.ratings if x.name not in ends] or [x.name for x in s.overall.ratings]
    columns = min(3, len(names))
    rows = math.ceil(len(names) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(max(4.5, 2.6 * columns + 0.8), 2.2 * rows + 0.9), sharex=True,
                             sharey=True, squeeze=False)
    xs = [p.stages for p in s.anytime]
    means = [e.mean for p in s.anytime for e in p.estimates.values() if math.isfinite(e.mean)]
    low_edge, high_edge = min([-0.25, *(m - 0.25 for m in means)]), max([1.25, *(m + 0.25 for m in means)])
    for ax, name in zip(axes.flat, names):
        colour = agent_colour(s, name)
        estimates = [p.estimates[name] for p in s.anytime]
        low, high = zip(*(_band(e) for e in estimates))
        ax.fill_between(xs, [max(v, low_edge) for v in low], [min(v, high_edge) for v in high], color=colour,
                        alpha=0.18, linewidth=0)
        ax.plot(xs, [e.mean for e in estimates], marker="o", markersize=3, color=colour, linewidth=1.5)
        for x, lo, hi in zip(xs, low, high):
            if lo < low_edge:
                ax.plot(x, low_edge, marker="v", color=colour, markersize=5, clip_on=False)
            if hi > high_edge:
                ax.plot(x, high_edge, marker="^", color=colour, markersize=5, clip_on=False)
        for level in (0, 1):
            ax.axhline(level, color="#888", linestyle=":", linewidth=1)
        ax.set_title(name, fontsize=9, color=colour, loc="left")
        ax.grid(alpha=0.25)
        ax.tick_params(labelsize=8)
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    ax0 = axes.flat[0]
    ax0.set_ylim(low_edge, high_edge)
    ax0.set_xlim(min(xs) - 0.5, max(xs) + 0.5)
    ax0.xaxis.set_major_locator(MaxNLocator(nbins=min(len(xs), 8), integer=True, min_n_ticks=1))
    ax0.annotate("random = 0", (1.0, 0), xycoords=("axes fraction", "data"), xytext=(-2, 2),
                 textcoords="offset points", ha="right", fontsize=7, color="#666")
    ax0.annotate(f"{last.reference} = 1", (1.0, 1), xycoords=("axes fraction", "data"), xytext=(-2, 2),
                 textcoords="offset points", ha="right", fontsize=7, color="#666")
    fig.supxlabel("unseen stages so far", fontsize=9)
    fig.supylabel(f"lead over random, in {last.reference}'s leads", fontsize=9)
    fig.tight_layout()
    return fig


def _band(e: Estimate) -> tuple[float, float]:
    """An estimate's interval as the plot's band: no interval, no band (nan); an unbounded side
    (infinite) stays so and is clipped by the caller."""
    if e.low is None or e.high is None:
        return math.nan, math.nan
    return e.low, e.high


@_plot
def adaptation_plot(s: Summary) -> Markup:
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for agent, curve in s.metrics["A"].items():
        if curve["points"]:
            xs, ys = zip(*curve["points"])
            bars = [(max(0.0, y - low), max(0.0, high - y)) for y, (low, high) in zip(ys, curve["intervals"])]  # 95%
            ax.errorbar(xs, ys, yerr=list(zip(*bars)), marker="o", capsize=3,
                        label=f"{agent} (area {curve['area']:.2f})", color=agent_colour(s, agent))
    ax.set_xscale("log", base=2)
    # the fractions as numbers: the log axis's own labels are mathtext, which _plot turns off
    ax.xaxis.set_major_formatter(FuncFormatter(lambda f, _: f"{f:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("fraction of the analysis budget")
    ax.set_ylabel("score against the baselines, unseen stages")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    return _svg(fig)
