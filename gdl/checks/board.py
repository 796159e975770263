"""The board and its cells: size, cells on the board, blocked cells."""
from __future__ import annotations

from collections.abc import Iterator

from .. import ast as A
from ..diagnostics import Diagnostic, diagnostic
from .context import (
    Check, Context, collector, span_of, where, cell_label, cell_items,
)

CHECKS: list[Check] = []  # run in this order
check = collector(CHECKS)


@check
def _board_size(ctx: Context) -> Iterator[Diagnostic]:
    board = ctx.stage.board
    if not isinstance(board, A.BOARD_KINDS) or ctx.geometry is not None:
        return
    sides = (board.rows,) if board.rows == board.cols else (board.rows, board.cols)
    size = "x".join(str(n) for n in sides)
    too_big = any(isinstance(n, int) and n > A.MAX_BOARD_SIDE for n in sides)
    hint = ("a column is one letter (a..z), so a board has at most 26 columns, and at most 26 rows" if too_big
            else "a board has at least one row and one column")
    yield diagnostic("check.board-size", span_of(board), hint, size=size)


@check
def _cells_on_board(ctx: Context) -> Iterator[Diagnostic]:
    """Every cell of `blocked` and `setup` (a range: both corners) lies on the board."""
    g = ctx.geometry
    if g is None:
        return
    statements: list[tuple[A.CellItem, A.Setup | None]] = [(item, None) for item in ctx.stage.blocked]
    statements += [(item, s) for s in ctx.stage.setup for item in s.cells]
    for item, parent in statements:
        corners = (item.first, item.last) if isinstance(item, A.CellRange) else (item,)
        for cell in corners:
            if not g.contains(cell.row, cell.col):
                yield diagnostic(
                    "check.cell-off-board", span_of(cell, item, parent),
                    f"cells are a column letter a..{A.COLUMN_LETTERS[g.cols - 1]} and a row number 1..{g.rows}",
                    cell=cell_label(cell.row, cell.col), dims=g.dims, last=g.last,
                )


@check
def _blocked_twice(ctx: Context) -> Iterator[Diagnostic]:
    first: dict[tuple[int, int], A.Span | None] = {}
    for item, cells in cell_items(ctx.stage.blocked):
        again = [c for c in cells if (c.row, c.col) in first]
        if again:
            c = again[0]
            yield diagnostic(
                "check.blocked-twice", span_of(item), "a cell is blocked once: remove the repetition",
                cell=cell_label(c.row, c.col), first=where(first[(c.row, c.col)], span_of(item)),
            )
        for c in cells:
            first.setdefault((c.row, c.col), span_of(item))


@check
def _board_no_cell(ctx: Context) -> Iterator[Diagnostic]:
    g = ctx.geometry
    if g is not None and len(ctx.blocked) == g.rows * g.cols:
        yield diagnostic("check.board-no-cell", span_of(ctx.stage.board), "unblock at least one cell",
                         count=g.rows * g.cols, dims=g.dims)
