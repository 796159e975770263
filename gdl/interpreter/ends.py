"""End conditions and results, one function per node class.

A condition reads a position and says whether it holds; a result says who won (0, 1, or None
for a draw). "The mover" is the side that made the last move or pass (`state.mover`).
"""
from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING
from collections.abc import Callable

from ..ast import (
    AfterPlies, BoardFull, Condition, Connect, Directions, Draw, FewestPieces, Line, MostPieces,
    MoverLoses, MoverWins, NoMoves, NoPieces, ReachFarRow, Result,
)
from .moves import EMPTY, piece

if TYPE_CHECKING:
    from .game import ReferenceGame, State

_ORTHOGONAL = Directions(("orthogonal",))


# --- conditions ---------------------------------------------------------------------------------


def _no_moves(cond: NoMoves, game: ReferenceGame, state: State) -> bool:
    return not game.available_moves(state)  # a forced pass counts as a move


def _board_full(cond: BoardFull, game: ReferenceGame, state: State) -> bool:
    return EMPTY not in state.cells


def run_lengths(cells: tuple[int, ...], line: tuple[int, ...], cyclic: bool, value: int) -> list[int]:
    """The lengths of the maximal runs of `value` along a line of cells.

    A cyclic line (a wrapped board) is read from just after a cell that breaks the runs, so a run
    over the seam is counted whole; a ring holding nothing else is one run of its length.
    """
    if cyclic:
        breaks = [k for k, j in enumerate(line) if cells[j] != value]
        if not breaks:
            return [len(line)]
        line = line[breaks[0] + 1:] + line[: breaks[0] + 1]
    runs, n = [], 0
    for j in line:
        if cells[j] == value:
            n += 1
        elif n:
            runs.append(n)
            n = 0
    if n:
        runs.append(n)
    return runs


def _line(cond: Line, game: ReferenceGame, state: State) -> bool:
    # `line 5 exact`: a maximal run of exactly 5, so an overline of 6 does not count (Gomoku).
    mine = piece(state.mover)
    for line, cyclic in game.topology.lines:
        for n in run_lengths(state.cells, line, cyclic, mine):
            if n == cond.length or (n > cond.length and not cond.exact):
                return True
    return False


def _reach_far_row(cond: ReachFarRow, game: ReferenceGame, state: State) -> bool:
    mine = piece(state.mover)
    return any(state.cells[j] == mine for j in game.topology.far_row(state.mover))


def _connect(cond: Connect, game: ReferenceGame, state: State) -> bool:
    topo, cells, mover = game.topology, state.cells, state.mover
    mine = piece(mover)
    start, goal = topo.sides(cond.sides[mover])
    steps = [topo.neighbours[d] for d in topo.resolve(_ORTHOGONAL, mover)]
    seen = {j for j in start if cells[j] == mine}
    queue = deque(seen)
    while queue:
        j = queue.popleft()
        if j in goal:
            return True
        for row in steps:
            k = row[j]
            if k >= 0 and k not in seen and cells[k] == mine:
                seen.add(k)
                queue.append(k)
    return False


def _no_pieces(cond: NoPieces, game: ReferenceGame, state: State) -> bool:
    return piece(state.to_move) not in state.cells


def _after_plies(cond: AfterPlies, game: ReferenceGame, state: State) -> bool:
    return state.ply >= cond.plies


_CONDITIONS: dict[type, Callable[..., bool]] = {
    NoMoves: _no_moves,
    BoardFull: _board_full,
    Line: _line,
    ReachFarRow: _reach_far_row,
    Connect: _connect,
    NoPieces: _no_pieces,
    AfterPlies: _after_plies,
}


# --- results ------------------------------------------------------------------------------------


def _mover_wins(result: MoverWins, game: ReferenceGame, state: State) -> int | None:
    return state.mover


def _mover_loses(result: MoverLoses, game: ReferenceGame, state: State) -> int | None:
    return 1 - state.mover


def _more(cells: tuple[int, ...]) -> int | None:
    """The side with more pieces on the board, None if equal."""
    first, second = cells.count(piece(0)), cells.count(piece(1))
    return 0 if first > second else 1 if second > first else None


def _most_pieces(result: MostPieces, game: ReferenceGame, state: State) -> int | None:
    return _more(state.cells)


def _fewest_pieces(result: FewestPieces, game: ReferenceGame, state: State) -> int | None:
    more = _more(state.cells)
    return None if more is None else 1 - more


def _draw(result: Draw, game: ReferenceGame, state: State) -> int | None:
    return None


_RESULTS: dict[type, Callable[..., int | None]] = {
    MoverWins: _mover_wins,
    MoverLoses: _mover_loses,
    MostPieces: _most_pieces,
    FewestPieces: _fewest_pieces,
    Draw: _draw,
}


def holds(cond: Condition, game: ReferenceGame, state: State) -> bool:
    """Whether an end condition holds in a position."""
    try:
        test = _CONDITIONS[type(cond)]
    except KeyError:
        raise ValueError(f"unknown end condition {type(cond).__name__}") from None
    return test(cond, game, state)


def winner(result: Result, game: ReferenceGame, state: State) -> int | None:
    """Who wins by a result in a position: 0, 1, or None for a draw."""
    try:
        decide = _RESULTS[type(result)]
    except KeyError:
        raise ValueError(f"unknown result {type(result).__name__}") from None
    return decide(result, game, state)
