"""Move generation, one function per move kind.

A generator lists the (origin, destination) pairs a move kind allows the player on a board, given
the roll (0 on a stage without dice; only `advance` reads it), before any effect is tried (`require
capture` is the effects' business). Origins are None for placements. Cells hold -1 (blocked), 0
(empty), 1 (first player's piece) or 2 (second's).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator

from ..ast import Advance, Clone, Jump, MoveKind, PlaceAdjacent, PlaceEmpty, PlaceGravity, Slide, Step
from .topology import Topology

EMPTY = 0

Candidates = Iterator[tuple[int | None, int]]


def piece(player: int) -> int:
    """The cell value of a player's piece (player 0 or 1)."""
    return player + 1


def enemy(player: int) -> int:
    return 2 - player


def _lands(target: str, player: int) -> tuple[int, ...]:
    """The cell values a piece may arrive on: `empty`, `enemy` or `any` (never blocked, never own)."""
    return {"empty": (EMPTY,), "enemy": (enemy(player),), "any": (EMPTY, enemy(player))}[target]


# --- placements ---------------------------------------------------------------------------------


def _gen_place_empty(kind: PlaceEmpty, topo: Topology, cells: tuple[int, ...], player: int, roll: int) -> Candidates:
    for i in range(topo.size):
        if cells[i] == EMPTY:
            yield None, i


def _gen_place_gravity(kind: PlaceGravity, topo: Topology, cells: tuple[int, ...], player: int, roll: int) -> Candidates:
    # The lowest empty cell of each column (largest row index), whatever lies above or below it:
    # a blocked cell is not a floor, pieces drop past it.
    for c in range(topo.cols):
        for r in range(topo.rows - 1, -1, -1):
            i = topo.index(r, c)
            if cells[i] == EMPTY:
                yield None, i
                break


def _gen_place_adjacent(kind: PlaceAdjacent, topo: Topology, cells: tuple[int, ...], player: int, roll: int) -> Candidates:
    mine = piece(player)
    for i in range(topo.size):
        if cells[i] == EMPTY and any(row[i] >= 0 and cells[row[i]] == mine for row in topo.neighbours):
            yield None, i


# --- piece moves --------------------------------------------------------------------------------


def _origins(topo: Topology, cells: tuple[int, ...], player: int) -> Iterator[int]:
    mine = piece(player)
    return (i for i in range(topo.size) if cells[i] == mine)


def _gen_step(kind: Step, topo: Topology, cells: tuple[int, ...], player: int, roll: int) -> Candidates:
    lands = _lands(kind.target, player)
    directions = topo.resolve(kind.directions, player)
    for src in _origins(topo, cells, player):
        for d in directions:
            dst = topo.neighbours[d][src]
            if dst >= 0 and cells[dst] in lands:
                yield src, dst


def _gen_slide(kind: Slide, topo: Topology, cells: tuple[int, ...], player: int, roll: int) -> Candidates:
    # Over empty cells, stopping on the first non-empty one: an enemy piece is a destination if
    # the target allows it; an own piece, a blocked cell or the edge is not.
    lands = _lands(kind.target, player)
    directions = topo.resolve(kind.directions, player)
    for src in _origins(topo, cells, player):
        for d in directions:
            for dst in topo.rays[d][src]:
                if cells[dst] in lands:
                    yield src, dst
                if cells[dst] != EMPTY:
                    break


def _gen_jump(kind: Jump, topo: Topology, cells: tuple[int, ...], player: int, roll: int) -> Candidates:
    lands = _lands(kind.target, player)
    for src in _origins(topo, cells, player):
        for dst in topo.at_distance(src, kind.distance):
            if cells[dst] in lands:
                yield src, dst


def _gen_clone(kind: Clone, topo: Topology, cells: tuple[int, ...], player: int, roll: int) -> Candidates:
    # A clone adds a piece and leaves its parent where it is, so the position after it does not
    # depend on which piece it came from: the move is named by its cell alone (as in Ataxx).
    lands = _lands(kind.target, player)
    mine = piece(player)
    for dst in range(topo.size):
        if cells[dst] in lands and any(cells[src] == mine for src in topo.at_distance(dst, kind.distance)):
            yield None, dst


def _gen_advance(kind: Advance, topo: Topology, cells: tuple[int, ...], player: int, roll: int) -> Candidates:
    # Exactly `roll` cells along each ray, whatever lies between; a ray shorter than that: no move.
    lands = _lands(kind.target, player)
    directions = topo.resolve(kind.directions, player)
    for src in _origins(topo, cells, player):
        for d in directions:
            ray = topo.rays[d][src]
            if 1 <= roll <= len(ray) and cells[ray[roll - 1]] in lands:
                yield src, ray[roll - 1]


_GENERATORS: dict[type, Callable[..., Candidates]] = {
    PlaceEmpty: _gen_place_empty,
    PlaceGravity: _gen_place_gravity,
    PlaceAdjacent: _gen_place_adjacent,
    Step: _gen_step,
    Slide: _gen_slide,
    Jump: _gen_jump,
    Clone: _gen_clone,
    Advance: _gen_advance,
}

# Whether the piece leaves its origin. Placements and clones add a new piece instead.
_VACATES_ORIGIN: dict[type, bool] = {
    PlaceEmpty: False,
    PlaceGravity: False,
    PlaceAdjacent: False,
    Step: True,
    Slide: True,
    Jump: True,
    Clone: False,
    Advance: True,
}


def candidates(kind: MoveKind, topo: Topology, cells: tuple[int, ...], player: int, roll: int = 0) -> Candidates:
    """The (origin, destination) pairs a move kind allows `player` under `roll`; origin None for a
    placement."""
    try:
        generate = _GENERATORS[type(kind)]
    except KeyError:
        raise ValueError(f"unknown move kind {type(kind).__name__}") from None
    return generate(kind, topo, cells, player, roll)


def arrive(kind: MoveKind, board: list[int], player: int, src: int | None, dst: int) -> int:
    """Put the mover's piece on `dst` (moving it from `src` if the kind moves pieces); returns
    the pieces captured on arrival (1 if `dst` held an enemy piece, else 0)."""
    captured = 1 if board[dst] == enemy(player) else 0
    if src is not None and _VACATES_ORIGIN[type(kind)]:
        board[src] = EMPTY
    board[dst] = piece(player)
    return captured
