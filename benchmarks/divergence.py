"""The divergence figures of a variant set, and what its draws were.

Draws a set of variants (by default 30 of the standard board, Arena family, seed 1) as `ludica
sample` does, then prints, per variant: what changed, its smallest edit's bits and the drawn edit's,
its multiplicity, its Levin weight, and its divergence from the base (sampler/divergence.py: the
Othello-tuned policy's score on the base minus its score on the variant, against flat Monte-Carlo)
with its standard error; then the base's score, the share of valid draws that were public stages,
the draws again, and the total-variation shift between the set's weights and the weights it would
have if draws again were dropped (1/τ alone, as before issue 20).

    python benchmarks/divergence.py [--base STAGE] [-n N] [--seed S] [--family F] [--jobs J]
"""
from __future__ import annotations

import argparse
import math
import statistics
import time

from ludica import gdl, sampler, stages


def total_variation(a: list[float], b: list[float]) -> float:
    return 0.5 * math.fsum(abs(x - y) for x, y in zip(a, b))


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", default="standard-8x8")
    p.add_argument("-n", type=int, default=30)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--family", default="arena")
    p.add_argument("--jobs", type=int, default=0, help="processes (default: every core)")
    args = p.parse_args(argv)
    base = gdl.load(stages.path(args.base) if not args.base.endswith(".gdl") else args.base)
    started = time.perf_counter()
    run = sampler.variants(base, args.n, seed=args.seed, family=args.family, jobs=args.jobs)
    seconds = time.perf_counter() - started
    weights = run.weights()
    print(f"{len(run.accepted)} variants of {base.name} ({args.family} family, seed {args.seed}), "
          f"{len(run.judged)} candidates, {seconds:.0f} s")
    print(f"{'#':>3} {'bits':>6} {'drawn':>6} {'m':>2} {'weight':>7} {'divergence':>15}  changes")
    values = []
    for i, (c, w) in enumerate(zip(run.accepted, weights), start=1):
        d = c.divergence
        values.append(d["value"])
        print(f"{i:3d} {c.bits:6.1f} {c.drawn_bits:6.1f} {c.multiplicity:2d} {w:7.4f} "
              f"{d['value']:+7.2f} ± {d['se']:.2f}  {c.changes}")
    ref = run.reference
    print(f"base: the tuned policy scores {ref.score:.3f} ± {ref.se:.3f} over {ref.games} games")
    print(f"divergence: mean {statistics.fmean(values):+.3f}, median {statistics.median(values):+.3f}, "
          f"min {min(values):+.2f}, max {max(values):+.2f}; above 2 se: "
          f"{sum(c.divergence['value'] > 2 * c.divergence['se'] for c in run.accepted)} of {len(values)}")
    draws = run.draws()
    dropped = [1 / c.tau for c in run.accepted]
    dropped = [x / math.fsum(dropped) for x in dropped]
    shift = total_variation(weights, dropped)
    print(f"draws: {draws['valid']} valid, {draws['public']} public ({draws['public share']:.0%}), "
          f"{draws['drawn again']} drawn again; total variation between the weights and those without the "
          f"draws again: {shift:.3f}")
    return {"divergence": values, "reference": ref.score, "draws": draws, "shift": shift}


if __name__ == "__main__":
    main()
