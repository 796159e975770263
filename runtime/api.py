"""What an agent sees of a stage: `StageView` (what the Arena shows, not the rules) and `Rules`
(the only window on the rules: simulate, never read), declared as a protocol and implemented here
in-process by `RulesApi` (and by the rules oracle's client, runtime/oracle/client.py).

States are opaque values (read-only int32 arrays of the compiled game) that an agent may keep,
copy and pass back; moves are `Move` values (hashable; `str(move)` is `d3`, `b2-b3` or `pass`),
and every method that takes a move also takes its text.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..compiler import CompiledGame, Playouts
from ..compiler.layout import as_state
from ..gdl.game import Move
from . import metrics


@dataclass(frozen=True)
class StageView:
    """The stage as the Arena shows it to a system under test.

    name, rows, cols; shape: "square" or "hex"; blocked: the blocked cells as (row, col), row 0 at
    the top; players: names in turn order (players[0] is black, the first seat); action_bound:
    every action (`legal_actions`) but the pass (-1) lies in range(action_bound), for an agent that
    keeps a value per action (the compiled game's `info`; the rest of its information is the
    rules', which an agent is not told); initial_state; legal_first_moves; description: the
    stage's .gdl text in GGP mode (rules revealed), else None.
    """

    name: str
    rows: int
    cols: int
    shape: str
    blocked: tuple[tuple[int, int], ...]
    players: tuple[str, ...]
    action_bound: int
    initial_state: Any
    legal_first_moves: tuple[Move, ...]
    description: str | None = None


def stage_view(game: CompiledGame, description: str | None = None) -> StageView:
    start, info = game.initial_state(), game.info
    board = game.board(start)
    return StageView(name=info.name, rows=info.rows, cols=info.cols,
                     shape="hex" if info.board_kind == "hex" else "square",
                     blocked=tuple((int(r), int(c)) for r, c in zip(*np.nonzero(board < 0))),
                     players=info.players, action_bound=info.action_bound, initial_state=start,
                     legal_first_moves=tuple(game.legal_moves(start)), description=description)


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


@runtime_checkable
class Rules(Protocol):
    """The agents' API, declared: simulation of the stage's true rules, for the agent's analysis
    and play. Implemented in-process by `RulesApi` (over the compiled game) and, with
    --isolate-rules, by runtime/oracle's `OracleRules` (every call a request to a rules oracle):
    same methods, same signatures, same values, same errors; anything else that serves agents the
    rules (a line protocol for programs in other languages) answers to this too."""

    def legal_moves(self, state: np.ndarray) -> list[Move]:
        """The moves of the side to move, in the stage's order (a forced pass is the one move `pass`)."""
        ...

    def apply(self, state: np.ndarray, move: Move | str) -> tuple[np.ndarray, int]:
        """(the state after `move`, the number of pieces it captured or flipped). ValueError if illegal."""
        ...

    def legal_actions(self, state: np.ndarray) -> list[int]:
        """The legal moves as integers, in the order of legal_moves (cheaper than Move objects, for a
        search from Python); move_of and action_of translate."""
        ...

    def apply_action(self, state: np.ndarray, action: int) -> tuple[np.ndarray, int]:
        """(the state after the legal action, the number of pieces it captured or flipped)."""
        ...

    def move_of(self, action: int) -> Move:
        """The Move of an action (ValueError for what is not an action of this game)."""
        ...

    def action_of(self, move: Move | str) -> int:
        """The action of a move (ValueError for a cell off the board)."""
        ...

    def to_move(self, state: np.ndarray) -> int:
        """Index in stage.players of the side to move."""
        ...

    def is_terminal(self, state: np.ndarray) -> bool:
        """Whether the game is over."""
        ...

    def returns(self, state: np.ndarray) -> tuple[float, float]:
        """Per player: +1 win, -1 loss, 0 draw (or game not over)."""
        ...

    def board(self, state: np.ndarray) -> np.ndarray:
        """rows × cols int array: 0 empty, 1.. the players' pieces, -1 blocked."""
        ...

    def evaluate(self, state: np.ndarray, player: int) -> dict[str, float]:
        """The Arena's evaluateBoard: piece, mobility, corner, edge and total (runtime/metrics.py)."""
        ...

    def playouts(self, state: np.ndarray | None, n: int, seed: int = 0) -> Playouts:
        """`n` random games from `state` (None: the initial state) inside the kernel: `.lengths` and
        `.returns` (n × players)."""
        ...

    def parse_move(self, text: str) -> Move:
        """The move written `text` (`d3`, `b2-b3`, `pass`)."""
        ...


class RulesApi(Rules):
    """The agents' API (`Rules`) in the agent's own process, over the compiled game: a call is a
    kernel call."""

    def __init__(self, game: CompiledGame):
        self._game = game
        self._shape = metrics.shape_classes(game)

    def _move(self, move: Move | str) -> Move:
        return move if isinstance(move, Move) else self._game.parse_move(str(move))

    def legal_moves(self, state: np.ndarray) -> list[Move]:
        return self._game.legal_moves(state)

    def apply(self, state: np.ndarray, move: Move | str) -> tuple[np.ndarray, int]:
        return self._game.apply_counted(state, self._move(move))

    def legal_actions(self, state: np.ndarray) -> list[int]:
        return self._game.legal_actions(state)

    def apply_action(self, state: np.ndarray, action: int) -> tuple[np.ndarray, int]:
        return self._game.apply_action_counted(state, action)

    def move_of(self, action: int) -> Move:
        return self._game.move_of(action)

    def action_of(self, move: Move | str) -> int:
        return self._game.action_of(self._move(move))

    def to_move(self, state: np.ndarray) -> int:
        return self._game.to_move(state)

    def is_terminal(self, state: np.ndarray) -> bool:
        return self._game.is_terminal(state)

    def returns(self, state: np.ndarray) -> tuple[float, float]:
        return self._game.returns(state)

    def board(self, state: np.ndarray) -> np.ndarray:
        return self._game.board(state)

    def evaluate(self, state: np.ndarray, player: int) -> dict[str, float]:
        return metrics.evaluate(self._game, as_state(state), seat(player), self._shape).as_dict()

    def playouts(self, state: np.ndarray | None, n: int, seed: int = 0) -> Playouts:
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
