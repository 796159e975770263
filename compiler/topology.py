"""Board topology: the board as a networkx graph of cells with direction-labelled edges, lowered
to the integer tables the kernels read.

Square, rectangular, hex and wrapped boards differ only here. Cells are numbered row-major
(cell i is (i // cols, i % cols)); blocked cells stay in the graph (they lie on rays and lines and
count for distances) and are marked, play ignores them. Tables (all int32, -1 = none):

- `nbr[d, i]`                 the cell one step from i in direction d (compass order of the board)
- `rays[d, i, k]`, `ray_len[d, i]`   the cells walked from i in direction d, nearest first, up to
                              the edge or, on a wrapped board, up to the return to i
- `lines[l, k]`, `line_len[l]`, `line_cyclic[l]`   every maximal line along every axis
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from ..gdl import geometry
from ..gdl.ast import Stage


@dataclass(frozen=True, eq=False)
class Topology:
    rows: int
    cols: int
    is_hex: bool
    wrap: bool
    directions: tuple[str, ...]
    graph: nx.MultiDiGraph
    blocked: np.ndarray  # bool[n_cells]
    nbr: np.ndarray
    rays: np.ndarray
    ray_len: np.ndarray
    lines: np.ndarray
    line_len: np.ndarray
    line_cyclic: np.ndarray

    @property
    def n_cells(self) -> int:
        return self.rows * self.cols

    def index(self, row: int, col: int) -> int:
        return row * self.cols + col

    def direction_mask(self, names: tuple[str, ...]) -> np.ndarray:
        """int32[n_dirs]: 1 for the directions named."""
        return np.array([d in names for d in self.directions], dtype=np.int32)

    def distances(self) -> np.ndarray:
        """int32[n_cells, n_cells]: king steps between cells over the whole board (blocked cells
        included), the `jump N` / `clone N` distance of docs/language.md."""
        r, c = np.divmod(np.arange(self.n_cells), self.cols)
        dr, dc = r[:, None] - r[None, :], c[:, None] - c[None, :]
        if not self.wrap:
            if self.is_hex:  # axial coordinates: (r-1, c+1) is a neighbour
                return ((np.abs(dr) + np.abs(dc) + np.abs(dr + dc)) // 2).astype(np.int32)
            return np.maximum(np.abs(dr), np.abs(dc)).astype(np.int32)
        lengths = dict(nx.all_pairs_shortest_path_length(self.graph))
        return np.array([[lengths[i][j] for j in range(self.n_cells)] for i in range(self.n_cells)], dtype=np.int32)


def board_graph(rows: int, cols: int, is_hex: bool, wrap: bool, blocked: frozenset[tuple[int, int]]) -> nx.MultiDiGraph:
    """Cells as nodes (row, col, blocked), one edge per step with its direction's name and index."""
    g = nx.MultiDiGraph()
    for r in range(rows):
        for c in range(cols):
            g.add_node(r * cols + c, row=r, col=c, blocked=(r, c) in blocked)
    for d, (name, (dr, dc)) in enumerate(geometry.steps(is_hex).items()):
        for r in range(rows):
            for c in range(cols):
                rr, cc = r + dr, c + dc
                if wrap:
                    rr, cc = rr % rows, cc % cols
                elif not (0 <= rr < rows and 0 <= cc < cols):
                    continue
                g.add_edge(r * cols + c, rr * cols + cc, key=name, direction=d)
    return g


def lower(stage: Stage) -> Topology:
    board = stage.board
    rows, cols = board.rows, board.cols
    is_hex = geometry.hexagonal(board)
    names = tuple(geometry.steps(is_hex))
    g = board_graph(rows, cols, is_hex, board.wrap, stage.blocked_cells)
    n = rows * cols

    nbr = np.full((len(names), n), -1, dtype=np.int32)
    for i, j, data in g.edges(data=True):
        nbr[data["direction"], i] = j

    # On a wrapped rectangle a diagonal ring can be longer than a side (lcm of the sides).
    longest = n + 1 if board.wrap else max(rows, cols) + 1
    rays = np.full((len(names), n, longest), -1, dtype=np.int32)
    ray_len = np.zeros((len(names), n), dtype=np.int32)
    for d in range(len(names)):
        for i in range(n):
            j, k = nbr[d, i], 0
            while j >= 0 and j != i:  # on a torus a step is a translation: the walk comes back to i
                rays[d, i, k] = j
                k += 1
                j = nbr[d, j]
            ray_len[d, i] = k

    found: list[tuple[list[int], bool]] = []
    for axis in geometry.axes(is_hex):
        d = names.index(axis)
        behind = np.full(n, -1)
        for i in range(n):
            if nbr[d, i] >= 0:
                behind[nbr[d, i]] = i
        seen: set[int] = set()
        for cyclic in (False, True):  # open lines from cells with nothing behind; then the rings
            for i in range(n):
                if i in seen or (not cyclic and behind[i] >= 0):
                    continue
                line = [i] + [int(x) for x in rays[d, i, : ray_len[d, i]]]
                seen.update(line)
                found.append((line, cyclic))
    lines = np.full((len(found), longest), -1, dtype=np.int32)
    for l, (line, _) in enumerate(found):
        lines[l, : len(line)] = line
    blocked = np.zeros(n, dtype=bool)
    for r, c in stage.blocked_cells:
        blocked[r * cols + c] = True
    return Topology(
        rows=rows, cols=cols, is_hex=is_hex, wrap=board.wrap, directions=names, graph=g, blocked=blocked,
        nbr=nbr, rays=rays, ray_len=ray_len, lines=lines,
        line_len=np.array([len(line) for line, _ in found], dtype=np.int32),
        line_cyclic=np.array([cyclic for _, cyclic in found], dtype=np.int32),
    )
