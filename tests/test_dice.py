"""Dice (`roll KdN` and the `advance` move; docs/language.md, "Dice"): each face and each total as
likely as the dice make it (chi-square), a game's rolls a function of its seed and ply alone (the
same in the reference and the compiled game, in the referee's game, its replay and the same game
played again, as a resumed run plays it), drawn from a seed no seat can compute, an agent's search
throwing its own dice, passes decided
under some roll, and what the kernels do not play yet with dice refused by name."""
from __future__ import annotations

import itertools
import re
import json
from collections import Counter

import numpy as np
import pytest

from ludica import compiler, gdl, stages
from ludica.compiler import codes as K
from ludica.gdl.interpreter import chance
from ludica.gdl.interpreter.game import ChanceNotPlayed
from ludica.runtime.entrants import BUILTIN_DIR
from ludica.runtime.local import LocalSeat
from ludica.runtime import seatseeds
from ludica.runtime.referee import play_game
from ludica.sampler import screen

from test_chance import chi_square_p, replayed

RACE = gdl.load(stages.path("dice-race"))

# One lane, white at f1 running right, black at h1 running left: white moves only on a 1 (a 2 lands
# on black's piece, not empty; more runs off the board), so it passes on every other roll while black,
# under some roll, could move.
STUCK = """game "Stuck"
board rect 1 8
players white black
forward white right, black left
setup white f1
setup black h1
roll 1d6
move advance forward to empty
pass forced
end reach far-row: mover wins
"""


def _roll(game, state) -> int:
    return int(game.position(state)[game.n_cells + K.ROLL])


def test_each_face_and_each_total_is_as_likely_as_the_dice_make_it():
    """The referee's rolls: 1d6 over 2,000 games' first six plies uniform over its faces; 2d6 over
    36,000 games' first plies in the proportions 1:2:3:4:5:6:5:4:3:2:1 (the 36 ordered faces uniform)."""
    one = Counter(chance.rolled(gdl.ast.Roll(1, 6), seed, 0, ply) for seed in range(2_000) for ply in range(6))
    assert set(one) == set(range(1, 7)) and chi_square_p([one[f] for f in range(1, 7)]) > 1e-4
    two = Counter(chance.rolled(gdl.ast.Roll(2, 6), seed, 0, 0) for seed in range(36_000))
    ways = Counter(a + b for a, b in itertools.product(range(1, 7), repeat=2))  # 36 equally likely faces
    x2 = sum((two[t] - 1_000 * ways[t]) ** 2 / (1_000 * ways[t]) for t in range(2, 13))
    assert set(two) == set(range(2, 13)) and x2 < 35.6, (x2, two)  # 10 degrees of freedom: p = 1e-4


def test_a_biased_die_would_be_caught():
    assert chi_square_p([1_000] * 5 + [1_250]) < 1e-4


def test_rolls_depend_on_the_seed_game_and_ply_alone():
    roll = gdl.ast.Roll(1, 6)
    a = [chance.rolled(roll, 7, 0, t) for t in range(40)]
    assert a == [chance.rolled(roll, 7, 0, t) for t in range(40)]
    assert a != [chance.rolled(roll, 8, 0, t) for t in range(40)]
    assert a != [chance.rolled(roll, 7, 1, t) for t in range(40)]
    assert chance.rolled(None, 7, 0, 3) == 0


def test_both_engines_start_and_throw_alike():
    ref, comp = gdl.reference(RACE), compiler.compile(RACE)
    for seed in range(30):
        rs, cs = ref.start(seed), comp.start(seed)
        assert rs.roll == _roll(comp, cs) == chance.rolled(RACE.roll, seed, 0, 0)
        for _ in range(8):
            if ref.is_terminal(rs):
                break
            move = ref.legal_moves(rs)[seed % len(ref.legal_moves(rs))]
            rs, cs = ref.thrown(ref.apply(rs, move), seed), comp.thrown(comp.apply(cs, move), seed)
            assert rs.roll == _roll(comp, cs) == chance.rolled(RACE.roll, seed, 0, rs.ply)
            assert comp.legal_moves(cs) == ref.legal_moves(rs)


def test_the_moves_are_the_rolls():
    """An advance goes exactly the roll's number of cells: from the start every roll moves each of
    white's three pieces that far along its lane."""
    game = gdl.reference(RACE)
    start = game.initial_state()
    for roll in range(1, 7):
        moves = game.legal_moves(game.with_roll(start, roll))
        assert [str(m) for m in moves] == [f"a{r}-{'abcdefghijkl'[roll]}{r}" for r in (1, 2, 3)]
    with pytest.raises(ValueError, match="a roll of 7 is not one of this stage's: 1 to 6"):
        game.with_roll(start, 7)
    with pytest.raises(ValueError, match="a roll of 0"):
        compiler.compile(RACE).with_roll(compiler.compile(RACE).initial_state(), 0)


def test_a_side_without_a_move_under_its_roll_passes_while_the_other_could_move_under_some():
    stage = gdl.loads(STUCK)
    for game in (gdl.reference(stage), compiler.compile(stage)):
        start = game.initial_state()
        for roll in range(1, 7):  # white at f1 reaches h1 (black's piece: not empty) on 2, the edge past it
            moves = [str(m) for m in game.legal_moves(game.with_roll(start, roll))]
            assert moves == (["f1-g1"] if roll == 1 else ["pass"]), (roll, moves)


def test_an_agents_search_throws_its_own_dice_never_the_referees():
    """`apply` throws from the game object's own generator: a search's children carry rolls, but the
    referee's roll of the ply is drawn from the game's chance seed, which no agent holds."""
    game = compiler.compile(RACE)
    start = game.start(11)
    children = [game.apply(start, game.legal_moves(start)[0]) for _ in range(60)]
    rolls = Counter(_roll(game, c) for c in children)
    assert set(rolls) <= set(range(1, 7)) and len(rolls) > 3  # thrown anew each time
    assert game.thrown(children[0], 11)[game.n_cells + K.ROLL] == chance.rolled(RACE.roll, 11, 0, 1)


def test_the_referee_throws_from_the_games_chance_seed_logs_it_and_replays_it(tmp_path):
    """Ply t's roll comes from the game's chance seed, which derives from both seats' seeds, so no
    seat can compute it, nor a roll before it is thrown; the same seats' seeds (a resumed run's) throw
    the same dice whatever was played; the game's public seed does not give them."""
    game = compiler.playable(RACE)
    seats = tuple(LocalSeat(n, str(BUILTIN_DIR / "random.py"), game) for n in ("a", "b"))
    for s in seats:
        s.analyze(1.0)
    told = seatseeds.seat_seeds(seatseeds.fresh(), 5)
    secret = seatseeds.chance_seed(told, 5)
    record = play_game(game, seats, seed=5, game_time=10.0, seat_seeds=told)
    again = play_game(game, seats, seed=5, game_time=10.0, seat_seeds=told)  # as a resumed run plays it
    for played in (record, again):  # ply t's roll is the chance seed's, whatever was played before it
        said = [line for line in played.log if " rolls " in line]
        assert len(said) == len(played.plies)  # the start's and each ply's but the last (the game ended)
        # (the race alternates, a pass included: ply t's thrower is seat t % 2)
        assert said == [f"{played.players[t % 2]} rolls {chance.rolled(RACE.roll, secret, 0, t)}"
                        for t in range(len(said))]
    rolls = [int(line.split()[-1]) for line in record.log if " rolls " in line]
    assert rolls != [chance.rolled(RACE.roll, 5, 0, t) for t in range(len(rolls))]  # not the public seed's
    assert seatseeds.chance_seed((told[0], told[1] + 1), 5) != secret  # one seat's seed does not give it
    # the moves replayed with the referee's throws are legal all the way, and end as the game did
    state = game.start(secret)
    for ply in record.plies:
        state = game.thrown(game.apply(state, game.parse_move(ply.move)), secret)
    assert game.is_terminal(state) and game.winner(state) == record.winner


def test_a_reports_replay_throws_the_referees_dice(tmp_path):
    """Every stored game replays to its end with the referee's throws (a replay with other dice
    would meet an illegal move and stop with a StoreError)."""
    games, shown = replayed(tmp_path / "run", "dice-race", ("random", "mcts"), 2, 3.0, 4)
    assert len(shown) == len(games) == 4
    for g, stored in zip(shown, games):
        assert g["moves"] == json.loads(stored["moves"]) and g["result"] == stored["result"]


def test_in_kernel_random_games_are_the_references_with_the_kernels_throws():
    from ludica.sampler.cost import counted_games

    ref, comp = gdl.reference(RACE), compiler.compile(RACE)
    assert counted_games(ref, 40, seed=3) == counted_games(comp, 40, seed=3)
    played = comp.playouts(40, seed=3)
    assert [int(n) for n in played.lengths] == [plies for plies, _ in counted_games(ref, 40, seed=3)]
    assert comp.fast_playouts is None  # no family plays dice: the generic kernels do


def test_the_kernels_policy_games_throw_the_dice_as_the_random_games_do():
    """Random against random in the policies' kernel plays the random playouts' games (the rolls
    thrown from each game's generator after the move); Monte-Carlo, whose own games throw their own
    dice, beats random from both seats (a fixed seed: the same games every run)."""
    game = compiler.compile(RACE)
    randoms, playouts = game.games(30, seed=3), game.playouts(30, seed=3)
    assert np.array_equal(randoms.lengths, playouts.lengths)
    assert np.array_equal(np.where(randoms.winners == 0, 1.0, np.where(randoms.winners == 1, -1.0, 0.0)),
                          playouts.returns[:, 0])
    ahead = game.games(24, seed=1, policies=("mc", "random"), samples=32)
    behind = game.games(24, seed=2, policies=("random", "mc"), samples=32)
    score = ((ahead.winners == 0).sum() + (behind.winners == 1).sum()) / 48
    assert score > 0.6, score


def test_the_sampler_screens_a_stage_with_dice_and_says_the_solver_did_not_measure_it():
    found = screen.screen(RACE, screen.Filters(random_games=64, play_games=6))
    assert found.rejected_by is None, found.reason
    assert found.figures["solved"] == {"solved": False, "measured": "no: a stage with dice"}
    assert found.fingerprint is not None


@pytest.mark.parametrize("what, call", [
    ("perft", lambda g: g.perft(2)),
    ("solving", lambda g: g.solve(1000)),
    ("greedy and search", lambda g: g.games(2, policies=("greedy", "random"))),
])
def test_what_the_kernels_do_not_do_with_dice_is_refused_by_name(what, call):
    with pytest.raises(ChanceNotPlayed, match=f"{what}.*on a stage with dice"):
        call(compiler.compile(RACE))


def test_perft_branches_on_every_roll_after_every_ply():
    game = gdl.reference(RACE)
    assert gdl.perft(game, 1) == 3 * 6  # white's three pieces, then black's six rolls
    assert np.array_equal(gdl.reference(RACE).board(game.initial_state()), compiler.compile(RACE).board(
        compiler.compile(RACE).initial_state()))


def test_dice_on_a_hidden_stage_are_refused_by_name():
    dark = gdl.loads(STUCK + "hidden opponent-pieces\nrefused retry\n")
    with pytest.raises(ChanceNotPlayed):
        compiler.playable(dark)
    with pytest.raises(ChanceNotPlayed, match="dice on a stage with hidden information"):
        gdl.reference(dark)  # (the reference played every turn with no roll: a hostile review's case)


def test_a_game_with_dice_and_passes_has_no_proved_length_bound():
    info = compiler.compile(gdl.loads(STUCK)).info
    assert info.max_length is None and "passes can follow passes" in info.length_bound


def test_a_move_that_ends_the_game_is_one_leaf_of_the_tree_whatever_the_dice():
    """(A hostile review's case.) Red throws 3 and takes blue on its far column: the game is over, no
    one throws again, and perft counts that move once at every depth."""
    stage = gdl.loads('game "t"\nboard rect 1 4\nplayers red blue\nforward red right, blue left\nsetup red a1\n'
                      'setup blue d1\nroll 1d3\nmove advance forward to any\npass forced\nend reach far-row: mover wins\n')
    game = gdl.reference(stage)
    state = game.with_roll(game.initial_state(), 3)
    assert [str(m) for m in game.legal_moves(state)] == ["a1-d1"]
    assert [gdl.perft(game, depth, state) for depth in (1, 2, 5)] == [1, 1, 1]


def test_a_roll_the_dice_cannot_throw_is_refused_by_name():
    """An agent's forged state with a roll outside its stage's dice (a hostile review's case: a roll of
    7 on 1d6 listed moves no throw gives) is refused where the kernels first read it."""
    game = compiler.compile(RACE)
    start = np.array(game.initial_state())
    for roll in (-1, 7, 2**31 - 1):
        bad = start.copy()
        bad[game.n_cells + K.ROLL] = roll
        for call in (game.legal_moves, lambda s: game.playouts(2, state=s)):
            with pytest.raises(ValueError, match=re.escape(f"roll {roll} (this stage's are 0 to 6)")):
                call(bad)
    assert [str(m) for m in game.legal_moves(game.with_roll(game.initial_state(), 6))] == ["a1-g1", "a2-g2", "a3-g3"]


def test_the_first_move_filter_asks_whether_any_roll_gives_a_move():
    """(A hostile review's case.) A 1x4 lane with 1d6 and no pass: red moves on a 1 or a 2 alone. The
    filter counts the moves of the best roll, not of the one the start threw."""
    stage = gdl.loads('game "lane"\nboard rect 1 4\nplayers red blue\nforward red right, blue left\nsetup red a1\n'
                      'setup blue d1\nroll 1d6\nmove advance forward to empty\nend reach far-row: mover wins\n')
    game = compiler.compile(stage)
    start = game.initial_state()
    by_roll = {r: len(game.legal_moves(game.with_roll(start, r))) for r in range(1, 7)}
    assert by_roll == {1: 1, 2: 1, 3: 0, 4: 0, 5: 0, 6: 0}
    assert screen.first_moves(game, game.with_roll(start, 5)) == 1


def test_a_game_that_let_go_of_its_stage_still_starts_and_throws():
    """A sandboxed worker lets go of the stage's AST (forget_stage): starts and throws need none.
    (A game of its own: compiler.compile shares one among its callers.)"""
    game = compiler.CompiledGame(RACE)
    expected = game.start(8)
    game.forget_stage()
    assert np.array_equal(game.start(8), expected)
    child = game.apply(expected, game.legal_moves(expected)[0])
    assert 1 <= int(game.thrown(child, 8)[game.n_cells + K.ROLL]) <= 6
