"""Chance (`blocked random`, `setup PLAYER random`, `roll`): every draw must be possible and mean
something. A random line names a player that plays, cells on the board, at least one cell to draw;
and however the lines before it fall, enough of its cells are left (neither blocked, nor set up, nor
drawn). A roll throws 1 to MAX_DICE dice of 2 to MAX_FACES faces, and a move reads it (a move kind
with the trait `reads_roll`); a move that reads the roll needs one."""
from __future__ import annotations

from collections.abc import Iterator

from .. import ast as A
from ..diagnostics import Diagnostic, diagnostic
from ..printer import text
from .context import Check, Context, cell_label, collector, did_you_mean, quoted_list, span_of

CHECKS: list[Check] = []  # run in this order
MAX_DICE, MAX_FACES = A.MAX_DICE, A.MAX_FACES
check = collector(CHECKS)


def _lines(stage: A.Stage) -> list[A.RandomBlocked | A.RandomSetup]:
    """The random lines, in the order they are drawn: blocked cells first."""
    return [*stage.random_blocked, *stage.random_setup]


@check
def _random_players(ctx: Context) -> Iterator[Diagnostic]:
    for line in ctx.stage.random_setup:
        if line.player not in ctx.players:
            yield diagnostic("check.setup-unknown-player", span_of(line), did_you_mean(line.player, ctx.players),
                             name=line.player, players=quoted_list(ctx.players))


@check
def _random_cells_on_board(ctx: Context) -> Iterator[Diagnostic]:
    g = ctx.geometry
    if g is None:
        return
    for line in _lines(ctx.stage):
        for item in line.cells:
            for cell in (item.first, item.last) if isinstance(item, A.CellRange) else (item,):
                if not g.contains(cell.row, cell.col):
                    yield diagnostic(
                        "check.cell-off-board", span_of(cell, item, line),
                        f"cells are a column letter a..{A.COLUMN_LETTERS[g.cols - 1]} and a row number 1..{g.rows}",
                        cell=cell_label(cell.row, cell.col), dims=g.dims, last=g.last)


@check
def _random_enough_cells(ctx: Context) -> Iterator[Diagnostic]:
    """Each line draws `count` of its cells that are still empty; the lines before it may have taken
    any of theirs that it lists too, so the worst case counts them all."""
    g = ctx.geometry
    if g is None:
        return
    fixed = set(ctx.blocked) | {cell for cells in ctx.set_up.values() for cell in cells}
    earlier: list[tuple[frozenset[tuple[int, int]], int]] = []
    for line in _lines(ctx.stage):
        cells = list(A.expand(line.cells))
        if not all(g.contains(c.row, c.col) for c in cells):
            continue  # said: a cell off the board
        free = frozenset((c.row, c.col) for c in cells) - fixed
        taken = sum(count for cells, count in earlier if cells & free)
        if line.count < 1:
            yield diagnostic("check.random-none", span_of(line), "draw at least 1, or remove the line",
                             line=text(line))
        elif line.count + taken > len(free):
            hint = (f"list more cells, or draw at most {max(len(free) - taken, 0)}" if len(free) > taken
                    else "list cells that no other line can take")
            yield diagnostic("check.random-too-few-cells", span_of(line), hint, line=text(line), count=line.count,
                             free=len(free), taken=taken)
        earlier.append((free, line.count))


@check
def _roll_dice(ctx: Context) -> Iterator[Diagnostic]:
    roll = ctx.stage.roll
    if roll is not None and not (1 <= roll.dice <= MAX_DICE and 2 <= roll.faces <= MAX_FACES):
        yield diagnostic("check.roll-dice", span_of(roll), f"throw 1 to {MAX_DICE} dice of 2 to {MAX_FACES} faces, "
                         "like `roll 1d6`", line=text(roll), max_dice=MAX_DICE, max_faces=MAX_FACES)


@check
def _roll_reach(ctx: Context) -> Iterator[Diagnostic]:
    """Dice whose lowest total is longer than any straight line of the board move nothing, ever."""
    roll, g = ctx.stage.roll, ctx.geometry
    if roll is None or g is None or not 1 <= roll.dice <= MAX_DICE:
        return
    reach = max(g.rows, g.cols) - 1  # the longest straight line, in cells moved (wrapped or not)
    if roll.lowest > reach:
        yield diagnostic("check.roll-too-far", span_of(roll), "throw fewer dice, or play on a larger board",
                         line=text(roll), lowest=roll.lowest, dims=g.dims, reach=reach)


@check
def _roll_read(ctx: Context) -> Iterator[Diagnostic]:
    """A roll no move reads is chance that changes nothing; a move that reads a roll needs one."""
    roll, readers = ctx.stage.roll, [m for m in ctx.stage.moves if m.kind.reads_roll]
    if roll is not None and not readers:
        yield diagnostic("check.roll-unused", span_of(roll),
                         "add a move that reads it, like `move advance forward to empty`, or remove the line",
                         line=text(roll))
    if roll is None:
        for move in readers:
            yield diagnostic("check.advance-without-roll", span_of(move), "add a `roll` line, like `roll 1d6`",
                             line=text(move))
