"""A player's information state on a stage with hidden information, as the one int32 array an agent
is given in place of the true state: what crosses to a sandboxed agent, a rules oracle or a program
in another language is its own knowledge, never the truth.

    [ its view, as a position of the base game | player, entries | entry, entry, ... ]

The first part is a state of the base stage (int32[n_cells + 4], compiler/codes.py's layout): the
board as the player last saw it, the side to move, the mover, and as ply the tries it knows were
made. Every call of the agents' API that reads a position reads this part: an agent written for
perfect information plays a hidden stage as if its view were the truth. Then the player's history
(gdl/interpreter/information.py: `DarkGame.history`), so that `sample_world` and `observe` need
nothing else:

- a try it knows of: TRIED, who made it, the move's code (codes.move_code; UNKNOWN_MOVE for an
  opponent's), refused (1, 0, or UNKNOWN for an opponent's), the number of cells it saw, then each
  cell's index and what it held;
- the board shown to it: SHOWN, the player, then every cell;
- under `announce captures`, after a try that took pieces: CAPTURED, whose try it was, how many.

Its length grows with the game and is bounded by its entries: MAX_LENGTH values at most, which a
game of MAX_PLIES tries on the largest board stays under.
"""
from __future__ import annotations

import numpy as np

from ..gdl.game import PASS, Move
from ..gdl.interpreter.information import Captured, Seen, Shown, Tried
from . import codes as K

TRIED, SHOWN, CAPTURED = 0, 1, 2
UNKNOWN_MOVE = -9  # the code of an opponent's try: the player knows one was made, not which
UNKNOWN = -1  # whether an opponent's try was refused
# values in an information state read from outside (an agent's array): what the rules oracle's
# requests carry (runtime/oracle/wire.py's MAX_REQUEST, 1 MiB), so both answer alike; a game of
# 2,000 tries capturing 20 pieces each stays under a third of it
MAX_LENGTH = 250_000


def encode(view: tuple[int, ...], history: tuple[Seen, ...], player: int, to_move: int, cols: int) -> np.ndarray:
    """`player`'s information state: its `view` (row-major cells) as a position with `to_move` to move,
    then its `history`, on a board `cols` wide. A read-only array."""
    size = len(view)
    known = sum(isinstance(entry, Tried) for entry in history)
    extra = [0] * K.STATE_EXTRA  # the position's values after its cells (its roll 0: no dice here)
    extra[K.TO_MOVE], extra[K.MOVER], extra[K.PLY] = to_move, 1 - to_move, known
    out = [*view, *extra, player, len(history)]
    for entry in history:
        if isinstance(entry, Shown):
            out += [SHOWN, entry.player, *entry.cells]
            continue
        if isinstance(entry, Captured):
            out += [CAPTURED, entry.player, entry.count]
            continue
        code = UNKNOWN_MOVE if entry.move is None else _code(entry.move, size, cols)
        refused = UNKNOWN if entry.refused is None else int(entry.refused)
        out += [TRIED, entry.player, code, refused, len(entry.seen)]
        for index, value in entry.seen:
            out += [index, value]
    array = np.array(out, dtype=np.int32)
    array.flags.writeable = False
    return array


def _code(move: Move, size: int, cols: int) -> int:
    if move.is_pass:
        return K.PASS_CODE
    assert move.dst is not None
    dst = move.dst[0] * cols + move.dst[1]
    return K.move_code(-1 if move.src is None else move.src[0] * cols + move.src[1], dst, size)


def _move(code: int, size: int, cols: int) -> Move:
    if code == K.PASS_CODE:
        return PASS
    src, dst = K.move_cells(code, size)
    return Move(None if src < 0 else divmod(src, cols), divmod(dst, cols))


def is_information(state: np.ndarray, size: int) -> bool:
    """Whether `state` is an information state (longer than a position of `size` cells)."""
    return len(state) > size + K.STATE_EXTRA


def position(state: np.ndarray, size: int) -> np.ndarray:
    """The position part of an information state (the player's view): a read-only view of it."""
    part = np.asarray(state)[: size + K.STATE_EXTRA]
    part.flags.writeable = False
    return part


def refused_now(player: int, history: tuple[Seen, ...]) -> set[Move]:
    """The moves refused to `player` since its last played try (or the board shown to it): not
    offered again, as the referee's tries (gdl/interpreter/information.py)."""
    refused: set[Move] = set()
    for entry in history:
        if isinstance(entry, Tried) and entry.player == player and entry.move is not None:
            refused = refused | {entry.move} if entry.refused else set()
        elif isinstance(entry, Shown) and entry.player == player:
            refused = set()  # the board shown: the view is the truth
    return refused


def decode(state: np.ndarray, size: int, cols: int) -> tuple[int, tuple[Seen, ...]]:
    """(the player, its history) of an information state on a board of `size` cells, `cols` wide.
    ValueError, saying where, for an array that is not one (an agent's array is untrusted input)."""
    values = np.asarray(state)
    if values.ndim != 1 or len(values) > MAX_LENGTH:
        raise ValueError(f"not an information state: {values.shape} values (one row of at most {MAX_LENGTH:,})")
    view = [int(v) for v in values[:size + K.STATE_EXTRA]]
    if len(view) < size + K.STATE_EXTRA or any(not -1 <= v <= 2 for v in view[:size]) \
            or view[size + K.TO_MOVE] not in (0, 1) or view[size + K.MOVER] not in (0, 1) or view[size + K.PLY] < 0 \
            or view[size + K.ROLL] != 0:
        raise ValueError("not an information state: its view is not a position of this game (cells hold -1 to 2, "
                         "the side to move and the mover 0 or 1): pass the state the referee gave, unchanged")
    data = [int(v) for v in values[size + K.STATE_EXTRA:]]
    if len(data) < 2 or data[0] not in (0, 1):
        raise ValueError("not an information state: it has no player after its position (pass the state the "
                         "referee gave, unchanged)")
    player, count, at = data[0], data[1], 2
    if count < 0:
        raise ValueError(f"not an information state: {count} entries")
    history: list[Seen] = []

    def take(n: int, what: str) -> list[int]:
        nonlocal at
        if n < 0 or at + n > len(data):
            raise ValueError(f"not an information state: entry {len(history) + 1} of {count} is cut short "
                             f"(its {what}, at value {size + K.STATE_EXTRA + at})")
        part = data[at: at + n]
        at += n
        return part

    for _ in range(count):
        kind, who = take(2, "kind and player")
        if who not in (0, 1):
            raise ValueError(f"not an information state: entry {len(history) + 1} names player {who}")
        if kind == SHOWN:
            shown = tuple(take(size, "cells"))
            if any(not -1 <= v <= 2 for v in shown):
                raise ValueError(f"not an information state: entry {len(history) + 1} shows a cell holding no piece")
            history.append(Shown(who, shown))
            continue
        if kind == CAPTURED:
            (taken,) = take(1, "count")
            if not 1 <= taken <= size:
                raise ValueError(f"not an information state: entry {len(history) + 1} says {taken} pieces taken")
            history.append(Captured(who, taken))
            continue
        if kind != TRIED:
            raise ValueError(f"not an information state: entry {len(history) + 1} is of kind {kind}")
        code, refused, seen = take(3, "move")
        if refused not in (UNKNOWN, 0, 1):
            raise ValueError(f"not an information state: entry {len(history) + 1} says refused {refused}")
        if not (code == UNKNOWN_MOVE or code == K.PASS_CODE or 0 <= code < (size + 1) * size):
            raise ValueError(f"not an information state: entry {len(history) + 1} holds move code {code}")
        cells = take(2 * seen, "cells seen")
        sight = tuple((cells[2 * k], cells[2 * k + 1]) for k in range(seen))
        if any(not 0 <= i < size or not -1 <= v <= 2 for i, v in sight):
            raise ValueError(f"not an information state: entry {len(history) + 1} sees a cell off the board")
        move = None if code == UNKNOWN_MOVE else _move(code, size, cols)
        history.append(Tried(who, move, None if refused == UNKNOWN else bool(refused), sight))
    if at != len(data):
        raise ValueError(f"not an information state: {len(data) - at} values after its {count} entries")
    return player, tuple(history)
