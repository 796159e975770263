"""The game the referee plays on any stage (compiler.playable): CompiledGame, whose states are the
positions, or CompiledDarkGame, whose states are DarkState values that only the referee holds. What
the referee, the report's replays and the agents' API ask of either, beyond the Game contract
(gdl/game.py), states left opaque."""
from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ..gdl.ending import Ending
from ..gdl.game import Game
from .info import GameInfo


class PlayedGame(Game, Protocol):
    name: str

    @property
    def info(self) -> GameInfo: ...
    def winner(self, state: Any) -> int | None: ...
    def ending(self, state: Any) -> Ending: ...
    def neighbours(self) -> np.ndarray: ...
    def forget_stage(self) -> None: ...

    def start(self, seed: int, number: int = 0) -> Any:
        """The start of game `number` of `seed` (drawn, on a stage with a random start)."""
        ...

    def thrown(self, state: Any, seed: int, number: int = 0) -> Any:
        """`state` with the referee's roll for its ply of game `number` of `seed` (itself without dice)."""
        ...

    def position(self, state: Any) -> np.ndarray:
        """The true position, as the kernels hold it (the referee's and a spectator's alone)."""
        ...

    def information(self, state: Any, player: int) -> np.ndarray:
        """What `player` is given of a state (a position, or an information state)."""
        ...
