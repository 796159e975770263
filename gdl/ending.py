"""Why a game ended, in words: the one place that explains a final position.

    ending = explain(stage, state)   # state: the reference interpreter's State of the position
    str(ending)                      # "o made three in a row at a1 b2 c3: o wins", "neither black nor
                                     # white can move: black wins with more pieces, 40 to 24"
    ending.counts                    # (40, 24) where the deciding result counts pieces, else None

The reference interpreter decides (gdl/interpreter: the first end rule that holds, and the cells
that show it); this module only says it, one sayer per end condition and per result, so the
terminal, `ludica play --quiet`, the Play page and the replay all show the same words, and they
can never disagree with the winner the rules give. Players are named as the stage names them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from . import ast as A
from .english import far_row, sides
from .interpreter import Outcome, ReferenceGame, State

__all__ = ["Ending", "explain", "counts_pieces"]

_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@dataclass(frozen=True)
class Ending:
    """A final position, explained: who won (0, 1 or None for a draw), the end rule that decided
    (None: none held, and the side to move had no move at all), the cells that show it (names such
    as "a1", in the order they read: the line, the chain from side to side), each player's pieces
    where the result counts them (else None), and the words: `reason` (why the game ended) and
    `result` (what that gives)."""

    winner: int | None
    end: A.End | None
    cells: tuple[str, ...]
    counts: tuple[int, int] | None
    reason: str
    result: str

    def __str__(self) -> str:
        return f"{self.reason}: {self.result}"


@dataclass(frozen=True)
class _Seen:
    """What the sayers read: the stage, the position, what the rules decided, and the players' names."""

    stage: A.Stage
    state: State
    outcome: Outcome
    cells: tuple[str, ...]

    def name(self, player: int) -> str:
        return self.stage.player_names[player]

    @property
    def mover(self) -> str:
        return self.name(self.state.mover)

    @property
    def to_move(self) -> str:
        return self.name(self.state.to_move)

    def pieces(self, player: int) -> int:
        return self.state.cells.count(player + 1)  # gdl/interpreter/moves.py piece()


def _number(n: int) -> str:
    return _NUMBERS[n] if n < len(_NUMBERS) else str(n)


# --- why: one sayer per end condition ------------------------------------------------------------


def _line(cond: A.Line, at: _Seen) -> str:
    exactly = "exactly " if cond.exact else ""
    return f"{at.mover} made {exactly}{_number(len(at.cells))} in a row at {' '.join(at.cells)}"


def _reach_far_row(cond: A.ReachFarRow, at: _Seen) -> str:
    return f"{at.mover} reached {far_row(at.stage, at.state.mover)} at {' '.join(at.cells)}"


def _connect(cond: A.Connect, at: _Seen) -> str:
    pair = sides(at.stage, cond.sides[at.state.mover])
    return f"{at.mover} joined {pair}, with a chain of {len(at.cells)} pieces from {at.cells[0]} to {at.cells[-1]}"


def _no_moves(cond: A.NoMoves, at: _Seen) -> str:
    if at.stage.pass_rule is not None:  # a side passes while the other can move: neither can
        return f"neither {at.name(0)} nor {at.name(1)} can move"
    return f"{at.to_move} has no legal move"


_REASONS: dict[type, Callable[..., str]] = {
    A.NoMoves: _no_moves,
    A.BoardFull: lambda cond, at: "the board is full",
    A.Line: _line,
    A.ReachFarRow: _reach_far_row,
    A.Connect: _connect,
    A.NoPieces: lambda cond, at: f"{at.to_move} has no piece left",
    A.AfterPlies: lambda cond, at: f"{cond.plies} plies have been played",
}


# --- what it gives: one sayer per result ---------------------------------------------------------


def _winner(at: _Seen) -> str:
    won = at.outcome.winner
    return "a draw" if won is None else f"{at.name(won)} wins"


def _counted(more: str, at: _Seen) -> str:
    """A result by the pieces on the board: "black wins with more pieces, 40 to 24"."""
    won = at.outcome.winner
    if won is None:
        return f"a draw, {at.pieces(0)} pieces each"
    return f"{at.name(won)} wins with {more} pieces, {at.pieces(won)} to {at.pieces(1 - won)}"


_VERDICTS: dict[type, Callable[..., str]] = {
    A.MoverWins: lambda result, at: _winner(at),
    A.MoverLoses: lambda result, at: f"{at.mover} loses, so {_winner(at)}",
    A.MostPieces: lambda result, at: _counted("more", at),
    A.FewestPieces: lambda result, at: _counted("fewer", at),
    A.Draw: lambda result, at: "a draw",
}


@lru_cache(maxsize=64)
def _game(stage: A.Stage) -> ReferenceGame:
    return ReferenceGame(stage.without_information())  # a hidden stage ends on its true game


def explain(stage: A.Stage, state: State) -> Ending:
    """Why `state` ended the game, by the stage's rules; ValueError if it does not end it."""
    game = _game(stage)
    outcome = game.outcome(state)
    if not outcome.over:
        raise ValueError(f"the game on {stage.name!r} is not over at ply {state.ply}: nothing ends it there")
    names = tuple(A.cell_name(*divmod(i, game.cols)) for i in outcome.shown)
    at = _Seen(stage, state, outcome, names)
    end = outcome.end
    if end is None:  # the language's own rule, no stage's: a side left without any move draws
        return Ending(None, None, (), None, f"{at.to_move} has no legal move and no end rule holds", "a draw")
    counts = (at.pieces(0), at.pieces(1)) if end.result.counts_pieces else None
    return Ending(outcome.winner, end, names, counts, _REASONS[type(end.condition)](end.condition, at),
                  _VERDICTS[type(end.result)](end.result, at))


def counts_pieces(stage: A.Stage) -> bool:
    """Whether the stage's results count pieces (a page shows the counts of such a stage alone)."""
    return any(end.result.counts_pieces for end in stage.ends)
