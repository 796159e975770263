"""The board of a stage as the reference interpreter reads it: the board's `Grid` (gdl/geometry.py,
the one pure-Python geometry: cells, neighbours, rays, lines, distances, sides) with the stage's
blocked cells and the players' headings, which give forward-relative directions and far rows.

Blocked cells belong to the geometry (they sit on rays and lines and count for distances); only
play ignores them, and that is the other modules' business.
"""
from __future__ import annotations

from functools import lru_cache

from .. import geometry
from ..ast import Directions, Stage


class Topology(geometry.Grid):
    """The geometry of one stage's board (see `Grid` for `names`, `neighbours`, `rays`, `lines`)."""

    def __init__(self, stage: Stage):
        board = stage.board
        super().__init__(board.rows, board.cols, geometry.hexagonal(board), board.wrap, board.keyword)

        for r, c in stage.blocked_cells:
            self.check_on_board(r, c, "blocked cell")
        self.blocked: frozenset[int] = frozenset(self.index(r, c) for r, c in stage.blocked_cells)

        names = stage.player_names
        headings = {h.player: h.heading for h in stage.forward}
        for player in headings:
            if player not in names:
                raise ValueError(f"forward names {player!r}, which is not a player ({', '.join(names)})")
        self.headings: tuple[str | None, ...] = tuple(headings.get(p) for p in names)
        self._player_names = names
        # Per-instance memos (an lru_cache on the methods would keep every Topology alive).
        self.resolve = lru_cache(maxsize=None)(self._resolve)
        self.at_distance = lru_cache(maxsize=None)(self._at_distance)

    def check_on_board(self, r: int, c: int, what: str) -> None:
        if not (0 <= r < self.rows and 0 <= c < self.cols):
            raise ValueError(f"{what} ({r},{c}) is off the {self.rows}x{self.cols} board")

    def _resolve(self, directions: Directions, player: int) -> tuple[int, ...]:
        """The direction indices a list of words names for a player (a union, in compass order)."""
        try:
            chosen = geometry.resolve(directions.words, self.is_hex, self.headings[player])
        except geometry.DirectionError as err:
            if err.needs_heading:
                raise ValueError(f"direction {err.word!r} needs a heading for {self._player_names[player]!r}: "
                                 "add a `forward` statement") from None
            raise
        return tuple(d for d, name in enumerate(self.names) if name in chosen)

    def _at_distance(self, i: int, n: int) -> tuple[int, ...]:
        """The cells at distance exactly n from i, row-major."""
        return tuple(j for j, dj in enumerate(self.distances(i)) if dj == n)

    def far_row(self, player: int) -> frozenset[int]:
        """The last row (or column) in the player's forward heading."""
        heading = self.headings[player]
        if heading is None:
            raise ValueError(
                f"`reach far-row` needs a heading for {self._player_names[player]!r}: add a `forward` statement"
            )
        return {
            "down": self.row_cells(self.rows - 1),
            "up": self.row_cells(0),
            "right": self.col_cells(self.cols - 1),
            "left": self.col_cells(0),
        }[heading]
