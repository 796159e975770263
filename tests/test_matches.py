"""Games between built-in policies inside the kernel (compiler/matches.py) and the counted cost τ
(sampler/cost.py): random games are the playouts' games; τ is the same in the reference
interpreter and the compiled game; greedy takes a win; search sees the answer to a move; Monte-Carlo
takes a win, plays the same games however a batch is split, and sees what material cannot."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from ludica import compiler, gdl
from ludica.gdl.parser import parse
from ludica.sampler import cost

from bundled import PERFECT

STAGES = sorted(PERFECT.values())  # (matches play true games: a hidden stage's is its base's)


def stage(text: str):
    return parse(textwrap.dedent(text))


@pytest.mark.parametrize("path", STAGES, ids=lambda p: p.stem)
def test_random_games_are_the_playouts_and_cost_the_same_in_the_reference(path):
    s = gdl.load(path)
    game = compiler.compile(s)
    played = game.games(4, seed=cost.TAU_SEED, max_plies=300)
    playouts = game.playouts(4, seed=cost.TAU_SEED, max_plies=300)
    assert (played.lengths == playouts.lengths).all()
    assert (np.sign(playouts.returns[:, 0]) == np.where(played.winners == 0, 1, np.where(played.winners == 1, -1, 0))).all()
    reference = cost.counted_games(gdl.reference(s), 4, max_plies=300)
    assert [(int(a), int(b)) for a, b in zip(played.lengths, played.costs)] == reference
    assert (played.choices <= played.lengths).all()
    assert (played.covered <= game.n_cells).all()


def test_a_batch_split_anywhere_plays_the_same_games():
    game = compiler.compile(gdl.load(STAGES[-1]))
    for policies in (("greedy", "search"), ("mc", "random")):
        whole = game.games(10, seed=3, policies=policies, samples=4)
        parts = [game.games(4, seed=3, policies=policies, samples=4),
                 game.games(6, seed=3, policies=policies, first_game=4, samples=4)]
        for field in ("lengths", "winners", "costs", "choices", "covered"):
            assert (getattr(whole, field) == np.concatenate([getattr(p, field) for p in parts])).all()


ONE_WINNING_MOVE = stage("""
    board rect 1 3
    players a b
    setup a a1
    move place empty
    end line 2: mover wins
    end board-full: draw
""")


def test_greedy_takes_a_win_that_random_misses():
    game = compiler.compile(ONE_WINNING_MOVE)
    greedy = game.games(40, seed=1, policies=("greedy", "random"))
    assert (greedy.winners == 0).all() and (greedy.lengths == 1).all()
    random = game.games(40, seed=1)
    assert 5 < (random.lengths == 1).sum() < 35  # b1 wins at once; c1 lets b take b1 and win


# `a` to move on a row of four, `b` holding a1: b wins on its reply by b1 unless `a` takes it.
# No move of `a` wins or changes material or mobility, so greedy picks among the three by chance;
# two plies see that b1 is the only move that does not lose at once.
TRAP = stage("""
    board rect 1 4
    players a b
    setup b a1
    move place empty
    end line 2: mover wins
    end board-full: draw
""")


def test_search_sees_the_answer_that_greedy_does_not():
    game = compiler.compile(TRAP)
    search = game.games(40, seed=2, policies=("search", "greedy"))
    greedy = game.games(40, seed=2, policies=("greedy", "greedy"))
    assert (search.winners == 1).sum() == 0
    assert (greedy.winners == 1).sum() > 15  # about 2/3 of 40


def test_monte_carlo_takes_a_win_at_once():
    game = compiler.compile(ONE_WINNING_MOVE)
    played = game.games(40, seed=1, policies=("mc", "random"), samples=1)
    assert (played.winners == 0).all() and (played.lengths == 1).all()


HEX_5 = stage("""
    board hex 5
    players a b
    move place empty
    end connect top-bottom left-right: mover wins
""")


def test_monte_carlo_sees_a_connection_that_material_does_not():
    game = compiler.compile(HEX_5)

    def score(policy):  # against random, 50 games in each seat
        ahead = game.games(50, 3, (policy, "random"))
        behind = game.games(50, 3, ("random", policy), first_game=50)
        return ((ahead.winners == 0).sum() + (behind.winners == 1).sum()) / 100

    assert score("mc") >= 0.85 and score("mc") > score("greedy") + 0.1


def test_unknown_policy_and_no_samples_are_refused():
    game = compiler.compile(ONE_WINNING_MOVE)
    with pytest.raises(ValueError, match="two policies"):
        game.games(1, policies=("random", "minimax"))
    with pytest.raises(ValueError, match="samples"):
        game.games(1, policies=("mc", "random"), samples=0)


def test_tau_is_the_mean_over_its_games():
    assert cost.tau([2.0] * cost.TAU_GAMES + [1e9]) == 2.0
    with pytest.raises(ValueError):
        cost.tau([1.0])
    assert cost.levin_k(10.0, 8.0) == 13.0
