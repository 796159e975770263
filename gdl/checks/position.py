"""The initial position (`setup`) and the players' headings (`forward`)."""
from __future__ import annotations

from collections.abc import Iterator

from .. import ast as A
from ..diagnostics import Diagnostic, diagnostic
from ..geometry import RELATIVE_WORDS
from .context import (
    Check, Context, collector, span_of, where, word_spans, name_span, setup_name_span, cell_label, quoted_list, did_you_mean, cell_items, CELL_LIKE,
)

CHECKS: list[Check] = []  # run in this order
check = collector(CHECKS)


@check
def _setup_players(ctx: Context) -> Iterator[Diagnostic]:
    for s in ctx.stage.setup:
        if s.player in ctx.players:
            continue
        hint = did_you_mean(s.player, ctx.players)
        if hint is None and CELL_LIKE.fullmatch(str(s.player)) and ctx.players:
            hint = f"`setup` names the player first, then the cells: `setup {ctx.players[0]} {s.player} ...`"
        yield diagnostic("check.setup-unknown-player", setup_name_span(s), hint,
                         name=s.player, players=quoted_list(ctx.players))


@check
def _setup_cells(ctx: Context) -> Iterator[Diagnostic]:
    """No piece on a blocked cell, no cell set up twice (one diagnostic per cell item)."""
    g = ctx.geometry
    first: dict[tuple[int, int], tuple[str, A.Span | None]] = {}
    for s in ctx.stage.setup:
        for item, cells in cell_items(s.cells):
            here = span_of(item, s)
            cells = [c for c in cells if g is None or g.contains(c.row, c.col)]  # others: off the board
            on_blocked = [c for c in cells if (c.row, c.col) in ctx.blocked]
            if on_blocked:
                c = on_blocked[0]
                yield diagnostic("check.setup-blocked", here,
                                 f"blocked cells never hold a piece: remove {c.name} from `setup` or from `blocked`",
                                 cell=cell_label(c.row, c.col), player=s.player)
            again = [c for c in cells if (c.row, c.col) in first]
            if again:
                c = again[0]
                player, span = first[(c.row, c.col)]
                yield diagnostic("check.setup-twice", here, "a cell holds one piece: remove one of the two",
                                 cell=cell_label(c.row, c.col), first_player=player, first=where(span, here))
            for c in cells:
                first.setdefault((c.row, c.col), (s.player, here))


# --- forward headings ---------------------------------------------------------------------------------


@check
def _forward_players(ctx: Context) -> Iterator[Diagnostic]:
    first: dict[str, A.Span | None] = {}
    for h in ctx.stage.forward:
        here = name_span(h)
        if h.player not in ctx.players:
            yield diagnostic("check.forward-unknown-player", here, did_you_mean(h.player, ctx.players),
                             name=h.player, players=quoted_list(ctx.players))
        elif h.player in first:
            yield diagnostic("check.forward-twice", here, "a player has one heading: remove one of the two",
                             name=h.player, first=where(first[h.player], here))
        else:
            first[h.player] = here
        if h.heading not in A.HEADINGS:
            yield diagnostic("check.invalid-value", span_of(h), None,
                             what="heading", value=h.heading, choices=", ".join(A.HEADINGS))


def _suggest_headings(ctx: Context) -> dict[str, str]:
    """A heading for every player: the given ones, else away from the player's setup (pieces at
    the top go down), else opposite to the other player's, else down for the first player."""
    out = dict(ctx.headings)
    rows = ctx.geometry.rows if ctx.geometry else 0
    for p in ctx.players:
        cells = ctx.set_up.get(p)
        if p not in out and cells and rows:
            mean = sum(r for r, _ in cells) / len(cells)
            if mean != (rows - 1) / 2:
                out[p] = "down" if mean < (rows - 1) / 2 else "up"
    opposite = {"up": "down", "down": "up", "left": "right", "right": "left"}
    for i, p in enumerate(ctx.players):
        if p not in out:
            others = [out[q] for q in ctx.players if q != p and q in out]
            out[p] = opposite.get(others[0], "up") if others else ("down" if i == 0 else "up")
    return out


@check
def _forward_missing(ctx: Context) -> Iterator[Diagnostic]:
    """Forward-relative directions and `reach far-row` need every player's heading."""
    if "forward" in ctx.partial:
        return
    uses: list[tuple[str, A.Span | None]] = []
    for d, node in ctx.directions():
        for word, span in zip(d.words, word_spans(span_of(d, node), list(d.words))):
            if word in RELATIVE_WORDS:
                uses.append((f"direction `{word}`", span))
                break
    for end in ctx.stage.ends:
        if getattr(end.condition, "needs_heading", False):
            uses.append((f"`{end.condition.keyword}`", span_of(end.condition, end)))
    missing = [p for p in ctx.players if p not in ctx.headings]
    if not uses or not missing or any(h.player not in ctx.players for h in ctx.stage.forward):
        return  # (a heading for an unknown player is likely the missing one, misspelt: reported as such)
    spanned = [(what, span) for what, span in uses if span is not None]
    what, span = min(spanned, key=lambda u: (u[1].line, u[1].column)) if spanned else uses[0]
    headings = _suggest_headings(ctx)
    statement = "forward " + ", ".join(f"{p} {headings[p]}" for p in dict.fromkeys(ctx.players))
    hint = (f"complete the `forward` statement: `{statement}`" if ctx.stage.forward
            else f"add the line `{statement}` (headings are up, down, left and right)")
    yield diagnostic("check.forward-missing", span, hint, what=what, who=quoted_list(missing),
                     has="has" if len(missing) == 1 else "have")
