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
from matplotlib.ticker import MaxNLocator

from .anytime import Estimate
from .page import Markup
from .summary import Summary

__all__ = ["adaptation_plot", "anytime_plot", "leaderboard_plot", "matrix_figure", "matrix_plot", "stage_plot"]


def _plot(draw):
    """A plot whose texts (agents' and stages' names among them) are drawn as they are: a name with
    dollar signs is not mathtext (which could fail the whole report)."""
    @functools.wraps(draw)
    def drawn(s: Summary) -> Markup:
        with plt.rc_context({"text.parse_math": False}):
            return draw(s)
    return drawn


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
    elo = [x.elo for x in ratings]
    # a percentile interval need not hold the estimate (a skewed bootstrap): bars from the estimate, clipped
    ax.errorbar(elo, y, xerr=[[max(0.0, x.elo - x.low) for x in ratings], [max(0.0, x.high - x.elo) for x in ratings]],
                fmt="o",
                capsize=4, color="#1f4e79")
    ax.set_yticks(list(y), [x.name for x in ratings])
    ax.axvline(1000, color="#999", linestyle=":", linewidth=1)
    ax.set_xlabel(f"Elo (Bradley–Terry; {s.overall.anchor} = 1000), {100 * s.overall.level:.0f}% interval")
    ax.grid(axis="x", alpha=0.3)
    return _svg(fig)


UNPLAYED = "#d4d4d4"  # hatched light grey: unlike white, which is a 50% score on the RdBu scale
ITSELF = "#8c8c8c"


@_plot
def matrix_plot(s: Summary) -> Markup:
    return _svg(matrix_figure(s))


def matrix_figure(s: Summary):
    """The pairwise scores as a heat map; a pair that never met (a gauntlet's baselines) is hatched
    grey with a dash, named in a legend, so it cannot be read as an even score."""
    names = [x.name for x in s.overall.ratings]
    matrix = s.overall.matrix
    fig, ax = plt.subplots(figsize=(1.0 * len(names) + 2, 0.8 * len(names) + 1.5))
    values = [[math.nan if a == b or not matrix[a][b][1] else matrix[a][b][0] / matrix[a][b][1] for b in names]
              for a in names]
    image = ax.imshow(values, cmap="RdBu", vmin=0, vmax=1)
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
    image = ax.imshow(values, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    roles = {st["stage_hash"]: st["role"] for st in s.stages}
    ax.set_xticks(range(len(hashes)), [f"{s.stage_name(h)} ({roles[h]})" for h in hashes], rotation=40, ha="right")
    ax.set_yticks(range(len(names)), names)
    fig.colorbar(image, ax=ax, label="score on the stage")
    return _svg(fig)


@_plot
def anytime_plot(s: Summary) -> Markup:
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [p.stages for p in s.anytime]
    ends = {"random", s.anytime[-1].reference}  # 0 and 1 by definition: the dotted lines
    for x in s.overall.ratings:
        if x.name in ends:
            continue
        means = [p.estimates[x.name].mean for p in s.anytime]
        low, high = zip(*(_band(p.estimates[x.name]) for p in s.anytime))
        line, = ax.plot(xs, means, marker="o", label=x.name)
        ax.fill_between(xs, low, high, alpha=0.15, color=line.get_color())
    for level, name in ((0, "random"), (1, f"{s.anytime[-1].reference} (reference)")):
        ax.axhline(level, color="#999", linestyle=":", linewidth=1)
        ax.annotate(name, (0, level), xycoords=("axes fraction", "data"), xytext=(2, 2), textcoords="offset points",
                    fontsize=7, color="#666")
    means = [e.mean for p in s.anytime for e in p.estimates.values() if math.isfinite(e.mean)]
    if means:  # the first intervals (t with one degree of freedom) are huge: keep the means in view
        ax.set_ylim(min(-0.25, min(means) - 0.5), max(1.25, max(means) + 0.5))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("unseen stages so far")
    ax.set_ylabel(f"lead over random, in {s.anytime[-1].reference}'s leads")
    if any(x.name not in ends for x in s.overall.ratings):
        ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    return _svg(fig)


def _band(e: Estimate) -> tuple[float, float]:
    """An estimate's interval as the plot's band: no interval, no band (nan); an unbounded side runs
    off the plot (its ylim is set to the means)."""
    if e.low is None or e.high is None:
        return math.nan, math.nan
    return max(-1e6, e.low), min(1e6, e.high)


@_plot
def adaptation_plot(s: Summary) -> Markup:
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for agent, curve in s.metrics["A"].items():
        if curve["points"]:
            xs, ys = zip(*curve["points"])
            ax.plot(xs, ys, marker="o", label=f"{agent} (area {curve['area']:.2f})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("fraction of the analysis budget")
    ax.set_ylabel("score against the baselines, unseen stages")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    return _svg(fig)
