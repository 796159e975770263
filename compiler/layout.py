"""States and moves as values, outside the kernels: the Python side of the layout in codes.py.

A state is a one-dimensional read-only int32 array (`as_state`): the cells first (`board_of`),
then codes.py's STATE_EXTRA values (side to move, mover, ply). A move crosses a kernel call as an
int32 code (codes.py: a cell for a placement, (origin + 1) * cells + destination for a piece
move, PASS_CODE for a pass), which is also its action; `MoveTable` turns codes into `Move`
values and back. A winner becomes returns (`returns_of`), and a refused move its error
(`illegal_move`: an IllegalMoveError and its message). None of this knows the rules: the compiled game (game.py) and the client of a
rules oracle (runtime/oracle/), which holds no rules, both build on it.
"""
from __future__ import annotations

import operator
from operator import itemgetter

import numpy as np

from ..gdl.diagnostics import IllegalMoveError
from ..gdl.game import PASS, Move
from . import codes as K

ACTIONS = 1 << 31  # every action of every game is below this (codes.py: moves are int32 codes)
_INT32 = np.dtype(np.int32).num


class MoveTable:
    """The moves of a game by code (codes.py: how a move crosses a kernel call), each Move made
    once; `of(code)` reads one, `code_of` maps the Moves made here back by identity (they live as
    long as the table, so an id is never reused); parse, move_of and action_of translate text and
    actions. Knows the board, not the rules: the client of a rules oracle (runtime/oracle/client.py)
    has one of its own."""

    def __init__(self, rows: int, cols: int, placements_only: bool):
        self.rows, self.cols, self.size = rows, cols, rows * cols
        # placements: a list by cell, the pass last (so that code -1 reads it); piece moves on first use
        placed = [Move(None, divmod(i, cols)) for i in range(self.size)] + [PASS]
        self.code_of: dict[int, int] = {id(m): code for code, m in enumerate(placed[:-1])}
        self.code_of[id(PASS)] = K.PASS_CODE
        if placements_only:
            self.table: list[Move] | dict[int, Move] = placed
        else:
            self.table = _PieceMoves(self)
            self.table.update((K.PASS_CODE if m is PASS else code, m) for code, m in enumerate(placed))
        self.of = self.table.__getitem__

    def parse(self, text: str) -> Move:
        """The Move written `text` (this table's own, for a move on the board)."""
        move = Move.parse(text)
        code = self.code(move)
        # a piece move ("a1-a2") has no entry in a game of placements: it is no move of this game
        # (applying it is then an illegal move, said as one), not an index past the table's end
        if code == K.NOT_A_MOVE or (isinstance(self.table, list) and code >= len(self.table)):
            return move
        return self.of(code)

    def move_of(self, action: int) -> Move:
        action = operator.index(action)
        # a game of placements has only cells (and the pass) for actions
        limit = self.size if isinstance(self.table, list) else (self.size + 1) * self.size
        if not K.PASS_CODE <= action < limit:
            raise ValueError(f"not an action of this game: {action} (actions run from -1 to {limit - 1})")
        return self.of(action)

    def action_of(self, move: Move) -> int:
        code = self.code(move)
        if code == K.NOT_A_MOVE:
            raise ValueError(f"not a move of a {self.rows}x{self.cols} board: {move!r}")
        return code

    def listed(self, codes: list[int]) -> tuple[Move, ...]:
        """The Moves of a list of codes (itemgetter: half the time of a loop, on 60 moves)."""
        if len(codes) > 1:
            return itemgetter(*codes)(self.table)
        return tuple(map(self.of, codes))

    def make(self, code: int) -> Move:
        src, dst = K.move_cells(code, self.size)
        move = Move(divmod(src, self.cols), divmod(dst, self.cols))
        self.code_of[id(move)] = code
        return move

    def code(self, move: Move) -> int:
        """The code of any move value (K.NOT_A_MOVE for a cell off the board, or not a Move)."""
        if not isinstance(move, Move):
            return K.NOT_A_MOVE
        if move.dst is None:
            return K.PASS_CODE
        dst = self._cell(move.dst)
        src = -1 if move.src is None else self._cell(move.src)
        if dst < 0 or (move.src is not None and src < 0):
            return K.NOT_A_MOVE
        return K.move_code(src, dst, self.size)

    def _cell(self, square) -> int:
        r, c = square
        return r * self.cols + c if 0 <= r < self.rows and 0 <= c < self.cols else -1


class _PieceMoves(dict):
    """code -> Move, piece moves made on first use."""

    def __init__(self, moves: MoveTable):
        super().__init__()
        self._moves = moves

    def __missing__(self, code: int) -> Move:
        move = self[code] = self._moves.make(code)
        return move


def illegal_text(named: Move | int, legal: tuple[Move, ...]) -> str:
    """What a refused move or action is told: it, and the legal moves of the position."""
    listed = " ".join(map(str, legal)) or "none, the game is over"
    what = f"action {named}" if isinstance(named, int) else f"move {str(named)!r}"
    return f"illegal {what}: legal moves are {listed}"


def illegal_move(named: Move | int, legal: tuple[Move, ...], state: np.ndarray) -> IllegalMoveError:
    """The error for `named` refused in `state` (whose legal moves are `legal`): the same wherever the
    move is refused, in the compiled game or in a rules oracle's client."""
    return IllegalMoveError(illegal_text(named, legal), named, legal, np.array(state, copy=True))


def returns_of(winner: int | None) -> tuple[float, float]:
    """Per player: +1 win, -1 loss, 0 draw (or a game not over), from the winner (None if none)."""
    if winner is None or winner < 0:
        return (0.0, 0.0)
    return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


def board_of(state: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The rows × cols cells of a state (codes.py: they come first), a new array."""
    return np.asarray(state[: rows * cols]).reshape(rows, cols).copy()


def array_of(state) -> np.ndarray:
    """The kernels' read-only state of a reference interpreter's State (gdl/interpreter/game.py): its
    cells, then its extra values at codes.py's offsets."""
    extra = [0] * K.STATE_EXTRA
    extra[K.TO_MOVE], extra[K.MOVER], extra[K.PLY], extra[K.ROLL] = state.to_move, state.mover, state.ply, state.roll
    return read_only(np.array([*state.cells, *extra], dtype=np.int32))


def as_state(state: np.ndarray) -> np.ndarray:
    """A read-only view of an array the kernels only read: numba compiles a kernel once per kind of
    array it is given, and states are read-only values, so a writeable one would compile every
    kernel a second time (a cold start spent half its time so). Anything but a one-dimensional
    int32 array is made one (or refused: the kernels check the rest, see positions.misfit)."""
    if state.__class__ is not np.ndarray or state.dtype.num != _INT32 or state.ndim != 1:
        state = np.array(state, dtype=np.int32)
        if state.ndim != 1:
            raise ValueError(f"not a state: an array of shape {state.shape} (a state is one row of int32)")
    return read_only(state)


def read_only(array: np.ndarray) -> np.ndarray:
    """`array`, or a read-only view of it."""
    if array.flags.writeable:
        array = array.view()
        array.flags.writeable = False
    return array
