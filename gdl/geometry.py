"""The board geometry of the language: compass directions, direction words, headings, line axes,
and `Grid`, a board's cells with their neighbours, rays, lines and distances.

The one pure-Python geometry: the static checks (gdl/checks/) and the reference interpreter
(gdl/interpreter/topology.py, a Grid with the stage's blocked cells and headings) read it, and the
compiler's topology takes its vocabulary from here, so that a direction word, a distance or a
line means one thing everywhere (docs/language.md, "Directions").

Cells are numbered row-major: cell i is (i // cols, i % cols). Blocked cells belong to the
geometry (they sit on rays and lines and count for distances); only play ignores them.
"""
from __future__ import annotations

from collections import deque
from functools import cached_property
from collections.abc import Iterable, Iterator

from .ast import BOARD_KINDS, MAX_BOARD_SIDE, cell_name
from .diagnostics import LudicaError

# Compass directions as (row step, column step); `n` is up, towards row 1.
SQUARE_STEPS: dict[str, tuple[int, int]] = {
    "n": (-1, 0), "ne": (-1, 1), "e": (0, 1), "se": (1, 1),
    "s": (1, 0), "sw": (1, -1), "w": (0, -1), "nw": (-1, -1),
}
# Row r of the Hex rhombus sits half a cell right of row r-1, so (r, c) touches these six.
HEX_STEPS: dict[str, tuple[int, int]] = {
    "n": (-1, 0), "ne": (-1, 1), "e": (0, 1), "s": (1, 0), "sw": (1, -1), "w": (0, -1),
}

_SETS = {
    False: {"all": tuple(SQUARE_STEPS), "orthogonal": ("n", "e", "s", "w"), "diagonal": ("ne", "se", "sw", "nw")},
    True: {"all": tuple(HEX_STEPS), "orthogonal": tuple(HEX_STEPS), "diagonal": ()},
}

RELATIVE_WORDS = ("forward", "forward-diagonal", "backward", "sideways")

# Forward-relative words per heading. On hex boards `forward` is every direction that advances
# a row (or, heading left/right, a column) and there is no forward-diagonal.
_RELATIVE = {
    False: {
        "down": {"forward": ("s",), "forward-diagonal": ("se", "sw"), "backward": ("n",), "sideways": ("e", "w")},
        "up": {"forward": ("n",), "forward-diagonal": ("ne", "nw"), "backward": ("s",), "sideways": ("e", "w")},
        "right": {"forward": ("e",), "forward-diagonal": ("ne", "se"), "backward": ("w",), "sideways": ("n", "s")},
        "left": {"forward": ("w",), "forward-diagonal": ("nw", "sw"), "backward": ("e",), "sideways": ("n", "s")},
    },
    True: {
        "down": {"forward": ("s", "sw"), "forward-diagonal": (), "backward": ("n", "ne"), "sideways": ("e", "w")},
        "up": {"forward": ("n", "ne"), "forward-diagonal": (), "backward": ("s", "sw"), "sideways": ("e", "w")},
        "right": {"forward": ("ne", "e"), "forward-diagonal": (), "backward": ("w", "sw"), "sideways": ("n", "s")},
        "left": {"forward": ("w", "sw"), "forward-diagonal": (), "backward": ("ne", "e"), "sideways": ("n", "s")},
    },
}

# One direction per line axis: e–w, n–s, ne–sw, nw–se (square); e–w, n–s, ne–sw (hex).
_AXES = {False: ("e", "s", "ne", "se"), True: ("e", "s", "ne")}


# Each board kind's cells: hexagons (6 directions, the Hex rhombus) or squares (8 directions),
# as the board kind declares (its trait `hexagonal`, gdl/ast.py).
HEXAGONAL: dict[type, bool] = {kind: kind.hexagonal for kind in BOARD_KINDS}


def hexagonal(board) -> bool:
    """Whether a board's cells are hexagons; ValueError for a board kind this does not know."""
    try:
        return HEXAGONAL[type(board)]
    except KeyError:
        raise ValueError(f"unknown board kind {type(board).__name__}") from None


def steps(is_hex: bool) -> dict[str, tuple[int, int]]:
    """The board's compass directions, in compass order, with their (row, column) steps."""
    return HEX_STEPS if is_hex else SQUARE_STEPS


def axes(is_hex: bool) -> tuple[str, ...]:
    """One direction per line axis of the board."""
    return _AXES[is_hex]


def words(is_hex: bool) -> tuple[str, ...]:
    """The direction words that mean something on the board."""
    return tuple(_SETS[is_hex]) + RELATIVE_WORDS + tuple(steps(is_hex))


class DirectionError(LudicaError, ValueError):
    """A direction word that the board does not have, or that needs a heading the player lacks."""

    def __init__(self, word: str, needs_heading: bool, is_hex: bool):
        self.word = word
        self.needs_heading = needs_heading
        if needs_heading:
            text = f"direction {word!r} needs the player's heading: add a `forward` statement"
        else:
            text = f"no direction {word!r} on a {'hex' if is_hex else 'square'} board (it has {' '.join(steps(is_hex))})"
        super().__init__(text)


def resolve(words_: Iterable[str], is_hex: bool, heading: str | None) -> tuple[str, ...]:
    """The compass directions a list of direction words names (their union, in compass order)
    for a player whose forward points to `heading` (None: the player has no heading)."""
    compass = steps(is_hex)
    chosen: set[str] = set()
    for word in words_:
        if word in _SETS[is_hex]:
            chosen.update(_SETS[is_hex][word])
        elif word in compass:
            chosen.add(word)
        elif word in RELATIVE_WORDS:
            if heading not in _RELATIVE[is_hex]:
                raise DirectionError(word, True, is_hex)
            chosen.update(_RELATIVE[is_hex][heading][word])
        else:
            raise DirectionError(word, False, is_hex)
    return tuple(d for d in compass if d in chosen)


class Grid:
    """The cells of a board and how they connect (blocked cells included: they are geometry).

    - `names`: the board's direction names, in compass order; a direction is an index into it.
    - `neighbours[d][i]`: the cell one step from i in direction d, or -1 off the board.
    - `rays[d][i]`: the cells walked from i in direction d, nearest first, up to the edge or,
      on a wrapped board, up to (not including) the return to i.
    - `lines`: every line of the board along every axis, as (cells, cyclic).
    Tables are built when first read, so a check that needs one distance builds no rays.
    """

    def __init__(self, rows: int, cols: int, is_hex: bool, wrap: bool, kind: str = ""):
        self.rows, self.cols, self.is_hex, self.wrap = rows, cols, is_hex, wrap
        self.kind = kind or ("hex" if is_hex else "square")  # the board kind's keyword, for messages
        self.size = rows * cols
        self.steps = steps(is_hex)
        self.names: tuple[str, ...] = tuple(self.steps)
        self._distances: dict[int, tuple[int, ...]] = {}

    @classmethod
    def of(cls, board: object) -> Grid | None:
        """The grid of a board node; None for a board kind or a size no stage can have."""
        if type(board) not in HEXAGONAL:
            return None
        rows, cols = board.rows, board.cols  # type: ignore[attr-defined]
        if not all(isinstance(n, int) and 1 <= n <= MAX_BOARD_SIDE for n in (rows, cols)):
            return None
        return cls(rows, cols, HEXAGONAL[type(board)], bool(board.wrap), board.keyword)  # type: ignore[attr-defined]

    # --- cells ------------------------------------------------------------------------------

    def index(self, row: int, col: int) -> int:
        return row * self.cols + col

    def square(self, i: int) -> tuple[int, int]:
        return divmod(i, self.cols)

    def contains(self, row: object, col: object) -> bool:
        return isinstance(row, int) and isinstance(col, int) and 0 <= row < self.rows and 0 <= col < self.cols

    def cells(self) -> Iterator[tuple[int, int]]:
        return ((r, c) for r in range(self.rows) for c in range(self.cols))

    @property
    def dims(self) -> str:
        return f"{self.rows}x{self.cols}"

    @property
    def last(self) -> str:
        """The name of the bottom-right cell."""
        return cell_name(self.rows - 1, self.cols - 1)

    def row_cells(self, r: int) -> frozenset[int]:
        return frozenset(self.index(r, c) for c in range(self.cols))

    def col_cells(self, c: int) -> frozenset[int]:
        return frozenset(self.index(r, c) for r in range(self.rows))

    def sides(self, pair: str) -> tuple[frozenset[int], frozenset[int]]:
        """The two sides a `connect` pair names: `top-bottom` or `left-right`."""
        if pair == "top-bottom":
            return self.row_cells(0), self.row_cells(self.rows - 1)
        if pair == "left-right":
            return self.col_cells(0), self.col_cells(self.cols - 1)
        raise ValueError(f"unknown sides {pair!r} (expected top-bottom or left-right)")

    # --- directions -------------------------------------------------------------------------

    @property
    def words(self) -> tuple[str, ...]:
        """The direction words that mean something on this board."""
        return words(self.is_hex)

    def is_empty_word(self, word: str) -> bool:
        """Whether a direction word names no direction at all on this board, for any heading."""
        return self.is_hex and word in ("diagonal", "forward-diagonal")

    def _step(self, i: int, dr: int, dc: int) -> int:
        r, c = divmod(i, self.cols)
        r, c = r + dr, c + dc
        if self.wrap:
            return (r % self.rows) * self.cols + c % self.cols
        return r * self.cols + c if 0 <= r < self.rows and 0 <= c < self.cols else -1

    @cached_property
    def neighbours(self) -> list[list[int]]:
        return [[self._step(i, dr, dc) for i in range(self.size)] for dr, dc in self.steps.values()]

    def _walk(self, i: int, d: int) -> tuple[int, ...]:
        """i, then the cells walked from it in direction d (on a torus a step is a translation,
        so the walk always comes back to i and stops there)."""
        out = [i]
        j = self.neighbours[d][i]
        while j >= 0 and j != i:
            out.append(j)
            j = self.neighbours[d][j]
        return tuple(out)

    @cached_property
    def rays(self) -> list[list[tuple[int, ...]]]:
        return [[self._walk(i, d)[1:] for i in range(self.size)] for d in range(len(self.names))]

    # --- lines ------------------------------------------------------------------------------

    @cached_property
    def lines(self) -> list[tuple[tuple[int, ...], bool]]:
        return [line for axis in axes(self.is_hex) for line in self._lines_along(self.names.index(axis))]

    def _lines_along(self, d: int) -> list[tuple[tuple[int, ...], bool]]:
        """The maximal walks in direction d: open ones from each cell with nothing behind it,
        then (wrapped boards) the closed cycles."""
        before = [-1] * self.size
        for i, j in enumerate(self.neighbours[d]):
            if j >= 0:
                before[j] = i
        seen: set[int] = set()
        lines = []
        for cyclic in (False, True):
            for i in range(self.size):
                if (before[i] >= 0 if not cyclic else i in seen):
                    continue
                line = self._walk(i, d)
                seen.update(line)
                lines.append((line, cyclic))
        return lines

    def longest_line(self, blocked: Iterable[int]) -> int:
        """The most playable cells in a row along one line of the board (blocked cells break a
        row; on a wrapped board a line is a cycle)."""
        blocked = frozenset(blocked)
        best = 0
        for cells, cyclic in self.lines:
            playable = [i not in blocked for i in cells]
            if cyclic and all(playable):
                best = max(best, len(cells))
                continue
            run = 0
            for ok in (playable + playable) if cyclic else playable:  # a cycle: read it round once more
                run = run + 1 if ok else 0
                best = max(best, run)
        return best

    # --- distances --------------------------------------------------------------------------

    def distances(self, i: int) -> tuple[int, ...]:
        """King-step distance from i to every cell (breadth-first over all directions, blocked
        cells included; -1 if unreachable, which only a 0-sized axis could cause)."""
        if i not in self._distances:
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
            self._distances[i] = tuple(dist)
        return self._distances[i]

    @cached_property
    def max_distance(self) -> int:
        """The largest king-step distance between two cells (see `jump N` in docs/language.md)."""
        if not self.wrap:
            if self.is_hex:  # axial coordinates: the far corner is (rows-1) + (cols-1) steps away
                return (self.rows - 1) + (self.cols - 1)
            return max(self.rows, self.cols) - 1
        return max(self.distances(0))  # a torus looks the same from every cell
