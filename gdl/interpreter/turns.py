"""Turn order: who moves after a move (a pass always hands the turn over), and when a side with
no move passes."""
from __future__ import annotations

from collections.abc import Callable

from ..ast import AgainAfterCapture, Alternate, FewerPieces, PassForced, TurnOrder
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


# --- passing ------------------------------------------------------------------------------------


def _pass_forced(rule: PassForced, opponent_can_move: bool) -> bool:
    # While the opponent can move; when neither side can, nobody passes and the game ends.
    return opponent_can_move


_PASS: dict[type, Callable[..., bool]] = {
    PassForced: _pass_forced,
}


def passes(rule: PassForced, opponent_can_move: bool) -> bool:
    """Whether a side with no move passes, under the stage's pass rule (a stage without one has
    no pass: the side is stuck)."""
    try:
        decide = _PASS[type(rule)]
    except KeyError:
        raise ValueError(f"unknown pass rule {type(rule).__name__}") from None
    return decide(rule, opponent_can_move)
