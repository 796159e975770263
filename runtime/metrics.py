"""The Othello AI Arena's `evaluateBoard` metrics, generalised to every board ludica can describe.

On the Arena's square boards: piece = own − opponent pieces; mobility = own legal moves −
opponent legal moves (as if each side were to move in this position); corner = 100 × own pieces
on corners; edge = 20 × own pieces on non-corner edge cells; total = piece + 2·mobility + corner
+ 0.5·edge.

Corners and edges come from the board's shape, not from its size: a cell is on the edge when it
has fewer neighbours than a cell in the middle of the board (8 on a square board, 6 on a hex
board), and the edge cells with the fewest neighbours are the corners. On an 8x8 board that is the
Arena's definition (corners have 3 neighbours, other edge cells 5); a wrapped board has neither;
a hex rhombus has its two sharp corners (2 neighbours). Blocked cells are cells of the board's
shape (they do not make their neighbours edges), as in the Arena.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..compiler.game import CompiledGame

CORNER_WEIGHT, EDGE_WEIGHT = 100, 20


@dataclass(frozen=True)
class Metrics:
    piece: int
    mobility: int
    corner: int
    edge: int

    @property
    def total(self) -> float:
        return self.piece + 2 * self.mobility + self.corner + 0.5 * self.edge

    def as_dict(self) -> dict[str, float]:
        return {"piece": self.piece, "mobility": self.mobility, "corner": self.corner, "edge": self.edge,
                "total": self.total}


def shape_classes(game: CompiledGame) -> tuple[np.ndarray, np.ndarray]:
    """(corner cells, non-corner edge cells) as boolean masks over the cells, row-major."""
    nbr = game.neighbours()  # int32[n_dirs, n_cells], -1 off the board
    degree = (nbr >= 0).sum(axis=0)
    edge = degree < nbr.shape[0]
    if not edge.any():
        return edge, edge
    corner = edge & (degree == degree[edge].min())
    return corner, edge & ~corner


def mobility_of(game: CompiledGame, state: np.ndarray, player: int) -> int:
    """Legal moves `player` would have in this position if it were to move (passes not counted)."""
    if game.to_move(state) != player:
        state = game.with_to_move(state, player)
    return sum(1 for m in game.legal_moves(state) if not m.is_pass)


def evaluate(game: CompiledGame, state: np.ndarray, player: int, shape: tuple[np.ndarray, np.ndarray] | None = None
             ) -> Metrics:
    """The Arena's metrics of `state` for `player` (0 or 1)."""
    corner, edge = shape if shape is not None else shape_classes(game)
    cells = np.asarray(state[: game.n_cells])
    own, opp = cells == player + 1, cells == 2 - player
    return Metrics(piece=int(own.sum() - opp.sum()),
                   mobility=mobility_of(game, state, player) - mobility_of(game, state, 1 - player),
                   corner=CORNER_WEIGHT * int((own & corner).sum()),
                   edge=EDGE_WEIGHT * int((own & edge).sum()))
