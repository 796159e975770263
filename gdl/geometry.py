"""The board vocabulary of the language: compass directions, direction words, headings, line axes.

Shared by the static checks, the reference interpreter and the compiler, so that a direction
word means one thing everywhere (docs/language.md, "Directions").
"""
from __future__ import annotations

from typing import Iterable

from .ast import HexBoard, RectBoard, SquareBoard

# Compass directions as (row step, column step); `n` is up, towards row 1.
SQUARE_STEPS: dict[str, tuple[int, int]] = {
    "n": (-1, 0), "ne": (-1, 1), "e": (0, 1), "se": (1, 1),
    "s": (1, 0), "sw": (1, -1), "w": (0, -1), "nw": (-1, -1),
}
# Row r of the Hex rhombus sits half a cell right of row r-1, so (r, c) touches these six.
HEX_STEPS: dict[str, tuple[int, int]] = {
    "n": (-1, 0), "ne": (-1, 1), "e": (0, 1), "s": (1, 0), "sw": (1, -1), "w": (0, -1),
}

_SETS = {
    False: {"all": tuple(SQUARE_STEPS), "orthogonal": ("n", "e", "s", "w"), "diagonal": ("ne", "se", "sw", "nw")},
    True: {"all": tuple(HEX_STEPS), "orthogonal": tuple(HEX_STEPS), "diagonal": ()},
}

RELATIVE_WORDS = ("forward", "forward-diagonal", "backward", "sideways")

# Forward-relative words per heading. On hex boards `forward` is every direction that advances
# a row (or, heading left/right, a column) and there is no forward-diagonal.
_RELATIVE = {
    False: {
        "down": {"forward": ("s",), "forward-diagonal": ("se", "sw"), "backward": ("n",), "sideways": ("e", "w")},
        "up": {"forward": ("n",), "forward-diagonal": ("ne", "nw"), "backward": ("s",), "sideways": ("e", "w")},
        "right": {"forward": ("e",), "forward-diagonal": ("ne", "se"), "backward": ("w",), "sideways": ("n", "s")},
        "left": {"forward": ("w",), "forward-diagonal": ("nw", "sw"), "backward": ("e",), "sideways": ("n", "s")},
    },
    True: {
        "down": {"forward": ("s", "sw"), "forward-diagonal": (), "backward": ("n", "ne"), "sideways": ("e", "w")},
        "up": {"forward": ("n", "ne"), "forward-diagonal": (), "backward": ("s", "sw"), "sideways": ("e", "w")},
        "right": {"forward": ("ne", "e"), "forward-diagonal": (), "backward": ("w", "sw"), "sideways": ("n", "s")},
        "left": {"forward": ("w", "sw"), "forward-diagonal": (), "backward": ("ne", "e"), "sideways": ("n", "s")},
    },
}

# One direction per line axis: e–w, n–s, ne–sw, nw–se (square); e–w, n–s, ne–sw (hex).
_AXES = {False: ("e", "s", "ne", "se"), True: ("e", "s", "ne")}


# Each board kind's cells: hexagons (6 directions, the Hex rhombus) or squares (8 directions).
HEXAGONAL: dict[type, bool] = {
    SquareBoard: False,
    RectBoard: False,
    HexBoard: True,
}


def hexagonal(board) -> bool:
    """Whether a board's cells are hexagons; ValueError for a board kind this does not know."""
    try:
        return HEXAGONAL[type(board)]
    except KeyError:
        raise ValueError(f"unknown board kind {type(board).__name__}") from None


def steps(is_hex: bool) -> dict[str, tuple[int, int]]:
    """The board's compass directions, in compass order, with their (row, column) steps."""
    return HEX_STEPS if is_hex else SQUARE_STEPS


def axes(is_hex: bool) -> tuple[str, ...]:
    """One direction per line axis of the board."""
    return _AXES[is_hex]


def words(is_hex: bool) -> tuple[str, ...]:
    """The direction words that mean something on the board."""
    return tuple(_SETS[is_hex]) + RELATIVE_WORDS + tuple(steps(is_hex))


class DirectionError(ValueError):
    """A direction word that the board does not have, or that needs a heading the player lacks."""

    def __init__(self, word: str, needs_heading: bool, is_hex: bool):
        self.word = word
        self.needs_heading = needs_heading
        if needs_heading:
            text = f"direction {word!r} needs the player's heading: add a `forward` statement"
        else:
            text = f"no direction {word!r} on a {'hex' if is_hex else 'square'} board (it has {' '.join(steps(is_hex))})"
        super().__init__(text)


def resolve(words_: Iterable[str], is_hex: bool, heading: str | None) -> tuple[str, ...]:
    """The compass directions a list of direction words names (their union, in compass order)
    for a player whose forward points to `heading` (None: the player has no heading)."""
    compass = steps(is_hex)
    chosen: set[str] = set()
    for word in words_:
        if word in _SETS[is_hex]:
            chosen.update(_SETS[is_hex][word])
        elif word in compass:
            chosen.add(word)
        elif word in RELATIVE_WORDS:
            if heading not in _RELATIVE[is_hex]:
                raise DirectionError(word, True, is_hex)
            chosen.update(_RELATIVE[is_hex][heading][word])
        else:
            raise DirectionError(word, False, is_hex)
    return tuple(d for d in compass if d in chosen)
