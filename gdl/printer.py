"""AST → canonical text. `parse(format(stage)) == stage` for every stage.

Canonical means: statements in a fixed order (game, board, blocked, players, forward, setup,
moves, turn, pass, ends), one space between words, effects indented by two spaces, every
direction list and move target written out, and `turn alternate` (the default) left out.
"""
from __future__ import annotations

from typing import Any, Callable

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


@formats(A.SquareBoard, A.HexBoard)
def _board_sized(b) -> str:
    return f"board {b.keyword} {b.size}" + (" wrap" if b.wrap else "")


@formats(A.RectBoard)
def _board_rect(b: A.RectBoard) -> str:
    return f"board rect {b.n_rows} {b.n_cols}" + (" wrap" if b.wrap else "")


@formats(A.Players)
def _players(p: A.Players) -> str:
    return "players " + " ".join(p.names)


@formats(A.Heading)
def _heading(h: A.Heading) -> str:
    return f"{h.player} {h.heading}"


@formats(A.Setup)
def _setup(s: A.Setup) -> str:
    return f"setup {s.player} {_cells(s.cells)}"


@formats(A.Directions)
def _directions(d: A.Directions) -> str:
    return " ".join(d.words)


@formats(A.PlaceEmpty, A.PlaceGravity, A.PlaceAdjacent, A.RequireCapture, A.NoMoves, A.BoardFull,
         A.ReachFarRow, A.NoPieces, A.MoverWins, A.MoverLoses, A.MostPieces, A.FewestPieces, A.Draw)
def _keyword_only(node) -> str:
    return node.keyword


@formats(A.Step, A.Slide)
def _directed_piece_move(m) -> str:
    return f"{m.keyword} {text(m.directions)} to {m.target}"


@formats(A.Jump, A.Clone)
def _distance_piece_move(m) -> str:
    return f"{m.keyword} {m.distance} to {m.target}"


@formats(A.FlipCustodial, A.RemoveCustodial)
def _custodial(e) -> str:
    return f"{e.keyword} {text(e.directions)}" + (" over-blocked" if e.over_blocked else "")


@formats(A.ConvertAdjacent)
def _convert(e: A.ConvertAdjacent) -> str:
    return f"{e.keyword} {text(e.directions)}"


@formats(A.MoveRule)
def _move(m: A.MoveRule) -> str:
    return "\n".join([f"move {text(m.kind)}"] + [f"  {text(e)}" for e in m.effects])


@formats(A.Alternate, A.FewerPieces, A.AgainAfterCapture)
def _turn(t) -> str:
    return f"turn {t.keyword}"


@formats(A.PassForced)
def _pass(p: A.PassForced) -> str:
    return "pass forced"


@formats(A.Line)
def _line(c: A.Line) -> str:
    return f"line {c.length}" + (" exact" if c.exact else "")


@formats(A.Connect)
def _connect(c: A.Connect) -> str:
    return "connect " + " ".join(c.sides)


@formats(A.AfterPlies)
def _after(c: A.AfterPlies) -> str:
    return f"after {c.plies} plies"


@formats(A.End)
def _end(e: A.End) -> str:
    return f"end {text(e.condition)}: {text(e.result)}"


def format(stage: A.Stage) -> str:  # noqa: A001 - the public name the design gives it
    """The canonical text of a stage, ending with a newline."""
    # Any line break the parser splits lines on (str.splitlines: \r, \x0c, \u2028, ...), not only \n.
    if '"' in stage.name or len((stage.name + ".").splitlines()) > 1:
        raise ValueError(f"a stage name cannot contain '\"' or a line break: {stage.name!r}")
    lines = [f'game "{stage.name}"', text(stage.board)]
    if stage.blocked:
        lines.append("blocked " + _cells(stage.blocked))
    lines.append(text(stage.players))
    if stage.forward:
        lines.append("forward " + ", ".join(text(h) for h in stage.forward))
    lines += [text(s) for s in stage.setup]
    lines += [text(m) for m in stage.moves]
    if not isinstance(stage.turn, A.Alternate):
        lines.append(text(stage.turn))
    if stage.pass_rule is not None:
        lines.append(text(stage.pass_rule))
    lines += [text(e) for e in stage.ends]
    return "\n".join(lines) + "\n"
