"""The report of an evaluation: report.html (one self-contained file: it opens with no network),
report.json (the same numbers) and ratings.csv / games.csv.

The plots are matplotlib's, drawn as SVG into the page; the game replay is a few lines of script
over the boards the compiled stage gives when the game's moves are applied again (each board a
string of cells: '.' empty, '1' first player, '2' second, '#' blocked), drawn as squares, or as
hexagons on hex boards.

Agents' names, their failures' text and stages' names are data wherever they appear: escaped in the
HTML, `<`, `>` and `&` escaped in the JSON the replay reads, put into the page by the replay as text
only, and never read as mathtext by the plots; the page's Content-Security-Policy lets no script run
but the replay's own (by its hash) and loads nothing.
"""
from __future__ import annotations

import base64
import csv
import functools
import hashlib
import html
import io
import json
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display is needed or wanted
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from ..compiler import compile as compile_stage  # noqa: E402
from ..files import check_writable, write_atomic  # noqa: E402
from ..gdl import loads  # noqa: E402
from ..gdl.diagnostics import LudicaError  # noqa: E402
from .anytime import MIN_SPREAD  # noqa: E402
from .drawseed import revealed  # noqa: E402
from .failures import KINDS  # noqa: E402
from .summary import Summary  # noqa: E402

CELL = {-1: "#", 0: ".", 1: "1", 2: "2"}


def to_dict(s: Summary) -> dict:
    """Every number of the report, as JSON-ready data."""
    def rating(x):
        return {"agent": x.name, "elo": x.elo, "low": x.low, "high": x.high, "rank": x.rank,
                "rank_probabilities": x.rank_probabilities, "games": x.games, "score": x.score}

    return {
        "agents": s.agents, "baselines": s.baselines,
        "stages": [{k: v for k, v in st.items() if k != "text"} | {"title": s.stage_name(st["stage_hash"])}
                   for st in s.stages],
        "ratings": {"overall": [rating(x) for x in s.overall.ratings], "resamples": s.overall.resamples,
                    "strata": s.overall.strata, "method": s.overall.method, "anchor": s.overall.anchor,
                    "level": s.overall.level, "notes": s.overall.notes,
                    "per_stage": {h: [rating(x) for x in r.ratings] for h, r in s.per_stage.items()}},
        "matrix": {a: {b: {"points": p, "games": n} for b, (p, n) in row.items()} for a, row in s.overall.matrix.items()},
        "failures": {a: {"games": f.games, "lost": dict(f.lost), "illegal_moves": f.illegal_moves,
                         "top_reasons": f.top_reasons()} for a, f in s.failures.items()},
        "warnings": s.warnings,
        "scores": s.scores,
        "metrics": s.metrics,
        "views": s.views,
        "anytime": [{"stage": p.stage, "stages": p.stages, "skipped": p.skipped, "reference": p.reference,
                     "unit": p.unit, "faint": p.faint,
                     "estimates": {a: {"mean": e.mean, "low": e.low, "high": e.high, "effective_stages": e.effective}
                                   for a, e in p.estimates.items()}}
                    for p in s.anytime],
        "draw": s.draw,  # the unseen stages' seed, revealed now that the run is over
        "stopped": s.stopped,
    }


REPORT_FILES = ("report.html", "report.json", "ratings.csv", "games.csv")


def check_report_folder(folder: Path) -> None:
    """`ludica report --out FOLDER`: a new or empty folder, or one holding a report of ludica's and
    nothing else (it is replaced); never a folder whose files ludica did not write."""
    if folder.exists() and not folder.is_dir():
        raise LudicaError(f"--out {folder} is a file, not a folder")
    held = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    if held and not (set(held) <= set(REPORT_FILES) and _is_a_report(folder / "report.json")):
        raise LudicaError(f"--out {folder} holds files ludica did not write ({', '.join(held[:5])}"
                          f"{' …' if len(held) > 5 else ''}): give a new or empty folder")
    check_writable(folder, "--out")


def _is_a_report(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and {"ratings", "matrix", "anytime"} <= data.keys()


def write_report(s: Summary, folder: Path) -> dict[str, Path]:
    """The report's files in `folder` (made if need be)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = to_dict(s)
    paths = {"html": folder / "report.html", "json": folder / "report.json", "csv": folder / "ratings.csv",
             "games": folder / "games.csv"}
    # each file whole or not at all: a run killed while writing keeps the report it had
    write_atomic(paths["json"], json.dumps(data, indent=1, default=_plain))
    write_atomic(paths["csv"], _ratings_csv(s))
    write_atomic(paths["games"], _games_csv(s))
    write_atomic(paths["html"], _html(s, data))
    return paths


def _plain(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return float(x) if hasattr(x, "__float__") else str(x)


def spreadsheet_text(text: str) -> str:
    """A name as a CSV cell a spreadsheet shows and does not run: a cell that starts with =, +, -,
    @, a tab or a carriage return is a formula there (OWASP's CSV injection), so it gets a leading
    apostrophe, which spreadsheets hide."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _ratings_csv(s: Summary) -> str:
    text = io.StringIO(newline="")
    out = csv.writer(text)
    out.writerow(["scope", "agent", "rank", "elo", "low", "high", "p_best", "score", "games", *KINDS])
    scopes = [("overall", s.overall)] + [(s.stage_name(h), r) for h, r in s.per_stage.items()]
    for scope, ratings in scopes:
        for x in ratings.ratings:
            lost = s.failures[x.name].lost if scope == "overall" and x.name in s.failures else {}
            out.writerow([spreadsheet_text(scope), spreadsheet_text(x.name), x.rank, f"{x.elo:.1f}", f"{x.low:.1f}", f"{x.high:.1f}",
                          f"{x.rank_probabilities[0]:.3f}", f"{x.score:.4f}", x.games,
                          *(lost.get(k, 0) if scope == "overall" else "" for k in KINDS)])
    return text.getvalue()


def _games_csv(s: Summary) -> str:
    columns = ["stage", "stage_hash", "black", "white", "game_index", "seed", "result", "reason", "black_score",
               "white_score", "plies", "black_time", "white_time", "moves"]
    text = io.StringIO(newline="")
    out = csv.writer(text)
    out.writerow(columns)
    named = {"stage", "black", "white"}
    for g in s.games:
        out.writerow([spreadsheet_text(g[c]) if c in named else g[c] for c in columns])
    return text.getvalue()


# --- plots -----------------------------------------------------------------------------------


def _plot(draw):
    """A plot whose texts (agents' and stages' names among them) are drawn as they are: a name with
    dollar signs is not mathtext (which could fail the whole report)."""
    @functools.wraps(draw)
    def drawn(s: Summary) -> str:
        with plt.rc_context({"text.parse_math": False}):
            return draw(s)
    return drawn


def _svg(fig) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


@_plot
def _leaderboard_plot(s: Summary) -> str:
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
def _matrix_plot(s: Summary) -> str:
    return _svg(_matrix_figure(s))


def _matrix_figure(s: Summary):
    """The pairwise scores as a heat map; a pair that never met (a gauntlet's baselines) is hatched
    grey with a dash, named in a legend, so it cannot be read as an even score."""
    names = [x.name for x in s.overall.ratings]
    matrix = s.overall.matrix
    fig, ax = plt.subplots(figsize=(1.0 * len(names) + 2, 0.8 * len(names) + 1.5))
    values = [[math.nan if a == b or not matrix[a][b][1] else matrix[a][b][0] / matrix[a][b][1] for b in names]
              for a in names]
    image = ax.imshow(values, cmap="RdBu", vmin=0, vmax=1)
    unplayed = {"facecolor": UNPLAYED, "hatch": "///", "edgecolor": "#8a8a8a", "linewidth": 0}
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
def _stage_plot(s: Summary) -> str:
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
def _anytime_plot(s: Summary) -> str:
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [p.stages for p in s.anytime]
    ends = {"random", s.anytime[-1].reference}  # 0 and 1 by definition: the dotted lines
    for x in s.overall.ratings:
        if x.name in ends:
            continue
        means = [p.estimates[x.name].mean for p in s.anytime]
        # no interval: no band; an unbounded side: the band runs off the plot (ylim is set below)
        low = [max(-1e6, p.estimates[x.name].low) if p.estimates[x.name].low is not None else math.nan
               for p in s.anytime]
        high = [min(1e6, p.estimates[x.name].high) if p.estimates[x.name].high is not None else math.nan
                for p in s.anytime]
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


@_plot
def _adaptation_plot(s: Summary) -> str:
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


# --- the page ----------------------------------------------------------------------------------


def _replays(s: Summary) -> list[dict]:
    """Every game with its boards, for the replay."""
    out = []
    games_by_stage: dict[str, list[dict]] = {}
    for g in s.games:
        games_by_stage.setdefault(g["stage_hash"], []).append(g)
    for st in s.stages:
        games = games_by_stage.get(st["stage_hash"], [])
        if not games:
            continue
        game = compile_stage(loads(st["text"]))
        board = game.stage.board
        for g in games:
            state = game.initial_state()
            boards, captured = [_cells(game.board(state))], []
            for text in json.loads(g["moves"]):
                state, took = game.apply_counted(state, game.parse_move(text))
                boards.append(_cells(game.board(state)))
                captured.append(took)
            out.append({"stage": s.stage_name(st["stage_hash"]), "black": g["black"], "white": g["white"],
                        "result": g["result"], "reason": g["reason"], "score": [g["black_score"], g["white_score"]],
                        "moves": json.loads(g["moves"]), "seconds": json.loads(g.get("ply_seconds") or "[]"),
                        "captured": captured, "boards": boards, "rows": board.rows, "cols": board.cols,
                        "hex": board.keyword == "hex", "log": g["log"]})
    return out


def _cells(board) -> str:
    return "".join(CELL.get(int(v), "?") for v in board.reshape(-1))


def _table(header: list[str], rows: list[list], cls: str = "") -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _weight_cell(st: dict) -> str:
    """The weight, and how many draws of the sampler gave the stage when more than one."""
    drawn = st.get("multiplicity") or 1
    return f"{st['weight']:.3f}" + (f" (drawn ×{drawn})" if drawn > 1 else "")


def _divergence_cell(st: dict) -> str:
    """A variant's divergence from its base ± its standard error: what a policy tuned to the base
    loses there (sampler/divergence.py); — where there is none."""
    if st.get("divergence") is None:
        return "—"
    return f"{st['divergence']:+.2f} ± {st['divergence_se']:.2f}"


def _html(s: Summary, data: dict) -> str:
    r = s.overall
    board_rows = []
    for x in r.ratings:
        f = s.failures.get(x.name)
        board_rows.append([x.rank, x.name, f"{x.elo:.0f}", f"{x.low:.0f} – {x.high:.0f}",
                           f"{x.rank_probabilities[0]:.2f}", f"{100 * x.score:.1f}%", x.games,
                           *((f.lost.get(k, 0) if f else 0) for k in KINDS)])
    leaderboard = _table(["Rank", "Agent", "Elo", "95% interval", "P(best)", "Score", "Games",
                          *(k.capitalize() for k in KINDS)], board_rows, "leaderboard")
    ranks = _table(["Agent", *[f"P(rank {k + 1})" for k in range(len(r.ratings))]],
                   [[x.name, *(f"{p:.2f}" for p in x.rank_probabilities)] for x in r.ratings])
    metric_rows = [[x.name, *metric_cells(s, x.name)] for x in r.ratings]
    metrics = _table(["Agent", "P: score", "A: area", "G: public − unseen", "R: worst stage", "R: spread", "E: analysis used",
                      "E: s per game", "E: ms per move"], metric_rows)
    every_game = s.games + s.adaptation_games + s.reference_games
    stage_rows = [[s.stage_name(st["stage_hash"]), st["role"], _weight_cell(st), _divergence_cell(st),
                   f"{st['analysis_time']:g}",
                   sum(1 for g in every_game if g["stage_hash"] == st["stage_hash"]), st["planned"],
                   ", ".join(f"{x.name} {x.elo:.0f}" for x in s.per_stage[st["stage_hash"]].ratings[:3])
                   if st["stage_hash"] in s.per_stage else "—"] for st in s.stages]
    stages = _table(["Stage", "Role", "Weight", "Divergence", "Analysis s", "Games", "Planned",
                     "Best (per-stage Elo)"], stage_rows)
    if s.draw is not None:
        stages += f'<p class="draw">{html.escape(revealed(s.draw))}.</p>'
    failure_rows = [[f.agent, f.games, *(f.lost.get(k, 0) for k in KINDS), f.illegal_moves,
                     "; ".join(f"{kind} ×{k}: {why}" for kind, why, k in f.top_reasons()) or "—"]
                    for f in sorted(s.failures.values(), key=lambda f: -f.share)]
    failures_table = _table(["Agent", "Games", *(f"Lost: {k}" for k in KINDS), "Illegal moves replaced",
                             "Top reasons"], failure_rows)
    views = s.views
    overall = {x["agent"]: x for x in views["lexicographic"]}
    view_rows = [[x.name, f"{views['unified'].get(x.name, 0):.1f}", overall[x.name]["place"],
                  " ".join(str(k) for k in overall[x.name]["ranks"]) or "—"] for x in r.ratings]
    views_table = _table(["Agent", "Unified score (online Elo, K 32 from 1200)",
                          "OpenSpiel competition: place", "its instant-runoff ranks per stage, worst first"],
                         view_rows)
    views_table += ("<p>Each as its arena ranks; none replaces the ratings. The OpenSpiel competition: on each "
                    "stage every agent's ballot orders its opponents by its average outcome against them, hardest "
                    "first; an instant-runoff count of first preferences fills each place in turn; the per-stage "
                    "ranks, sorted worst first, are compared lexicographically, and equal lists share a place "
                    "(a stage on which not every agent has played yet is left out).</p>")
    warnings = "".join(f'<p class="warning">warning: {html.escape(w)}</p>' for w in s.warnings)
    curves = (f"<figure>{_adaptation_plot(s)}</figure>" if any(c["points"] for c in s.metrics["A"].values()) else
              "<p>Not measured in this run: every agent is a baseline, or --adaptation none.</p>")
    anytime = ("<p>No unseen stage finished yet: the anytime estimate needs at least one.</p>" if not s.anytime else
               f"<figure>{_anytime_plot(s)}</figure><p>{_anytime_text(s)}</p>" if s.anytime[-1].stages else
               f"<p>{_anytime_text(s)}</p>")
    replays = script_json(_replays(s))
    title = f"ludica evaluation: {len(s.agents)} agents, {len(s.stages)} stages, {len(s.games)} games"
    return PAGE.format(
        title=html.escape(title), leaderboard=leaderboard, leaderboard_plot=_leaderboard_plot(s),
        strata=html.escape(f"Intervals: {r.method}. Rank probabilities: {r.resamples} bootstrap resamples within "
                           f"{r.strata}. Stages weigh equally; "
                           f"draws count half; {r.anchor} = 1000."),
        warnings=warnings, ranks=ranks, matrix_plot=_matrix_plot(s), metrics=metrics, stage_plot=_stage_plot(s),
        stages=stages, anytime=anytime, failures=failures_table, views=views_table, replays=replays, curves=curves,
        stopped=_unfinished(s), policy=html.escape(content_security_policy(REPLAY_SCRIPT)), script=REPLAY_SCRIPT)


# `<`, `>` and `&` inside a script element's JSON as \u escapes: no string in it ("</script>", "<!--")
# can end the element or change how it is read; U+2028/2029 too (line ends to older JavaScript).
_SCRIPT_SAFE = {ord(c): f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"}


def script_json(data) -> str:
    """`data` as JSON that may stand inside a <script type="application/json"> element as it is."""
    return json.dumps(data, separators=(",", ":")).translate(_SCRIPT_SAFE)


def content_security_policy(script: str) -> str:
    """The report's policy: nothing is loaded from anywhere, and the only script that runs is
    `script` (by its SHA-256), so no markup an agent's text might still slip into the page can run;
    the plots need inline styles and their images as data: URIs."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src data:; "
            "base-uri 'none'; form-action 'none'")


def _anytime_text(s: Summary) -> str:
    last, ref = s.anytime[-1], s.anytime[-1].reference
    if ref is None:
        return "No estimate: the anytime score needs random and one of mcts, positional, corners, greedy."
    if last.stages and not last.unit > 0:
        return html.escape(f"No scale yet: {ref}, the reference, leads random by {last.unit:.2f} on the "
                           f"{last.stages} unseen stages so far, so there is no unit to measure the agents in.")
    notes = [f"{last.skipped} stage(s) left out (an agent without a level there)"] if last.skipped else []
    if last.faint:
        notes.append(f"on {last.faint} stage(s) {ref} led random by less than {MIN_SPREAD:g}: they count, in "
                     "proportion to that lead")
    if last.unit < MIN_SPREAD:
        notes.append(f"a short scale: {ref} leads random by {last.unit:.2f} on average, so the scores are less "
                     "certain than they would be on a longer one")
    return html.escape(
        f"After {last.stages} unseen stages (effective number under the Levin weights: {last.effective:.1f}"
        f"{''.join('; ' + n for n in notes)}): {last.ranked()}. On each unseen stage an agent's level is its "
        "points per game against the baselines (the mean over them); the baselines' own levels come from "
        "their reference games among themselves, in any format. A score is the agent's lead over random's "
        f"level, its weighted mean over the stages, in units of {ref}'s (the reference's) mean lead: 0 is "
        f"random's level, 1 is {ref}'s, 2 twice {ref}'s lead over random. 95% intervals: Student's t on the "
        "jackknife over stages with Hall's correction for skewness, widened where Fieller's interval for a "
        "ratio reaches further (∞ while the unit is not told from 0).")


def metric_cells(s: Summary, agent: str, worst_stage_named: bool = True) -> list[str]:
    """An agent's metrics as text: P, A, G, R worst (with the stage's name), R spread, E analysis
    share, seconds per game, milliseconds per move ("—" where not measured)."""
    m = s.metrics
    e, rob, g, area = m["E"].get(agent, {}), m["R"].get(agent), m["G"].get(agent), m["A"].get(agent, {}).get("area")
    worst = "—" if not rob else f"{rob['worst']:.3f}" + (f" ({s.stage_name(rob['worst_stage'])})"
                                                         if worst_stage_named else "")
    return [f"{m['P'].get(agent, {}).get('score', 0):.3f}", "—" if area is None else f"{area:.3f}",
            "—" if g is None else f"{g:+.3f}", worst, f"{rob['spread']:.3f}" if rob else "—",
            "—" if e.get("analysis_share") is None else f"{100 * e['analysis_share']:.0f}%",
            f"{e.get('seconds_per_game', 0):.2f}",
            "—" if e.get("seconds_per_move") is None else f"{1000 * e['seconds_per_move']:.1f}"]


def _unfinished(s: Summary) -> str:
    """Said at the top when the run is not over: its figures are over the games played so far."""
    notes = []
    if s.stopped:
        notes.append(f"stopped early: {s.stopped}.")
    if s.played < s.planned:
        notes.append(f"This run is not finished: {s.played} of its {s.planned} planned games are played (run the "
                     "same command with --resume to go on); every figure is over the games played so far.")
    return "".join(f"<p class='warning'>{html.escape(n)}</p>" for n in notes)


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }}
th:nth-child(2), td:nth-child(2), th:first-child, td:first-child {{ text-align: left; }}
.warning {{ color: #8a4b00; background: #fff4e0; padding: 0.4em 0.7em; }}
figure {{ margin: 0.5em 0 1.5em; }} figure svg {{ max-width: 100%; height: auto; }}
#replay-board svg {{ width: 26em; height: auto; }}
#replay-moves {{ font-family: monospace; font-size: 0.85em; max-height: 22em; overflow-y: auto; }}
#replay-moves .current {{ background: #ffe9a8; }}
.replay {{ display: flex; gap: 2em; align-items: flex-start; }}
</style></head><body>
<h1>{title}</h1>
{stopped}
<h2>Leaderboard</h2>
{leaderboard}
<p>{strata}</p>
{warnings}
<figure>{leaderboard_plot}</figure>
<h3>Probability of each rank (bootstrap)</h3>
{ranks}
<h2>Pairwise scores</h2>
<figure>{matrix_plot}</figure>
<h2>Metrics</h2>
{metrics}
<h3>Adaptation: score with a fraction of the analysis budget (A)</h3>
{curves}
<h3>Score per agent and stage</h3>
<figure>{stage_plot}</figure>
<h3>Stages</h3>
{stages}
<h2>Anytime generalisation estimate</h2>
{anytime}
<h2>Failures</h2>
{failures}
<h2>Secondary views</h2>
{views}
<h2>Replay</h2>
<p><select id="replay-game"></select>
<button id="replay-first">|&lt;</button><button id="replay-back">&lt;</button>
<button id="replay-next">&gt;</button><button id="replay-last">&gt;|</button>
<span id="replay-where"></span></p>
<div class="replay"><div id="replay-board"></div><div id="replay-moves"></div></div>
<script id="replay-data" type="application/json">{replays}</script>
<script>{script}</script>
</body></html>
"""

# The replay: every name, move and stage title goes into the page as text (textContent, setAttribute),
# never as markup, and the board is built with createElementNS: nothing in the data can become an
# element or a script. It is the page's only script, allowed by its hash in the page's policy.
REPLAY_SCRIPT = """
(function () {
  const games = JSON.parse(document.getElementById("replay-data").textContent);
  const pick = document.getElementById("replay-game"), where = document.getElementById("replay-where");
  const boardBox = document.getElementById("replay-board"), movesBox = document.getElementById("replay-moves");
  const SVG = "http://www.w3.org/2000/svg";
  let game = null, ply = 0;
  function element(tag, text) {
    const e = document.createElement(tag);
    e.textContent = text;
    return e;
  }
  function shape(tag, attributes) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
    return e;
  }
  games.forEach((g, i) => {
    const o = element("option", g.stage + ": " + g.black + " vs " + g.white + " → " + g.result +
      (g.reason === "normal" ? "" : " (" + g.reason + ")"));
    o.value = i;
    pick.appendChild(o);
  });
  const colour = {".": "#3f8f4f", "1": "#111", "2": "#f4f4f4", "#": "#777"};
  function draw() {
    const cells = game.boards[ply], n = game.rows, m = game.cols, s = 30;
    const w = game.hex ? s * (m + n / 2 + 1) : s * (m + 1), h = game.hex ? s * (n * 0.866 + 1.2) : s * (n + 1);
    const svg = shape("svg", {viewBox: "0 0 " + w + " " + h});
    for (let r = 0; r < n; r++) for (let c = 0; c < m; c++) {
      const v = cells[r * m + c], fill = v === "#" ? "#777" : "#3f8f4f";
      let x, y;
      if (game.hex) {
        x = s * (c + r / 2) + s; y = s * r * 0.866 + s;
        const pts = [];
        for (let k = 0; k < 6; k++) {
          const a = Math.PI / 180 * (60 * k - 30);
          pts.push((x + s * 0.577 * Math.cos(a)).toFixed(1) + "," + (y + s * 0.577 * Math.sin(a)).toFixed(1));
        }
        svg.appendChild(shape("polygon", {class: "cell", points: pts.join(" "), fill: fill, stroke: "#1b3d22"}));
      } else {
        x = s * c + s; y = s * r + s;
        svg.appendChild(shape("rect", {class: "cell", x: x - s / 2, y: y - s / 2, width: s, height: s, fill: fill,
                                       stroke: "#1b3d22"}));
      }
      if (v === "1" || v === "2")
        svg.appendChild(shape("circle", {class: "piece piece-" + v, cx: x, cy: y, r: s * 0.38, fill: colour[v],
                                         stroke: "#000"}));
    }
    boardBox.replaceChildren(svg);
    const total = game.boards.length - 1;
    where.textContent = "ply " + ply + " of " + total + (ply > 0 ? ": " + game.moves[ply - 1] : " (the start)");
    movesBox.querySelectorAll("li").forEach((li, i) => {
      li.classList.toggle("current", i === ply - 1);
      if (i === ply - 1) li.scrollIntoView({block: "nearest"});
    });
  }
  function load(i) {
    game = games[i]; ply = 0;
    const list = document.createElement("ol");
    game.moves.forEach((mv, k) => {
      const t = game.seconds[k], who = t ? (t[0] === 0 ? game.black : game.white) : "";
      list.appendChild(element("li", who + ": " + mv + (game.captured[k] ? " ×" + game.captured[k] : "") +
        (t ? " (" + t[1].toFixed(3) + " s)" : "")));
    });
    movesBox.replaceChildren(element("p", "● " + game.black + " (first) – ○ " + game.white + " (second)"),
      list, element("p", game.black + " " + game.score[0] + " – " + game.score[1] + " " + game.white));
    draw();
  }
  const step = d => { if (game) { ply = Math.max(0, Math.min(game.boards.length - 1, ply + d)); draw(); } };
  document.getElementById("replay-next").onclick = () => step(1);
  document.getElementById("replay-back").onclick = () => step(-1);
  document.getElementById("replay-first").onclick = () => step(-1e9);
  document.getElementById("replay-last").onclick = () => step(1e9);
  pick.onchange = () => load(+pick.value);
  // report.html#game=G&ply=P opens game G at ply P (a link to a position; tests use it too)
  const wanted = new URLSearchParams(location.hash.slice(1));
  if (games.length) {
    const g = Math.min(games.length - 1, Math.max(0, +(wanted.get("game") || 0)));
    pick.value = g; load(g); step(+(wanted.get("ply") || 0));
  }
})();
"""
