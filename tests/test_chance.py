"""Chance at the start (`setup PLAYER random N in CELLS`; docs/language.md, "Chance"): every set of
cells is equally likely (chi-square), a game's start is a function of its seed alone (the same in the
reference and the compiled game, the same when a run is resumed or replayed), playouts start each
game from its own draw, and what the engines do not play yet is refused by name."""
from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ludica import compiler, gdl, stages
from ludica.compiler.layout import array_of
from ludica.gdl.interpreter import State, chance
from ludica.runtime.entrants import BUILTIN_DIR
from ludica.runtime.local import LocalSeat
from ludica.runtime import seatseeds
from ludica.runtime.referee import play_game

from bundled import PERFECT
from test_dark_kernels import kernel_games, reference_games

DEALT = """game "Dealt"
board square 4
players x o
setup x a1
setup x random 2 in a1..c2
setup o random 1 in a1..c2
move place empty
end line 3: mover wins
end board-full: draw
"""


def chi_square_p(counts: list[int]) -> float:
    """The p-value of Pearson's chi-square test that `counts` are uniform (Wilson–Hilferty's normal
    approximation of the chi-square tail: exact enough for the thresholds below)."""
    n, k = sum(counts), len(counts)
    expected = n / k
    x2 = sum((c - expected) ** 2 / expected for c in counts)
    dof = k - 1
    z = ((x2 / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return 0.5 * math.erfc(z / math.sqrt(2))


def test_every_set_of_cells_is_equally_likely():
    """x's two pieces land on 2 of the 5 cells a1..c2 leaves free (10 pairs), then o's on one of the 3
    left: 30 outcomes, each drawn as often as the others over 30,000 games' seeds."""
    stage = gdl.loads(DEALT)
    game = gdl.reference(stage)
    counts: Counter = Counter()
    for seed in range(30_000):
        counts[game.start(seed).cells] += 1
    free = [1, 2, 4, 5, 6]  # a1..c2 less a1 (x's fixed piece)
    outcomes = {(pair, o) for pair in itertools.combinations(free, 2) for o in free if o not in pair}
    assert len(outcomes) == 30
    found = {(tuple(i for i in free if cells[i] == 1), next(i for i in free if cells[i] == 2)) for cells in counts}
    assert found == outcomes
    assert chi_square_p(list(counts.values())) > 0.001
    # and the per-cell marginals: each free cell holds x's piece 2/5 of the time
    x_share = [sum(c for cells, c in counts.items() if cells[i] == 1) / 30_000 for i in free]
    assert all(abs(share - 0.4) < 0.02 for share in x_share)


def test_a_non_uniform_draw_would_be_caught():
    """The test above can fail: a draw that favours the first cells is rejected by it."""
    biased = Counter({k: 1000 + (300 if k < 10 else 0) for k in range(30)})
    assert chi_square_p(list(biased.values())) < 0.001


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(-(2**63), 2**63 - 1), number=st.integers(0, 10**6))
def test_a_start_is_its_seeds_in_both_engines(seed, number):
    stage = gdl.loads(DEALT)
    reference, compiled = gdl.reference(stage), compiler.compile(stage)
    start = reference.start(seed, number)
    assert np.array_equal(compiled.board(compiled.start(seed, number)), reference.board(start))
    assert reference.start(seed, number) == start  # a function of the seed alone
    assert start.cells[0] == 1 and sum(v == 1 for v in start.cells) == 3 and sum(v == 2 for v in start.cells) == 1


def test_starts_differ_from_seed_to_seed_and_initial_state_is_seed_zeros():
    stage = gdl.loads(DEALT)
    game = compiler.compile(stage)
    assert len({game.start(seed).tobytes() for seed in range(200)}) == 30
    assert np.array_equal(game.initial_state(), game.start(0))
    fixed = gdl.load(stages.path("tic-tac-toe"))
    assert compiler.compile(fixed).start(12345) is compiler.compile(fixed).initial_state()


def test_random_games_from_drawn_starts_run_in_the_kernel():
    """Games from drawn starts (playouts_from): each the game the kernel plays from that start alone;
    without a state, random games start from initial_state (seed 0's start), as the reference's do."""
    stage = gdl.loads(DEALT)
    game = compiler.compile(stage)
    starts = np.stack([game.start(5, k) for k in range(16)])
    batch = game.playouts_from(starts, 4, seed=2)
    assert batch.lengths.shape == (16, 4)
    assert np.array_equal(game.playouts(8, seed=3).lengths,
                          game.playouts(8, seed=3, state=game.start(0)).lengths)


def test_the_referee_draws_the_start_from_the_games_chance_seed_and_says_it():
    """Each game's start comes from its chance seed, which derives from both seats' seeds (secret to
    each other): the same seats' seeds, as a resumed run has them, draw the same start; the game's
    public seed alone does not tell it."""
    game = compiler.playable(gdl.load(stages.path("othello-random-setup")))
    seats = tuple(LocalSeat(n, str(BUILTIN_DIR / "random.py"), game) for n in ("a", "b"))
    for s in seats:
        s.analyze(1.0)
    boards, secret = set(), seatseeds.fresh()
    for seed in (3, 4, 5, 6, 7, 8):
        told = seatseeds.seat_seeds(secret, seed)
        record = play_game(game, seats, seed=seed, game_time=10.0, seat_seeds=told)
        start = game.start(seatseeds.chance_seed(told, seed))
        assert record.initial_board == game.board(start).tolist()
        said = next(line for line in record.log if line.startswith("The start was drawn at random"))
        black = said.split(": ", 1)[1].split("; ")[0].split()[1:]
        assert sorted(black) == sorted(gdl.ast.cell_name(r, c) for r, c in zip(*np.nonzero(game.board(start) == 1)))
        boards.add(str(record.initial_board))
        again = play_game(game, seats, seed=seed, game_time=10.0, seat_seeds=told)  # as a resumed run
        assert again.initial_board == record.initial_board
    assert len(boards) > 1
    # another run's secret (other seats' seeds): other starts for the same public game seeds
    other = {str(play_game(game, seats, seed=seed, game_time=10.0).initial_board) for seed in (3, 4, 5, 6, 7, 8)}
    assert other != boards


def replayed(out, name: str, agents: tuple[str, str], games: int, game_time: float, seed: int) -> tuple[list, list]:
    """(the stored games, the report's replays of them) of a tournament of `agents` on a bundled stage."""
    from ludica.evaluation import summarise
    from ludica.evaluation.report import replays
    from ludica.runtime import Run, entrants, tournament

    tournament.run([stages.path(name)], [entrants.resolve(a) for a in agents], out,
                   tournament.Options(games=games, analysis_time=1.0, game_time=game_time, seed=seed, sandbox=False))
    with Run.read(out) as run:
        stored = run.store.games()
        summary = summarise(run.store, resamples=10, seed=1)
    return stored, replays(summary)


def test_the_reports_replay_starts_each_game_from_its_seed(tmp_path):
    from ludica.evaluation.report import board_cells

    games, shown = replayed(tmp_path / "run", "othello-random-setup", ("random", "greedy"), 3, 5.0, 9)
    game = compiler.compile(gdl.load(stages.path("othello-random-setup")))
    assert len(shown) == len(games) == 6
    starts = {g["seed"]: game.board(game.start(seatseeds.chance_seed((g["black_seed"], g["white_seed"]), g["seed"])))
              for g in games}
    assert len({s.tobytes() for s in starts.values()}) > 1
    for g, stored in zip(shown, games):  # in the store's order: each game from its own seed's start
        assert g["boards"][0] == board_cells(starts[stored["seed"]])


def test_random_blocked_cells_are_blocked_to_both_engines():
    """`blocked random` draws before the setups; a cell blocked by the draw is blocked to the reference
    and to the kernels alike (the same moves and positions, game after game from drawn starts)."""
    stage = gdl.loads(DEALT.replace("players x o\n", "blocked random 2 in a1..d4\nplayers x o\n"))
    reference, compiled = gdl.reference(stage), compiler.compile(stage)
    blocked = Counter()
    for seed in range(40):
        state, array = reference.start(seed), compiled.start(seed)
        assert sum(v == -1 for v in state.cells) == 2 and state.cells[0] == 1  # a1 set up: never drawn
        blocked.update(i for i, v in enumerate(state.cells) if v == -1)
        x = seed
        while not reference.is_terminal(state):
            moves = reference.legal_moves(state)
            assert compiled.legal_moves(array) == moves
            x = (x * 6364136223846793005 + 1) % 2**64
            move = moves[x % len(moves)]
            state, array = reference.apply(state, move), compiled.apply(array, move)
            assert tuple(array[:16].tolist()) == state.cells
        assert compiled.is_terminal(array) and compiled.winner(array) == reference.winner(state)
    assert len(blocked) > 8  # drawn all over the board


def test_a_random_start_on_a_hidden_stage_is_shown_to_both_and_played_as_tries():
    """The start is public: each game's is drawn from its seed and shown to both players first, so a
    history says where its game began; the world sampler starts there, the kernels play the
    reference's games of tries, and the referee plays a determinised agent on it."""
    from ludica.gdl.interpreter.information import Shown
    from ludica.gdl.interpreter.worlds import worlds

    dark = gdl.loads(DEALT + "hidden opponent-pieces\nrefused retry\n")
    game = compiler.playable(dark)
    assert isinstance(game, compiler.CompiledDarkGame)
    reference = game.reference
    starts = {reference.start(seed).truth.cells for seed in range(20)}
    assert len(starts) > 5 and reference.initial_state() == reference.start(0)
    state, rng = reference.start(7), random.Random(2)
    assert [reference.history(state, p) for p in (0, 1)] == [(Shown(p, state.truth.cells),) for p in (0, 1)]
    for _ in range(4):
        state = reference.apply(state, rng.choice(reference.legal_moves(state)))
    p = reference.to_move(state)
    found = worlds(reference, reference.history(state, p), p)
    assert state in found and all(reference.history(w, p) == reference.history(state, p) for w in found)
    assert all(w.record[:2] == state.record[:2] for w in found)  # every world began where this game did
    assert kernel_games(dark, 40, seed=3, max_tries=5_000) == reference_games(dark, 40, 3, 5_000)
    seats = tuple(LocalSeat(n, str(BUILTIN_DIR / f"{n}.py"), game) for n in ("determinised", "random"))
    for s in seats:
        s.analyze(1.0)
    record = play_game(game, seats, seed=9, game_time=20.0)
    start = game.start(seatseeds.chance_seed(record.seat_seeds, 9))
    assert record.reason == "normal" and record.initial_board == game.board(start).tolist()


@pytest.mark.parametrize("name", sorted(PERFECT))
def test_a_cell_blocked_in_the_position_is_blocked_to_both_engines(name):
    """What makes `blocked random` sound on every bundled stage's rules: a position with cells blocked
    beyond the stage's own (as a draw blocks them) is played alike by the reference and the kernels,
    and the fast kernels play the generic kernels' games from it."""
    stage = gdl.load(PERFECT[name])
    compiled, reference = compiler.compile(stage), gdl.reference(stage)
    n, rng = compiled.rows * compiled.cols, random.Random(name)
    for game in range(4):
        cells = list(compiled.initial_state()[:n])
        empty = [i for i, v in enumerate(cells) if v == 0]
        for i in rng.sample(empty, max(1, len(empty) // 6)):
            cells[i] = -1
        # (on a stage with dice, both engines throw the referee's dice of seed `game`)
        start = State(tuple(cells), 0, 1, 0)
        state, array = reference.thrown(start, game), compiled.thrown(array_of(start), game)
        for _ in range(120):
            assert compiled.is_terminal(array) == reference.is_terminal(state)
            if reference.is_terminal(state):
                break
            moves = reference.legal_moves(state)
            assert compiled.legal_moves(array) == moves
            move = rng.choice(moves)
            state, array = reference.thrown(reference.apply(state, move), game), \
                compiled.thrown(compiled.apply(array, move), game)
            assert tuple(array[:n].tolist()) == state.cells
        start = compiled.thrown(array_of(start), game)
        fast, generic = compiled.playouts(16, seed=game, state=start), compiled.playouts(16, seed=game, state=start,
                                                                                        generic=True)
        assert np.array_equal(fast.lengths, generic.lengths) and np.array_equal(fast.returns, generic.returns)


def test_lines_are_read_in_the_order_they_are_drawn():
    stage = gdl.loads(DEALT)
    assert chance.lines(stage) == ((1, 2, (0, 1, 2, 4, 5, 6)), (2, 1, (0, 1, 2, 4, 5, 6)))


def test_ludica_show_says_a_random_start_is_one_of_many(capsys):
    from ludica.cli import main

    assert main(["show", "othello-random-setup"]) == 0
    assert "a start drawn at random for every game; this one is game 0 of seed 0's:" in capsys.readouterr().out
    assert main(["show", "standard-8x8"]) == 0
    assert "drawn at random" not in capsys.readouterr().out
