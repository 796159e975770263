"""The `ludica` command line.

    ludica check [FILE...]            check stage files (all bundled stages if none are given)
    ludica show STAGE                 the initial board and the legal first moves
    ludica import-arena CONFIG... --out DIR
                                      Othello AI Arena stage configs (JSON) → canonical .gdl files
    ludica play STAGE --black AGENT --white AGENT [--quiet]
                                      one game between two agents, printed as boards
    ludica tournament STAGE... --agent AGENT... [--builtins] --out DIR [--resume]
                                      round robins of sandboxed agents, results in DIR
    ludica sample (--base STAGE | --fresh) -n N --seed S --out DIR [--family arena] [--exclude DIR]
                                      unseen stages drawn ∝ 2^-K, screened, with manifest.json
    ludica demo [--out DIR]           check every bundled stage, then a small tournament of the
                                      built-in agents on bundled stages (results in ./ludica-demo)
    ludica bench [STAGE...]           speed of the compiled engine: runs benchmarks/bench.py of the
                                      source checkout ludica is installed from (pip install -e .)

A STAGE is a path to a .gdl file or the name of a bundled stage (`ludica check` lists them).
An AGENT is the name of a built-in (random, greedy, corners, positional, mcts, adaptive) or a path
to an agent file (README: "Writing an agent").
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from ludica import gdl
from ludica import arena_command, evaluate_command, sample_command
from ludica import stages as bundled
from ludica.arguments import chosen_agents, count, display, run_options, seconds, stage_files, stage_path
from ludica.terminal import inert, inert_rich


def cmd_check(args) -> int:
    paths = stage_files(args.files) if args.files else bundled.bundled()
    failed = 0
    for path in paths:
        shown = display(path)
        try:
            text = gdl.read_stage(path)
        except gdl.StageFileError as err:
            print(err)  # it names the file, the line and the column
            failed += 1
            continue
        stage, problems = gdl.analyse(text, path)
        for d in problems:
            print(d.render(text, shown))
        if stage is None or any(d.is_error for d in problems):
            failed += 1
            errors = sum(d.is_error for d in problems)
            print(f"{shown}: {errors} error{'s' * (errors != 1)}")
            continue
        print(f"{shown}: OK  {gdl.description_length(stage):.1f} bits  {stage.name!r}")
        if args.bits:
            for what, bits in gdl.bits_breakdown(stage):
                print(f"    {bits:7.2f}  {what}")
    if len(paths) > 1:
        print(f"{len(paths) - failed} of {len(paths)} stages OK")
    return 1 if failed else 0


def _describe(stage: gdl.Stage) -> str:
    b = stage.board
    shape = f"{b.rows}x{b.cols} {b.keyword}" + (" (wrapped)" if b.wrap else "")
    return f"{stage.name!r}: {shape} board, players {' and '.join(stage.player_names)}"


def cmd_show(args) -> int:
    stage = gdl.load(stage_path(args.stage))
    game = gdl.reference(stage)
    state = game.initial_state()
    print(_describe(stage))
    print(f"description length: {gdl.description_length(stage):.1f} bits")
    print(gdl.render(game, state))
    mover = stage.player_names[game.to_move(state)]
    moves = game.legal_moves(state)
    print(f"{mover} to move; {len(moves)} legal move{'s' * (len(moves) != 1)}: " + " ".join(map(str, moves)))
    return 0


DEMO_STAGES = ("standard-8x8", "small-board-6x6", "tic-tac-toe")


def cmd_demo(args) -> int:
    print("== ludica check (every bundled stage) ==")
    status = cmd_check(argparse.Namespace(files=[], bits=False))
    chosen = args.stage or list(DEMO_STAGES)
    print(f"\n== a tournament of the built-in agents on {', '.join(chosen)} ==")
    targs = argparse.Namespace(stages=chosen, agent=[], builtins=True, games=1, jobs=None,
                               analysis_time=args.analysis_time, game_time=args.game_time, out=args.out,
                               resume=(Path(args.out) / "results.sqlite").is_file(), seed=args.seed, reveal=False, memory_mb=2048, in_process=False,
                               isolate_rules=False, agent_data=[])
    return status or cmd_tournament(targs)


def cmd_tournament(args) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table
    from ludica.runtime import leaderboard, tournament
    from ludica.runtime.run import cores

    console = Console()
    entrants = chosen_agents(args.agent, args.builtins, args.agent_data)
    paths = [stage_path(s) for s in args.stages]
    out = Path(args.out)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False) as progress:
        task = {}

        def on_stage(name: str, todo: int) -> None:
            if "preparing" in task:  # the run's own wait (compiling its kernels) is over
                progress.update(task.pop("preparing"), total=1, completed=1)
            task[name] = task["last"] = progress.add_task(f"{inert_rich(name)}: analysis, then games", total=todo)

        def on_game(g: dict) -> None:  # stages are played side by side: each has its own bar
            note = "" if g["reason"] == "normal" else f" ({g['reason']})"
            said = f"{g['stage']}: {g['black']} vs {g['white']} → {g['result']}{note}"
            progress.update(task[g["title"]], advance=1, description=inert_rich(said))

        def on_wait(message: str) -> None:
            if "last" in task:
                progress.update(task["last"], description=inert_rich(message))
            else:  # before the first stage: the run compiles its kinds of stage
                task["preparing"] = progress.add_task(inert_rich(message), total=None)

        try:
            boards = tournament.run(paths, entrants, out, run_options(args), resume=args.resume, on_game=on_game,
                                    on_stage=on_stage, on_wait=on_wait,
                                    jobs=args.jobs or len(cores()))
        except KeyboardInterrupt:
            console.print(f"[yellow]interrupted: every finished game is in {out / 'results.sqlite'}; "
                          f"run the same command with --resume to go on[/]")
            return 130
        except (tournament.RunMismatch, ValueError) as err:
            console.print(f"[red]error:[/] {inert_rich(err)}")
            return 2
    for title, board in boards.items():
        table = Table(title=f"Leaderboard: {inert_rich(title)}")
        for column in leaderboard.HEADER:
            table.add_column(column, justify="left" if column == "Strategy" else "right")
        for row in leaderboard.rows(board):
            table.add_row(*map(inert_rich, row))
        console.print(table)
    for line in _failure_warnings(out, [a.name for a in entrants]):
        console.print(f"[bold yellow]warning:[/] {inert_rich(line)}")
    console.print(f"results: {out / 'results.sqlite'}, logs: {out / 'logs'}, leaderboards: {out / 'leaderboard.md'}")
    return 0


def _failure_warnings(out: Path, names: list[str]) -> list[str]:
    """Agents that lost more than a tenth of their games other than by play, with their reasons."""
    from ludica.evaluation import failures
    from ludica.runtime import Run

    with Run.read(out) as run:
        return failures.warnings(failures.tally(run.store.games(), run.store.analyses(), names))


def cmd_play(args) -> int:
    """One game: a run of one stage, one pairing and one game, in a folder of its own that goes
    when the game is shown."""
    import tempfile

    from ludica.compiler import compile as compile_stage
    from ludica.runtime import Hooks, Run, StagePlan

    options = run_options(args)  # refused options before anything is compiled
    stage = gdl.load(stage_path(args.stage))
    black, white = chosen_agents([args.black, args.white], False, args.agent_data)
    if black.name == white.name:  # an agent against itself: tell the two seats apart
        black, white = (type(black)(f"{black.name}-1", black.path), type(white)(f"{white.name}-2", white.path))
    plan = StagePlan(stage, ((black.name, white.name),), 1, stage.name, options.analysis_time)
    ended: list[dict] = []
    say = (lambda message: print(message, file=sys.stderr, flush=True))
    with tempfile.TemporaryDirectory() as tmp, Run.open(Path(tmp) / "run") as run:
        run.start([stage], [black, white], options)
        run.play([plan], [black, white], hooks=Hooks(on_game=ended.append, on_wait=say))
    record, analyses = ended[0]["record"], ended[0]["analyses"]
    game = compile_stage(stage)
    printed = [(name, "analysis", analyses[seat].get("output", ""), analyses[seat].get("outputBytes", 0))
               for seat, name in (("black", black.name), ("white", white.name))]
    printed += [(record.players[o["seat"]], "game", o["text"], o["bytes"]) for o in record.output]
    if args.quiet:
        print(inert(record.log[-1]) + f" ({record.scores[0]}-{record.scores[1]}, {len(record.plies)} plies"
              + ("" if record.reason == "normal" else f", {record.reason}") + ")")
        return 0
    _show_output(printed)
    state = game.initial_state()
    print(inert(record.log[0]))
    print(gdl.render(game, state))
    for ply in record.plies:
        state = game.apply(state, game.parse_move(ply.move))
        who = record.players[ply.player]
        took = f", taking {ply.captured}" if ply.captured else ""
        note = f"  [{ply.note}]" if ply.note else ""
        print(inert(f"\n{who} plays {ply.move}{took} ({ply.seconds:.2f} s){note}"))
        print(gdl.render(game, state))
    for line in record.log:
        if line.startswith(("Game over", "Black", "White", "Tie", "Both", "Game stopped")) or "forfeit" in line:
            print(inert(line))  # a forfeit's line holds the agent's exception text
    return 0


def _show_output(printed: list[tuple[str, str, str, int]]) -> None:
    """What the sandboxed agents printed (in their analysis, then in the game), each line after the
    agent's name, escape sequences shown, not obeyed; what was cut off beyond the kept part is counted."""
    for name, when, text, total in printed:
        if not total:
            continue
        name = inert(name)
        print(f"-- {name} printed during its {when}:")
        for line in text.splitlines():
            print(f"{name}| {inert(line)}")
        kept = len(text.encode())
        if total > kept:
            print(f"{name}| ... {total - kept:,} more bytes not kept ({total:,} in all)")


# The bench is a development tool kept out of the installed package, in the repository's
# benchmarks/. An editable install runs this package from its checkout, whose root is the parent
# of the `ludica` folder; an installation without a checkout has no bench to run.
_CHECKOUT = Path(__file__).resolve().parent.parent


def cmd_bench(args) -> int:
    script = _CHECKOUT / "benchmarks" / "bench.py"
    if not (script.is_file() and (_CHECKOUT / "pyproject.toml").is_file()):
        print("error: the benchmarks live in ludica's source repository (benchmarks/bench.py), and this "
              "installation was not made from a checkout of it. In a checkout, run: python benchmarks/bench.py "
              "[STAGE...] (or, after pip install -e . there, ludica bench [STAGE...])", file=sys.stderr)
        return 2
    spec = importlib.util.spec_from_file_location("bench", script)
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # numba's cache finds a cached kernel's module by its name
    spec.loader.exec_module(bench)  # imports numba: only for this command
    return bench.main(args.bench_args, prog="ludica bench")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("ludica")
    except PackageNotFoundError:
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ludica", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"ludica {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("check", help="check stage files (every bundled stage if none are given)")
    p.add_argument("files", nargs="*", metavar="FILE")
    p.add_argument("--bits", action="store_true", help="explain the description length, statement by statement")
    p.set_defaults(run=cmd_check)

    p = sub.add_parser("show", help="print a stage's initial board and legal first moves")
    p.add_argument("stage", metavar="STAGE")
    p.set_defaults(run=cmd_show)

    arena_command.add_parser(sub)

    def episode_options(p, analysis: float, game: float) -> None:
        p.add_argument("--analysis-time", type=seconds, default=analysis, metavar="S",
                       help=f"analysis budget per agent and stage, CPU seconds (default {analysis:g})")
        p.add_argument("--game-time", type=seconds, default=game, metavar="S",
                       help=f"cumulative move time per game, CPU seconds (default {game:g})")
        p.add_argument("--seed", type=int, default=0, help="the run's seed (game seeds derive from it)")
        p.add_argument("--reveal", action="store_true", help="GGP mode: hand agents the stage's .gdl text")
        p.add_argument("--memory-mb", type=count, default=2048, help="address-space limit per agent (default 2048)")
        p.add_argument("--in-process", action="store_true",
                       help="run trusted agents inside this process, without the sandbox (faster; for tests)")
        p.add_argument("--isolate-rules", action="store_true",
                       help="for untrusted agents on unseen stages: each agent's rules in a process of their own "
                            "that it can ask but not read (each API call a round trip: ~20x slower per call)")
        p.add_argument("--agent-data", action="append", default=[], metavar="AGENT=DIR",
                       help="a folder AGENT may read (read-only, at /agent/data in its sandbox; AGENT: its file, "
                            "built-in name or NAME; repeat for more agents); agents see no other file of yours")

    def jobs_option(p) -> None:
        p.add_argument("--jobs", type=count, default=None, metavar="N",
                       help="stages played side by side (default: every core this process may use; clocks are CPU "
                            "time and waiting for a CPU is never charged, so budgets depend neither on it nor on "
                            "the machine's load)")

    p = sub.add_parser("play", help="one game between two agents, printed as boards")
    p.add_argument("stage", metavar="STAGE")
    p.add_argument("--black", required=True, metavar="AGENT")
    p.add_argument("--white", required=True, metavar="AGENT")
    p.add_argument("--quiet", action="store_true", help="print only the result line")
    episode_options(p, 10.0, 10.0)
    p.set_defaults(run=cmd_play, games=1)

    p = sub.add_parser("tournament", help="round robins of sandboxed agents on stages, results in --out")
    p.add_argument("stages", nargs="+", metavar="STAGE")
    p.add_argument("--agent", action="append", default=[], metavar="AGENT", help="an entrant (repeat the option)")
    p.add_argument("--builtins", action="store_true", help="add every built-in agent")
    p.add_argument("--games", type=count, default=1, help="games per seating: each ordered pair plays N (default 1)")
    p.add_argument("--out", required=True, metavar="DIR", help="results.sqlite, logs/, leaderboard.md")
    p.add_argument("--resume", action="store_true", help="continue the run in DIR: play only the missing games")
    episode_options(p, 60.0, 10.0)
    jobs_option(p)
    p.set_defaults(run=cmd_tournament)

    sample_command.add_parser(sub, count)
    evaluate_command.add_parsers(sub, count, seconds, episode_options, jobs_option)

    p = sub.add_parser("demo", help="check every bundled stage, then a small tournament of the built-in agents")
    p.add_argument("--out", default="ludica-demo", metavar="DIR", help="where the results go (default ./ludica-demo)")
    p.add_argument("--stage", action="append", metavar="STAGE",
                   help=f"play on this stage (repeat the option; default {', '.join(DEMO_STAGES)})")
    p.add_argument("--analysis-time", type=seconds, default=2.0, metavar="S")
    p.add_argument("--game-time", type=seconds, default=2.0, metavar="S")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(run=cmd_demo)

    # Every argument after `bench`, --help included, is handed to benchmarks/bench.py unparsed.
    p = sub.add_parser("bench", add_help=False, help="compile times, playouts/s, threads, Python-call cost "
                       "(benchmarks/bench.py of the source checkout; `ludica bench --help`)")
    p.set_defaults(run=cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if args.command == "bench":  # its arguments are the bench script's to parse
        args.bench_args = rest
    elif rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        return args.run(args)
    except gdl.StageError as err:
        print(err, file=sys.stderr)
        return 1
    except gdl.StageFileError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except gdl.LudicaError as err:  # an agent argument, ...: what is wrong, no traceback
        print(f"error: {inert(err)}", file=sys.stderr)  # it may name an agent
        return 2
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `ludica demo | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
