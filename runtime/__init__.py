"""The runtime: time-limited "analyse, then play" episodes for agents, sandboxed and logged.

    spec = runtime.resolve("positional")             # a built-in by name, or a path to an agent file
    boards = runtime.run_tournament([stage_path], [spec, runtime.resolve("random")], Path("out"),
                                    runtime.Options(games=2, analysis_time=10, game_time=5))

A run folder is a runtime.Run (runtime/run.py): it opens and holds the folder, checks or resumes
the run, reads its settings back from the store and plays StagePlans, with Hooks for progress.
The agent contract (StageView, RulesApi, Clock) is in runtime/api.py and runtime/clock.py; the
rules a referee applies in runtime/referee.py; how agents are isolated and charged in
runtime/jail.py (the sandbox's world), runtime/seccomp.py, runtime/limits.py and runtime/sandbox.py.
A person plays as a HumanSeat fed by a move source (runtime/human.py); a game is watched live
through `play_game(..., on_ply=...)` or `Hooks(on_ply=...)`, shown a referee Moment after each ply.
"""
from .api import Rules, RulesApi, StageView, stage_view
from .clock import Clock
from .entrants import AgentSpec, builtins, resolve
from .human import HUMAN, HUMAN_TIME, HumanSeat, MoveSource, TerminalSource, Turn
from .leaderboard import Standing, standings
from .plans import Options, StagePlan
from .referee import GameRecord, Moment, play_game
from .run import Hooks, Run
from .runfolder import RunMismatch
from .tournament import run as run_tournament

__all__ = ["Rules", "RulesApi", "StageView", "stage_view", "Clock", "AgentSpec", "builtins", "resolve", "HUMAN",
           "HUMAN_TIME", "HumanSeat", "MoveSource", "TerminalSource", "Turn", "Standing", "standings", "GameRecord",
           "Moment", "play_game", "Options", "StagePlan", "Run", "Hooks", "RunMismatch", "run_tournament"]
