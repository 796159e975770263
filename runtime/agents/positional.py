"""Positional: the legal move whose cell has the highest weight, the first maximum in the stage's
order (row-major for placements), as the Arena's Positional.

On every 8x8 square board the weights are the Arena's table, exactly, blocked cells or not: the
Arena's Positional on its own boards (its "Partial C-Squares" stage included), so that results
there compare with the Arena's. Other boards read the same table through a cell's distance to the
nearest wall, along its column (which row of the table) and along its row (which column), where a
wall is the board's edge or a blocked cell, and distances of 3 or more count as 3 (the table's
inner ring):

    distance along the row →   0    1    2   3+
    along the column   0     120  -20   20    5     corners, C-squares, A- and B-edges
                       1     -20  -40   -5   -5     C-squares, X-squares, the ring next to the edge
                       2      20   -5   15    3
                       3+      5   -5    3    3     the inner ring and the middle

On an 8x8 board without blocked cells this is the Arena's table (it is symmetric). On 10x10 the
edge reads 120 -20 20 5 5 5 5 20 -20 120 and the middle is 3; on 6x6, 120 -20 20 20 -20 120. A
blocked cell is a wall as the edge is: under the standard rules a capture stops at it, so the cell
beyond it on an edge can no longer be outflanked along that line and becomes a corner, the cells
next to it become C-squares, and so on (with b1 blocked on 10x10, c1 weighs 120 and d1 -20; the
adaptive agent learns the same of c1 on the Arena's 8x8 "Partial C-Squares" board, where the
Arena's table gives it 20). On the hex rhombus, the walls along its rows and columns count (the
third axis is ignored). Blocked cells weigh 0; they are never played.

A move is judged by the weight of its destination (`b2-b3` by b3); a pass weighs less than every
cell. The destination, not the weighted sum of the resulting position, because that is the Arena's
Positional (its strength is the table's, not a lookahead's) and it needs no simulation.
"""

ARENA_TABLE = (
    (120, -20, 20, 5, 5, 20, -20, 120),
    (-20, -40, -5, -5, -5, -5, -40, -20),
    (20, -5, 15, 3, 3, 15, -5, 20),
    (5, -5, 3, 3, 3, 3, -5, 5),
    (5, -5, 3, 3, 3, 3, -5, 5),
    (20, -5, 15, 3, 3, 15, -5, 20),
    (-20, -40, -5, -5, -5, -5, -40, -20),
    (120, -20, 20, 5, 5, 20, -20, 120),
)
INNER = 3  # distances from here on are the table's inner ring


def weights(stage):
    """The weight of every cell of the stage's board: rows × cols lists (see the module's text)."""
    blocked = set(stage.blocked)

    def open_cell(r, c):
        return 0 <= r < stage.rows and 0 <= c < stage.cols and (r, c) not in blocked

    def to_wall(r, c, dr, dc):
        """Open cells from (r, c), excluded, to the first wall in direction (dr, dc)."""
        n = 0
        while n < INNER and open_cell(r + (n + 1) * dr, c + (n + 1) * dc):
            n += 1
        return n

    if (stage.shape, stage.rows, stage.cols) == ("square", 8, 8):
        return [list(row) for row in ARENA_TABLE]
    table = [[0] * stage.cols for _ in range(stage.rows)]
    for r in range(stage.rows):
        for c in range(stage.cols):
            if open_cell(r, c):
                band_row = min(to_wall(r, c, -1, 0), to_wall(r, c, 1, 0))
                band_col = min(to_wall(r, c, 0, -1), to_wall(r, c, 0, 1))
                table[r][c] = ARENA_TABLE[band_row][band_col]
    return table


def analyze(stage, api, clock):
    table = weights(stage)
    lowest = min(min(row) for row in table) - 1  # a pass

    def strategy(state, legal_moves, clock):
        return max(legal_moves, key=lambda m: lowest if m.dst is None else table[m.dst[0]][m.dst[1]])

    return strategy
