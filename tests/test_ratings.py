"""Rating maths on constructed games (evaluation/ratings.py, evaluation/views.py): a known order is
recovered, a clean sweep stays finite, intervals shrink with more games, draws count half, stages
weigh equally; the secondary views on hand-checked cases."""
from __future__ import annotations

import math
import random

import pytest

from ludica.evaluation import Outcome, online_elo, rate, shared_ranks, unified_score
from ludica.evaluation.ratings import ELO_PER_NAT, points


def simulated(strength: dict[str, float], stages: int, games: int, seed: int = 1) -> list[Outcome]:
    """Round robins where P(i beats j) = 1 / (1 + exp(θj − θi)), `games` per seating per stage."""
    rng = random.Random(seed)
    out = []
    for s in range(stages):
        for b in strength:
            for w in strength:
                if b != w:
                    for _ in range(games):
                        p = 1.0 / (1.0 + math.exp(strength[w] - strength[b]))
                        out.append(Outcome(f"stage-{s}", b, w, 1.0 if rng.random() < p else 0.0))
    return out


STRENGTH = {"random": 0.0, "weak": 0.8, "middle": 1.6, "strong": 2.4}


def test_a_known_order_is_recovered_with_the_right_gaps():
    ratings = rate(simulated(STRENGTH, stages=6, games=8), resamples=200)
    assert [r.name for r in ratings.ratings] == ["strong", "middle", "weak", "random"]
    by = ratings.by_name()
    assert by["random"].elo == pytest.approx(1000.0)
    for name, theta in STRENGTH.items():
        true = 1000.0 + theta * ELO_PER_NAT
        assert by[name].low - 1.0 <= true <= by[name].high + 1.0, (name, true, by[name])
    assert [r.rank for r in ratings.ratings] == [1, 2, 3, 4]
    assert by["strong"].rank_probabilities[0] > 0.9


def test_a_clean_sweep_gets_a_finite_rating():
    games = [Outcome("s", "sweeper", "random", 1.0)] * 10 + [Outcome("s", "random", "sweeper", 0.0)] * 10
    by = rate(games, resamples=50).by_name()
    assert math.isfinite(by["sweeper"].elo) and 1400 < by["sweeper"].elo < 2000
    assert by["sweeper"].high < math.inf


def test_intervals_shrink_as_games_are_added():
    def width(games_per_seating: int) -> float:
        by = rate(simulated(STRENGTH, stages=4, games=games_per_seating, seed=7), resamples=300).by_name()
        return by["middle"].high - by["middle"].low

    assert width(32) < 0.6 * width(4)


def test_draws_count_half_a_win_each_way():
    drawn = [Outcome("s", "a", "b", 0.5), Outcome("s", "b", "a", 0.5)]
    split = [Outcome("s", "a", "b", 1.0), Outcome("s", "b", "a", 1.0)]
    assert (points(drawn, ["a", "b"]) == points(split, ["a", "b"])).all()
    by = rate(drawn * 5, anchor="a", resamples=20).by_name()
    assert by["b"].elo == pytest.approx(1000.0, abs=1e-6)
    assert by["a"].score == by["b"].score == 0.5


def test_each_stage_weighs_the_same_however_many_games_it_holds():
    many = [Outcome("busy", "a", "b", 1.0)] * 100 + [Outcome("busy", "b", "a", 0.0)] * 100
    few = [Outcome("quiet", "a", "b", 0.0)] * 5 + [Outcome("quiet", "b", "a", 1.0)] * 5
    even = rate(many + few, anchor="b", resamples=0).by_name()
    assert even["a"].elo == pytest.approx(1000.0, abs=1e-6)  # one stage each way: equal
    by_games = rate(many + few, anchor="b", resamples=0, equal_stages=False).by_name()
    assert by_games["a"].elo > 1300


def test_single_game_cells_are_pooled_so_intervals_do_not_collapse():
    games = simulated(STRENGTH, stages=10, games=1, seed=3)
    ratings = rate(games, resamples=200)
    assert "pairings across stages" in ratings.strata
    middle = ratings.by_name()["middle"]
    assert middle.high - middle.low > 50


def test_rank_probabilities_are_distributions():
    ratings = rate(simulated({"random": 0, "a": 0.1, "b": 0.2}, stages=2, games=2), resamples=100)
    for r in ratings.ratings:
        assert sum(r.rank_probabilities) == pytest.approx(1.0)
    for k in range(3):
        assert sum(r.rank_probabilities[k] for r in ratings.ratings) == pytest.approx(1.0)


def test_the_pairwise_matrix_holds_the_raw_scores():
    games = [Outcome("s", "a", "b", 1.0), Outcome("s", "b", "a", 0.5), Outcome("t", "a", "b", 0.0)]
    matrix = rate(games, resamples=0).matrix
    assert matrix["a"]["b"] == (1.5, 3) and matrix["b"]["a"] == (1.5, 3)


def test_without_random_the_mean_is_1000_and_it_says_so():
    ratings = rate([Outcome("s", "a", "b", 1.0)] * 3, resamples=0)
    assert sum(r.elo for r in ratings.ratings) / 2 == pytest.approx(1000.0)
    assert ratings.anchor == "mean" and ratings.notes


def test_equal_scores_share_a_rank():
    assert shared_ranks([1500.0, 1200.04, 1200.0, 900.0]) == [1, 2, 2, 4]


def test_online_elo_moves_by_k_times_the_surprise():
    elo = online_elo([Outcome("s", "a", "b", 1.0)], ["a", "b"])
    assert elo == {"a": 1216.0, "b": 1184.0}
    elo = online_elo([Outcome("s", "a", "b", 1.0), Outcome("s", "b", "a", 0.5)], ["a", "b"])
    assert elo["a"] + elo["b"] == pytest.approx(2400.0) and elo["a"] < 1216.0


def test_the_unified_score_counts_only_what_is_above_1000():
    per_stage = {"s": {"a": 1300.0, "b": 900.0}, "t": {"a": 1100.0, "b": 1050.0}}
    assert unified_score(per_stage, ["a", "b"]) == {"a": 200.0, "b": 25.0}
