"""The time left a run's progress says (issue 38): at this session's pace, bound by --max-time (no
stage starts after it; the stages in hand finish) and said as an upper bound with
--until-separated. (--max-stages bounds the games counted: test_secret_draws.py runs one.)"""
from __future__ import annotations

from ludica.terminal import PlainProgress
from ludica.timeleft import Limits, seconds_left


def test_the_pace_alone_without_limits():
    assert seconds_left(60, 30, 300) == 600
    assert seconds_left(0, 0, 300) is None  # no game yet: no pace


def test_max_time_bounds_the_estimate_by_the_time_to_the_limit_and_the_stages_in_hand():
    limits = Limits(max_time=120)
    # 2 s a game, 300 games left (600 s), but 60 s to the limit and 10 games in hand: 80 s
    assert seconds_left(60, 30, 300, in_hand=10, since_start=60, limits=limits) == 80
    assert seconds_left(60, 30, 300, in_hand=10, since_start=200, limits=limits) == 20  # past it: the stages in hand
    assert seconds_left(60, 30, 5, in_hand=5, since_start=60, limits=limits) == 10  # the pace ends it sooner


def test_the_progress_says_the_bound_estimate_and_an_upper_bound_with_until_separated():
    # 2 s for the first game, 99 games left (198 s), 9 of them on the stage in hand
    for limits, left in ((Limits(), "about 3:18 left"), (Limits(until_separated=True), "at most about 3:18 left"),
                         (Limits(max_time=30), "about 46.0 s left")):  # 28 s to the limit + 9 games in hand
        now = [0.0]
        progress = PlainProgress(say=lambda line: None, now=lambda clock=now: clock[0], limits=limits)
        progress.plan(100, 100)
        progress.stage("s", 10)
        now[0] = 2.0
        progress.game("s")
        assert progress.left() == left
        assert left in progress.line("s: 1 of 10 games")
