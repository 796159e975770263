"""Playability filters: each candidate stage is compiled and played inside the kernels, and every
filter's figure is stored, whether it passes or not. Filters run cheapest first and the first that
fails rejects the candidate (later figures are then not measured).

| filter        | figure                                                      | passes when            |
|---------------|-------------------------------------------------------------|------------------------|
| compiles      | the compiler accepts the stage                              | it does                |
| first move    | legal moves in the initial position                         | ≥ 1                    |
| cost          | τ, the mean counted cost of a random game (sampler/cost.py) | ≤ max_tau              |
| completion    | share of random games that end before the move cap          | ≥ min_completion       |
| length        | median plies of the random games                            | ≥ min_plies            |
| choice        | share of plies with more than one legal move                | ≥ min_choice           |
| coverage      | mean share of the playable cells that ever hold a piece     | ≥ min_coverage         |
| draws         | share of draws (cut games count as draws) under random play | ≤ max_draws            |
| balance       | first seat's score (wins + draws / 2) under random play     | inside balance         |
| greedy play   | first seat's score, and draws, greedy against greedy        | inside balance, ≤ max_draws |
| greedy skill  | greedy's score against random, both seats, and its z        | ≥ min_score, ≥ min_z   |
| search skill  | search's score against greedy, both seats, and its z        | ≥ min_score, ≥ min_z   |

Before the greedy filters, greedy plays random with each weighting of material and mobility in
WEIGHTS (a third of calibration_games each, then all of them for the best two); the best weighting
is the greedy and search policies' from then on, tested on other games. So reverse scoring or "fewer pieces moves again" do not fool a greedy
that would count pieces the wrong way.

Games between policies are cut (a draw) at twice the longest random game that ended, plus 20.

The random games are the engine's seeded random playouts (seed 0, games 0, 1, ...); τ is the mean
counted cost of the first 64 of them (sampler/cost.py). Greedy and search are compiler/matches.py's
policies, run inside the kernels. z = (score − games/2) / √(games/4): a one-sided test that the
policy scores above one half (draws count half; √(games/4) is the largest standard error a score
can have, so the test is conservative); a skill test looks once after a quarter of its games
and stops there if z ≥ 3. "search skill" also rejects games a one-ply search solves:
there two plies find nothing more.
"""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import asdict, dataclass, field, fields

import numpy as np

from .. import compiler
from ..compiler import Games
from ..gdl import ast as A
from ..gdl.diagnostics import LudicaError
from . import cost
from .symmetry import fingerprint

FILTERS = ("compiles", "first move", "cost", "completion", "length", "choice", "coverage", "draws", "balance",
           "greedy play", "greedy skill", "search skill")


@dataclass(frozen=True)
class Filters:
    """The thresholds of the playability filters (see the module docstring), and the games each
    plays. `max_plies` None: max(200, 8 × cells)."""

    random_games: int = 200
    max_plies: int | None = None
    min_completion: float = 0.2
    min_plies: float = 3
    min_choice: float = 0.10
    min_coverage: float = 0.10
    max_draws: float = 0.8
    balance: tuple[float, float] = (0.15, 0.85)
    greedy_games: int = 20
    calibration_games: int = 60
    skill_games: int = 200
    search_games: int = 100
    opening: int = 2
    beam: int = 8
    max_tau: float = 12_000
    min_z: float = 1.645
    min_score: float = 0.55
    enabled: bool = True

    def __post_init__(self):
        if self.random_games < cost.TAU_GAMES:
            raise ValueError(f"random_games must be at least {cost.TAU_GAMES}: τ is measured on them")
        low, high = self.balance
        if not 0 <= low < high <= 1:
            raise ValueError(f"balance is a band 0 ≤ low < high ≤ 1, not {self.balance}")
        for name in ("greedy_games", "calibration_games", "skill_games", "search_games"):
            if getattr(self, name) < 2 or getattr(self, name) % 2:
                raise ValueError(f"{name} must be even and ≥ 2 (half the games in each seat)")

    def cap(self, stage: A.Stage) -> int:
        return self.max_plies if self.max_plies is not None else max(200, 8 * stage.board.rows * stage.board.cols)

    def as_dict(self) -> dict:
        return asdict(self)


NO_FILTERS = Filters(enabled=False)
# The weightings of material and mobility greedy and search may play with (compiler/matches.py).
WEIGHTS = ((1, 1), (-1, 1), (1, 0), (-1, 0), (0, 1), (0, -1))


@dataclass
class Screened:
    """What screening found: τ (None if it did not get that far), every figure measured, the filter
    that rejected the stage (None: accepted), why in words, and the seconds it took."""

    tau: float | None = None
    fingerprint: str | None = None
    figures: dict = field(default_factory=dict)
    rejected_by: str | None = None
    reason: str | None = None
    seconds: float = 0.0


def _drawn(winners: np.ndarray) -> np.ndarray:
    """Which games nobody won (a draw, or cut at the cap)."""
    return (winners != 0) & (winners != 1)


def _score(winners: np.ndarray, seat: int) -> float:
    """Seat's score: wins plus half the draws (a cut game is a draw)."""
    return float((winners == seat).sum()) + 0.5 * float(_drawn(winners).sum())


def _z(score: float, games: int) -> float:
    return (score - games / 2) / math.sqrt(games / 4)


def _both_seats(game, policy: str, against: str, games: int, cap: int, seed: int, f: Filters, weights,
                first: int = 0) -> float:
    """`policy`'s score against `against` over `games` games (numbered from `first`), half in each
    seat."""
    half = games // 2
    ahead = game.games(half, seed, (policy, against), cap, first_game=first, opening=f.opening, beam=f.beam,
                       weights=weights)
    behind = game.games(half, seed, (against, policy), cap, first_game=first + half, opening=f.opening,
                        beam=f.beam, weights=weights)
    return _score(ahead.winners, 0) + _score(behind.winners, 1)


EARLY_Z = 3.0  # a quarter of the games already this far above one half: the rest cannot undo it


def _skill(game, policy: str, against: str, games: int, cap: int, seed: int, f: Filters, weights) -> dict:
    """`policy`'s score against `against`: a quarter of the games first, stopping there when z ≥
    EARLY_Z (one look before the end: the test's error rate grows by less than 0.2%)."""
    first = max(2, games // 8 * 2)
    score = _both_seats(game, policy, against, first, cap, seed, f, weights)
    played = first
    if _z(score, first) < EARLY_Z:
        score += _both_seats(game, policy, against, games - first, cap, seed, f, weights, first=first)
        played = games
    return {"score": round(score / played, 4), "z": round(_z(score, played), 3), "games": played}


def _calibrate(game, cap: int, f: Filters) -> tuple[tuple[int, int], dict]:
    """The weighting greedy plays best with: every one of WEIGHTS plays a third of
    calibration_games against random, the best two play them all, the best of those wins."""
    third = max(2, f.calibration_games // 6 * 2)
    trials = {w: _both_seats(game, "greedy", "random", third, cap, 4, f, w) for w in WEIGHTS}
    finalists = sorted(WEIGHTS, key=lambda w: -trials[w])[:2]  # a stable sort: ties keep WEIGHTS' order
    for w in finalists:
        trials[w] += _both_seats(game, "greedy", "random", f.calibration_games - third, cap, 4, f, w, first=third)
    best = max(finalists, key=lambda w: trials[w] / f.calibration_games)
    return best, {"material": best[0], "mobility": best[1],
                  "trials": [round(trials[w] / (f.calibration_games if w in finalists else third), 3) for w in WEIGHTS]}


def screen(stage: A.Stage, filters: Filters = Filters(), known: dict[str, str] | None = None) -> Screened:
    """Compile and play the stage, cheapest filters first; see the module docstring. `known`:
    fingerprints of stages already had (→ what they are): a stage that plays the same random games
    is rejected as "duplicate" before the costly filters."""
    started = time.perf_counter()
    out = Screened()
    try:
        _run(stage, filters, out, known or {})
    finally:
        out.seconds = time.perf_counter() - started
    return out


def _reject(out: Screened, name: str, reason: str) -> None:
    out.rejected_by, out.reason = name, reason


def _run(stage: A.Stage, f: Filters, out: Screened, known: dict[str, str]) -> None:
    figures = out.figures
    try:
        game = compiler.compile(stage)
    except LudicaError as err:
        figures["compiles"] = False
        return _reject(out, "compiles", str(err).splitlines()[0])
    figures["compiles"] = True
    start = game.initial_state()
    figures["first move"] = 0 if game.is_terminal(start) else len(game.legal_moves(start))
    cap = f.cap(stage)
    randoms = game.games(cost.TAU_GAMES, cost.TAU_SEED, ("random", "random"), cap)
    out.tau = cost.tau(randoms.costs.tolist())  # measured even unfiltered: K needs it
    if f.enabled:
        if figures["first move"] < 1:
            return _reject(out, "first move", "no legal move in the initial position")
        figures["cost"] = round(out.tau, 2)
        if out.tau > f.max_tau:  # before the other random games: they would cost as much again
            return _reject(out, "cost", f"a random game costs {out.tau:,.0f} (τ), above {f.max_tau:,.0f}")
    rest = game.games(f.random_games - cost.TAU_GAMES, cost.TAU_SEED, ("random", "random"), cap,
                      first_game=cost.TAU_GAMES)
    randoms = Games(*(np.concatenate([getattr(randoms, k.name), getattr(rest, k.name)]) for k in fields(Games)))
    out.fingerprint = fingerprint(randoms.lengths, randoms.costs, randoms.winners)
    if not f.enabled:
        return None
    if out.fingerprint in known:
        return _reject(out, "duplicate", f"the same game as {known[out.fingerprint]} (the same random games)")
    ended = randoms.winners != -2
    figures["completion"] = round(float(ended.mean()), 4)
    if figures["completion"] < f.min_completion:
        return _reject(out, "completion", f"{figures['completion']:.0%} of random games end within {cap} plies")
    figures["length"] = float(statistics.median(randoms.lengths.tolist()))
    if figures["length"] < f.min_plies:
        return _reject(out, "length", f"random games last {figures['length']:g} plies (median)")
    figures["choice"] = round(float(randoms.choices.sum() / max(1, randoms.lengths.sum())), 4)
    if figures["choice"] < f.min_choice:
        return _reject(out, "choice", f"{figures['choice']:.0%} of plies offer a choice")
    playable = stage.board.rows * stage.board.cols - len(stage.blocked_cells)
    figures["coverage"] = round(float(randoms.covered.mean() / max(1, playable)), 4)
    if figures["coverage"] < f.min_coverage:
        return _reject(out, "coverage", f"random games cover {figures['coverage']:.0%} of the board")
    n = f.random_games
    figures["draws"] = round(float(_drawn(randoms.winners).mean()), 4)
    if figures["draws"] > f.max_draws:
        return _reject(out, "draws", f"{figures['draws']:.0%} of random games are drawn")
    figures["balance"] = round(_score(randoms.winners, 0) / n, 4)
    low, high = f.balance
    if not low <= figures["balance"] <= high:
        return _reject(out, "balance", f"the first seat scores {figures['balance']:.0%} under random play")
    # Which way material and mobility count is the game's to say (fewest pieces scores, fewer
    # pieces moves again...): greedy plays random with each weighting on games of their own, and
    # the best one is used from here on, on other games (so the tests below are not the selection's).
    # Games between policies are cut at twice the longest random game that ended (and count as
    # draws there): a policy that goes round in circles must not cost the cap, game after game.
    if ended.any():
        cap = min(cap, 2 * int(randoms.lengths[ended].max()) + 20)
    weights, figures["weights"] = _calibrate(game, cap, f)
    greedy = game.games(f.greedy_games, 1, ("greedy", "greedy"), cap, opening=f.opening, weights=weights)
    first = _score(greedy.winners, 0) / f.greedy_games
    draws = float(_drawn(greedy.winners).mean())
    figures["greedy play"] = {"first seat": round(first, 4), "draws": round(draws, 4)}
    if not low <= first <= high:
        return _reject(out, "greedy play", f"the first seat scores {first:.0%} greedy against greedy")
    if draws > f.max_draws:
        return _reject(out, "greedy play", f"{draws:.0%} of greedy games are drawn")
    skill = figures["greedy skill"] = _skill(game, "greedy", "random", f.skill_games, cap, 2, f, weights)
    if skill["z"] < f.min_z or skill["score"] < f.min_score:
        return _reject(out, "greedy skill", f"greedy scores {skill['score']:.0%} against random")
    skill = figures["search skill"] = _skill(game, "search", "greedy", f.search_games, cap, 3, f, weights)
    if skill["z"] < f.min_z or skill["score"] < f.min_score:
        return _reject(out, "search skill", f"two-ply search scores {skill['score']:.0%} against greedy")
    return None
