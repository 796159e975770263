"""Do the sampler's skill verdicts agree with an independent strength test?

Candidates: fresh stages drawn with a seed (and variants of a few bundled stages), those that pass
the filters of random play (every filter up to "balance"), whatever the later filters say. On each:

- the filter's verdict: sampler/screen.py's "mc skill" test (compiler/matches.py's Monte-Carlo
  policy against random, inside the kernel, with its looks and early stop);
- the independent verdict, written apart from that code path: a flat Monte-Carlo player driven
  from Python through the public API of the compiled game (legal_actions, apply_action, and
  playouts_from for 16 random games from each child, its own random numbers), against a uniform
  random player, `--games` games (half in each seat, no early stop), cut at the random games' cap
  (a draw). It shows skill when it scores ≥ 0.55 with z ≥ 1.645, the filter's thresholds: the two
  tests ask one question by two routes.

Prints each candidate, the confusion table and the agreement (the share of candidates on which the
two verdicts are the same; issue 20's target: ≥ 90%). Candidates whose τ is above `--max-tau` are
left out (and counted): the independent test, driven from Python, would take hours on them.

    python benchmarks/filter_agreement.py [--seed 1] [--fresh 40] [--variants 3] [--games 100] [--max-tau 3000]
"""
from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np

from ludica import compiler, gdl, stages
from ludica.gdl import ast as A
from ludica.sampler import cost, edits, prior, screen
from ludica.sampler.prior import generator

BASES = ("tic-tac-toe", "connect-four", "small-board-6x6", "standard-8x8")
PLAYOUTS = 16  # random games from each legal move's child


@dataclass
class Row:
    source: str
    number: int
    tau: float
    later: str  # what the later filters say of it (accepted, or the filter that rejects it)
    figure: dict  # the filter's "mc skill" figure
    passes: bool
    score: float  # the independent test's
    shows: bool
    seconds: float


def flat_monte_carlo(game, state, actions: list[int], rng: np.random.Generator, plies_left: int) -> int:
    """The action whose child scores best for the side to move over PLAYOUTS random games each
    (mean return), ties at random."""
    me = game.to_move(state)
    children = np.stack([game.apply_action(state, a) for a in actions])
    found = game.playouts_from(children, PLAYOUTS, seed=int(rng.integers(1 << 62)), max_plies=max(0, plies_left))
    means = found.returns[:, :, me].mean(axis=1)
    best = np.flatnonzero(means == means.max())
    return actions[int(best[rng.integers(len(best))])]


def play(game, mc_seat: int, cap: int, rng: np.random.Generator) -> float:
    """One game, flat Monte-Carlo in `mc_seat` against uniform random: its score (1, ½ or 0)."""
    state = game.initial_state()
    ply = 0
    while not game.is_terminal(state):
        if ply >= cap:
            return 0.5  # cut: a draw
        actions = game.legal_actions(state)
        if game.to_move(state) == mc_seat and len(actions) > 1:
            action = flat_monte_carlo(game, state, actions, rng, cap - ply - 1)
        else:
            action = actions[int(rng.integers(len(actions)))]
        state = game.apply_action(state, action)
        ply += 1
    won = game.winner(state)
    return 0.5 if won is None else float(won == mc_seat)


def independent(game, cap: int, games: int, seed: int) -> float:
    """Flat Monte-Carlo's mean score against random over `games` games, half in each seat."""
    rng = np.random.default_rng(seed)
    return sum(play(game, g % 2, cap, rng) for g in range(games)) / games


def shows_skill(score: float, games: int, f: screen.Filters) -> bool:
    z = (score * games - games / 2) / math.sqrt(games / 4)
    return score >= f.min_score and z >= f.min_z


def reaches_policies(stage: A.Stage, f: screen.Filters) -> str | None:
    """What the later filters say of a stage that passes every filter of random play ("accepted" or
    the filter that rejects it); None if a filter of random play rejects it."""
    found = screen.screen(stage, f)
    if found.rejected_by is None:
        return "accepted"
    if found.rejected_by in ("solved", "mc play", "mc skill"):
        return found.rejected_by
    return None


def candidates(seed: int, fresh: int, variants: int, f: screen.Filters):
    """(source, number, stage, later verdict): the first `fresh` fresh candidates of `seed` that pass
    the filters of random play, then the first `variants` of each base in BASES."""
    found = 0
    number = 0
    while found < fresh:
        drawn = prior.draw(generator(seed, number), prior.Limits(hidden=False, chance=False),
                           players=("black", "white"))  # perfect information, no chance (issue 33's `advance` came since)
        if drawn.rejected is None:
            later = reaches_policies(drawn.stage, f)
            if later is not None:
                found += 1
                yield "fresh", number, drawn.stage, later
        number += 1
    for base_name in BASES:
        base = gdl.load(stages.path(base_name))
        found = number = 0
        while found < variants and number < 2000:
            e = edits.edit(base, generator(seed, number), "all", edits.VARIANT_LIMITS)
            if e.rejected is None and e.stage != base:
                later = reaches_policies(e.stage, f)
                if later is not None:
                    found += 1
                    yield base_name, number, e.stage, later
            number += 1


def measure(seed: int, fresh: int, variants: int, games: int, max_tau: float = 3000,
            f: screen.Filters = screen.Filters(), say=print) -> list[Row]:
    """The rows of the candidates (those above max_tau left out: said, not measured)."""
    rows = []
    for source, number, stage, later in candidates(seed, fresh, variants, f):
        started = time.perf_counter()
        game = compiler.compile(stage)
        randoms = game.games(f.random_games, cost.TAU_SEED, ("random", "random"), f.cap(stage))
        tau = cost.tau(randoms.costs.tolist())
        if tau > max_tau:
            say(f"{source:16s} {number:6d}  tau {tau:8.1f}  {later:9s}  left out: tau above {max_tau:g}")
            continue
        figure = screen.skill(game, screen.policy_cap(randoms, f.cap(stage)), f)
        score = independent(game, f.cap(stage), games, seed * 1_000_003 + number)
        row = Row(source, number, tau, later, figure, screen.skilled(figure, f), score, shows_skill(score, games, f),
                  time.perf_counter() - started)
        rows.append(row)
        say(f"{row.source:16s} {row.number:6d}  tau {row.tau:8.1f}  {row.later:9s}  filter {figure['score']:.3f} "
            f"(z {figure['z']:5.2f}, {figure['games']:2d} games) {'skill' if row.passes else 'none ':5s}  "
            f"independent {score:.3f} {'skill' if row.shows else 'none '}  {row.seconds:6.1f} s")
    return rows


def confusion(rows: list[Row]) -> dict[tuple[bool, bool], int]:
    table = {(a, b): 0 for a in (True, False) for b in (True, False)}
    for r in rows:
        table[(r.passes, r.shows)] += 1
    return table


def agreement(rows: list[Row]) -> float:
    return sum(r.passes == r.shows for r in rows) / len(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1,
                        help="draws the candidates and the independent games (default 1)")
    parser.add_argument("--fresh", type=int, default=40, help="fresh candidates (default 40)")
    parser.add_argument("--variants", type=int, default=3, help=f"variants of each of {', '.join(BASES)} (default 3)")
    parser.add_argument("--games", type=int, default=100, help="games of the independent test (default 100)")
    parser.add_argument("--max-tau", type=float, default=3000, help="leave out costlier candidates (default 3000)")
    args = parser.parse_args(argv)
    rows = measure(args.seed, args.fresh, args.variants, args.games, args.max_tau)
    table = confusion(rows)
    print(f"\n{'':24s}independent: skill   independent: none")
    for passes in (True, False):
        label = "filter: " + ("skill" if passes else "none")
        print(f"{label:24s}{table[(passes, True)]:18d}   {table[(passes, False)]:17d}")
    print(f"agreement {agreement(rows):.1%} on {len(rows)} candidates "
          f"({sum(r.source == 'fresh' for r in rows)} fresh, {sum(r.source != 'fresh' for r in rows)} variants)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
