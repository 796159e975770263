"""Playability filters: each candidate stage is compiled and played inside the kernels, and every
filter's figure is stored, whether it passes or not. Filters run cheapest first and the first that
fails rejects the candidate (later figures are then not measured).

| filter        | figure                                                      | passes when            |
|---------------|-------------------------------------------------------------|------------------------|
| compiles      | the compiler accepts the stage                              | it does                |
| first move    | legal moves in the initial position (dice: under the best roll) | ≥ 1                |
| cost          | τ, the mean counted cost of a random game (sampler/cost.py) | ≤ max_tau              |
| completion    | share of random games that end before the move cap          | ≥ min_completion       |
| length        | median plies of the random games                            | ≥ min_plies            |
| choice        | share of plies with more than one legal move                | ≥ min_choice           |
| coverage      | mean share of the playable cells that ever hold a piece     | ≥ min_coverage         |
| draws         | share of draws (cut games count as draws) under random play | ≤ max_draws            |
| balance       | first seat's score (wins + draws / 2) under random play     | inside balance         |
| solved        | the exact solver: positions, solved, value, first moves     | not solved within solve_positions |
| mc play       | first seat's score, and draws, Monte-Carlo against itself   | inside balance, ≤ max_draws |
| mc skill      | Monte-Carlo's score against random, both seats, and its z   | ≥ min_score, ≥ min_z   |
|               | (a hidden stage: Monte-Carlo on its own view, through tries) |                        |

"solved": compiler/solve.py lists every position the rules can reach and labels them by retrograde
analysis. A stage with at most solve_positions positions (default 100,000) is rejected, whatever
its value: a plain Python listing of every position through an agent's API runs at about 100,000
positions a second or more (benchmarks/solver_positions.py, 2-core development machine: 96,000 on a
4x4 fresh stage of 170,446 positions, 113,000 on tic-tac-toe), so such a stage is solved outright
in about a second, metric A's smallest analysis budget (a sixtieth of the default), and then
measures only whether an agent searched exhaustively, while its small τ gives it a large Levin
weight. Within that bound every stage whose value is the same whatever its first move is rejected
with the rest (issue 20's three 9-cell toys, fresh seed 1 candidates 5235, 39090 and 32498: 374,
676 and 5,514 positions); the figure says how the first choice's moves fare (win, draw, loss for
the side choosing). Past the bound the solver stops (positions: solve_positions + 1) and the stage
goes on. A stage with dice is not measured (the solver has no chance nodes): the figure says so, and
it goes on.

"mc play" and "mc skill" play compiler/matches.py's flat Monte-Carlo policy: mc_samples random
games a move, shared among the legal moves, each move worth its mean result (a move that ends the
game is worth its result). It counts nothing the rules do not reward, so connection, line and
misère games show their skill as Othello does (the greedy policy, which counts material and
mobility, saw none in many of them: issue 20). "mc play" starts from the initial position, with no
random opening: a stage whose first moves nearly all lose at once (issue 20: 73 of 75 lose at ply
2) fails it, where games opened by random plies hid it. Its games stop as soon as the rest of
play_games cannot change the verdict (the figure then counts the games played). Its band doubles
as the test that skill has room to grow: two equal players whose games all end alike (one seat
always wins, or every game is drawn) play the game as well as it can be played.

A hidden stage is judged through its true game, but for "mc skill", which asks what a player can
make of what it is told: Monte-Carlo there plays on its own view, as if it were the truth, through
the stage's tries (compiler/information.py dark_games), against a random player of tries; its figure
says `"through": "views"`.

Games between policies are cut (a draw) at twice the longest random game that ended, plus 20 (on
a hidden stage, TRIES_PER_PLY tries a ply of that).

The random games are the engine's seeded random playouts (seed 0, games 0, 1, ...); τ is the mean
counted cost of the first 64 of them (sampler/cost.py). z = (score − games/2) / √(games/4): a
one-sided test that Monte-Carlo scores above one half (draws count half; √(games/4) is the largest
standard error a score can have, so the test is conservative); it looks after each quarter of
skill_games and stops there if z ≥ 3.
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
from ..gdl.printer import text
from . import cost
from .symmetry import fingerprint

FILTERS = ("compiles", "first move", "cost", "completion", "length", "choice", "coverage", "draws", "balance",
           "solved", "mc play", "mc skill")


@dataclass(frozen=True)
class Filters:
    """The thresholds of the playability filters (see the module docstring), and the games each
    plays. `max_plies` None: max(200, 8 × cells); `solve_positions` 0: no "solved" filter."""

    random_games: int = 200
    max_plies: int | None = None
    min_completion: float = 0.2
    min_plies: float = 3
    min_choice: float = 0.10
    min_coverage: float = 0.10
    max_draws: float = 0.8
    balance: tuple[float, float] = (0.15, 0.85)
    solve_positions: int = 100_000
    mc_samples: int = 16
    play_games: int = 20
    skill_games: int = 64
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
        if self.skill_games < 8 or self.skill_games % 8:
            raise ValueError("skill_games must be a multiple of 8 (four looks, half the games in each seat)")
        if self.play_games < 1 or self.mc_samples < 1 or self.solve_positions < 0:
            raise ValueError("play_games and mc_samples must be ≥ 1, solve_positions ≥ 0")

    def cap(self, stage: A.Stage) -> int:
        return self.max_plies if self.max_plies is not None else max(200, 8 * stage.board.rows * stage.board.cols)

    def as_dict(self) -> dict:
        return asdict(self)


NO_FILTERS = Filters(enabled=False)


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


def _both_seats(game, policy: str, against: str, games: int, cap: int, seed: int, f: Filters, first: int = 0) -> float:
    """`policy`'s score against `against` over `games` games (numbered from `first`), half in each
    seat."""
    half = games // 2
    ahead = game.games(half, seed, (policy, against), cap, first_game=first, samples=f.mc_samples)
    behind = game.games(half, seed, (against, policy), cap, first_game=first + half, samples=f.mc_samples)
    return _score(ahead.winners, 0) + _score(behind.winners, 1)


EARLY_Z = 3.0  # the score this far above one half at a look: the test stops there
TRIES_PER_PLY = 4  # a hidden stage's games between policies are cut at this many tries a ply of the cap


def policy_cap(randoms: Games, cap: int) -> int:
    """Where games between policies are cut (a draw): at twice the longest of the random games that
    ended, plus 20, within `cap`; a policy that goes round in circles must not cost the cap, game
    after game."""
    ended = randoms.winners != -2
    return min(cap, 2 * int(randoms.lengths[ended].max()) + 20) if ended.any() else cap


def skill(game, cap: int, f: Filters) -> dict:
    """The "mc skill" figure: Monte-Carlo's score against random over skill_games, a quarter at a
    time, stopping after a quarter, a half or three quarters when z ≥ EARLY_Z (three looks before
    the end, each a chance of at most 0.135% under the null: the test's error rate grows by less
    than 0.5%)."""
    quarter = f.skill_games // 4
    score, played = 0.0, 0
    while played < f.skill_games:
        games = min(quarter, f.skill_games - played)
        score += _both_seats(game, "mc", "random", games, cap, 2, f, first=played)
        played += games
        if _z(score, played) >= EARLY_Z:
            break
    return {"score": round(score / played, 4), "z": round(_z(score, played), 3), "games": played}


def skilled(figure: dict, f: Filters) -> bool:
    """Whether an "mc skill" figure passes."""
    return figure["z"] >= f.min_z and figure["score"] >= f.min_score


def play(game, cap: int, f: Filters) -> dict:
    """The "mc play" figure: the first seat's score and the draws, Monte-Carlo against itself from
    the initial position, over play_games games, or fewer: play stops once the games left cannot
    change the verdict (pass or fail), so the verdict is that of all play_games games."""
    n, (low, high) = f.play_games, f.balance
    first = drawn = 0.0
    played = 0
    while played < n:
        games = game.games(min(2, n - played), 1, ("mc", "mc"), cap, first_game=played, samples=f.mc_samples)
        first += _score(games.winners, 0)
        drawn += float(_drawn(games.winners).sum())
        played += len(games.winners)
        left = n - played
        fails = first + left < low * n or first > high * n or drawn > f.max_draws * n
        passes = first >= low * n and first + left <= high * n and drawn + left <= f.max_draws * n
        if fails or passes:
            break
    return {"first seat": round(first / played, 4), "draws": round(drawn / played, 4), "games": played}


def solved(game, f: Filters) -> dict:
    """The "solved" figure: whether the stage has at most solve_positions positions, how many it has
    (solve_positions + 1: more), and if so its value for the first player and how the moves of its
    first choice fare for the side choosing."""
    found = game.solve(f.solve_positions)
    figure = {"solved": found.solved, "positions": found.positions}
    if found.solved:
        figure["value"] = found.value
        figure["first moves"] = {"win": found.choices.count(1), "draw": found.choices.count(0),
                                 "loss": found.choices.count(-1)}
    return figure


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


def first_moves(game, start) -> int:
    """The legal moves of the initial position: on a stage with dice, under the roll that gives the
    most (the filter asks whether the first player can move at all, not under one throw)."""
    roll = game.stage.roll
    if roll is None:
        return len(game.legal_moves(start))
    return max(len(game.legal_moves(game.with_roll(start, r))) for r in roll.totals)


def _reject(out: Screened, name: str, reason: str) -> None:
    out.rejected_by, out.reason = name, reason


def _run(stage: A.Stage, f: Filters, out: Screened, known: dict[str, str]) -> None:
    figures = out.figures
    try:
        # a stage that hides information is judged through its true game (its base's), and known
        # apart from it by its information lines (the fingerprint below); what the referee cannot
        # play (compiler.playable refuses it) is refused here
        compiler.playable(stage)
        game = compiler.compile(stage.without_information())
    except LudicaError as err:
        figures["compiles"] = False
        return _reject(out, "compiles", str(err).splitlines()[0])
    figures["compiles"] = True
    start = game.initial_state()
    figures["first move"] = 0 if game.is_terminal(start) else first_moves(game, start)
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
    out.fingerprint = fingerprint(randoms.lengths, randoms.costs, randoms.winners, _told(stage))
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
    figures["coverage"] = round(float(randoms.covered.mean() / max(1, game.info.playable_cells)), 4)
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
    cap = policy_cap(randoms, cap)
    if f.solve_positions > 0 and stage.roll is not None:  # the solver has no chance nodes
        figures["solved"] = {"solved": False, "measured": "no: a stage with dice"}
    elif f.solve_positions > 0:
        exact = figures["solved"] = solved(game, f)
        if exact["solved"]:
            return _reject(out, "solved", _solved_reason(exact))
    mc = figures["mc play"] = play(game, cap, f)
    if not low <= mc["first seat"] <= high:
        return _reject(out, "mc play", f"the first seat scores {mc['first seat']:.0%} Monte-Carlo against Monte-Carlo")
    if mc["draws"] > f.max_draws:
        return _reject(out, "mc play", f"{mc['draws']:.0%} of Monte-Carlo games are drawn")
    if stage.hidden is None:
        figures["mc skill"] = skill(game, cap, f)
    else:  # what a player makes of what it is told: Monte-Carlo on its own view, through tries
        figures["mc skill"] = {**skill(compiler.playable(stage), TRIES_PER_PLY * cap, f), "through": "views"}
    if not skilled(figures["mc skill"], f):
        return _reject(out, "mc skill", f"Monte-Carlo scores {figures['mc skill']['score']:.0%} against random")
    return None


def _told(stage: A.Stage) -> str:
    """What a stage's players are told, as its information lines say ("" under perfect information)."""
    if stage.hidden is None:
        return ""
    return "\n".join(text(node) for node in (stage.hidden, stage.refused, *stage.announce, *stage.reveal)
                     if node is not None)


RESULTS = {1: "the first player wins", 0: "a draw", -1: "the second player wins"}


def _solved_reason(exact: dict) -> str:
    moves = exact["first moves"]
    told = [f"{k} {v}" for k, v in moves.items() if v]
    first = f"; its first choice's moves: {', '.join(told)}" if told else ""
    return f"solved exactly in {exact['positions']:,} positions ({RESULTS[exact['value']]}{first})"
