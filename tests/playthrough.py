"""The playthrough format of tests/golden/playthroughs/: one game, every position with its legal
moves, the move played with what it took, the board after it, and the final returns. On a stage
with dice each board is followed by the roll thrown for the side to move (the referee's, of seed 0).
On a stage with hidden information the moves are tries: a refused one says so, and each board is followed by
each player's view of it."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ludica import gdl
from ludica.compiler import codes as K
from ludica.gdl.interpreter import State


class _Sight:
    """A player's view of a hidden-information game, drawn by gdl.render as a board."""

    def __init__(self, game, player: int):
        self.game, self.player = game, player
        self.stage, self.rows, self.cols = game.stage, game.rows, game.cols

    def board(self, state) -> np.ndarray:
        return np.array(self.game.view(state, self.player)).reshape(self.rows, self.cols)


def _boards(game, state) -> list[str]:
    out = ["board", gdl.render(game, state)]
    if game.stage.roll is not None:  # dice: the roll the side to move threw (the referee's, of seed 0)
        out.append(f"roll {_roll(game, state)}")
    if hasattr(game, "view"):  # hidden information: what each player sees
        for p, name in enumerate(game.players):
            out += [f"seen by {name}", gdl.render(_Sight(game, p), state)]
    return out


def _roll(game, state) -> int:
    """The roll of a state of the reference (a State) or of the kernels (an array)."""
    return state.roll if isinstance(state, State) else int(state[game.rows * game.cols + K.ROLL])


def _refused(game, state) -> bool:
    """Whether the last try was refused (hidden information: the game says; else no move is)."""
    refused = getattr(game, "refused", None)
    return refused is not None and refused(state)


def record(game, header: str, choose: Callable) -> str:
    """Play `game` from its initial state, `choose(legal_moves) -> move` picking each move."""
    state = game.initial_state()
    out = [header, *_boards(game, state)]
    while not game.is_terminal(state):
        legal = game.legal_moves(state)
        move = choose(legal)
        out.append(f"legal {' '.join(map(str, legal))}")
        state, taken = game.apply_counted(state, move)
        state = game.thrown(state, 0) if game.stage.roll is not None else state  # the referee's dice of seed 0
        out += [f"move {move} taken {taken}" + (" refused" if _refused(game, state) else ""), *_boards(game, state)]
    out.append(f"returns {' '.join(f'{r:+g}' for r in game.returns(state))}")
    return "\n".join(out) + "\n"


def replay(game, text: str) -> str:
    """The same file rebuilt by replaying its recorded moves on `game` (any Game implementation)."""
    lines = text.splitlines()
    moves = iter(game.parse_move(line.split()[1]) for line in lines if line.startswith("move "))
    return record(game, lines[0], lambda legal: next(moves, None) or legal[0])
