"""Direction lists and the other closed sets of words."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from .. import ast as A
from ..diagnostics import Diagnostic, diagnostic
from ..geometry import SQUARE_STEPS
from .context import (
    Check, Context, collector, span_of, word_spans, did_you_mean,
)

CHECKS: list[Check] = []  # run in this order
check = collector(CHECKS)


@check
def _direction_lists(ctx: Context) -> Iterator[Diagnostic]:
    g = ctx.geometry
    if g is None:
        return
    kind = g.kind
    for d, node in ctx.directions():
        span = span_of(d, node)
        words = tuple(d.words)
        at: dict[str, list[A.Span | None]] = {}  # each word's span(s), in order
        for w, w_span in zip(words, word_spans(span, list(words))):
            at.setdefault(w, []).append(w_span)
        shown = f"`{' '.join(words)}`" if words else "an empty direction list"
        unknown = [w for w in dict.fromkeys(words) if w not in g.words]
        for w in unknown:
            hint = did_you_mean(w, g.words) if w not in SQUARE_STEPS else None
            if g.is_hex and w in SQUARE_STEPS:
                hint = "hex boards have six directions: n ne e s sw w"
            yield diagnostic("check.direction-unknown", at[w][0], hint, word=w, kind=kind, names=" ".join(g.steps))
        if unknown:
            continue
        if all(g.is_empty_word(w) for w in words):
            hint = ("hex boards have no diagonals: all six directions (n ne e s sw w) are orthogonal" if words
                    else "name at least one direction, e.g. `all`")
            yield diagnostic("check.direction-none", span, hint, words=shown, kind=kind)
        else:
            for w in dict.fromkeys(w for w in words if g.is_empty_word(w)):
                yield diagnostic("check.direction-empty-word", at[w][0],
                                 "hex boards have no diagonals: all six directions are orthogonal",
                                 word=w, kind=kind, words=" ".join(words))
        for w, n in Counter(words).items():
            if n > 1:
                yield diagnostic("check.direction-duplicate", at[w][1],
                                 "a list of directions is their union: name each once",
                                 word=w, words=" ".join(words))


@check
def _closed_words(ctx: Context) -> Iterator[Diagnostic]:
    """Move targets and `connect` sides come from closed sets (only ASTs built in code can err)."""
    for rule in ctx.stage.moves:
        target = getattr(rule.kind, "target", "empty")
        if target not in A.TARGETS:
            yield diagnostic("check.invalid-value", span_of(rule.kind, rule), None,
                             what="target", value=target, choices=", ".join(A.TARGETS))
    for end in ctx.stage.ends:
        c = end.condition
        if isinstance(c, A.Connect):
            sides = tuple(c.sides)
            if len(sides) != 2:
                yield diagnostic("check.invalid-value", span_of(c, end), "`connect` takes one pair per player",
                                 what="`connect` sides", value=" ".join(sides),
                                 choices="two pairs, each top-bottom or left-right")
            for side in dict.fromkeys(sides):
                if side not in A.SIDE_PAIRS:
                    yield diagnostic("check.invalid-value", span_of(c, end), None,
                                     what="side pair", value=side, choices=", ".join(A.SIDE_PAIRS))
