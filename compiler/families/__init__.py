"""Families: straight code for kinds of stage that play the very games the generic kernels play
(same legal order, same random draws, so the same results for a seed), only faster.

A family is one module of this package with:

- `NAME`: how it is shown (`CompiledGame.fast_playouts`, the bench);
- `HANDLES` and `EXCLUDES`: per concept category (codes.py), the codes it plays and the codes it
  leaves to the generic kernels; between them they name every code of the category
  (tests/test_concepts.py), so a new concept is decided for every family, never taken by accident;
- `applies(program) -> tables | None`: the arrays its kernels take, or None when the stage's shape
  is not the family's (a stage using a code outside HANDLES never gets this far): its int32 tables
  packed in the order of a `program.Layout`, by name, then its uint64 ones;
- `named_tables(program)` and the inlined kernel `unpack(ints, bits)`: those tables by name, as
  the family derives them and as its kernels read them back (a namedtuple, `Tables`):
  tests/test_families.py holds the two to each other;
- `playouts(tables, starts, first_game, seed, max_plies, lengths, winners)`: playouts.playouts'
  job, the games of ply.playout_kernel, for which the family hands in only how a position begins,
  what its status is and how a move advances it;
- optionally a kernel `step(state, slab, row, code, known, ints, bits) -> (taken, moves, over,
  winner)`, a move played for a call from Python (calls.step's contract, made by ply.step_kernel
  from how the family describes a position and plays a move), and `step_tables(program, tables) ->
  (ints, bits)`, its two arrays (calls.with_listing).

A position's outcome is read by ends.end_rule (the first end that holds decides) in every family,
with the family's own reading of one end.

Adding a family is one module here and one entry in FAMILIES; the first family that takes a stage
plays it.
"""
from __future__ import annotations

from types import ModuleType

from .. import codes as K
from ..codes import CATEGORIES
from . import othello, pieces, placement

FAMILIES: tuple[ModuleType, ...] = (othello, placement, pieces)


def codes_used(program) -> dict[str, set[int]]:
    """The codes of each category that a program uses."""
    rules = program.rules
    effects = {int(program.effects[r, e, K.FX_KIND]) for r in range(rules.shape[0])
               for e in range(rules[r, K.R_N_EFFECTS])}
    return {
        "moves": set(rules[:, K.R_KIND].tolist()), "targets": set(rules[:, K.R_TARGET].tolist()),
        "effects": effects, "turns": {int(program.game[K.G_TURN])},
        "conditions": set(program.ends[:, K.E_CONDITION].tolist()), "results": set(program.ends[:, K.E_RESULT].tolist()),
    }


def select(program) -> tuple[ModuleType | None, tuple | None]:
    """The family that plays a program and its tables, or (None, None): the generic kernels."""
    used = codes_used(program)
    for family in FAMILIES:
        if all(used[category] <= family.HANDLES[category] for category in CATEGORIES):
            tables = family.applies(program)
            if tables is not None:
                return family, tables
    return None, None


def bitboard_board(program) -> bool:
    """Whether the board's sides fit bitboards (≤ 64 cells, no wrap)."""
    return bool(program.game[K.G_BITBOARD])


__all__ = ["FAMILIES", "select", "codes_used"]
