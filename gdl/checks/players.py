"""The stage's name and its players."""
from __future__ import annotations

from collections.abc import Iterator

from ..diagnostics import Diagnostic, diagnostic
from .context import (
    Check, Context, collector, span_of, word_spans, quoted_list, LANGUAGE_WORDS, CELL_LIKE, NAME,
)

CHECKS: list[Check] = []  # run in this order
check = collector(CHECKS)


@check
def _game_name(ctx: Context) -> Iterator[Diagnostic]:
    """`game "NAME"` cannot hold a quote or a line break (only an AST built in code can)."""
    name = ctx.stage.name
    for bad, what in (('"', "a quote (\")"), ("\n", "a line break"), ("\r", "a line break")):
        if isinstance(name, str) and bad in name:
            yield diagnostic("check.game-name", ctx.start, "remove it from the name", name=name, what=what)
            return


@check
def _player_count(ctx: Context) -> Iterator[Diagnostic]:
    if len(ctx.players) != 2:
        yield diagnostic(
            "check.player-count", span_of(ctx.stage.players),
            "the engine plays two-player games: name two players, e.g. `players black white`",
            count=len(ctx.players), names=quoted_list(ctx.players),
        )


@check
def _player_names(ctx: Context) -> Iterator[Diagnostic]:
    spans = word_spans(span_of(ctx.stage.players), ["players", *map(str, ctx.players)])[1:]
    seen: set[str] = set()
    for name, span in zip(ctx.players, spans):
        if name in seen:  # reported at the second mention; the name itself was judged at the first
            yield diagnostic("check.player-duplicate", span,
                             "give each player its own name, e.g. `players black white`", name=name)
            continue
        seen.add(name)
        if not (isinstance(name, str) and NAME.fullmatch(name)):
            yield diagnostic("check.player-name-invalid", span,
                             "a name is a letter followed by letters, digits or '_', e.g. `black`", name=name)
        elif name in LANGUAGE_WORDS or CELL_LIKE.fullmatch(name):
            looks_like = "is also a keyword" if name in LANGUAGE_WORDS else "looks like a cell"
            yield diagnostic("check.player-name-keyword", span, "choose another name, like `black` or `white`",
                             name=name, looks_like=looks_like)
