"""AST → canonical text. `parse(format(stage)) == stage` for every stage.

Canonical means: statements in a fixed order (game, board, blocked, blocked random, players,
forward, setup, setup random, roll, moves, turn, pass, ends, information lines), one space between words, effects indented by two spaces, every
direction list and move target written out, and `turn alternate` (the default) left out.
"""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

from . import ast as A

_FORMATTERS: dict[type, Callable[[Any], str]] = {}


def formats(*kinds: type):
    def register(fn):
        for kind in kinds:
            _FORMATTERS[kind] = fn
        return fn

    return register


def text(node: Any) -> str:
    """The canonical text of any node (a statement, a move kind, an effect, a condition...)."""
    try:
        fn = _FORMATTERS[type(node)]
    except KeyError:
        raise TypeError(f"cannot print {type(node).__name__}: not an AST node of a stage") from None
    return fn(node)


def _cells(items: tuple[A.CellItem, ...]) -> str:
    return " ".join(text(c) for c in items)


@formats(A.Cell)
def _cell(c: A.Cell) -> str:
    return c.name


@formats(A.CellRange)
def _cell_range(c: A.CellRange) -> str:
    return f"{c.first.name}..{c.last.name}"


@formats(A.Players)
def _players(p: A.Players) -> str:
    return "players " + " ".join(p.names)


@formats(A.Heading)
def _heading(h: A.Heading) -> str:
    return f"{h.player} {h.heading}"


@formats(A.Setup)
def _setup(s: A.Setup) -> str:
    return f"setup {s.player} {_cells(s.cells)}"


@formats(A.RandomBlocked)
def _random_blocked(b: A.RandomBlocked) -> str:
    return f"blocked random {b.count} in {_cells(b.cells)}"


@formats(A.RandomSetup)
def _random_setup(s: A.RandomSetup) -> str:
    return f"setup {s.player} random {s.count} in {_cells(s.cells)}"


@formats(A.Roll)
def _roll(r: A.Roll) -> str:
    return f"roll {r.dice}d{r.faces}"


@formats(A.Directions)
def _directions(d: A.Directions) -> str:
    return " ".join(d.words)


@formats(A.MoveRule)
def _move(m: A.MoveRule) -> str:
    return "\n".join([f"move {text(m.kind)}"] + [f"  {text(e)}" for e in m.effects])


# A field's words by its form (None: nothing written, a flag that is off).
_FORM_TEXT: dict[type, Callable[[Any, Any], str | None]] = {
    A.Side: lambda form, v: str(v),
    A.Count: lambda form, v: f"{v} {form.then}" if form.then else str(v),
    A.Flag: lambda form, v: form.word if v else None,
    A.Word: lambda form, v: f"{form.lead} {v}",
    A.Words: lambda form, v: " ".join(v),
    A.DirectionList: lambda form, v: text(v),
}


def _concept(node: Any) -> str:
    """A concept: its statement keyword if it is a statement (`board`, `turn`, `pass`), its
    keyword, then each field in its form."""
    words = [node.statement, node.keyword] + [_FORM_TEXT[type(form)](form, getattr(node, name))
                                              for name, form in A.forms(type(node))]
    return " ".join(w for w in words if w)


_FORMATTERS.update((kind, _concept) for kind in A.CONCEPTS)


@formats(A.End)
def _end(e: A.End) -> str:
    return f"end {text(e.condition)}: {text(e.result)}"


def format(stage: A.Stage) -> str:
    """The canonical text of a stage, ending with a newline."""
    # Any line break the parser splits lines on (str.splitlines: \r, \x0c, \u2028, ...), not only \n.
    if '"' in stage.name or len((stage.name + ".").splitlines()) > 1:
        raise ValueError(f"a stage name cannot contain '\"' or a line break: {stage.name!r}")
    lines = [f'game "{stage.name}"', text(stage.board)]
    if stage.blocked:
        lines.append("blocked " + _cells(stage.blocked))
    lines += [text(b) for b in stage.random_blocked]
    lines.append(text(stage.players))
    if stage.forward:
        lines.append("forward " + ", ".join(text(h) for h in stage.forward))
    lines += [text(s) for s in stage.setup]
    lines += [text(s) for s in stage.random_setup]
    if stage.roll is not None:
        lines.append(text(stage.roll))
    lines += [text(m) for m in stage.moves]
    if not isinstance(stage.turn, A.Alternate):
        lines.append(text(stage.turn))
    if stage.pass_rule is not None:
        lines.append(text(stage.pass_rule))
    lines += [text(e) for e in stage.ends]
    lines += [text(node) for node in (stage.hidden, stage.refused, *stage.announce, *stage.reveal) if node is not None]
    return "\n".join(lines) + "\n"
