"""What an agent sees of a stage: `StageView` (what the Arena shows, not the rules) and `RulesApi`
(the only window on the rules: simulate, never read).

States are opaque values (read-only int32 arrays of the compiled game) that an agent may keep,
copy and pass back; moves are `Move` values (hashable; `str(move)` is `d3`, `b2-b3` or `pass`),
and every method that takes a move also takes its text.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..compiler.game import CompiledGame, Playouts, as_state
from ..gdl.ast import HexBoard
from ..gdl.game import Move
from . import metrics


@dataclass(frozen=True)
class StageView:
    """The stage as the Arena shows it to a system under test.

    name, rows, cols; shape: "square" or "hex"; blocked: the blocked cells as (row, col), row 0 at
    the top; players: names in turn order (players[0] is black, the first seat); initial_state;
    legal_first_moves; description: the stage's .gdl text in GGP mode (rules revealed), else None.
    """

    name: str
    rows: int
    cols: int
    shape: str
    blocked: tuple[tuple[int, int], ...]
    players: tuple[str, ...]
    initial_state: Any
    legal_first_moves: tuple[Move, ...]
    description: str | None = None


def stage_view(game: CompiledGame, description: str | None = None) -> StageView:
    start = game.initial_state()
    board = game.board(start)
    return StageView(name=game.stage.name, rows=game.rows, cols=game.cols,
                     shape="hex" if isinstance(game.stage.board, HexBoard) else "square",
                     blocked=tuple((int(r), int(c)) for r, c in zip(*np.nonzero(board < 0))),
                     players=game.players, initial_state=start, legal_first_moves=tuple(game.legal_moves(start)),
                     description=description)


def seat(player) -> int:
    """A player's index, 0 or 1 (ValueError otherwise; TypeError for what is not an integer)."""
    player = operator.index(player)
    if player not in (0, 1):
        raise ValueError(f"player {player}: the players are 0 (who moves first) and 1")
    return player


def count_and_seed(n, seed) -> tuple[int, int]:
    """Integers, and a seed of 64 bits (the kernels' generators take one)."""
    n, seed = operator.index(n), operator.index(seed)
    if not -1 << 63 <= seed < 1 << 63:
        raise ValueError(f"seed {seed}: a seed is an integer of 64 bits")
    return n, seed


class RulesApi:
    """Simulation of the stage's true rules, for the agent's analysis and play."""

    def __init__(self, game: CompiledGame):
        self._game = game
        self._shape = metrics.shape_classes(game)

    def _move(self, move: Move | str) -> Move:
        return move if isinstance(move, Move) else self._game.parse_move(str(move))

    def legal_moves(self, state) -> list[Move]:
        """The moves of the side to move, in the stage's order (a forced pass is the one move `pass`)."""
        return self._game.legal_moves(state)

    def apply(self, state, move: Move | str) -> tuple[Any, int]:
        """(the state after `move`, the number of pieces it captured or flipped). ValueError if illegal."""
        return self._game.apply_counted(state, self._move(move))

    def legal_actions(self, state) -> list[int]:
        """The legal moves as integers, in the order of legal_moves (cheaper than Move objects, for a
        search from Python); move_of and action_of translate."""
        return self._game.legal_actions(state)

    def apply_action(self, state, action: int) -> tuple[Any, int]:
        """(the state after the legal action, the number of pieces it captured or flipped)."""
        return self._game.apply_action_counted(state, action)

    def move_of(self, action: int) -> Move:
        return self._game.move_of(action)

    def action_of(self, move: Move | str) -> int:
        return self._game.action_of(self._move(move))

    def to_move(self, state) -> int:
        """Index in stage.players of the side to move."""
        return self._game.to_move(state)

    def is_terminal(self, state) -> bool:
        return self._game.is_terminal(state)

    def returns(self, state) -> tuple[float, float]:
        """Per player: +1 win, -1 loss, 0 draw (or game not over)."""
        return self._game.returns(state)

    def board(self, state) -> np.ndarray:
        """rows × cols int array: 0 empty, 1.. the players' pieces, -1 blocked."""
        return self._game.board(state)

    def evaluate(self, state, player: int) -> dict[str, float]:
        """The Arena's evaluateBoard: piece, mobility, corner, edge and total (runtime/metrics.py)."""
        return metrics.evaluate(self._game, as_state(state), seat(player), self._shape).as_dict()

    def playouts(self, state, n: int, seed: int = 0) -> Playouts:
        """`n` random games from `state` inside the kernel: `.lengths` and `.returns` (n × players)."""
        n, seed = count_and_seed(n, seed)
        return self._game.playouts(n, seed=seed, state=state)

    def parse_move(self, text: str) -> Move:
        return self._game.parse_move(text)


def compiled(text: str, reveal: bool) -> tuple[CompiledGame, StageView]:
    """A stage's text compiled, its kernels warmed (loaded before a lock-down, see `warm`), and
    the view an agent gets (the text too in GGP mode, `reveal`): what a worker, or its rules
    oracle, does before it locks itself down."""
    from ..compiler import compile as compile_stage
    from ..gdl import loads

    game = compile_stage(loads(text))
    view = stage_view(game, text if reveal else None)
    warm(RulesApi(game), view.initial_state)
    return game, view


def warm(api: RulesApi, start) -> None:
    """Call every API operation once, on read-only states (as the API gives) and on writeable
    copies (numba compiles each kind apart), so no kernel is compiled after the lockdown."""
    for state in (start, start.copy()):
        moves = api.legal_moves(state)
        if moves:
            api.apply(state, moves[0])
        api.is_terminal(state), api.returns(state), api.board(state), api.to_move(state)
        api.evaluate(state, 0)
        api.playouts(state, 2, seed=0)
