"""The default time budgets of every way ludica plays games, in one table: each command's parser
(ludica/arguments.py), the library's Options (runtime/plans.py) and serve's Play form (web/play.py)
read them here, and the README's table "Time budgets" says the same (tests/test_docs.py checks it).

The budgets are CPU seconds of the agent's own process: its analysis of a stage before its games,
and its moves in one game together. They differ by what the command is for."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BUDGETS", "Budgets", "budget_help"]


@dataclass(frozen=True)
class Budgets:
    """A way of playing's default budgets, CPU seconds, and why they are so."""
    analysis_time: float  # each agent's analysis of a stage, before its games there
    game_time: float  # each agent's moves in one game, together
    why: str


BUDGETS = {
    "tournament": Budgets(60.0, 10.0, "the Othello AI Arena's budgets; also the Python API's (Options)"),
    "play": Budgets(10.0, 10.0, "one game to watch or play, with a short wait before its first move"),
    "evaluate": Budgets(2.0, 0.5, "420 games on 6 stages: a first run in about two minutes; raise both for "
                                  "ratings that reward deeper analysis and search"),
    "demo": Budgets(2.0, 2.0, "a first look at the built-in agents in a few minutes"),
    "serve Play page": Budgets(1.0, 10.0, "a person waits for the agent's analysis before the game starts"),
}


def budget_help(command: str) -> tuple[str, str]:
    """The --help of --analysis-time and --game-time of `ludica COMMAND`: the same words in every
    command, with its own defaults."""
    b = BUDGETS[command]
    return (f"analysis budget per agent and stage, CPU seconds (default {b.analysis_time:g} for `ludica {command}`: "
            f"{b.why}; README: Time budgets)",
            f"cumulative move time per game, CPU seconds (default {b.game_time:g} for `ludica {command}`; README: "
            f"Time budgets)")
