"""Does τ, the counted cost of a stage (sampler/cost.py), track the time its games take?

For every bundled stage: τ (64 seeded random games), and the measured time of random games on the
same machine in the same run, both through the generic kernels that count τ (compiler/matches.py)
and through the stage's fastest kernels (its family's playouts where it has one). Prints both, the
time per unit of τ, and Spearman's rank correlation between τ and each time.

    python benchmarks/tau_vs_time.py [--games N]
"""
from __future__ import annotations

import argparse
import time

from ludica import compiler, gdl, stages
from ludica.sampler import cost


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):  # equal values share their mean rank
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(x: list[float], y: list[float]) -> float:
    rx, ry = _ranks(x), _ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den


def _best_of(fn, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="random games timed per stage (default 200)")
    args = parser.parse_args(argv)
    rows = []
    for path in stages.bundled():
        game = compiler.compile(gdl.load(path))
        game.games(2, 0)
        game.playouts(2, 0)  # compiled and warm before timing
        tau = cost.tau(game.games(cost.TAU_GAMES, cost.TAU_SEED, max_plies=10_000).costs.tolist())
        generic = _best_of(lambda game=game: game.games(args.games, 1, max_plies=10_000)) / args.games
        fastest = _best_of(lambda game=game: game.playouts(args.games, 1, max_plies=10_000)) / args.games
        rows.append((path.stem, tau, generic, fastest))
        print(f"{path.stem:32s} tau {tau:10.1f}   generic {generic * 1e6:9.1f} µs/game ({generic / tau * 1e9:6.1f} ns per unit)"
              f"   fastest {fastest * 1e6:9.1f} µs/game", flush=True)
    taus = [r[1] for r in rows]
    print(f"Spearman rank correlation of tau with time: generic kernels {spearman(taus, [r[2] for r in rows]):.3f}, "
          f"fastest kernels {spearman(taus, [r[3] for r in rows]):.3f} ({len(rows)} stages)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
