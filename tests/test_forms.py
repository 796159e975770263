"""Each rule concept's forms agree: a concept written on cells, on bitboards and, for pure
placement games, around the cell just played (compiler/ends.py, compiler/effects.py) gives the same
answer on random positions of random boards. The families that use a form are held to the generic
kernels' games elsewhere (tests/test_fast_playouts.py); this holds the forms to each other directly,
on positions no game would reach (pieces anywhere, blocked cells anywhere)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ludica import gdl
from ludica.compiler import codes as K
from ludica.compiler.bitboards import step_table
from ludica.compiler.effects import (
    cell_bits, custodial_collect, custodial_exists, custodial_taken, custodial_taken_stepped, custodial_targets,
    custodial_targets_stepped,
)
from ludica.compiler.ends import (
    connects_bits, connects_cells, line_bits, line_cells, line_through, sides_joined, start_sets,
)
from ludica.compiler.families.placement import _ring
from ludica.compiler.program import build

BOARDS = st.sampled_from([
    "square 3", "square 4", "square 5", "square 8", "rect 2 7", "rect 4 16", "rect 1 6", "hex 4", "hex 6",
    "square 4 wrap", "rect 3 5 wrap", "hex 3 wrap", "hex 5 wrap",
])


def _program(board: str, ends: str = "end no-moves: draw\n"):
    text = f"board {board}\nplayers x o\nmove place empty\n{ends}"
    return build(gdl.loads(text))[0]


@st.composite
def positions(draw, bitboard_only: bool = False, ends: str = "end no-moves: draw\n"):
    """A board's program and a random position on it (blocked cells too), with the side to move."""
    board = draw(BOARDS.filter(lambda b: not (bitboard_only and "wrap" in b)))
    program = _program(board, ends)
    n = int(program.game[K.G_CELLS])
    cells = np.array(draw(st.lists(st.sampled_from([-1, 0, 0, 1, 1, 2, 2]), min_size=n, max_size=n)), dtype=np.int32)
    state = np.concatenate([cells, np.zeros(K.STATE_EXTRA, np.int32)])
    return program, state, draw(st.integers(0, 1))


def _bits(cells: np.ndarray, value: int) -> np.uint64:
    return np.uint64(sum(1 << int(i) for i in np.flatnonzero(cells == value)))


@settings(max_examples=150, deadline=None)
@given(positions(bitboard_only=True), st.data())
def test_custodial_on_cells_and_on_bitboards_agree(position, data):
    program, state, player = position
    n = int(program.game[K.G_CELLS])
    n_dirs = program.nbr.shape[0]
    dirs = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n_dirs, max_size=n_dirs)), dtype=np.int32)
    over = data.draw(st.booleans())
    cells = state[:n]
    me, op, empty, blocked = (np.uint64(b) for b in cell_bits(cells, player, n))  # numba hands back ints
    targets = int(custodial_targets(me, op, empty, blocked, dirs, over, program.bb_shift, program.bb_mask,
                                    program.opposite))
    buf = np.empty(program.rays.shape[0] * program.rays.shape[2] + 8, np.int32)
    for at in np.flatnonzero(cells == 0):
        at = int(at)
        exists = custodial_exists(cells, player + 1, 2 - player, at, dirs, over, program.rays, program.ray_len)
        assert exists == bool(targets >> at & 1), f"legality of {at}: rays say {exists}"
        m = custodial_collect(cells, player + 1, 2 - player, at, dirs, over, program.rays, program.ray_len, buf)
        taken = int(custodial_taken(me, op, blocked, at, dirs, over, program.bb_shift, program.bb_mask))
        assert set(buf[:m].tolist()) == {i for i in range(n) if taken >> i & 1}, f"pieces taken from {at}"
        assert exists == (m > 0)


@settings(max_examples=200, deadline=None)
@given(positions(), st.integers(1, 7), st.booleans())
def test_a_line_on_cells_around_each_piece_and_on_bitboards_agree(position, k, exact):
    program, state, player = position
    n = int(program.game[K.G_CELLS])
    cells, mine = state[:n], player + 1
    whole = line_cells(cells, mine, k, exact, program.lines, program.line_len, program.line_cyclic)
    rings = np.array([_ring(program.nbr, int(d)) for d in program.axes], dtype=np.int32)
    through = any(line_through(cells, int(at), mine, k, exact, program.nbr, program.axes, program.opposite, rings)
                  for at in np.flatnonzero(cells == mine))
    assert whole == through, "the whole board and the runs through each piece disagree"
    if program.game[K.G_BITBOARD]:
        bits = line_bits(_bits(cells, mine), k, exact, program.axes, program.bb_shift, program.bb_mask,
                         program.opposite)
        assert whole == bits, "cells and bitboards disagree"


CONNECT = "end connect top-bottom left-right: mover wins\nend connect left-right left-right: mover loses\n"


@settings(max_examples=200, deadline=None)
@given(positions(ends=CONNECT))
def test_a_connection_on_cells_in_a_union_find_and_on_bitboards_agree(position):
    program, state, player = position
    n = int(program.game[K.G_CELLS])
    cells, mine = state[:n], player + 1
    sets = start_sets(cells, program.nbr, program.orth, program.ends, program.regions, n)
    stack, seen = np.empty(n + 1, np.int32), np.empty(n + 1, np.int32)
    for e in range(program.ends.shape[0]):
        first = program.ends[e, K.E_PARAM] + 2 * player
        start, goal = program.regions[first], program.regions[first + 1]
        whole = connects_cells(cells, mine, start, goal, program.nbr, program.orth, n, stack, seen)
        assert whole == sides_joined(sets[e], player, n), f"end {e}: a search and the union-find disagree"
        if program.game[K.G_BITBOARD]:
            masks = [_bits(region, 1) for region in (start, goal)]
            bits = connects_bits(_bits(cells, mine), *masks, program.orth, program.bb_shift, program.bb_mask)
            assert whole == bits, f"end {e}: cells and bitboards disagree"


def test_custodial_on_bitboards_follows_runs_longer_than_six():
    """The bitboard forms grow every run 5 steps as straight code, then on where a line is longer
    (effects.py): a run of 12 on a board 16 wide, and one crossing a blocked cell, as the rays say."""
    program = _program("rect 1 16")
    for over, blocked_at in ((False, None), (True, 6)):
        cells = np.array([1] + [2] * 12 + [0, 0, 1], dtype=np.int32)  # x o o ... o . . x
        if blocked_at is not None:
            cells[blocked_at] = -1
        dirs = np.ones(program.nbr.shape[0], dtype=np.int32)
        me, op, empty, blocked = (np.uint64(b) for b in cell_bits(cells, 0, 16))
        targets = int(custodial_targets(me, op, empty, blocked, dirs, over, program.bb_shift, program.bb_mask,
                                        program.opposite))
        assert targets == 1 << 13, bin(targets)  # closes the run of 12 (cell 14 closes nothing)
        taken = int(custodial_taken(me, op, blocked, 13, dirs, over, program.bb_shift, program.bb_mask))
        buf = np.empty(64, np.int32)
        m = custodial_collect(cells, 1, 2, 13, dirs, over, program.rays, program.ray_len, buf)
        assert {i for i in range(16) if taken >> i & 1} == set(buf[:m].tolist()) == set(range(1, 13)) - {blocked_at}
        # the Othello family's forms, with their step tables (bitboards.step_table)
        back = step_table(dirs, program.bb_shift, program.bb_mask, program.opposite)
        forth = step_table(dirs, program.bb_shift, program.bb_mask)
        assert int(custodial_targets_stepped(me, op, empty, blocked, over, back)) == targets
        assert int(custodial_taken_stepped(me, op, blocked, 13, over, forth)) == taken
