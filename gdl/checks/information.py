"""The information lines: `hidden`, `refused`, `announce` and `reveal` only mean something together."""
from __future__ import annotations

from collections.abc import Iterator

from ..diagnostics import Diagnostic, diagnostic
from ..printer import text
from .context import Check, Context, collector, span_of

CHECKS: list[Check] = []  # run in this order
check = collector(CHECKS)


@check
def _refused_needs_hidden(ctx: Context) -> Iterator[Diagnostic]:
    """A refused try, an announcement or a reveal needs hidden information: with the whole board in
    view, every move tried is legal, every move is known and every cell seen."""
    if ctx.stage.hidden is not None or "hidden" in ctx.partial:
        return
    for node in (ctx.stage.refused, *ctx.stage.announce, *ctx.stage.reveal):
        if node is not None:
            yield diagnostic("check.information-without-hidden", span_of(node),
                             "add `hidden opponent-pieces` to hide the board, or remove this line", line=text(node))


@check
def _hidden_needs_refused(ctx: Context) -> Iterator[Diagnostic]:
    if ctx.stage.hidden is not None and ctx.stage.refused is None and "refused" not in ctx.partial:
        yield diagnostic("check.hidden-without-refused", span_of(ctx.stage.hidden),
                         "add `refused retry` (the mover tries again) or `refused lose-turn` (its turn is over)")


@check
def _written_twice(ctx: Context) -> Iterator[Diagnostic]:
    """An announcement or a reveal written twice adds nothing."""
    for lines, code in ((ctx.stage.announce, "check.announce-twice"), (ctx.stage.reveal, "check.reveal-twice")):
        first: dict[type, object] = {}
        for node in lines:
            if type(node) in first:
                span = span_of(first[type(node)])
                yield diagnostic(code, span_of(node), "remove one of the two lines", line=text(node),
                                 first=f"line {span.line}" if span is not None else "above")
            else:
                first[type(node)] = node
