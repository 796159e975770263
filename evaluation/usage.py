"""What the language-model agents of a run used (runtime/models): tokens, calls, answers asked for,
latency and cost, in their analyses and their games, from the results store's rows (an analysis's
`usage`, a game's per-seat `usage` and per-ply `ply_usage`)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

# the figures summed (runtime/models/seat.py, Usage)
COUNTED = ("tokens_in", "tokens_out", "calls", "attempts", "retries", "latency", "waited", "tool_calls", "requests",
           "cost")


def _sum(into: dict, usage: dict) -> None:
    if "requests" not in usage:  # a run made before requests were counted: those answered and sent again
        usage = dict(usage, requests=(usage.get("calls") or 0) + (usage.get("retries") or 0))
    for key in COUNTED:
        value = usage.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            into[key] = into.get(key, 0) + value
        elif key == "cost":  # no prices: no cost, whatever else was counted
            into.setdefault("cost_unknown", True)


@dataclass
class ModelUsage:
    """One model agent's totals: `analysis` over its analyses, `games` over its games (failed moves
    included), `moves` its answered moves."""

    agent: str
    analyses: int = 0
    analysis: dict = field(default_factory=dict)
    games: int = 0
    game: dict = field(default_factory=dict)
    moves: int = 0

    @property
    def requests(self) -> int:
        """Every chat request sent for it, in its analyses and its games."""
        return self.analysis.get("requests", 0) + self.game.get("requests", 0)

    @property
    def cost(self) -> float | None:
        if self.analysis.get("cost_unknown") or self.game.get("cost_unknown"):
            return None
        return self.analysis.get("cost", 0.0) + self.game.get("cost", 0.0)


def model_usage(games: list[dict], analyses: list[dict]) -> list[ModelUsage]:
    """Per language-model agent (the agents whose rows hold usage), in the order first seen."""
    found: dict[str, ModelUsage] = {}
    for row in analyses:
        usage = json.loads(row.get("usage") or "null")
        if isinstance(usage, dict):
            mine = found.setdefault(row["agent"], ModelUsage(row["agent"]))
            mine.analyses += 1
            _sum(mine.analysis, usage)
    for row in games:
        seats = json.loads(row.get("usage") or "null")
        if not isinstance(seats, list):
            continue
        answered = [player for _, player, _ in json.loads(row.get("ply_usage") or "[]")]
        for seat, (name, usage) in enumerate(zip((row["black"], row["white"]), seats)):
            if isinstance(usage, dict):
                mine = found.setdefault(name, ModelUsage(name))
                mine.games += 1
                mine.moves += answered.count(seat)
                _sum(mine.game, usage)
    return list(found.values())
