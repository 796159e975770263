"""`ludica report DIR [--out OTHER]`: an evaluation's report (HTML, JSON, CSV) from its run folder,
read without changing its results; and what `ludica evaluate` and `ludica report` print of a
summary: the leaderboard with intervals and failures, the metrics, the anytime estimate."""
from __future__ import annotations

from pathlib import Path

from ludica import gdl
from ludica.arguments import resamples_count
from ludica.terminal import inert_rich, print_table

# the columns of the report's Language models table (evaluation/report.language_models) shown at the terminal
TERMINAL_MODEL_COLUMNS = ("Agent", "Analyses", "Games", "Requests", "Analysis tokens in / out", "Game tokens in / out",
                          "Cost")


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="write DIR/report.html (and JSON, CSV) from an evaluation's run folder")
    p.add_argument("folder", metavar="DIR")
    p.add_argument("--out", metavar="OTHER", default=None,
                   help="write the report into OTHER (a new or empty folder, or one with a report of ludica's) "
                        "instead of DIR: for a read-only DIR, or one whose run is still going")
    p.add_argument("--resamples", type=resamples_count, default=1000, metavar="N", help="bootstrap resamples (default 1000)")
    p.set_defaults(run=run)


def run(args) -> int:
    """The report of a run folder, read without writing a byte into its store, written into the
    folder under its lock (or into --out OTHER)."""
    from contextlib import nullcontext

    from rich.console import Console

    from ludica.evaluation import summarise
    from ludica.evaluation.report import check_report_folder, run_info, write_report
    from ludica.files import unwritable
    from ludica.runtime import Run
    from ludica.runtime.records import in_use, lock_folder

    folder = Path(args.folder)
    if not (folder / "results.sqlite").is_file():
        raise gdl.LudicaError(f"{folder} holds no results.sqlite: give the --out folder of `ludica evaluate`")
    target = folder if args.out is None or Path(args.out).resolve() == folder.resolve() else Path(args.out)
    if target != folder:
        check_report_folder(target)
    elif unwritable(folder):
        raise gdl.LudicaError(f"{unwritable(folder)}: the report cannot be written into the run folder; give "
                              "--out OTHER to write it elsewhere (the run's results are only read, never changed)")
    # in the run folder, under its lock: a run writes the same files when it ends
    held = (lock_folder(folder, busy="it writes its report when it ends; for a report of the games so far, "
                                     "give --out OTHER") if target == folder else nullcontext())
    with held:
        running = target != folder and in_use(folder)  # a run still going: its report says so, not --resume
        with Run.read(folder) as run:  # a run may be writing: SQLite allows it
            if not run.store.holds_a_run():
                raise gdl.LudicaError(f"{folder / 'results.sqlite'} holds no run (no run was started in it): give "
                                      "the --out folder of a `ludica evaluate` run")
            # the run's own bootstrap seed, read back: the report's numbers are the run's
            summary = summarise(run.store, resamples=args.resamples, seed=run.options.seed)
        paths = write_report(summary, target, running)
    console = Console()
    for what, value in run_info(summary):  # the report page's header: when, how, seeds, version, machine
        console.print(f"[bold]{what}:[/] {inert_rich(value)}", highlight=False)
    show(summary, console, running)
    console.print(f"\nreport: {paths['html']} (and {paths['json'].name}, {paths['csv'].name})")
    return 0


def anytime_line(point) -> str:
    """The anytime estimate after a stage, with what 0 and 1 are and how long the scale is."""
    from ludica.evaluation.anytime import MIN_SPREAD

    if point.reference is None:
        return "anytime: no estimate: it needs random and one of mcts, positional, corners, greedy among the agents"
    if not point.stages:
        return f"anytime: no estimate yet ({point.skipped} unseen stage(s) left out: an agent without a level there)"
    if not point.unit > 0:
        return (f"anytime after {point.stages} unseen stage(s): no scale yet ({point.reference}, the reference, "
                f"leads random by {point.unit:.2f} on them)")
    notes = [f"effective {point.effective:.1f}", f"0 = random, 1 = {point.reference}"]
    if point.skipped:
        notes.append(f"{point.skipped} left out")
    if point.faint:
        notes.append(f"on {point.faint} {point.reference} led random by less than {MIN_SPREAD:g}")
    if point.unit < MIN_SPREAD:
        notes.append(f"short scale: {point.reference} leads random by {point.unit:.2f}")
    return (f"anytime after {point.stages} unseen stage(s) ({'; '.join(notes)}): " + inert_rich(point.ranked()))


def show(summary, console, running: bool = False) -> None:
    """The leaderboard with intervals and failures, warnings, metrics and the anytime estimate."""
    from ludica.evaluation import drawseed
    from ludica.evaluation.failures import KINDS
    from ludica.evaluation.report import NOT_RATED, language_models, metric_cells
    from ludica.runtime import leaderboard

    r = summary.overall
    standings = {x.name: (x.wins, x.losses, x.draws) for x in leaderboard.standings(summary.games)}
    rows = []
    for x in r.ratings:
        w, l, d = standings.get(x.name, (0, 0, 0))
        f = summary.failures.get(x.name)
        rated = ((f"{x.elo:.0f}", f"{x.low:.0f}–{x.high:.0f}", f"{x.rank_probabilities[0]:.2f}", f"{100 * x.score:.1f}%")
                 if x.games else ("—", NOT_RATED, "—", "—"))
        rows.append([str(x.rank) if x.games else "—", inert_rich(x.name), *rated, f"{w}-{l}-{d}",
                     "/".join(str(f.lost.get(k, 0)) if f else "0" for k in KINDS)])
    print_table(console, f"Leaderboard: {summary.stages_said()}, {len(summary.games)} games (Bradley–Terry, Elo scale, "
                f"{r.anchor} = 1000)", ["#", "Agent", "Elo", "95% CI", "P(1st)", "Score", "W-L-D", "t/c/i/n"], rows,
                keys=2)
    console.print(f"[dim]intervals: {r.method}; P(1st) from {r.resamples} bootstrap resamples within {r.strata}; "
                  f"overall ratings weigh stages equally; draws count half. Forfeits: "
                  f"t/c/i/n: games lost by time / crash / illegal moves / no strategy (analysis failed).[/]")
    for note in r.notes:
        console.print(f"[dim]{inert_rich(note)}[/]")
    for line in summary.warnings:
        console.print(f"[bold yellow]warning:[/] {inert_rich(line)}")
    print_table(console, inert_rich("Metrics: P score; A adaptation (area, its 95% interval); G public − unseen; "
                                    "R worst stage, best − worst, of the unseen stages [of the public ones]; "
                                    "E analysis budget used, game time"),
                ["Agent", "P", "A", "G", "R min", "R span", "E anal.", "s/game", "ms/move"],
                [[inert_rich(x.name), *metric_cells(summary, x.name, worst_stage_named=False)] for x in r.ratings])
    models = language_models(summary)
    if models is not None:  # the report's Language models table, its columns that fit a terminal
        shown = [models.header.index(c) for c in TERMINAL_MODEL_COLUMNS]
        print_table(console, "Language models (NAME@f: an adaptation copy, in a row of its own)",
                    [models.header[i] for i in shown], [[inert_rich(row[i]) for i in shown] for row in models.rows])
    if summary.anytime:
        console.print(anytime_line(summary.anytime[-1]))
        console.print("[dim]anytime: each agent's mean lead over random in points per game against the baselines, in "
                      "units of the reference baseline's lead (the baselines' levels from their games among "
                      "themselves); 95% intervals: the jackknife over stages, skewness-corrected, and Fieller's[/]")
    if summary.draw is not None:
        console.print(drawseed.revealed(summary.draw))
    if summary.played < summary.planned:  # `running`: a process still plays it (report --out OTHER of a live run)
        console.print(f"[yellow]this run is still going: {summary.played} of its {summary.planned} planned games are "
                      "played so far; every figure is over those[/]" if running else
                      f"[yellow]this run is not finished: {summary.played} of {summary.planned} planned games "
                      "played; every figure is over those (--resume goes on)[/]")
