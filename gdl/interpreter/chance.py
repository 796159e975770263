"""Chance: the cells a stage's random lines draw for one game, and the rolls of its dice, from its
seed. One definition, which the reference interpreter, the compiled game and the referee all call
(a rule copied per engine drifts), so they start and throw every game alike.

Dice (`roll KdN`): the roll of ply t of game `number` of `seed` (the roll the side to move throws
before its move, ply 0 the first) comes from `roll_generator(seed, number, t)`, on a stream of its
own: K draws of a face 1..N, summed. A ply's roll depends on nothing but its number, so a resumed or
replayed game throws the same dice. Random games inside the kernels throw from their own generator
(compiler/rng.py) instead, as they draw their moves.

A game's start draws from its own generator, `start_generator(seed, number)` (the kernels'
generator, gdl/rng.py, on a stream apart from the one its moves draw from). The lines are drawn in
order: every `blocked random` line, then every `setup random` line, as written. A line takes
`count` cells among those it lists (in row-major order) that are still empty when it is drawn (not
blocked, set up or drawn by a line before it), one at a time, each uniform among those left: every
set of `count` cells is equally likely. The checks (gdl/checks/chance.py) make sure enough are left.
"""
from __future__ import annotations

import random

from ..ast import Roll, Stage, expand
from ..rng import draw, game_generator

BLOCKED, EMPTY = -1, 0
START_STREAM = 0x6A09E667F3BCC909  # mixed into the seed: a start's draws are no game's moves' draws
ROLL_STREAM = 0xBB67AE8584CAA73B  # and a roll's are neither

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


def roll_generator(seed: int, number: int, ply: int) -> int:
    """The generator the roll of ply `ply` of game `number` of `seed` is drawn from."""
    return game_generator(seed ^ ROLL_STREAM, ((number & 0xFFFFFFFF) << 32) | (ply & 0xFFFFFFFF))


def thrown(roll: Roll, x: int) -> tuple[int, int]:
    """(next generator, the total of the roll's dice) drawn from generator `x`."""
    total = 0
    for _ in range(roll.dice):
        x, face = draw(x, roll.faces)
        total += face + 1
    return x, total


def throw(roll: Roll | None, dice: random.Random) -> int:
    """A roll thrown with a game's own dice (`apply`'s, for a search; 0 without dice). A search
    throws from a generator of its own: the referee's rolls come from the game's seed (`rolled`)."""
    return 0 if roll is None else sum(dice.randint(1, roll.faces) for _ in range(roll.dice))


def rolled(roll: Roll | None, seed: int, number: int, ply: int) -> int:
    """The roll of ply `ply` of game `number` of `seed` (0 on a stage without dice)."""
    if roll is None:
        return 0
    return thrown(roll, roll_generator(seed, number, ply))[1]
