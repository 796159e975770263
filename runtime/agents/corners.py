"""Corners: the first legal corner move (row-major), else a random legal edge move, else greedy
(the most pieces captured, the first maximum), as the Arena's Corners.

Corners and edges come from the board's shape, as the Arena's evaluateBoard (`api.evaluate`)
defines them: a cell is on the edge when it has fewer neighbours on the board than a cell in the
middle (8 on a square board, 6 on a hex board), and the edge cells with the fewest neighbours are
the corners. On a rectangle those are its outer rows and columns and its four corner cells (the
Arena's on 8x8); on the hex rhombus, its border and its two sharp corners. Blocked cells stay cells
of the shape, as in the Arena. A move is at its destination (`b2-b3` is at b3); a pass is nowhere.
"""
import random

# (row step, column step) to each neighbour; on the hex rhombus row r sits half a cell right of row r-1
STEPS = {"square": ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)),
         "hex": ((-1, 0), (-1, 1), (0, 1), (1, 0), (1, -1), (0, -1))}


def shape_classes(stage):
    """(corner cells, non-corner edge cells) of the stage's board, as sets of (row, col)."""
    steps = STEPS.get(stage.shape, STEPS["square"])
    degree = {(r, c): sum(0 <= r + dr < stage.rows and 0 <= c + dc < stage.cols for dr, dc in steps)
              for r in range(stage.rows) for c in range(stage.cols)}
    edge = {cell for cell, d in degree.items() if d < len(steps)}
    if not edge:
        return set(), set()
    fewest = min(degree[cell] for cell in edge)
    corners = {cell for cell in edge if degree[cell] == fewest}
    return corners, edge - corners


def analyze(stage, api, clock):
    corners, edges = shape_classes(stage)

    def strategy(state, legal_moves, clock):
        on_corner = [m for m in legal_moves if m.dst in corners]
        if on_corner:
            return min(on_corner, key=lambda m: m.dst)  # row-major; min keeps the first of equals
        on_edge = [m for m in legal_moves if m.dst in edges]
        if on_edge:
            return random.choice(on_edge)
        return max(legal_moves, key=lambda move: api.apply(state, move)[1])  # greedy: the first maximum

    return strategy
