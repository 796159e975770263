"""`ludica demo [--out DIR]`: check every bundled stage, then a small tournament of the built-in
agents on bundled stages (results in ./ludica-demo)."""
from __future__ import annotations

from pathlib import Path

from ludica import stages as bundled
from ludica.arguments import budget_options, chosen_agents, stage_path
from ludica.commands import check, tournament

DEMO_STAGES = ("standard-8x8", "small-board-6x6", "tic-tac-toe")


def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="check every bundled stage, then a small tournament of the built-in agents")
    p.add_argument("--out", default="ludica-demo", metavar="DIR", help="where the results go (default ./ludica-demo)")
    p.add_argument("--stage", action="append", metavar="STAGE",
                   help=f"play on this stage (repeat the option; default {', '.join(DEMO_STAGES)})")
    budget_options(p, "demo")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(run=run)


def run(args) -> int:
    from ludica.runtime.plans import Options

    print("== ludica check (every bundled stage) ==")
    status = check.check(bundled.bundled())
    chosen = args.stage or list(DEMO_STAGES)
    print(f"\n== a tournament of the built-in agents on {', '.join(chosen)} ==")
    if status:
        return status
    out = Path(args.out)
    # one game per seating in the sandbox, with the episode options' defaults (2 GB per agent)
    options = Options(games=1, analysis_time=args.analysis_time, game_time=args.game_time, seed=args.seed,
                      limits={"memory_mb": 2048})
    entrants = chosen_agents([], True)
    paths = [stage_path(s) for s in chosen]
    return tournament.play(paths, entrants, out, options, resume=(out / "results.sqlite").is_file(), jobs=None,
                            argv=args.argv)
