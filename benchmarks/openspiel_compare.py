"""ludica against OpenSpiel on the games both have, on this machine, in one run.

    pip install -e '.[bench]'                      # OpenSpiel (pyspiel) is an optional extra
    python benchmarks/openspiel_compare.py [--seconds S] [--games NAME...] [--json FILE]

For each game: OpenSpiel's own C++ random-game loop (`pyspiel.evaluate_bots` with two
`make_uniform_random_bot`s: a whole game in C++ per call), OpenSpiel driven from Python
(`state.apply_action(random.choice(state.legal_actions()))` until the game is over), ludica's
compiled stage with random playouts inside the kernel (one thread), and ludica driven from Python
the same way, with Move objects (`legal_moves`, `random.choice`, `apply`) and with integer actions
as OpenSpiel's loop has (`legal_actions`, `random.choice`, `apply_action`). The series are run
round-robin, several short repeats each, timed by the CPU time of the thread (all of them run on
the calling thread: time spent waiting for a core of a shared machine is not counted), and the
best rate of each is kept: the ratios come from the same minutes of a noisy machine. The target
(issue 21) is ludica in-kernel ≥ 10× OpenSpiel's C++ loop. Prints a clear message and exits 0
when pyspiel is not installed.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from time import thread_time

# (OpenSpiel game, its parameters, ludica's bundled stage, what differs between the two)
GAMES = [
    ("othello", {}, "standard-8x8",
     "same rules; a player without a move passes in both (OpenSpiel's pass is an explicit action, "
     "ludica's forced pass is one ply too)"),
    ("tic_tac_toe", {}, "tic-tac-toe", "same rules"),
    ("connect_four", {}, "connect-four", "same rules: 6 rows x 7 columns, 4 in a row, draw when full"),
    ("hex", {"board_size": 11}, "hex-11",
     "same rules on 11x11 (OpenSpiel's parameter board_size); no swap rule in either"),
    ("breakthrough", {}, "breakthrough",
     "same rules: 8x8 (OpenSpiel's rows/columns parameters), two rows each, reach the far row or "
     "take every piece"),
]
TARGET = 10.0  # ludica in-kernel at least 10x OpenSpiel's own C++ random-game loop


def openspiel_cpp_games(pyspiel, game, bots, n: int, rng: random.Random) -> int:
    """n random games, each played whole in C++ by pyspiel.evaluate_bots (uniform random bots, which
    keep their generators from game to game); returns n (the loop reports no plies)."""
    for _ in range(n):
        pyspiel.evaluate_bots(game.new_initial_state(), bots, rng.randrange(1 << 31))
    return n


def openspiel_games(game, n: int, rng: random.Random) -> int:
    """n random games through pyspiel; returns the plies played."""
    plies = 0
    for _ in range(n):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
    return plies


def compare(spiel_name, params, stage_name, seconds, pyspiel, bench) -> dict:
    from ludica import compiler, gdl, stages

    os_game = pyspiel.load_game(spiel_name, params)
    lu_game = bench.first_use(compiler.compile(gdl.load(stages.path(stage_name))))
    rep = seconds / bench.ROUNDS
    rng = random.Random(1)
    plies = {"openspiel": [0, 0], "ludica-kernel": [0, 0], "ludica-python": [0, 0], "ludica-actions": [0, 0]}
    bots = [pyspiel.make_uniform_random_bot(player, 1 + player) for player in (0, 1)]

    def counted(name, n, played):
        plies[name][0] += played
        plies[name][1] += n
        return n

    n_cpp = bench.calibrate(lambda n: openspiel_cpp_games(pyspiel, os_game, bots, n, rng), rep)
    n_os = bench.calibrate(lambda n: openspiel_games(os_game, n, rng), rep)
    n_py = bench.calibrate(lambda n: bench.python_games(lu_game, n, rng), rep)
    n_act = bench.calibrate(lambda n: bench.python_games(lu_game, n, rng, actions=True), rep)
    n_k = bench.calibrate(lambda n: lu_game.playouts(n, seed=0), rep)
    seeds = iter(range(1, 1 << 30))
    samples = bench.interleave({
        "openspiel-c++": lambda: openspiel_cpp_games(pyspiel, os_game, bots, n_cpp, rng),
        "openspiel": lambda: counted("openspiel", n_os, openspiel_games(os_game, n_os, rng)),
        "ludica-kernel": lambda: counted("ludica-kernel", n_k,
                                         int(lu_game.playouts(n_k, seed=next(seeds)).lengths.sum())),
        "ludica-python": lambda: counted("ludica-python", n_py, bench.python_games(lu_game, n_py, rng)),
        "ludica-actions": lambda: counted("ludica-actions", n_act,
                                          bench.python_games(lu_game, n_act, rng, actions=True)),
    }, clock=thread_time)
    out = {"openspiel_game": spiel_name, "openspiel_parameters": dict(os_game.get_parameters().items()),
           "stage": stage_name}
    for name, s in samples.items():
        out[name] = {"games_per_s": bench.best_rate(s), "games_per_s_median": bench.median_rate(s)}
        if name in plies:
            out[name]["plies_per_game"] = plies[name][0] / plies[name][1]
    out["ratio_kernel_cpp"] = out["ludica-kernel"]["games_per_s"] / out["openspiel-c++"]["games_per_s"]
    out["ratio_kernel_cpp_median"] = (out["ludica-kernel"]["games_per_s_median"]
                                      / out["openspiel-c++"]["games_per_s_median"])
    base = out["openspiel"]["games_per_s"]
    out["ratio_kernel"] = out["ludica-kernel"]["games_per_s"] / base
    out["ratio_python"] = out["ludica-python"]["games_per_s"] / base
    out["ratio_actions"] = out["ludica-actions"]["games_per_s"] / base
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measured series (default 2)")
    parser.add_argument("--games", nargs="*", metavar="NAME", help="OpenSpiel game names (default: all five)")
    parser.add_argument("--json", metavar="FILE", help="write every figure to FILE")
    args = parser.parse_args(argv)

    try:
        import pyspiel
    except ImportError:
        print("openspiel_compare: skipped: pyspiel (OpenSpiel) is not installed; "
              "install it with: pip install -e '.[bench]'")
        return 0
    from rich.console import Console
    from rich.table import Table

    import bench  # bench.py beside this file (a script's folder is first on sys.path)

    chosen = [g for g in GAMES if not args.games or g[0] in args.games]
    unknown = set(args.games or ()) - {g[0] for g in GAMES}
    if unknown:
        parser.error(f"unknown game(s) {', '.join(sorted(unknown))}; known: {', '.join(g[0] for g in GAMES)}")
    results = []
    for spiel_name, params, stage_name, note in chosen:
        print(f"{spiel_name}: measuring…", file=sys.stderr)
        res = compare(spiel_name, params, stage_name, args.seconds, pyspiel, bench)
        res["rule_note"] = note
        results.append(res)

    table = Table(title="ludica vs OpenSpiel, random games/s (best of several repeats, one core)")
    for col in ("OpenSpiel game", "ludica stage", "openspiel-c++", "OpenSpiel (Python loop)", "ludica in-kernel",
                "ludica (Python, Moves)", "ludica (Python, actions)", "in-kernel / C++", "in-kernel / Python loop",
                "Python ratio Moves", "Python ratio actions", "plies/game OS | ludica"):
        table.add_column(col, justify="left" if "game" in col or "stage" in col else "right")
    for r in results:
        table.add_row(r["openspiel_game"], r["stage"], f"{r['openspiel-c++']['games_per_s']:,.0f}",
                      f"{r['openspiel']['games_per_s']:,.0f}",
                      f"{r['ludica-kernel']['games_per_s']:,.0f}", f"{r['ludica-python']['games_per_s']:,.0f}",
                      f"{r['ludica-actions']['games_per_s']:,.0f}", f"{r['ratio_kernel_cpp']:.1f}×",
                      f"{r['ratio_kernel']:.1f}×",
                      f"{r['ratio_python']:.2f}×", f"{r['ratio_actions']:.2f}×",
                      f"{r['openspiel']['plies_per_game']:.1f} | {r['ludica-kernel']['plies_per_game']:.1f}")
    Console(width=None if sys.stdout.isatty() else 160, highlight=False).print(table)

    for r in results:
        print(f"{r['openspiel_game']} vs {r['stage']}: OpenSpiel {r['openspiel-c++']['games_per_s']:,.0f} games/s "
              f"(its C++ loop, evaluate_bots), {r['openspiel']['games_per_s']:,.0f} games/s (Python loop); ludica {r['ludica-kernel']['games_per_s']:,.0f} games/s in-kernel "
              f"(ratio {r['ratio_kernel_cpp']:.1f}× the C++ loop, medians {r['ratio_kernel_cpp_median']:.1f}×; "
              f"{r['ratio_kernel']:.1f}× the Python loop), from Python {r['ludica-python']['games_per_s']:,.0f} games/s "
              f"with Moves (ratio {r['ratio_python']:.2f}×), {r['ludica-actions']['games_per_s']:,.0f} with actions "
              f"(ratio {r['ratio_actions']:.2f}×); {r['rule_note']}")
    print(f"\ntargets (ludica in-kernel ≥ {TARGET:g}× OpenSpiel's own C++ random-game loop):")
    for r in results:
        mark = "met" if r["ratio_kernel_cpp"] >= TARGET else "NOT met"
        print(f"  [{mark}] {r['stage']}: {r['ratio_kernel_cpp']:.1f}×")
    print("  (the Python-loop ratio compares the two engines driven the same way: it is bound by the "
          "cost of each call from Python, not by the kernels)")

    if args.json:
        doc = {"seconds": args.seconds, "open_spiel_version": _version(), "games": results}
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        print(f"figures written to {args.json}")
    return 0


def _version() -> str | None:
    from importlib import metadata
    try:
        return metadata.version("open_spiel")
    except metadata.PackageNotFoundError:
        return None


if __name__ == "__main__":
    sys.exit(main())
