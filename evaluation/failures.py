"""Games lost other than by play, per agent: by time, by a crash (an exception, a dead process, a
broken protocol, too many processes), by illegal moves (the third in a game), or with no strategy
(the analysis failed); and the illegal moves that were replaced without losing the game. Every
leaderboard shows them; an agent that lost more than WARN_SHARE of its games that way is named in a
warning with its most frequent reasons, each with the first line that says what went wrong and the
agent file's line it happened at.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from ..runtime.leaderboard import FORFEITS

WARN_SHARE = 0.10
KINDS = FORFEITS  # the reasons a game is lost other than by play, as every leaderboard counts them
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


@dataclass
class Failures:
    agent: str
    games: int = 0
    lost: Counter = field(default_factory=Counter)  # kind → games lost that way
    illegal_moves: int = 0  # replaced by a random legal move (the first two in a game)
    examples: dict[str, Counter] = field(default_factory=dict)  # kind → Counter of one-line reasons

    @property
    def forfeits(self) -> int:
        return sum(self.lost.values())

    @property
    def share(self) -> float:
        return self.forfeits / self.games if self.games else 0.0

    def top_reasons(self, n: int = 3) -> list[tuple[str, str, int]]:
        """(kind, reason, games) of the most frequent reasons."""
        found = [(kind, why, k) for kind, reasons in self.examples.items() for why, k in reasons.items()]
        return sorted(found, key=lambda item: (-item[2], item[0], item[1]))[:n]


def where(detail: str) -> str:
    """The first line of what went wrong, and the last frame of the traceback (file and line)."""
    text = (detail or "").strip()
    if not text:
        return "no detail"
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    last = lines[-1][:200]
    frames = _FRAME.findall(text)
    if frames:
        file, line = frames[-1]
        return f"{last} ({file.rsplit('/', 1)[-1]}, line {line})"
    return last


def tally(games: list[dict], analyses: list[dict], agents: list[str]) -> dict[str, Failures]:
    """Failures per agent from the results store's rows."""
    table = {a: Failures(a) for a in agents}
    why_no_strategy = {}
    for a in analyses:  # the last failed analysis of an agent on a stage says why it had no strategy
        if not a["ok"]:
            why_no_strategy[(a["stage_hash"], a["agent"])] = where(a["detail"] or a["failure"] or "")
    for g in games:
        seats = (g["black"], g["white"])
        illegal = json.loads(g["illegal"])
        for p, name in enumerate(seats):
            f = table.setdefault(name, Failures(name))
            f.games += 1
            if g["reason"] in KINDS and (g["winner"] == 1 - p or g["result"] == "none"):  # this seat forfeited
                f.lost[g["reason"]] += 1
                if g["reason"] == "no-strategy":
                    reason = why_no_strategy.get((g["stage_hash"], name), "its analysis failed")
                else:
                    reason = where(g["detail"]) if g["detail"] else _penalty(g, name)
                f.examples.setdefault(g["reason"], Counter())[reason] += 1
                f.illegal_moves += max(0, illegal[p] - (1 if g["reason"] == "illegal" else 0))
            else:
                f.illegal_moves += illegal[p]
    return table


def _penalty(game: dict, name: str) -> str:
    """The referee's line about this seat's forfeit ("Black (NAME) ..."; the lines about replaced
    illegal moves start with the name and are not it)."""
    for line in json.loads(game["penalties"]):
        if f"({name})" in line:
            return line[:200]
    return game["reason"]


def warnings(table: dict[str, Failures], share: float = WARN_SHARE) -> list[str]:
    """One line per agent over `share` of its games lost by forfeit, with its top reasons."""
    out = []
    for f in sorted(table.values(), key=lambda f: -f.share):
        if f.games and f.share > share:
            reasons = "; ".join(f"{kind} ×{k}: {why}" for kind, why, k in f.top_reasons())
            out.append(f"{f.agent} lost {f.forfeits} of its {f.games} games ({100 * f.share:.0f}%) by forfeit — "
                       f"{reasons}")
    return out
