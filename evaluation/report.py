"""The report of an evaluation: report.html (one self-contained file: it opens with no network),
report.json (the same numbers) and ratings.csv / games.csv.

The page is the report's views laid out by templates: this module gathers each view's data from a
Summary (`page_views`: the run's metadata, tables of cells, notes, plots, the unseen stages, the
replay's games), and evaluation/templates/report.html.j2 lays them out, one partial per view, with
the CSS and the scripts of evaluation/static/ inlined (page.py). The plots are matplotlib's, drawn
as SVG into the page (plots.py); the game replay (static/replay.js) draws its boards with the one
board renderer, static/board.js, from the boards the compiled stage gives when the game's moves are
applied again (each board a string of cells: '.' empty, '1' first player, '2' second, '#'
blocked), with each ply's clocks, piece counts and captured cells. A leaderboard row and a matrix
cell link to their games in the replay (`replay_link`: issue 22's #agent=NAME and #pair=A|B).

Agents' names, their failures' text and stages' names are data wherever they appear: escaped in the
HTML (the templates autoescape), URL-encoded in links, `<`, `>` and `&` escaped in the JSON the
replay reads, put into the page by the scripts as text only, and never read as mathtext by the
plots; the page's Content-Security-Policy lets no script run but its own two (by their hashes) and
loads nothing.
"""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import quote

from ..compiler import CompiledDarkGame, playable
from ..files import check_writable, write_atomic
from .. import gdl
from ..gdl import loads
from ..sampler.edits import describe
from ..gdl.diagnostics import LudicaError
from ..runtime.entrants import MODEL_PREFIX
from ..runtime.records import EDITED, StoreError
from ..runtime.human import HUMAN, HUMAN_TIME
from ..runtime.plans import MODEL_TIME
from ..runtime.referee import explain_end, headline, result_of
from ..runtime.seatseeds import chance_seed
from . import plots
from .anytime import MIN_SPREAD, Point
from .anytime import _bound as bound
from .drawseed import revealed
from .failures import KINDS
from .usage import ModelUsage
from .page import Markup, render
from .summary import Summary

CELL = {-1: "#", 0: ".", 1: "1", 2: "2"}


def to_dict(s: Summary) -> dict:
    """Every number of the report, as JSON-ready data."""
    def rating(x):
        return {"agent": x.name, "elo": x.elo, "low": x.low, "high": x.high, "rank": x.rank,
                "rank_probabilities": x.rank_probabilities, "games": x.games, "score": x.score}

    return {
        "agents": s.agents, "baselines": s.baselines,
        "stages": [{k: v for k, v in st.items() if k != "text"} | {"title": s.stage_name(st["stage_hash"])}
                   for st in s.shown_stages],  # an unseen stage still to be met: not a word of it (Summary.shown)
        "stages_withheld": len(s.stages) - len(s.shown_stages),
        "ratings": {"overall": [rating(x) for x in s.overall.ratings], "resamples": s.overall.resamples,
                    "strata": s.overall.strata, "method": s.overall.method, "anchor": s.overall.anchor,
                    "level": s.overall.level, "notes": s.overall.notes,
                    "per_stage": {h: [rating(x) for x in r.ratings] for h, r in s.per_stage.items()}},
        "matrix": {a: {b: {"points": p, "games": n} for b, (p, n) in row.items()} for a, row in s.overall.matrix.items()},
        "failures": {a: {"games": f.games, "lost": dict(f.lost), "illegal_moves": f.illegal_moves,
                         "top_reasons": f.top_reasons()} for a, f in s.failures.items()},
        "warnings": s.warnings,
        "models": [asdict(m) | {"cost": m.cost}  # what the language-model agents used
                   for m in s.models],
        "scores": s.scores,
        "metrics": s.metrics,
        "views": s.views,
        "anytime": [{"stage": p.stage, "stages": p.stages, "skipped": p.skipped, "reference": p.reference,
                     "unit": p.unit, "faint": p.faint,
                     "estimates": {a: {"mean": e.mean, "low": e.low, "high": e.high, "effective_stages": e.effective}
                                   for a, e in p.estimates.items()}}
                    for p in s.anytime],
        "draw": s.draw,  # the unseen stages' seed, revealed once the run is finished (a secret one: null until then)
        "stopped": s.stopped,
        "run": dict(run_info(s)),  # the page's header: date, command, options, seeds, version, machine
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


def write_report(s: Summary, folder: Path, running: bool = False) -> dict[str, Path]:
    """The report's files in `folder` (made if need be); `running`: a process still plays the run
    (its page says so, not to --resume it)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = to_dict(s)
    paths = {"html": folder / "report.html", "json": folder / "report.json", "csv": folder / "ratings.csv",
             "games": folder / "games.csv"}
    # each file whole or not at all: a run killed while writing keeps the report it had
    write_atomic(paths["json"], json.dumps(data, indent=1, default=_plain))
    write_atomic(paths["csv"], _ratings_csv(s))
    write_atomic(paths["games"], _games_csv(s))
    write_atomic(paths["html"], render_html(s, running))
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


# --- the page's views: the data each section shows, laid out by evaluation/templates/ -----------


@dataclass(frozen=True)
class Link:
    """A cell that links into the page: `href` is ours (a fragment, names in it URL-encoded), and
    the template escapes both."""
    text: str
    href: str


@dataclass(frozen=True)
class Shade:
    """A cell shaded by a probability on the page's one colour scale (plots.cell_style); a value of
    None: no shade."""
    text: str
    value: float | None

    @property
    def style(self) -> str:
        return "" if self.value is None else plots.cell_style(self.value)


@dataclass(frozen=True)
class Table:
    """A table as a page shows it: a header and rows of cells, each cell shown as text (a Link or a
    Shade as such). `words`: the columns of words (names, stages, reasons), which wrap to fit the
    page; the others (numbers, intervals) stay on one line."""
    header: list[str]
    rows: list[list]
    css_class: str = ""
    words: tuple[int, ...] = ()


def replay_link(key: str, *names: str, page: str = "") -> str:
    """The replay's address of a selection (the scheme of issue 22): `#agent=NAME`, or `#pair=A|B`
    for the games between A and B, either seat; each name encoded as JavaScript's
    encodeURIComponent does, so the replay decodes it whatever it holds (`|`, `&`, `#`, quotes,
    markup). `page`: the replay's page when it is not this one (a run's page of `ludica serve`)."""
    return f"{page}#{key}=" + "|".join(_uri_component(n) for n in names)


def _uri_component(text: str) -> str:
    return quote(text, safe="-_.!~*'()")


@dataclass(frozen=True)
class Leaderboard:
    table: Table  # the agents best first: Elo, interval, P(best), score, games, forfeits
    method: str  # how the intervals and the rank probabilities were made
    warnings: list[str]
    plot: Markup
    ranks: Table  # the probability of each rank


@dataclass(frozen=True)
class Metrics:
    table: Table  # P, A, G, R, E per agent
    adaptation_plot: Markup | None  # None: A was not measured in this run
    stage_plot: Markup | None  # None: no stage played yet
    stages: Table
    draw: str | None  # how the unseen stages were drawn, revealed once the run is over
    unseen: list[UnseenStage]  # each unseen stage's text, change and rules
    withheld: int = 0  # the unseen stages not shown: none of their games played yet (Summary.shown)


@dataclass(frozen=True)
class Anytime:
    last: Point | None  # the estimate after the unseen stages so far; None before the first is finished
    notes: list[str]  # what qualifies it (stages left out, faint stages, a short scale)
    plot: Markup | None
    table: Table | None  # each agent's estimate and interval, as numbers (the plot clips what runs off it)


@dataclass(frozen=True)
class UnseenStage:
    """An unseen stage as the report shows it once the run is over: its name, what it changed from
    the stage it was drawn from, its text in the language, and its rules in English."""
    name: str
    change: str | None  # sampler/edits.describe's line; None: not drawn as a variant of a known base
    changes: list[str]  # the same, one plain-English sentence a change (gdl.changes)
    text: str
    rules: list[str]  # its rules in plain English, a paragraph each (gdl.rules)


# The sections of the page in order, by the id of their element and their heading (the index lists them).
SECTIONS = (("leaderboard", "Leaderboard"), ("pairwise", "Pairwise scores"), ("metrics", "Metrics"),
            ("anytime", "Anytime generalisation estimate"), ("failures", "Failures"),
            ("models", "Language models"), ("secondary", "Secondary views"), ("replay", "Replay"))


def title(s: Summary) -> str:
    """What the run is and how big: `ludica evaluation: 6 agents, 22 stages, 660 games` (the stages
    played: `2 of 101 stages` while some have no game yet)."""
    kind = next((k for k in ("evaluation", "qualification") if k in s.settings), "tournament")
    agents, games = (f"{n} {word}{'' if n == 1 else 's'}" for n, word in ((len(s.agents), "agent"), (len(s.games), "game")))
    return f"ludica {kind}: {agents}, {s.stages_said()}, {games}"


def page_views(s: Summary, replay_page: str = "", running: bool = False) -> dict:
    """Every view of the report by the name its template partial reads it under (templates/
    report.html.j2 includes them all): what a live page of the same run shows too. `replay_page`:
    where the links to games go, when the replay is not on the same page (`ludica serve`); `running`:
    the run is still going (a live page's)."""
    models = language_models(s)
    return {"title": title(s),
            "run": run_info(s), "sections": [x for x in SECTIONS if x[0] != "models" or models is not None],
            "unfinished": unfinished(s, running), "leaderboard": leaderboard(s, replay_page),
            "pairwise": plots.matrix_plot(s, link=lambda a, b: replay_link("pair", a, b, page=replay_page)),
            "metrics": metrics(s), "anytime": anytime(s), "failures": failures(s),
            "models": models, "secondary": secondary_views(s), "secondary_unmet": unmet_note(s),
            "replay": replays(s)}


def run_info(s: Summary) -> list[tuple[str, str]]:
    """The run's metadata, as (what, value) lines for the page's header: when, how it was started,
    its options, seeds, the version of ludica and the machine. The command, version and machine
    are what `ludica evaluate` or `ludica tournament` kept in the store (ludica/invocation.py); a run made
    before they were kept says so."""
    held = s.settings
    options = json.loads(held.get("options", "{}"))
    config = json.loads(held.get("evaluation", "{}")).get("config", {})
    starts = json.loads(held.get("invocations", "[]"))
    finished = [g["finished_at"] for g in s.games + s.adaptation_games + s.reference_games if g.get("finished_at")]
    unknown = "not recorded (a run started from Python, or by a ludica that did not keep it)"
    lines = [("Date", f"started {_when(starts[0]['started'] if starts else min(finished, default=''))}"
              + (f"; last game {_when(max(finished))}" if finished else "; no game yet")),
             ("Command", "; then ".join(x["command"] for x in starts) if starts else unknown)]
    shown = {k: v for k, v in (config | options).items() if k not in {"seed"}}
    lines.append(("Options", ", ".join(f"{k} {_option(v)}" for k, v in sorted(shown.items())) or "—"))
    seeds = f"games: seed {options['seed']}" if "seed" in options else "games: —"
    draw = s.draw
    if draw is not None:
        seeds += "; unseen stages: " + ("secret seed (revealed once the run is finished)" if draw["seed"] is None
                                        else f"secret seed (revealed now: {draw['seed']})" if draw["secret"]
                                        else f"seed {draw['seed']}, given (not secret)")
    lines += [("Seeds", seeds), ("Version", f"ludica {starts[-1]['version']}" if starts else unknown),
              ("Machine", starts[-1]["machine"] if starts else unknown)]
    return lines


def _when(stamp: str) -> str:
    """An ISO time as the header says it: `2026-11-24 21:05:56 UTC`."""
    return stamp.replace("T", " ").replace("+00:00", " UTC") if stamp else "—"


def _option(value) -> str:
    if isinstance(value, list):
        return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value) or "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


def unseen_stages(s: Summary) -> list[UnseenStage]:
    """The unseen stages with their text, what each changed from the base it was drawn from, and
    its rules in English; before the run is finished only those played (the others are still to be
    met unseen when it is resumed, as its draw's seed is withheld: Summary.draw)."""
    base = stored_stage(s, s.settings["base"], "setting 'base'") if "base" in s.settings else None
    out = []
    for st in s.shown_stages:
        if st["role"] != "unseen":
            continue
        stage = stored_stage(s, st["text"], _stage_row(st))
        change = describe(base, stage) if base is not None else None
        changes = gdl.changes(base, stage) if base is not None else []
        out.append(UnseenStage(s.stage_name(st["stage_hash"]), change, changes, st["text"], gdl.rules(stage)))
    return out


def stored_stage(s: Summary, text: str, where: str):
    """A stage the store keeps as its text; one that does not load (the store was edited) is a
    StoreError naming the store and where in it, not a stage file's error."""
    try:
        return loads(text)
    except LudicaError as err:
        first = str(err).splitlines()[0] if str(err) else "it does not load"
        raise StoreError(f"{s.store_path}: {where}: the stage's text does not load ({first[:200]}); {EDITED}") from None


def _stage_row(st: dict) -> str:
    return f"table stages, the row of stage {st['stage_hash'][:16]!r}, column text"


def render_html(s: Summary, running: bool = False) -> str:
    """report.html: one self-contained file (its CSS and script inlined, nothing loaded)."""
    return render("report.html.j2", **page_views(s, running=running))


def leaderboard(s: Summary, replay_page: str = "") -> Leaderboard:
    """The ratings overall, best first; each agent's games a link into the replay on `replay_page`."""
    r = s.overall
    rows = []
    for x in r.ratings:
        f = s.failures.get(x.name)
        rated = ([x.rank, x.name, f"{x.elo:.0f}", f"{x.low:.0f} – {x.high:.0f}", _probability(x.rank_probabilities[0]),
                  f"{100 * x.score:.1f}%"] if x.games else ["—", x.name, "—", NOT_RATED, "—", "—"])
        rows.append([*rated, Link(str(x.games), replay_link("agent", x.name, page=replay_page)),
                     *((f.lost.get(k, 0) if f else 0) for k in KINDS)])
    table = Table(["Rank", "Agent", "Elo", "95% interval", "P(best)", "Score", "Games",
                   *(k.capitalize() for k in KINDS)], rows, "leaderboard", words=(1,))
    ranks = Table(["Agent", *[f"P(rank {k + 1})" for k in range(len(r.ratings))]],
                  [[x.name, *(Shade(_probability(p), p) for p in x.rank_probabilities)] for x in r.ratings], "ranks",
                  words=(0,))
    method = (f"Intervals: {r.method}. Rank probabilities: {r.resamples} bootstrap resamples within {r.strata}. "
              f"Stages weigh equally; draws count half; {r.anchor} = 1000.")
    return Leaderboard(table, method, s.warnings, plots.leaderboard_plot(s), ranks)


# an agent without a game yet (a run just begun, or cut short) has no rating: its place would be the prior's
NOT_RATED = "no game yet"


def _probability(p: float) -> str:
    """A probability as the leaderboard and the rank table show it: tiny ones said as such, not
    rounded to a bare 0.00 (or a sure-looking 1.00)."""
    if p == 0:
        return "0"
    return "<0.01" if p < 0.005 else ">0.99" if 0.995 < p < 1 else f"{p:.2f}"


def metrics(s: Summary) -> Metrics:
    """The Arena's metrics, the adaptation curves, the scores per stage and the stages."""
    table = Table(["Agent", "P: score", "A: area (95%)", "G: public − unseen", "R: worst unseen stage [public]",
                   "R: spread, unseen [public]",
                   "E: analysis used", "E: s per game", "E: ms per move"],
                  [[x.name, *metric_cells(s, x.name)] for x in s.overall.ratings], words=(0, 4))
    every_game = s.games + s.adaptation_games + s.reference_games
    stage_rows = [[s.stage_name(st["stage_hash"]), st["role"], _board_cell(s, st), _weight_cell(st), _divergence_cell(st),
                   f"{st['analysis_time']:g}",
                   sum(1 for g in every_game if g["stage_hash"] == st["stage_hash"]), st["planned"],
                   ", ".join(f"{x.name} {x.elo:.0f}" for x in s.per_stage[st["stage_hash"]].ratings[:3])
                   if st["stage_hash"] in s.per_stage else "—"] for st in s.shown_stages]
    stages = Table(["Stage", "Role", "Board", "Weight", "Divergence", "Analysis s", "Games", "Planned",
                    "Best (per-stage Elo)"], stage_rows, "text-last", words=(0, 2, 8))
    measured = any(c["points"] for c in s.metrics["A"].values())
    return Metrics(table, plots.adaptation_plot(s) if measured else None, plots.stage_plot(s) if s.scores else None, stages,
                   None if s.draw is None else revealed(s.draw), unseen_stages(s), len(s.stages) - len(s.shown_stages))


def anytime(s: Summary) -> Anytime:
    """The anytime estimate so far; its explanation is the template's (templates/anytime.html.j2)."""
    if not s.anytime:
        return Anytime(None, [], None, None)
    last, ref = s.anytime[-1], s.anytime[-1].reference
    notes = [f"{last.skipped} stage(s) left out (an agent without a level there)"] if last.skipped else []
    if last.faint:
        notes.append(f"on {last.faint} stage(s) {ref} led random by less than {MIN_SPREAD:g}: they count, in "
                     "proportion to that lead")
    if last.unit < MIN_SPREAD:
        notes.append(f"a short scale: {ref} leads random by {last.unit:.2f} on average, so the scores are less "
                     "certain than they would be on a longer one")
    scaled = last.stages and last.unit > 0  # else there is no unit to draw the agents in yet
    return Anytime(last, notes, plots.anytime_plot(s) if scaled else None, _anytime_table(s, last) if scaled else None)


def _anytime_table(s: Summary, last: Point) -> Table:
    """The last estimate of every agent, best first: the numbers beside the plot, whole (the plot
    clips an interval that runs off it and marks the clipped end)."""
    def row(name: str):
        e = last.estimates[name]
        if name == last.reference:
            return [name, "1", "(the reference, by definition)"]
        if name == "random":
            return [name, "0", "(by definition)"]
        if math.isnan(e.mean):
            return [name, "—", "no level yet"]
        interval = "— (one stage: none yet)" if e.low is None or e.high is None else \
            f"{bound(e.low)} – {bound(e.high)}"
        return [name, f"{e.mean:.2f}", interval]

    names = sorted(last.estimates, key=lambda a: -last.estimates[a].mean if math.isfinite(last.estimates[a].mean)
                   else math.inf)
    return Table(["Agent", "Score", "95% interval"], [row(a) for a in names], "anytime", words=(0,))


def failures(s: Summary) -> Table:
    """Games lost other than by play, the agents most hit first."""
    rows = [[f.agent, f.games, *(f.lost.get(k, 0) for k in KINDS), f.illegal_moves,
             "; ".join(f"{kind} ×{k}: {why}" for kind, why, k in f.top_reasons()) or "—"]
            for f in sorted(s.failures.values(), key=lambda f: -f.share)]
    return Table(["Agent", "Games", *(f"Lost: {k}" for k in KINDS), "Illegal moves replaced", "Top reasons"], rows,
                 "text-last", words=(0, len(KINDS) + 3))


def language_models(s: Summary) -> Table | None:
    """What each language-model agent used (evaluation/usage.py); None in a run without one. Its
    clock is wall time: a remote model's CPU time cannot be measured."""
    found = s.models
    if not found:
        return None

    rows = [[m.agent, m.analyses,
             f"{m.analysis.get('tokens_in', 0):,} / {m.analysis.get('tokens_out', 0):,}", m.analysis.get("tool_calls", 0),
             m.games, m.moves, f"{m.game.get('tokens_in', 0):,} / {m.game.get('tokens_out', 0):,}",
             _per(m.game.get("tokens_in", 0) + m.game.get("tokens_out", 0), m.moves, ",.0f"),
             _per(m.game.get("attempts", 0), m.moves, ".2f"), _per(m.game.get("latency", 0.0), m.moves, ".2f"),
             m.requests, m.analysis.get("retries", 0) + m.game.get("retries", 0), *_costs(m)] for m in found]
    return Table(["Agent", "Analyses", "Analysis tokens in / out", "Tool calls", "Games", "Moves answered",
                  "Game tokens in / out", "Tokens per move", "Answers per move", "Seconds per move",
                  "Requests", "Transport retries", "Cost", "Cost per analysis / game / move"], rows, words=(0,))


def _per(total: float, n: int, form: str) -> str:
    return format(total / n, form) if n else "—"


def _costs(m: ModelUsage) -> list[str]:
    """A model's cost in all, and per analysis, per game and per answered move (failed moves' in
    their game's); dashes without prices."""
    if m.cost is None:
        return ["—", "—"]
    game = m.game.get("cost", 0.0)
    return [f"{m.cost:.4f}", f"{_per(m.analysis.get('cost', 0.0), m.analyses, '.4f')} / {_per(game, m.games, '.4f')} / "
                             f"{_per(game, m.moves, '.6f')}"]


def secondary_views(s: Summary) -> Table:
    """The agents as other arenas rank them (evaluation/views.py)."""
    views = s.views
    overall = {x["agent"]: x for x in views["lexicographic"]}
    ranked = any(x["ranks"] for x in overall.values())  # else no stage had every pair meet: no order to show
    rows = [[x.name, f"{views['unified'].get(x.name, 0):.1f}", overall[x.name]["place"] if ranked else "—",
             " ".join(str(k) for k in overall[x.name]["ranks"]) or "—"] for x in s.overall.ratings]
    return Table(["Agent", "Unified score (online Elo, K 32 from 1200)", "OpenSpiel competition: place",
                  "its instant-runoff ranks per stage, worst first"], rows, "text-last", words=(0, 3))


def unmet_note(s: Summary) -> str:
    """Why stages are left out of the competition's order ("" if none is): some pair never met there."""
    unmet = s.views.get("unmet", 0)
    if not unmet:
        return ""
    return (f"{unmet} stage{'s are' if unmet > 1 else ' is'} left out of the OpenSpiel competition's order: not every "
            "pair of agents met there, and its ballots need a round robin (an agent never met is on no ballot, so a "
            "baseline of a gauntlet could never win a place). A gauntlet's baselines meet in its reference games "
            "(--reference-games); a stage still being played fills in as it goes.")


def unfinished(s: Summary, running: bool = False) -> list[str]:
    """Said at the top when the run is not over: its figures are over the games played so far; and
    only of a run that has stopped (not `running`) that --resume goes on."""
    notes = []
    if s.stopped:
        notes.append(f"stopped early: {s.stopped}.")
    if running:
        notes.append(f"This run is still going: {s.played} of its {s.planned} planned games are played so far; "
                     "every figure is over those.")
    elif not s.finished:
        notes.append(f"This run is not finished: {s.played} of its {s.planned} planned games are played (run the "
                     "same command with --resume to go on); every figure is over the games played so far.")
    return notes


GAME_KINDS = ("main", "adaptation", "reference")  # the format's games, metric A's, the anytime score's references


def replays(s: Summary) -> list[dict]:
    """Every game with its boards, for the replay (static/replay.js, drawn by static/board.js): the
    format's games, then the adaptation games (name@f against the baselines) and the baselines'
    reference games, each marked with its `kind`. Per ply (0 = the start): the board, each player's
    pieces and the clock each has used; per move: the cells it captured (the opponent's pieces it
    flipped, converted or removed, as row-major indices); `ending`: how the game ended, its result
    said once (runtime/referee.headline: the rules' words, gdl/ending.py, else who stopped it and how).
    On a stage with hidden information the moves are tries and the boards the truth, with `views`
    (per player, its view at each ply) and `refused` (per try, whether the truth refused it)."""
    out = []
    budget = _budgets(s.settings)
    games_by_stage: dict[str, list[tuple[str, dict]]] = {}
    for kind, kept in zip(GAME_KINDS, (s.games, s.adaptation_games, s.reference_games)):
        for g in kept:
            games_by_stage.setdefault(g["stage_hash"], []).append((kind, g))
    for st in s.stages:
        games = games_by_stage.get(st["stage_hash"], [])
        if not games:
            continue
        game = playable(stored_stage(s, st["text"], _stage_row(st)))
        info, dark = game.info, game if isinstance(game, CompiledDarkGame) else None
        for kind, g in games:  # in GAME_KINDS' order, as gathered
            # (a random start, the dice: drawn again from the game's chance seed, from its seats' seeds)
            chance = chance_seed(_seats(g), int(g["seed"]))
            state = game.start(chance)
            boards, captured, taken = [board_cells(game.board(state))], [], []
            views = [[board_cells(dark.view_board(state, p))] for p in (0, 1)] if dark else []
            refused: list[bool] = []
            for ply, text in enumerate(json.loads(g["moves"])):
                other = "2" if game.to_move(state) == 0 else "1"
                try:
                    state, took = game.apply_counted(state, game.parse_move(text))
                    state = game.thrown(state, chance)  # the referee's dice, thrown again
                except (ValueError, LudicaError) as err:  # the referee stored legal moves alone
                    raise StoreError(f"{s.store_path}: table games, row {g['id']}, column moves: ply {ply + 1}, "
                                     f"{text[:20]!r}, is not a legal move of the game on {st['name'][:60]!r} "
                                     f"({str(err)[:120]}); {EDITED}") from None
                boards.append(board_cells(game.board(state)))
                if dark:
                    for p in (0, 1):
                        views[p].append(board_cells(dark.view_board(state, p)))
                    refused.append(dark.refused(state))
                captured.append(took)
                taken.append([i for i, (a, b) in enumerate(zip(boards[-2], boards[-1])) if a == other != b])
            seconds = json.loads(g.get("ply_seconds") or "[]")
            ending = _ending(game, state, g, s.store_path, st["name"]) if g["reason"] == "normal" else None
            ending = headline(game.stage.player_names, (g["black"], g["white"]), g["result"], g["reason"],
                              len(boards) - 1, ending)
            out.append({"stage": s.stage_name(st["stage_hash"]), "kind": kind, "black": g["black"], "white": g["white"],
                        "result": g["result"], "reason": g["reason"], "score": [g["black_score"], g["white_score"]],
                        "moves": json.loads(g["moves"]), "seconds": seconds, "clocks": _clocks(seconds),
                        "budget": [budget(g["black"]), budget(g["white"])],
                        "captured": captured, "taken": taken,
                        "counts": [[b.count("1"), b.count("2")] for b in boards],
                        "boards": boards, "rows": info.rows, "cols": info.cols,
                        "hex": info.board_kind == "hex", "log": g["log"], "ending": ending,
                        **({"views": views, "refused": refused} if dark else {})})
    return out


def _ending(game, state, g: dict, store_path: str, stage_name: str):
    """Why the rules ended a game the store says they ended, checked against its result. A game
    whose moves do not end it by the compiled rules (the referee's), or whose result is not theirs,
    was edited after the referee; one they end as stored but the reference interpreter cannot
    explain is the two engines' disagreement (a bug of ludica's, as the referee logged it), said so."""
    where = f"{store_path}: table games, row {g['id']}"
    if not game.is_terminal(state):
        raise StoreError(f"{where}: its moves do not end the game on {stage_name[:60]!r}, yet its reason is "
                         f"'normal' (the rules ended it); {EDITED}")
    winner = game.winner(state)
    if g["result"] != result_of(winner):
        raise StoreError(f"{where}, column result: {str(g['result'])[:20]!r}, but by the rules the result is "
                         f"{result_of(winner)!r}; {EDITED}")
    ending, wrong = explain_end(game, state, winner)
    if ending is None:
        said = headline(game.stage.player_names, (g["black"], g["white"]), g["result"], "normal", 0, None)
        return (f"{said}; why cannot be said: the compiled rules end the game here, but {wrong} "
                "(a bug in ludica, not an edit of the store: please report it)")
    return ending


def _budgets(settings: dict[str, str]):
    """A player's clock per game, by name: a person's (an entrant whose file is `human`) the
    run's human_time, a language model's (its fingerprint says `model:`) its model_time, any
    other's its game_time (None: the run does not say)."""
    options = json.loads(settings.get("options", "{}"))
    names, files = (json.loads(settings.get(k, "[]")) for k in ("agents", "agent files"))
    people = {n for n, f in zip(names, files) if f == HUMAN}
    models = {n for n, f in zip(names, files) if str(f).startswith(MODEL_PREFIX)}

    def budget(name: str):
        if name in people:
            return options.get("human_time", HUMAN_TIME)
        return options.get("model_time", MODEL_TIME) if name in models else options.get("game_time")

    return budget


def _seats(g: dict) -> tuple[int, int] | None:
    """The seeds a stored game's seats were told (None for a game stored before they had their own)."""
    black, white = g.get("black_seed"), g.get("white_seed")
    return None if black is None or white is None else (int(black), int(white))


def _clocks(seconds: list) -> list[list[float]]:
    """The time each player had used after each ply (0 = the start), from the games' per-ply
    [player, seconds] (a game stored before they were kept has none: only the start)."""
    used = [0.0, 0.0]
    clocks = [used[:]]
    for player, spent in seconds:
        used[player] += spent
        clocks.append([round(used[0], 4), round(used[1], 4)])
    return clocks


def board_cells(board) -> str:
    """A board row by row as one string in the replay's alphabet (CELL), as board.js reads it."""
    return "".join(CELL.get(int(v), "?") for v in board.reshape(-1))


def _board_cell(s: Summary, st: dict) -> str:
    """The stage's board as its compiled game declares it (what the Arena shows an agent too):
    `8x8 square, 4 blocked`."""
    info = playable(stored_stage(s, st["text"], _stage_row(st))).info
    blocked = info.cells - info.playable_cells
    return (f"{info.rows}x{info.cols} {info.board_kind}" + (" wrapped" if info.wrap else "")
            + (f", {blocked} blocked" if blocked else ""))


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


def _area_cell(curve: dict) -> str:
    """A's area with its 95% interval: `0.588 (0.50–0.68)`; — where not measured."""
    if curve.get("area") is None:
        return "—"
    low, high = curve["area_interval"]  # a curve with an area has games, so an interval
    return f"{curve['area']:.3f} ({low:.2f}–{high:.2f})"


def metric_cells(s: Summary, agent: str, worst_stage_named: bool = True) -> list[str]:
    """An agent's metrics as text: P, A (with its interval), G, R worst (with the stage's name), R
    spread (R over the unseen stages, the public ones' in brackets), E analysis share, seconds per
    game, milliseconds per move ("—" where not measured)."""
    m = s.metrics
    e, rob, g, curve = m["E"].get(agent, {}), m["R"].get(agent) or {}, m["G"].get(agent), m["A"].get(agent, {})
    unseen, public = rob.get("unseen"), rob.get("public")
    worst = "—" if not unseen else f"{unseen['worst']:.3f}" + (f" ({s.stage_name(unseen['worst_stage'])})"
                                                               if worst_stage_named else "")
    spread = "—" if not unseen else f"{unseen['spread']:.3f}"
    if public:  # the public stages' beside the unseen ones', in brackets
        worst += f" [{public['worst']:.3f}]"
        spread += f" [{public['spread']:.3f}]"
    played = agent in m["P"]  # else no game yet: nothing is measured
    return ["—" if not played else f"{m['P'][agent]['score']:.3f}", _area_cell(curve),
            "—" if g is None else f"{g:+.3f}", worst, spread,
            "—" if e.get("analysis_share") is None else f"{100 * e['analysis_share']:.0f}%",
            "—" if not played else f"{e.get('seconds_per_game', 0):.2f}",
            "—" if e.get("seconds_per_move") is None else f"{1000 * e['seconds_per_move']:.1f}"]
