"""`ludica evaluate`: an evaluation of agents on public and unseen stages, with a progress bar
(games done and left, time left, the current leader; plain lines when the output is not a
terminal), the anytime estimate after each unseen stage, and at the end the leaderboard with intervals and failures, the metrics, the anytime estimate and
the report's path (printed as `ludica report` prints it: ludica/commands/report.py)."""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

from ludica import gdl
from ludica.arguments import (
    agent_command_option, chosen_agents, episode_options, games_count, jobs_option, resamples_count, run_options, seconds,
    stage_count, stage_files, stage_path,
)
from ludica.commands.report import anytime_line, show
from ludica.invocation import record_invocation
from ludica.terminal import PlainProgress, inert_rich, progress_bar
from ludica.timeleft import Limits

DEFAULT_PUBLIC = ("standard-8x8", "small-board-6x6")
DEFAULT_BASE = "standard-8x8"
DEFAULT_UNSEEN = 4
REFERENCE_GAMES = 3  # evaluate.REFERENCE_GAMES, without importing the evaluation before it is needed


def add_parser(sub) -> None:
    p = sub.add_parser(
        "evaluate", help="agents on public and unseen stages: ratings with intervals, metrics, a report",
        description="Evaluate agents (the built-ins, plus any agent files or names given) on public stages and "
                    "a set of unseen stages drawn by the sampler; every game goes to DIR/results.sqlite as it "
                    "ends; the run ends with the leaderboard, the metrics, the anytime generalisation estimate "
                    "and DIR/report.html. With no arguments: the built-ins on "
                    f"{' and '.join(DEFAULT_PUBLIC)} and {DEFAULT_UNSEEN} unseen variants of {DEFAULT_BASE}.")
    p.add_argument("agents", nargs="*", metavar="AGENT", help="submitted agents: agent files or built-in names")
    p.add_argument("--no-builtins", action="store_true", help="do not add the built-in agents")
    p.add_argument("--stage", action="append", default=None, metavar="STAGE",
                   help=f"a public stage (repeat; a file, a folder or a bundled name; default {', '.join(DEFAULT_PUBLIC)})")
    unseen = p.add_mutually_exclusive_group()
    unseen.add_argument("--unseen", metavar="DIR", help="the unseen stages: the .gdl files of DIR (a `ludica sample` "
                                                        "folder gives its weights)")
    unseen.add_argument("--sample-base", metavar="STAGE", default=None,
                        help=f"draw the unseen stages as variants of STAGE (default {DEFAULT_BASE})")
    unseen.add_argument("--sample-fresh", action="store_true", help="draw fresh unseen stages from the whole language")
    unseen.add_argument("--no-unseen", action="store_true", help="public stages only")
    p.add_argument("--variants", type=stage_count, default=DEFAULT_UNSEEN, metavar="N",
                   help=f"how many unseen stages to draw (default {DEFAULT_UNSEEN})")
    p.add_argument("--draw-seed", type=int, default=None, metavar="S",
                   help="draw the unseen stages with this seed (default: a fresh secret one, kept in DIR and shown "
                        "once the run is finished: every planned game played); anyone who knows a seed can draw its "
                        "stages again. Game seeds come from --seed")
    p.add_argument("--family", default="arena", help="the kinds of change of drawn variants (arena, all, dark: variants that hide information; "
                        "default arena)")
    p.add_argument("--min-divergence", type=float, default=None, metavar="D",
                   help="draw only variants on which a policy tuned to the base loses at least D of its score "
                        "(docs/sampler.md)")
    p.add_argument("--games", type=games_count, default=1, metavar="N", help="games per seating and stage (default 1)")
    p.add_argument("--format", choices=("round-robin", "gauntlet"), default="round-robin",
                   help="gauntlet: only games with a submitted agent in them (and the baselines' reference games)")
    p.add_argument("--reference-games", type=games_count, default=REFERENCE_GAMES, metavar="N",
                   help="games per seating among the baselines on each unseen stage, in any format: the anytime "
                        f"score's reference points (default {REFERENCE_GAMES}; at least --games; kept out of the "
                        "ratings)")
    p.add_argument("--schedule", choices=("flat", "doubling"), default="flat",
                   help="doubling: unseen stages in rounds of 2^i, half with the analysis budget, a quarter with "
                        "twice it, ..., one with 2^i times it")
    p.add_argument("--max-stages", type=stage_count, default=None, metavar="N", help="stop after N unseen stages")
    p.add_argument("--max-time", type=seconds, default=None, metavar="S", help="start no stage after S seconds")
    p.add_argument("--until-separated", action="store_true",
                   help="stop once every pair of submitted agents is told apart at 95%% confidence by a sequential "
                        "sign test over the unseen stages, valid however often it is looked at (after at least 3)")
    p.add_argument("--separate", nargs=2, action="append", default=None, metavar=("A", "B"),
                   help="with --until-separated (implied): wait for A and B to be told apart instead (repeat for "
                        "more pairs; a baseline may be named)")
    p.add_argument("--adaptation", type=_fractions, default=(0.25, 0.5), metavar="F,F",
                   help="metric A: budget fractions at which agents that are not baselines play the baselines "
                        "again on unseen stages (default 0.25,0.5; none: not measured)")
    p.add_argument("--qualify", type=games_count, default=None, metavar="N",
                   help="before the evaluation, each submitted agent plays random N games in each seat on the first "
                        "public stage and enters only if it beats random in both")
    p.add_argument("--resamples", type=resamples_count, default=1000, metavar="N", help="bootstrap resamples (default 1000)")
    p.add_argument("--out", default="ludica-eval", metavar="DIR", help="the run folder (default ./ludica-eval)")
    p.add_argument("--resume", action="store_true", help="continue the run in DIR: play only what is missing")
    episode_options(p, "evaluate")
    jobs_option(p)
    agent_command_option(p)
    p.set_defaults(run=run)


def _fractions(text: str) -> tuple[float, ...]:
    """argparse type: budget fractions in (0, 1), comma-separated, or `none`."""
    if text.strip().lower() == "none":
        return ()
    try:
        values = tuple(sorted({float(x) for x in text.split(",")}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of fractions: {text!r} (e.g. 0.25,0.5, or none)") from None
    if not values or not all(0 < v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"fractions of the budget are between 0 and 1 (exclusive), not {text!r}")
    return values


def _qualified(agents, baselines, stages, out: Path, options, n: int, jobs: int, console):
    """The agents that may enter: the baselines, and the submitted agents that beat random (on the
    first of `stages`; no agent sees any of their files, nor the run folder)."""
    from ludica.evaluation import stageset
    from ludica.evaluation.qualify import qualify
    from ludica.runtime import entrants

    candidates = [a for a in agents if a.name not in baselines]
    if not candidates:
        return agents
    stage = stages[0].stage
    console.print(f"qualification: {n} game(s) in each seat against random on {inert_rich(stage.name)}, "
                  f"in {out / 'qualification'}")
    verdicts = qualify(candidates, entrants.resolve("random"), stage, out / "qualification", options, n, jobs,
                       secrets=stageset.secrets(out, stages))
    for v in verdicts:
        console.print(("  " if v.qualified else "  [yellow]") + inert_rich(v.line()) + ("" if v.qualified else "[/]"))
    out_now = {v.agent for v in verdicts if not v.qualified}
    return [a for a in agents if a.name not in out_now]


@dataclass(frozen=True)
class _ToDraw:
    """Unseen stages the sampler is to draw: variants of `base`, or fresh stages when it is None."""
    base: gdl.Stage | None


def _given_stages(args) -> tuple[list, _ToDraw | None]:
    """Every stage the arguments name, read before any work: the public stages (with the unseen
    ones of --unseen DIR), and what the sampler is to draw (None: nothing)."""
    from ludica.evaluation import stageset

    public = stageset.public(stage_files(args.stage or list(DEFAULT_PUBLIC)))
    if args.draw_seed is not None and (args.no_unseen or args.unseen):
        raise gdl.LudicaError("--draw-seed names the seed of unseen stages the sampler draws: it has no use with "
                              + ("--no-unseen" if args.no_unseen else "--unseen") + "; leave it out")
    if args.min_divergence is not None and (args.no_unseen or args.unseen or args.sample_fresh):
        raise gdl.LudicaError("--min-divergence filters the variants the sampler draws: it has no use with "
                              + ("--no-unseen" if args.no_unseen else "--unseen" if args.unseen else "--sample-fresh")
                              + "; leave it out")
    if args.no_unseen:
        return public, None
    if args.unseen:
        return public + stageset.from_folder(Path(args.unseen)), None
    return public, _ToDraw(None if args.sample_fresh else gdl.load(stage_path(args.sample_base or DEFAULT_BASE)))


def _drawn(args, out: Path, to_draw: _ToDraw, console):
    """The unseen stages drawn into the run folder `out` (or those it holds from the same draw),
    and the seed they were drawn with."""
    from ludica.evaluation import drawseed, stageset

    base = to_draw.base
    what = "fresh stages" if base is None else f"variants of {base.name} ({args.family} family)"
    held = (out / "unseen" / "manifest.json").is_file()
    draw = drawseed.choose(out, args.draw_seed)
    if not draw.secret:
        console.print(f"[bold yellow]warning:[/] {drawseed.public_warning(draw)}")
    console.print(f"unseen stages: {args.variants} {inert_rich(what)}, "
                  + ("from a secret seed (kept in the run folder, shown once the run is finished), " if draw.secret else
                     f"seed {draw.value}, ")
                  + (f"the set already drawn into {out / 'unseen'}" if held else f"drawn into {out / 'unseen'}"))
    with console.status("drawing unseen stages") as status:
        judged = [0]

        def progress(candidate, accepted: int) -> None:
            judged[0] += 1
            status.update(f"drawing unseen stages: {accepted} of {args.variants} accepted, {judged[0]} candidates "
                          "judged")

        unseen = stageset.sampled(out / "unseen", base=base, n=args.variants, seed=draw.value, family=args.family,
                                  jobs=args.jobs or 0, progress=progress, min_divergence=args.min_divergence)
    said = _public_share(out / "unseen" / "manifest.json")
    if said:
        console.print(said)
    return unseen, draw


def _public_share(manifest: Path) -> str:
    """What share of the draw's valid candidates were public stages (or the base), which are never
    unseen, as the manifest counts them ("" if it does not)."""
    draws = json.loads(manifest.read_text()).get("draws") if manifest.is_file() else None
    if not isinstance(draws, dict) or not isinstance(draws.get("valid"), int) or not draws["valid"]:
        return ""
    share = draws.get("public share")
    if not isinstance(share, (int, float)):
        return ""
    return (f"of the draw's {draws['valid']:,} valid candidates, {share:.0%} were public stages or the base, set "
            "aside (an unseen stage is new): a family that stays close to its base draws them often")


def run(args) -> int:
    from rich.console import Console

    from ludica.evaluation import evaluate
    from ludica.evaluation import stopping as separation
    from ludica.sampler.edits import HIDDEN_FAMILIES
    from ludica.evaluation.report import write_report
    from ludica.runtime import Run, RunMismatch, tournament
    from ludica.runtime.run import check_endpoints, cores

    console = Console()
    out = Path(args.out)
    stages, to_draw = _given_stages(args)
    hidden = any(entry.stage.hidden is not None for entry in stages) or (  # the field gains a baseline for it
        to_draw is not None and (to_draw.base is None  # fresh stages: the prior draws hidden ones too
                                 or args.family in HIDDEN_FAMILIES or to_draw.base.hidden is not None))
    agents = chosen_agents(args.agents, not args.no_builtins, args.agent_data, args.agent_cmd, hidden=hidden)
    tournament.check_entrants(agents)
    options = run_options(args)
    check_endpoints(agents, options.endpoints)  # before minutes of drawing stages
    config = evaluate.Config(options, format=args.format, schedule=args.schedule, adaptation=args.adaptation,
                             reference_games=args.reference_games)
    baselines = [n for n in evaluate.BASELINES if n in {a.name for a in agents}]  # named or not, a baseline
    if args.until_separated or args.separate:  # said before anything is drawn or played
        separation.tested_pairs([a.name for a in agents], set(baselines), args.separate or ())
    jobs = args.jobs or len(cores())
    started = time.monotonic()
    # the run's folder, checked before any work (drawing stages, compiling kernels) and held until
    # its report is written
    with Run.open(out, resume=args.resume) as run:
        # qualification first: it needs no unseen stage, so none is drawn before it and none exists
        # while qualifying games are played
        if args.qualify:
            try:
                agents = _qualified(agents, baselines, stages, out, options, args.qualify, jobs, console)
            except RunMismatch as err:
                console.print(f"[red]error:[/] qualification: {inert_rich(err)}")
                return 2
            except KeyboardInterrupt:
                console.print(f"[yellow]interrupted during qualification: its finished games are kept in "
                              f"{out / 'qualification'}; run the same command with --resume to go on[/]")
                return 130
        draw = None
        if to_draw is not None:
            try:
                unseen, draw = _drawn(args, out, to_draw, console)
            except KeyboardInterrupt:
                console.print("[yellow]interrupted while drawing the unseen stages: no game was played; run the same "
                              "command with --resume to draw the same set again (from the seed kept in "
                              f"{out}) and go on[/]")
                return 130
            stages = stages + unseen
        readable = evaluate.rules_in_memory(agents, options, stages)
        if readable:
            console.print(f"[bold yellow]warning:[/] {inert_rich(', '.join(readable))}: Python agents that play the "
                          "unseen stages with their rules in their own memory, where they can read a stage's exact "
                          "text; add --isolate-rules for agents you do not trust (the report says so too)")
        if args.until_separated or args.separate:
            unseen = sum(s.role == "unseen" for s in stages)
            pairs = separation.tested_pairs([a.name for a in agents], set(baselines), args.separate or ())
            never = separation.cannot_stop(len(pairs), min(unseen, args.max_stages or unseen), given=bool(args.unseen))
            if never:
                console.print(f"[bold yellow]warning:[/] {inert_rich(never)}")
        summary = _played(args, run, stages, agents, config, baselines, jobs, draw, console,
                          None if to_draw is None else to_draw.base)
        if summary is None:
            return 130
        # under the run's lock: a second run (--resume) must not write the same files at once; and
        # first: the report exists even if the screen output is cut
        paths = write_report(summary, out)
    show(summary, console)
    console.print(f"\nreport: {paths['html']} (and {paths['json'].name}, {paths['csv'].name}); results: "
                  f"{out / 'results.sqlite'}; took {time.monotonic() - started:.0f} s")
    if summary.standing:
        console.print(f"[yellow]--until-separated: not every pair told apart; {inert_rich(summary.standing)}[/]")
    if summary.stopped:
        console.print(f"stopped early ({summary.stopped}): --resume plays the rest")
    return 0


def _played(args, run, stages, agents, config, baselines, jobs: int, draw, console, base):
    """The evaluation played in the held run folder with a progress bar; its summary, or None if
    it was interrupted (Ctrl-C: said, every finished game kept). `base`: the stage the unseen
    variants were drawn from, if they were."""
    from rich.progress import ProgressColumn
    from rich.table import Column
    from rich.text import Text

    from ludica.evaluation import evaluate
    from ludica.evaluation.metrics import SCORE

    out = run.folder
    tally: dict[str, list[float]] = {a.name: [0.0, 0] for a in agents}
    public = sum(s.role == "public" for s in stages)
    console.print(f"{len(agents)} agents ({inert_rich(', '.join(a.name for a in agents))}) on {public} public and "
                  f"{len(stages) - public} unseen stages, {args.format}, {args.games} game(s) per seating; "
                  f"analysis {args.analysis_time:g} s, game {args.game_time:g} s; results in {out}")
    separating = args.until_separated or bool(args.separate)
    limits = Limits(args.max_time, separating)
    # where the output is not a terminal, no bar (its last frame would be left in the log) and no notice
    # of a wait (compiling): plain lines instead. The pace and the time left, bound by the stopping rules
    # (ludica/timeleft.py), are said in those lines, else read by the bar's column
    plain = None if console.is_terminal else PlainProgress(limits=limits)
    pace = plain or PlainProgress(say=lambda line: None, limits=limits)

    class TimeLeft(ProgressColumn):
        def render(self, task) -> Text:
            return Text(pace.left() or "")

    with progress_bar(console, TimeLeft(table_column=Column(no_wrap=True)), disable=not console.is_terminal) as progress:
        bar = {}

        def on_plan(left: int, total: int) -> None:
            # the run's settings are stored by now (Run.start): how it was started goes beside them
            record_invocation(run.store, base, args.argv)
            if args.resume:
                progress.console.print(f"resuming: {total - left} of the {total} games are in {out / 'results.sqlite'} "
                                       f"and are kept; {left} to play")
            bar["id"] = progress.add_task("games", total=total, completed=total - left)
            pace.plan(left, total)

        def on_game(g: dict) -> None:
            score = SCORE[g["result"]]
            for seat, name in enumerate((g["black"], g["white"])):
                if name in tally:  # not the adaptation games' NAME@f entrants
                    tally[name][0] += score[seat]
                    tally[name][1] += 1
            leader = max(tally, key=lambda a: (tally[a][0] / tally[a][1] if tally[a][1] else -1, a))
            rate = tally[leader][0] / max(tally[leader][1], 1)
            progress.update(bar["id"], advance=1, description=f"games (leader: {inert_rich(leader)}, "
                                                              f"{100 * rate:.0f}% of this session's games)")
            pace.game(g["title"])

        def on_wait(message: str) -> None:
            if plain is None:
                progress.console.print(f"[dim]{inert_rich(message)}[/]")

        def on_estimate(point) -> None:
            progress.console.print(anytime_line(point))

        def on_stop(why: str) -> None:
            progress.console.print(f"[yellow]stopping: {why}; the stages in hand finish[/]")

        def on_standing(said: str) -> None:
            progress.console.print(inert_rich(said))

        callbacks = evaluate.Callbacks(on_plan=on_plan, on_game=on_game, on_wait=on_wait, on_estimate=on_estimate,
                                       on_stop=on_stop, on_stage=pace.stage, on_standing=on_standing)
        stopping = evaluate.Stopping(args.max_stages, args.max_time, separating,
                                     pairs=tuple(tuple(p) for p in args.separate or ()))
        try:
            return evaluate.play(run, stages, agents, config, baselines=baselines, jobs=jobs, stopping=stopping,
                                 callbacks=callbacks, resamples=args.resamples, draw=draw)
        except KeyboardInterrupt:
            console.print(f"[yellow]interrupted: every finished game is in {out / 'results.sqlite'}; run the same "
                          "command with --resume to go on[/]")
            return None
