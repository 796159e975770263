"""Board geometry of a stage: cells, neighbours, rays, distances, lines, sides and headings.

Cells are numbered row-major: cell i is (i // cols, i % cols). Blocked cells belong to the
geometry (they sit on rays and lines and count for distances); only play ignores them, and that
is the other modules' business. Everything here is computed once per stage as plain Python
lists and tuples, so the rule code reads `neighbours[d][i]` instead of redoing arithmetic.
"""
from __future__ import annotations

from collections import deque
from functools import lru_cache

from .. import geometry
from ..ast import Directions, Stage



class Topology:
    """The geometry of one stage's board.

    - `names`: the board's direction names, in compass order; a direction is an index into it.
    - `neighbours[d][i]`: the cell one step from i in direction d, or -1 off the board.
    - `rays[d][i]`: the cells walked from i in direction d, nearest first, up to the edge or,
      on a wrapped board, up to (not including) the return to i.
    - `lines`: every line of the board along every axis, as (cells, cyclic).
    """

    def __init__(self, stage: Stage):
        board = stage.board
        self.rows: int = board.rows
        self.cols: int = board.cols
        self.size: int = self.rows * self.cols
        self.is_hex: bool = geometry.hexagonal(board)
        self.wrap: bool = board.wrap
        steps = geometry.steps(self.is_hex)
        self.names: tuple[str, ...] = tuple(steps)

        for r, c in stage.blocked_cells:
            self.check_on_board(r, c, "blocked cell")
        self.blocked: frozenset[int] = frozenset(self.index(r, c) for r, c in stage.blocked_cells)

        self.neighbours: list[list[int]] = [
            [self._step(i, dr, dc) for i in range(self.size)] for dr, dc in steps.values()
        ]
        self.rays: list[list[tuple[int, ...]]] = [
            [self._ray(i, d) for i in range(self.size)] for d in range(len(self.names))
        ]
        axes = geometry.axes(self.is_hex)
        self.lines: list[tuple[tuple[int, ...], bool]] = [
            line for axis in axes for line in self._lines_along(self.names.index(axis))
        ]

        names = stage.player_names
        headings = {h.player: h.heading for h in stage.forward}
        for player in headings:
            if player not in names:
                raise ValueError(f"forward names {player!r}, which is not a player ({', '.join(names)})")
        self.headings: tuple[str | None, ...] = tuple(headings.get(p) for p in names)
        self._player_names = names
        # Per-instance memos (an lru_cache on the methods would keep every Topology alive).
        self.resolve = lru_cache(maxsize=None)(self._resolve)
        self.distances = lru_cache(maxsize=None)(self._distances)
        self.at_distance = lru_cache(maxsize=None)(self._at_distance)

    # --- cells ------------------------------------------------------------------------------

    def index(self, row: int, col: int) -> int:
        return row * self.cols + col

    def square(self, i: int) -> tuple[int, int]:
        return divmod(i, self.cols)

    def check_on_board(self, r: int, c: int, what: str) -> None:
        if not (0 <= r < self.rows and 0 <= c < self.cols):
            raise ValueError(f"{what} ({r},{c}) is off the {self.rows}x{self.cols} board")

    def _step(self, i: int, dr: int, dc: int) -> int:
        r, c = divmod(i, self.cols)
        r, c = r + dr, c + dc
        if self.wrap:
            return (r % self.rows) * self.cols + c % self.cols
        return r * self.cols + c if 0 <= r < self.rows and 0 <= c < self.cols else -1

    def _ray(self, i: int, d: int) -> tuple[int, ...]:
        out: list[int] = []
        j = self.neighbours[d][i]
        # On a torus a step is a translation, so the walk always comes back to i and stops there.
        while j >= 0 and j != i:
            out.append(j)
            j = self.neighbours[d][j]
        return tuple(out)

    def _lines_along(self, d: int) -> list[tuple[tuple[int, ...], bool]]:
        """The maximal walks in direction d: open ones from each cell with nothing behind it,
        then (wrapped boards) the closed cycles."""
        before = [-1] * self.size
        for i, j in enumerate(self.neighbours[d]):
            if j >= 0:
                before[j] = i
        seen: set[int] = set()
        lines = []
        for i in range(self.size):
            if before[i] < 0:
                line = (i,) + self.rays[d][i]
                seen.update(line)
                lines.append((line, False))
        for i in range(self.size):
            if i not in seen:
                line = (i,) + self.rays[d][i]
                seen.update(line)
                lines.append((line, True))
        return lines

    # --- directions -------------------------------------------------------------------------

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

    # --- distances --------------------------------------------------------------------------

    def _distances(self, i: int) -> tuple[int, ...]:
        """King-step distance from i to every cell (breadth-first over all directions, blocked
        cells included; -1 if unreachable, which only a 0-sized axis could cause)."""
        dist = [-1] * self.size
        dist[i] = 0
        queue = deque([i])
        while queue:
            j = queue.popleft()
            for row in self.neighbours:
                k = row[j]
                if k >= 0 and dist[k] < 0:
                    dist[k] = dist[j] + 1
                    queue.append(k)
        return tuple(dist)

    def _at_distance(self, i: int, n: int) -> tuple[int, ...]:
        """The cells at distance exactly n from i, row-major."""
        return tuple(j for j, dj in enumerate(self.distances(i)) if dj == n)

    # --- regions ----------------------------------------------------------------------------

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

    def sides(self, pair: str) -> tuple[frozenset[int], frozenset[int]]:
        """The two sides a `connect` pair names: `top-bottom` or `left-right`."""
        if pair == "top-bottom":
            return self.row_cells(0), self.row_cells(self.rows - 1)
        if pair == "left-right":
            return self.col_cells(0), self.col_cells(self.cols - 1)
        raise ValueError(f"unknown sides {pair!r} (expected top-bottom or left-right)")

    def row_cells(self, r: int) -> frozenset[int]:
        return frozenset(self.index(r, c) for c in range(self.cols))

    def col_cells(self, c: int) -> frozenset[int]:
        return frozenset(self.index(r, c) for r in range(self.rows))
