"""Chance at the start: the cells a stage's random lines draw for one game, from its seed. One
definition, which the reference interpreter and the compiled game both call (a rule copied per
engine drifts), so the two start every game alike.

A game's start draws from its own generator, `start_generator(seed, number)` (the kernels'
generator, gdl/rng.py, on a stream apart from the one its moves draw from). The lines are drawn in
order: every `blocked random` line, then every `setup random` line, as written. A line takes
`count` cells among those it lists (in row-major order) that are still empty when it is drawn (not
blocked, set up or drawn by a line before it), one at a time, each uniform among those left: every
set of `count` cells is equally likely. The checks (gdl/checks/chance.py) make sure enough are left.
"""
from __future__ import annotations

from ..ast import Stage, expand
from ..rng import draw, game_generator

BLOCKED, EMPTY = -1, 0
START_STREAM = 0x6A09E667F3BCC909  # mixed into the seed: a start's draws are no game's moves' draws

Line = tuple[int, int, tuple[int, ...]]  # (what the drawn cells hold, how many, the cells listed, row-major)


def lines(stage: Stage) -> tuple[Line, ...]:
    """A stage's random lines as the draw reads them, in the order drawn ((): a fixed start)."""
    cols = stage.board.cols
    names = stage.player_names

    def listed(items) -> tuple[int, ...]:
        return tuple(sorted({c.row * cols + c.col for c in expand(items)}))

    return (tuple((BLOCKED, b.count, listed(b.cells)) for b in stage.random_blocked)
            + tuple((names.index(r.player) + 1, r.count, listed(r.cells)) for r in stage.random_setup))


def start_generator(seed: int, number: int = 0) -> int:
    """The generator a game's start draws from: game `number` of `seed` (a referee's game: 0)."""
    return game_generator(seed ^ START_STREAM, number)


def drawn(fixed: tuple[int, ...], random_lines: tuple[Line, ...], seed: int, number: int = 0) -> tuple[int, ...]:
    """The start of game `number` of `seed`: the fixed start's cells (row-major: -1 blocked, 0
    empty, 1 and 2 the players' pieces) with the random lines' cells drawn onto them."""
    if not random_lines:
        return fixed
    cells, x = list(fixed), start_generator(seed, number)
    for value, count, listed in random_lines:
        free = [i for i in listed if cells[i] == EMPTY]
        for _ in range(count):
            x, k = draw(x, len(free))
            cells[free.pop(k)] = value
    return tuple(cells)
