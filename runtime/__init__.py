"""The runtime: time-limited "analyse, then play" episodes for agents, sandboxed and logged.

    spec = runtime.resolve("positional")             # a built-in by name, or a path to an agent file
    boards = runtime.run_tournament([stage_path], [spec, runtime.resolve("random")], Path("out"),
                                    runtime.Options(games=2, analysis_time=10, game_time=5))

The agent contract (StageView, RulesApi, Clock) is in runtime/api.py and runtime/clock.py; the
rules a referee applies in runtime/referee.py; how agents are isolated and charged in
runtime/jail.py (the sandbox's world), runtime/seccomp.py, runtime/limits.py and runtime/sandbox.py.
"""
from .api import RulesApi, StageView, stage_view
from .clock import Clock
from .entrants import AgentSpec, builtins, resolve
from .leaderboard import Standing, standings
from .referee import GameRecord, play_game
from .tournament import Options, RunMismatch
from .tournament import run as run_tournament

__all__ = ["RulesApi", "StageView", "stage_view", "Clock", "AgentSpec", "builtins", "resolve", "Standing",
           "standings", "GameRecord", "play_game", "Options", "RunMismatch", "run_tournament"]
