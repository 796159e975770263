"""End conditions and results, one function per node class.

A condition reads a position and gives its witness where it holds: the cells that show it (the
line, the mover's piece on its far row, the chain joining its sides; none for a condition of the
whole board), as row-major indices; None where it does not hold. A result says who won (0, 1, or
None for a draw). "The mover" is the side that made the last move or pass (`state.mover`).
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

Witness = tuple[int, ...] | None  # the cells that show a condition holds; None: it does not hold
_WHOLE: tuple[int, ...] = ()  # a condition of the whole position holds with no cell to show


def _no_moves(cond: NoMoves, game: ReferenceGame, state: State) -> Witness:
    return None if game.available_moves(state) else _WHOLE  # a forced pass counts as a move


def _board_full(cond: BoardFull, game: ReferenceGame, state: State) -> Witness:
    return None if EMPTY in state.cells else _WHOLE


def runs(cells: tuple[int, ...], line: tuple[int, ...], cyclic: bool, value: int) -> list[tuple[int, ...]]:
    """The maximal runs of `value` along a line of cells, each as its cells in the line's order.

    A cyclic line (a wrapped board) is read from just after a cell that breaks the runs, so a run
    over the seam is counted whole; a ring holding nothing else is one run of its length.
    """
    if cyclic:
        breaks = [k for k, j in enumerate(line) if cells[j] != value]
        if not breaks:
            return [line]
        line = line[breaks[0] + 1:] + line[: breaks[0] + 1]
    found, run = [], []
    for j in line:
        if cells[j] == value:
            run.append(j)
        elif run:
            found.append(tuple(run))
            run = []
    if run:
        found.append(tuple(run))
    return found


def _line(cond: Line, game: ReferenceGame, state: State) -> Witness:
    # `line 5 exact`: a maximal run of exactly 5, so an overline of 6 does not count (Gomoku).
    mine = piece(state.mover)
    for line, cyclic in game.topology.lines:
        for run in runs(state.cells, line, cyclic, mine):
            if len(run) == cond.length or (len(run) > cond.length and not cond.exact):
                return run
    return None


def _reach_far_row(cond: ReachFarRow, game: ReferenceGame, state: State) -> Witness:
    mine = piece(state.mover)
    there = tuple(j for j in sorted(game.topology.far_row(state.mover)) if state.cells[j] == mine)
    return there or None


def _connect(cond: Connect, game: ReferenceGame, state: State) -> Witness:
    """A chain of the mover's pieces from its first side to its second (a shortest one)."""
    topo, cells, mover = game.topology, state.cells, state.mover
    mine = piece(mover)
    start, goal = topo.sides(cond.sides[mover])
    steps = [topo.neighbours[d] for d in topo.resolve(_ORTHOGONAL, mover)]
    came_from: dict[int, int | None] = {j: None for j in sorted(start) if cells[j] == mine}
    queue = deque(came_from)
    while queue:
        j = queue.popleft()
        if j in goal:
            chain = [j]
            while (before := came_from[chain[-1]]) is not None:
                chain.append(before)
            return tuple(reversed(chain))
        for row in steps:
            k = row[j]
            if k >= 0 and k not in came_from and cells[k] == mine:
                came_from[k] = j
                queue.append(k)
    return None


def _no_pieces(cond: NoPieces, game: ReferenceGame, state: State) -> Witness:
    return None if piece(state.to_move) in state.cells else _WHOLE


def _after_plies(cond: AfterPlies, game: ReferenceGame, state: State) -> Witness:
    return _WHOLE if state.ply >= cond.plies else None


_CONDITIONS: dict[type, Callable[..., Witness]] = {
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


def witness(cond: Condition, game: ReferenceGame, state: State) -> Witness:
    """The cells that show an end condition holds in a position (none for a condition of the
    whole position), or None where it does not hold."""
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
