"""Leaderboards as the Othello AI Arena shows them: Rank, Strategy, Win Rate (draws count half,
percent with one decimal), W, L, D, G; sorted by win rate, then wins, then name. One column more
than the Arena's: the games lost other than by play — by time, crash, illegal moves, no strategy
(t/c/i/n) — so that a failing agent is never hidden behind its win rate.

A game both seats forfeited (neither had a strategy) is a loss for both.
"""
from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field

FORFEITS = ("time", "crash", "illegal", "no-strategy")


@dataclass
class Standing:
    name: str
    wins: int = 0
    losses: int = 0
    draws: int = 0
    forfeits: dict[str, int] = field(default_factory=dict)  # reason → games lost that way (FORFEITS)

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def win_rate(self) -> float:
        return 100.0 * (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


def standings(games: list[dict], entrants: Sequence[str] = ()) -> list[Standing]:
    """The sorted leaderboard of games (rows of the results store: black, white, result)."""
    table = {name: Standing(name) for name in entrants}
    for g in games:
        black, white = (table.setdefault(n, Standing(n)) for n in (g["black"], g["white"]))
        result = g["result"]
        losers: tuple[Standing, ...]
        if result == "black":
            black.wins, white.losses = black.wins + 1, white.losses + 1
            losers = (white,)
        elif result == "white":
            white.wins, black.losses = white.wins + 1, black.losses + 1
            losers = (black,)
        elif result == "draw":
            black.draws, white.draws = black.draws + 1, white.draws + 1
            losers = ()
        else:  # "none": both forfeited
            black.losses, white.losses = black.losses + 1, white.losses + 1
            losers = (black, white)
        reason = g.get("reason", "normal")
        if reason in FORFEITS:
            for s in losers:
                s.forfeits[reason] = s.forfeits.get(reason, 0) + 1
    return sorted(table.values(), key=lambda s: (-round(s.win_rate, 6), -s.wins, s.name))


def rows(board: list[Standing]) -> list[tuple[str, ...]]:
    """(Rank, Strategy, Win Rate, W, L, D, G) as text; entrants equal in win rate (as shown) and wins
    share a rank (1, 2, 2, 4)."""
    key = [(f"{s.win_rate:.1f}", s.wins) for s in board]
    return [(str(key.index(key[i]) + 1), s.name, f"{s.win_rate:.1f}%", str(s.wins), str(s.losses), str(s.draws),
             str(s.games), "/".join(str(s.forfeits.get(k, 0)) for k in FORFEITS)) for i, s in enumerate(board)]


HEADER = ("Rank", "Strategy", "Win Rate", "W", "L", "D", "G", "Lost t/c/i/n")


def markdown(title: str, board: list[Standing]) -> str:
    lines = [f"## {_cell(title)}", "", "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(map(_cell, r)) + " |" for r in rows(board)]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """Text as Markdown shows it, not as it obeys it: a `|` would end the cell, and markdown
    viewers render HTML."""
    return html.escape(text, quote=False).replace("|", "\\|")
