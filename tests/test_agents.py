"""The built-in agents (runtime/agents/): each plays whole legal games on every bundled stage, each
does what its docstring says on a chosen position, and the strong ones beat the weak ones on
standard Othello by a clear margin, in both seats.

Games are played in-process (runtime/local.LocalSeat) by the referee (runtime/referee.play_game),
charged with CPU time as in a tournament; the agents plan for the game's time and the referee allows
a grace beyond it (Planned), so that these tests measure play, not hiccups. Small budgets keep the
regular run short; the `slow` tests play more games at the default budgets.
"""
from __future__ import annotations

import random
from functools import cache
from types import SimpleNamespace

import numpy as np
import pytest

import ludica.compiler
import ludica.gdl
import ludica.stages
from ludica.runtime import metrics, resolve
from ludica.runtime.api import RulesApi, rules_api
from ludica.runtime.clock import Clock
from ludica.runtime.local import LocalSeat
from ludica.runtime.referee import play_game

STAGES = [p.stem for p in ludica.stages.bundled()]
ARENA_TABLE = [
    [120, -20, 20, 5, 5, 20, -20, 120],
    [-20, -40, -5, -5, -5, -5, -40, -20],
    [20, -5, 15, 3, 3, 15, -5, 20],
    [5, -5, 3, 3, 3, 3, -5, 5],
    [5, -5, 3, 3, 3, 3, -5, 5],
    [20, -5, 15, 3, 3, 15, -5, 20],
    [-20, -40, -5, -5, -5, -5, -40, -20],
    [120, -20, 20, 5, 5, 20, -20, 120],
]


@cache
def compiled(stage: str):
    """The stage compiled, every API call made once (as the sandboxed worker does before it starts
    the clock), so that no kernel is compiled on an agent's time."""
    game = ludica.compiler.playable(ludica.gdl.load(ludica.stages.path(stage)))
    api, start = rules_api(game), game.information(game.initial_state(), 0)
    moves = api.legal_moves(start)
    api.apply(start, moves[0])
    api.is_terminal(start), api.returns(start), api.board(start), api.to_move(start)
    api.evaluate(start, 0)
    api.playouts(start, 2, seed=0)
    return game


def seat(agent: str, stage: str, analysis: float = 1.0) -> LocalSeat:
    """A built-in, analysed on the stage."""
    spec = resolve(agent)
    s = LocalSeat(spec.name, str(spec.path), compiled(stage))
    answer = s.analyze(analysis)
    assert answer.failure is None, f"{agent} on {stage}: {answer.failure}: {answer.detail}"
    return s


GRACE = 4.0  # seconds the referee allows beyond what the agents plan for (see Planned)


class Planned:
    """A seat whose agent plans for the game's time while the referee allows GRACE seconds more.
    These tests measure what an agent does with its time (legal games, its strength at a budget),
    not whether a hiccup charged to it (a kernel compiled on a cold cache, a long garbage
    collection, a busy machine) pushes it over: a strength test on a clock would be a timed test
    in disguise. Keeping to the clock is held by the sandboxed tests (tests/test_load.py,
    tests/test_misbehaving.py) and by the runs' own."""

    def __init__(self, seat: LocalSeat):
        self.seat = seat

    def think(self, state, legal, remaining):
        return self.seat.think(state, legal, max(0.0, remaining - GRACE))

    def __getattr__(self, name):
        return getattr(self.seat, name)


def play(stage: str, black: LocalSeat, white: LocalSeat, seed: int, game_time: float):
    # both seats told `seed`, as before seats had seeds of their own: in this process they share one
    # `random` anyway, and the games (the strength thresholds below were set on) stay the same
    record = play_game(compiled(stage), (Planned(black), Planned(white)), seed=seed, game_time=game_time + GRACE,
                       seat_seeds=(seed, seed))
    assert record.reason == "normal", f"{stage}: {record.reason}: {record.log[-3:]}"
    assert not record.penalties, record.penalties
    return record


def score(stage: str, a: LocalSeat, b: LocalSeat, games: int, game_time: float, seed: int = 0) -> float:
    """a's score against b (a win 1, a draw 1/2) over `games` games, a black in the even ones."""
    total = 0.0
    for g in range(games):
        a_side = g % 2
        seats = (a, b) if a_side == 0 else (b, a)
        record = play(stage, *seats, seed=seed + g, game_time=game_time)
        total += 0.5 if record.winner is None else float(record.winner == a_side)
    return total / games


def walk(stage: str, wanted, seed: int = 0, tries: int = 200):
    """The first position of seeded random games where `wanted(state, legal_moves)` holds."""
    game = compiled(stage)
    api, rng = RulesApi(game), random.Random(seed)
    for _ in range(tries):
        state = game.initial_state()
        while not api.is_terminal(state):
            moves = api.legal_moves(state)
            if wanted(state, moves):
                return state, moves
            state = api.apply(state, rng.choice(moves))[0]
    raise AssertionError("no such position in the games tried")


def strategy_of(agent: str, stage: str = "standard-8x8"):
    return seat(agent, stage, analysis=1.0).strategy


# --- each built-in does what it says --------------------------------------------------------------

CORNERS = {(0, 0), (0, 7), (7, 0), (7, 7)}


def on_edge(move) -> bool:
    return move.dst is not None and (move.dst[0] in (0, 7) or move.dst[1] in (0, 7))


def captures(stage, state, moves):
    api = RulesApi(compiled(stage))
    return [api.apply(state, m)[1] for m in moves]


def positional_weights(stage: str) -> list[list[int]]:
    s = seat("positional", stage)
    return s.module.weights(s.view)


def test_positional_weights_on_8x8_are_the_arena_table():
    """On every 8x8 board, blocked cells or not, as the Arena's Positional."""
    for stage in STAGES:
        if (compiled(stage).rows, compiled(stage).cols) == (8, 8):
            assert positional_weights(stage) == ARENA_TABLE, stage


def test_positional_generalises_the_table():
    assert positional_weights("othello-10x10")[0] == [120, -20, 20, 5, 5, 5, 5, 20, -20, 120]
    assert positional_weights("othello-10x10")[5][5] == 3
    assert positional_weights("small-board-6x6")[0] == [120, -20, 20, 20, -20, 120]
    assert positional_weights("small-board-6x6")[1] == [-20, -40, -5, -5, -40, -20]
    # b1 blocked on 10x10: c1 beyond it can no longer be outflanked along the row, a corner; d1 a C-square
    module = seat("positional", "othello-10x10").module
    blocked = module.weights(SimpleNamespace(rows=10, cols=10, shape="square", blocked=((0, 1),)))
    assert blocked[0][:5] == [120, 0, 120, -20, 20]
    assert blocked[1][:3] == [-20, -20, -5]  # b2 under the wall: an edge cell next to a corner


def test_positional_plays_the_first_heaviest_cell():
    def weight(move):
        return ARENA_TABLE[move.dst[0]][move.dst[1]]

    def tied(state, moves):
        weights = [weight(m) for m in moves]
        return weights.count(max(weights)) > 1 and weights.index(max(weights)) > 0

    state, moves = walk("standard-8x8", tied)
    best = max(map(weight, moves))
    assert strategy_of("positional")(state, moves, Clock(10)) == next(m for m in moves if weight(m) == best)


def test_greedy_plays_the_first_largest_capture():
    def tied(state, moves):
        taken = captures("standard-8x8", state, moves)
        return taken.count(max(taken)) > 1 and taken.index(max(taken)) > 0

    state, moves = walk("standard-8x8", tied)
    taken = captures("standard-8x8", state, moves)
    assert strategy_of("greedy")(state, moves, Clock(10)) == moves[taken.index(max(taken))]


def test_corners_takes_the_first_corner():
    state, moves = walk("standard-8x8", lambda s, m: sum(x.dst in CORNERS for x in m) > 1 and m[0].dst not in CORNERS)
    first = next(m for m in moves if m.dst in CORNERS)
    assert strategy_of("corners")(state, moves, Clock(10)) == first


def test_corners_else_an_edge_else_greedy():
    play_ = strategy_of("corners")
    state, moves = walk("standard-8x8", lambda s, m: not any(x.dst in CORNERS for x in m)
                        and any(on_edge(x) for x in m) and not all(on_edge(x) for x in m))
    random.seed(1)
    picks = {play_(state, moves, Clock(10)) for _ in range(30)}
    assert all(on_edge(m) for m in picks)
    assert len(picks) > 1 or sum(on_edge(m) for m in moves) == 1  # a random one of them
    state, moves = walk("standard-8x8", lambda s, m: len(m) > 1 and not any(on_edge(x) for x in m), seed=1)
    taken = captures("standard-8x8", state, moves)
    assert play_(state, moves, Clock(10)) == moves[taken.index(max(taken))]


@pytest.mark.parametrize("stage", STAGES)
def test_corners_and_edges_are_those_of_evaluate(stage):
    """The corners agent's corners and edges are the cells `api.evaluate` counts as such."""
    game = compiled(stage)
    corner, edge = metrics.shape_classes(game)
    s = seat("corners", stage)
    mine = s.module.shape_classes(s.view)
    as_cells = [{divmod(int(i), game.cols) for i in np.flatnonzero(mask)} for mask in (corner, edge)]
    assert [set(mine[0]), set(mine[1])] == as_cells


# --- every built-in plays every stage -------------------------------------------------------------

@pytest.mark.parametrize("stage", STAGES)
def test_every_builtin_plays_whole_legal_games(stage):
    """Three games on each stage, every built-in in one of them, the seats turning with the stage.
    The referee checks every move; a forfeit, a crash or an illegal move fails the test (the agents
    plan for 1 s a game; the referee forfeits only past its GRACE, see Planned)."""
    turn = STAGES.index(stage) % 2
    for pair, seed in ((("mcts", "corners"), 1), (("adaptive", "positional"), 2), (("greedy", "random"), 3),
                       (("determinised", "random"), 4)):
        a, b = (seat(name, stage, analysis=0.5) for name in pair)
        black, white = (a, b) if turn == 0 else (b, a)
        record = play(stage, black, white, seed=seed, game_time=1.0)
        assert record.plies


# --- strength on standard Othello -----------------------------------------------------------------

def test_positional_beats_random():
    assert score("standard-8x8", seat("positional", "standard-8x8"), seat("random", "standard-8x8"),
                 games=100, game_time=10.0) >= 0.7


def test_mcts_beats_positional():
    assert score("standard-8x8", seat("mcts", "standard-8x8", analysis=0.5), seat("positional", "standard-8x8"),
                 games=10, game_time=1.0) >= 0.7


def test_adaptive_beats_random():
    assert score("standard-8x8", seat("adaptive", "standard-8x8", analysis=1.0), seat("random", "standard-8x8"),
                 games=8, game_time=1.0) >= 0.7


def test_adaptive_learns_the_stage():
    """What the analysis finds: corners worth most in Othello, least in reverse Othello (where the
    fewest discs win), and the fewer-pieces rule's extra moves."""
    found = {}
    for stage in ("standard-8x8", "reverse-othello", "fewer-pieces-continue"):
        s = seat("adaptive", stage, analysis=2.0)
        learned = dict(s.module.LEARNED)
        cells = learned["weights"][:, :64].mean(axis=0).reshape(8, 8)
        found[stage] = (learned, cells)
    corner = np.zeros((8, 8), dtype=bool)
    corner[::7, ::7] = True
    learned, cells = found["standard-8x8"]
    assert learned["scoring"] == "most-pieces" and learned["moves_again"] == 0 and learned["mode"] == "search"
    assert cells[corner].min() > max(0, cells[~corner].max())  # the four best cells
    learned, cells = found["reverse-othello"]
    assert learned["scoring"] == "fewest-pieces"
    assert cells[corner].max() < min(0, cells[~corner].min())  # the four worst
    learned, _ = found["fewer-pieces-continue"]
    assert learned["moves_again"] > 0.05


# --- slow: more games, the default budgets --------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("stage", STAGES)
def test_every_builtin_plays_at_the_default_game_budget(stage):
    """Every built-in in both seats against random, with the Arena's 10 s per game (and 20 s of
    analysis: the 60 s one is the strength test's)."""
    opponent = seat("random", stage)
    for name in ("greedy", "corners", "positional", "mcts", "adaptive"):
        s = seat(name, stage, analysis=20.0)
        for black, white in ((s, opponent), (opponent, s)):
            play(stage, black, white, seed=7, game_time=10.0)


@pytest.mark.slow
def test_strength_at_the_default_budgets():
    """mcts beats positional, adaptive beats positional and random, over both seats."""
    stage = "standard-8x8"
    positional, rnd = seat("positional", stage), seat("random", stage)
    mcts, adaptive = seat("mcts", stage, analysis=60.0), seat("adaptive", stage, analysis=60.0)
    scores = {}
    for (a, b, games), needed in {(positional, rnd, 1000): 0.7, (mcts, positional, 20): 0.8,
                                  (adaptive, rnd, 20): 0.8, (adaptive, positional, 20): 0.6}.items():
        scores[a.name, b.name] = score(stage, a, b, games=games, game_time=10.0)
        print(f"{a.name} vs {b.name}: {scores[a.name, b.name]:.1%} of {games} games")  # shown on failure
        assert scores[a.name, b.name] >= needed, scores


def test_the_api_offers_actions_as_well_as_moves():
    api = RulesApi(compiled("standard-8x8"))
    start = compiled("standard-8x8").initial_state()
    moves, actions = api.legal_moves(start), api.legal_actions(start)
    assert [api.move_of(a) for a in actions] == moves and [api.action_of(str(m)) for m in moves] == actions
    by_move = api.apply(start, moves[1])
    by_action = api.apply_action(start, actions[1])
    assert np.array_equal(by_move[0], by_action[0]) and by_move[1] == by_action[1] == 1
