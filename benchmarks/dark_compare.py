"""ludica's hidden-information kernels against OpenSpiel's own dark games, on this machine, in one run.

    pip install -e '.[bench]'                      # OpenSpiel (pyspiel) is an optional extra
    python benchmarks/dark_compare.py [--seconds S] [--games NAME...] [--json FILE]

For each of OpenSpiel's phantom_ttt and dark_hex (classical and abrupt; dark Hex 3x3, 5x5, 11x11):
OpenSpiel's own C++ random-game loop (`pyspiel.evaluate_bots` with two uniform random bots: a whole
game in C++ per call), ludica's random games of tries inside the kernel (compiler/dark.py, one
thread), and ludica's in-kernel random games of the same stage with the whole board in view (its
perfect-information base). Rates are games per second of thread CPU time, the best of several
round-robin repeats, so the ratios come from the same minutes of a noisy machine. Targets (issue
33): ludica's dark kernels >= 10x OpenSpiel's C++ loop, and >= 0.5x their own base per step (tries
per second against plies per second: a dark game has more tries than its base has plies).
Prints a clear message and exits 0 when pyspiel is not installed.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from time import thread_time

PHANTOM = ('game "Phantom tic-tac-toe"\nboard square 3\nplayers x o\nmove place empty\nend line 3: mover wins\n'
           'end board-full: draw\nhidden opponent-pieces\nrefused {refused}\n')
DARK_HEX = ('game "Dark Hex {size}x{size}"\nboard hex {size}\nplayers red blue\nmove place empty\n'
            'end connect top-bottom left-right: mover wins\nhidden opponent-pieces\nrefused {refused}\n')
# (a name, OpenSpiel's game, its parameters, ludica's stage text)
GAMES = [
    ("phantom_ttt", "phantom_ttt", {}, PHANTOM.format(refused="retry")),
    ("phantom_ttt abrupt", "phantom_ttt", {"gameversion": "abrupt"}, PHANTOM.format(refused="lose-turn")),
    ("dark_hex 3x3", "dark_hex", {"board_size": 3}, DARK_HEX.format(size=3, refused="retry")),
    ("dark_hex 3x3 adh", "dark_hex", {"board_size": 3, "gameversion": "adh"}, DARK_HEX.format(size=3, refused="lose-turn")),
    ("dark_hex 5x5", "dark_hex", {"board_size": 5}, DARK_HEX.format(size=5, refused="retry")),
    ("dark_hex 11x11", "dark_hex", {"board_size": 11}, DARK_HEX.format(size=11, refused="retry")),
]
TARGET_CPP, TARGET_BASE = 10.0, 0.5

sys.path.insert(0, str(Path(__file__).parent))  # bench.py and openspiel_compare.py, also when imported
from openspiel_compare import openspiel_cpp_games, openspiel_games  # noqa: E402 - after the path is set


def compare(name, spiel_name, params, text, seconds, pyspiel, bench) -> dict:
    from ludica import compiler, gdl

    stage = gdl.loads(text)
    dark, base = compiler.compile_dark(stage), compiler.compile(stage.without_information())
    os_game = pyspiel.load_game(spiel_name, params)
    rep, rng = seconds / bench.ROUNDS, random.Random(1)
    bots = [pyspiel.make_uniform_random_bot(player, 1 + player) for player in (0, 1)]
    steps = {"ludica-dark": [0, 0], "ludica-base": [0, 0]}  # (steps, games)
    seeds = iter(range(1, 1 << 30))

    def counted(key, playouts) -> int:
        steps[key][0] += int(playouts.lengths.sum())
        steps[key][1] += len(playouts.lengths)
        return len(playouts.lengths)

    dark.playouts(2, seed=0), base.playouts(2, seed=0)  # compiled before anything is timed
    n_cpp = bench.calibrate(lambda n: openspiel_cpp_games(pyspiel, os_game, bots, n, rng), rep)
    n_dark = bench.calibrate(lambda n: dark.playouts(n, seed=0), rep)
    n_base = bench.calibrate(lambda n: base.playouts(n, seed=0), rep)
    samples = bench.interleave({
        "openspiel-c++": lambda: openspiel_cpp_games(pyspiel, os_game, bots, n_cpp, rng),
        "ludica-dark": lambda: counted("ludica-dark", dark.playouts(n_dark, seed=next(seeds))),
        "ludica-base": lambda: counted("ludica-base", base.playouts(n_base, seed=next(seeds))),
    }, clock=thread_time)
    out: dict = {"name": name, "openspiel_game": spiel_name,
                 "openspiel_parameters": dict(os_game.get_parameters().items())}
    for key, s in samples.items():
        out[key] = {"games_per_s": bench.best_rate(s), "games_per_s_median": bench.median_rate(s)}
    for key, (done, games) in steps.items():
        out[key]["steps_per_game"] = done / games
        out[key]["steps_per_s"] = out[key]["games_per_s"] * done / games
    out["openspiel_tries_per_game"] = openspiel_games(os_game, 300, rng) / 300
    out["ratio_cpp"] = out["ludica-dark"]["games_per_s"] / out["openspiel-c++"]["games_per_s"]
    out["ratio_cpp_median"] = out["ludica-dark"]["games_per_s_median"] / out["openspiel-c++"]["games_per_s_median"]
    out["ratio_base_steps"] = out["ludica-dark"]["steps_per_s"] / out["ludica-base"]["steps_per_s"]
    out["ratio_base_games"] = out["ludica-dark"]["games_per_s"] / out["ludica-base"]["games_per_s"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measured series (default 2)")
    parser.add_argument("--games", nargs="*", metavar="NAME", help="names from the list below (default: all)")
    parser.add_argument("--json", metavar="FILE", help="write every figure to FILE")
    args = parser.parse_args(argv)
    try:
        import pyspiel
    except ImportError:
        print("dark_compare: skipped: pyspiel (OpenSpiel) is not installed; install it with: pip install -e '.[bench]'")
        return 0
    import bench  # bench.py beside this file

    unknown = set(args.games or ()) - {g[0] for g in GAMES}
    if unknown:
        parser.error(f"unknown game(s) {', '.join(sorted(unknown))}; known: {', '.join(g[0] for g in GAMES)}")
    results = []
    for name, spiel_name, params, text in [g for g in GAMES if not args.games or g[0] in args.games]:
        print(f"{name}: measuring…", file=sys.stderr)
        results.append(compare(name, spiel_name, params, text, args.seconds, pyspiel, bench))
    for r in results:
        d, b, c = r["ludica-dark"], r["ludica-base"], r["openspiel-c++"]
        print(f"{r['name']}: OpenSpiel C++ loop {c['games_per_s']:,.0f} games/s; ludica dark in-kernel "
              f"{d['games_per_s']:,.0f} games/s ({d['steps_per_s']:,.0f} tries/s, {d['steps_per_game']:.1f} tries a game; "
              f"OpenSpiel's games {r['openspiel_tries_per_game']:.1f}): {r['ratio_cpp']:.1f}x the C++ loop (medians "
              f"{r['ratio_cpp_median']:.1f}x); its perfect-information base {b['games_per_s']:,.0f} games/s "
              f"({b['steps_per_s']:,.0f} plies/s): dark/base {r['ratio_base_steps']:.2f}x per step, "
              f"{r['ratio_base_games']:.2f}x per game")
    print(f"\ntargets (dark in-kernel >= {TARGET_CPP:g}x OpenSpiel's C++ loop; >= {TARGET_BASE:g}x its base per step):")
    for r in results:
        for ok, what in ((r["ratio_cpp"] >= TARGET_CPP, f"{r['ratio_cpp']:.1f}x OpenSpiel's C++ loop"),
                         (r["ratio_base_steps"] >= TARGET_BASE, f"{r['ratio_base_steps']:.2f}x its base per step")):
            print(f"  [{'met' if ok else 'NOT met'}] {r['name']}: {what}")
    if args.json:
        Path(args.json).write_text(json.dumps({"seconds": args.seconds, "games": results}, indent=2) + "\n",
                                   encoding="utf-8")
        print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
