"""CompiledGame.info: the game's information as data (compiler/info.py), held to the games played.

The maximum length is a proof from the rules, so no game may exceed it: every family's random
games are played with the bound as their cap and none may be cut, on the bundled stages, on
stages drawn by hypothesis (tests/strategies.py) and on the sampler's variants and fresh stages.
Where the bound is exact, random games reach it.
"""
from __future__ import annotations

import dataclasses
import random
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ludica import compiler, gdl, stages
from ludica.compiler import GameInfo
from ludica.evaluation import report
from ludica.gdl.checks import check_stage
from ludica.runtime import oracle
from ludica.runtime.api import stage_view
from ludica.sampler import edits, prior
from strategies import othello_like_stages, placement_stages, playable_stages, stepping_stages


def compiled(name_or_text: str):
    if "\n" in name_or_text:
        return compiler.compile(gdl.loads(name_or_text))
    return compiler.compile(gdl.load(stages.path(name_or_text)))


def never_longer(game, n: int = 400, seed: int = 0) -> np.ndarray:
    """The lengths of `n` random games capped at the game's max_length, none of them cut (a cut
    game would be one the rules did not end within the bound)."""
    bound = game.info.max_length
    assert bound is not None
    runs = game.playouts(n, seed=seed, max_plies=bound)
    assert runs.cut == 0, f"{runs.cut} of {n} random games went past max_length {bound}\n{gdl.format(game.stage)}"
    assert int(runs.lengths.max(initial=0)) <= bound
    return runs.lengths


# --- the bundled stages ------------------------------------------------------------------------

# name: (max_length, the family that plays it)
BOUNDS = {
    "tic-tac-toe": (9, "placement"), "misere-tic-tac-toe": (9, "placement"), "connect-four": (42, "placement"),
    "mnk-5-6-4": (30, "placement"), "gomoku": (225, "placement"), "hex-11": (121, "placement"),
    # Othello: 60 empty cells, each filled once, and a pass at most before each move (10x10: no bitboard)
    "standard-8x8": (120, "othello"), "small-board-6x6": (64, "othello"), "othello-10x10": (192, "generic"),
    "c-squares-occlusion-agnostic": (112, "othello"),
    # Breakthrough: 16 pieces a side on two rows, 7 and 6 rows from the far one
    "breakthrough": (2 * (8 * 7 + 8 * 6), "pieces"),
    "ataxx": (400, "generic"), "custodian": (80, "generic"),  # their `after N plies`
}


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_bundled_stages_declare_the_bound_their_rules_prove_and_no_random_game_exceeds_it(name):
    game = compiled(name)
    bound, family = BOUNDS[name]
    assert (game.info.max_length, game.fast_playouts or "generic") == (bound, family)
    never_longer(game, 300)


def test_tic_tac_toe_reads_like_openspiels_game_info():
    info = compiled("tic-tac-toe").info
    assert (info.num_players, info.players, info.num_distinct_actions) == (2, ("x", "o"), 9)
    board = (info.rows, info.cols, info.cells, info.playable_cells, info.board_kind, info.wrap)
    assert board == (3, 3, 9, 9, "square", False)
    assert (info.min_utility, info.max_utility, info.utility_sum, info.zero_sum) == (-1.0, 1.0, 0.0, True)
    assert (info.max_length, info.has_pass, info.name) == (9, False, "Tic-tac-toe")
    assert "9 empty cells" in info.length_bound
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.max_length = 10  # type: ignore[misc]
    assert compiler.GameInfo is GameInfo


def test_the_board_and_the_pass_are_the_stages():
    othello = compiled("c-squares-occlusion-agnostic").info
    assert (othello.cells, othello.playable_cells, othello.has_pass, othello.num_distinct_actions) == (64, 60, True, 65)
    connect = compiled("connect-four").info
    assert (connect.rows, connect.cols, connect.board_kind) == (6, 7, "rect")
    assert compiled("hex-11").info.board_kind == "hex"
    assert compiled("breakthrough").info.action_bound == 65 * 64  # (origin + 1) * cells + destination


@pytest.mark.parametrize("name", ["tic-tac-toe", "standard-8x8", "breakthrough", "ataxx", "custodian"])
def test_every_action_played_lies_within_the_action_bound_and_returns_within_the_utilities(name):
    game = compiled(name)
    info, rng = game.info, random.Random(1)
    for _ in range(5):
        state = game.initial_state()
        while not game.is_terminal(state):
            actions = game.legal_actions(state)
            assert all(0 <= a < info.action_bound or (a == -1 and info.has_pass) for a in actions)
            state = game.apply_action(state, rng.choice(actions))
        returns = game.returns(state)
        assert info.min_utility <= min(returns) <= max(returns) <= info.max_utility
        assert sum(returns) == info.utility_sum
    game.move_of(info.action_bound - 1)  # the last action of the bound is one the game can name
    with pytest.raises(ValueError):
        game.move_of(info.action_bound)


# --- bounds that random games reach ---------------------------------------------------------------


def test_the_placement_bound_is_reached_where_it_is_exact():
    assert never_longer(compiled("tic-tac-toe"), 2000).max() == 9  # a drawn game fills the board
    assert never_longer(compiled("connect-four"), 4000).max() == 42


def test_the_othello_bound_counts_every_empty_cell_filled_and_a_pass_before_each_move():
    game = compiled("""game "4x4"
board square 4
players black white
setup black b3 c2
setup white b2 c3
move place empty
  flip custodial all
  require capture
pass forced
end no-moves: most-pieces
""")
    assert (game.fast_playouts, game.info.max_length) == ("othello", 2 * 12)
    never_longer(game, 2000)
    rng, most = random.Random(3), 0
    for _ in range(300):  # the moves (not the passes) of a random game: 12 when the board fills up
        state, moves = game.initial_state(), 0
        while not game.is_terminal(state):
            action = rng.choice(game.legal_actions(state))
            moves += action >= 0
            state = game.apply_action(state, action)
        most = max(most, moves)
    assert most == 12


def test_pieces_that_only_advance_have_as_many_moves_as_their_rows_to_go():
    # white's piece a1 walks down to a3, black's b3 up to b1: two steps each, then nobody moves
    game = compiled("""game "lanes"
board rect 3 2
players white black
forward white down, black up
setup white a1
setup black b3
move step forward to empty
end no-pieces: mover wins
""")
    assert (game.fast_playouts, game.info.max_length) == ("pieces", 4)
    assert set(never_longer(game, 50).tolist()) == {4}
    with_passes = compiled(gdl.format(game.stage) + "pass forced\n")
    assert with_passes.info.max_length == 8 and "pass" in with_passes.info.length_bound
    never_longer(with_passes, 50)


def test_a_move_cap_bounds_a_generic_game_and_is_reached():
    game = compiled("custodian")
    assert game.fast_playouts is None and never_longer(game, 200).max() == 80


def test_the_smallest_bound_wins():
    capped = compiled(gdl.format(gdl.load(stages.path("tic-tac-toe"))) + "end after 5 plies: draw\n")
    assert capped.info.max_length == 5 and "after 5 plies" in capped.info.length_bound
    loose = compiled(gdl.format(gdl.load(stages.path("tic-tac-toe"))) + "end after 50 plies: draw\n")
    assert loose.info.max_length == 9


# --- no bound where the rules set none --------------------------------------------------------------


def _without_move_cap(name: str) -> str:
    return "\n".join(line for line in gdl.format(gdl.load(stages.path(name))).splitlines()
                     if "plies" not in line) + "\n"


@pytest.mark.parametrize("name, why", [
    ("ataxx", "jumps go back and forth"),
    ("custodian", "removed pieces free their cells again"),
])
def test_rules_that_let_a_game_go_on_for_ever_give_no_bound(name, why):
    game = compiled(_without_move_cap(name))
    assert game.info.max_length is None, why
    assert game.info.length_bound.startswith("no bound proved from the rules")


@pytest.mark.parametrize("moves", [
    "move step all to empty",  # pieces step back to where they were
    "move step forward to empty\nmove step backward to empty",
    "move step forward to empty\n  flip custodial all",  # a flipped piece has its new owner's way to go
    "move step forward to empty\nmove place empty",  # a new piece brings moves of its own
])
def test_pieces_that_can_come_back_or_be_added_give_no_bound(moves):
    game = compiled(f"""game "back and forth"
board square 4
players white black
forward white down, black up
setup white a1
setup black d4
{moves}
end no-pieces: mover wins
""")
    assert game.info.max_length is None


def test_a_wrapped_board_has_no_far_end_to_advance_to():
    game = compiled("""game "ring"
board square 4 wrap
players white black
forward white down, black up
setup white a1
setup black d4
move step forward to empty
end no-pieces: mover wins
""")
    assert game.info.max_length is None
    assert game.playouts(20, seed=1, max_plies=500).cut == 20  # and indeed its games go round for ever


# --- every family, on stages drawn at random ----------------------------------------------------------


def _valid(stage) -> bool:
    return not any(d.is_error for d in check_stage(stage))


def _property(strategy, examples: int):
    @settings(max_examples=examples, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(stage=strategy, seed=st.integers(0, 2**16))
    def test(stage, seed):
        assume(_valid(stage))
        game = compiler.compile(stage)
        if game.info.max_length is not None:
            never_longer(game, 50, seed)
    return test


test_no_random_stage_exceeds_its_bound = _property(playable_stages(), 120)
test_no_othello_like_stage_exceeds_its_bound = _property(othello_like_stages(), 60)
test_no_placement_stage_exceeds_its_bound = _property(placement_stages(), 60)
test_no_stepping_stage_exceeds_its_bound = _property(stepping_stages(), 60)


@pytest.mark.parametrize("base, family", [("standard-8x8", "arena"), ("breakthrough", "all"), ("connect-four", "all")])
def test_no_variant_the_sampler_draws_exceeds_its_bound(base, family):
    stage, bounded = gdl.load(stages.path(base)), 0
    for number in range(60):  # most are rejected (invalid, or not applicable to the base)
        edited = edits.edit(stage, prior.generator(7, number), family)
        if edited.rejected is None:
            game = compiler.compile(edited.stage)
            if game.info.max_length is not None:
                never_longer(game, 50, number)
                bounded += 1
    assert bounded >= 10  # the property was tested, not skipped


def test_no_fresh_stage_the_sampler_draws_exceeds_its_bound():
    bounded = 0
    for number in range(2000):  # nearly every draw of the whole language breaks a static check
        drawn = prior.draw(prior.generator(5, number), prior.Limits(max_cells=64))
        if drawn.rejected is None:
            game = compiler.compile(drawn.stage.without_information())  # a hidden stage: its true game's bound
            if game.info.max_length is not None:
                never_longer(game, 20, number)
                bounded += 1
    assert bounded >= 5


# --- where the information is used ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["standard-8x8", "breakthrough"])
def test_an_agent_sees_the_action_bound_in_process_and_through_a_rules_oracle(name):
    game = compiled(name)
    assert stage_view(game).action_bound == game.info.action_bound
    started = oracle.start_alone(stages.path(name).read_text())
    assert started.error is None, started.error
    assert started.view.action_bound == game.info.action_bound
    # nothing new to the agent: the API's move_of already tells where the actions end
    with pytest.raises(ValueError, match=f"to {game.info.action_bound - 1}"):
        started.api.move_of(game.info.action_bound)


def test_the_reports_stage_table_shows_the_board_the_compiled_game_declares():
    summary = SimpleNamespace(store_path="results.sqlite")
    text = stages.path("c-squares-occlusion-agnostic").read_text()
    assert report._board_cell(summary, {"text": text, "stage_hash": "h"}) == "8x8 square, 4 blocked"
    assert report._board_cell(summary, {"text": stages.path("connect-four").read_text(), "stage_hash": "h"}) == \
        "6x7 rect"
