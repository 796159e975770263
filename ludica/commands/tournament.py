"""`ludica tournament STAGE... --agent AGENT... [--builtins] --out DIR [--resume]`: round robins of
sandboxed agents, with a progress bar per stage (plain lines when the output is not a terminal),
then the leaderboards and the agents' failures."""
from __future__ import annotations

from pathlib import Path

from ludica.arguments import (
    agent_command_option, chosen_agents, episode_options, games_count, jobs_option, run_options, stage_path,
)
from ludica.terminal import PlainProgress, inert_rich, progress_bar


def add_parser(sub) -> None:
    p = sub.add_parser("tournament", help="round robins of sandboxed agents on stages, results in --out")
    p.add_argument("stages", nargs="+", metavar="STAGE")
    p.add_argument("--agent", action="append", default=[], metavar="AGENT", help="an entrant (repeat the option)")
    p.add_argument("--builtins", action="store_true", help="add every built-in agent")
    p.add_argument("--games", type=games_count, default=1, help="games per seating: each ordered pair plays N (default 1)")
    p.add_argument("--out", required=True, metavar="DIR", help="results.sqlite, logs/, leaderboard.md")
    p.add_argument("--resume", action="store_true", help="continue the run in DIR: play only the missing games")
    episode_options(p, "tournament")
    jobs_option(p)
    agent_command_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ludica.gdl import load
    from ludica.runtime.run import check_endpoints

    paths = [stage_path(s) for s in args.stages]
    hidden = any(load(p).hidden is not None for p in paths)  # the field gains a baseline for it
    entrants = chosen_agents(args.agent, args.builtins, args.agent_data, args.agent_cmd, hidden=hidden)
    options = run_options(args)
    check_endpoints(entrants, options.endpoints)  # a .model file refused, or an endpoint down, before --out is made
    return play(paths, entrants, Path(args.out), options, resume=args.resume, jobs=args.jobs, argv=args.argv)


def play(paths: list[Path], entrants: list, out: Path, options, *, resume: bool, jobs: int | None,
         argv: list[str]) -> int:
    """Play the round robins of `entrants` on the stage files `paths` into the run folder `out`,
    then print the leaderboards; `jobs` stages side by side (None: every core); `argv`: the
    command line, kept in the store (ludica/invocation.py)."""
    from rich.console import Console
    from rich.progress import TaskID
    from rich.table import Table
    from ludica.gdl import load
    from ludica.runtime import leaderboard, tournament
    from ludica.runtime.plans import unique_stages
    from ludica.invocation import record_invocation
    from ludica.runtime.run import cores

    console = Console()
    # no bar is drawn where the output is not a terminal: a plain line per stage played instead
    # (every stage plays every ordered pair of entrants, `games` games each)
    per_stage = len(entrants) * (len(entrants) - 1) * options.games
    plain = None if console.is_terminal else PlainProgress(per_stage * len(unique_stages(load(p) for p in paths)))
    with progress_bar(console, transient=False, disable=plain is not None) as progress:
        task: dict[str, TaskID] = {}  # a stage's bar by its title; "last", "preparing"

        def on_stage(name: str, todo: int) -> None:
            if "preparing" in task:  # the run's own wait (compiling its kernels) is over
                progress.update(task.pop("preparing"), total=1, completed=1)
            task[name] = task["last"] = progress.add_task(f"{inert_rich(name)}: analysis, then games", total=todo)
            if plain is not None:
                plain.done += per_stage - todo  # a resumed run's games already played
                plain.stage(name, todo)

        def on_game(g: dict) -> None:  # stages are played side by side: each has its own bar
            note = "" if g["reason"] == "normal" else f" ({g['reason']})"
            said = f"{g['stage']}: {g['black']} vs {g['white']} → {g['result']}{note}"
            progress.update(task[g["title"]], advance=1, description=inert_rich(said))
            if plain is not None:
                plain.game(g["title"])

        def on_wait(message: str) -> None:
            if "last" in task:
                progress.update(task["last"], description=inert_rich(message))
            else:  # before the first stage: the run compiles its kinds of stage
                task["preparing"] = progress.add_task(inert_rich(message), total=None)

        try:
            boards = tournament.run(paths, entrants, out, options, resume=resume, on_game=on_game,
                                    on_stage=on_stage, on_wait=on_wait, jobs=jobs or len(cores()),
                                    on_start=lambda run: record_invocation(run.store, None, argv))
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
