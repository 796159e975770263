"""The placement family's line test in its ply loop (ends.line_placed_bits: every axis shifted k - 1
times, no early exit) agrees with the line on cells, on random positions of every board of at most
64 cells without wrap (the boards the family reads lines of on bitboards)."""
from __future__ import annotations

import numpy as np
import pytest

from ludica import gdl
from ludica.compiler import codes as K
from ludica.compiler.ends import line_cells, line_placed_bits
from ludica.compiler.program import build

BOARDS = ["square 3", "square 4", "square 8", "rect 6 7", "rect 2 7", "rect 1 6", "hex 4", "hex 6"]


def _bits(cells: np.ndarray, value: int) -> np.uint64:
    return np.uint64(sum(1 << int(i) for i in np.flatnonzero(cells == value)))


@pytest.mark.parametrize("board", BOARDS)
def test_a_line_on_bitboards_without_exits_agrees_with_cells(board):
    program = build(gdl.loads(f"board {board}\nplayers x o\nmove place empty\nend no-moves: draw\n"))[0]
    assert program.game[K.G_BITBOARD]
    n = int(program.game[K.G_CELLS])
    rng = np.random.default_rng(21)
    seen = set()
    for _ in range(300):
        # dense positions too, so that long runs (and runs of exactly k) occur
        cells = rng.choice(np.array([-1, 0, 1, 2], np.int32), size=n, p=rng.dirichlet(np.ones(4)))
        mine = int(rng.integers(1, 3))
        me = _bits(cells, mine)
        for k in range(1, 8):
            for exact in (False, True):
                whole = line_cells(cells, mine, k, exact, program.lines, program.line_len, program.line_cyclic)
                placed = line_placed_bits(me, k, exact, program.axes, program.bb_shift, program.bb_mask,
                                          program.opposite)
                assert whole == placed, (board, cells.tolist(), mine, k, exact)
                seen.add(bool(whole))
    assert seen == {True, False}  # both answers were put to the test
