"""The compiler: stages become numba kernels with the Game contract of the reference interpreter.

    game = compiler.compile(stage)
    game.legal_moves(game.initial_state())           # same moves, same order as gdl.reference
    game.playouts(10_000, seed=1, threads=2)          # random games inside the kernel
    game.perft(8)                                     # move-tree leaves, inside the kernel
    game.solve(100_000)                               # exact value, for a game of ≤ 100,000 positions
    compiler.kind(stage)                              # "othello", "placement", "pieces" or "generic"
    game.info.max_length                              # the game's information as data (info.py)

A stage is a value (a frozen, hashable AST), so `compile` keeps the games it made: a stage compiles
once per process, however many parts of a run ask for it. The key is the Stage itself: its hash
mixes in each node's class and leaves out source spans (gdl/ast.py), so two files with the same
rules share a game, and hashing a stage costs microseconds where compiling it costs milliseconds.
`CompiledGame(stage)` makes a private game, for a caller that changes it.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..gdl.ast import Stage
from ..gdl.recent import Recent
from . import families
from .dark import CompiledDarkGame
from .game import CompiledGame, Games, Playouts, Solution
from .info import GameInfo
from .played import PlayedGame
from .program import Program, build

# Games kept at once: an evaluation has up to a few hundred stages (each compiled once while it
# is kept); the sampler compiles thousands of candidates once each, and the oldest are let go. A
# game's tables take ~60 KiB for 8x8 Othello, ~0.6 MiB for 15x15 Gomoku.
KEPT = 256


@lru_cache(maxsize=KEPT)
def compile(stage: Stage) -> CompiledGame:
    """The compiled game of a stage, shared within the process (compiled on first use)."""
    return CompiledGame(stage, lowered=_LOWERED.pop(stage, None))


# Programs `kind` lowered, handed to the stage's compile (a run names every stage's kind while it
# warms up, then compiles each): a stage is lowered once. Each is used by one game, then let go;
# the oldest go first (a lowered 15x15 Gomoku is ~0.6 MiB).
_LOWERED: Recent[Stage, tuple[Program, np.ndarray]] = Recent(64)


@lru_cache(maxsize=4096)
def kind(stage: Stage) -> str:
    """The name of the kernels that play `stage` (its family's, or "generic"), read from its
    lowered program without compiling it (a valid stage: one gdl.load accepted)."""
    stage = stage.without_information()  # a hidden stage's kernels are its true game's
    lowered = build(stage)
    family, _ = families.select(lowered[0])
    _LOWERED.put(stage, lowered)
    return family.NAME if family is not None else "generic"


@lru_cache(maxsize=KEPT)
def compile_dark(stage: Stage) -> CompiledDarkGame:
    """The game of a stage with hidden information (compiler/dark.py): the referee's tries, the true
    game's kernels, random games of tries; shared within the process as `compile`'s."""
    return CompiledDarkGame(stage)


def playable(stage: Stage) -> PlayedGame:
    """The game the referee plays on any stage: `compile`'s, or `compile_dark`'s for a stage with a
    `hidden` line. Both offer the Game contract, `position` (the truth) and `information` (what a
    player is given)."""
    return compile_dark(stage) if stage.hidden is not None else compile(stage)


__all__ = ["compile", "compile_dark", "playable", "kind", "CompiledDarkGame", "CompiledGame", "PlayedGame", "GameInfo", "Games", "Playouts",
           "Solution"]
