"""Ends: line lengths, ply caps, ends that hold at the start or never."""
from __future__ import annotations

from collections.abc import Iterator

from .. import ast as A
from ..diagnostics import Diagnostic, diagnostic
from .context import (
    Check, Context, collector, span_of, where, show,
)

CHECKS: list[Check] = []  # run in this order
check = collector(CHECKS)


@check
def _missing_ends(ctx: Context) -> Iterator[Diagnostic]:
    if not ctx.stage.ends and "end" not in ctx.partial:
        yield diagnostic("stage.missing-statement", ctx.start, keyword="end",
                         why="a stage needs at least one way to end, e.g. `end no-moves: most-pieces`")


@check
def _line_lengths(ctx: Context) -> Iterator[Diagnostic]:
    g = ctx.geometry
    for end in ctx.stage.ends:
        c = end.condition
        if not isinstance(c, A.Line) or not isinstance(c.length, int):
            continue
        span = span_of(c, end)
        if c.length < 1:
            yield diagnostic("check.line-too-short", span, "the length of a line is at least 1",
                             condition=show(c))
        elif g is not None:
            longest = g.longest_line(ctx.blocked_cells)
            if c.length > longest:
                yield diagnostic("check.line-too-long", span, f"on this board the length is 1 to {longest}",
                                 condition=show(c), dims=g.dims, longest=longest)


@check
def _after_plies(ctx: Context) -> Iterator[Diagnostic]:
    for end in ctx.stage.ends:
        c = end.condition
        if isinstance(c, A.AfterPlies) and isinstance(c.plies, int) and c.plies < 1:
            yield diagnostic("check.after-zero", span_of(c, end),
                             "count at least 1 ply: `after 1 plies` ends the game after the first move",
                             condition=show(c))


def _no_pieces_at_start(ctx: Context, c: object, end: A.End) -> Iterator[Diagnostic]:
    if ctx.players and not ctx.set_up.get(ctx.players[0]) and ctx.players[0] not in ctx.dealt:
        first = ctx.players[0]
        yield diagnostic("check.no-pieces-at-start", span_of(c, end),
                         f"set up pieces for {first!r} (`setup {first} ...`), or end on another condition",
                         player=first)


def _board_full_at_start(ctx: Context, c: object, end: A.End) -> Iterator[Diagnostic]:
    g = ctx.geometry
    if g is not None:
        playable = {rc for rc in g.cells() if rc not in ctx.blocked}
        taken = {rc for cells in ctx.set_up.values() for rc in cells}
        if playable and playable <= taken:
            yield diagnostic("check.board-full-at-start", span_of(c, end),
                             "leave at least one cell empty in the initial position")


# Whether a condition already holds on the initial position, by the name its class gives as its
# trait `at_start` (gdl/ast.py Condition; tests/test_concepts.py checks every name is here).
AT_START = {
    "no-pieces": _no_pieces_at_start,
    "board-full": _board_full_at_start,
}


@check
def _ends_at_start(ctx: Context) -> Iterator[Diagnostic]:
    """Conditions that already hold on the initial position (`no-pieces`, `board-full`) end
    every game before it starts."""
    if "setup" in ctx.partial:
        return
    for end in ctx.stage.ends:
        at_start = getattr(end.condition, "at_start", None)
        if at_start is not None:
            yield from AT_START[at_start](ctx, end.condition, end)


@check
def _connect_sides(ctx: Context) -> Iterator[Diagnostic]:
    for end in ctx.stage.ends:
        c = end.condition
        if isinstance(c, A.Connect) and len(c.sides) == 2 and c.sides[0] == c.sides[1]:
            yield diagnostic("check.connect-same-sides", span_of(c, end),
                             "in Hex each player joins its own pair of sides: `connect top-bottom left-right`",
                             sides=c.sides[0])


def _implies(a: object, b: object) -> bool:
    """Whether condition `b` holding means that `a` holds too (so an earlier `a` fires first): the
    same condition, or one of the same kind asking at least as much of its `minimum` field
    (`line 5` holds only where `line 4` does, unless `line 4` is `exact`)."""
    if a == b:
        return True
    minimum = getattr(a, "minimum", None)
    if minimum is None or type(a) is not type(b) or getattr(a, "exact", False):
        return False
    least, asked = getattr(a, minimum), getattr(b, minimum)
    return isinstance(least, int) and isinstance(asked, int) and asked >= least


@check
def _unreachable_ends(ctx: Context) -> Iterator[Diagnostic]:
    ends = ctx.stage.ends
    for j, end in enumerate(ends):
        for earlier in ends[:j]:
            if _implies(earlier.condition, end.condition):
                span = span_of(end.condition, end)
                same = earlier.condition == end.condition
                hint = ("ends are tested in order and the first that holds ends the game: remove this one" if same
                        else f"`{show(earlier.condition)}` holds whenever `{show(end.condition)}` does; "
                             "to test this one first, write it first")
                yield diagnostic("check.end-unreachable", span, hint,
                                 first=where(span_of(earlier.condition, earlier), span))
                break
