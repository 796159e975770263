"""The formats: which games of a stage are the format's own (those the ratings and the metrics read).

`round-robin`: every ordered pair of entrants, baselines included. `gauntlet`: only pairs with at
least one submitted agent (the baselines' games among themselves are not what a participant waits
for; a field of baselines alone plays them all, as the format's games). summary.split_games reads a
run's games by these pairs too. Each pair plays `games` games per seating on every
stage, so every stage of a run plans the same number of them: a stage's share of them played is how
far along it is (ratings.rate's `planned`).
"""
from __future__ import annotations

from ..runtime.plans import round_robin

FORMATS = ("round-robin", "gauntlet")


def pairs(names: list[str], baselines: set[str], format: str) -> tuple[tuple[str, str], ...]:
    """The ordered pairs (black, white) the format plays on each stage."""
    everyone = round_robin(names)
    if format == "round-robin" or all(n in baselines for n in names):
        return everyone
    return tuple((b, w) for b, w in everyone if b not in baselines or w not in baselines)


def games_per_stage(names: list[str], baselines: set[str], format: str, games: int) -> int:
    """How many of the format's games each stage plans."""
    return len(pairs(names, baselines, format)) * games
