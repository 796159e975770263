"""ludica: board games as short text files, compiled to fast kernels, to measure how fast
intelligent systems adapt to games they have never seen.

The public API, by stage of the pipeline (each name is its package's own, imported on first use,
so `import ludica` loads no compiler):

    stages as text   ludica.load, loads, parse, format, check, description_length, Stage, Move
    compiled games   ludica.compile, kind, CompiledGame, GameInfo
    agents and runs  ludica.Rules, RulesApi, Clock, resolve, play_game, Options, StagePlan, Run, Hooks
    unseen stages    ludica.variants, fresh, Spec, Filters
    evaluation       ludica.rate, Ratings, summarise, write_report
    errors           ludica.LudicaError (every error ludica raises on purpose), StageError,
                     IllegalMoveError

    >>> import ludica
    >>> game = ludica.compile(ludica.load(ludica.stages.path("tic-tac-toe")))
    >>> game.legal_moves(game.initial_state())[:3]
    [a1, b1, c1]
"""
from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ludica")
except PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0+unknown"

_FROM = {
    "ludica.gdl": ("load", "loads", "parse", "format", "check", "description_length", "Stage", "Move",
                   "LudicaError", "StageError", "IllegalMoveError"),
    "ludica.compiler": ("compile", "kind", "CompiledGame", "GameInfo"),
    "ludica.runtime": ("Rules", "RulesApi", "Clock", "resolve", "play_game", "Options", "StagePlan", "Run",
                       "Hooks"),
    "ludica.sampler": ("variants", "fresh", "Spec", "Filters"),
    "ludica.evaluation": ("rate", "Ratings", "summarise", "write_report"),
}
_WHERE = {name: package for package, names in _FROM.items() for name in names}
_PACKAGES = ("gdl", "compiler", "runtime", "sampler", "evaluation", "stages")

__all__ = ["__version__", *_WHERE, *_PACKAGES]


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
    elif name in _PACKAGES:
        value = importlib.import_module(f"ludica.{name}")
    else:
        raise AttributeError(f"module 'ludica' has no attribute {name!r}")
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
