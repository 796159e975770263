"""The kernels of hidden information (compiler/information.py, and the placement family's form in
compiler/families/placement.py, through compiler/dark.py) play the reference's games
(gdl/interpreter/information.py) try for try: for a seed, each random game has the same number of
tries and the same winner, on OpenSpiel's dark games and on random hidden stages (piece moves,
captures, flips, forced passes, both refusals; pure placements for the family)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ludica import compiler, gdl, stages
from ludica.gdl import ast as A
from ludica.gdl.checks import check_stage
from ludica.sampler import cost
from bundled import dark_text
from strategies import placement_stages, playable_stages



def reference_games(stage: A.Stage, n: int, seed: int, max_tries: int) -> list[tuple[int, int | None]]:
    """(tries, winner) of the reference's random games drawn with the kernels' generator."""
    game, out = gdl.reference(stage), []
    for number in range(n):
        x, state, tries = cost.game_generator(seed, number), game.initial_state(), 0
        while not game.is_terminal(state) and tries < max_tries:
            legal = game.legal_moves(state)
            x, k = cost.draw(x, len(legal))
            state, tries = game.apply(state, legal[k]), tries + 1
        out.append((tries, game.winner(state) if game.is_terminal(state) else "cut"))
    return out


def kernel_games(stage: A.Stage, n: int, seed: int, max_tries: int, threads: int = 1, generic: bool = False):
    p = compiler.compile_dark(stage).playouts(n, seed=seed, max_tries=max_tries, threads=threads, generic=generic)
    winners = [0 if r[0] > 0 else 1 if r[1] > 0 else None for r in p.returns]
    cut = [length >= max_tries and w is None for length, w in zip(p.lengths, winners)]
    return [(int(length), "cut" if c else w) for length, w, c in zip(p.lengths, winners, cut)]


@pytest.mark.parametrize("text", [dark_text("phantom-tic-tac-toe", r) for r in ("retry", "lose-turn")]
                         + [dark_text(f"dark-hex-{s}", r) for s in (3, 5) for r in ("retry", "lose-turn")],
                         ids=["phantom-retry", "phantom-lose-turn", "hex3-retry", "hex3-lose-turn", "hex5-retry",
                              "hex5-lose-turn"])
def test_the_kernels_play_the_references_dark_games(text):
    stage = gdl.loads(text)
    reference = reference_games(stage, 200, 3, 10_000)
    assert compiler.kind(stage.without_information()) == "placement"  # the family's form plays them
    assert kernel_games(stage, 200, seed=3, max_tries=10_000) == reference
    assert kernel_games(stage, 200, seed=3, max_tries=10_000, generic=True) == reference


@pytest.mark.parametrize("text, games", [
    (dark_text("dark-hex-11"), 12),
    ('game "Dark Connect"\nboard rect 10 9\nplayers x o\nblocked b3 c9\nsetup x a1 c2\nsetup o d2\n'
     'move place gravity\nend line 5: mover wins\nend board-full: draw\nhidden opponent-pieces\nrefused lose-turn\n',
     100)], ids=["hex11-retry", "gravity-90-cells"])
def test_the_familys_tries_past_64_cells_are_the_references(text, games):
    """The family keeps each player's tries as a bitmap of 64-bit words: a board of more than one."""
    stage = gdl.loads(text)
    assert compiler.kind(stage.without_information()) == "placement"
    assert kernel_games(stage, games, seed=7, max_tries=10_000) == reference_games(stage, games, 7, 10_000)


def test_threads_play_the_same_games():
    stage = gdl.loads(dark_text("dark-hex-5"))
    one = compiler.compile_dark(stage).playouts(400, seed=9)
    two = compiler.compile_dark(stage).playouts(400, seed=9, threads=2)
    assert (one.lengths == two.lengths).all() and (one.returns == two.returns).all()


INFORMATION = st.fixed_dictionaries({"hidden": st.just(A.OpponentPieces()),
                                     "refused": st.sampled_from([A.Retry(), A.LoseTurn()])})


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.tuples(playable_stages(max_side=5), INFORMATION).map(lambda t: replace(t[0], **t[1])).filter(
    lambda s: not any(d.is_error for d in check_stage(s))))
def test_the_kernels_play_the_references_games_on_random_hidden_stages(stage):
    assert kernel_games(stage, 12, seed=5, max_tries=300) == reference_games(stage, 12, 5, 300)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.tuples(placement_stages(max_side=6), INFORMATION).map(lambda t: replace(t[0], **t[1])).filter(
    lambda s: not any(d.is_error for d in check_stage(s))))
def test_the_placement_familys_tries_are_the_references(stage):
    """Gravity, blocked cells, setups that already hold a line (played by the generic form), every end."""
    reference = reference_games(stage, 10, 4, 300)
    assert kernel_games(stage, 10, seed=4, max_tries=300) == reference
    assert kernel_games(stage, 10, seed=4, max_tries=300, generic=True) == reference


REVEALING = st.fixed_dictionaries({"hidden": st.just(A.OpponentPieces()),
                                   "refused": st.sampled_from([A.Retry(), A.LoseTurn()]),
                                   "reveal": st.lists(st.sampled_from(A.REVEALS), min_size=1, max_size=3,
                                                      unique=True).map(lambda kinds: tuple(k() for k in kinds))})


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.tuples(playable_stages(max_side=5), REVEALING).map(lambda t: replace(t[0], **t[1])).filter(
    lambda s: not any(d.is_error for d in check_stage(s))))
def test_the_kernels_reveal_what_the_reference_reveals(stage):
    """Every combination of reveals on random stages: the same games of tries (a reveal changes the
    views, so the tries that follow), the placement family leaving them to the generic kernels."""
    reference = reference_games(stage, 12, 6, 300)
    assert kernel_games(stage, 12, seed=6, max_tries=300) == reference
    assert kernel_games(stage, 12, seed=6, max_tries=300, generic=True) == reference


def test_dark_breakthrough_sees_where_its_pieces_could_go():
    """The bundled stage's games of tries in the kernel are the reference's, and its reveal shows
    a player more than its hiding would: fewer refused tries than in the dark without it."""
    stage = gdl.load(stages.path("dark-breakthrough"))
    assert kernel_games(stage, 40, seed=2, max_tries=2_000) == reference_games(stage, 40, 2, 2_000)
    blind = replace(stage, reveal=())
    refused = [compiler.compile_dark(s).playouts(200, seed=1).lengths.sum() for s in (stage, blind)]
    assert refused[0] < refused[1], refused  # (tries in all: seeing more, a player tries fewer refused moves)


def test_a_stage_that_hides_nothing_is_refused_with_a_pointer():
    with pytest.raises(ValueError, match="hides nothing: compile it with compiler.compile"):
        compiler.compile_dark(gdl.loads(dark_text("phantom-tic-tac-toe").replace("hidden opponent-pieces\n", "")
                                        .replace("refused retry\n", "")))


def test_games_between_policies_play_through_the_players_views():
    """Random against random in dark_games plays the random games of tries; flat Monte-Carlo on its
    own view (all it knows) beats random from both seats on dark Hex 5 (fixed seeds: the same games
    every run); a policy that is none is refused by name."""
    game = compiler.compile_dark(gdl.load(stages.path("dark-hex-5")))
    randoms, playouts = game.games(40, seed=3), game.playouts(40, seed=3, generic=True)
    assert np.array_equal(randoms.lengths, playouts.lengths)
    assert np.array_equal(np.where(randoms.winners == 0, 1.0, -1.0), playouts.returns[:, 0])
    ahead = game.games(30, seed=1, policies=("mc", "random"), samples=32)
    behind = game.games(30, seed=2, policies=("random", "mc"), samples=32)
    assert ((ahead.winners == 0).sum() + (behind.winners == 1).sum()) / 60 > 0.6
    with pytest.raises(ValueError, match="two policies among"):
        game.games(2, policies=("greedy", "random"))
