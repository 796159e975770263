"""Turn order: who moves after a move (not a pass; a pass always hands the turn over)."""
from __future__ import annotations

from typing import Callable

from ..ast import AgainAfterCapture, Alternate, FewerPieces, TurnOrder
from .moves import piece


def _alternate(rule: Alternate, cells: tuple[int, ...], mover: int, captured: int) -> int:
    return 1 - mover


def _fewer_pieces(rule: FewerPieces, cells: tuple[int, ...], mover: int, captured: int) -> int:
    # Counted after the move; strictly fewer moves next, whoever just moved; equal alternates.
    mine, theirs = cells.count(piece(mover)), cells.count(piece(1 - mover))
    return mover if mine < theirs else 1 - mover


def _again_after_capture(rule: AgainAfterCapture, cells: tuple[int, ...], mover: int, captured: int) -> int:
    return mover if captured > 0 else 1 - mover


_TURN: dict[type, Callable[..., int]] = {
    Alternate: _alternate,
    FewerPieces: _fewer_pieces,
    AgainAfterCapture: _again_after_capture,
}


def next_to_move(rule: TurnOrder, cells: tuple[int, ...], mover: int, captured: int) -> int:
    """The side to move after `mover` moved, leaving `cells` and taking `captured` pieces."""
    try:
        decide = _TURN[type(rule)]
    except KeyError:
        raise ValueError(f"unknown turn order {type(rule).__name__}") from None
    return decide(rule, cells, mover, captured)
