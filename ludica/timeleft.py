"""A run's time left, as its progress says it: at the pace of this session's games, bound by what
will actually be played. --max-stages bounds the games counted (the caller counts only the
stages the run will play: evaluation/evaluate.py's on_plan), --max-time the time (no stage starts
after it, and the stages in hand finish), and --until-separated makes the estimate an upper bound
(the run may stop after any unseen stage).

    seconds_left(elapsed=60, played=30, left=300)                                 # 600.0
    seconds_left(elapsed=60, played=30, left=300, in_hand=10, since_start=60, limits=Limits(max_time=120))
                                                                                  # 80.0: 60 s to the limit, 10 games in hand

(ludica/terminal.py's PlainProgress says it, in plain lines and in the progress bar's column.)
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """The stopping rules that bound the time left (evaluation.Stopping's, as the estimate needs them)."""

    max_time: float | None = None  # seconds from the start of play after which no stage starts
    until_separated: bool = False  # the run may stop after any unseen stage


def seconds_left(elapsed: float, played: int, left: int, *, in_hand: int = 0, since_start: float = 0.0,
                 limits: Limits = Limits()) -> float | None:
    """Seconds until the run ends at this session's pace (`elapsed` seconds for `played` games),
    with `left` games still to play, `in_hand` of them on stages begun (they finish even after
    --max-time), `since_start` seconds since play began (--max-time's clock); None before any pace
    is known."""
    if played <= 0 or elapsed <= 0:
        return None
    pace = elapsed / played
    estimate = pace * max(left, 0)
    if limits.max_time is not None:
        estimate = min(estimate, max(limits.max_time - since_start, 0.0) + pace * min(max(in_hand, 0), left))
    return estimate

