"""The Game contract that the reference interpreter and the compiled kernels both implement.

A Game turns a stage into play: `initial_state()`, `legal_moves(state)` in a fixed order,
`apply(state, move)` (states are values: the input is never changed), `to_move`, `is_terminal`,
`returns`, `board` and `parse_move`. Moves are `Move` values, the same for every implementation,
so two Games of one stage can be compared move by move.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol
from collections.abc import Sequence

import numpy as np

from .ast import COLUMN_LETTERS, HexBoard, Stage, cell_name

Square = tuple[int, int]  # (row, col), 0-based, row 0 at the top

_MOVE_TEXT = re.compile(r"^\s*(?:(pass)|([a-z])([1-9][0-9]*)(?:-([a-z])([1-9][0-9]*))?)\s*$")


@dataclass(frozen=True)
class Move:
    """A move: a placement (`src` None), a piece move from `src` to `dst`, or a pass (both None).

    `str(move)` is `d3`, `b2-b3` or `pass`; `Move.parse` reads those back.
    """

    src: Square | None
    dst: Square | None

    @property
    def is_pass(self) -> bool:
        return self.dst is None

    def __str__(self) -> str:
        if self.dst is None:
            return "pass"
        if self.src is None:
            return cell_name(*self.dst)
        return f"{cell_name(*self.src)}-{cell_name(*self.dst)}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @staticmethod
    def parse(text: str) -> Move:
        """Read `d3`, `b2-b3` or `pass`; raises ValueError (quoting the text) on anything else."""
        m = _MOVE_TEXT.match(text.lower()) if isinstance(text, str) else None
        if not m:
            raise ValueError(f"not a move: {text!r} (moves are written like 'd3', 'b2-b3' or 'pass')")
        if m.group(1):
            return PASS
        a = (int(m.group(3)) - 1, COLUMN_LETTERS.index(m.group(2)))
        if m.group(4) is None:
            return Move(None, a)
        return Move(a, (int(m.group(5)) - 1, COLUMN_LETTERS.index(m.group(4))))


PASS = Move(None, None)


class Game(Protocol):
    """What every implementation of a stage offers (reference interpreter, compiled kernels)."""

    stage: Stage
    rows: int
    cols: int
    players: tuple[str, ...]

    def initial_state(self) -> Any: ...
    def legal_moves(self, state: Any) -> list[Move]: ...
    def apply(self, state: Any, move: Move) -> Any: ...
    def apply_counted(self, state: Any, move: Move) -> tuple[Any, int]: ...
    def to_move(self, state: Any) -> int: ...
    def is_terminal(self, state: Any) -> bool: ...
    def returns(self, state: Any) -> tuple[float, ...]: ...
    def board(self, state: Any) -> np.ndarray: ...
    def parse_move(self, text: str) -> Move: ...


def perft(game: Game, depth: int, state: Any = None) -> int:
    """Leaves of the move tree at `depth` plies; a forced pass is one ply, and a terminal
    position reached earlier is a leaf. On a stage with dice the tree has chance nodes: after each
    ply that does not end the game, every roll the dice can total (each once, whatever its odds) is a
    branch of its own."""
    state = game.initial_state() if state is None else state
    if depth == 0 or game.is_terminal(state):
        return 1
    children = [game.apply(state, m) for m in game.legal_moves(state)]
    roll = game.stage.roll
    if roll is None:
        return sum(perft(game, depth - 1, child) for child in children)
    with_roll = game.with_roll  # type: ignore[attr-defined]  # (the games that play dice have it)
    # a move that ends the game is one leaf: no dice are thrown after it
    return sum(1 if game.is_terminal(child) else
               sum(perft(game, depth - 1, with_roll(child, r)) for r in roll.totals)
               for child in children)


def render(game: Game, state: Any, marks: Sequence[str] = (".", "X", "O"), blocked: str = "#") -> str:
    """The board as text with coordinates, the first player's pieces as X, the second's as O."""
    b = game.board(state)
    width = len(str(game.rows))
    hexagonal = isinstance(game.stage.board, HexBoard)  # each row half a cell right of the last
    lines = [" " * (width + 1) + " ".join(COLUMN_LETTERS[: game.cols])]
    for r in range(game.rows):
        cells = (blocked if v < 0 else marks[v] for v in b[r])
        lines.append(f"{r + 1:>{width}} " + (" " * r if hexagonal else "") + " ".join(cells))
    return "\n".join(lines)
